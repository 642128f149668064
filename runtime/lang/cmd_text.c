/* cmd_text.c: text to ids and back: tokenize, encode (BOS, crop, left-pad), decode, vocab. */
#include "lang_objs.h"

#include "wl_context.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmd_tokenize(wl_call *c, wl_value **out)
{
    wl_tokens t;
    if (lang_tokens_arg(c, 0, &t)) return -1;
    *out = wl_list_strs(t.tok, t.n);
    wl_tokens_free(&t);
    return 0;
}

static wl_value *opt_vocab(wl_call *c, const char *what)
{
    wl_value *v = wl_opt_val(c, "vocab");
    if (!v) {
        wl_call_fail(c, "ArgumentError", c->argc + 1, "`%s` needs vocab=... (e.g. vocab=$stories.vocab) to %s", c->cmd->name, what);
        return NULL;
    }
    return lang_vocab_from(c, v, wl_call_optword(c, "vocab"));
}

static int cmd_encode(wl_call *c, wl_value **out)
{
    long long T;
    if (wl_opt_int(c, "context", WL_T, 1, 4096, &T)) return -1;
    wl_value *vv = opt_vocab(c, "look the tokens up");
    if (!vv) return -1;
    wl_tokens t;
    if (lang_tokens_arg(c, 0, &t)) {
        wl_unref(vv);
        return -1;
    }
    int32_t *hist;
    int rc = wl_context_ids(lang_vocab_get(vv), (const char *const *)t.tok, t.n, &hist, c->err);
    if (!rc) {
        *out = lang_ids_value(hist, (int)t.n + 1, (int)T, vv);
        free(hist);
    }
    wl_tokens_free(&t);
    wl_unref(vv);
    return rc;
}

static int cmd_decode(wl_call *c, wl_value **out)
{
    wl_value *vv = opt_vocab(c, "turn ids into tokens");
    if (!vv) return -1;
    const wl_vocab *v = lang_vocab_get(vv);
    wl_value *a = c->argv[0];
    lang_ids *li = wl_obj_data(a, &lang_ids_type);
    int list = c->argc == 1 && a->type == WL_V_LIST;   /* else each argument is one id */
    int n = li ? li->T : list ? a->n : c->argc;
    if ((li || a->type == WL_V_LIST) && c->argc > 1) {
        wl_unref(vv);
        return wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1), "`decode` takes one ids (from encode) or list of ids, "
                            "or the ids themselves as whole numbers (decode 1 8 32), not both");
    }
    const char **toks = calloc((size_t)n + 1, sizeof(char *));
    if (!toks) {
        wl_unref(vv);
        return wl_fail(c->err, "out of memory for %d ids", n);
    }
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        const wl_value *item = li ? NULL : list ? a->items[i] : c->argv[i];
        int word = wl_call_argword(c, list || li ? 0 : i);
        double id = li ? li->ids[i] : item->num;
        char nb[64];
        if (item && item->type != WL_V_NUM)
            rc = wl_call_fail(c, "TypeError", word, "`decode` takes ids (from encode) or whole numbers, not %s", wl_value_kind(item));
        else if (id != floor(id))
            rc = wl_call_fail(c, "ArgumentError", word, "%s is not a whole number: an id is a whole number from 0 to %zu",
                              wl_fmt_num(id, 0, nb), v->n - 1);
        else if (id < 0 || id >= (double)v->n)
            rc = wl_call_fail(c, "ArgumentError", word, "id %s is outside the vocabulary (0 to %zu)", wl_fmt_num(id, 1, nb), v->n - 1);
        else
            toks[i] = v->itos[(size_t)id];
    }
    char *text = NULL;
    if (!rc && wl_text_readable(toks, (size_t)n, 0, &text, c->err)) rc = -1;
    if (!rc) {
        *out = wl_str(text);
        free(text);
    }
    free(toks);
    wl_unref(vv);
    return rc;
}

static int cmd_vocab(wl_call *c, wl_value **out)
{
    wl_value *vv = lang_vocab_from(c, c->argv[0], wl_call_argword(c, 0));
    if (!vv) return -1;
    const char *path = wl_opt_str(c, "save", NULL);
    if (wl_opt_has(c, "save")) {
        if (!path || !c->allow_files) {
            wl_unref(vv);
            return path ? wl_call_fail(c, "PermissionError", wl_call_optword(c, "save"), "writing files is disabled here") : -1;
        }
        if (wl_vocab_save(lang_vocab_get(vv), path, c->err)) {
            wl_unref(vv);
            c->errword = wl_call_optword(c, "save");
            return -1;
        }
        wl_sink_printf(c->sink, "saved %zu tokens to %s\n", lang_vocab_get(vv)->n, path);
    }
    *out = vv;
    return 0;
}

const wl_command wl_cmds_text[] = {
    {.name = "tokenize", .topic = "text", .synopsis = "tokenize TEXT", .summary = "split text into word tokens",
     .help = "Normalizes the text (NFKC, lower case, single spaces), then keeps, left to right: runs of\n"
             "letters a-z with at most one inner apostrophe part (don't), runs of digits, and single\n"
             "punctuation marks. Other letters (é, ß) are dropped. Gives a list of strings.",
     .example = "tokenize \"A little dog found a red hat.\"\ntokenize \"Don't stop!\"", .min_args = 1, .max_args = 1,
     .fn = cmd_tokenize},
    {.name = "encode", .topic = "text", .synopsis = "encode TOKENS|TEXT vocab=V [context=64]",
     .summary = "token ids with BOS, cropped to the context and left-padded",
     .help = "Looks each token up in the vocabulary (unknown tokens become <UNK>=3), puts <BOS>=1 in\n"
             "front, keeps the last `context` ids and fills the slots before them with <PAD>=0. The\n"
             "models read exactly 64 ids. vocab= takes a vocab, a corpus, a model or a vocab.json path.",
     .example = LANG_EX_STORIES "encode \"a little dog found a red hat\" vocab=$stories.vocab\n"
                "ids = encode [tokenize \"the cat sat\"] vocab=$stories context=8\nprint $ids.real",
     .min_args = 1, .max_args = 1, .options = "vocab context", .fn = cmd_encode,
     .result = &lang_ids_type},
    {.name = "decode", .topic = "text", .synopsis = "decode IDS|ID [ID ...] vocab=V", .summary = "turn ids back into text",
     .help = "Takes ids from `encode`, a list of whole numbers or whole numbers (decode 1 8 32), drops <PAD> <BOS> <EOS> <UNK> and\n"
             "joins the tokens as English is written: no space before . , ! ? or a closing quote, none\n"
             "after an opening one (quotes pair up: came over. \"i am shy,\" said his mom).",
     .example = LANG_EX_STORIES "ids = encode \"the dog was happy .\" vocab=$stories\n"
                "decode $ids vocab=$stories\ndecode 8 34 vocab=$stories",
     .min_args = 1, .max_args = -1, .options = "vocab", .fn = cmd_decode},
    {.name = "vocab", .topic = "text", .synopsis = "vocab SOURCE [save=PATH]", .summary = "show a vocabulary; load or save vocab.json",
     .help = "SOURCE is a corpus, a model with a vocabulary, a vocab, or the path of a vocab.json.\n"
             "Ids 0-3 are <PAD> <BOS> <EOS> <UNK>; then tokens by falling count in the training split.\n"
             "save=PATH writes vocab.json (replacing only an earlier vocab.json).",
     .example = LANG_EX_STORIES "vocab $stories\nv = vocab $stories\nprint $v.size",
     .min_args = 1, .max_args = 1, .options = "save", .fn = cmd_vocab, .result = &lang_vocab_type},
    {0},
};

/* cmd_text.c: text to ids and back: tokenize, encode (BOS, crop, left-pad), decode, vocab; the vocab and ids values. */
#include "lang_objs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile sig_atomic_t *lang_interrupt(wl_call *c) { return c->sink ? c->sink->interrupt : NULL; }

const char *lang_token(const wl_vocab *v, int32_t id)
{
    return v && id >= 0 && (size_t)id < v->n ? v->itos[id] : "?";
}

/* ---- vocab values ---- */

static void vocab_free(void *d)
{
    lang_vocab *lv = d;
    if (lv->owner) wl_unref(lv->owner);
    else wl_vocab_free(&lv->own);
    free(lv);
}

#define VOCAB_SHOW 48

static int vocab_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const wl_vocab *v = ((const lang_vocab *)d)->v;
    wl_buf b = {0}, h = {0};
    wl_buf_printf(&b, "vocabulary: %zu tokens", v->n);
    if (v->profile[0]) wl_buf_printf(&b, " (profile %s, min_freq %zu, max_vocab %zu)", v->profile, v->min_freq, v->max_vocab);
    wl_buf_puts(&b, "\nid  token\n");
    wl_buf_puts(&h, "<p>");
    wl_buf_html(&h, b.s);
    wl_buf_puts(&h, "</p><p style=\"font-family:monospace\">");
    size_t show = v->n < VOCAB_SHOW ? v->n : VOCAB_SHOW;
    for (size_t i = 0; i < show; i++) {
        int eol = i % 6 == 5 || i + 1 == show;
        wl_buf_printf(&b, eol ? "%4zu %s\n" : "%4zu %-12s ", i, v->itos[i]);
        wl_buf_printf(&h, "%zu&nbsp;<b>", i);
        wl_buf_html(&h, v->itos[i]);
        wl_buf_puts(&h, "</b> &nbsp; ");
    }
    if (show < v->n) {
        wl_buf_printf(&b, "... and %zu more (the last is %zu %s)", v->n - show, v->n - 1, v->itos[v->n - 1]);
        wl_buf_printf(&h, "... and %zu more", v->n - show);
    }
    while (b.len && b.s[b.len - 1] == '\n') b.s[--b.len] = 0;
    wl_buf_puts(&h, "</p>");
    out->text_plain = wl_buf_take(&b);
    out->text_html = wl_buf_take(&h);
    wl_buf_printf(&b, "{\"type\":\"vocab\",\"size\":%zu,\"profile\":", v->n);
    wl_buf_json_str(&b, v->profile);
    wl_buf_puts(&b, ",\"itos\":[");
    for (size_t i = 0; i < v->n; i++) {
        if (i) wl_buf_put(&b, ",", 1);
        wl_buf_json_str(&b, v->itos[i]);
    }
    wl_buf_puts(&b, "]}");
    out->app_json = wl_buf_take(&b);
    return 0;
}

static wl_value *vocab_field(wl_value *self, const char *name, wl_err *err)
{
    const wl_vocab *v = lang_vocab_get(self);
    if (!strcmp(name, "size")) return wl_int((long long)v->n);
    if (!strcmp(name, "itos")) {
        wl_value *l = wl_list();
        for (size_t i = 0; i < v->n; i++) wl_list_push(l, wl_str(v->itos[i]));
        return l;
    }
    wl_fail(err, "a vocab has no field .%s; its fields are %s", name, lang_vocab_type.fields);
    return NULL;
}

const wl_objtype lang_vocab_type = {.name = "vocab", .fields = "size itos", .free = vocab_free,
                                    .render = vocab_render, .field = vocab_field};

wl_value *lang_vocab_value(wl_value *owner, const wl_vocab *v)
{
    lang_vocab *lv = calloc(1, sizeof *lv);
    if (!lv) abort();
    lv->owner = wl_ref(owner);
    lv->v = v;
    return wl_obj(&lang_vocab_type, lv);
}

wl_value *lang_vocab_value_own(wl_vocab *own)
{
    lang_vocab *lv = calloc(1, sizeof *lv);
    if (!lv) abort();
    lv->own = *own;
    memset(own, 0, sizeof *own);
    lv->v = &lv->own;
    return wl_obj(&lang_vocab_type, lv);
}

const wl_vocab *lang_vocab_get(const wl_value *vv) { return ((const lang_vocab *)vv->data)->v; }

wl_value *lang_vocab_from(wl_call *c, wl_value *v, int word)
{
    if (wl_obj_data(v, &lang_vocab_type)) return wl_ref(v);
    lang_corpus *lc = wl_obj_data(v, &lang_corpus_type);
    if (lc) return lang_vocab_value(v, &lc->c.vocab);
    lang_model *lm = wl_obj_data(v, &lang_model_type);
    if (lm && lm->vocab) return wl_ref(lm->vocab);
    if (lm) {
        wl_call_fail(c, "ArgumentError", word, LANG_NO_VOCAB);
        return NULL;
    }
    if (v->type == WL_V_STR) {
        if (!c->allow_files) {
            wl_call_fail(c, "PermissionError", word, "reading files is disabled here");
            return NULL;
        }
        wl_vocab voc;
        if (wl_vocab_load(v->str, &voc, c->err)) {
            c->errword = word;
            return NULL;
        }
        return lang_vocab_value_own(&voc);
    }
    wl_call_fail(c, "TypeError", word, "expected a vocabulary (a vocab, a corpus, a model with one, or a vocab.json path), not %s",
                 wl_value_kind(v));
    return NULL;
}

/* ---- ids values ---- */

static void ids_free(void *d)
{
    lang_ids *li = d;
    free(li->ids);
    wl_unref(li->vocab);
    free(li);
}

static int ids_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_ids *li = d;
    const wl_vocab *v = li->vocab ? lang_vocab_get(li->vocab) : NULL;
    int npad = li->T - li->nreal;
    wl_buf b = {0}, h = {0};
    wl_buf_printf(&b, "ids [1,%d]: ", li->T);
    if (npad) wl_buf_printf(&b, "%d × <PAD>=0, then ", npad);
    for (int i = npad; i < li->T; i++) wl_buf_printf(&b, "%s%d", i > npad ? " " : "", li->ids[i]);
    if (li->cropped) wl_buf_printf(&b, "\n(cropped: the first %d ids did not fit)", li->cropped);
    if (v) {
        wl_buf_puts(&b, "\ntokens:");
        for (int i = npad; i < li->T; i++) wl_buf_printf(&b, " %s", lang_token(v, li->ids[i]));
    }
    out->text_plain = wl_buf_take(&b);
    wl_table *t = wl_table_new(li->nreal + 1);
    wl_table_header_cols(t, 1);
    wl_table_title(t, "");
    wl_table_cellf(t, -1, "slot (of %d; %d padding)", li->T, npad);
    for (int i = npad; i < li->T; i++) wl_table_cellf(t, -1, "%d", i);
    wl_table_cell(t, "id", -1);
    for (int i = npad; i < li->T; i++) wl_table_cellf(t, -1, "%d", li->ids[i]);
    if (v) {
        wl_table_cell(t, "token", -1);
        for (int i = npad; i < li->T; i++) wl_table_cell(t, lang_token(v, li->ids[i]), -1);
    }
    char *html = wl_table_html(t);
    wl_table_free(t);
    wl_buf_puts(&h, html);
    free(html);
    out->text_html = wl_buf_take(&h);
    wl_buf_printf(&b, "{\"type\":\"ids\",\"shape\":[1,%d],\"ids\":[", li->T);
    for (int i = 0; i < li->T; i++) wl_buf_printf(&b, "%s%d", i ? "," : "", li->ids[i]);
    wl_buf_printf(&b, "],\"padding\":%d,\"cropped\":%d}", npad, li->cropped);
    out->app_json = wl_buf_take(&b);
    return 0;
}

static wl_value *ids_field(wl_value *self, const char *name, wl_err *err)
{
    const lang_ids *li = self->data;
    int npad = li->T - li->nreal;
    if (!strcmp(name, "ids") || !strcmp(name, "real")) {
        wl_value *l = wl_list();
        for (int i = !strcmp(name, "ids") ? 0 : npad; i < li->T; i++) wl_list_push(l, wl_int(li->ids[i]));
        return l;
    }
    if (!strcmp(name, "tokens") && li->vocab) {
        wl_value *l = wl_list();
        for (int i = npad; i < li->T; i++) wl_list_push(l, wl_str(lang_token(lang_vocab_get(li->vocab), li->ids[i])));
        return l;
    }
    if (!strcmp(name, "count")) return wl_int(li->nreal);
    if (!strcmp(name, "shape")) {
        wl_value *l = wl_list();
        wl_list_push(l, wl_int(1));
        wl_list_push(l, wl_int(li->T));
        return l;
    }
    wl_fail(err, "ids have no field .%s; their fields are %s", name, lang_ids_type.fields);
    return NULL;
}

const wl_objtype lang_ids_type = {.name = "ids", .fields = "ids real tokens count shape", .free = ids_free,
                                  .render = ids_render, .field = ids_field};

wl_value *lang_ids_value(const int32_t *history, int nhistory, int T, wl_value *vocab)
{
    lang_ids *li = calloc(1, sizeof *li);
    if (!li) abort();
    li->ids = calloc((size_t)T, sizeof(int32_t));
    if (!li->ids) abort();
    li->T = T;
    li->nreal = nhistory < T ? nhistory : T;
    li->cropped = nhistory - li->nreal;
    memcpy(li->ids + (T - li->nreal), history + li->cropped, sizeof(int32_t) * (size_t)li->nreal);
    li->vocab = wl_ref(vocab);
    return wl_obj(&lang_ids_type, li);
}

/* ---- commands ---- */

/* Tokens from argument i: a list of strings, or text to tokenize. Fills t (free with wl_tokens_free) or a list view. */
static int tokens_of(wl_call *c, int i, wl_tokens *t)
{
    memset(t, 0, sizeof *t);
    wl_value *v = c->argv[i];
    if (v->type == WL_V_LIST) {
        size_t total = 0;
        for (int k = 0; k < v->n; k++) {
            if (v->items[k]->type != WL_V_STR)
                return wl_call_fail(c, "TypeError", wl_call_argword(c, i), "a token list holds strings; item %d is %s", k,
                                    wl_value_kind(v->items[k]));
            total += v->items[k]->len + 1;
        }
        t->n = (size_t)v->n;
        t->tok = calloc(t->n + 1, sizeof(char *));
        t->buf = malloc(total + 1);
        if (!t->tok || !t->buf) abort();
        char *p = t->buf;
        for (int k = 0; k < v->n; k++) {
            memcpy(p, v->items[k]->str, v->items[k]->len + 1);
            t->tok[k] = p;
            p += v->items[k]->len + 1;
        }
        return 0;
    }
    const char *s = wl_arg_str(c, i);
    if (!s) return -1;
    if (wl_text_tokenize(s, strlen(s), t, c->err)) {
        c->errword = wl_call_argword(c, i);
        return -1;
    }
    return 0;
}

static int cmd_tokenize(wl_call *c, wl_value **out)
{
    wl_tokens t;
    if (tokens_of(c, 0, &t)) return -1;
    wl_value *l = wl_list();
    for (size_t i = 0; i < t.n; i++) wl_list_push(l, wl_str(t.tok[i]));
    wl_tokens_free(&t);
    *out = l;
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
    if (tokens_of(c, 0, &t)) {
        wl_unref(vv);
        return -1;
    }
    int32_t *hist = malloc(sizeof(int32_t) * (t.n + 1));
    if (!hist) abort();
    hist[0] = WL_BOS;
    wl_vocab_encode(lang_vocab_get(vv), (const char *const *)t.tok, t.n, hist + 1);
    *out = lang_ids_value(hist, (int)t.n + 1, (int)T, vv);
    free(hist);
    wl_tokens_free(&t);
    wl_unref(vv);
    return 0;
}

static int cmd_decode(wl_call *c, wl_value **out)
{
    wl_value *vv = opt_vocab(c, "turn ids into tokens");
    if (!vv) return -1;
    const wl_vocab *v = lang_vocab_get(vv);
    wl_value *a = c->argv[0];
    lang_ids *li = wl_obj_data(a, &lang_ids_type);
    int n = li ? li->T : a->type == WL_V_LIST ? a->n : 1;
    const char **toks = calloc((size_t)n + 1, sizeof(char *));
    if (!toks) abort();
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        const wl_value *item = a->type == WL_V_LIST ? a->items[i] : a;
        long long id = li ? li->ids[i] : -1;
        if (!li && (item->type != WL_V_NUM || !item->is_int)) {
            rc = wl_call_fail(c, "TypeError", wl_call_argword(c, 0), "`decode` takes ids (from encode) or whole numbers, not %s",
                              wl_value_kind(item));
            break;
        }
        if (!li) id = (long long)item->num;
        if (id < 0 || (size_t)id >= v->n)
            rc = wl_call_fail(c, "ArgumentError", wl_call_argword(c, 0), "id %lld is outside the vocabulary (0 to %zu)", id, v->n - 1);
        else toks[i] = v->itos[id];
    }
    char *text = NULL;
    if (!rc && wl_text_detokenize(toks, (size_t)n, &text, c->err)) rc = -1;
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
             "models read exactly 64 ids. vocab= takes a vocab, a corpus, a model or a vocab.json path.\n"
             "Fields: .ids (all slots) .real (after the padding) .tokens .count .shape",
     .example = "stories = corpus profile=smoke\nencode \"a little dog found a red hat\" vocab=$stories.vocab\n"
                "ids = encode [tokenize \"the cat sat\"] vocab=$stories context=8\nprint $ids.real",
     .min_args = 1, .max_args = 1, .options = "vocab context", .fn = cmd_encode},
    {.name = "decode", .topic = "text", .synopsis = "decode IDS vocab=V", .summary = "turn ids back into text",
     .help = "Takes ids from `encode` or a list of whole numbers, drops <PAD> <BOS> <EOS> <UNK> and\n"
             "joins the tokens with the spacing rules of detokenize (no space before . , ! ?).",
     .example = "stories = corpus profile=smoke\nids = encode \"the dog was happy .\" vocab=$stories\n"
                "decode $ids vocab=$stories",
     .min_args = 1, .max_args = 1, .options = "vocab", .fn = cmd_decode},
    {.name = "vocab", .topic = "text", .synopsis = "vocab SOURCE [save=PATH]", .summary = "show a vocabulary; load or save vocab.json",
     .help = "SOURCE is a corpus, a model with a vocabulary, a vocab, or the path of a vocab.json.\n"
             "Ids 0-3 are <PAD> <BOS> <EOS> <UNK>; then tokens by falling count in the training split.\n"
             "save=PATH writes vocab.json. Fields: .size .itos",
     .example = "stories = corpus profile=smoke\nvocab $stories\nv = vocab $stories\nprint $v.size",
     .min_args = 1, .max_args = 1, .options = "save", .fn = cmd_vocab},
    {0},
};

/* cmd_lesson.c: commands the lessons lean on: artifact (bundled files), losses (a story shaded by its per-token loss), uniform, heatmap (any tensor slice), code (the model's C). */
#include "lang_objs.h"

#include "wl_context.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The artifact name in the first directory that holds it, or the first readable directory (name NULL). */
static int find_artifact(wl_call *c, char *const *dirs, int n, wl_value **out)
{
    if (c->argc == 0) {
        for (int i = 0; i < n; i++)
            if (!access(dirs[i], R_OK | X_OK)) {
                char *real = realpath(dirs[i], NULL);
                *out = wl_str(real ? real : dirs[i]);
                free(real);
                return 0;
            }
        *out = wl_str(dirs[n - 1]);
        return 0;
    }
    const char *name = wl_arg_str(c, 0);
    if (!name) return -1;
    if (!*name || name[0] == '/' || strstr(name, ".."))
        return wl_call_fail(c, "ArgumentError", 1, "an artifact is named by a file name inside the artifact directory, such as vocab.json");
    for (int i = 0; i < n; i++) {
        wl_buf pb = {0};
        wl_buf_printf(&pb, "%s/%s", dirs[i], name);
        char *path = wl_buf_take(&pb);
        int found = !access(path, R_OK);
        char *real = found ? realpath(path, NULL) : NULL;   /* shown without the program's "/../" */
        if (found) *out = wl_str(real ? real : path);
        free(real);
        free(path);
        if (found) return 0;
    }
    wl_buf b = {0};
    for (int i = 0; i < n; i++) wl_buf_printf(&b, "%s%s", i ? ", " : "", dirs[i]);
    char *where = wl_buf_take(&b);
    wl_call_fail(c, "FileNotFoundError", 1, "no artifact %s in %s", name, where);
    free(where);
    return -1;
}

static int cmd_artifact(wl_call *c, wl_value **out)
{
    char *dirs[3];
    int n = lang_artifact_dirs(c->in, dirs);
    if (!n) return wl_call_fail(c, "RuntimeError", 0, "no artifact directory is known; set WORDLAB_ARTIFACTS");
    int rc = find_artifact(c, dirs, n, out);
    lang_artifact_dirs_free(dirs, n);
    return rc;
}

/* 1 when two vocabularies have the same tokens in the same order. */
static int same_vocab(const wl_vocab *a, const wl_vocab *b)
{
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->itos[i], b->itos[i])) return 0;
    return 1;
}

static int cmd_losses(wl_call *c, wl_value **out)
{
    lang_model *lm = wl_arg_obj(c, 0, &lang_model_type);
    if (!lm) return -1;
    lang_corpus *lc = wl_obj_data(c->argv[1], &lang_corpus_type);
    const wl_vocab *v = lm->vocab ? lang_vocab_get(lm->vocab) : NULL;
    wl_tokens toks = {0};
    int32_t *hist = NULL;   /* [n + 2]: <BOS>, the story's ids, <EOS> */
    int n = 0;
    char title[160];
    if (lc) {
        wl_split s;
        const wl_story *st = lang_corpus_story(c, lc, &s);
        if (!st) return -1;
        if (v ? !same_vocab(v, &lc->c.vocab) : lc->c.vocab.n != (size_t)lm->m.V)
            return wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1),
                                "the model was trained with another vocabulary than this corpus's; the ids would not match");
        v = &lc->c.vocab;
        n = (int)st->tokens.n;
        hist = malloc(sizeof(int32_t) * ((size_t)n + 2));
        if (!hist) return wl_fail(c->err, "out of memory for the ids of a story of %d tokens", n);
        hist[0] = WL_BOS;
        memcpy(hist + 1, st->ids, sizeof(int32_t) * (size_t)n);
        toks = st->tokens;   /* borrowed */
        snprintf(title, sizeof title, "%s story %td (of %zu) scored by the %s model", wl_split_name(s),
                 st - lc->c.stories[s] + 1, lc->c.n[s], lm->m.kind_name);
    } else {
        const char *text = wl_arg_str(c, 1);
        if (!text) return -1;
        if (!v)
            return wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1),
                                LANG_NO_VOCAB "; or pass a corpus");
        if (wl_context_encode(v, text, strlen(text), &toks, &hist, c->err)) {
            c->errword = wl_call_argword(c, 1);
            return -1;
        }
        n = (int)toks.n;
        snprintf(title, sizeof title, "the text scored by the %s model", lm->m.kind_name);
    }
    hist[n + 1] = WL_EOS;
    int rc = 0;
    for (int i = 1; i <= n + 1 && !rc; i++)
        if (hist[i] < 0 || hist[i] >= lm->m.V)
            rc = wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1), "id %d is outside this model's vocabulary of %d", hist[i], lm->m.V);
    if (!rc) rc = lang_losses_score(c, lm, hist, n + 1, toks.tok, v, title, out);
    if (!lc) wl_tokens_free(&toks);
    free(hist);
    return rc;
}

/* ---- uniform: the probability a model that knows nothing gives every target ---- */

static int cmd_uniform(wl_call *c, wl_value **out)
{
    long long V;
    wl_value *a = c->argv[0];
    if (a->type == WL_V_OBJ) {
        wl_value *vv = lang_vocab_from(c, a, 1);
        if (!vv) return -1;
        V = (long long)lang_vocab_get(vv)->n;
        wl_unref(vv);
    } else if (wl_arg_int(c, 0, 1, LLONG_MAX, &V)) {
        return -1;
    }
    *out = wl_num(1.0 / (double)V);
    return 0;
}

/* ---- heatmap: one matrix of a tensor as a small heat map ---- */

static int cmd_heatmap(wl_call *c, wl_value **out)
{
    const lang_tensor *t = wl_arg_obj(c, 0, &lang_tensor_type);
    if (!t) return -1;
    if (t->ndim < 2)
        return wl_call_fail(c, "ArgumentError", 1, "%s has one axis; a heat map needs a matrix", t->name);
    int R = t->shape[t->ndim - 2], nheads = t->ndim == 4 ? t->shape[1] : 1;
    long long head, last, cols;
    if (wl_opt_int(c, "head", 1, 1, nheads, &head) || wl_opt_int(c, "last", R, 1, R, &last) ||
        wl_opt_int(c, "cols", 0, 1, 256, &cols))
        return -1;
    wl_value *labels = wl_opt_val(c, "labels");
    if (labels && (labels->type != WL_V_LIST || labels->n != last))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "labels"), "labels= needs a list of %lld names, one per row", last);
    for (int i = 0; labels && i < labels->n; i++)
        if (labels->items[i]->type != WL_V_STR && labels->items[i]->type != WL_V_NUM)
            return wl_call_fail(c, "TypeError", wl_call_optword(c, "labels"), "labels= holds names; item %d is %s", i,
                                wl_value_kind(labels->items[i]));
    *out = lang_heatmap_value(t, (int)head, (int)last, (int)cols, labels, wl_interp_options(c->in)->text_width);
    return 0;
}

/* ---- code: the runtime's own C for the models' forward pass ---- */

/* The regions of each model kind's forward pass, in the order a reader follows them. */
static const char *const CODE_MLP[] = {"embedding", "linear", "forward", NULL};
static const char *const CODE_ATTENTION[] = {"details", "embedding", "linear", "attention", "softmax", "forward", "final_query", NULL};

static int cmd_code(wl_call *c, wl_value **out)
{
    enum { MAX = 32 };
    const char *kind = wl_opt_str(c, "kind", NULL);
    if (wl_opt_has(c, "kind") && !kind) return -1;
    if (kind && c->argc)
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "kind"), "give a region's NAME or kind=, not both");
    const char *const *want = NULL, *one[2] = {c->argc ? wl_arg_str(c, 0) : NULL, NULL};
    if (c->argc && !one[0]) return -1;
    if (kind && !strcmp(kind, "mlp")) want = CODE_MLP;
    else if (kind && (!strcmp(kind, "attention") || !strcmp(kind, "multihead"))) want = CODE_ATTENTION;
    else if (kind) return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "kind"), "kind= is mlp, attention or multihead");
    else if (c->argc) want = one;
    lang_code_region *all = wl_xcalloc(MAX, sizeof *all);
    int n = lang_code_regions(all, MAX);
    if (!want) {
        *out = lang_code_value(all, n, 1);
        return 0;
    }
    int k = 0;
    while (want[k]) k++;
    lang_code_region *sel = wl_xcalloc((size_t)k, sizeof *sel);
    int rc = 0;
    for (int i = 0; i < k && !rc; i++) {
        int at = 0;
        while (at < n && strcmp(all[at].name, want[i])) at++;
        if (at == n) {
            rc = wl_call_fail(c, "RuntimeError", c->argc ? wl_call_argword(c, 0) : -1,
                              "the sources hold no region %s (its marker /* @code %s: ... */ is missing)", want[i], want[i]);
            break;
        }
        sel[i] = all[at];
        all[at].text = NULL;   /* moved */
    }
    lang_code_regions_free(all, n);
    free(all);
    if (rc) {
        lang_code_regions_free(sel, k);
        free(sel);
        return -1;
    }
    *out = lang_code_value(sel, k, 0);
    return 0;
}

const wl_command wl_cmds_lesson[] = {
    {.name = "artifact", .topic = "lessons", .synopsis = "artifact [NAME]",
     .summary = "the path of a bundled file: vocab.json, the seed-11 checkpoints, comparison.json",
     .help = "The lessons load the files that come with wordlab by name, wherever wordlab is installed:\n"
             "the first of $WORDLAB_ARTIFACTS, <the program's directory>/../share/artifacts and the\n"
             "source tree's share/artifacts that holds NAME. Without NAME: the directory itself.\n"
             "Gives a string to pass to `model load`, `vocab`, `results`.",
     .example = "artifact\nprint \"the bundled files live in\" [artifact]",
     .min_args = 0, .max_args = 1, .fn = cmd_artifact},
    {.name = "losses", .topic = "lessons", .synopsis = "losses MODEL CORPUS|TEXT [split=test] [story=1]",
     .summary = "a story with each token shaded by its loss -ln p under a model",
     .help = "Scores every target of one story the way `evaluate` does: each token of the story and\n"
             "the final <EOS>, each predicted from <BOS> and the tokens before it (the last 64 ids).\n"
             "Shows the story with each token shaded by its loss (darker: the model found it less\n"
             "likely; * marks a word outside the vocabulary, scored as <UNK>), the mean loss and its\n"
             "exp, the perplexity of that one story. The shading is a background colour in a notebook\n"
             "and in a terminal that shows colour; every token's loss also follows it in parentheses.\n"
             "CORPUS picks story=N of split=; TEXT is tokenized\n"
             "with the model's vocabulary.",
     .example = "stories = corpus profile=smoke\n"
                "m = model new kind=attention vocab=$stories.vocab seed=11\n"
                "losses $m $stories split=test story=2\n"
                "l = losses $m \"the dog was happy .\"\n"
                "print $l.perplexity",
     .min_args = 2, .max_args = 2, .options = "split story", .fn = cmd_losses,
     .result = &lang_losses_type},
    {.name = "uniform", .topic = "lessons", .synopsis = "uniform V|VOCAB",
     .summary = "1/V: the probability a uniform model gives every target",
     .help = "A model that spreads its probability evenly over the V words of a vocabulary gives\n"
             "each target 1/V, so every loss is ln V, their mean is ln V and the perplexity is V.\n"
             "V is a whole number or a vocabulary (a vocab, a corpus, a model with one).",
     .example = "uniform 4\nperplexity [uniform 4] [uniform 4]",
     .min_args = 1, .max_args = 1, .fn = cmd_uniform},
    {.name = "heatmap", .topic = "lessons", .synopsis = "heatmap TENSOR [head=1] [last=N] [cols=64] [labels=LIST]",
     .summary = "one matrix of a tensor (E, Q, scores, weights...) as a small heat map",
     .help = "Takes batch 0 (and head= of a [B,H,T,x] tensor) and draws its last two axes: one row\n"
             "per slot, one column per feature, or per key slot for scores and weights ([T,T]).\n"
             "last=N keeps the last N slots (the real tokens after the padding); labels=\n"
             "names them ($ids.tokens). Values in 0..1 are shaded as they are; others from the\n"
             "lightest (minimum) to the darkest (maximum); masked -inf entries stay blank.\n"
             "cols= caps the columns of a wide matrix (logits).",
     .example = "stories = corpus profile=smoke\n"
                "m = model new kind=multihead heads=4 vocab=$stories.vocab seed=11\n"
                "ids = encode \"a little dog found a red hat\" vocab=$stories\n"
                "d = details $m $ids\n"
                "heatmap $d.weights head=2 last=8 labels=$ids.tokens\n"
                "heatmap $d.Q head=1 last=8",
     .min_args = 1, .max_args = 1, .options = "head last cols labels", .fn = cmd_heatmap},
    {.name = "code", .topic = "lessons", .synopsis = "code [NAME] [kind=mlp|attention|multihead]",
     .summary = "the runtime's own C for the models' forward pass, highlighted",
     .help = "Shows the C that computes the numbers: the marked regions of runtime/nn/wl_layers.c and\n"
             "wl_model.c, taken from the sources when wordlab was built, with their line numbers and the\n"
             "shapes in their comments. NAME is one region: embedding (token and position embeddings),\n"
             "linear (a Linear layer), attention (every query of every head: the split into heads, the\n"
             "scores, the causal mask, the softmax, the messages), softmax (the masked softmax), details\n"
             "(forward_details: every intermediate), forward (the forward pass of training and generation)\n"
             "and final_query (its attention, for the final query only). kind= shows every region of one\n"
             "model's forward pass in reading order. Without either: the table of regions.",
     .example = "code\ncode attention\ncode kind=mlp",
     .min_args = 0, .max_args = 1, .options = "kind", .subcommands = "embedding linear attention softmax details forward final_query",
     .fn = cmd_code, .result = &lang_code_type},
    {0},
};

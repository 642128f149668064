/* cmd_model.c: models and what they compute: model (new, load, save, info), details, forward, maxdiff, heads, attention,
 * heatmap (any tensor slice), code (the model's own C). */
#include "lang_objs.h"

#include "wl_checkpoint.h"
#include "wl_context.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int model_new(wl_call *c, wl_value **out)
{
    const char *kind = wl_opt_str(c, "kind", "multihead");
    long long heads, seed, vsize = 0;
    if (!kind || wl_opt_int(c, "seed", 11, 0, (1LL << 53), &seed)) return -1;
    if (wl_opt_int(c, "heads", !strcmp(kind, "multihead") ? 4 : 1, 1, WL_D, &heads)) return -1;
    wl_value *vopt = wl_opt_val(c, "vocab"), *vv = NULL;
    if (!vopt)
        return wl_call_fail(c, "ArgumentError", c->argc + 1, "`model new` needs vocab=: a vocabulary (vocab=$stories.vocab) or its size (vocab=1500)");
    if (vopt->type == WL_V_NUM) {
        if (wl_opt_int(c, "vocab", 0, 5, WL_MODEL_MAX_V, &vsize)) return -1;
    } else {
        vv = lang_vocab_from(c, vopt, wl_call_optword(c, "vocab"));
        if (!vv) return -1;
        vsize = (long long)lang_vocab_get(vv)->n;
    }
    if (strcmp(kind, "multihead") && wl_opt_has(c, "heads") && heads != 1) {
        wl_unref(vv);
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "heads"), "kind=%s has one head; use kind=multihead for %lld",
                            kind, heads);
    }
    lang_model *lm = lang_model_new();
    if (wl_model_init(&lm->m, kind, (int)vsize, (int)heads, (uint64_t)seed, c->err)) {
        free(lm);
        wl_unref(vv);
        c->ename = "ArgumentError";
        c->errword = wl_call_optword(c, wl_opt_has(c, "heads") ? "heads" : "kind");
        return -1;
    }
    lm->seed = (uint64_t)seed;
    lm->vocab = vv;
    lm->source = wl_xstrdup("model new");
    *out = wl_obj(&lang_model_type, lm);
    return 0;
}

/* The vocabulary a checkpoint brings into *out: the "vocab" member of its metadata (what `model save` writes;
 * a bad one is an error), else, when beside is set, a vocab.json of the right size beside it (what `compare`
 * writes), else none (*out NULL). *from says which. Returns 0 / -1. */
static int checkpoint_vocab(const char *path, const wl_ckpt_meta *meta, int V, int beside, wl_value **out, const char **from,
                            wl_err *err)
{
    wl_vocab v;
    *out = NULL;
    cJSON *o = meta->json ? cJSON_Parse(meta->json) : NULL;
    const cJSON *member = cJSON_GetObjectItemCaseSensitive(o, "vocab");
    char *text = member ? cJSON_PrintUnformatted(member) : NULL;
    cJSON_Delete(o);
    if (text) {
        char where[600];
        snprintf(where, sizeof where, "%s: metadata_json's \"vocab\"", path);
        int rc = wl_vocab_parse(text, strlen(text), where, &v, err);
        free(text);
        if (rc) return -1;
        size_t n = v.n;
        if (n != (size_t)V) {
            wl_vocab_free(&v);
            return wl_fail(err, "%s: has %zu tokens, the model's vocabulary %d", where, n, V);
        }
        *from = "its metadata";
    } else if (beside) {
        const char *slash = strrchr(path, '/');
        char json[4096];
        wl_err ignored;   /* a vocab.json beside the file that does not fit is not this model's */
        snprintf(json, sizeof json, "%.*svocab.json", slash ? (int)(slash - path + 1) : 0, path);
        if (wl_vocab_load(json, &v, &ignored)) return 0;
        if (v.n != (size_t)V) {
            wl_vocab_free(&v);
            return 0;
        }
        *from = "the vocab.json beside it";
    } else {
        return 0;
    }
    *out = lang_vocab_value_own(&v);
    return 0;
}

static int model_load(wl_call *c, wl_value **out)
{
    if (c->argc != 2) return wl_call_fail(c, "ArgumentError", c->argc + 1, "usage: model load PATH [vocab=V]");
    const char *path = wl_arg_str(c, 1);
    if (!path) return -1;
    if (!c->allow_files) return wl_call_fail(c, "PermissionError", wl_call_argword(c, 1), "reading files is disabled here");
    wl_value *vv = NULL;
    if (wl_opt_has(c, "vocab") && !(vv = lang_vocab_from(c, wl_opt_val(c, "vocab"), wl_call_optword(c, "vocab")))) return -1;
    lang_model *lm = lang_model_new();
    wl_ckpt_meta meta;
    if (wl_checkpoint_load(path, vv ? (int)lang_vocab_get(vv)->n : 0, lang_interrupt(c), &lm->m, &meta, c->err)) {
        free(lm);
        wl_unref(vv);
        c->errword = wl_call_argword(c, 1);
        return -1;
    }
    if (lang_cache_checkpoint(c, path, lm)) {
        wl_ckpt_meta_free(&meta);
        wl_model_free(&lm->m);
        free(lm);
        wl_unref(vv);
        return -1;
    }
    lm->seed = meta.seed;
    lm->selected_step = meta.selected_step;
    lm->test_loss = meta.test_loss;
    const char *from = "given with vocab=";
    wl_value *own = NULL;   /* the checkpoint's own vocabulary (its metadata's), which a vocab= given must be */
    if (vv && checkpoint_vocab(path, &meta, lm->m.V, 0, &own, &from, c->err) == 0 && own &&
        lang_vocab_check(c, lang_vocab_get(own), lang_vocab_get(vv), wl_call_optword(c, "vocab"), "the vocab= given")) {
        wl_unref(own);
        wl_unref(vv);
        wl_ckpt_meta_free(&meta);
        wl_model_free(&lm->m);
        free(lm);
        return -1;
    }
    wl_unref(own);
    from = "given with vocab=";
    if (!vv && checkpoint_vocab(path, &meta, lm->m.V, 1, &vv, &from, c->err)) {
        wl_ckpt_meta_free(&meta);
        wl_model_free(&lm->m);
        free(lm);
        c->errword = wl_call_argword(c, 1);
        return -1;
    }
    lm->vocab = vv;
    lm->source = lang_path_shown(c->in, path);
    snprintf(lm->vocab_from, sizeof lm->vocab_from, "%s", vv ? from : "");
    wl_ckpt_meta_free(&meta);
    *out = wl_obj(&lang_model_type, lm);
    return 0;
}

static int model_save(wl_call *c, wl_value **out)
{
    if (c->argc != 3) return wl_call_fail(c, "ArgumentError", c->argc + 1, "usage: model save MODEL PATH");
    lang_model *lm = wl_arg_obj(c, 1, &lang_model_type);
    const char *path = lm ? wl_arg_str(c, 2) : NULL;
    if (!path) return -1;
    if (!c->allow_files) return wl_call_fail(c, "PermissionError", wl_call_argword(c, 2), "writing files is disabled here");
    /* the vocabulary travels in the metadata, so that `model load PATH` alone can read text */
    char *vocab = lm->vocab ? wl_vocab_json(lang_vocab_get(lm->vocab)) : NULL, *extra = NULL;
    if (vocab) {
        wl_buf b = {0};
        wl_buf_printf(&b, "{\"vocab\":%s}", vocab);
        extra = wl_buf_take(&b);
    }
    int rc = wl_checkpoint_save(path, &lm->m, lm->seed, lm->selected_step, lm->test_loss, extra, c->err);
    free(vocab);
    free(extra);
    if (rc) {
        c->errword = wl_call_argword(c, 2);
        return -1;
    }
    wl_sink_printf(c->sink, "saved %s (%zu parameters) to %s\n", lm->m.kind_name, lm->m.nparams, path);
    *out = NULL;
    return 0;
}

static int cmd_model(wl_call *c, wl_value **out)
{
    const char *sub = c->argv[0]->str;
    if (!strcmp(sub, "new")) {
        if (c->argc != 1) return wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1), "`model new` takes only options: kind= heads= vocab= seed=");
        return model_new(c, out);
    }
    if (strcmp(sub, "info") && c->nopts && strcmp(sub, "load"))
        return wl_call_fail(c, "ArgumentError", c->optword[0], "`model %s` takes no options", sub);
    if (!strcmp(sub, "load")) return model_load(c, out);
    if (!strcmp(sub, "save")) return model_save(c, out);
    if (c->argc != 2) return wl_call_fail(c, "ArgumentError", c->argc + 1, "usage: model info MODEL");
    if (!wl_arg_obj(c, 1, &lang_model_type)) return -1;
    *out = wl_ref(c->argv[1]);
    return 0;
}

/* The context a command runs model lm on: argument 1 as ids (from `encode`), or text or a token list encoded with the
 * model's vocabulary (or vocab=), checked against the model. *li is borrowed or lives in *enc; *vv is the vocabulary
 * used for text or given with vocab= (a new reference or NULL). Returns 0, or -1 with nothing to release. */
static int read_context(wl_call *c, const lang_model *lm, lang_ids **li, wl_value **enc, wl_value **vv)
{
    wl_value *idv = c->argv[1];
    *enc = *vv = NULL;
    *li = wl_obj_data(idv, &lang_ids_type);
    if ((!*li || wl_opt_has(c, "vocab")) && !(*vv = lang_model_vocab(c, lm))) return -1;
    int rc = 0;
    if (!*li) { /* text or a token list: encode with the vocabulary */
        wl_tokens toks;
        int32_t *hist;
        if (idv->type != WL_V_STR && idv->type != WL_V_LIST)
            rc = wl_call_fail(c, "TypeError", wl_call_argword(c, 1), "the second argument of `%s` must be ids (from `encode`), "
                              "text or a token list (from `tokenize`), not %s", c->cmd->name, wl_value_kind(idv));
        else if (lang_tokens_arg(c, 1, &toks))
            rc = -1;
        else if (wl_context_ids(lang_vocab_get(*vv), (const char *const *)toks.tok, toks.n, &hist, c->err)) {
            wl_tokens_free(&toks);
            rc = -1;
        }
        if (!rc) {
            *enc = lang_ids_value(hist, (int)toks.n + 1, WL_T, *vv);
            free(hist);
            wl_tokens_free(&toks);
            *li = (*enc)->data;
        }
    }
    if (!rc && (*li)->T != WL_T)
        rc = wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1), "the models read %d ids; these ids have %d (encode with context=%d)",
                          WL_T, (*li)->T, WL_T);
    if (!rc && !*enc) rc = lang_ids_check(c, *li, lm, *vv ? *vv : lm->vocab, wl_call_argword(c, 1));
    if (rc) {
        wl_unref(*enc);
        wl_unref(*vv);
        *enc = *vv = NULL;
    }
    return rc;
}

static int cmd_details(wl_call *c, wl_value **out)
{
    lang_model *lm = wl_arg_obj(c, 0, &lang_model_type);
    lang_ids *li;
    wl_value *enc, *vv;
    if (!lm || read_context(c, lm, &li, &enc, &vv)) return -1;
    *out = lang_details_value(&lm->m, li, vv ? vv : li->vocab ? li->vocab : lm->vocab, c->err);
    wl_unref(enc);
    wl_unref(vv);
    return *out ? 0 : -1;
}

/* ---- forward: the final row only, as training and evaluation compute it ---- */

static int cmd_forward(wl_call *c, wl_value **out)
{
    lang_model *lm = wl_arg_obj(c, 0, &lang_model_type);
    lang_ids *li;
    wl_value *enc, *vv;
    if (!lm || read_context(c, lm, &li, &enc, &vv)) return -1;
    wl_model_ws *ws = wl_model_ws_new(&lm->m, 1);
    float *logits = malloc(sizeof(float) * (size_t)lm->m.V);
    int rc = ws && logits ? wl_model_forward(&lm->m, ws, li->ids, 1, logits, c->err)
                          : wl_fail(c->err, "out of memory for a forward pass of the %s model", lm->m.kind_name);
    if (!rc && !(*out = lang_tensor_value("logits", logits, 2, (const int[]){1, lm->m.V}, c->err))) rc = -1;
    free(logits);
    wl_model_ws_free(ws);
    wl_unref(enc);
    wl_unref(vv);
    return rc;
}

/* ---- maxdiff: the largest |a - b| of two tensors of one shape ---- */

static int cmd_maxdiff(wl_call *c, wl_value **out)
{
    const lang_tensor *a = wl_arg_obj(c, 0, &lang_tensor_type), *b = a ? wl_arg_obj(c, 1, &lang_tensor_type) : NULL;
    if (!b) return -1;
    int same = a->ndim == b->ndim;
    for (int i = 0; same && i < a->ndim; i++) same = a->shape[i] == b->shape[i];
    if (!same) return wl_call_fail(c, "ArgumentError", 2, "%s and %s have different shapes", a->name, b->name);
    double m = 0;
    for (size_t i = 0; i < a->n; i++) m = fmax(m, fabs((double)a->data[i] - (double)b->data[i]));
    *out = wl_num(m);
    return 0;
}

/* ---- heads and attention: the weights over the real tokens ---- */

static const lang_details *attention_details(wl_call *c)
{
    const lang_details *ld = wl_arg_obj(c, 0, &lang_details_type);
    if (ld && !ld->d.weights) {
        wl_call_fail(c, "ArgumentError", wl_call_argword(c, 0), "an mlp has no attention weights; use an attention or multihead model");
        return NULL;
    }
    return ld;
}

static int cmd_heads(wl_call *c, wl_value **out)
{
    const lang_details *ld = attention_details(c);
    long long q;
    if (!ld || wl_opt_int(c, "query", ld->nreal, 1, ld->nreal, &q)) return -1;
    *out = lang_heads_value(ld, (int)q - 1, wl_interp_options(c->in)->text_width);
    return 0;
}

static int cmd_attention(wl_call *c, wl_value **out)
{
    const lang_details *ld = attention_details(c);
    long long head, pad;
    if (!ld || wl_opt_int(c, "head", 0, 1, ld->d.H, &head) || wl_opt_int(c, "pad", 0, 0, 1, &pad)) return -1;   /* 0: every head */
    *out = lang_attention_value(ld, head ? (int)head - 1 : 0, head ? 1 : ld->d.H, (int)pad, wl_interp_options(c->in)->text_width);
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

const wl_command wl_cmds_model[] = {
    {.name = "model", .topic = "model", .synopsis = "model new|load|save|info ...",
     .summary = "make, load, save or describe a model",
     .help = "model new kind=multihead heads=4 vocab=V seed=11\n"
             "    a fresh model with PyTorch's initialization; kind is mlp, attention (one head) or\n"
             "    multihead (heads divides 64); vocab is a vocabulary ($stories.vocab) or its size.\n"
             "model load PATH [vocab=V]    a checkpoint (.npz) written by `model save` or the course\n"
             "model save MODEL PATH        write a checkpoint that NumPy and PyTorch can read (PATH such as\n"
             "                             m.npz; only an earlier checkpoint there is replaced)\n"
             "model info MODEL             the model card: kind, heads, parameter count and shapes",
     .example = LANG_EX_MODEL("multihead heads=4")
                "model info $m\nmodel new kind=mlp vocab=1500",
     .min_args = 1, .max_args = 3, .options = "kind heads vocab seed",
     .choices = "kind=mlp|attention|multihead", .subcommands = "new load save info", .fn = cmd_model,
     .result = &lang_model_type},
    {.name = "details", .topic = "model", .synopsis = "details MODEL IDS|TEXT [vocab=V]",
     .summary = "forward_details: every intermediate of one forward pass",
     .help = "Runs the model on one context of 64 ids (from `encode`, or text encoded with the\n"
             "model's vocabulary) and keeps every intermediate: E = token + position embeddings,\n"
             "Q K V split into heads, the scores and the attention weights, the messages, the\n"
             "contextual vectors and the logits. Shows their shapes; $d.weights etc. are tensors.\n"
             "vocab=V reads the text (and names the tokens) with V when the model has no vocabulary.",
     .example = LANG_EX_MODEL("multihead heads=4")
                "ids = encode \"a little dog found a red hat\" vocab=$stories\nd = details $m $ids\n$d\nprint $d.weights.0.3",
     .min_args = 2, .max_args = 2, .options = "vocab", .fn = cmd_details,
     .result = &lang_details_type},
    {.name = "forward", .topic = "model", .synopsis = "forward MODEL IDS|TEXT [vocab=V]",
     .summary = "the model's forward: the last position's logits only, as training computes them",
     .help = "Runs the model on one context of 64 ids (from `encode`, or text encoded with the\n"
             "model's vocabulary or vocab=V) the way training and evaluation do: only the last\n"
             "query row is computed. The value is the logits tensor [1, V]; it must agree with\n"
             "the last row of `details` (forward_details), which computes every row:\n"
             "maxdiff [forward M IDS] $d.logits.",
     .example = LANG_EX_MODEL("multihead heads=4")
                "ids = encode \"a little dog found a red hat\" vocab=$stories\nf = forward $m $ids\n$f\n"
                "d = details $m $ids\nprint \"max |forward - details|:\" [maxdiff $f $d.logits]",
     .min_args = 2, .max_args = 2, .options = "vocab", .fn = cmd_forward,
     .result = &lang_tensor_type},
    {.name = "maxdiff", .topic = "model", .synopsis = "maxdiff TENSOR TENSOR",
     .summary = "the largest absolute difference between two tensors of the same shape",
     .help = "max |a - b| over every element: 0 when two computations agree exactly, about 1e-6\n"
             "when they differ by float32 rounding only.",
     .example = LANG_EX_MODEL("attention")
                "d = details $m \"the cat sat\"\nmaxdiff [forward $m \"the cat sat\"] $d.logits",
     .min_args = 2, .max_args = 2, .fn = cmd_maxdiff},
    {.name = "heads", .topic = "model", .synopsis = "heads DETAILS [query=N]",
     .summary = "the final query's attention weights per head over the real tokens",
     .help = "A table with one row per head and one column per real token (<BOS> and the prompt):\n"
             "the weights the last position gives each token up to it, itself included; each row\n"
             "sums to 1. query=N shows the row of the N-th real token instead of the last: its weights\n"
             "over the tokens up to it; the columns of the later tokens are masked (the causal mask:\n"
             "╱ in a terminal, hatched grey in a notebook), not weights.",
     .example = LANG_EX_MODEL("multihead heads=4")
                "d = details $m \"a little dog found a red hat\"\nheads $d\nheads $d query=3",
     .min_args = 1, .max_args = 1, .options = "query", .fn = cmd_heads,
     .result = &lang_heads_type},
    {.name = "attention", .topic = "model", .synopsis = "attention DETAILS [head=N] [pad=1]",
     .summary = "heat map of every query row of one head or all heads",
     .help = "Each row is a query position, each column a key; darker is more weight. Keys after\n"
             "the query are masked (hatched grey; ╱ in a terminal). head=N shows head N alone;\n"
             "without head= every head is shown, one map after another. Over the real tokens unless\n"
             "pad=1 shows all 64 slots.\n"
             "In a terminal: Unicode shades; in a notebook: SVG and a shaded table.",
     .example = LANG_EX_MODEL("attention")
                "d = details $m \"the cat sat on the mat\"\nattention $d head=1",
     .min_args = 1, .max_args = 1, .options = "head pad", .fn = cmd_attention},
    {.name = "heatmap", .topic = "model", .synopsis = "heatmap TENSOR [head=1] [last=N] [cols=64] [labels=LIST]",
     .summary = "one matrix of a tensor (E, Q, scores, weights...) as a small heat map",
     .help = "Takes batch 0 (and head= of a [B,H,T,x] tensor) and draws its last two axes: one row\n"
             "per slot, one column per feature, or per key slot for scores and weights ([T,T]).\n"
             "last=N keeps the last N slots (the real tokens after the padding); labels=\n"
             "names them ($ids.tokens). Weights (0..1) go from light (0) to dark (1). Signed values\n"
             "(E, Q, scores, logits) take a scale centred on 0: blue below 0, red above, stronger with\n"
             "the size (a terminal writes + or - before the shade), so among logits that are all below\n"
             "0 the largest, the likeliest word, is the palest. Masked -inf entries are hatched grey\n"
             "(╱ in a terminal). cols= caps the columns of a wide matrix (logits).",
     .example = LANG_EX_STORIES
                "m = model new kind=multihead heads=4 vocab=$stories.vocab seed=11\n"
                "ids = encode \"a little dog found a red hat\" vocab=$stories\n"
                "d = details $m $ids\n"
                "heatmap $d.weights head=2 last=8 labels=$ids.tokens\n"
                "heatmap $d.Q head=1 last=8",
     .min_args = 1, .max_args = 1, .options = "head last cols labels", .fn = cmd_heatmap},
    {.name = "code", .topic = "model", .synopsis = "code [NAME] [kind=mlp|attention|multihead]",
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
     .min_args = 0, .max_args = 1, .options = "kind", .choices = "kind=mlp|attention|multihead", .subcommands = "embedding linear attention softmax details forward final_query",
     .fn = cmd_code, .result = &lang_code_type},
    {0},
};

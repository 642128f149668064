/* cmd_lesson.c: commands the lessons lean on: artifact (bundled files), losses (a story shaded by its per-token loss), uniform, heatmap (any tensor slice). */
#include "lang_objs.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- artifact: where the bundled vocab.json, checkpoints and comparison.json live ---- */

/* The directories searched, in order: the interpreter's artifacts_dir (the front ends pass
 * $WORDLAB_ARTIFACTS), <dir of the program>/../share/artifacts (an installed or build-tree program),
 * the source tree's share/artifacts. Fills dirs with malloc'd paths (free them with free_dirs); returns how many. */
static int artifact_dirs(const wl_interp *in, char *dirs[3])
{
    int n = 0;
    const char *first = wl_interp_options(in)->artifacts_dir;
    if (first && *first && !(dirs[n++] = strdup(first))) abort();
    char *exe = realpath("/proc/self/exe", NULL);
    char *slash = exe ? strrchr(exe, '/') : NULL;
    if (slash) {
        *slash = 0;
        if (asprintf(&dirs[n++], "%s/../share/artifacts", exe) < 0) abort();
    }
    free(exe);
#ifdef WL_SOURCE_DIR
    if (!(dirs[n++] = strdup(WL_SOURCE_DIR "/share/artifacts"))) abort();
#endif
    return n;
}

static void free_dirs(char *dirs[3], int n)
{
    for (int i = 0; i < n; i++) free(dirs[i]);
}

char *lang_path_shown(const wl_interp *in, const char *path)
{
    char *dirs[3], *real = realpath(path, NULL), *shown = NULL;
    int n = artifact_dirs(in, dirs);
    for (int i = 0; real && i < n && !shown; i++) {
        char *dir = realpath(dirs[i], NULL);
        size_t k = dir ? strlen(dir) : 0;
        if (dir && !strncmp(real, dir, k) && real[k] == '/' && asprintf(&shown, "share/artifacts%s", real + k) < 0) abort();
        free(dir);
    }
    free(real);
    free_dirs(dirs, n);
    if (!shown && !(shown = strdup(path))) abort();
    return shown;
}

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
        char *path;
        if (asprintf(&path, "%s/%s", dirs[i], name) < 0) abort();
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
    int n = artifact_dirs(c->in, dirs);
    if (!n) return wl_call_fail(c, "RuntimeError", 0, "no artifact directory is known; set WORDLAB_ARTIFACTS");
    int rc = find_artifact(c, dirs, n, out);
    free_dirs(dirs, n);
    return rc;
}

/* ---- losses: every target of one story, its probability and its loss ---- */

typedef struct lang_losses {
    int n;             /* targets: the story's tokens, then <EOS> */
    char **tokens;     /* [n] the target as written (<EOS> last) */
    int *unknown;      /* [n] 1 when the target was scored as <UNK> */
    double *p, *loss;  /* [n] */
    double mean, ppl;
    char title[160];
    int color;         /* the text form shades each token's background (a terminal with colour) */
} lang_losses;

static void losses_free(void *d)
{
    lang_losses *l = d;
    for (int i = 0; i < l->n; i++) free(l->tokens[i]);
    free(l->tokens);
    free(l->unknown);
    free(l->p);
    free(l->loss);
    free(l);
}

#define LOSS_TOP 8.0   /* the loss that gets the darkest shade (p = 0.00034) */

static int losses_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_losses *l = d;
    char a[64], b2[64];
    wl_buf t = {0}, h = {0}, j = {0};
    wl_buf_printf(&t, "%s\n", l->title);
    if (l->color) wl_buf_puts(&t, "background: the token's loss, white 0 to dark red >= 8 nats; the loss follows in ( )\n");
    int col = 0;
    for (int i = 0; i < l->n; i++) {
        char word[256];
        int w = snprintf(word, sizeof word, "%s%s(%.2f)", l->tokens[i], l->unknown[i] ? "*" : "", l->loss[i]);
        if (col && col + 1 + w > 88) {
            wl_buf_puts(&t, "\n");
            col = 0;
        }
        if (col) wl_buf_puts(&t, " ");
        if (l->color) { /* the same shade as the notebook's: white to dark red over 0..8 nats */
            double s = fmin(1.0, l->loss[i] / LOSS_TOP);
            wl_buf_printf(&t, "\033[48;2;%d;%d;%dm\033[%sm%s%s\033[0m(%.2f)", (int)lround(255 - 55 * s), (int)lround(255 - 225 * s),
                          (int)lround(255 - 225 * s), s > 0.6 ? "97" : "30", l->tokens[i], l->unknown[i] ? "*" : "", l->loss[i]);
        } else {
            wl_buf_puts(&t, word);
        }
        col += (col ? 1 : 0) + w;
    }
    wl_buf_printf(&t, "\n%d targets: mean loss %s nats per token, perplexity %s", l->n, wl_fmt_num(l->mean, 0, a),
                  wl_fmt_num(l->ppl, 0, b2));
    out->text_plain = wl_buf_take(&t);

    wl_buf_puts(&h, "<div class=\"wordlab-losses\" style=\"max-width:56em;line-height:2.1\"><p><b>");
    wl_buf_html(&h, l->title);
    wl_buf_puts(&h, "</b><br><small>each token is shaded by its loss −ln p (white 0, dark red ≥ 8 nats); "
                    "hover for p and the loss; * scored as &lt;UNK&gt;</small></p><p>");
    for (int i = 0; i < l->n; i++) {
        double s = fmin(1.0, l->loss[i] / LOSS_TOP);
        wl_buf_printf(&h, "<span title=\"p = %.4g, loss %.3f\" style=\"background:rgba(200,30,30,%.2f);color:%s;"
                          "padding:2px 3px;margin:1px;border-radius:3px\">", l->p[i], l->loss[i], s, s > 0.6 ? "#fff" : "#000");
        wl_buf_html(&h, l->tokens[i]);
        if (l->unknown[i]) wl_buf_puts(&h, "*");
        wl_buf_puts(&h, "</span> ");
    }
    wl_buf_printf(&h, "</p><p>%d targets: mean loss <b>%s</b> nats per token, perplexity <b>%s</b></p></div>", l->n, a, b2);
    out->text_html = wl_buf_take(&h);

    wl_buf_puts(&j, "{\"type\":\"losses\",\"tokens\":[");
    for (int i = 0; i < l->n; i++) {
        if (i) wl_buf_put(&j, ",", 1);
        wl_buf_json_str(&j, l->tokens[i]);
    }
    wl_buf_puts(&j, "],\"probabilities\":[");
    for (int i = 0; i < l->n; i++) {
        if (i) wl_buf_put(&j, ",", 1);
        wl_buf_json_num(&j, l->p[i]);
    }
    wl_buf_puts(&j, "],\"losses\":[");
    for (int i = 0; i < l->n; i++) {
        if (i) wl_buf_put(&j, ",", 1);
        wl_buf_json_num(&j, l->loss[i]);
    }
    wl_buf_puts(&j, "],\"loss\":");
    wl_buf_json_num(&j, l->mean);
    wl_buf_puts(&j, ",\"perplexity\":");
    wl_buf_json_num(&j, l->ppl);
    wl_buf_puts(&j, "}");
    out->app_json = wl_buf_take(&j);
    return 0;
}

static wl_value *num_list(const double *x, int n)
{
    wl_value *l = wl_list();
    for (int i = 0; i < n; i++) wl_list_push(l, wl_num(x[i]));
    return l;
}

static wl_value *losses_field(wl_value *self, const char *name, wl_err *err)
{
    const lang_losses *l = self->data;
    if (!strcmp(name, "tokens")) {
        wl_value *v = wl_list();
        for (int i = 0; i < l->n; i++) wl_list_push(v, wl_str(l->tokens[i]));
        return v;
    }
    if (!strcmp(name, "probabilities")) return num_list(l->p, l->n);
    if (!strcmp(name, "losses")) return num_list(l->loss, l->n);
    if (!strcmp(name, "loss")) return wl_num(l->mean);
    if (!strcmp(name, "perplexity")) return wl_num(l->ppl);
    if (!strcmp(name, "count")) return wl_int(l->n);
    wl_fail(err, "losses have no field .%s; their fields are tokens probabilities losses loss perplexity count", name);
    return NULL;
}

static const wl_objtype LOSSES_T = {.name = "losses", .fields = "tokens probabilities losses loss perplexity count",
                                    .free = losses_free, .render = losses_render, .field = losses_field};

/* 1 when two vocabularies have the same tokens in the same order. */
static int same_vocab(const wl_vocab *a, const wl_vocab *b)
{
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->itos[i], b->itos[i])) return 0;
    return 1;
}

/* Scores targets ids[0..n) (the story, then EOS) given BOS + the ids before each: p and -ln p. */
static int score_story(wl_call *c, const lang_model *lm, const int32_t *ids, int n, lang_losses *l)
{
    enum { CHUNK = 64 };
    wl_model_ws *ws = wl_model_ws_new(&lm->m, CHUNK);
    int32_t *ctx = malloc(sizeof(int32_t) * CHUNK * WL_CONTEXT);
    float *logits = malloc(sizeof(float) * CHUNK * (size_t)lm->m.V);
    if (!ws || !ctx || !logits) abort();
    int rc = 0;
    double sum = 0;
    for (int from = 0; from < n && !rc; from += CHUNK) {
        if (wl_sink_interrupted(c->sink)) {
            rc = wl_call_fail(c, "Interrupted", -1, "interrupted after %d of %d targets", from, n);
            break;
        }
        int B = n - from < CHUNK ? n - from : CHUNK;
        for (int b = 0; b < B; b++) {
            /* target from+b sees BOS and the from+b ids before it: the last WL_CONTEXT of them, left-padded */
            int32_t *row = ctx + (size_t)b * WL_CONTEXT;
            int hist = from + b + 1, keep = hist < WL_CONTEXT ? hist : WL_CONTEXT;
            for (int s = 0; s < WL_CONTEXT - keep; s++) row[s] = WL_PAD;
            for (int s = 0; s < keep; s++) {
                int k = hist - keep + s;   /* position in BOS + ids */
                row[WL_CONTEXT - keep + s] = k == 0 ? WL_BOS : ids[k - 1];
            }
        }
        rc = wl_model_forward(&lm->m, ws, ctx, B, logits, c->err);
        for (int b = 0; b < B && !rc; b++) {
            const float *z = logits + (size_t)b * (size_t)lm->m.V;
            double mx = -INFINITY, se = 0;
            for (int v = 0; v < lm->m.V; v++) mx = fmax(mx, z[v]);
            for (int v = 0; v < lm->m.V; v++) se += exp((double)z[v] - mx);
            double loss = mx + log(se) - (double)z[ids[from + b]];
            l->loss[from + b] = loss;
            l->p[from + b] = exp(-loss);
            sum += loss;
        }
    }
    if (!rc) {
        l->mean = sum / n;
        l->ppl = exp(l->mean);
    }
    wl_model_ws_free(ws);
    free(ctx);
    free(logits);
    return rc;
}

static int cmd_losses(wl_call *c, wl_value **out)
{
    lang_model *lm = wl_arg_obj(c, 0, &lang_model_type);
    if (!lm) return -1;
    lang_corpus *lc = wl_obj_data(c->argv[1], &lang_corpus_type);
    const wl_vocab *v = lm->vocab ? lang_vocab_get(lm->vocab) : NULL;
    wl_tokens toks = {0};
    int32_t *ids = NULL;
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
        ids = malloc(sizeof(int32_t) * ((size_t)n + 1));
        if (!ids) abort();
        memcpy(ids, st->ids, sizeof(int32_t) * (size_t)n);
        toks = st->tokens;   /* borrowed */
        snprintf(title, sizeof title, "%s story %td (of %zu) scored by the %s model", wl_split_name(s),
                 st - lc->c.stories[s] + 1, lc->c.n[s], lm->m.kind_name);
    } else {
        const char *text = wl_arg_str(c, 1);
        if (!text) return -1;
        if (!v)
            return wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1),
                                LANG_NO_VOCAB "; or pass a corpus");
        if (wl_text_tokenize(text, strlen(text), &toks, c->err)) {
            c->errword = wl_call_argword(c, 1);
            return -1;
        }
        n = (int)toks.n;
        ids = malloc(sizeof(int32_t) * ((size_t)n + 1));
        if (!ids) abort();
        wl_vocab_encode(v, (const char *const *)toks.tok, toks.n, ids);
        snprintf(title, sizeof title, "the text scored by the %s model", lm->m.kind_name);
    }
    ids[n] = WL_EOS;
    lang_losses *l = calloc(1, sizeof *l);
    if (!l) abort();
    l->n = n + 1;
    l->tokens = calloc((size_t)l->n, sizeof(char *));
    l->unknown = calloc((size_t)l->n, sizeof(int));
    l->p = malloc(sizeof(double) * (size_t)l->n);
    l->loss = malloc(sizeof(double) * (size_t)l->n);
    if (!l->tokens || !l->unknown || !l->p || !l->loss) abort();
    for (int i = 0; i < n; i++) {
        l->tokens[i] = strdup(toks.tok[i]);
        l->unknown[i] = ids[i] == WL_UNK;
    }
    l->tokens[n] = strdup(lang_token(v, WL_EOS));
    snprintf(l->title, sizeof l->title, "%s", title);
    l->color = wl_interp_options(c->in)->text_color;
    int rc = 0;
    for (int i = 0; i <= n && !rc; i++)
        if (ids[i] < 0 || ids[i] >= lm->m.V)
            rc = wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1), "id %d is outside this model's vocabulary of %d", ids[i], lm->m.V);
    if (!rc) rc = score_story(c, lm, ids, l->n, l);
    if (!lc) wl_tokens_free(&toks);
    free(ids);
    if (rc) {
        losses_free(l);
        return -1;
    }
    *out = wl_obj(&LOSSES_T, l);
    return 0;
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

typedef struct lang_hm {
    int rows, cols;
    double *v;             /* [rows, cols] in [0,1], NaN blank */
    char **rlab, **clab;
    char title[256];
    char row_axis[64], col_axis[64];
    double lo, hi;         /* what 0 and 1 of v stand for; equal: v as it is */
    int width;             /* text columns */
} lang_hm;

static void hm_free(void *d)
{
    lang_hm *h = d;
    for (int i = 0; i < h->rows; i++) free(h->rlab[i]);
    for (int i = 0; i < h->cols; i++) free(h->clab[i]);
    free(h->rlab);
    free(h->clab);
    free(h->v);
    free(h);
}

static int hm_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_hm *h = d;
    wl_heatmap m = {.title = h->title, .rows = h->rows, .cols = h->cols, .v = h->v,
                    .row_labels = (const char *const *)h->rlab, .col_labels = (const char *const *)h->clab,
                    .row_axis = h->row_axis, .col_axis = h->col_axis, .lo = h->lo, .hi = h->hi, .width = h->width};
    out->text_plain = wl_heatmap_text(&m);
    out->image_svg = wl_heatmap_svg(&m);
    return 0;
}

static const wl_objtype HM_T = {.name = "heat map", .fields = "", .free = hm_free, .render = hm_render};

static int cmd_heatmap(wl_call *c, wl_value **out)
{
    const lang_tensor *t = wl_arg_obj(c, 0, &lang_tensor_type);
    if (!t) return -1;
    if (t->ndim < 2)
        return wl_call_fail(c, "ArgumentError", 1, "%s has one axis; a heat map needs a matrix", t->name);
    int R = t->shape[t->ndim - 2], C = t->shape[t->ndim - 1];
    int nheads = t->ndim == 4 ? t->shape[1] : 1;
    long long head, last, cols;
    if (wl_opt_int(c, "head", 1, 1, nheads, &head) || wl_opt_int(c, "last", R, 1, R, &last) ||
        wl_opt_int(c, "cols", 64, 1, 256, &cols))
        return -1;
    wl_value *labels = wl_opt_val(c, "labels");
    if (labels && (labels->type != WL_V_LIST || labels->n != last))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "labels"), "labels= needs a list of %lld names, one per row", last);
    for (int i = 0; labels && i < labels->n; i++)
        if (labels->items[i]->type != WL_V_STR && labels->items[i]->type != WL_V_NUM)
            return wl_call_fail(c, "TypeError", wl_call_optword(c, "labels"), "labels= holds names; item %d is %s", i,
                                wl_value_kind(labels->items[i]));
    /* scores and weights are [.., T, T]: their columns are the same slots as the rows */
    int square = R == C && (!strcmp(t->name, "scores") || !strcmp(t->name, "weights")), c0 = square ? C - (int)last : 0;
    int nc = square ? (int)last : (C < cols ? C : (int)cols);
    const float *m = t->data + (size_t)(head - 1) * (size_t)R * (size_t)C;   /* batch 0, head `head` */
    lang_hm *h = calloc(1, sizeof *h);
    if (!h) abort();
    h->rows = (int)last;
    h->cols = nc;
    h->v = malloc(sizeof(double) * (size_t)h->rows * (size_t)nc);
    h->rlab = calloc((size_t)h->rows, sizeof(char *));
    h->clab = calloc((size_t)nc, sizeof(char *));
    if (!h->v || !h->rlab || !h->clab) abort();
    double lo = INFINITY, hi = -INFINITY;
    for (int r = 0; r < h->rows; r++)
        for (int k = 0; k < nc; k++) {
            double x = m[(size_t)(R - h->rows + r) * (size_t)C + (size_t)(c0 + k)];
            if (isfinite(x)) lo = fmin(lo, x), hi = fmax(hi, x);
        }
    int unit = lo >= 0 && hi <= 1;   /* weights: shown as they are */
    if (!unit && isfinite(lo)) h->lo = lo, h->hi = hi;
    h->width = wl_interp_options(c->in)->text_width;
    if (square) snprintf(h->row_axis, sizeof h->row_axis, "query"), snprintf(h->col_axis, sizeof h->col_axis, "key");
    else {
        snprintf(h->row_axis, sizeof h->row_axis, "slot%s", labels ? " (its token)" : "");
        if (t->ndim == 4) snprintf(h->col_axis, sizeof h->col_axis, "dimension of head %lld", head);
        else snprintf(h->col_axis, sizeof h->col_axis, "%s", strncmp(t->name, "logits", 6) ? "dimension" : "word id");
    }
    for (int r = 0; r < h->rows; r++)
        for (int k = 0; k < nc; k++) {
            double x = m[(size_t)(R - h->rows + r) * (size_t)C + (size_t)(c0 + k)];
            h->v[(size_t)r * (size_t)nc + (size_t)k] = !isfinite(x) ? NAN : unit ? x : hi > lo ? (x - lo) / (hi - lo) : 0.5;
        }
    char buf[64];
    for (int r = 0; r < h->rows; r++) {
        wl_value *lab = labels ? labels->items[r] : NULL;
        if (lab && lab->type == WL_V_STR) h->rlab[r] = strdup(lab->str);
        else if (lab) h->rlab[r] = strdup(wl_fmt_num(lab->num, lab->is_int, buf));
        else snprintf(buf, sizeof buf, "%d", R - h->rows + r), h->rlab[r] = strdup(buf);
    }
    for (int k = 0; k < nc; k++) {
        if (square) h->clab[k] = strdup(h->rlab[k]);
        else snprintf(buf, sizeof buf, "%d", k), h->clab[k] = strdup(buf);
    }
    /* short enough for the SVG's width at 8 columns; the shapes are shown by `details` */
    wl_buf b = {0};
    wl_buf_puts(&b, t->name);
    if (t->ndim == 4) wl_buf_printf(&b, " head %lld", head);
    if (!square && nc < C) wl_buf_printf(&b, " (%d of %d columns)", nc, C);
    if (unit) wl_buf_puts(&b, ": 0 .. 1");
    else if (isfinite(lo)) wl_buf_printf(&b, ": %.3g .. %.3g", lo, hi);
    char *title = wl_buf_take(&b);
    snprintf(h->title, sizeof h->title, "%s", title);
    free(title);
    *out = wl_obj(&HM_T, h);
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
             "with the model's vocabulary. Fields: .tokens .probabilities .losses .loss .perplexity .count",
     .example = "stories = corpus profile=smoke\n"
                "m = model new kind=attention vocab=$stories.vocab seed=11\n"
                "losses $m $stories split=test story=2\n"
                "l = losses $m \"the dog was happy .\"\n"
                "print $l.perplexity",
     .min_args = 2, .max_args = 2, .options = "split story", .fn = cmd_losses},
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
    {0},
};

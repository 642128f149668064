/* lang_next.c: the next-token distribution: a model's probability for every word of its vocabulary after a text. */
#include "lang_objs.h"

#include "wl_context.h"
#include "wl_layers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lang_next {
    int V, top;          /* vocabulary size; rows shown */
    double *p;           /* [V] every token's probability, by id */
    int *order;          /* [V] ids by falling probability (equal ones by id) */
    int target;          /* the id target= names, or -1 */
    double rest;         /* the probability of every token after the top ones, summed */
    wl_value *vocab;     /* names the ids */
    char *context;       /* the text, as read (malloc'd) */
    char kind[16];
    int cropped;         /* ids cropped from the left to fit the context */
} lang_next;

static const char *tok(const lang_next *n, int id) { return lang_token(lang_vocab_get(n->vocab), id); }

static int rank_of(const lang_next *n, int id)
{
    for (int r = 0; r < n->V; r++)
        if (n->order[r] == id) return r + 1;
    return 0;
}

#define BAR_COLS 30   /* text columns of the longest bar */

static int next_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_next *n = d;
    double pmax = n->p[n->order[0]];
    char a[64], b2[64], g[32];
    wl_rgb bar_rgb = wl_scale_rgb(WL_SCALE_SEQUENTIAL, 0.75);   /* a bar reads on light and dark themes alike */
    wl_buf t = {0}, h = {0};
    wl_buf_printf(&t, "the %s model's next token after \"%s\"%s: a probability for each of its %s words\n", n->kind,
                  n->context, n->cropped ? " (its last 64 ids)" : "", wl_fmt_count((size_t)n->V, g));
    wl_buf_puts(&h, "<div class=\"wordlab-next\"><p>the ");
    wl_buf_html(&h, n->kind);
    wl_buf_puts(&h, " model's next token after <b>");
    wl_buf_html(&h, n->context);
    wl_buf_printf(&h, "</b>%s: a probability for each of its %s words</p>", n->cropped ? " (its last 64 ids)" : "", g);
    wl_table *tb = wl_table_new(5);
    wl_table_header_rows(tb, 1);
    const char *head[] = {"rank", "token", "p", "-ln p", ""};
    for (int i = 0; i < 5; i++) wl_table_cell(tb, head[i], -1);
    wl_buf_puts(&h, "<table class=\"wordlab-next-bars\"><tr><th>rank</th><th>token</th><th>p</th><th>−ln p</th>"
                    "<th style=\"min-width:16em\"></th></tr>");
    for (int r = 0; r < n->top; r++) {
        int id = n->order[r];
        double p = n->p[id], loss = -log(p);
        /* four significant digits for a small p, as perplexity shows it */
        snprintf(a, sizeof a, p < 0.01 ? "%.4g" : "%.4f", p);
        snprintf(b2, sizeof b2, "%.4f", loss);   /* a fixed 4 decimals, so that the column lines up */
        wl_buf bar = {0};
        for (int k = 0; k < (int)lround(BAR_COLS * p / pmax); k++) wl_buf_puts(&bar, "█");
        wl_table_cellf(tb, -1, "%d", r + 1);
        wl_table_cellf(tb, -1, "%s%s", tok(n, id), id == n->target ? " ←" : "");
        wl_table_cell(tb, a, -1);
        wl_table_cell(tb, b2, -1);
        wl_table_cell(tb, bar.s ? bar.s : "", -1);
        free(bar.s);
        wl_buf_printf(&h, "<tr%s><td>%d</td><td><code>", id == n->target ? " style=\"font-weight:bold\"" : "", r + 1);
        wl_buf_html(&h, tok(n, id));
        wl_buf_printf(&h, "</code></td><td>%s</td><td>%s</td><td><div title=\"p = %.4g\" style=\"background:#%02x%02x%02x;"
                          "forced-color-adjust:none;height:0.9em;width:%.1f%%\"></div></td></tr>",
                      a, b2, p, bar_rgb.r, bar_rgb.g, bar_rgb.b, 100 * p / pmax);
    }
    char *tt = wl_table_text(tb);
    wl_table_free(tb);
    wl_buf_puts(&t, tt);
    free(tt);
    wl_buf_printf(&t, "\nthe other %s words together: p %.4f (all %s add up to 1)", wl_fmt_count((size_t)(n->V - n->top), g),
                  n->rest, wl_fmt_count((size_t)n->V, b2));
    wl_buf_printf(&h, "</table><p>the other %s words together: p %.4f (all %s add up to 1)", wl_fmt_count((size_t)(n->V - n->top), g),
                  n->rest, wl_fmt_count((size_t)n->V, b2));
    if (n->target >= 0) {
        double p = n->p[n->target];
        wl_buf_printf(&t, "\ntarget %s: p %.4g, loss -ln p %.4f, rank %d of %s", tok(n, n->target), p, -log(p),
                      rank_of(n, n->target), wl_fmt_count((size_t)n->V, g));
        wl_buf_puts(&h, "<br>target <code>");
        wl_buf_html(&h, tok(n, n->target));
        wl_buf_printf(&h, "</code>: p <b>%.4g</b>, loss −ln p <b>%.4f</b>, rank %d of %s", p, -log(p), rank_of(n, n->target), g);
    }
    wl_buf_puts(&h, "</p></div>");
    out->text_plain = wl_buf_take(&t);
    out->text_html = wl_buf_take(&h);

    return 0;
}

static const lang_next *N(const wl_value *v) { return v->data; }
static int next_has_target(const void *d) { return ((const lang_next *)d)->target >= 0; }
static wl_value *next_tokens(wl_value *v, wl_err *err)
{
    (void)err;
    wl_value *l = wl_list();
    for (int r = 0; r < N(v)->top; r++) wl_list_push(l, wl_str(tok(N(v), N(v)->order[r])));
    return l;
}
static wl_value *next_probabilities(wl_value *v, wl_err *err)
{
    (void)err;
    wl_value *l = wl_list();
    for (int r = 0; r < N(v)->top; r++) wl_list_push(l, wl_num(N(v)->p[N(v)->order[r]]));
    return l;
}
static wl_value *next_all(wl_value *v, wl_err *err) { (void)err; return wl_list_nums(N(v)->p, N(v)->V); }
static wl_value *next_target(wl_value *v, wl_err *err) { (void)err; return wl_str(tok(N(v), N(v)->target)); }
static wl_value *next_p(wl_value *v, wl_err *err) { (void)err; return wl_num(N(v)->p[N(v)->target]); }
static wl_value *next_loss(wl_value *v, wl_err *err) { (void)err; return wl_num(-log(N(v)->p[N(v)->target])); }
static wl_value *next_rank(wl_value *v, wl_err *err) { (void)err; return wl_int(rank_of(N(v), N(v)->target)); }

static const wl_field NEXT_FIELDS[] = {
    {.name = "tokens", .get = next_tokens},
    {.name = "probabilities", .get = next_probabilities, .about = "the top ones"},
    {WL_FIELD_MEMBER("rest", lang_next, rest)},
    {.name = "all", .get = next_all, .about = "every word, by id", .no_json = 1},
    {WL_FIELD_CHARS("kind", lang_next, kind), .about = "the model's"},
    {WL_FIELD_MEMBER("context", lang_next, context)},
    {WL_FIELD_MEMBER("vocab_size", lang_next, V)},
    {.name = "target", .get = next_target, .has = next_has_target, .when = "with target="},
    {.name = "p", .get = next_p, .has = next_has_target, .when = "with target="},
    {.name = "loss", .get = next_loss, .has = next_has_target, .when = "with target="},
    {.name = "rank", .get = next_rank, .has = next_has_target, .when = "with target="},
    {0},
};

static const wl_owned NEXT_OWNS[] = {WL_OWNS(lang_next, p), WL_OWNS(lang_next, order), WL_OWNS(lang_next, vocab),
                                     WL_OWNS(lang_next, context), {0}};
const wl_objtype lang_next_type = {.name = "next-token distribution", .fields = NEXT_FIELDS, .owns = NEXT_OWNS,
                                   .render = next_render};

typedef struct ranked {
    double p;
    int id;
} ranked;

/* By falling probability, equal ones by id. */
static int by_p(const void *x, const void *y)
{
    const ranked *a = x, *b = y;
    if (a->p != b->p) return a->p > b->p ? -1 : 1;
    return a->id - b->id;
}

int lang_next_value(wl_call *c, const lang_model *lm, wl_value *vocab, const wl_tokens *toks, const int32_t *hist, int top,
                    const char *target, wl_value **out)
{
    const wl_vocab *v = lang_vocab_get(vocab);
    int V = lm->m.V, tid = -1;
    char *norm = NULL;   /* target= normalized as the text is (Dog: dog); a special token is matched as written */
    if (target && (tid = wl_vocab_id(v, target)) == WL_UNK && strcmp(target, lang_token(v, WL_UNK))) {
        if (wl_text_normalize(target, strlen(target), &norm, NULL, c->err)) return -1;
        tid = wl_vocab_id(v, norm);
        free(norm);
        if (tid == WL_UNK)
            return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "target"), "target=%s is not a word of the vocabulary "
                                "(a target is one token, as tokenize gives them)", target);
    }
    int32_t ctx[WL_CONTEXT];
    size_t cropped = wl_context_window(hist, toks->n + 1, ctx, WL_CONTEXT);
    lang_next *n = wl_xcalloc(1, sizeof *n);
    n->V = V;
    n->top = top < V ? top : V;
    n->target = tid;
    n->cropped = cropped > 0;
    snprintf(n->kind, sizeof n->kind, "%s", lm->m.kind_name);
    n->p = malloc(sizeof(double) * (size_t)V);
    n->order = malloc(sizeof(int) * (size_t)V);
    float *logits = malloc(sizeof(float) * (size_t)V);   /* [V] */
    ranked *rk = malloc(sizeof(ranked) * (size_t)V);     /* [V] */
    wl_model_ws *ws = wl_model_ws_new(&lm->m, 1);
    int rc = n->p && n->order && logits && rk && ws ? 0 : wl_fail(c->err, "out of memory for %d probabilities", V);
    if (!rc) rc = wl_text_readable((const char *const *)toks->tok, toks->n, 0, &n->context, c->err);
    if (!rc) rc = wl_model_forward(&lm->m, ws, ctx, 1, logits, c->err);
    if (!rc) {
        double lse = wl_layers_logsumexp(logits, V);
        for (int i = 0; i < V; i++) {
            n->p[i] = exp(-(lse - (double)logits[i]));   /* exp(-loss), the loss as `losses` computes it */
            rk[i] = (ranked){n->p[i], i};
        }
        qsort(rk, (size_t)V, sizeof(ranked), by_p);
        for (int i = 0; i < V; i++) n->order[i] = rk[i].id;
        for (int r = V - 1; r >= n->top; r--) n->rest += n->p[n->order[r]];   /* smallest first */
        n->vocab = wl_ref(vocab);
        *out = wl_obj(&lang_next_type, n);
    } else {
        wl_obj_free(&lang_next_type, n);
    }
    wl_model_ws_free(ws);
    free(logits);
    free(rk);
    return rc;
}

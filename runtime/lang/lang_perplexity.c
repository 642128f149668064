/* lang_perplexity.c: the nll and perplexity values: target probabilities, their losses -ln p, their mean (cross-entropy)
 * and its exp. */
#include "lang_objs.h"

#include <math.h>
#include <stdlib.h>

typedef struct ppl {
    int n;
    double *p, *loss;     /* [n] the target probabilities and their losses -ln p (malloc'd, owned) */
    double ce, ppl;       /* the mean loss and its exp */
    int summary;          /* perplexity: the mean and its exp follow the table; nll: the table alone */
} ppl;

static int ppl_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const ppl *q = d;
    char a[64], b2[64];
    wl_table *t = wl_table_new(2);
    wl_table_header_rows(t, 1);
    wl_table_cell(t, "target p", -1);
    wl_table_cell(t, "loss -ln p", -1);
    for (int i = 0; i < q->n; i++) {
        /* four significant digits for a small p, so that -ln p can be checked by hand */
        if (q->p[i] > 0 && q->p[i] < 0.01) wl_table_cellf(t, -1, "%.4g", q->p[i]);
        else wl_table_cell(t, wl_fmt_num(q->p[i], 0, a), -1);
        wl_table_cell(t, wl_fmt_num(q->loss[i], 0, b2), -1);
    }
    char *tt = wl_table_text(t), *th = wl_table_html(t);
    wl_table_free(t);
    wl_buf b = {0};
    if (!q->summary) {   /* nll: the table, and for programs the list of losses */
        out->text_plain = tt;
        out->text_html = th;
        wl_buf_json_nums(&b, q->loss, q->n);
        out->app_json = wl_buf_take(&b);
        return 0;
    }
    wl_buf_printf(&b, "%s\nmean cross-entropy: %s nats per token\n", tt, wl_fmt_num(q->ce, 0, a));
    wl_buf_printf(&b, "perplexity: exp(%s) = %s", a, wl_fmt_num(q->ppl, 0, b2));
    out->text_plain = wl_buf_take(&b);
    wl_buf_printf(&b, "%s<p>mean cross-entropy: <b>%s</b> nats per token<br>perplexity: exp(%s) = <b>%s</b></p>", th, a, a, b2);
    out->text_html = wl_buf_take(&b);
    free(tt);
    free(th);
    return 0;
}

/* nll stands for its losses wherever numbers are expected (mean $l, $l.0, $l / 2) */
static void nll_numbers(const void *d, const double **x, int *n)
{
    const ppl *q = d;
    *x = q->loss;
    *n = q->n;
}

static const ppl *Q(const wl_value *v) { return v->data; }
static wl_value *ppl_p(wl_value *v, wl_err *err) { (void)err; return wl_list_nums(Q(v)->p, Q(v)->n); }
static wl_value *ppl_losses(wl_value *v, wl_err *err) { (void)err; return wl_list_nums(Q(v)->loss, Q(v)->n); }

static const wl_field PPL_FIELDS[] = {
    {.name = "probabilities", .get = ppl_p}, {.name = "losses", .get = ppl_losses},
    {WL_FIELD_MEMBER("cross_entropy", ppl, ce)}, {WL_FIELD_MEMBER("perplexity", ppl, ppl)}, {0},
};
static const wl_field NLL_FIELDS[] = {
    {.name = "probabilities", .get = ppl_p}, {.name = "losses", .get = ppl_losses}, {WL_FIELD_MEMBER("count", ppl, n)}, {0},
};
static const wl_owned PPL_OWNS[] = {WL_OWNS(ppl, p), WL_OWNS(ppl, loss), {0}};

const wl_objtype lang_perplexity_type = {.name = "perplexity", .fields = PPL_FIELDS, .owns = PPL_OWNS, .render = ppl_render};
const wl_objtype lang_nll_type = {.name = "list of losses", .fields = NLL_FIELDS, .owns = PPL_OWNS, .render = ppl_render,
                                  .numbers = nll_numbers};

/* The value over p [n] (moved in): with its summary (perplexity) or without (nll). */
static int probs_value(wl_call *c, double *p, int n, int summary, wl_value **out)
{
    ppl *q = wl_xcalloc(1, sizeof *q);
    q->summary = summary;
    q->p = p;
    q->n = n;
    q->loss = malloc(sizeof(double) * (size_t)n);
    if (!q->loss) {
        wl_obj_free(&lang_nll_type, q);
        return wl_call_fail(c, "RuntimeError", -1, "`%s`: out of memory for %d losses", c->cmd->name, n);
    }
    for (int i = 0; i < n; i++) q->loss[i] = 0.0 - log(p[i]);   /* 0, not -0, for p = 1 */
    q->ce = wl_mean(q->loss, (size_t)n);
    q->ppl = exp(q->ce);
    *out = wl_obj(summary ? &lang_perplexity_type : &lang_nll_type, q);
    return 0;
}

int lang_perplexity_value(wl_call *c, double *p, int n, wl_value **out) { return probs_value(c, p, n, 1, out); }
int lang_nll_value(wl_call *c, double *p, int n, wl_value **out) { return probs_value(c, p, n, 0, out); }

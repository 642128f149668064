/* lang_perplexity.c: the perplexity value: target probabilities, their losses -ln p, the mean (cross-entropy) and its exp. */
#include "lang_objs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ppl {
    int n;
    double *p, *loss;     /* [n] the target probabilities and their losses -ln p (malloc'd, owned) */
    double ce, ppl;       /* the mean loss and its exp */
} ppl;

static void ppl_free(void *d)
{
    ppl *q = d;
    free(q->p);
    free(q->loss);
    free(q);
}

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
    wl_buf b = {0};
    wl_buf_printf(&b, "%s\nmean cross-entropy: %s nats per token\n", tt, wl_fmt_num(q->ce, 0, a));
    wl_buf_printf(&b, "perplexity: exp(%s) = %s", a, wl_fmt_num(q->ppl, 0, b2));
    out->text_plain = wl_buf_take(&b);
    wl_buf_printf(&b, "%s<p>mean cross-entropy: <b>%s</b> nats per token<br>perplexity: exp(%s) = <b>%s</b></p>", th, a, a, b2);
    out->text_html = wl_buf_take(&b);
    free(tt);
    free(th);
    wl_table_free(t);
    wl_buf_puts(&b, "{\"type\":\"perplexity\",\"probabilities\":");
    wl_buf_json_nums(&b, q->p, q->n);
    wl_buf_puts(&b, ",\"losses\":");
    wl_buf_json_nums(&b, q->loss, q->n);
    wl_buf_puts(&b, ",\"cross_entropy\":");
    wl_buf_json_num(&b, q->ce);
    wl_buf_puts(&b, ",\"perplexity\":");
    wl_buf_json_num(&b, q->ppl);
    wl_buf_puts(&b, "}");
    out->app_json = wl_buf_take(&b);
    return 0;
}

static wl_value *ppl_field(wl_value *self, const char *name, wl_err *err);

static const wl_objtype PPL_T = {.name = "perplexity", .fields = "probabilities losses cross_entropy perplexity",
                                 .free = ppl_free, .render = ppl_render, .field = ppl_field};

static wl_value *ppl_field(wl_value *self, const char *name, wl_err *err)
{
    const ppl *q = self->data;
    if (!strcmp(name, "probabilities")) return wl_list_nums(q->p, q->n);
    if (!strcmp(name, "losses")) return wl_list_nums(q->loss, q->n);
    if (!strcmp(name, "cross_entropy")) return wl_num(q->ce);
    if (!strcmp(name, "perplexity")) return wl_num(q->ppl);
    wl_fail(err, "a perplexity has no field .%s; its fields are %s", name, PPL_T.fields);
    return NULL;
}

int lang_perplexity_value(wl_call *c, double *p, int n, wl_value **out)
{
    ppl *q = wl_xcalloc(1, sizeof *q);
    q->p = p;
    q->n = n;
    q->loss = malloc(sizeof(double) * (size_t)n);
    if (!q->loss) {
        ppl_free(q);
        return wl_call_fail(c, "RuntimeError", -1, "`perplexity`: out of memory for %d losses", n);
    }
    for (int i = 0; i < n; i++) q->loss[i] = -log(p[i]);
    q->ce = wl_mean(q->loss, (size_t)n);
    q->ppl = exp(q->ce);
    *out = wl_obj(&PPL_T, q);
    return 0;
}

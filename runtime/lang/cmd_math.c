/* cmd_math.c: cross-entropy and perplexity step by step: nll, mean, exp, perplexity. */
#include "wl_cmd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Reads the probabilities (numbers or lists of numbers) and checks each is in (0, 1]. */
static int read_probs(wl_call *c, double **p, int *n)
{
    if (wl_args_nums(c, 0, p, n)) return -1;
    if (*n == 0) return wl_call_fail(c, "ArgumentError", 1, "`%s` needs at least one probability", c->cmd->name);
    for (int i = 0; i < *n; i++)
        if (!((*p)[i] > 0 && (*p)[i] <= 1)) {
            wl_call_fail(c, "ArgumentError", c->argc == *n ? wl_call_argword(c, i) : 1,
                         "a probability must be greater than 0 and at most 1, got %g", (*p)[i]);
            free(*p);
            *p = NULL;
            return -1;
        }
    return 0;
}

static int cmd_nll(wl_call *c, wl_value **out)
{
    double *p;
    int n;
    if (read_probs(c, &p, &n)) return -1;
    wl_value *l = wl_list();
    for (int i = 0; i < n; i++) wl_list_push(l, wl_num(-log(p[i])));
    free(p);
    *out = l;
    return 0;
}

static int cmd_mean(wl_call *c, wl_value **out)
{
    double *x;
    int n;
    if (wl_args_nums(c, 0, &x, &n)) return -1;
    if (n == 0) return wl_call_fail(c, "ArgumentError", 1, "`mean` of nothing: give at least one number");
    *out = wl_num(wl_mean(x, (size_t)n));
    free(x);
    return 0;
}

static int cmd_exp(wl_call *c, wl_value **out)
{
    double x;
    if (wl_arg_num(c, 0, &x)) return -1;
    if (x > 709) return wl_call_fail(c, "ArgumentError", 1, "exp of %g overflows a double (the largest is about exp 709)", x);
    *out = wl_num(exp(x));
    return 0;
}

/* ---- the perplexity value: probabilities, losses, their mean and its exp ---- */

typedef struct ppl {
    int n;
    double *p, *loss;
    double ce, ppl;
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
    wl_buf_puts(&b, "{\"type\":\"perplexity\",\"probabilities\":[");
    for (int i = 0; i < q->n; i++) {
        if (i) wl_buf_put(&b, ",", 1);
        wl_buf_json_num(&b, q->p[i]);
    }
    wl_buf_puts(&b, "],\"losses\":[");
    for (int i = 0; i < q->n; i++) {
        if (i) wl_buf_put(&b, ",", 1);
        wl_buf_json_num(&b, q->loss[i]);
    }
    wl_buf_puts(&b, "],\"cross_entropy\":");
    wl_buf_json_num(&b, q->ce);
    wl_buf_puts(&b, ",\"perplexity\":");
    wl_buf_json_num(&b, q->ppl);
    wl_buf_puts(&b, "}");
    out->app_json = wl_buf_take(&b);
    return 0;
}

static wl_value *num_list(const double *x, int n)
{
    wl_value *l = wl_list();
    for (int i = 0; i < n; i++) wl_list_push(l, wl_num(x[i]));
    return l;
}

static wl_value *ppl_field(wl_value *self, const char *name, wl_err *err);

static const wl_objtype PPL_T = {.name = "perplexity", .fields = "probabilities losses cross_entropy perplexity",
                                 .free = ppl_free, .render = ppl_render, .field = ppl_field};

static wl_value *ppl_field(wl_value *self, const char *name, wl_err *err)
{
    const ppl *q = self->data;
    if (!strcmp(name, "probabilities")) return num_list(q->p, q->n);
    if (!strcmp(name, "losses")) return num_list(q->loss, q->n);
    if (!strcmp(name, "cross_entropy")) return wl_num(q->ce);
    if (!strcmp(name, "perplexity")) return wl_num(q->ppl);
    wl_fail(err, "a perplexity has no field .%s; its fields are %s", name, PPL_T.fields);
    return NULL;
}

static int cmd_perplexity(wl_call *c, wl_value **out)
{
    ppl *q = wl_xcalloc(1, sizeof *q);
    if (read_probs(c, &q->p, &q->n)) {
        free(q);
        return -1;
    }
    q->loss = malloc(sizeof(double) * (size_t)q->n);
    if (!q->loss) {
        ppl_free(q);
        return wl_call_fail(c, "RuntimeError", -1, "`perplexity`: out of memory for %d losses", q->n);
    }
    for (int i = 0; i < q->n; i++) q->loss[i] = -log(q->p[i]);
    q->ce = wl_mean(q->loss, (size_t)q->n);
    q->ppl = exp(q->ce);
    *out = wl_obj(&PPL_T, q);
    return 0;
}

const wl_command wl_cmds_math[] = {
    {.name = "nll", .topic = "cross-entropy", .synopsis = "nll P [P ...]",
     .summary = "the loss -ln p of each target probability",
     .help = "For each probability a model gave the observed next token, the loss is -ln p\n"
             "(natural log, in nats). A sure prediction (p = 1) costs 0; p = 0.5 costs 0.6931.\n"
             "Gives a list; lists of numbers are accepted too.",
     .example = "nll 0.5 0.25 0.125", .min_args = 1, .max_args = -1, .fn = cmd_nll},
    {.name = "mean", .topic = "cross-entropy", .synopsis = "mean X [X ...]", .summary = "the average of numbers or lists of numbers",
     .help = "The mean of the per-target losses is the cross-entropy in nats per token.",
     .example = "mean 0.6931 1.3863 2.0794\nmean [nll 0.5 0.25 0.125]", .min_args = 1, .max_args = -1, .fn = cmd_mean},
    {.name = "exp", .topic = "cross-entropy", .synopsis = "exp X", .summary = "e to the power X",
     .help = "exp of the cross-entropy is the perplexity.", .example = "exp [mean [nll 0.5 0.25 0.125]]",
     .min_args = 1, .max_args = 1, .fn = cmd_exp},
    {.name = "perplexity", .topic = "cross-entropy", .synopsis = "perplexity P [P ...]",
     .summary = "losses, cross-entropy and perplexity from target probabilities",
     .help = "Shows each target's loss -ln p, their mean (the cross-entropy, nats per token) and\n"
             "its exp, the perplexity: 1 / the geometric mean of the probabilities. A model that\n"
             "always gave 1/4 to the right word would have perplexity 4. Compare perplexities only\n"
             "with the same tokenizer and the same evaluation targets.\n"
             "Fields: .probabilities .losses .cross_entropy .perplexity",
     .example = "perplexity 0.5 0.25 0.125\np = perplexity 0.25 0.25\nprint $p.perplexity",
     .min_args = 1, .max_args = -1, .fn = cmd_perplexity},
    {0},
};

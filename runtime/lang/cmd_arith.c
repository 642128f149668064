/* cmd_arith.c: arithmetic on numbers and lists: ln, log2, exp, sum, mean, softmax, argmax (+ - * / are operators). */
#include "lang_int.h"
#include "lang_objs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* f applied to every number of the one argument (a number or a list): the same shape back. lo: the arguments must be
 * above it (-INFINITY: any); hi: at most it. */
static int elementwise(wl_call *c, double (*f)(double), double lo, double hi, wl_value **out)
{
    lang_nums a;
    int bad, rc = lang_nums_read(c->argv[0], &a, &bad);
    if (rc == -2) return wl_call_fail(c, "RuntimeError", 1, "out of memory for the numbers of %s", wl_value_kind(c->argv[0]));
    if (rc)
        return wl_call_fail(c, "TypeError", 1, "`%s` takes a number or a list of numbers, not %s%s", c->cmd->name,
                            wl_value_kind(bad >= 0 ? c->argv[0]->items[bad] : c->argv[0]), bad >= 0 ? " (in the list)" : "");
    for (int i = 0; i < a.n; i++) {
        if (a.x[i] > lo && a.x[i] <= hi) {
            a.x[i] = f(a.x[i]);
            continue;
        }
        char item[48] = "";
        if (a.list) snprintf(item, sizeof item, " (item %d of the list)", i);
        if (a.x[i] > hi) wl_call_fail(c, "ArgumentError", 1, "%s of %g%s overflows a double (the largest is about %s %g)",
                                      c->cmd->name, a.x[i], item, c->cmd->name, hi);
        else wl_call_fail(c, "ArgumentError", 1, "%s is defined for numbers above 0, got %g%s", c->cmd->name, a.x[i], item);
        lang_nums_free(&a);
        return -1;
    }
    a.ints = 0;
    *out = lang_nums_value(&a);
    lang_nums_free(&a);
    return 0;
}

static int cmd_ln(wl_call *c, wl_value **out) { return elementwise(c, log, 0, INFINITY, out); }
static int cmd_log2(wl_call *c, wl_value **out) { return elementwise(c, log2, 0, INFINITY, out); }
static int cmd_exp(wl_call *c, wl_value **out) { return elementwise(c, exp, -INFINITY, 709, out); }

/* The numbers of every argument, at least one. */
static int all_nums(wl_call *c, double **x, int *n)
{
    if (wl_args_nums(c, 0, x, n)) return -1;
    if (*n) return 0;
    free(*x);
    return wl_call_fail(c, "ArgumentError", 1, "`%s` of nothing: give at least one number", c->cmd->name);
}

static int cmd_sum(wl_call *c, wl_value **out)
{
    double *x, s = 0;
    int n, ints = 1;
    if (all_nums(c, &x, &n)) return -1;
    for (int i = 0; i < n; i++) s += x[i];
    free(x);
    for (int i = 0; ints && i < c->argc; i++) {   /* whole numbers written as such add up to a whole number */
        lang_nums a;
        int bad;
        ints = lang_nums_read(c->argv[i], &a, &bad) == 0 && a.ints;
        lang_nums_free(&a);
    }
    *out = ints && fabs(s) < 9007199254740992.0 ? wl_int((long long)s) : wl_num(s);
    return 0;
}

static int cmd_mean(wl_call *c, wl_value **out)
{
    double *x;
    int n;
    if (all_nums(c, &x, &n)) return -1;
    *out = wl_num(wl_mean(x, (size_t)n));
    free(x);
    return 0;
}

static int cmd_softmax(wl_call *c, wl_value **out)
{
    double *x, mx = -INFINITY, s = 0;
    int n;
    if (all_nums(c, &x, &n)) return -1;
    for (int i = 0; i < n; i++) mx = fmax(mx, x[i]);
    for (int i = 0; i < n; i++) s += x[i] = exp(x[i] - mx);
    for (int i = 0; i < n; i++) x[i] /= s;
    *out = wl_list_nums(x, n);
    free(x);
    return 0;
}

static int cmd_argmax(wl_call *c, wl_value **out)
{
    double *x;
    int n, best = 0;
    if (all_nums(c, &x, &n)) return -1;
    for (int i = 1; i < n; i++)
        if (x[i] > x[best]) best = i;
    free(x);
    *out = wl_int(best);
    return 0;
}

const wl_command wl_cmds_arith[] = {
    {.name = "ln", .topic = "arithmetic", .synopsis = "ln X", .summary = "the natural logarithm of a number or of each number of a list",
     .help = "ln p is the log-probability of p in nats; a target's loss is -ln p (see nll).\n"
             "Numbers and lists also take the operators + - * / between values, with spaces around them:\n"
             "x = 1 / 4, [ln 0.5] * -1, $losses / 2 (a single number meets every item of a list).",
     .example = "ln 0.25\n- [ln 0.25]\nln [softmax 2 1 0]", .min_args = 1, .max_args = 1, .fn = cmd_ln},
    {.name = "log2", .topic = "arithmetic", .synopsis = "log2 X", .summary = "the base-2 logarithm (bits) of a number or a list",
     .help = "-log2 p is a target's loss in bits instead of nats: ln p / ln 2.",
     .example = "log2 0.25\n[ln 0.25] / [ln 2]", .min_args = 1, .max_args = 1, .fn = cmd_log2},
    {.name = "exp", .topic = "arithmetic", .synopsis = "exp X", .summary = "e to the power X, of a number or of each number of a list",
     .help = "exp of the cross-entropy is the perplexity; exp undoes ln.", .example = "exp [mean [nll 0.5 0.25 0.125]]\nexp [ln 0.5]",
     .min_args = 1, .max_args = 1, .fn = cmd_exp},
    {.name = "sum", .topic = "arithmetic", .synopsis = "sum X [X ...]", .summary = "the sum of numbers or lists of numbers",
     .help = "Adds every number given, and every number of every list given.",
     .example = "sum 1 2 3\nsum [softmax 2 1 0]", .min_args = 1, .max_args = -1, .fn = cmd_sum},
    {.name = "mean", .topic = "arithmetic", .synopsis = "mean X [X ...]", .summary = "the average of numbers or lists of numbers",
     .help = "The mean of the per-target losses is the cross-entropy in nats per token.",
     .example = "mean 0.6931 1.3863 2.0794\nmean [nll 0.5 0.25 0.125]", .min_args = 1, .max_args = -1, .fn = cmd_mean},
    {.name = "softmax", .topic = "arithmetic", .synopsis = "softmax X [X ...]", .summary = "scores turned into probabilities that sum to 1",
     .help = "exp of each score over the sum of them all: exp(x_i) / sum_j exp(x_j) (computed as exp(x_i - max)\n"
             "over its sum, so that large scores do not overflow). A model's logits become its next-token\n"
             "probabilities this way; adding the same number to every score changes nothing.",
     .example = "softmax 2 1 0\nsoftmax 102 101 100", .min_args = 1, .max_args = -1, .fn = cmd_softmax},
    {.name = "argmax", .topic = "arithmetic", .synopsis = "argmax X [X ...]", .summary = "the position of the largest number (from 0)",
     .help = "Counts from 0, as $list.0 does; the first of equal largest numbers wins. Greedy decoding picks\n"
             "the argmax of the next-token probabilities.",
     .example = "argmax 0.1 0.7 0.2\nl = softmax 1 3 2\nprint \"largest:\" [argmax $l] \"with p\" $l.1", .min_args = 1,
     .max_args = -1, .fn = cmd_argmax},
    {0},
};

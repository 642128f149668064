/* cmd_math.c: cross-entropy and perplexity step by step: nll and perplexity (mean and exp: cmd_arith.c). */
#include "lang_objs.h"

#include <math.h>
#include <stdlib.h>

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
    return lang_nll_value(c, p, n, out);
}

static int cmd_perplexity(wl_call *c, wl_value **out)
{
    double *p;
    int n;
    if (read_probs(c, &p, &n)) return -1;
    return lang_perplexity_value(c, p, n, out);
}

const wl_command wl_cmds_math[] = {
    {.name = "nll", .topic = "cross-entropy", .synopsis = "nll P [P ...]",
     .summary = "the loss -ln p of each target probability",
     .help = "For each probability a model gave the observed next token, the loss is -ln p\n"
             "(natural log, in nats). A sure prediction (p = 1) costs 0; p = 0.5 costs 0.6931.\n"
             "Shows each p beside its loss; where numbers are expected (mean, + - * /, $l.0) it is the list\n"
             "of losses. Lists of numbers are accepted too. Fields: .probabilities .losses .count",
     .example = "nll 0.5 0.25 0.125", .min_args = 1, .max_args = -1, .fn = cmd_nll},
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

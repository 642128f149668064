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

static int cmd_next(wl_call *c, wl_value **out)
{
    lang_model *lm = wl_arg_obj(c, 0, &lang_model_type);
    const char *text = lm ? wl_arg_str(c, 1) : NULL;
    const char *target = text ? wl_opt_str(c, "target", NULL) : NULL;
    long long top;
    if (!text || (wl_opt_has(c, "target") && !target) || wl_opt_int(c, "top", 10, 1, 1000000, &top)) return -1;
    wl_value *vv = lang_model_vocab(c, lm);
    if (!vv) return -1;
    int rc = lang_next_value(c, lm, vv, text, (int)top, target, out);
    wl_unref(vv);
    return rc;
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
             "of losses. Lists of numbers are accepted too.",
     .example = "nll 0.5 0.25 0.125", .min_args = 1, .max_args = -1, .fn = cmd_nll, .result = &lang_nll_type},
    {.name = "next", .topic = "cross-entropy", .synopsis = "next MODEL TEXT [top=10] [target=WORD] [vocab=V]",
     .summary = "the model's probability for every word of its vocabulary as the next token after TEXT",
     .help = "Runs the model once on <BOS> and the text's ids (the last 64, left-padded, as generate and\n"
             "losses read them) and turns its logits into probabilities with softmax: one for every word\n"
             "of the vocabulary, adding up to 1. Shows the top= most likely words with p, -ln p and a bar,\n"
             "and the rest summed. target=WORD marks one word and gives its p, its loss -ln p and its\n"
             "rank: the number `losses` shows for that word when it follows the text.",
     .example = "stories = corpus profile=smoke\nm = model new kind=multihead vocab=$stories.vocab seed=11\n"
                "next $m \"once upon a\" top=5\nn = next $m \"once upon a\" target=time\nprint $n.p [exp [- $n.loss]]",
     .min_args = 2, .max_args = 2, .options = "top target vocab", .fn = cmd_next,
     .result = &lang_next_type},
    {.name = "perplexity", .topic = "cross-entropy", .synopsis = "perplexity P [P ...]",
     .summary = "losses, cross-entropy and perplexity from target probabilities",
     .help = "Shows each target's loss -ln p, their mean (the cross-entropy, nats per token) and\n"
             "its exp, the perplexity: 1 / the geometric mean of the probabilities. A model that\n"
             "always gave 1/4 to the right word would have perplexity 4. Compare perplexities only\n"
             "with the same tokenizer and the same evaluation targets.",
     .example = "perplexity 0.5 0.25 0.125\np = perplexity 0.25 0.25\nprint $p.perplexity",
     .min_args = 1, .max_args = -1, .fn = cmd_perplexity, .result = &lang_perplexity_type},
    {0},
};

/* cmd_cross_entropy.c: cross-entropy and perplexity step by step: nll, next, perplexity, losses (a story shaded by its
 * per-token loss), uniform (mean and exp: cmd_arith.c). */
#include "lang_objs.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the probabilities (numbers or lists of numbers) and checks each is in (0, 1]. */
static int read_probs(wl_call *c, double **p, int *n)
{
    if (wl_args_nums(c, 0, p, n)) return -1;
    if (*n == 0) return wl_call_fail(c, "ArgumentError", 1, "`%s` needs at least one probability", c->cmd->name);
    for (int i = 0; i < *n; i++)
        if (!((*p)[i] > 0 && (*p)[i] <= 1)) {
            const wl_value *a = c->argc == *n ? c->argv[i] : NULL;   /* one number per argument */
            if (a && wl_value_underflowed(a))
                wl_call_fail(c, "ArgumentError", wl_call_argword(c, i), "a probability must be greater than 0 and at most 1, "
                             "got %.40s, which underflows to 0: a double holds nothing between 0 and about 4.9e-324", a->str);
            else
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
    const char *target = lm ? wl_opt_str(c, "target", NULL) : NULL;
    long long top;
    if (!lm || (wl_opt_has(c, "target") && !target) || wl_opt_int(c, "top", 10, 1, 1000000, &top)) return -1;
    wl_value *vv = lang_model_vocab(c, lm);
    wl_tokens toks;
    int32_t *hist;
    if (!vv || lang_history(c, lm, vv, &toks, &hist)) {
        wl_unref(vv);
        return -1;
    }
    lang_note_cropped(c, toks.n);
    int rc = lang_next_value(c, lm, vv, &toks, hist, (int)top, target, out);
    free(hist);
    wl_tokens_free(&toks);
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

static int cmd_losses(wl_call *c, wl_value **out)
{
    lang_model *lm = wl_arg_obj(c, 0, &lang_model_type);
    long long eos;
    if (!lm || wl_opt_int(c, "eos", 1, 0, 1, &eos)) return -1;
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
        if (lang_model_and_corpus(c, &lm, &lc)) return -1;
        v = &lc->c.vocab;
        n = (int)st->tokens.n;
        hist = malloc(sizeof(int32_t) * ((size_t)n + 2));
        if (!hist) return wl_fail(c->err, "out of memory for the ids of a story of %d tokens", n);
        hist[0] = WL_BOS;
        memcpy(hist + 1, st->ids, sizeof(int32_t) * (size_t)n);
        if (wl_story_tokens(st, &toks, c->err)) {   /* a list over the corpus's strings */
            free(hist);
            return -1;
        }
        snprintf(title, sizeof title, "%s story %td (of %zu) scored by the %s model", wl_split_name(s),
                 st - lc->c.stories[s] + 1, lc->c.n[s], lm->m.kind_name);
    } else {
        const char *given = c->argv[1]->type == WL_V_LIST ? "token list"
                          : wl_obj_data(c->argv[1], &lang_ids_type) ? "ids" : "text";
        const char *pick = wl_opt_has(c, "split") ? "split" : wl_opt_has(c, "story") ? "story" : NULL;
        if (pick)   /* they choose a corpus's story; this one is given */
            return wl_call_fail(c, "ArgumentError", wl_call_optword(c, pick), "%s= picks a story of a corpus; the %s given "
                                "here is scored whole, so leave %s= out", pick, given, pick);
        if (!lm->vocab)
            return wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1), LANG_NO_VOCAB "; or pass a corpus");
        if (lang_history(c, lm, lm->vocab, &toks, &hist)) return -1;
        n = (int)toks.n;
        snprintf(title, sizeof title, "the %s scored by the %s model", given, lm->m.kind_name);
    }
    int rc = 0;
    if (n == 0)   /* only an <EOS> to score: the perplexity of no story */
        rc = wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1), "there is no token to score: %s",
                          lc ? "this story is empty" : "the text has none (tokenize gives an empty list)");
    hist[n + 1] = WL_EOS;
    for (int i = 1; i <= n + 1 && !rc; i++)
        if (hist[i] < 0 || hist[i] >= lm->m.V)
            rc = wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1), "id %d is outside this model's vocabulary of %d", hist[i], lm->m.V);
    if (!rc) rc = lang_losses_score(c, lm, hist, n, (int)eos, toks.tok, v, title, out);
    wl_tokens_free(&toks);
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

const wl_command wl_cmds_cross_entropy[] = {
    {.name = "nll", .topic = "cross-entropy", .synopsis = "nll P [P ...]",
     .summary = "the loss -ln p of each target probability",
     .help = "For each probability a model gave the observed next token, the loss is -ln p\n"
             "(natural log, in nats). A sure prediction (p = 1) costs 0; p = 0.5 costs 0.6931.\n"
             "Shows each p beside its loss; where numbers are expected (mean, + - * /, $l.0) it is the list\n"
             "of losses. Lists of numbers are accepted too.",
     .example = "nll 0.5 0.25 0.125", .min_args = 1, .max_args = -1, .fn = cmd_nll, .result = &lang_nll_type},
    {.name = "next", .topic = "cross-entropy", .synopsis = "next MODEL TEXT|IDS [top=10] [target=WORD] [vocab=V]",
     .summary = "the model's probability for every word of its vocabulary as the next token after TEXT",
     .help = "Runs the model once on <BOS> and the text's ids (the last 64, left-padded, as generate and\n"
             "losses read them; IDS from `encode` are read as the text they encode) and turns its logits into probabilities with softmax: one for every word\n"
             "of the vocabulary, adding up to 1. Shows the top= most likely words with p, -ln p and a bar,\n"
             "and the rest summed. target=WORD marks one word and gives its p, its loss -ln p and its\n"
             "rank: the number `losses` shows for that word when it follows the text.",
     .example = LANG_EX_MODEL("multihead")
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
    {.name = "losses", .topic = "cross-entropy", .synopsis = "losses MODEL CORPUS|TEXT|IDS [split=test] [story=1] [eos=1]",
     .summary = "a story with each token shaded by its loss -ln p under a model",
     .help = "Scores every target of one story the way `evaluate` does: each token of the story and\n"
             "the final <EOS>, each predicted from <BOS> and the tokens before it (the last 64 ids).\n"
             "Shows the story with each token shaded by its loss (darker: the model found it less\n"
             "likely; * marks a word outside the vocabulary, scored as <UNK>), the mean loss and its\n"
             "exp, the perplexity of that one story. The shading is a background colour in a notebook\n"
             "and in a terminal that shows colour; every token's loss also follows it in parentheses.\n"
             "CORPUS picks story=N (from 1) of split= (train, validation or test); TEXT is tokenized\n"
             "and a token list (from `tokenize`) looked up with the model's vocabulary; IDS (from\n"
             "`encode`) are read as they are; split= and story= apply to a corpus only. eos=0 scores\n"
             "only the tokens, not the final <EOS> (for the start of a story, which has no end yet);\n"
             "the default eos=1 scores it, as `evaluate` does.",
     .example = LANG_EX_STORIES
                "m = model new kind=attention vocab=$stories.vocab seed=11\n"
                "losses $m $stories split=test story=2\n"
                "l = losses $m \"the dog was happy .\"\n"
                "print $l.perplexity\n"
                "losses $m \"once upon a\" eos=0",
     .min_args = 2, .max_args = 2, .options = "split story eos",
     .choices = "split=train|validation|test", .fn = cmd_losses,
     .result = &lang_losses_type},
    {.name = "uniform", .topic = "cross-entropy", .synopsis = "uniform V|VOCAB",
     .summary = "1/V: the probability a uniform model gives every target",
     .help = "A model that spreads its probability evenly over the V words of a vocabulary gives\n"
             "each target 1/V, so every loss is ln V, their mean is ln V and the perplexity is V.\n"
             "V is a whole number or a vocabulary (a vocab, a corpus, a model with one).",
     .example = "uniform 4\nperplexity [uniform 4] [uniform 4]",
     .min_args = 1, .max_args = 1, .fn = cmd_uniform},
    {0},
};

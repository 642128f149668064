/* cmd_evaluate.c: evaluate: cross-entropy and perplexity of a model over every window of a split. */
#include "lang_objs.h"

static int cmd_evaluate(wl_call *c, wl_value **out)
{
    lang_model *lm;
    lang_corpus *lc;
    if (lang_model_and_corpus(c, &lm, &lc)) return -1;
    wl_split s;
    if (lang_opt_split(c, "validation", &s)) return -1;
    wl_window_set w;
    if (lang_corpus_windows(c, lc, s, &w)) return -1;
    if (!w.n) return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "split"), "the %s split of this corpus is empty", wl_split_name(s));
    double loss, ppl;
    if (lang_cache_evaluate(c, lm, lc, s, &w, 512, &loss, &ppl)) return -1;
    *out = lang_evaluation_value(s, w.n, loss, ppl);
    return 0;
}

const wl_command wl_cmds_evaluate[] = {
    {.name = "evaluate", .topic = "training", .synopsis = "evaluate MODEL CORPUS [split=validation] [shared=off]",
     .summary = "cross-entropy and perplexity over every window of a split",
     .help = "The mean loss -ln p(target) over all windows of the split (train, validation or test),\n"
             "and its exp, the perplexity. A checkpoint as loaded, on a generated corpus, is scored once per machine\n"
             "when the front end has a shared cache (shared=off scores it here).",
     .example = LANG_EX_MODEL_ON(LANG_EX_FEW_STORIES, "attention")
                "evaluate $m $stories split=test",
     .min_args = 2, .max_args = 2, .options = "split shared",
     .choices = "split=train|validation|test shared=off", .fn = cmd_evaluate,
     .result = &lang_evaluation_type},
    {0},
};

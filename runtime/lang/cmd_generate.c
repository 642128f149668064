/* cmd_generate.c: generate: continue a prompt one token per model call, greedy or sampled. */
#include "lang_objs.h"

#include "wl_context.h"

#include <stdlib.h>
#include <string.h>

static int cmd_generate(wl_call *c, wl_value **out)
{
    lang_model *lm = wl_arg_obj(c, 0, &lang_model_type);
    const char *prompt = lm ? wl_arg_str(c, 1) : NULL;
    long long ntok, seed;
    double temp;
    if (!prompt || wl_opt_int(c, "tokens", 30, 0, 10000, &ntok) || wl_opt_int(c, "seed", 1, 0, (1LL << 53), &seed) ||
        wl_opt_num(c, "temperature", 1.0, &temp))
        return -1;
    if (!(temp > 0)) return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "temperature"), "temperature must be greater than 0");
    wl_value *vv = lang_model_vocab(c, lm);
    if (!vv) return -1;
    const wl_vocab *v = lang_vocab_get(vv);
    wl_tokens toks;
    int32_t *hist;   /* <BOS> and the prompt's ids: wl_generate puts the <BOS> in front itself */
    if (wl_context_encode(v, prompt, strlen(prompt), &toks, &hist, c->err)) {
        wl_unref(vv);
        c->errword = wl_call_argword(c, 1);
        return -1;
    }
    wl_gen_config cfg = {.max_new_tokens = (int)ntok, .temperature = temp, .greedy = !wl_opt_has(c, "temperature"),
                         .seed = (uint64_t)seed};
    wl_gen_result res;
    int rc = wl_generate(&lm->m, hist + 1, (int)toks.n, &cfg, lang_interrupt(c), &res, c->err);
    if (rc == 0) {
        *out = lang_generation_value(v, &toks, &res, c->err);
        if (!*out) rc = -1;
        wl_gen_result_free(&res);
    }
    free(hist);
    wl_tokens_free(&toks);
    wl_unref(vv);
    return rc;
}

const wl_command wl_cmds_generate[] = {
    {.name = "generate", .topic = "training", .synopsis = "generate MODEL PROMPT [tokens=30] [temperature=T] [seed=1]",
     .summary = "continue a prompt one token per model call",
     .help = "Feeds <BOS> + the prompt's ids (the last 64, left-padded) to the model and appends the\n"
             "chosen token, until <EOS> or `tokens` new tokens. Greedy (the most likely token) unless\n"
             "temperature= is given: then it samples from softmax(logits / T) with the seed. <PAD>,\n"
             "<BOS> and <UNK> are never chosen. Shows the time per model call.",
     .example = "stories = corpus profile=smoke\nm = model new kind=multihead vocab=$stories.vocab seed=11\n"
                "generate $m \"once upon a time\" tokens=10\ngenerate $m \"the dog\" tokens=5 temperature=0.8 seed=3",
     .min_args = 2, .max_args = 2, .options = "tokens temperature seed vocab", .fn = cmd_generate,
     .result = &lang_generation_type},
    {0},
};

/* wl_generate.h: continuing a prompt one token per model call, greedy or by seeded sampling with temperature. */
#ifndef WL_GENERATE_H
#define WL_GENERATE_H

#include <signal.h>
#include <stdint.h>

#include "wl_core.h"
#include "wl_model.h"

typedef struct wl_gen_config {
    int max_new_tokens;   /* the limit on new tokens (>= 0) */
    double temperature;   /* > 0; used only when sampling */
    int greedy;           /* non-zero: argmax; zero: sample from softmax(logits / temperature) */
    uint64_t seed;        /* the sampling generator's seed */
} wl_gen_config;

typedef enum wl_gen_stop { WL_GEN_EOS, WL_GEN_LIMIT, WL_GEN_INTERRUPTED } wl_gen_stop;

typedef struct wl_gen_result {
    int32_t *ids;         /* [n_new] the generated ids (malloc'd; EOS is not included) */
    int n_new;
    int calls;            /* model calls (an EOS decision is a call that adds no token) */
    wl_gen_stop stop;
    double seconds;       /* total generation time, warm-up excluded */
    double ms_per_call;
    double warmup_ms;     /* one untimed call on the first context before the timed ones (caches, lazy
                             allocations, BLAS threads start); 0 when no call was made */
} wl_gen_result;

/* "eos", "limit" or "interrupted". */
const char *wl_gen_stop_name(wl_gen_stop s);

/* history = BOS + prompt [nprompt]; each call feeds the last 64 ids of history, left-padded with PAD;
 * PAD, BOS and UNK can never be chosen; EOS ends generation. interrupt may be NULL. */
int wl_generate(const wl_model *m, const int32_t *prompt, int nprompt, const wl_gen_config *cfg,
                volatile sig_atomic_t *interrupt, wl_gen_result *res, wl_err *err);
void wl_gen_result_free(wl_gen_result *r);

#endif

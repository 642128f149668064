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
    double seconds;       /* total generation time: the timed model calls and the choices, summed (warm-up excluded) */
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

/* The same one model call at a time (wl_generate is a loop over wl_gen_step), for front ends that show each
 * token as it comes. A wl_gen keeps m's address: the model must outlive it. */
typedef struct wl_gen wl_gen;

/* Checks the arguments as wl_generate does and starts; with a token limit of 0 it is finished at once. */
int wl_gen_start(const wl_model *m, const int32_t *prompt, int nprompt, const wl_gen_config *cfg, wl_gen **out,
                 wl_err *err);
/* The context [T] that the next call feeds (the last 64 ids of history, left-padded with PAD). */
const int32_t *wl_gen_context(const wl_gen *g);
/* One untimed call on the first context, before the timed ones (caches, lazy allocations and BLAS threads
 * start there); its time goes to the result's warmup_ms. Nothing when already finished. */
int wl_gen_warmup(wl_gen *g, wl_err *err);
/* One model call (only while not finished): appends the chosen id, or finishes on EOS; reaching the limit
 * finishes too. Its time adds to the result's seconds. */
int wl_gen_step(wl_gen *g, wl_err *err);
/* The result so far: ids, n_new, calls, seconds, ms_per_call, and stop once finished (owned by g). */
const wl_gen_result *wl_gen_progress(const wl_gen *g);
int wl_gen_finished(const wl_gen *g);
/* Stops before the next call: finished, stopped by an interrupt. */
void wl_gen_interrupt(wl_gen *g);
void wl_gen_free(wl_gen *g);

#endif

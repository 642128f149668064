/* wl_generate.c: generation: BOS + prompt, last 64 ids left-padded per call, PAD/BOS/UNK banned, greedy or sampled, EOS stops. */
#define _POSIX_C_SOURCE 200809L
#include "wl_generate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wl_context.h"
#include "wl_rng.h"

const char *wl_gen_stop_name(wl_gen_stop s)
{
    switch (s) {
    case WL_GEN_EOS: return "eos";
    case WL_GEN_LIMIT: return "limit";
    case WL_GEN_INTERRUPTED: return "interrupted";
    }
    return "?";
}

void wl_gen_result_free(wl_gen_result *r)
{
    free(r->ids);
    r->ids = NULL;
    r->n_new = 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The chosen id from logits [V] whose banned entries are -inf: the first maximum, or a draw from
 * softmax(logits / temperature) by inverting the cumulative sum at a uniform u. */
static int32_t choose(const float *logits, int V, const wl_gen_config *cfg, wl_rng *rng, double *p)
{
    int best = 0;
    for (int j = 1; j < V; j++)
        if (logits[j] > logits[best]) best = j;
    if (cfg->greedy) return best;
    double mx = logits[best], sum = 0.0;
    for (int j = 0; j < V; j++) sum += p[j] = exp(((double)logits[j] - mx) / cfg->temperature);
    double u = wl_rng_uniform(rng) * sum, cum = 0.0;
    int last = best;
    for (int j = 0; j < V; j++) {
        if (p[j] == 0.0) continue;
        cum += p[j];
        last = j;
        if (u < cum) return j;
    }
    return last;   /* u rounded up to the very end of the sum */
}

struct wl_gen {
    const wl_model *m;
    wl_gen_config cfg;
    int32_t *hist;        /* [nprompt + 1 + max_new_tokens]: BOS, prompt, new ids */
    size_t nh;
    int32_t ctx[WL_T];    /* the next call's context */
    float *logits;        /* [V] */
    double *p;            /* [V] */
    wl_model_ws *ws;
    wl_rng rng;
    int finished;
    wl_gen_result res;
};

/* The last T ids of history, left-padded with PAD, into g->ctx. */
static void set_context(wl_gen *g) { wl_context_window(g->hist, g->nh, g->ctx, WL_T); }

void wl_gen_free(wl_gen *g)
{
    if (!g) return;
    free(g->hist);
    free(g->logits);
    free(g->p);
    wl_model_ws_free(g->ws);
    wl_gen_result_free(&g->res);
    free(g);
}

int wl_gen_start(const wl_model *m, const int32_t *prompt, int nprompt, const wl_gen_config *cfg, wl_gen **out,
                 wl_err *err)
{
    *out = NULL;
    const int V = m->V;
    if (cfg->max_new_tokens < 0) return wl_fail(err, "generate: the token limit must be >= 0, got %d", cfg->max_new_tokens);
    if (!cfg->greedy && !(cfg->temperature > 0 && isfinite(cfg->temperature)))
        return wl_fail(err, "generate: temperature must be a positive number, got %g", cfg->temperature);
    if (V <= WL_UNK + 1) return wl_fail(err, "generate: the vocabulary has no ordinary tokens (V = %d)", V);
    if (nprompt < 0 || (nprompt > 0 && !prompt)) return wl_fail(err, "generate: no prompt ids given");
    for (int i = 0; i < nprompt; i++)
        if (prompt[i] < 0 || prompt[i] >= V)
            return wl_fail(err, "generate: prompt id %d at position %d is outside the vocabulary [0, %d)",
                           (int)prompt[i], i, V);
    wl_gen *g = calloc(1, sizeof *g);
    if (!g) return wl_fail(err, "generate: out of memory");
    g->m = m;
    g->cfg = *cfg;
    g->hist = malloc(((size_t)nprompt + 1 + (size_t)cfg->max_new_tokens) * sizeof(int32_t));
    g->res.ids = malloc(((size_t)cfg->max_new_tokens + 1) * sizeof(int32_t));
    g->logits = malloc((size_t)V * sizeof(float));   /* [1,V] */
    g->p = malloc((size_t)V * sizeof(double));
    g->ws = wl_model_ws_new(m, 1);
    if (!g->hist || !g->res.ids || !g->logits || !g->p || !g->ws) {
        wl_gen_free(g);
        return wl_fail(err, "generate: out of memory");
    }
    g->hist[g->nh++] = WL_BOS;
    memcpy(g->hist + g->nh, prompt, (size_t)nprompt * sizeof(int32_t));
    g->nh += (size_t)nprompt;
    set_context(g);
    wl_rng_seed(&g->rng, cfg->seed);
    g->res.stop = WL_GEN_LIMIT;
    g->finished = cfg->max_new_tokens == 0;
    *out = g;
    return 0;
}

const int32_t *wl_gen_context(const wl_gen *g)
{
    return g->ctx;
}

const wl_gen_result *wl_gen_progress(const wl_gen *g)
{
    return &g->res;
}

int wl_gen_finished(const wl_gen *g)
{
    return g->finished;
}

void wl_gen_interrupt(wl_gen *g)
{
    if (g->finished) return;
    g->res.stop = WL_GEN_INTERRUPTED;
    g->finished = 1;
}

int wl_gen_warmup(wl_gen *g, wl_err *err)
{
    if (g->finished) return 0;
    double t0 = now_s();
    if (wl_model_forward(g->m, g->ws, g->ctx, 1, g->logits, err) < 0) return -1;
    g->res.warmup_ms = 1000.0 * (now_s() - t0);
    return 0;
}

int wl_gen_step(wl_gen *g, wl_err *err)
{
    if (g->finished) return wl_fail(err, "generate: the generation has finished");
    wl_gen_result *res = &g->res;
    double t0 = now_s();
    if (wl_model_forward(g->m, g->ws, g->ctx, 1, g->logits, err) < 0) return -1;
    res->calls++;
    g->logits[WL_PAD] = g->logits[WL_BOS] = g->logits[WL_UNK] = -INFINITY;
    int32_t id = choose(g->logits, g->m->V, &g->cfg, &g->rng, g->p);
    if (id == WL_EOS) {
        res->stop = WL_GEN_EOS;
        g->finished = 1;
    } else {
        g->hist[g->nh++] = id;
        res->ids[res->n_new++] = id;
        g->finished = res->n_new >= g->cfg.max_new_tokens;
        set_context(g);
    }
    res->seconds += now_s() - t0;
    res->ms_per_call = 1000.0 * res->seconds / res->calls;
    return 0;
}

int wl_generate(const wl_model *m, const int32_t *prompt, int nprompt, const wl_gen_config *cfg,
                volatile sig_atomic_t *interrupt, wl_gen_result *res, wl_err *err)
{
    memset(res, 0, sizeof *res);
    wl_gen *g;
    if (wl_gen_start(m, prompt, nprompt, cfg, &g, err) < 0) return -1;
    if (wl_gen_warmup(g, err) < 0) {
        wl_gen_free(g);
        return -1;
    }
    while (!g->finished) {
        if (interrupt && *interrupt) wl_gen_interrupt(g);
        else if (wl_gen_step(g, err) < 0) {
            wl_gen_free(g);
            return -1;
        }
    }
    *res = g->res;   /* the result moves to the caller */
    memset(&g->res, 0, sizeof g->res);
    wl_gen_free(g);
    return 0;
}

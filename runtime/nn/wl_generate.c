/* wl_generate.c: generation: BOS + prompt, last 64 ids left-padded per call, PAD/BOS/UNK banned, greedy or sampled, EOS stops. */
#define _POSIX_C_SOURCE 200809L
#include "wl_generate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int wl_generate(const wl_model *m, const int32_t *prompt, int nprompt, const wl_gen_config *cfg,
                volatile sig_atomic_t *interrupt, wl_gen_result *res, wl_err *err)
{
    memset(res, 0, sizeof *res);
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

    size_t hcap = (size_t)nprompt + 1 + (size_t)cfg->max_new_tokens;
    int32_t *hist = malloc(hcap * sizeof(int32_t));
    res->ids = malloc(((size_t)cfg->max_new_tokens + 1) * sizeof(int32_t));
    float *logits = malloc((size_t)V * sizeof(float));   /* [1,V] */
    double *p = malloc((size_t)V * sizeof(double));
    wl_model_ws *ws = wl_model_ws_new(m, 1);
    int rc = -1;
    if (!hist || !res->ids || !logits || !p || !ws) {
        wl_fail(err, "generate: out of memory");
        goto done;
    }
    size_t nh = 0;
    hist[nh++] = WL_BOS;
    memcpy(hist + nh, prompt, (size_t)nprompt * sizeof(int32_t));
    nh += (size_t)nprompt;

    wl_rng rng;
    wl_rng_seed(&rng, cfg->seed);
    int32_t ctx[WL_T];
    res->stop = WL_GEN_LIMIT;
    double t0 = now_s();
    for (int warm = cfg->max_new_tokens > 0; res->n_new < cfg->max_new_tokens; warm = 0) {
        if (interrupt && *interrupt) {
            res->stop = WL_GEN_INTERRUPTED;
            break;
        }
        size_t take = nh < WL_T ? nh : WL_T;
        for (size_t t = 0; t < WL_T - take; t++) ctx[t] = WL_PAD;
        memcpy(ctx + (WL_T - take), hist + (nh - take), take * sizeof(int32_t));
        if (warm) { /* the warm-up: the same first call, timed apart and not counted */
            if (wl_model_forward(m, ws, ctx, 1, logits, err) < 0) goto done;
            res->warmup_ms = 1000.0 * (now_s() - t0);
            t0 = now_s();
        }
        if (wl_model_forward(m, ws, ctx, 1, logits, err) < 0) goto done;
        res->calls++;
        logits[WL_PAD] = logits[WL_BOS] = logits[WL_UNK] = -INFINITY;
        int32_t id = choose(logits, V, cfg, &rng, p);
        if (id == WL_EOS) {
            res->stop = WL_GEN_EOS;
            break;
        }
        hist[nh++] = id;
        res->ids[res->n_new++] = id;
    }
    res->seconds = now_s() - t0;
    res->ms_per_call = res->calls ? 1000.0 * res->seconds / res->calls : 0.0;
    rc = 0;
done:
    free(hist);
    free(logits);
    free(p);
    wl_model_ws_free(ws);
    if (rc < 0) wl_gen_result_free(res);
    return rc;
}

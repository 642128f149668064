/* wl_train.c: the training loop (seeded batches, global-norm clipping, PyTorch's AdamW, best-checkpoint selection) and evaluation. */
#define _POSIX_C_SOURCE 200809L
#include "wl_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wl_rng.h"

/* ---- optimizer ---- */

int wl_adamw_init(wl_adamw *o, size_t n, double lr, double wd, wl_err *err)
{
    memset(o, 0, sizeof *o);
    o->lr = lr;
    o->wd = wd;
    o->beta1 = 0.9;
    o->beta2 = 0.999;
    o->eps = 1e-8;
    o->n = n;
    o->m = calloc(n ? n : 1, sizeof(float));
    o->v = calloc(n ? n : 1, sizeof(float));
    if (!o->m || !o->v) {
        wl_adamw_free(o);
        return wl_fail(err, "AdamW: out of memory for %zu parameters", n);
    }
    return 0;
}

void wl_adamw_free(wl_adamw *o)
{
    free(o->m);
    free(o->v);
    o->m = o->v = NULL;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HOT
#endif

/* The step's constants, rounded to float once as PyTorch rounds its Python scalars for a float32 tensor. */
typedef struct adamw_consts {
    float gscale, decay, w1, b2, w2, bc2_sqrt, eps, neg_step;
} adamw_consts;

static inline void adamw_elem(float *restrict p, float *restrict m, float *restrict v, const float *restrict gr,
                              size_t i, adamw_consts k)
{
    float g = gr[i] * k.gscale;                    /* clip_grad_norm_: grads.mul_(clip_coef) */
    float pi = p[i] * k.decay;                     /* p.mul_(1 - lr*wd) */
    float mi = m[i] + k.w1 * (g - m[i]);           /* m.lerp_(g, 1 - b1) */
    float vi = v[i] * k.b2 + k.w2 * g * g;        /* v.mul_(b2).addcmul_(g, g, value=1-b2) */
    float denom = sqrtf(vi) / k.bc2_sqrt + k.eps; /* (v.sqrt() / sqrt(bc2)).add_(eps) */
    p[i] = pi + k.neg_step * mi / denom;           /* p.addcdiv_(m, denom, value=-lr/bc1) */
    m[i] = mi;
    v[i] = vi;
}

/* Blocks of 8 so that the compiler turns each block into vector instructions (CMakeLists.txt compiles this
 * file with -fno-math-errno: sqrtf's argument is never negative, and errno would keep it scalar). */
HOT static void adamw_loop(float *restrict p, float *restrict m, float *restrict v, const float *restrict gr, size_t n,
                           const adamw_consts *kp)
{
    const adamw_consts k = *kp;
    size_t n8 = n & ~(size_t)7;
    for (size_t b = 0; b < n8; b += 8)
        for (size_t j = 0; j < 8; j++) adamw_elem(p, m, v, gr, b + j, k);
    for (size_t i = n8; i < n; i++) adamw_elem(p, m, v, gr, i, k);
}

void wl_adamw_step(wl_adamw *o, float *params, const float *grads, float gscale)
{
    o->t++;
    double bc1 = 1.0 - pow(o->beta1, (double)o->t);
    double bc2 = 1.0 - pow(o->beta2, (double)o->t);
    adamw_consts k = {
        .gscale = gscale,
        .decay = (float)(1.0 - o->lr * o->wd),
        .w1 = (float)(1.0 - o->beta1),
        .b2 = (float)o->beta2,
        .w2 = (float)(1.0 - o->beta2),
        .bc2_sqrt = (float)sqrt(bc2),
        .eps = (float)o->eps,
        .neg_step = (float)(-(o->lr / bc1)),
    };
    adamw_loop(params, o->m, o->v, grads, o->n, &k);
}

/* Eight double accumulators, one per lane of a block, summed in a fixed order: the same bits in both builds. */
HOT static double sum_squares(const float *g, size_t n)
{
    double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t n8 = n & ~(size_t)7;
    for (size_t b = 0; b < n8; b += 8)
        for (int k = 0; k < 8; k++) acc[k] += (double)g[b + k] * g[b + k];
    for (size_t i = n8; i < n; i++) acc[i - n8] += (double)g[i] * g[i];
    return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

float wl_clip_factor(const float *grads, size_t n, double max_norm, double *total)
{
    double t = sqrt(sum_squares(grads, n));
    if (total) *total = t;
    double coef = max_norm / (t + 1e-6);
    return coef < 1.0 ? (float)coef : 1.0f;
}

/* ---- evaluation ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int wl_evaluate(const wl_model *m, wl_model_ws *ws, const wl_window_set *w, int batch,
                volatile sig_atomic_t *interrupt, double *loss, double *perplexity, wl_err *err)
{
    if (!w || w->n == 0) return wl_fail(err, "evaluate: the window set is empty");
    if (batch < 1) return wl_fail(err, "evaluate: batch must be at least 1, got %d", batch);
    wl_model_ws *own = NULL;
    if (!ws) {
        own = ws = wl_model_ws_new(m, batch);
        if (!ws) return wl_fail(err, "evaluate: out of memory for a workspace of batch %d", batch);
    }
    double sum = 0.0;
    int rc = 0;
    for (size_t i = 0; i < w->n; i += (size_t)batch) {
        if (interrupt && *interrupt) {
            rc = wl_fail(err, "evaluate: interrupted after %zu of %zu windows", i, w->n);
            break;
        }
        int B = (int)(w->n - i < (size_t)batch ? w->n - i : (size_t)batch);
        double l;
        if (wl_model_loss(m, ws, w->ctx + i * WL_T, w->tgt + i, B, &l, NULL, err) < 0) {
            rc = -1;
            break;
        }
        sum += l * B;
    }
    wl_model_ws_free(own);
    if (rc < 0) return rc;
    double mean = sum / (double)w->n;
    if (loss) *loss = mean;
    if (perplexity) *perplexity = exp(mean);
    return 0;
}

/* ---- training ---- */

void wl_train_config_default(wl_train_config *c)
{
    c->steps = 6000;
    c->batch_size = 512;
    c->eval_every = 750;
    c->early_evals = 0;
    c->lr = 3e-3;
    c->weight_decay = 1e-3;
    c->clip = 1.0;
    c->seed = 11;
    c->selection_windows = 20000;
    c->eval_batch = 512;
    c->validate_on_interrupt = 1;
}

void wl_train_result_free(wl_train_result *r)
{
    free(r->trace);
    r->trace = NULL;
    r->ntrace = 0;
}

/* Whether step is one of the early validations: eval_every >> k, k = 1 .. early_evals, above 1. */
static int early_step(const wl_train_config *c, int step)
{
    for (int k = 1; k <= c->early_evals && k < 31; k++)
        if ((c->eval_every >> k) > 1 && step == c->eval_every >> k) return 1;
    return 0;
}

/* Whether step validates: step 1, the early steps, every eval_every and the last step. */
static int validates(const wl_train_config *c, int step)
{
    return step == 1 || step % c->eval_every == 0 || step == c->steps || early_step(c, step);
}

/* Validation passes still to come after step: the early ones, the multiples of every up to steps, and the last step. */
static int evals_after(const wl_train_config *c, int step)
{
    int early = 0;
    for (int k = 1; k <= c->early_evals && k < 31; k++) early += (c->eval_every >> k) > step && (c->eval_every >> k) > 1;
    return early + c->steps / c->eval_every - step / c->eval_every + (c->steps % c->eval_every != 0 && step < c->steps);
}

int wl_train_config_check(const wl_train_config *c, wl_err *err)
{
    if (c->steps < 1) return wl_fail(err, "train: steps must be at least 1, got %d", c->steps);
    if (c->batch_size < 1) return wl_fail(err, "train: batch must be at least 1, got %d", c->batch_size);
    if (c->eval_every < 1) return wl_fail(err, "train: eval_every must be at least 1, got %d", c->eval_every);
    if (c->early_evals < 0) return wl_fail(err, "train: early_evals must be 0 or more, got %d", c->early_evals);
    if (c->eval_batch < 1) return wl_fail(err, "train: eval_batch must be at least 1, got %d", c->eval_batch);
    if (c->selection_windows < 1) return wl_fail(err, "train: selection_windows must be at least 1");
    if (!(c->lr > 0) || !isfinite(c->lr)) return wl_fail(err, "train: lr must be a positive number, got %g", c->lr);
    if (!(c->weight_decay >= 0) || !isfinite(c->weight_decay))
        return wl_fail(err, "train: weight decay must be a non-negative number, got %g", c->weight_decay);
    if (!(c->clip > 0)) return wl_fail(err, "train: clip must be positive, got %g", c->clip);
    return 0;
}

static int check_inputs(const wl_train_config *c, const wl_window_set *train, const wl_window_set *validation,
                        wl_err *err)
{
    if (wl_train_config_check(c, err) < 0) return -1;
    if (!train || train->n == 0) return wl_fail(err, "train: there are no training windows");
    if (!validation || validation->n == 0) return wl_fail(err, "train: there are no validation windows");
    return 0;
}

/* Records a selection pass in the trace and keeps params [n] in best when vloss is the lowest so far. */
static void select_step(wl_train_result *res, int step, int B, double loss, double vloss, double *best_loss,
                        float *best, const float *params, size_t n)
{
    res->trace[res->ntrace++] = (wl_trace_row){step, (long)step * B, loss, vloss};
    if (vloss < *best_loss) {
        *best_loss = vloss;
        res->selected_step = step;
        memcpy(best, params, n * sizeof(float));
    }
}

int wl_train(wl_model *m, const wl_train_config *cfg, const wl_window_set *train,
             const wl_window_set *validation, const wl_window_set *test,
             wl_train_progress_fn progress, void *ud, volatile sig_atomic_t *interrupt,
             wl_train_result *res, wl_err *err)
{
    memset(res, 0, sizeof *res);
    res->nparams = m->nparams;
    res->selection_loss = res->validation_loss = res->validation_perplexity = NAN;
    res->test_loss = res->test_perplexity = NAN;
    if (check_inputs(cfg, train, validation, err) < 0) return -1;

    const int B = cfg->batch_size;
    const size_t n = m->nparams;
    int bmax = B > cfg->eval_batch ? B : cfg->eval_batch;
    int cap = cfg->steps / cfg->eval_every + 2 + (cfg->early_evals < 31 ? cfg->early_evals : 31);
    wl_model_ws *ws = wl_model_ws_new(m, bmax);
    float *grads = malloc(n * sizeof(float));
    float *best = malloc(n * sizeof(float));
    int32_t *bctx = malloc((size_t)B * WL_T * sizeof(int32_t));   /* [B,T] */
    int32_t *btgt = malloc((size_t)B * sizeof(int32_t));           /* [B] */
    res->trace = malloc((size_t)cap * sizeof(wl_trace_row));
    wl_adamw opt = {0};
    int rc = -1, restore = 0;
    if (!ws || !grads || !best || !bctx || !btgt || !res->trace) {
        wl_fail(err, "train: out of memory (%zu parameters, batch %d)", n, bmax);
        goto done;
    }
    if (wl_adamw_init(&opt, n, cfg->lr, cfg->weight_decay, err) < 0) goto done;

    wl_rng rng;
    wl_rng_seed(&rng, cfg->seed ^ WL_BATCH_STREAM);
    wl_window_set sel = *validation;
    if (sel.n > cfg->selection_windows) sel.n = cfg->selection_windows;
    double best_loss = INFINITY;
    memcpy(best, m->params, n * sizeof(float));
    restore = 1;   /* from here a failed run leaves the model with best: its weights before the run or its best step */
    double t0 = now_s(), t_eval = 0.0;   /* t_eval: seconds spent in selection passes */
    int n_eval = 0, last_validated = 0;
    double loss = NAN;                   /* the latest step's batch loss */

    for (int step = 1; step <= cfg->steps; step++) {
        if (interrupt && *interrupt) {
            res->interrupted = 1;
            break;
        }
        for (int b = 0; b < B; b++) {
            size_t k = (size_t)wl_rng_below(&rng, train->n);
            memcpy(bctx + (size_t)b * WL_T, train->ctx + k * WL_T, WL_T * sizeof(int32_t));
            btgt[b] = train->tgt[k];
        }
        if (wl_model_loss(m, ws, bctx, btgt, B, &loss, grads, err) < 0) goto done;
        if (!isfinite(loss)) {
            char kept[160];
            if (!res->selected_step)
                snprintf(kept, sizeof kept, "its weights from before this run");
            else
                snprintf(kept, sizeof kept, "the weights of step %d, its best validated one (validation loss %.4g%s)",
                         res->selected_step, best_loss, best_loss > log((double)m->V) ? ", worse than a uniform guess: make a new model" : "");
            wl_fail(err, "train: the batch loss is %s at step %d (the run diverged; try a smaller lr); the model keeps %s",
                    isnan(loss) ? "not a number" : "infinite", step, kept);
            goto done;
        }
        wl_adamw_step(&opt, m->params, grads, wl_clip_factor(grads, n, cfg->clip, NULL));
        res->steps_done = step;

        double vloss = NAN;
        if (validates(cfg, step)) {
            double te = now_s();
            if (wl_evaluate(m, ws, &sel, cfg->eval_batch, interrupt, &vloss, NULL, err) < 0) {
                if (interrupt && *interrupt) {
                    res->interrupted = 1;
                    break;
                }
                goto done;
            }
            t_eval += now_s() - te;
            n_eval++;
            last_validated = step;
            select_step(res, step, B, loss, vloss, &best_loss, best, m->params, n);
        }
        if (progress) {
            double train_s = now_s() - t0 - t_eval;
            wl_train_progress p = {
                .step = step, .steps = cfg->steps, .loss = loss,
                .examples_per_s = train_s > 0 ? (double)step * B / train_s : 0.0,
                .eta_s = train_s / step * (cfg->steps - step) +
                         (n_eval ? t_eval / n_eval * evals_after(cfg, step) : 0.0),
                .validation_loss = vloss,
            };
            progress(ud, &p);
        }
    }
    if (res->interrupted && cfg->validate_on_interrupt && res->steps_done > last_validated) {
        /* The steps since the last validation are not thrown away: the current weights are validated too
         * (a second interrupt skips this pass) and kept when they are the better. */
        int step = res->steps_done;
        double vloss = NAN;
        *interrupt = 0;
        int vrc = wl_evaluate(m, ws, &sel, cfg->eval_batch, interrupt, &vloss, NULL, err);
        *interrupt = 1;
        if (vrc == 0) {
            select_step(res, step, B, loss, vloss, &best_loss, best, m->params, n);
            if (progress) {
                wl_train_progress p = {.step = step, .steps = cfg->steps, .loss = loss, .validation_loss = vloss};
                progress(ud, &p);
            }
        }
    }
    res->runtime_seconds = now_s() - t0;
    memcpy(m->params, best, n * sizeof(float));
    if (res->selected_step > 0) res->selection_loss = best_loss;
    if (res->interrupted && res->selected_step > 0 && sel.n == validation->n) {
        /* the selection passes scored the whole validation split: the kept step's score is its validation loss */
        res->validation_loss = best_loss;
        res->validation_perplexity = exp(best_loss);
    }

    if (!res->interrupted) {
        if (wl_evaluate(m, ws, validation, cfg->eval_batch, interrupt, &res->validation_loss,
                        &res->validation_perplexity, err) < 0 ||
            (test && test->n > 0 &&
             wl_evaluate(m, ws, test, cfg->eval_batch, interrupt, &res->test_loss,
                         &res->test_perplexity, err) < 0)) {
            if (!(interrupt && *interrupt)) goto done;
            res->interrupted = 1;
        }
    }
    rc = 0;
done:
    if (rc < 0 && restore) memcpy(m->params, best, n * sizeof(float));
    wl_adamw_free(&opt);
    wl_model_ws_free(ws);
    free(grads);
    free(best);
    free(bctx);
    free(btgt);
    if (rc < 0) wl_train_result_free(res);
    return rc;
}

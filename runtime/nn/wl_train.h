/* wl_train.h: training (seeded batches, clipping, AdamW, best-checkpoint selection) and evaluation of the course's models.
 *
 * Shapes: N windows, B batch, T context (64). A window set is ctx [N,T] int32 ids and tgt [N] int32 targets. */
#ifndef WL_TRAIN_H
#define WL_TRAIN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "wl_core.h"
#include "wl_model.h"

/* A read-only view of a window set: ctx [n,T], tgt [n]. */
typedef struct wl_window_set {
    const int32_t *ctx;
    const int32_t *tgt;
    size_t n;
} wl_window_set;

/* AdamW as PyTorch implements it (float32 arithmetic, decoupled weight decay applied first):
 *   p *= 1 - lr*wd;  m += (1-b1)(g - m);  v = b2 v + (1-b2) g g;
 *   p -= (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps). */
typedef struct wl_adamw {
    double lr, wd, beta1, beta2, eps;
    long t;          /* steps taken */
    size_t n;        /* number of parameters */
    float *m, *v;    /* [n] first and second moments */
} wl_adamw;

int wl_adamw_init(wl_adamw *o, size_t n, double lr, double wd, wl_err *err);
void wl_adamw_free(wl_adamw *o);
/* One step on params [n] with gradients grads [n] scaled by gscale (the clipping factor; 1 = none). */
void wl_adamw_step(wl_adamw *o, float *params, const float *grads, float gscale);

/* Global-norm clipping: *total = sqrt(sum g^2) (in double); returns the factor to apply to every
 * gradient: 1/(total + 1e-6) * max_norm when that is below 1, else exactly 1. */
float wl_clip_factor(const float *grads, size_t n, double max_norm, double *total);

/* Batch indices come from wl_rng seeded with seed ^ WL_BATCH_STREAM ("batches!" in ASCII), so a run whose model
 * was initialised from the same seed does not reuse the initialisation's draws to pick its batches. */
#define WL_BATCH_STREAM 0x6261746368657321ull

typedef struct wl_train_config {
    int steps;              /* number of optimizer steps */
    int batch_size;         /* windows per step, drawn with replacement */
    int eval_every;         /* validate at step 1, every eval_every steps and at the last step */
    int early_evals;        /* and at eval_every >> k for k = 1 .. early_evals (those above 1): a denser curve early on,
                               where the loss falls fastest and a run stopped early still has points (0: none) */
    double lr, weight_decay;
    double clip;            /* max global gradient norm (1.0) */
    uint64_t seed;          /* batch generator seed (the stream is wl_rng seeded with seed ^ WL_BATCH_STREAM) */
    size_t selection_windows; /* validation windows used for selection (the first 20,000) */
    int eval_batch;         /* batch size of evaluation passes (512) */
    int validate_on_interrupt; /* 1: an interrupted run validates the weights it reached (see wl_train) */
} wl_train_config;

/* The course's defaults: 6,000 steps, batch 512, eval every 750 (no early ones), lr 3e-3, wd 1e-3, clip 1, seed 11,
 * validate_on_interrupt 1. */
void wl_train_config_default(wl_train_config *c);
/* 0 when every field is in range, else -1 and a message naming the field. */
int wl_train_config_check(const wl_train_config *c, wl_err *err);

typedef struct wl_trace_row {
    int step;
    long tokens_seen;          /* step * batch_size */
    double train_batch_loss;   /* loss of that step's batch, before the update */
    double validation_loss;    /* selection-slice loss after the update */
} wl_trace_row;

typedef struct wl_train_progress {
    int step, steps;
    double loss;               /* this step's batch loss */
    double examples_per_s;     /* training windows per second of training time (validation passes excluded) */
    double eta_s;              /* estimated seconds left, the remaining validation passes included */
    double validation_loss;    /* NaN unless this step validated */
} wl_train_progress;

typedef void (*wl_train_progress_fn)(void *ud, const wl_train_progress *p);

typedef struct wl_train_result {
    wl_trace_row *trace;       /* malloc'd, ntrace rows */
    int ntrace;
    int steps_done;
    int selected_step;         /* step of the restored parameters (0: initial parameters) */
    double selection_loss;     /* its selection-slice loss */
    double validation_loss, validation_perplexity;   /* all validation windows (NaN if interrupted) */
    double test_loss, test_perplexity;               /* all test windows (NaN if interrupted or no test set) */
    size_t nparams;
    double runtime_seconds;    /* training and selection validation only */
    int interrupted;
} wl_train_result;

/* Trains m in place and leaves it holding the best parameters. test may be NULL.
 * progress and interrupt may be NULL. Returns 0 (also when interrupted: see res->interrupted) or -1.
 * progress is called after every step. When *interrupt becomes non-zero, training stops before the next step;
 * with cfg->validate_on_interrupt, the weights reached since the last validation are validated as well (with *interrupt set back to 0 during
 * that pass, so that a second interrupt skips it; it is 1 again on return), kept when they are the best, and
 * reported by one more progress call for the same step with its validation_loss. */
int wl_train(wl_model *m, const wl_train_config *cfg, const wl_window_set *train,
             const wl_window_set *validation, const wl_window_set *test,
             wl_train_progress_fn progress, void *ud, volatile sig_atomic_t *interrupt,
             wl_train_result *res, wl_err *err);
void wl_train_result_free(wl_train_result *r);

/* Mean cross-entropy (nats per target) and perplexity over every window of w, in batches of
 * batch (>= 1; 512 is the usual). ws may be NULL (a workspace is made); else it must hold batch.
 * Fails with "interrupted" when *interrupt becomes non-zero. */
int wl_evaluate(const wl_model *m, wl_model_ws *ws, const wl_window_set *w, int batch,
                volatile sig_atomic_t *interrupt, double *loss, double *perplexity, wl_err *err);

#endif

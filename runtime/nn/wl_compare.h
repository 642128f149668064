/* wl_compare.h: the course's comparison protocol (models x seeds), saved after every run to comparison.json and resumable. */
#ifndef WL_COMPARE_H
#define WL_COMPARE_H

#include <signal.h>
#include <stdint.h>

#include "wl_core.h"
#include "wl_corpus.h"
#include "wl_train.h"

#define WL_COMPARE_MAX_MODELS 8
#define WL_COMPARE_MAX_SEEDS 16
/* The most bytes of a comparison.json read back (the protocol's is about 20 KB; its JSON parse takes about 30 times
 * its text). */
#define WL_COMPARE_FILE_MAX ((size_t)16 << 20)

typedef struct wl_compare_model {
    char kind[16];      /* "mlp", "attention" or "multihead" */
    int heads;
    double lr, weight_decay;
} wl_compare_model;

typedef struct wl_compare_config {
    int steps, batch_size, eval_every, eval_batch;
    size_t selection_windows;
    int nmodels;
    wl_compare_model models[WL_COMPARE_MAX_MODELS];
    int nseeds;
    uint64_t seeds[WL_COMPARE_MAX_SEEDS];
    uint64_t checkpoint_seed;   /* the seed whose run of each model is saved as <kind>_seed<N>.npz */
} wl_compare_config;

/* The course's protocol: mlp (lr 1e-3, wd 1e-4), attention and multihead with 4 heads (lr 3e-3, wd 1e-3),
 * seeds 11, 29, 47, 6,000 steps, batch 512, eval every 750, selection on 20,000 windows, checkpoints of seed 11. */
void wl_compare_config_default(wl_compare_config *c);

typedef enum wl_compare_event {
    WL_COMPARE_KEPT,    /* a finished run found in an existing comparison.json */
    WL_COMPARE_START,   /* a run begins */
    WL_COMPARE_STEP,    /* a training step (step is set) */
    WL_COMPARE_DONE     /* a run finished and was saved (result is set) */
} wl_compare_event;

typedef struct wl_compare_progress {
    wl_compare_event event;
    int run, nruns;                    /* 0-based index of the run in protocol order, and the total */
    const char *kind;
    uint64_t seed;
    const wl_train_progress *step;     /* WL_COMPARE_STEP only */
    const wl_train_result *result;     /* WL_COMPARE_DONE only */
} wl_compare_progress;

typedef void (*wl_compare_progress_fn)(void *ud, const wl_compare_progress *p);

typedef struct wl_compare_status {
    int nruns;          /* runs in the protocol */
    int kept;           /* finished runs taken over from an existing comparison.json */
    int done;           /* finished runs now recorded (kept included) */
    int interrupted;
    double seconds;     /* wall time of this call */
} wl_compare_status;

/* comparison.json:
 *   protocol     steps, batch_size, context, eval_every, selection_windows, clip, optimizer, seeds,
 *                checkpoint_seed, models [{kind, heads, learning_rate, weight_decay}], profile, vocab_size
 *   environment  runtime, platform, cpu, cpus_online, blas, blas_threads, compiler, cuda_available
 *   audit        the corpus audit (wl_corpus_audit_json)
 *   runs         {kind: [{seed, kind, heads, train_config {steps, batch_size, learning_rate, weight_decay, seed,
 *                eval_every}, trace [{step, tokens_seen, train_batch_loss, validation_loss}], selected_step,
 *                selection_loss, validation_loss, validation_perplexity, test_loss, test_perplexity,
 *                runtime_seconds, parameters, checkpoint (seed-11 runs only)}]} in seed order, finished runs only
 *   aggregate    {kind: {test_loss, test_perplexity, runtime_seconds: {mean, sample_std (null below 2 runs), n}}}
 * A resumed call requires the same protocol and audit. */

/* Runs the protocol on corpus c, writing into outdir (created if needed): vocab.json, comparison.json
 * (rewritten atomically after every finished run) and <kind>_seed<checkpoint_seed>.npz. When
 * outdir/comparison.json exists with the same protocol, its finished runs are kept and the rest are run; when it does
 * not, a vocab.json or checkpoint of those names already in outdir is refused (it is not a comparison's).
 * An interrupted call returns 0 with status->interrupted set; the unfinished run is redone next time. */
int wl_compare_run(const wl_corpus *c, const char *outdir, const wl_compare_config *cfg,
                   wl_compare_progress_fn progress, void *ud, volatile sig_atomic_t *interrupt,
                   wl_compare_status *status, wl_err *err);

#endif

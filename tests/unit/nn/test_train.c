/* test_train.c: AdamW against hand-computed values, clipping, evaluation, determinism and interrupts of training. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "wl_rng.h"
#include "wl_test.h"
#include "wl_train.h"

/* ---- optimizer ---- */

/* The textbook AdamW in double, written out independently, for several steps. */
static void adamw_reference(double *p, double *m, double *v, const double *g, int t, double lr, double wd)
{
    p[0] *= 1 - lr * wd;
    m[0] = 0.9 * m[0] + 0.1 * g[0];
    v[0] = 0.999 * v[0] + 0.001 * g[0] * g[0];
    double mhat = m[0] / (1 - pow(0.9, t));
    p[0] -= lr * mhat / (sqrt(v[0]) / sqrt(1 - pow(0.999, t)) + 1e-8);
}

static void test_adamw(void)
{
    wl_err err = {{0}};
    wl_adamw o;
    const double lr = 0.01, wd = 0.1;
    CHECK(wl_adamw_init(&o, 4, lr, wd, &err) == 0);
    float p[4] = {1.0f, -2.0f, 0.5f, 0.0f};
    float g[4] = {0.5f, -0.25f, 0.0f, 3.0f};

    /* Step 1 by hand: m = 0.1 g, v = 0.001 g^2, so m/(1-0.9) = g and sqrt(v/(1-0.999)) = |g|:
     * p <- p (1 - lr wd) - lr g / (|g| + eps), i.e. a step of lr against the sign of g. */
    wl_adamw_step(&o, p, g, 1.0f);
    CHECK(fabsf(p[0] - (1.0f * 0.999f - 0.01f)) < 1e-6f);
    CHECK(fabsf(p[1] - (-2.0f * 0.999f + 0.01f)) < 1e-6f);
    CHECK(p[2] == 0.5f * 0.999f);   /* zero gradient: only the decay */
    CHECK(fabsf(p[3] - (-0.01f)) < 1e-6f);
    CHECK(fabsf(o.m[0] - 0.05f) < 1e-8f && fabsf(o.v[0] - 0.00025f) < 1e-9f);

    /* Steps 2..6 against the double reference, with a clipping factor applied to the gradients. */
    double rp[4], rm[4], rv[4];
    for (int i = 0; i < 4; i++) {
        rp[i] = p[i];
        rm[i] = o.m[i];
        rv[i] = o.v[i];
    }
    for (int t = 2; t <= 6; t++) {
        float gs[4] = {0.3f * t, -0.7f, 1.5f / t, -0.01f * t};
        float scale = 0.5f;
        wl_adamw_step(&o, p, gs, scale);
        for (int i = 0; i < 4; i++) {
            double gi = (double)(gs[i] * scale);
            adamw_reference(&rp[i], &rm[i], &rv[i], &gi, t, lr, wd);
        }
    }
    CHECK(o.t == 6);
    for (int i = 0; i < 4; i++) CHECK_MSG(fabs(p[i] - rp[i]) < 2e-6, "param %d: %.9g vs reference %.9g", i, p[i], rp[i]);
    wl_adamw_free(&o);
}

static void test_clip(void)
{
    double total;
    float g[2] = {3.0f, 4.0f};
    float f = wl_clip_factor(g, 2, 1.0, &total);
    CHECK(total == 5.0);
    CHECK(f == (float)(1.0 / (5.0 + 1e-6)));

    float small[3] = {0.3f, 0.4f, 0.0f};
    f = wl_clip_factor(small, 3, 1.0, &total);
    CHECK(fabs(total - 0.5) < 1e-7);
    CHECK(f == 1.0f);

    /* Exactly at the threshold the factor stays just below 1 because of the 1e-6. */
    float one[1] = {1.0f};
    CHECK(wl_clip_factor(one, 1, 1.0, NULL) < 1.0f);

    /* A long vector: total equals the double sum computed plainly. */
    size_t n = 100003;
    float *big = malloc(n * sizeof(float));
    double ref = 0;
    for (size_t i = 0; i < n; i++) {
        big[i] = (float)((double)(i % 17) - 8.0) * 1e-3f;
        ref += (double)big[i] * big[i];
    }
    wl_clip_factor(big, n, 1.0, &total);
    CHECK(fabs(total - sqrt(ref)) < 1e-12);
    free(big);
}

/* ---- training on a tiny learnable task ---- */

enum { V = 40 };

typedef struct data {
    int32_t *ctx, *tgt;
    size_t n;
} data;

/* Contexts of random real ids with a random amount of left padding; target = (last id * 7) mod the real ids. */
static void make_data(data *d, size_t n, uint64_t seed)
{
    wl_rng r;
    wl_rng_seed(&r, seed);
    d->n = n;
    d->ctx = calloc(n * WL_T, sizeof(int32_t));
    d->tgt = malloc(n * sizeof(int32_t));
    for (size_t i = 0; i < n; i++) {
        int real = 1 + (int)wl_rng_below(&r, WL_T);
        for (int t = WL_T - real; t < WL_T; t++) d->ctx[i * WL_T + t] = 4 + (int32_t)wl_rng_below(&r, V - 4);
        d->ctx[i * WL_T + WL_T - real] = WL_BOS;
        int last = d->ctx[i * WL_T + WL_T - 1];
        d->tgt[i] = 4 + (last * 7) % (V - 4);
    }
}

static void free_data(data *d)
{
    free(d->ctx);
    free(d->tgt);
}

static wl_window_set view(const data *d)
{
    return (wl_window_set){d->ctx, d->tgt, d->n};
}

/* The training and validation data every training test uses: 300 and 60 windows from seeds 1 and 2. */
static void make_train_validation(data *tr, data *va)
{
    make_data(tr, 300, 1);
    make_data(va, 60, 2);
}

static wl_train_config tiny_config(void)
{
    wl_train_config c;
    wl_train_config_default(&c);
    c.steps = 12;
    c.batch_size = 16;
    c.eval_every = 5;
    c.lr = 3e-3;
    c.weight_decay = 1e-3;
    c.seed = 5;
    c.selection_windows = 40;
    c.eval_batch = 32;
    return c;
}

typedef struct watch {
    int calls;
    int stop_at;                   /* set the interrupt flag after this step (0: never) */
    volatile sig_atomic_t *flag;
    int bad;                       /* progress fields out of range */
    int last_step;                 /* the step and validation loss of the latest call */
    double last_validation;
} watch;

static void on_progress(void *ud, const wl_train_progress *p)
{
    watch *w = ud;
    w->calls++;
    int again = p->step == w->last_step && !isnan(p->validation_loss);   /* the validation after an interrupt */
    if ((p->step != w->calls && !again) || p->steps < p->step || !(p->examples_per_s >= 0) || !(p->eta_s >= 0) ||
        !isfinite(p->loss) || (p->step == p->steps && p->eta_s != 0.0))
        w->bad = 1;
    w->last_step = p->step;
    w->last_validation = p->validation_loss;
    if (w->stop_at && p->step == w->stop_at && !again) *w->flag = 1;
}

/* The selected step is the trace's lowest validation loss. */
static void check_selected(const wl_train_result *r)
{
    int arg = 0;
    for (int i = 1; i < r->ntrace; i++)
        if (r->trace[i].validation_loss < r->trace[arg].validation_loss) arg = i;
    CHECK(r->selected_step == r->trace[arg].step);
}

static void test_train_runs(const char *kind, int heads)
{
    wl_err err = {{0}};
    data tr, va, te;
    make_train_validation(&tr, &va);
    make_data(&te, 50, 3);
    wl_window_set trv = view(&tr), vav = view(&va), tev = view(&te);
    wl_train_config c = tiny_config();

    wl_model a, b;
    CHECK(wl_model_init(&a, kind, V, heads, 7, &err) == 0);
    CHECK(wl_model_init(&b, kind, V, heads, 7, &err) == 0);
    wl_train_result ra, rb;
    watch w = {0};
    int rc = wl_train(&a, &c, &trv, &vav, &tev, on_progress, &w, NULL, &ra, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    CHECK(w.calls == c.steps && !w.bad);
    CHECK(wl_train(&b, &c, &trv, &vav, &tev, NULL, NULL, NULL, &rb, &err) == 0);

    /* Same seed, same thread count: bit-identical parameters and trace. */
    CHECK_MSG(memcmp(a.params, b.params, a.nparams * sizeof(float)) == 0, "%s: two identical runs differ", kind);
    CHECK(ra.ntrace == rb.ntrace && ra.selected_step == rb.selected_step && ra.test_loss == rb.test_loss);

    /* Trace rows at step 1, every eval_every and the last step. */
    int want[] = {1, 5, 10, 12};
    CHECK(ra.ntrace == 4);
    for (int i = 0; i < 4 && i < ra.ntrace; i++) {
        CHECK(ra.trace[i].step == want[i]);
        CHECK(ra.trace[i].tokens_seen == (long)want[i] * c.batch_size);
        CHECK(isfinite(ra.trace[i].train_batch_loss) && isfinite(ra.trace[i].validation_loss));
    }
    /* The selected step is the trace's lowest validation loss, and the model holds those parameters. */
    check_selected(&ra);
    wl_window_set sel = vav;
    sel.n = c.selection_windows;
    double l, ppl;
    CHECK(wl_evaluate(&a, NULL, &sel, c.eval_batch, NULL, &l, &ppl, &err) == 0);
    CHECK_MSG(l == ra.selection_loss, "restored parameters give %.9g, selection %.9g", l, ra.selection_loss);
    CHECK(ra.trace[ra.ntrace - 1].validation_loss < ra.trace[0].validation_loss);

    /* Full validation and test scores are the evaluation of the restored model. */
    CHECK(wl_evaluate(&a, NULL, &vav, 7, NULL, &l, &ppl, &err) == 0);
    CHECK(fabs(l - ra.validation_loss) < 1e-6 && fabs(ppl - exp(l)) < 1e-9 * ppl);
    CHECK(fabs(ra.validation_perplexity - exp(ra.validation_loss)) < 1e-9 * ra.validation_perplexity);
    CHECK(wl_evaluate(&a, NULL, &tev, 512, NULL, &l, NULL, &err) == 0);
    CHECK(fabs(l - ra.test_loss) < 1e-6);
    CHECK(ra.nparams == a.nparams && ra.runtime_seconds > 0 && !ra.interrupted && ra.steps_done == c.steps);

    /* A different batch seed gives a different run. */
    wl_model d;
    wl_train_result rd;
    CHECK(wl_model_init(&d, kind, V, heads, 7, &err) == 0);
    c.seed = 6;
    CHECK(wl_train(&d, &c, &trv, &vav, &tev, NULL, NULL, NULL, &rd, &err) == 0);
    CHECK(memcmp(a.params, d.params, a.nparams * sizeof(float)) != 0);
    wl_train_result_free(&rd);
    wl_model_free(&d);

    wl_train_result_free(&ra);
    wl_train_result_free(&rb);
    wl_model_free(&a);
    wl_model_free(&b);
    free_data(&tr);
    free_data(&va);
    free_data(&te);
}

/* Interrupting stops at the next step, validates the weights reached and keeps the best parameters of every
 * validation. */
static void test_interrupt(void)
{
    wl_err err = {{0}};
    data tr, va;
    make_train_validation(&tr, &va);
    wl_window_set trv = view(&tr), vav = view(&va);
    wl_train_config c = tiny_config();
    c.eval_every = 2;

    volatile sig_atomic_t flag = 0;
    watch w = {.stop_at = 7, .flag = &flag};
    wl_model m, full;
    wl_train_result r, rf;
    CHECK(wl_model_init(&m, "mlp", V, 1, 3, &err) == 0);
    CHECK(wl_train(&m, &c, &trv, &vav, NULL, on_progress, &w, &flag, &r, &err) == 0);
    CHECK(r.interrupted == 1 && flag == 1 && !w.bad);
    CHECK(r.steps_done == 7 && w.calls == 8);   /* seven steps, then the validation of step 7 */
    /* the trace: steps 1, 2, 4, 6 and 7, where it stopped */
    CHECK(r.ntrace == 5 && r.trace[4].step == 7 && w.last_step == 7 && w.last_validation == r.trace[4].validation_loss);
    CHECK(isnan(r.test_loss) && isnan(r.validation_loss));
    check_selected(&r);
    wl_window_set sel = vav;
    sel.n = c.selection_windows;
    double l;
    CHECK(wl_evaluate(&m, NULL, &sel, 13, NULL, &l, NULL, &err) == 0);
    CHECK(fabs(l - r.selection_loss) < 1e-6);

    /* The interrupted run matches an uninterrupted run of the same seed that ends where it stopped. */
    c.steps = 7;
    CHECK(wl_model_init(&full, "mlp", V, 1, 3, &err) == 0);
    CHECK(wl_train(&full, &c, &trv, &vav, NULL, NULL, NULL, NULL, &rf, &err) == 0);
    CHECK(rf.selected_step == r.selected_step && rf.ntrace == r.ntrace);
    CHECK(memcmp(full.params, m.params, m.nparams * sizeof(float)) == 0);

    /* A flag already set: nothing is trained, the initial parameters stay. */
    wl_model z, z0;
    wl_train_result rz;
    CHECK(wl_model_init(&z, "mlp", V, 1, 3, &err) == 0);
    CHECK(wl_model_init(&z0, "mlp", V, 1, 3, &err) == 0);
    flag = 1;
    CHECK(wl_train(&z, &c, &trv, &vav, NULL, NULL, NULL, &flag, &rz, &err) == 0);
    CHECK(rz.interrupted && rz.steps_done == 0 && rz.selected_step == 0 && rz.ntrace == 0);
    CHECK(memcmp(z.params, z0.params, z.nparams * sizeof(float)) == 0);

    /* An interrupted evaluation fails with a message that says so. */
    CHECK(wl_evaluate(&z, NULL, &vav, 8, &flag, &l, NULL, &err) == -1);
    CHECK(strstr(err.msg, "interrupted") != NULL);

    wl_train_result_free(&rf);
    wl_train_result_free(&rz);
    wl_model_free(&full);
    wl_model_free(&z);
    wl_model_free(&z0);
    wl_train_result_free(&r);
    wl_model_free(&m);

    /* Stopped long before the second validation: the steps trained are kept, not the weights of step 1. */
    c = tiny_config();
    c.steps = 1000;
    c.eval_every = 500;
    c.lr = 1e-2;
    flag = 0;
    w = (watch){.stop_at = 40, .flag = &flag};
    CHECK(wl_model_init(&m, "attention", V, 1, 3, &err) == 0);
    CHECK(wl_train(&m, &c, &trv, &vav, NULL, on_progress, &w, &flag, &r, &err) == 0);
    CHECK(r.interrupted && r.steps_done == 40 && r.ntrace == 2 && !w.bad);
    CHECK_MSG(r.selected_step == 40, "kept step %d", r.selected_step);
    CHECK(r.ntrace == 2 && r.trace[1].step == 40 && r.trace[1].tokens_seen == 40L * c.batch_size &&
          r.selection_loss == r.trace[1].validation_loss && r.selection_loss < r.trace[0].validation_loss - 0.1);
    CHECK(wl_evaluate(&m, NULL, &sel, c.eval_batch, NULL, &l, NULL, &err) == 0 && l == r.selection_loss);
    CHECK(isnan(r.validation_loss));   /* the selection windows are a part of the validation split: not its loss */
    wl_train_result_free(&r);
    wl_model_free(&m);

    /* Selection over the whole validation split: the kept step's score is the validation loss (and perplexity). */
    c.selection_windows = vav.n;
    flag = 0;
    w = (watch){.stop_at = 40, .flag = &flag};
    CHECK(wl_model_init(&m, "attention", V, 1, 3, &err) == 0);
    CHECK(wl_train(&m, &c, &trv, &vav, NULL, on_progress, &w, &flag, &r, &err) == 0);
    CHECK(wl_evaluate(&m, NULL, &vav, c.eval_batch, NULL, &l, NULL, &err) == 0);
    CHECK_MSG(r.interrupted && r.validation_loss == r.selection_loss && l == r.validation_loss &&
              fabs(r.validation_perplexity - exp(l)) < 1e-9 && isnan(r.test_loss), "validation %g, selection %g, evaluated %g",
              r.validation_loss, r.selection_loss, l);
    wl_train_result_free(&r);
    wl_model_free(&m);
    c.selection_windows = tiny_config().selection_windows;

    /* Without validate_on_interrupt (a comparison redoes an interrupted run) the best validation so far stays. */
    c.validate_on_interrupt = 0;
    flag = 0;
    w = (watch){.stop_at = 40, .flag = &flag};
    CHECK(wl_model_init(&m, "attention", V, 1, 3, &err) == 0);
    CHECK(wl_train(&m, &c, &trv, &vav, NULL, on_progress, &w, &flag, &r, &err) == 0);
    CHECK(r.interrupted && r.steps_done == 40 && r.ntrace == 1 && r.selected_step == 1 && w.calls == 40);
    wl_train_result_free(&r);
    wl_model_free(&m);
    free_data(&tr);
    free_data(&va);
}

static void test_bad_config(void)
{
    wl_err err = {{0}};
    data tr;
    make_data(&tr, 20, 1);
    wl_window_set trv = view(&tr), empty = {tr.ctx, tr.tgt, 0};
    wl_model m;
    wl_train_result r;
    CHECK(wl_model_init(&m, "mlp", V, 1, 3, &err) == 0);
    wl_train_config c = tiny_config();
    c.steps = 0;
    CHECK(wl_train(&m, &c, &trv, &trv, NULL, NULL, NULL, NULL, &r, &err) == -1 && strstr(err.msg, "steps"));
    c = tiny_config();
    c.lr = -1;
    CHECK(wl_train(&m, &c, &trv, &trv, NULL, NULL, NULL, NULL, &r, &err) == -1 && strstr(err.msg, "lr"));
    c = tiny_config();
    CHECK(wl_train(&m, &c, &trv, &empty, NULL, NULL, NULL, NULL, &r, &err) == -1 && strstr(err.msg, "validation"));
    CHECK(wl_evaluate(&m, NULL, &empty, 8, NULL, NULL, NULL, &err) == -1 && strstr(err.msg, "empty"));

    /* An id outside the vocabulary in the data: the model's error comes back, nothing leaks. */
    tr.ctx[5 * WL_T + WL_T - 1] = V + 3;
    c = tiny_config();
    c.batch_size = 64;   /* a batch draws window 5 almost surely; step 1 validates on it anyway */
    err.msg[0] = 0;
    CHECK(wl_train(&m, &c, &trv, &trv, NULL, NULL, NULL, NULL, &r, &err) == -1 && err.msg[0]);
    CHECK(wl_evaluate(&m, NULL, &trv, 8, NULL, NULL, NULL, &err) == -1 && err.msg[0]);
    wl_model_free(&m);
    free_data(&tr);
}

/* early_evals adds eval_every/2, /4, /8 (those above 1) to step 1, every eval_every and the last step; the time left
 * counts them, and is 0 at the last step. */
static void test_early_schedule(void)
{
    wl_err err = {{0}};
    data tr, va;
    make_train_validation(&tr, &va);
    wl_window_set trv = view(&tr), vav = view(&va);
    wl_train_config c = tiny_config();
    c.steps = 45;
    c.eval_every = 20;
    c.early_evals = 3;
    wl_model m;
    CHECK(wl_model_init(&m, "attention", V, 1, 7, &err) == 0);
    wl_train_result r;
    watch w = {0};
    CHECK_MSG(wl_train(&m, &c, &trv, &vav, NULL, on_progress, &w, NULL, &r, &err) == 0, "%s", err.msg);
    CHECK(w.calls == c.steps && !w.bad);
    int want[] = {1, 2, 5, 10, 20, 40, 45};
    CHECK_MSG(r.ntrace == 7, "%d validations", r.ntrace);
    for (int i = 0; i < 7 && i < r.ntrace; i++) CHECK_MSG(r.trace[i].step == want[i], "validation %d at step %d", i, r.trace[i].step);
    wl_train_result_free(&r);
    c.early_evals = 0;   /* the course's schedule */
    CHECK(wl_train(&m, &c, &trv, &vav, NULL, NULL, NULL, NULL, &r, &err) == 0);
    CHECK(r.ntrace == 4 && r.trace[1].step == 20);
    wl_train_result_free(&r);
    c.early_evals = -1;
    CHECK(wl_train(&m, &c, &trv, &vav, NULL, NULL, NULL, NULL, &r, &err) == -1 && strstr(err.msg, "early_evals"));
    wl_model_free(&m);
    free_data(&tr);
    free_data(&va);
}

/* A run that diverges fails with a message that says so and leaves the model finite, with the weights of its best
 * validated step (step 1 is always validated) and what that step scored. */
static void test_diverge(void)
{
    wl_err err = {{0}};
    data tr, va;
    make_train_validation(&tr, &va);
    wl_window_set trv = view(&tr), vav = view(&va);
    wl_train_config c = tiny_config();
    c.lr = 1e30;
    wl_model m;
    wl_train_result r;
    CHECK(wl_model_init(&m, "attention", V, 1, 3, &err) == 0);
    CHECK(wl_train(&m, &c, &trv, &vav, NULL, NULL, NULL, NULL, &r, &err) == -1);
    CHECK_MSG(strstr(err.msg, "the run diverged") && strstr(err.msg, "keeps the weights of step 1, its best validated one") &&
              strstr(err.msg, "worse than a uniform guess"), "%s", err.msg);
    size_t bad = 0;
    for (size_t i = 0; i < m.nparams; i++) bad += !isfinite(m.params[i]);
    CHECK_MSG(bad == 0, "%zu parameters are not finite after a diverged run", bad);
    wl_model_free(&m);
    free_data(&tr);
    free_data(&va);
}

void wl_test_main(void)
{
    test_early_schedule();
    test_adamw();
    test_clip();
    test_train_runs("mlp", 1);
    test_train_runs("attention", 1);
    test_train_runs("multihead", 4);
    test_interrupt();
    test_diverge();
    test_bad_config();
}

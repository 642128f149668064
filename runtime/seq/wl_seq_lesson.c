/* wl_seq_lesson.c: the sequence lesson end to end: options, the trainings (in parallel) and their measures. */
#include "wl_seq.h"
#include "wl_buf.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

void wl_seq_opts_default(wl_seq_opts *o)
{
    *o = (wl_seq_opts){.seed = 20260218, .n = 720, .ntrain = 200, .ntest = 180, .heads = {1, 2, 4}, .nheads = 3,
                       .runs = 2, .order_heads = 2, .threads = 2};
    wl_seq_train_opts_default(&o->train);
}

static int heads_ok(int H)
{
    return H == 1 || H == 2 || H == 4;
}

static int opts_check(const wl_seq_opts *o, wl_err *err)
{
    if (o->n < 1 || o->n > 10000000)
        return wl_fail(err, "sequence lesson: the number of sequences must be in 1..10000000, got %d", o->n);
    if (o->ntrain < 1 || o->ntest < 1 || o->ntrain > o->n - o->ntest)
        return wl_fail(err, "sequence lesson: %d training and %d held-out sequences do not fit, without overlap, "
                       "in %d sequences", o->ntrain, o->ntest, o->n);
    if (o->train.epochs < 0 || o->train.epochs > 1000000)
        return wl_fail(err, "sequence lesson: epochs must be in 0..1000000, got %d", o->train.epochs);
    if (!isfinite(o->train.lr) || !isfinite(o->train.momentum))
        return wl_fail(err, "sequence lesson: the learning rate and momentum must be finite numbers");
    if (o->nheads < 1 || o->nheads > WL_SEQ_MAX_HEADS_LIST)
        return wl_fail(err, "sequence lesson: between 1 and %d head counts are compared, got %d",
                       WL_SEQ_MAX_HEADS_LIST, o->nheads);
    for (int i = 0; i < o->nheads; i++)
        if (!heads_ok(o->heads[i]))
            return wl_fail(err, "sequence lesson: %d heads do not divide the inner width %d (use 1, 2 or 4)",
                           o->heads[i], WL_SEQ_D);
    if (!heads_ok(o->order_heads))
        return wl_fail(err, "sequence lesson: the order test's %d heads do not divide the inner width %d "
                       "(use 1, 2 or 4)", o->order_heads, WL_SEQ_D);
    if (o->runs < 1 || o->runs > WL_SEQ_MAX_RUNS)
        return wl_fail(err, "sequence lesson: runs must be in 1..%d, got %d", WL_SEQ_MAX_RUNS, o->runs);
    if (o->threads < 1 || o->threads > 64)
        return wl_fail(err, "sequence lesson: threads must be in 1..64, got %d", o->threads);
    return 0;
}

/* One training: its net goes into *out, measured on the held-out set. */
typedef struct job {
    wl_seq_run *out;
    const wl_seq_set *tr, *te;
    int64_t seed;
    int failed;
    wl_err err;
} job;

typedef struct pool {
    job *jobs;
    int njobs;
    atomic_int next;
    const wl_seq_opts *o;
    volatile sig_atomic_t *interrupt;
} pool;

static void run_job(pool *pl, job *j)
{
    wl_seq_run *r = j->out;
    if (wl_seq_train(&r->net, j->tr, j->seed, r->H, &pl->o->train, pl->interrupt, &j->err)) {
        j->failed = 1;
        return;
    }
    r->acc = wl_seq_accuracy(&r->net, j->te);
    for (int h = 0; h < r->H; h++) r->center[h] = wl_seq_center(&r->net, j->te, h);
    r->separation = wl_seq_separation(&r->net, j->te);
}

static void *worker(void *arg)
{
    pool *pl = arg;
    for (;;) {
        int k = atomic_fetch_add(&pl->next, 1);
        if (k >= pl->njobs) return NULL;
        run_job(pl, &pl->jobs[k]);
    }
}

/* Costs grow with the number of heads: the biggest trainings are handed out first. */
static int by_cost_desc(const void *a, const void *b)
{
    return ((const job *)b)->out->H - ((const job *)a)->out->H;
}

static int run_pool(job *jobs, int njobs, const wl_seq_opts *o, volatile sig_atomic_t *interrupt, wl_err *err)
{
    qsort(jobs, (size_t)njobs, sizeof *jobs, by_cost_desc);
    pool pl = {.jobs = jobs, .njobs = njobs, .o = o, .interrupt = interrupt};
    atomic_init(&pl.next, 0);
    int nthreads = o->threads < njobs ? o->threads : njobs;
    pthread_t tid[64];
    int started = 0;
    for (; started < nthreads - 1; started++)
        if (pthread_create(&tid[started], NULL, worker, &pl) != 0) break;
    worker(&pl);   /* this thread works too; if no thread could start it does everything */
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    for (int k = 0; k < njobs; k++)
        if (jobs[k].failed) return wl_fail(err, "%s", jobs[k].err.msg);
    return 0;
}

static void summarise(wl_seq_summary *s, const wl_seq_data *d, const wl_seq_opts *o)
{
    int train_pos = 0, test_pos = 0;
    for (int i = 0; i < o->ntrain; i++) train_pos += d->y[i];
    for (int i = d->n - o->ntest; i < d->n; i++) test_pos += d->y[i];
    s->n = d->n;
    s->ntrain = o->ntrain;
    s->ntest = o->ntest;
    s->train_rate = (double)train_pos / o->ntrain;
    s->test_rate = (double)test_pos / o->ntest;
    s->baseline = 1 - s->test_rate > s->test_rate ? 1 - s->test_rate : s->test_rate;
    memcpy(s->example, d->reading[0], sizeof s->example);
}

int wl_seq_lesson_run(wl_seq_lesson *l, const wl_seq_opts *o, unsigned parts,
                      volatile sig_atomic_t *interrupt, wl_err *err)
{
    memset(l, 0, sizeof *l);
    if (opts_check(o, err)) return -1;
    l->opts = *o;
    l->parts = parts & WL_SEQ_PART_ALL;
    wl_seq_data data;
    if (wl_seq_data_build(&data, o->seed, o->n, err)) return -1;
    summarise(&l->summary, &data, o);
    if (!l->parts) {
        wl_seq_data_free(&data);
        return 0;
    }

    int rc = -1, runs = o->runs, njobs = 0;
    int want_order = (l->parts & WL_SEQ_PART_ORDER) != 0, want_heads = (l->parts & WL_SEQ_PART_HEADS) != 0;
    /* The order test reuses the head table's nets when it has them. */
    int order_in_heads = -1;
    for (int i = 0; want_heads && i < o->nheads; i++)
        if (o->heads[i] == o->order_heads) order_in_heads = i;
    wl_seq_set sets[4] = {{0}};   /* training and held-out, with and without positions */
    /* Bookkeeping: at most (8 + 2) * 64 jobs and runs. */
    job *jobs = wl_xcalloc((size_t)(o->nheads + 2) * runs, sizeof *jobs);
    if (want_heads) l->heads = wl_xcalloc((size_t)o->nheads * runs, sizeof *l->heads);
    if (want_order) {
        l->order_pos = wl_xcalloc((size_t)runs, sizeof *l->order_pos);
        l->order_nopos = wl_xcalloc((size_t)runs, sizeof *l->order_nopos);
    }
    int test_from = o->n - o->ntest;
    if (wl_seq_set_build(&sets[0], &data, 0, o->ntrain, 1, err) ||
        wl_seq_set_build(&sets[1], &data, test_from, o->ntest, 1, err))
        goto done;
    if (want_order && (wl_seq_set_build(&sets[2], &data, 0, o->ntrain, 0, err) ||
                       wl_seq_set_build(&sets[3], &data, test_from, o->ntest, 0, err)))
        goto done;

    for (int k = 0; k < runs; k++) {
        for (int i = 0; want_heads && i < o->nheads; i++) {
            wl_seq_run *r = &l->heads[i * runs + k];
            *r = (wl_seq_run){.H = o->heads[i], .run = k + 1, .positions = 1};
            jobs[njobs++] = (job){.out = r, .tr = &sets[0], .te = &sets[1], .seed = o->seed + k + 1};
        }
        if (want_order) {
            l->order_pos[k] = (wl_seq_run){.H = o->order_heads, .run = k + 1, .positions = 1};
            l->order_nopos[k] = (wl_seq_run){.H = o->order_heads, .run = k + 1, .positions = 0};
            if (order_in_heads < 0)
                jobs[njobs++] = (job){.out = &l->order_pos[k], .tr = &sets[0], .te = &sets[1], .seed = o->seed + k + 1};
            jobs[njobs++] = (job){.out = &l->order_nopos[k], .tr = &sets[2], .te = &sets[3], .seed = o->seed + k + 1};
        }
    }
    if (run_pool(jobs, njobs, o, interrupt, err)) goto done;

    if (want_order) {
        if (order_in_heads >= 0)
            memcpy(l->order_pos, &l->heads[order_in_heads * runs], (size_t)runs * sizeof *l->order_pos);
        wl_seq_order_test(&l->order_pos[runs - 1].net, &sets[1], o->seed + 4000, &l->order_mean[0], &l->order_max[0]);
        wl_seq_order_test(&l->order_nopos[runs - 1].net, &sets[3], o->seed + 4000, &l->order_mean[1],
                          &l->order_max[1]);
    }
    rc = 0;
done:
    for (int s = 0; s < 4; s++) wl_seq_set_free(&sets[s]);
    free(jobs);
    wl_seq_data_free(&data);
    if (rc) wl_seq_lesson_free(l);
    return rc;
}

void wl_seq_lesson_free(wl_seq_lesson *l)
{
    free(l->heads);
    free(l->order_pos);
    free(l->order_nopos);
    memset(l, 0, sizeof *l);
}

/* wl_pool.c: a fixed set of threads that run one parallel body at a time: part 0 on the caller, parts 1.. on the workers. */
#include "wl_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

/* How long a waiting thread polls before it sleeps on a condition variable: longer than the gaps between the
 * bodies of one training step, so that they start and end without a wake-up (tens of microseconds in a VM). */
#define WL_POOL_SPIN_NS 50000

typedef struct pool_worker {
    wl_pool *p;
    int index;
} pool_worker;

/* generation, pending and quit change only under mu (so that a sleeper cannot miss a change) and are read
 * without it while polling. */
struct wl_pool {
    int nthreads, nworkers;
    pthread_t threads[WL_POOL_MAX_THREADS];
    pool_worker workers[WL_POOL_MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    atomic_uint generation;
    atomic_int pending, quit;
    void (*body)(void *arg, int part, int nparts);
    void *arg;
    int nparts;
};

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Polls for up to WL_POOL_SPIN_NS while the generation is seen and the pool runs (worker) or while parts are
 * pending (caller, seen == NULL). */
static void pool_poll(wl_pool *p, const unsigned *seen)
{
    long long until = 0;
    for (int i = 0;; i++) {
        if (seen ? atomic_load(&p->generation) != *seen || atomic_load(&p->quit) : atomic_load(&p->pending) == 0)
            return;
        if ((i & 63) == 0) {
            long long t = now_ns();
            if (!until) until = t + WL_POOL_SPIN_NS;
            else if (t > until) return;
        }
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

static void *pool_main(void *arg)
{
    pool_worker *w = arg;
    wl_pool *p = w->p;
    unsigned seen = 0;
    for (;;) {
        pool_poll(p, &seen);
        pthread_mutex_lock(&p->mu);
        while (p->generation == seen && !p->quit) pthread_cond_wait(&p->go, &p->mu);
        if (p->quit) break;
        seen = p->generation;
        void (*body)(void *, int, int) = p->body;
        void *arg2 = p->arg;
        int nparts = p->nparts;
        pthread_mutex_unlock(&p->mu);
        if (w->index < nparts) body(arg2, w->index, nparts);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0) pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

wl_pool *wl_pool_new(int nthreads)
{
    wl_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->nthreads = nthreads < 1 ? 1 : nthreads > WL_POOL_MAX_THREADS ? WL_POOL_MAX_THREADS : nthreads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    for (int i = 1; i < p->nthreads; i++) {
        p->workers[i] = (pool_worker){p, i};
        if (pthread_create(&p->threads[i], NULL, pool_main, &p->workers[i]) != 0) break;
        p->nworkers = i;
    }
    p->nthreads = p->nworkers + 1;
    return p;
}

void wl_pool_free(wl_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i <= p->nworkers; i++) pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    free(p);
}

int wl_pool_threads(const wl_pool *p)
{
    return p->nthreads;
}

void wl_pool_run(wl_pool *p, void (*body)(void *, int, int), void *arg, int nparts)
{
    if (nparts > p->nthreads) nparts = p->nthreads;
    if (nparts <= 1) {
        body(arg, 0, 1);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->body = body;
    p->arg = arg;
    p->nparts = nparts;
    p->pending = p->nworkers;
    p->generation++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    body(arg, 0, nparts);
    pool_poll(p, NULL);
    pthread_mutex_lock(&p->mu);
    while (p->pending > 0) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

static void pool_par_run(void *ctx, void (*body)(void *, int, int), void *arg)
{
    wl_pool *p = ctx;
    wl_pool_run(p, body, arg, p->nthreads);
}

wl_par wl_pool_par(wl_pool *p)
{
    wl_par par = {p, p->nthreads, pool_par_run};
    return par;
}

void wl_pool_split(int n, int part, int nparts, int *i0, int *i1)
{
    *i0 = (int)((long)n * part / nparts);
    *i1 = (int)((long)n * (part + 1) / nparts);
}

/* wl_pool.h: a fixed set of threads that run one parallel body at a time, and wl_par, the parallel-for it offers. */
#ifndef WL_POOL_H
#define WL_POOL_H

/* The most threads a pool runs (the caller's own included). */
#define WL_POOL_MAX_THREADS 16

/* A parallel-for supplied by the caller: runs body(arg, part, nparts) for part = 0..nparts-1 on its threads and
 * returns when all are done. A NULL wl_par runs everything on the calling thread. */
typedef struct wl_par {
    void *ctx;
    int nparts;
    void (*run)(void *ctx, void (*body)(void *arg, int part, int nparts), void *arg);
} wl_par;

typedef struct wl_pool wl_pool;

/* A pool of nthreads (clamped to 1..WL_POOL_MAX_THREADS): the caller and nthreads - 1 workers, fewer if the system
 * refuses to start them. Returns NULL when memory runs out. A pool serves one caller at a time. */
wl_pool *wl_pool_new(int nthreads);
void wl_pool_free(wl_pool *p);
/* The threads it has, the caller's included (>= 1). */
int wl_pool_threads(const wl_pool *p);
/* Runs body(arg, part, nparts) for every part < nparts, clamped to the pool's threads (part 0 on the caller,
 * parts 1.. on the workers), and returns when all are done. */
void wl_pool_run(wl_pool *p, void (*body)(void *arg, int part, int nparts), void *arg, int nparts);
/* The pool as a wl_par over all its threads. */
wl_par wl_pool_par(wl_pool *p);
/* Part part's share [*i0, *i1) of n items split into nparts contiguous ranges (a function of n and nparts only). */
void wl_pool_split(int n, int part, int nparts, int *i0, int *i1);

#endif

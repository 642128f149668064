/* test_pool.c: the thread pool runs every part exactly once per call, clamps the parts to its threads, and splits ranges. */
#include <stdatomic.h>
#include <string.h>

#include "wl_pool.h"
#include "wl_test.h"

typedef struct tally {
    atomic_int runs[WL_POOL_MAX_THREADS];
    atomic_int bad;   /* calls that saw a different nparts */
    int nparts;
} tally;

static void count_part(void *arg, int part, int nparts)
{
    tally *t = arg;
    if (nparts != t->nparts || part < 0 || part >= nparts) atomic_fetch_add(&t->bad, 1);
    else atomic_fetch_add(&t->runs[part], 1);
}

static void run_and_check(wl_pool *p, int asked, int expect)
{
    tally t;
    memset(&t, 0, sizeof t);
    t.nparts = expect;
    for (int rep = 0; rep < 50; rep++) wl_pool_run(p, count_part, &t, asked);
    CHECK_MSG(atomic_load(&t.bad) == 0, "asked %d parts: %d calls saw the wrong part or count", asked,
              atomic_load(&t.bad));
    for (int i = 0; i < WL_POOL_MAX_THREADS; i++) {
        int want = i < expect ? 50 : 0;
        CHECK_MSG(atomic_load(&t.runs[i]) == want, "asked %d parts: part %d ran %d times, want %d", asked, i,
                  atomic_load(&t.runs[i]), want);
    }
}

static void test_run(void)
{
    wl_pool *p = wl_pool_new(3);
    CHECK(p != NULL);
    int n = wl_pool_threads(p);   /* 3 unless the system refused a worker */
    CHECK(n >= 1 && n <= 3);
    run_and_check(p, n, n);
    run_and_check(p, 1, 1);
    run_and_check(p, 0, 1);          /* no parts asked: the body runs once, on the caller */
    run_and_check(p, n + 5, n);      /* clamped to the threads */
    wl_par par = wl_pool_par(p);
    CHECK(par.ctx == p && par.nparts == n);
    tally t;
    memset(&t, 0, sizeof t);
    t.nparts = n;
    par.run(par.ctx, count_part, &t);
    for (int i = 0; i < n; i++) CHECK(atomic_load(&t.runs[i]) == 1);
    wl_pool_free(p);
    wl_pool_free(NULL);

    p = wl_pool_new(0);   /* clamped to one thread: everything runs on the caller */
    CHECK(p && wl_pool_threads(p) == 1);
    run_and_check(p, 4, 1);
    wl_pool_free(p);
    p = wl_pool_new(1000);
    CHECK(p && wl_pool_threads(p) >= 1 && wl_pool_threads(p) <= WL_POOL_MAX_THREADS);
    wl_pool_free(p);
}

/* The parts' ranges are contiguous, in order, and cover 0..n exactly. */
static void test_split(void)
{
    int bad = 0;
    for (int n = 0; n < 40; n++)
        for (int np = 1; np <= 9; np++) {
            int end = 0;
            for (int part = 0; part < np; part++) {
                int i0, i1;
                wl_pool_split(n, part, np, &i0, &i1);
                if (i0 != end || i1 < i0 || i1 - i0 > n / np + 1) bad++;
                end = i1;
            }
            if (end != n) bad++;
        }
    CHECK_MSG(bad == 0, "%d bad splits", bad);
}

void wl_test_main(void)
{
    test_run();
    test_split();
}

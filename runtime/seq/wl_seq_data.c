/* wl_seq_data.c: the sequence lesson's fictional sequences, their rise labels and the model inputs built from them. */
#include "wl_seq_data.h"
#include "wl_seq_gen.h"
#include "wl_seq_pyfloat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The two arrays of a set of n sequences, a[n] and b[n] of the given item sizes: both, or -1 and neither. */
static int alloc_two(int n, size_t a_size, size_t b_size, void **a, void **b, const char *what, wl_err *err)
{
    *a = malloc((size_t)n * a_size);
    *b = malloc((size_t)n * b_size);
    if (*a && *b) return 0;
    free(*a);
    free(*b);
    return wl_fail(err, "%s: out of memory for %d sequences", what, n);
}

int wl_seq_data_build(wl_seq_data *d, int64_t seed, int n, wl_err *err)
{
    memset(d, 0, sizeof *d);
    if (n < 1) return wl_fail(err, "sequence data: the number of sequences must be at least 1, got %d", n);
    void *reading, *y;
    if (alloc_two(n, sizeof *d->reading, sizeof *d->y, &reading, &y, "sequence data", err)) return -1;
    d->reading = reading;
    d->y = y;
    d->n = n;
    for (int i = 0; i < n; i++) {
        wl_seq_gen g;
        wl_seq_gen_init(&g, seed + i);
        double *r = d->reading[i];
        wl_seq_gen_next(&g);   /* the region draw of the earlier lesson: consumed, unused */
        r[0] = 0.0;
        for (int t = 1; t < WL_SEQ_T; t++) {
            double v = wl_seq_gen_next(&g);
            v += wl_seq_gen_next(&g);
            v += wl_seq_gen_next(&g);
            r[t] = wl_seq_round3((v - 1.5) * 1.9);
        }
        /* The label: mean of steps 7-11 minus mean of steps 1-5 above 0.30 (step 6 in neither). */
        double first = 0.0, last = 0.0;
        for (int t = 1; t <= 5; t++) first += r[t];
        for (int t = 7; t <= 11; t++) last += r[t];
        d->y[i] = last / 5 - first / 5 > 0.30;
    }
    return 0;
}

void wl_seq_data_free(wl_seq_data *d)
{
    free(d->reading);
    free(d->y);
    memset(d, 0, sizeof *d);
}

int wl_seq_set_build(wl_seq_set *s, const wl_seq_data *d, int from, int count, int positions, wl_err *err)
{
    memset(s, 0, sizeof *s);
    if (from < 0 || count < 1 || from > d->n - count)
        return wl_fail(err, "sequence inputs: sequences %d..%d are outside the %d sequences", from,
                       from + count - 1, d->n);
    void *x, *y;
    if (alloc_two(count, sizeof *s->x, sizeof *s->y, &x, &y, "sequence inputs", err)) return -1;
    s->x = x;
    s->y = y;
    s->n = count;
    double ps[WL_SEQ_T], pc[WL_SEQ_T];
    for (int t = 0; t < WL_SEQ_T; t++) {
        ps[t] = positions ? sin(M_PI * t / (WL_SEQ_T - 1)) : 0.0;
        pc[t] = positions ? cos(M_PI * t / (WL_SEQ_T - 1)) : 0.0;
    }
    for (int i = 0; i < count; i++) {
        for (int t = 0; t < WL_SEQ_T; t++) {
            s->x[i][t][0] = d->reading[from + i][t];
            s->x[i][t][1] = ps[t];
            s->x[i][t][2] = pc[t];
        }
        s->y[i] = d->y[from + i];
    }
    return 0;
}

void wl_seq_set_free(wl_seq_set *s)
{
    free(s->x);
    free(s->y);
    memset(s, 0, sizeof *s);
}

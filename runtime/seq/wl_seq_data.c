/* wl_seq_data.c: the sequence lesson's fictional sequences, their rise labels and the model inputs built from them. */
#include "wl_seq_data.h"
#include "wl_seq_gen.h"
#include "wl_seq_pyfloat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int wl_seq_data_build(wl_seq_data *d, int64_t seed, int n, wl_err *err)
{
    memset(d, 0, sizeof *d);
    if (n < 1) return wl_fail(err, "sequence data: the number of sequences must be at least 1, got %d", n);
    d->reading = malloc((size_t)n * sizeof *d->reading);
    d->y = malloc((size_t)n * sizeof *d->y);
    if (!d->reading || !d->y) {
        wl_seq_data_free(d);
        return wl_fail(err, "sequence data: out of memory for %d sequences", n);
    }
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
    s->x = malloc((size_t)count * sizeof *s->x);
    s->y = malloc((size_t)count * sizeof *s->y);
    if (!s->x || !s->y) {
        wl_seq_set_free(s);
        return wl_fail(err, "sequence inputs: out of memory for %d sequences", count);
    }
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

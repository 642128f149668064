/* wl_seq_data.h: the sequence lesson's fictional sequences, their rise labels and the model inputs built from them.
 *
 * Shapes: N sequences, T = 12 steps, C = 3 input channels (reading, sin, cos). */
#ifndef WL_SEQ_DATA_H
#define WL_SEQ_DATA_H

#include <stdint.h>

#include "wl_core.h"

#define WL_SEQ_T 12          /* steps per sequence */
#define WL_SEQ_C 3           /* input channels: reading, sin(pi t/11), cos(pi t/11) */

/* N fictional sequences of readings (step 0 is 0.0) and their rise labels: the mean of
 * steps 7-11 exceeds the mean of steps 1-5 by more than 0.30. */
typedef struct wl_seq_data {
    int n;
    double (*reading)[WL_SEQ_T];   /* [N,T] */
    int *y;                        /* [N] 0 or 1 */
} wl_seq_data;

int wl_seq_data_build(wl_seq_data *d, int64_t seed, int n, wl_err *err);
void wl_seq_data_free(wl_seq_data *d);

/* Model inputs for a range of sequences: each step is (reading, sin, cos) with positions,
 * (reading, 0, 0) without. */
typedef struct wl_seq_set {
    int n;
    double (*x)[WL_SEQ_T][WL_SEQ_C];   /* [N,T,C] */
    int *y;                            /* [N] */
} wl_seq_set;

int wl_seq_set_build(wl_seq_set *s, const wl_seq_data *d, int from, int count, int positions, wl_err *err);
void wl_seq_set_free(wl_seq_set *s);

#endif

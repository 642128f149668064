/* wl_seq.h: the sequence lesson (seed 002) end to end: multi-head attention at an equal budget and positional encoding.
 *
 * Everything is double precision and follows the lesson's own order of floating-point
 * operations (sums left to right from 0.0, the same parenthesisation, libm's exp/sin/cos),
 * so every number it prints comes out bit for bit. The parts, from the bottom: the generator
 * (wl_seq_gen), Python's float rounding and repr (wl_seq_pyfloat), the data (wl_seq_data), the
 * net (wl_seq_net), its four-lane forward pass and exp (wl_seq_lanes, wl_seq_exp, wl_seq_exptab),
 * training (wl_seq_train) and measures (wl_seq_measure); this header adds the whole lesson and
 * its printed tables.
 *
 * Shapes: N sequences, T = 12 steps, C = 3 input channels (reading, sin, cos),
 * H heads, d = 4 / H head size, D = 4 total inner width. */
#ifndef WL_SEQ_H
#define WL_SEQ_H

#include <signal.h>
#include <stdint.h>

#include "wl_core.h"
#include "wl_seq_data.h"
#include "wl_seq_measure.h"
#include "wl_seq_net.h"
#include "wl_seq_train.h"

#define WL_SEQ_MAX_HEADS_LIST 8
#define WL_SEQ_MAX_RUNS 64

/* ---- the whole lesson ---- */

typedef struct wl_seq_opts {
    int64_t seed;                  /* data seed 20260218; run k is initialised with seed + k */
    int n;                         /* sequences: 720 */
    int ntrain, ntest;             /* the first 200 train, the last 180 are held out */
    wl_seq_train_opts train;
    int heads[WL_SEQ_MAX_HEADS_LIST];  /* 1, 2, 4 */
    int nheads;
    int runs;                      /* 2 */
    int order_heads;               /* heads of the nets in the order test: 2 */
    int threads;                   /* trainings run in parallel: 2 */
} wl_seq_opts;

void wl_seq_opts_default(wl_seq_opts *o);

typedef struct wl_seq_summary {
    int n, ntrain, ntest;
    double train_rate, test_rate, baseline;
    double example[WL_SEQ_T];      /* the readings of sequence 0 */
} wl_seq_summary;

/* One trained net and its held-out measures. */
typedef struct wl_seq_run {
    int H, run, positions;
    wl_seq_net net;
    double acc;
    double center[WL_SEQ_D];       /* the first H are used */
    double separation;
} wl_seq_run;

enum { WL_SEQ_PART_HEADS = 1, WL_SEQ_PART_ORDER = 2, WL_SEQ_PART_ALL = 3 };

typedef struct wl_seq_lesson {
    wl_seq_opts opts;
    unsigned parts;
    wl_seq_summary summary;
    wl_seq_run *heads;             /* PART_HEADS: [nheads * runs], heads[i*runs + k] is run k+1 of heads[i] */
    wl_seq_run *order_pos;         /* PART_ORDER: [runs] order_heads nets with positions */
    wl_seq_run *order_nopos;       /* PART_ORDER: [runs] without positions */
    double order_mean[2], order_max[2];   /* [0] positions present, [1] absent; last run's net */
} wl_seq_lesson;

/* Checks the options, builds the data and computes the requested parts (the summary always). */
int wl_seq_lesson_run(wl_seq_lesson *l, const wl_seq_opts *o, unsigned parts,
                      volatile sig_atomic_t *interrupt, wl_err *err);
void wl_seq_lesson_free(wl_seq_lesson *l);

/* ---- the lesson's printed tables, as malloc'd text (NULL when the lesson did not compute the part) ---- */

char *wl_seq_summary_text(const wl_seq_lesson *l);
char *wl_seq_heads_table_text(const wl_seq_lesson *l);
char *wl_seq_centers_table_text(const wl_seq_lesson *l);
char *wl_seq_order_table_text(const wl_seq_lesson *l);
/* Everything above in the lesson's order. */
char *wl_seq_lesson_text(const wl_seq_lesson *l);

#endif

/* wl_seq.h: the sequence lesson (seed 002): multi-head attention at an equal budget and positional encoding.
 *
 * Everything is double precision and follows the lesson's own order of floating-point
 * operations (sums left to right from 0.0, the same parenthesisation, libm's exp/sin/cos),
 * so every number it prints comes out bit for bit.
 *
 * Shapes: N sequences, T = 12 steps, C = 3 input channels (reading, sin, cos),
 * H heads, d = 4 / H head size, D = 4 total inner width. */
#ifndef WL_SEQ_H
#define WL_SEQ_H

#include <signal.h>
#include <stdint.h>

#include "wl_core.h"

#define WL_SEQ_T 12          /* steps per sequence */
#define WL_SEQ_C 3           /* input channels: reading, sin(pi t/11), cos(pi t/11) */
#define WL_SEQ_D 4           /* total inner width, split over the heads */
#define WL_SEQ_NPARAMS 33    /* Wk[D,C] + Wv[D,C] + q[D] + w[D] + b */
#define WL_SEQ_MAX_HEADS_LIST 8
#define WL_SEQ_MAX_RUNS 64

/* ---- the lesson's integer hash generator ---- */

/* Seeded by a 32-bit hash of t; each draw advances a 32-bit LCG and returns state / 2^32 in [0,1). */
typedef struct wl_seq_gen {
    uint32_t s;
} wl_seq_gen;

void wl_seq_gen_init(wl_seq_gen *g, int64_t t);
double wl_seq_gen_next(wl_seq_gen *g);

/* Python's round(x, 3): the exact binary value of x rounded to 3 decimals (ties to even),
 * returned as the double nearest to that decimal. */
double wl_seq_round3(double x);

/* Python's repr() of a float (shortest text that reads back to x), e.g. "0.0", "-1.03", "1e-05".
 * buf needs 32 bytes. Returns buf. */
char *wl_seq_float_repr(double x, char *buf);

/* ---- data ---- */

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

/* ---- the model ---- */

/* The 33 parameters, flat in the lesson's initialisation order. Row r = h*d + i of Wk and Wv
 * is row i of head h; q[r] and w[r] likewise. */
enum { WL_SEQ_WK = 0, WL_SEQ_WV = 12, WL_SEQ_Q = 24, WL_SEQ_W = 28, WL_SEQ_B = 32 };

typedef struct wl_seq_net {
    int H, d;
    double scale;                  /* 1 / sqrt(d) */
    double p[WL_SEQ_NPARAMS];
} wl_seq_net;

/* Initialises with the generator seeded by seed: Wk, Wv, q, w drawn as (r+r+r-1.5)*0.9, b = 0.
 * H must be 1, 2 or 4. */
int wl_seq_net_init(wl_seq_net *net, int64_t seed, int H, wl_err *err);

/* The attention weights of head h over the T steps of one sequence x[T,C]. */
void wl_seq_weights(const wl_seq_net *net, const double (*x)[WL_SEQ_C], int h, double a[WL_SEQ_T]);
/* The output logit and its probability (the logit clamped to [-30,30] first). */
double wl_seq_forward(const wl_seq_net *net, const double (*x)[WL_SEQ_C]);
double wl_seq_probability(const wl_seq_net *net, const double (*x)[WL_SEQ_C]);

typedef struct wl_seq_train_opts {
    int epochs;                    /* 150 */
    double lr;                     /* 0.15 */
    double momentum;               /* 0.8 */
} wl_seq_train_opts;

void wl_seq_train_opts_default(wl_seq_train_opts *o);

/* Full-batch gradient descent with momentum from wl_seq_net_init(seed, H). interrupt may be
 * NULL; when it becomes non-zero training stops with an error. */
int wl_seq_train(wl_seq_net *net, const wl_seq_set *tr, int64_t seed, int H, const wl_seq_train_opts *o,
                 volatile sig_atomic_t *interrupt, wl_err *err);

/* ---- measures ---- */

double wl_seq_accuracy(const wl_seq_net *net, const wl_seq_set *s);
/* Mean over the set of sum_t t * a_t for head h. */
double wl_seq_center(const wl_seq_net *net, const wl_seq_set *s, int h);
/* Mean half L1 distance between the weight distributions of every pair of heads (0 for one head). */
double wl_seq_separation(const wl_seq_net *net, const wl_seq_set *s);
/* Each head's weight at each step, averaged over the set: out[H*T] (row h is head h). */
void wl_seq_mean_weights(const wl_seq_net *net, const wl_seq_set *s, double *out);
/* The readings of x permuted by a Fisher-Yates shuffle drawn from the generator seeded by seed;
 * the position channels stay in place. */
void wl_seq_shuffle_readings(const double (*x)[WL_SEQ_C], int64_t seed, double (*out)[WL_SEQ_C]);
/* Mean and largest |p(shuffled) - p(original)| over the set; sequence i is shuffled with seed0 + i. */
void wl_seq_order_test(const wl_seq_net *net, const wl_seq_set *s, int64_t seed0, double *mean, double *largest);

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
int wl_seq_opts_check(const wl_seq_opts *o, wl_err *err);

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

/* Builds the data and computes the requested parts (the summary always). */
int wl_seq_lesson_run(wl_seq_lesson *l, const wl_seq_opts *o, unsigned parts,
                      volatile sig_atomic_t *interrupt, wl_err *err);
void wl_seq_lesson_free(wl_seq_lesson *l);

/* ---- the lesson's printed tables, as malloc'd text (NULL when out of memory or the part is missing) ---- */

char *wl_seq_summary_text(const wl_seq_lesson *l);
char *wl_seq_heads_table_text(const wl_seq_lesson *l);
char *wl_seq_centers_table_text(const wl_seq_lesson *l);
char *wl_seq_order_table_text(const wl_seq_lesson *l);
/* Everything above in the lesson's order. */
char *wl_seq_lesson_text(const wl_seq_lesson *l);

#endif

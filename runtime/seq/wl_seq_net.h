/* wl_seq_net.h: the sequence lesson's 33-parameter multi-head attention net: its initialisation and folded queries.
 *
 * Shapes: H heads, d = 4 / H head size, D = 4 total inner width, over inputs x[T,C] (wl_seq_data.h). */
#ifndef WL_SEQ_NET_H
#define WL_SEQ_NET_H

#include <stdint.h>

#include "wl_core.h"
#include "wl_seq_data.h"

#define WL_SEQ_D 4           /* total inner width, split over the heads */
#define WL_SEQ_NPARAMS 33    /* Wk[D,C] + Wv[D,C] + q[D] + w[D] + b */

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

/* The query of head h folded into its key projection: u[C] = q_h^T Wk_h, summed over i = 0..d-1 in order. */
void wl_seq_fold_query(const wl_seq_net *net, int h, double u[WL_SEQ_C]);

#endif

/* wl_seq_net.c: the sequence lesson's 33-parameter multi-head attention net: its initialisation and folded queries. */
#include "wl_seq_net.h"
#include "wl_seq_gen.h"

#include <math.h>

int wl_seq_net_init(wl_seq_net *net, int64_t seed, int H, wl_err *err)
{
    if (H != 1 && H != 2 && H != 4)
        return wl_fail(err, "sequence model: %d heads do not divide the inner width %d (use 1, 2 or 4)", H, WL_SEQ_D);
    net->H = H;
    net->d = WL_SEQ_D / H;
    net->scale = 1.0 / sqrt(net->d);
    wl_seq_gen g;
    wl_seq_gen_init(&g, seed);
    for (int k = 0; k < WL_SEQ_B; k++) {   /* Wk, Wv, q, w: the flat order is the drawing order */
        double v = wl_seq_gen_next(&g);
        v += wl_seq_gen_next(&g);
        v += wl_seq_gen_next(&g);
        net->p[k] = (v - 1.5) * 0.9;
    }
    net->p[WL_SEQ_B] = 0.0;
    return 0;
}

void wl_seq_fold_query(const wl_seq_net *net, int h, double u[WL_SEQ_C])
{
    const double *p = net->p;
    for (int j = 0; j < WL_SEQ_C; j++) {
        double s = 0.0;
        for (int i = 0; i < net->d; i++) {
            int r = h * net->d + i;
            s += p[WL_SEQ_Q + r] * p[WL_SEQ_WK + r * WL_SEQ_C + j];
        }
        u[j] = s;
    }
}

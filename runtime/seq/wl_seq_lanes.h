/* wl_seq_lanes.h: the sequence net's forward pass over four sequences at once, one per vector lane (inlined where used).
 *
 * Shapes: wl_seq_lanes_x is x[T,C] for four sequences, each number a vector of WL_SEQ_LANES lanes. */
#ifndef WL_SEQ_LANES_H
#define WL_SEQ_LANES_H

#include "wl_seq_data.h"
#include "wl_seq_exp.h"
#include "wl_seq_net.h"

/* Up to four sequences side by side, one per vector lane: every lane does exactly the scalar
 * operations of the lesson (IEEE arithmetic is per lane), four sequences at a time. The hot
 * paths are inlined (WL_SEQ_HOT) into the functions that use them, so that the x86-64-v3
 * build of the training loop runs them with 4-wide registers. */
typedef wl_seq_vd wl_seq_lanes_x[WL_SEQ_T][WL_SEQ_C];   /* [T,C] x WL_SEQ_LANES */

/* Packs sequences x[0..k-1] into the lanes (the last one repeated in unused lanes). */
static inline void wl_seq_pack(const double (*const *x)[WL_SEQ_C], int k, wl_seq_lanes_x out)
{
    for (int t = 0; t < WL_SEQ_T; t++)
        for (int j = 0; j < WL_SEQ_C; j++)
            for (int l = 0; l < WL_SEQ_LANES; l++) out[t][j][l] = x[l < k ? l : k - 1][t][j];
}

/* Packs sequences n, n+1, ... of s; returns the lanes in use. */
static inline int wl_seq_pack_at(const wl_seq_set *s, int n, wl_seq_lanes_x out)
{
    const double (*x[WL_SEQ_LANES])[WL_SEQ_C];
    int k = s->n - n < WL_SEQ_LANES ? s->n - n : WL_SEQ_LANES;
    for (int l = 0; l < k; l++) x[l] = s->x[n + l];
    wl_seq_pack(x, k, out);
    return k;
}

/* Softmax over the steps of (u . x_t) * scale. */
WL_SEQ_HOT void wl_seq_attend(const double u[WL_SEQ_C], double scale, const wl_seq_lanes_x x, wl_seq_vd a[WL_SEQ_T])
{
    const wl_seq_vd u0 = wl_seq_splat(u[0]), u1 = wl_seq_splat(u[1]), u2 = wl_seq_splat(u[2]), sc = wl_seq_splat(scale);
    wl_seq_vd s[WL_SEQ_T];
    for (int t = 0; t < WL_SEQ_T; t++) s[t] = (u0 * x[t][0] + u1 * x[t][1] + u2 * x[t][2]) * sc;
    wl_seq_vd mx = s[0];
    for (int t = 1; t < WL_SEQ_T; t++) {
        wl_seq_vm gt = (wl_seq_vm)(s[t] > mx);   /* per lane: if (s > mx) mx = s */
        mx = (wl_seq_vd)((gt & (wl_seq_vm)s[t]) | (~gt & (wl_seq_vm)mx));
    }
    wl_seq_vd z = wl_seq_splat(0.0);
    for (int t = 0; t < WL_SEQ_T; t++) {
        a[t] = wl_seq_exp(s[t] - mx);
        z += a[t];
    }
    for (int t = 0; t < WL_SEQ_T; t++) a[t] /= z;
}

/* The rest of head h after its weights a: the weighted input xa[C] and the head output c[d]. */
WL_SEQ_HOT void wl_seq_head_out(const wl_seq_net *net, int h, const wl_seq_vd a[WL_SEQ_T], const wl_seq_lanes_x x,
                                wl_seq_vd xa[WL_SEQ_C], wl_seq_vd *c)
{
    for (int j = 0; j < WL_SEQ_C; j++) {
        wl_seq_vd s = wl_seq_splat(0.0);
        for (int t = 0; t < WL_SEQ_T; t++) s += a[t] * x[t][j];
        xa[j] = s;
    }
    for (int i = 0; i < net->d; i++) {
        const double *wv = net->p + WL_SEQ_WV + (h * net->d + i) * WL_SEQ_C;
        wl_seq_vd s = wl_seq_splat(0.0);
        for (int j = 0; j < WL_SEQ_C; j++) s += wl_seq_splat(wv[j]) * xa[j];
        c[i] = s;
    }
}

/* 1 / (1 + exp(-o)) with o clamped to [-30, 30]. */
WL_SEQ_HOT wl_seq_vd wl_seq_sigmoid_clamped(wl_seq_vd o)
{
    wl_seq_vd m;
    for (int l = 0; l < WL_SEQ_LANES; l++) {
        double v = o[l] < 30.0 ? o[l] : 30.0;
        m[l] = -(v > -30.0 ? v : -30.0);
    }
    return wl_seq_splat(1.0) / (wl_seq_splat(1.0) + wl_seq_exp(m));
}

/* The output logits: b plus each head's w . c in turn. */
WL_SEQ_HOT wl_seq_vd wl_seq_forward_lanes(const wl_seq_net *net, const wl_seq_lanes_x x)
{
    wl_seq_vd o = wl_seq_splat(net->p[WL_SEQ_B]);
    for (int h = 0; h < net->H; h++) {
        double u[WL_SEQ_C];
        wl_seq_vd a[WL_SEQ_T], xa[WL_SEQ_C], c[WL_SEQ_D];
        wl_seq_fold_query(net, h, u);
        wl_seq_attend(u, net->scale, x, a);
        wl_seq_head_out(net, h, a, x, xa, c);
        wl_seq_vd s = wl_seq_splat(0.0);
        for (int i = 0; i < net->d; i++) s += wl_seq_splat(net->p[WL_SEQ_W + h * net->d + i]) * c[i];
        o += s;
    }
    return o;
}

/* Head h's weights for every lane. */
WL_SEQ_HOT void wl_seq_weights_lanes(const wl_seq_net *net, const wl_seq_lanes_x x, int h, wl_seq_vd a[WL_SEQ_T])
{
    double u[WL_SEQ_C];
    wl_seq_fold_query(net, h, u);
    wl_seq_attend(u, net->scale, x, a);
}

/* Adds the lanes in use of v to *g, lane 0 first: the examples' contributions in order. */
WL_SEQ_HOT void wl_seq_add_lanes(double *g, wl_seq_vd v, int lanes)
{
    for (int l = 0; l < lanes; l++) *g += v[l];
}

#endif

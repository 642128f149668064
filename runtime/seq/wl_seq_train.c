/* wl_seq_train.c: the sequence net's full-batch training with momentum, four sequences per vector operation. */
/* Before the includes: the vector helpers of wl_seq_exp.h return vectors, but are always inlined (see there). */
#pragma GCC diagnostic ignored "-Wpsabi"
#include "wl_seq_train.h"
#include "wl_seq_lanes.h"

#include <math.h>
#include <stdlib.h>

/* Short names for the loop below. */
typedef wl_seq_vd vd;
#define splat wl_seq_splat

void wl_seq_train_opts_default(wl_seq_train_opts *o)
{
    o->epochs = 150;
    o->lr = 0.15;
    o->momentum = 0.8;
}

/* Two builds of the training loop, chosen when the program starts: one for CPUs with AVX2 and FMA
 * (x86-64-v3: four lanes per instruction, the inline exp's fma() a single instruction) and the
 * default. Both give the same bits: fma() is exact either way, and no other multiply and add is
 * fused (ISO C mode compiles with -ffp-contract=off). */
#if defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
int wl_seq_train(wl_seq_net *net, const wl_seq_set *tr, int64_t seed, int H, const wl_seq_train_opts *o,
                 volatile sig_atomic_t *interrupt, wl_err *err)
{
    wl_seq_exp_init();
    if (wl_seq_net_init(net, seed, H, err)) return -1;
    if (tr->n < 1) return wl_fail(err, "sequence training: the training set is empty");
    const int d = net->d, ngroups = (tr->n + WL_SEQ_LANES - 1) / WL_SEQ_LANES;
    const vd scale = splat(net->scale);
    double *p = net->p;
    /* Vectors need their 32-byte alignment (malloc only promises 16); both sizes are multiples of it. */
    wl_seq_lanes_x *xg = aligned_alloc(_Alignof(vd), (size_t)ngroups * sizeof *xg);
    vd *yg = aligned_alloc(_Alignof(vd), (size_t)ngroups * sizeof *yg);
    if (!xg || !yg) {
        free(xg);
        free(yg);
        return wl_fail(err, "sequence training: out of memory for %d sequences", tr->n);
    }
    for (int k = 0; k < ngroups; k++) {
        int lanes = wl_seq_pack_at(tr, k * WL_SEQ_LANES, xg[k]);
        for (int l = 0; l < WL_SEQ_LANES; l++) yg[k][l] = tr->y[k * WL_SEQ_LANES + (l < lanes ? l : lanes - 1)];
    }
    double vel[WL_SEQ_NPARAMS] = {0};
    for (int epoch = 0; epoch < o->epochs; epoch++) {
        if (interrupt && *interrupt) {
            free(xg);
            free(yg);
            return wl_fail(err, "sequence training interrupted at epoch %d of %d", epoch + 1, o->epochs);
        }
        /* Full batch: the parameters are fixed during the epoch, so each head's folded query is too. */
        double u[WL_SEQ_D][WL_SEQ_C];
        for (int h = 0; h < H; h++) wl_seq_fold_query(net, h, u[h]);
        double g[WL_SEQ_NPARAMS] = {0};
        for (int k = 0; k < ngroups; k++) {
            const vd (*x)[WL_SEQ_C] = (const vd (*)[WL_SEQ_C])xg[k];
            const int lanes = tr->n - k * WL_SEQ_LANES < WL_SEQ_LANES ? tr->n - k * WL_SEQ_LANES : WL_SEQ_LANES;
            vd a[WL_SEQ_D][WL_SEQ_T], xa[WL_SEQ_D][WL_SEQ_C], c[WL_SEQ_D];
            for (int h = 0; h < H; h++) {
                wl_seq_attend(u[h], net->scale, x, a[h]);
                wl_seq_head_out(net, h, a[h], x, xa[h], c + h * d);
            }
            vd o_sum = splat(0.0);
            for (int r = 0; r < WL_SEQ_D; r++) o_sum += splat(p[WL_SEQ_W + r]) * c[r];
            const vd df = wl_seq_sigmoid_clamped(splat(p[WL_SEQ_B]) + o_sum) - yg[k];
            wl_seq_add_lanes(&g[WL_SEQ_B], df, lanes);
            for (int h = 0; h < H; h++) {
                const int r0 = h * d;
                vd dc[WL_SEQ_D], mv[WL_SEQ_C], da[WL_SEQ_T];
                for (int i = 0; i < d; i++) dc[i] = df * splat(p[WL_SEQ_W + r0 + i]);
                for (int j = 0; j < WL_SEQ_C; j++) {
                    vd s = splat(0.0);
                    for (int i = 0; i < d; i++) s += dc[i] * splat(p[WL_SEQ_WV + (r0 + i) * WL_SEQ_C + j]);
                    mv[j] = s;
                }
                for (int t = 0; t < WL_SEQ_T; t++) da[t] = mv[0] * x[t][0] + mv[1] * x[t][1] + mv[2] * x[t][2];
                vd mean = splat(0.0);
                for (int t = 0; t < WL_SEQ_T; t++) mean += a[h][t] * da[t];
                /* S = dLoss/du: through the softmax to the scores and back onto the inputs. */
                vd S0 = splat(0.0), S1 = splat(0.0), S2 = splat(0.0);
                for (int t = 0; t < WL_SEQ_T; t++) {
                    vd ds = a[h][t] * (da[t] - mean) * scale;
                    S0 += ds * x[t][0];
                    S1 += ds * x[t][1];
                    S2 += ds * x[t][2];
                }
                for (int i = 0; i < d; i++) {
                    const int r = r0 + i;
                    const double *wk = p + WL_SEQ_WK + r * WL_SEQ_C;
                    double *gwk = g + WL_SEQ_WK + r * WL_SEQ_C, *gwv = g + WL_SEQ_WV + r * WL_SEQ_C;
                    const vd q = splat(p[WL_SEQ_Q + r]);
                    vd sq = splat(0.0);
                    sq += splat(wk[0]) * S0;
                    sq += splat(wk[1]) * S1;
                    sq += splat(wk[2]) * S2;
                    wl_seq_add_lanes(&g[WL_SEQ_W + r], df * c[r], lanes);
                    wl_seq_add_lanes(&g[WL_SEQ_Q + r], sq, lanes);
                    wl_seq_add_lanes(&gwk[0], q * S0, lanes);
                    wl_seq_add_lanes(&gwk[1], q * S1, lanes);
                    wl_seq_add_lanes(&gwk[2], q * S2, lanes);
                    wl_seq_add_lanes(&gwv[0], dc[i] * xa[h][0], lanes);
                    wl_seq_add_lanes(&gwv[1], dc[i] * xa[h][1], lanes);
                    wl_seq_add_lanes(&gwv[2], dc[i] * xa[h][2], lanes);
                }
            }
        }
        const double nn = tr->n;
        int finite = 1;
        for (int k = 0; k < WL_SEQ_NPARAMS; k++) {
            vel[k] = o->momentum * vel[k] - o->lr * g[k] / nn;
            p[k] += vel[k];
            finite &= isfinite(p[k]) != 0;
        }
        if (!finite) {
            free(xg);
            free(yg);
            wl_seq_train_opts lesson;
            wl_seq_train_opts_default(&lesson);
            return wl_fail(err, "sequence training diverged at epoch %d of %d: the parameters became infinite or NaN "
                           "(the learning rate %g is too large; try a smaller lr, e.g. the lesson's %g)",
                           epoch + 1, o->epochs, o->lr, lesson.lr);
        }
    }
    free(xg);
    free(yg);
    return 0;
}

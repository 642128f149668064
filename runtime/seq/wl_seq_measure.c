/* wl_seq_measure.c: the sequence lesson's measures of a net: accuracy, weight centers, separation, the order test. */
/* Before the includes: the vector helpers of wl_seq_exp.h return vectors, but are always inlined (see there). */
#pragma GCC diagnostic ignored "-Wpsabi"
#include "wl_seq_measure.h"
#include "wl_seq_gen.h"
#include "wl_seq_lanes.h"

#include <math.h>

/* The output probabilities of up to WL_SEQ_LANES sequences x[0..k-1]. */
static void probabilities(const wl_seq_net *net, const double (*const *x)[WL_SEQ_C], int k, double *out)
{
    wl_seq_exp_init();
    wl_seq_lanes_x xp;
    wl_seq_pack(x, k, xp);
    wl_seq_vd o = wl_seq_sigmoid_clamped(wl_seq_forward_lanes(net, (const wl_seq_vd (*)[WL_SEQ_C])xp));
    for (int l = 0; l < k; l++) out[l] = o[l];
}

#define CX(x) ((const wl_seq_vd (*)[WL_SEQ_C])(x))

double wl_seq_accuracy(const wl_seq_net *net, const wl_seq_set *s)
{
    wl_seq_exp_init();
    int right = 0;
    for (int n = 0; n < s->n; n += WL_SEQ_LANES) {
        wl_seq_lanes_x x;
        int k = wl_seq_pack_at(s, n, x);
        wl_seq_vd o = wl_seq_forward_lanes(net, CX(x));
        for (int l = 0; l < k; l++) right += (o[l] > 0) == (s->y[n + l] == 1);
    }
    return (double)right / s->n;
}

double wl_seq_center(const wl_seq_net *net, const wl_seq_set *s, int h)
{
    wl_seq_exp_init();
    double total = 0.0;
    for (int n = 0; n < s->n; n += WL_SEQ_LANES) {
        wl_seq_lanes_x x;
        wl_seq_vd a[WL_SEQ_T];
        int k = wl_seq_pack_at(s, n, x);
        wl_seq_weights_lanes(net, CX(x), h, a);
        wl_seq_vd c = wl_seq_splat(0.0);
        for (int t = 0; t < WL_SEQ_T; t++) c += wl_seq_splat(t) * a[t];
        wl_seq_add_lanes(&total, c, k);
    }
    return total / s->n;
}

double wl_seq_separation(const wl_seq_net *net, const wl_seq_set *s)
{
    wl_seq_exp_init();
    const int H = net->H;
    if (H < 2) return 0.0;
    double sum = 0.0;
    for (int n = 0; n < s->n; n += WL_SEQ_LANES) {
        wl_seq_lanes_x x;
        wl_seq_vd a[WL_SEQ_D][WL_SEQ_T];
        int k = wl_seq_pack_at(s, n, x);
        for (int h = 0; h < H; h++) wl_seq_weights_lanes(net, CX(x), h, a[h]);
        for (int l = 0; l < k; l++)
            for (int i = 0; i < H; i++)
                for (int j = i + 1; j < H; j++) {
                    double l1 = 0.0;
                    for (int t = 0; t < WL_SEQ_T; t++) l1 += fabs(a[i][t][l] - a[j][t][l]);
                    sum += l1 / 2;
                }
    }
    return sum / ((double)s->n * H * (H - 1) / 2);
}

void wl_seq_mean_weights(const wl_seq_net *net, const wl_seq_set *s, double *out)
{
    wl_seq_exp_init();
    for (int h = 0; h < net->H; h++) {
        double *m = out + h * WL_SEQ_T;
        for (int t = 0; t < WL_SEQ_T; t++) m[t] = 0.0;
        for (int n = 0; n < s->n; n += WL_SEQ_LANES) {
            wl_seq_lanes_x x;
            wl_seq_vd a[WL_SEQ_T];
            int k = wl_seq_pack_at(s, n, x);
            wl_seq_weights_lanes(net, CX(x), h, a);
            for (int t = 0; t < WL_SEQ_T; t++) wl_seq_add_lanes(&m[t], a[t], k);
        }
        for (int t = 0; t < WL_SEQ_T; t++) m[t] /= s->n;
    }
}

void wl_seq_shuffle_readings(const double (*x)[WL_SEQ_C], int64_t seed, double (*out)[WL_SEQ_C])
{
    int perm[WL_SEQ_T];
    for (int t = 0; t < WL_SEQ_T; t++) perm[t] = t;
    wl_seq_gen g;
    wl_seq_gen_init(&g, seed);
    for (int i = WL_SEQ_T - 1; i > 0; i--) {
        int j = (int)(wl_seq_gen_next(&g) * (i + 1));
        int tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    for (int t = 0; t < WL_SEQ_T; t++) {
        out[t][0] = x[perm[t]][0];
        out[t][1] = x[t][1];
        out[t][2] = x[t][2];
    }
}

void wl_seq_order_test(const wl_seq_net *net, const wl_seq_set *s, int64_t seed0, double *mean, double *largest)
{
    double sum = 0.0, mx = 0.0;
    /* Lanes 2i and 2i+1: sequence n+i shuffled and as it is. */
    for (int n = 0; n < s->n; n += WL_SEQ_LANES / 2) {
        double xs[WL_SEQ_LANES / 2][WL_SEQ_T][WL_SEQ_C], p[WL_SEQ_LANES];
        const double (*x[WL_SEQ_LANES])[WL_SEQ_C];
        int k = s->n - n < WL_SEQ_LANES / 2 ? s->n - n : WL_SEQ_LANES / 2;
        for (int i = 0; i < k; i++) {
            wl_seq_shuffle_readings(s->x[n + i], seed0 + n + i, xs[i]);
            x[2 * i] = (const double (*)[WL_SEQ_C])xs[i];
            x[2 * i + 1] = s->x[n + i];
        }
        probabilities(net, x, 2 * k, p);
        for (int i = 0; i < k; i++) {
            double dp = fabs(p[2 * i] - p[2 * i + 1]);
            sum += dp;
            if (dp > mx) mx = dp;
        }
    }
    *mean = sum / s->n;
    *largest = mx;
}

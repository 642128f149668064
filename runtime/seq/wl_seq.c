/* wl_seq.c: the sequence lesson's generator, data, 33-parameter multi-head attention model, training and measures. */
#include "wl_seq.h"
#include "wl_seq_exp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- generator ---- */

void wl_seq_gen_init(wl_seq_gen *g, int64_t t)
{
    /* t ^ (t >> 16) with an arithmetic shift, as on an unbounded integer; only the low 32 bits matter. */
    uint64_t ut = (uint64_t)t;
    uint64_t sh = t < 0 ? ~(~ut >> 16) : ut >> 16;
    uint32_t x = (uint32_t)(ut ^ sh) * 2246822507u;
    x = (x ^ (x >> 13)) * 3266489909u;
    g->s = x ^ (x >> 16);
}

double wl_seq_gen_next(wl_seq_gen *g)
{
    g->s = g->s * 1664525u + 1013904223u;
    return g->s / 4294967296.0;
}

/* ---- Python's float rounding and repr ---- */

double wl_seq_round3(double x)
{
    if (!(fabs(x) < 0x1p40)) {
        /* Huge or not finite: printf rounds the exact binary value (ties to even), strtod reads it back. */
        char buf[400];
        snprintf(buf, sizeof buf, "%.3f", x);
        return strtod(buf, NULL);
    }
    /* r: the integer nearest to x*1000 rounded; the exact product is within 0.5 + tiny of it.
     * fma gives the sign of (exact product - (r +- 0.5)) exactly, which settles r, ties to even. */
    double r = nearbyint(x * 1000.0);
    double hi = fma(x, 1000.0, -(r + 0.5));
    if (hi > 0 || (hi == 0 && fmod(r, 2.0) != 0)) {
        r += 1;
    } else {
        double lo = fma(x, 1000.0, -(r - 0.5));
        if (lo < 0 || (lo == 0 && fmod(r, 2.0) != 0)) r -= 1;
    }
    if (r == 0) return copysign(0.0, x);
    return r / 1000.0;   /* correctly rounded, as strtod of the decimal r * 10^-3 */
}

char *wl_seq_float_repr(double x, char *buf)
{
    if (isnan(x)) return strcpy(buf, "nan");
    if (isinf(x)) return strcpy(buf, x < 0 ? "-inf" : "inf");
    if (x == 0) return strcpy(buf, signbit(x) ? "-0.0" : "0.0");
    /* The shortest correctly rounded digit string that reads back to x. */
    char e[40];
    for (int prec = 0; prec <= 16; prec++) {
        snprintf(e, sizeof e, "%.*e", prec, x);
        if (strtod(e, NULL) == x) break;
    }
    /* e is [-]D[.DDD]e[+-]XX: split into sign, digits and decimal exponent. */
    const char *p = e;
    int neg = *p == '-';
    if (neg) p++;
    char digits[24];
    int nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p != '.') digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    digits[nd] = '\0';
    int exp10 = atoi(p + 1);
    char *o = buf;
    if (neg) *o++ = '-';
    if (exp10 < -4 || exp10 >= 16) {
        /* Python's scientific form: 1e-05, 1.5e+16. */
        *o++ = digits[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        sprintf(o, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
        return buf;
    }
    if (exp10 < 0) {
        *o++ = '0';
        *o++ = '.';
        for (int k = 0; k < -exp10 - 1; k++) *o++ = '0';
        memcpy(o, digits, (size_t)nd);
        o += nd;
    } else {
        for (int k = 0; k <= exp10; k++) *o++ = k < nd ? digits[k] : '0';
        *o++ = '.';
        if (nd > exp10 + 1) {
            memcpy(o, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
            o += nd - exp10 - 1;
        } else {
            *o++ = '0';
        }
    }
    *o = '\0';
    return buf;
}

/* ---- data ---- */

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

/* ---- the model ---- */

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

/* Up to four sequences side by side, one per vector lane: every lane does exactly the scalar
 * operations of the lesson (IEEE arithmetic is per lane), four sequences at a time. The hot
 * paths are inlined (WL_SEQ_HOT) into the functions that use them, so that the x86-64-v3
 * build of the training loop runs them with 4-wide registers. */
#define LANES WL_SEQ_LANES
#define HOT WL_SEQ_HOT
typedef wl_seq_vd vd;
typedef wl_seq_vm vm;
typedef vd lanes_x[WL_SEQ_T][WL_SEQ_C];   /* [T,C] x LANES */
#define splat wl_seq_splat

/* Packs sequences x[0..k-1] into the lanes (the last one repeated in unused lanes). */
static void pack(const double (*const *x)[WL_SEQ_C], int k, lanes_x out)
{
    for (int t = 0; t < WL_SEQ_T; t++)
        for (int j = 0; j < WL_SEQ_C; j++)
            for (int l = 0; l < LANES; l++) out[t][j][l] = x[l < k ? l : k - 1][t][j];
}

/* Packs sequences n, n+1, ... of s; returns the lanes in use. */
static int pack_at(const wl_seq_set *s, int n, lanes_x out)
{
    const double (*x[LANES])[WL_SEQ_C];
    int k = s->n - n < LANES ? s->n - n : LANES;
    for (int l = 0; l < k; l++) x[l] = s->x[n + l];
    pack(x, k, out);
    return k;
}

/* The query folded into the key projection of head h: u[C] = q_h^T Wk_h. */
static void fold_query(const wl_seq_net *net, int h, double u[WL_SEQ_C])
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

/* Softmax over the steps of (u . x_t) * scale. */
HOT void attend(const double u[WL_SEQ_C], double scale, const lanes_x x, vd a[WL_SEQ_T])
{
    const vd u0 = splat(u[0]), u1 = splat(u[1]), u2 = splat(u[2]), sc = splat(scale);
    vd s[WL_SEQ_T];
    for (int t = 0; t < WL_SEQ_T; t++) s[t] = (u0 * x[t][0] + u1 * x[t][1] + u2 * x[t][2]) * sc;
    vd mx = s[0];
    for (int t = 1; t < WL_SEQ_T; t++) {
        vm gt = (vm)(s[t] > mx);   /* per lane: if (s > mx) mx = s */
        mx = (vd)((gt & (vm)s[t]) | (~gt & (vm)mx));
    }
    vd z = splat(0.0);
    for (int t = 0; t < WL_SEQ_T; t++) {
        a[t] = wl_seq_exp(s[t] - mx);
        z += a[t];
    }
    for (int t = 0; t < WL_SEQ_T; t++) a[t] /= z;
}

/* The rest of head h after its weights a: the weighted input xa[C] and the head output c[d]. */
HOT void head_out(const wl_seq_net *net, int h, const vd a[WL_SEQ_T], const lanes_x x, vd xa[WL_SEQ_C], vd *c)
{
    for (int j = 0; j < WL_SEQ_C; j++) {
        vd s = splat(0.0);
        for (int t = 0; t < WL_SEQ_T; t++) s += a[t] * x[t][j];
        xa[j] = s;
    }
    for (int i = 0; i < net->d; i++) {
        const double *wv = net->p + WL_SEQ_WV + (h * net->d + i) * WL_SEQ_C;
        vd s = splat(0.0);
        for (int j = 0; j < WL_SEQ_C; j++) s += splat(wv[j]) * xa[j];
        c[i] = s;
    }
}

/* 1 / (1 + exp(-o)) with o clamped to [-30, 30]. */
HOT vd sigmoid_clamped(vd o)
{
    vd m;
    for (int l = 0; l < LANES; l++) {
        double v = o[l] < 30.0 ? o[l] : 30.0;
        m[l] = -(v > -30.0 ? v : -30.0);
    }
    return splat(1.0) / (splat(1.0) + wl_seq_exp(m));
}

/* The output logits: b plus each head's w . c in turn. */
HOT vd forward_lanes(const wl_seq_net *net, const lanes_x x)
{
    vd o = splat(net->p[WL_SEQ_B]);
    for (int h = 0; h < net->H; h++) {
        double u[WL_SEQ_C];
        vd a[WL_SEQ_T], xa[WL_SEQ_C], c[WL_SEQ_D];
        fold_query(net, h, u);
        attend(u, net->scale, x, a);
        head_out(net, h, a, x, xa, c);
        vd s = splat(0.0);
        for (int i = 0; i < net->d; i++) s += splat(net->p[WL_SEQ_W + h * net->d + i]) * c[i];
        o += s;
    }
    return o;
}

/* Head h's weights for every lane. */
HOT void weights_lanes(const wl_seq_net *net, const lanes_x x, int h, vd a[WL_SEQ_T])
{
    double u[WL_SEQ_C];
    fold_query(net, h, u);
    attend(u, net->scale, x, a);
}

/* Lane l of the logits (prob = 0) or probabilities (prob = 1) of up to LANES sequences. */
static void outputs(const wl_seq_net *net, const double (*const *x)[WL_SEQ_C], int k, int prob, double *out)
{
    wl_seq_exp_init();
    lanes_x xp;
    pack(x, k, xp);
    vd o = forward_lanes(net, (const vd (*)[WL_SEQ_C])xp);
    if (prob) o = sigmoid_clamped(o);
    for (int l = 0; l < k; l++) out[l] = o[l];
}

void wl_seq_weights(const wl_seq_net *net, const double (*x)[WL_SEQ_C], int h, double a[WL_SEQ_T])
{
    wl_seq_exp_init();
    lanes_x xp;
    vd av[WL_SEQ_T];
    pack(&x, 1, xp);
    weights_lanes(net, (const vd (*)[WL_SEQ_C])xp, h, av);
    for (int t = 0; t < WL_SEQ_T; t++) a[t] = av[t][0];
}

double wl_seq_forward(const wl_seq_net *net, const double (*x)[WL_SEQ_C])
{
    double o;
    outputs(net, &x, 1, 0, &o);
    return o;
}

double wl_seq_probability(const wl_seq_net *net, const double (*x)[WL_SEQ_C])
{
    double p;
    outputs(net, &x, 1, 1, &p);
    return p;
}

void wl_seq_train_opts_default(wl_seq_train_opts *o)
{
    o->epochs = 150;
    o->lr = 0.15;
    o->momentum = 0.8;
}

/* Adds the lanes in use of v to *g, lane 0 first: the examples' contributions in order. */
HOT void add_lanes(double *g, vd v, int lanes)
{
    for (int l = 0; l < lanes; l++) *g += v[l];
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
    const int d = net->d, ngroups = (tr->n + LANES - 1) / LANES;
    const vd scale = splat(net->scale);
    double *p = net->p;
    /* Vectors need their 32-byte alignment (malloc only promises 16); both sizes are multiples of it. */
    lanes_x *xg = aligned_alloc(_Alignof(vd), (size_t)ngroups * sizeof *xg);
    vd *yg = aligned_alloc(_Alignof(vd), (size_t)ngroups * sizeof *yg);
    if (!xg || !yg) {
        free(xg);
        free(yg);
        return wl_fail(err, "sequence training: out of memory for %d sequences", tr->n);
    }
    for (int k = 0; k < ngroups; k++) {
        int lanes = pack_at(tr, k * LANES, xg[k]);
        for (int l = 0; l < LANES; l++) yg[k][l] = tr->y[k * LANES + (l < lanes ? l : lanes - 1)];
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
        for (int h = 0; h < H; h++) fold_query(net, h, u[h]);
        double g[WL_SEQ_NPARAMS] = {0};
        for (int k = 0; k < ngroups; k++) {
            const vd (*x)[WL_SEQ_C] = (const vd (*)[WL_SEQ_C])xg[k];
            const int lanes = tr->n - k * LANES < LANES ? tr->n - k * LANES : LANES;
            vd a[WL_SEQ_D][WL_SEQ_T], xa[WL_SEQ_D][WL_SEQ_C], c[WL_SEQ_D];
            for (int h = 0; h < H; h++) {
                attend(u[h], net->scale, x, a[h]);
                head_out(net, h, a[h], x, xa[h], c + h * d);
            }
            vd o_sum = splat(0.0);
            for (int r = 0; r < WL_SEQ_D; r++) o_sum += splat(p[WL_SEQ_W + r]) * c[r];
            const vd df = sigmoid_clamped(splat(p[WL_SEQ_B]) + o_sum) - yg[k];
            add_lanes(&g[WL_SEQ_B], df, lanes);
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
                    add_lanes(&g[WL_SEQ_W + r], df * c[r], lanes);
                    add_lanes(&g[WL_SEQ_Q + r], sq, lanes);
                    add_lanes(&gwk[0], q * S0, lanes);
                    add_lanes(&gwk[1], q * S1, lanes);
                    add_lanes(&gwk[2], q * S2, lanes);
                    add_lanes(&gwv[0], dc[i] * xa[h][0], lanes);
                    add_lanes(&gwv[1], dc[i] * xa[h][1], lanes);
                    add_lanes(&gwv[2], dc[i] * xa[h][2], lanes);
                }
            }
        }
        const double nn = tr->n;
        for (int k = 0; k < WL_SEQ_NPARAMS; k++) {
            vel[k] = o->momentum * vel[k] - o->lr * g[k] / nn;
            p[k] += vel[k];
        }
    }
    free(xg);
    free(yg);
    return 0;
}

/* ---- measures ---- */

#define CX(x) ((const vd (*)[WL_SEQ_C])(x))

double wl_seq_accuracy(const wl_seq_net *net, const wl_seq_set *s)
{
    wl_seq_exp_init();
    int right = 0;
    for (int n = 0; n < s->n; n += LANES) {
        lanes_x x;
        int k = pack_at(s, n, x);
        vd o = forward_lanes(net, CX(x));
        for (int l = 0; l < k; l++) right += (o[l] > 0) == (s->y[n + l] == 1);
    }
    return (double)right / s->n;
}

double wl_seq_center(const wl_seq_net *net, const wl_seq_set *s, int h)
{
    wl_seq_exp_init();
    double total = 0.0;
    for (int n = 0; n < s->n; n += LANES) {
        lanes_x x;
        vd a[WL_SEQ_T];
        int k = pack_at(s, n, x);
        weights_lanes(net, CX(x), h, a);
        vd c = splat(0.0);
        for (int t = 0; t < WL_SEQ_T; t++) c += splat(t) * a[t];
        add_lanes(&total, c, k);
    }
    return total / s->n;
}

double wl_seq_separation(const wl_seq_net *net, const wl_seq_set *s)
{
    wl_seq_exp_init();
    const int H = net->H;
    if (H < 2) return 0.0;
    double sum = 0.0;
    for (int n = 0; n < s->n; n += LANES) {
        lanes_x x;
        vd a[WL_SEQ_D][WL_SEQ_T];
        int k = pack_at(s, n, x);
        for (int h = 0; h < H; h++) weights_lanes(net, CX(x), h, a[h]);
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
        for (int n = 0; n < s->n; n += LANES) {
            lanes_x x;
            vd a[WL_SEQ_T];
            int k = pack_at(s, n, x);
            weights_lanes(net, CX(x), h, a);
            for (int t = 0; t < WL_SEQ_T; t++) add_lanes(&m[t], a[t], k);
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
    for (int n = 0; n < s->n; n += LANES / 2) {
        double xs[LANES / 2][WL_SEQ_T][WL_SEQ_C], p[LANES];
        const double (*x[LANES])[WL_SEQ_C];
        int k = s->n - n < LANES / 2 ? s->n - n : LANES / 2;
        for (int i = 0; i < k; i++) {
            wl_seq_shuffle_readings(s->x[n + i], seed0 + n + i, xs[i]);
            x[2 * i] = (const double (*)[WL_SEQ_C])xs[i];
            x[2 * i + 1] = s->x[n + i];
        }
        outputs(net, x, 2 * k, 1, p);
        for (int i = 0; i < k; i++) {
            double dp = fabs(p[2 * i] - p[2 * i + 1]);
            sum += dp;
            if (dp > mx) mx = dp;
        }
    }
    *mean = sum / s->n;
    *largest = mx;
}

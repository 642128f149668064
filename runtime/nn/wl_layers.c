/* wl_layers.c: the models' layers: embeddings, Linear, ReLU, softmax cross-entropy, attention (products: wl_gemm).
 *
 * The per-example loops use 8-wide GCC vector types; the hot ones are compiled twice (x86-64-v3 and baseline)
 * and picked at load time. Multiplies and adds stay separate (no FMA contraction in C11 mode), and every sum
 * has a fixed order, so both versions give the same bits. */
#include "wl_layers.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#define HOT512 __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define HOT
#define HOT512
#endif

/* The vector helpers below are always inlined (VEC), at -O0 too: a 32-byte vector returned by a helper compiled
 * for the default target travels in memory, while the x86-64-v3 clone that calls it expects it in a register, so
 * an out-of-line helper would break the call. The types are aligned to their 32 bytes explicitly, as the
 * x86-64-v3 clones assume (without AVX for the whole file GCC would give them 16). */
#define VEC static inline __attribute__((always_inline))
#pragma GCC diagnostic ignored "-Wpsabi"
typedef float v8 __attribute__((vector_size(32), aligned(32)));
typedef int32_t v8i __attribute__((vector_size(32), aligned(32)));

/* Unaligned loads and stores of a vector type vf (v8 here, v16 below). */
#define WL_DEFINE_LOAD(name, vf)                                                                                     \
    VEC vf name(const float *p)                                                                                      \
    {                                                                                                                \
        vf v;                                                                                                        \
        memcpy(&v, p, sizeof v);                                                                                     \
        return v;                                                                                                    \
    }
#define WL_STORE(vf, p, v) do { vf wl_store_v = (v); memcpy((p), &wl_store_v, sizeof wl_store_v); } while (0)

WL_DEFINE_LOAD(ld8, v8)
#define st8(p, v) WL_STORE(v8, p, v)

VEC v8 splat(float x)
{
    return (v8){x, x, x, x, x, x, x, x};
}

/* The helpers take vectors by address: a by-value 32-byte vector parameter draws a GCC ABI note without AVX. */
VEC float hsum8(const v8 *p)
{
    v8 v = *p;
    return ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
}

/* The elementwise helpers below are written once for both widths, v8 and the 16-wide v16 of the cross-entropy
 * (AVX-512 where the CPU has it): lane by lane they compute the same operations, so either width gives the same
 * bits. */
#define WL_DEFINE_VMAX(name, vf, vi)                                                                                 \
    VEC vf name(const vf *pa, const vf *pb)                                                                          \
    {                                                                                                                \
        vf a = *pa, b = *pb;                                                                                         \
        vi m = a > b;                                                                                                \
        return (vf)(((vi)a & m) | ((vi)b & ~m));                                                                     \
    }

/* e^x for x <= 0 (softmax arguments), relative error about 2e-7; x below -87 gives e^-87 (about 1.6e-38).
 * Cephes' expf: x = n ln2 + r with |r| <= ln2/2, a degree-6 polynomial for e^r, times 2^n. */
#define WL_DEFINE_VEXP(name, vf, vi, vmaxf, splatf)                                                                  \
    VEC vf name(const vf *px)                                                                                        \
    {                                                                                                                \
        vf lo = splatf(-87.0f), x = vmaxf(px, &lo);                                                                  \
        vf n = x * splatf(1.44269504f) + splatf(0x1.8p23f);                                                          \
        n = n - splatf(0x1.8p23f); /* round to nearest */                                                            \
        vf r = x - n * splatf(0.693359375f) - n * splatf(-2.12194440e-4f);                                           \
        vf p = splatf(1.9875691500e-4f);                                                                             \
        p = p * r + splatf(1.3981999507e-3f);                                                                        \
        p = p * r + splatf(8.3334519073e-3f);                                                                        \
        p = p * r + splatf(4.1665795894e-2f);                                                                        \
        p = p * r + splatf(1.6666665459e-1f);                                                                        \
        p = p * r + splatf(5.0000001201e-1f);                                                                        \
        p = p * r * r + r + splatf(1.0f);                                                                            \
        vi e = (__builtin_convertvector(n, vi) + 127) << 23;                                                         \
        return p * (vf)e;                                                                                            \
    }

WL_DEFINE_VMAX(vmax, v8, v8i)
WL_DEFINE_VEXP(vexp, v8, v8i, vmax, splat)

typedef float v16 __attribute__((vector_size(64), aligned(64)));
typedef int32_t v16i __attribute__((vector_size(64), aligned(64)));

WL_DEFINE_LOAD(ld16, v16)
#define st16(p, v) WL_STORE(v16, p, v)

VEC v16 splat16(float x)
{
    return (v16){x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x};
}

WL_DEFINE_VMAX(vmax16, v16, v16i)
WL_DEFINE_VEXP(vexp16, v16, v16i, vmax16, splat16)

/* Dot product of n floats, n a multiple of 16. */
VEC float dot16(const float *a, const float *b, int n)
{
    v8 s0 = splat(0.0f), s1 = splat(0.0f);
    for (int i = 0; i < n; i += 16) {
        s0 += ld8(a + i) * ld8(b + i);
        s1 += ld8(a + i + 8) * ld8(b + i + 8);
    }
    s0 += s1;
    return hsum8(&s0);
}

/* y[n] += a x[n], n a multiple of 8. */
VEC void axpy8(float *y, float a, const float *x, int n)
{
    v8 va = splat(a);
    for (int i = 0; i < n; i += 8) st8(y + i, ld8(y + i) + va * ld8(x + i));
}

/* x[n] *= c */
static void scale(float *x, size_t n, float c)
{
    for (size_t i = 0; i < n; i++) x[i] *= c;
}

/* @code embedding: token and position embeddings */
/* X [B*T, D] = tok[ids] + pos[t]: ids [B, T], tok [V, D], pos [T, D]; pos NULL: tok[ids] alone (the mlp) */
HOT void wl_embed_forward(float *X, const int32_t *ids, const float *tok, const float *pos, int B, int T, int D)
{
    for (size_t r = 0; r < (size_t)B * T; r++) {
        float *x = X + r * D;
        const float *e = tok + (size_t)ids[r] * D;
        if (!pos) {
            memcpy(x, e, sizeof(float) * D);
            continue;
        }
        const float *p = pos + (r % (size_t)T) * D;
        for (int i = 0; i < D; i += 8) st8(x + i, ld8(e + i) + ld8(p + i));
    }
}
/* @end embedding */

HOT void wl_embed_backward(float *dtok, float *dpos, const float *dX, const int32_t *ids, int B, int T, int D)
{
    for (size_t r = 0; r < (size_t)B * T; r++) {
        const float *g = dX + r * D;
        /* X = tok[ids] + pos: every row of tok but PAD collects its slots' gradient */
        if (ids[r] != 0) axpy8(dtok + (size_t)ids[r] * D, 1.0f, g, D);
        if (dpos) axpy8(dpos + (r % (size_t)T) * D, 1.0f, g, D);
    }
}

/* @code linear: a Linear layer */
/* out [N, OC] = inp [N, C] weight^T + bias: weight [OC, C], bias [OC] or NULL; inp's rows are ld floats apart */
void wl_linear_forward(const wl_par *par, float *out, const float *inp, size_t ld, const float *weight,
                       const float *bias, int N, int C, int OC)
{
    if (bias)
        for (int n = 0; n < N; n++) memcpy(out + (size_t)n * OC, bias, sizeof(float) * OC);
    wl_gemm(par, &(wl_gemm_op){.m = N, .n = OC, .k = C, .out = out, .ld_out = OC, .a = inp, .ld_a = (int)ld,
                               .b = weight, .ld_b = C, .b_t = 1, .accumulate = bias != NULL});
}
/* @end linear */

HOT static void column_sums(float *sums, const float *x, int rows, int cols)
{
    int c8 = cols & ~7;
    for (int j = 0; j < c8; j += 8) {
        v8 s = splat(0.0f);
        for (int r = 0; r < rows; r++) s += ld8(x + (size_t)r * cols + j);
        st8(sums + j, s);
    }
    for (int j = c8; j < cols; j++) {
        float s = 0.0f;
        for (int r = 0; r < rows; r++) s += x[(size_t)r * cols + j];
        sums[j] = s;
    }
}

void wl_linear_backward(const wl_par *par, float *dinp, float *dweight, float *dbias, const float *dout,
                        const float *inp, size_t ld, const float *weight, int N, int C, int OC)
{
    /* out = inp weight^T + bias: dweight = dout^T inp, dinp = dout weight, dbias = sum over rows of dout */
    wl_gemm(par, &(wl_gemm_op){.m = OC, .n = C, .k = N, .out = dweight, .ld_out = C, .a = dout, .ld_a = OC, .a_t = 1,
                               .b = inp, .ld_b = (int)ld});
    if (dinp)
        wl_gemm(par, &(wl_gemm_op){.m = N, .n = C, .k = OC, .out = dinp, .ld_out = (int)ld, .a = dout, .ld_a = OC,
                                   .b = weight, .ld_b = C});
    if (dbias) column_sums(dbias, dout, N, OC);
}

void wl_head_forward(const wl_par *par, float *outT, const float *inp, const float *weight, const float *bias, int N,
                     int C, int OC)
{
    wl_gemm(par, &(wl_gemm_op){.m = OC, .n = N, .k = C, .out = outT, .ld_out = N, .a = weight, .ld_a = C, .b = inp,
                               .ld_b = C, .b_t = 1, .row_bias = bias});
}

void wl_head_backward(const wl_par *par, float *dinp, float *dweight, const float *doutT, const float *inp,
                      const float *weight, int N, int C, int OC)
{
    /* outT = weight inp^T + bias: dweight = doutT inp, dinp = doutT^T weight */
    wl_gemm(par, &(wl_gemm_op){.m = OC, .n = C, .k = N, .out = dweight, .ld_out = C, .a = doutT, .ld_a = N, .b = inp,
                               .ld_b = C});
    wl_gemm(par, &(wl_gemm_op){.m = N, .n = C, .k = OC, .out = dinp, .ld_out = C, .a = doutT, .ld_a = N, .a_t = 1,
                               .b = weight, .ld_b = C});
}

void wl_transpose(float *out, const float *in, int rows, int cols)
{
    for (int r0 = 0; r0 < rows; r0 += 32)   /* 32x32 tiles */
        for (int c0 = 0; c0 < cols; c0 += 32)
            for (int r = r0; r < rows && r < r0 + 32; r++)
                for (int c = c0; c < cols && c < c0 + 32; c++) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

HOT void wl_relu_forward(float *out, const float *inp, size_t n)
{
    size_t n8 = n & ~(size_t)7;
    v8 zero = splat(0.0f);
    for (size_t i = 0; i < n8; i += 8) {
        v8 x = ld8(inp + i);
        st8(out + i, vmax(&x, &zero));
    }
    for (size_t i = n8; i < n; i++) out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
}

HOT void wl_relu_backward(float *dinp, const float *dout, const float *out, size_t n)
{
    size_t n8 = n & ~(size_t)7;
    for (size_t i = 0; i < n8; i += 8) {
        v8i live = ld8(out + i) > splat(0.0f);
        st8(dinp + i, (v8)((v8i)ld8(dout + i) & live));
    }
    for (size_t i = n8; i < n; i++) dinp[i] = out[i] > 0.0f ? dout[i] : 0.0f;
}

HOT512 void wl_crossentropy_forward(float *losses, float *elogitsT, float *stats, const float *logitsT,
                                    const int32_t *tgt, float scale, int N, int V, int ld)
{
    /* Row by row through the columns [0,N) of each row (streaming memory), 16 at a time, with each column's
     * running max m, then its sum s of e = exp(x - m), e kept in elogitsT. */
    float *m = stats, *sum = stats + ld;
    int N16 = N & ~15;
    for (int n = 0; n < N; n++) {
        losses[n] = logitsT[(size_t)tgt[n] * ld + n];   /* the target's logit, before elogitsT overwrites it */
        m[n] = -INFINITY;
        sum[n] = 0.0f;
    }
    for (int v = 0; v < V; v++) {
        const float *x = logitsT + (size_t)v * ld;
        for (int n = 0; n < N16; n += 16) {
            v16 a = ld16(m + n), b = ld16(x + n);
            st16(m + n, vmax16(&a, &b));
        }
        for (int n = N16; n < N; n++) m[n] = x[n] > m[n] ? x[n] : m[n];
    }
    for (int v = 0; v < V; v++) {
        const float *x = logitsT + (size_t)v * ld;
        float *e = elogitsT ? elogitsT + (size_t)v * ld : NULL;
        for (int n = 0; n < N16; n += 16) {
            v16 z = ld16(x + n) - ld16(m + n), ez = vexp16(&z);
            st16(sum + n, ld16(sum + n) + ez);
            if (e) st16(e + n, ez);
        }
        for (int n = N16; n < N; n++) {
            v8 z = splat(x[n] - m[n]), ez = vexp(&z);
            sum[n] += ez[0];
            if (e) e[n] = ez[0];
        }
    }
    for (int n = 0; n < N; n++) {
        losses[n] = logf(sum[n]) - (losses[n] - m[n]);
        sum[n] = scale / sum[n];
    }
}

HOT void wl_crossentropy_backward(float *dlogitsT, float *dbias, const float *stats, const int32_t *tgt, float scale,
                                  int v0, int rows, int N, int ld)
{
    const float *inv = stats + ld;
    int N8 = N & ~7;
    for (int r = 0; r < rows; r++) {
        int v = v0 + r;
        float *g = dlogitsT + (size_t)r * ld;
        v8i vv = {v, v, v, v, v, v, v, v};
        v8 acc = splat(0.0f), vs = splat(scale);
        for (int n = 0; n < N8; n += 8) {
            v8i t;
            memcpy(&t, tgt + n, sizeof t);
            v8 gn = ld8(g + n) * ld8(inv + n) - (v8)((v8i)vs & (t == vv));   /* minus scale at the target */
            st8(g + n, gn);
            acc += gn;
        }
        float sum = hsum8(&acc);
        for (int n = N8; n < N; n++) {
            g[n] *= inv[n];
            if (tgt[n] == v) g[n] -= scale;
            sum += g[n];
        }
        if (dbias) dbias[r] = sum;
    }
}

double wl_layers_logsumexp(const float *z, int V)
{
    double mx = -INFINITY, se = 0;
    for (int v = 0; v < V; v++) mx = fmax(mx, z[v]);
    for (int v = 0; v < V; v++) se += exp((double)z[v] - mx);
    return mx + log(se);
}

void wl_layers_token_losses(double *losses, const float *logits, const int32_t *tgt, int N, int V)
{
    for (int n = 0; n < N; n++) {
        const float *z = logits + (size_t)n * (size_t)V;
        losses[n] = wl_layers_logsumexp(z, V) - (double)z[tgt[n]];
    }
}

/* @code softmax: the masked softmax */
/* Softmax of s [T] in place over the entries with keep[t] != 0; the others become exactly 0. T % 8 == 0. */
static inline void masked_softmax(float *s, const int32_t *keep, int T)
{
    float mx = -INFINITY;
    for (int t = 0; t < T; t++)
        if (keep[t] && s[t] > mx) mx = s[t];
    v8 vm = splat(mx), sum = splat(0.0f);
    for (int t = 0; t < T; t += 8) {
        v8i k;
        memcpy(&k, keep + t, sizeof k);
        v8 z = ld8(s + t) - vm, e = (v8)((v8i)vexp(&z) & k);
        st8(s + t, e);
        sum += e;
    }
    v8 inv = splat(1.0f / hsum8(&sum));
    for (int t = 0; t < T; t += 8) st8(s + t, ld8(s + t) * inv);
}
/* @end softmax */

/* keep[t] = -1 where the final query may look at key t (every key when the last slot is PAD), else 0. */
static inline void final_row_keep(int32_t *keep, const int32_t *id, int T)
{
    for (int t = 0; t < T; t++) keep[t] = (id[T - 1] == 0 || id[t] != 0) ? -1 : 0;
}

/* @code final_query: the training forward: only the final query, as the loss reads only its row */
void wl_attention_query_forward(float *xl, float *q, float *u, const int32_t *ids, const float *tok, const float *pos,
                                const float *wq, const float *wk, int B, int T, int D, int H)
{
    int d = D / H;
    for (int b = 0; b < B; b++)   /* x = X[b,T-1] */
        wl_embed_forward(xl + (size_t)b * D, ids + (size_t)b * T + T - 1, tok, pos + (size_t)(T - 1) * D, 1, 1, D);
    /* q = x W_Q^T */
    wl_gemm(NULL, &(wl_gemm_op){.m = B, .n = D, .k = D, .out = q, .ld_out = D, .a = xl, .ld_a = D, .b = wq, .ld_b = D,
                                .b_t = 1});
    for (int h = 0; h < H; h++)   /* u_h = W_K_h^T q_h, then / sqrt(d) */
        wl_gemm(NULL, &(wl_gemm_op){.m = B, .n = D, .k = d, .out = u + (size_t)h * D, .ld_out = H * D, .a = q + h * d,
                                    .ld_a = D, .b = wk + (size_t)h * d * D, .ld_b = D});
    scale(u, (size_t)B * H * D, 1.0f / sqrtf((float)d));
}

HOT void wl_attention_weights_forward(float *a, float *mx, float *xs, const int32_t *ids, const float *tok,
                                      const float *pos, const float *u, int B, int T, int D, int H)
{
    int32_t keep[T];
    for (int b = 0; b < B; b++) {
        const int32_t *id = ids + (size_t)b * T;
        wl_embed_forward(xs, id, tok, pos, 1, T, D);
        final_row_keep(keep, id, T);
        for (int h = 0; h < H; h++) {
            size_t bh = (size_t)b * H + h;
            const float *uh = u + bh * D;
            float *ah = a + bh * T, *m = mx + bh * D;
            for (int t = 0; t < T; t++) ah[t] = keep[t] ? dot16(xs + (size_t)t * D, uh, D) : 0.0f;  /* X u_h */
            masked_softmax(ah, keep, T);
            memset(m, 0, sizeof(float) * D);   /* mx_h = sum_t a_t X_t (zero weights add nothing) */
            for (int t = 0; t < T; t++)
                if (ah[t] != 0.0f) axpy8(m, ah[t], xs + (size_t)t * D, D);
        }
    }
}

void wl_attention_message_forward(float *msg, const float *mx, const float *wv, int B, int D, int H)
{
    int d = D / H;
    for (int h = 0; h < H; h++)   /* message_h = mx_h W_V_h^T */
        wl_gemm(NULL, &(wl_gemm_op){.m = B, .n = d, .k = D, .out = msg + h * d, .ld_out = D, .a = mx + (size_t)h * D,
                                    .ld_a = H * D, .b = wv + (size_t)h * d * D, .ld_b = D, .b_t = 1});
}
/* @end final_query */

void wl_attention_message_backward(float *dmx, float *dwv, const float *dmsg, const float *mx, const float *wv,
                                   int B, int D, int H)
{
    int d = D / H;
    for (int h = 0; h < H; h++) {
        /* message_h = mx_h W_V_h^T: dW_V_h = dmsg_h^T mx_h, dmx_h = dmsg_h W_V_h */
        wl_gemm(NULL, &(wl_gemm_op){.m = d, .n = D, .k = B, .out = dwv + (size_t)h * d * D, .ld_out = D,
                                    .a = dmsg + h * d, .ld_a = D, .a_t = 1, .b = mx + (size_t)h * D, .ld_b = H * D});
        wl_gemm(NULL, &(wl_gemm_op){.m = B, .n = D, .k = d, .out = dmx + (size_t)h * D, .ld_out = H * D,
                                    .a = dmsg + h * d, .ld_a = D, .b = wv + (size_t)h * d * D, .ld_b = D});
    }
}

HOT void wl_attention_weights_backward(float *du, float *dtok, float *dpos, float *xs, float *dxs, const float *dmx,
                                       const float *a, const float *u, const int32_t *ids, const float *tok,
                                       const float *pos, int B, int T, int D, int H)
{
    float da[T];
    unsigned char used[T];
    for (int b = 0; b < B; b++) {
        const int32_t *id = ids + (size_t)b * T;
        wl_embed_forward(xs, id, tok, pos, 1, T, D);
        memset(dxs, 0, sizeof(float) * T * D);
        memset(used, 0, sizeof used);
        for (int h = 0; h < H; h++) {
            size_t bh = (size_t)b * H + h;
            const float *ah = a + bh * T, *uh = u + bh * D, *dm = dmx + bh * D;
            float *duh = du + bh * D;
            /* mx_h = sum_t a_t X_t: da_t = dmx_h . X_t (a zero weight, masked or underflowed, passes nothing back) */
            float dot = 0.0f;
            for (int t = 0; t < T; t++) {
                da[t] = ah[t] != 0.0f ? dot16(dm, xs + (size_t)t * D, D) : 0.0f;
                dot += ah[t] * da[t];
            }
            /* a = softmax(scores): ds_t = a_t (da_t - sum a da); scores_t = X_t . u_h:
             * dX_t += a_t dmx_h + ds_t u_h, du_h = sum_t ds_t X_t */
            memset(duh, 0, sizeof(float) * D);
            for (int t = 0; t < T; t++) {
                if (ah[t] == 0.0f) continue;
                float ds = ah[t] * (da[t] - dot);
                float *dx = dxs + (size_t)t * D;
                const float *x = xs + (size_t)t * D;
                v8 va = splat(ah[t]), vs = splat(ds);
                for (int k = 0; k < D; k += 8) {
                    st8(dx + k, ld8(dx + k) + (va * ld8(dm + k) + vs * ld8(uh + k)));
                    st8(duh + k, ld8(duh + k) + vs * ld8(x + k));
                }
                used[t] = 1;
            }
        }
        for (int t = 0; t < T; t++) {   /* X = tok[ids] + pos */
            if (!used[t]) continue;
            if (id[t] != 0) axpy8(dtok + (size_t)id[t] * D, 1.0f, dxs + (size_t)t * D, D);
            axpy8(dpos + (size_t)t * D, 1.0f, dxs + (size_t)t * D, D);
        }
    }
}

void wl_attention_query_backward(float *dtok, float *dpos, float *dwq, float *dwk, float *dq, float *dxl,
                                 const float *du, const float *xl, const float *q, const int32_t *ids,
                                 const float *wq, const float *wk, int B, int T, int D, int H)
{
    int d = D / H;
    float c = 1.0f / sqrtf((float)d);
    for (int h = 0; h < H; h++) {
        /* u_h = c W_K_h^T q_h: dq_h = c du_h W_K_h^T, dW_K_h = c q_h^T du_h (c applied after the products) */
        wl_gemm(NULL, &(wl_gemm_op){.m = B, .n = d, .k = D, .out = dq + h * d, .ld_out = D, .a = du + (size_t)h * D,
                                    .ld_a = H * D, .b = wk + (size_t)h * d * D, .ld_b = D, .b_t = 1});
        wl_gemm(NULL, &(wl_gemm_op){.m = d, .n = D, .k = B, .out = dwk + (size_t)h * d * D, .ld_out = D,
                                    .a = q + h * d, .ld_a = D, .a_t = 1, .b = du + (size_t)h * D, .ld_b = H * D});
    }
    scale(dq, (size_t)B * D, c);
    scale(dwk, (size_t)D * D, c);
    /* q = x W_Q^T: dW_Q = dq^T x, dx += dq W_Q */
    wl_gemm(NULL, &(wl_gemm_op){.m = D, .n = D, .k = B, .out = dwq, .ld_out = D, .a = dq, .ld_a = D, .a_t = 1,
                                .b = xl, .ld_b = D});
    wl_gemm(NULL, &(wl_gemm_op){.m = B, .n = D, .k = D, .out = dxl, .ld_out = D, .a = dq, .ld_a = D, .b = wq,
                                .ld_b = D, .accumulate = 1});
    for (int b = 0; b < B; b++) {   /* x = tok[ids[b,T-1]] + pos[T-1] */
        int id = ids[(size_t)b * T + T - 1];
        if (id != 0) axpy8(dtok + (size_t)id * D, 1.0f, dxl + (size_t)b * D, D);
        axpy8(dpos + (size_t)(T - 1) * D, 1.0f, dxl + (size_t)b * D, D);
    }
}

/* @code attention: every query of every head: split into heads, scores, causal mask, softmax, messages */
/* Qf Kf Vf [B,T,D] split into Q K V [B,H,T,d] (d = D/H); scores, weights [B,H,T,T]; messages [B,T,D]; ids [B,T] */
void wl_attention_full_forward(float *Q, float *K, float *V, float *scores, float *weights, float *messages,
                               const float *Qf, const float *Kf, const float *Vf, const int32_t *ids,
                               int B, int T, int D, int H)
{
    int d = D / H;
    float c = 1.0f / sqrtf((float)d);
    int32_t keep[T];
    for (int b = 0; b < B; b++) {
        const int32_t *id = ids + (size_t)b * T;
        for (int h = 0; h < H; h++) {
            size_t bh = (size_t)b * H + h;
            float *Qh = Q + bh * T * d, *Kh = K + bh * T * d, *Vh = V + bh * T * d;
            float *S = scores + bh * T * T, *W = weights + bh * T * T;
            for (int t = 0; t < T; t++) {   /* split the heads: [T,D] -> [H,T,d] */
                size_t src = ((size_t)b * T + t) * D + (size_t)h * d;
                memcpy(Qh + (size_t)t * d, Qf + src, sizeof(float) * d);
                memcpy(Kh + (size_t)t * d, Kf + src, sizeof(float) * d);
                memcpy(Vh + (size_t)t * d, Vf + src, sizeof(float) * d);
            }
            wl_gemm(NULL, &(wl_gemm_op){.m = T, .n = T, .k = d, .out = W, .ld_out = T, .a = Qh, .ld_a = d, .b = Kh,
                                        .ld_b = d, .b_t = 1});   /* Q_h K_h^T */
            for (int t = 0; t < T; t++) {
                float *s = S + (size_t)t * T, *w = W + (size_t)t * T;
                for (int j = 0; j < T; j++) {
                    keep[j] = j <= t && (id[t] == 0 || id[j] != 0) ? -1 : 0;   /* the causal and padding masks */
                    w[j] *= c;                                                  /* scores = Q_h K_h^T / sqrt(d) */
                    s[j] = keep[j] ? w[j] : -INFINITY;
                }
                masked_softmax(w, keep, T);
            }
            /* messages_h = weights_h V_h, into the head's columns of messages [B,T,D] */
            wl_gemm(NULL, &(wl_gemm_op){.m = T, .n = d, .k = T, .out = messages + (size_t)b * T * D + (size_t)h * d,
                                        .ld_out = D, .a = W, .ld_a = T, .b = Vh, .ld_b = d});
        }
    }
}
/* @end attention */

/* wl_layers.c: the models' layers: embeddings, Linear (OpenBLAS sgemm), ReLU, softmax cross-entropy, attention. */
#include "wl_layers.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

void embed_forward(float *X, const int32_t *ids, const float *tok, const float *pos, int B, int T, int D)
{
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) {
            float *x = X + ((size_t)b * T + t) * D;
            const float *e = tok + (size_t)ids[(size_t)b * T + t] * D;
            if (pos) {
                const float *p = pos + (size_t)t * D;
                for (int i = 0; i < D; i++) x[i] = e[i] + p[i];
            } else {
                memcpy(x, e, sizeof(float) * D);
            }
        }
    }
}

void embed_backward(float *dtok, float *dpos, const float *dX, const int32_t *ids, int B, int T, int D)
{
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) {
            const float *g = dX + ((size_t)b * T + t) * D;
            int id = ids[(size_t)b * T + t];
            if (id != 0) {   /* X = tok[ids] + pos: every row of tok but PAD collects its slots' gradient */
                float *e = dtok + (size_t)id * D;
                for (int i = 0; i < D; i++) e[i] += g[i];
            }
            if (dpos) {
                float *p = dpos + (size_t)t * D;
                for (int i = 0; i < D; i++) p[i] += g[i];
            }
        }
    }
}

void matmul_forward(float *out, const float *inp, const float *weight, const float *bias, int N, int C, int OC)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, OC, C, 1.0f, inp, C, weight, C, 0.0f, out, OC);
    if (bias) {
        for (int n = 0; n < N; n++) {
            float *o = out + (size_t)n * OC;
            for (int j = 0; j < OC; j++) o[j] += bias[j];
        }
    }
}

void matmul_backward(float *dinp, float *dweight, float *dbias, const float *dout, const float *inp,
                     const float *weight, int N, int C, int OC)
{
    /* out = inp weight^T + bias */
    if (dinp)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, C, OC, 1.0f, dout, OC, weight, C, 0.0f, dinp, C);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, OC, C, N, 1.0f, dout, OC, inp, C, 0.0f, dweight, C);
    if (dbias) {
        memset(dbias, 0, sizeof(float) * OC);
        for (int n = 0; n < N; n++) {
            const float *g = dout + (size_t)n * OC;
            for (int j = 0; j < OC; j++) dbias[j] += g[j];
        }
    }
}

void relu_forward(float *out, const float *inp, size_t n)
{
    for (size_t i = 0; i < n; i++) out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
}

void relu_backward(float *dinp, const float *dout, const float *out, size_t n)
{
    for (size_t i = 0; i < n; i++) dinp[i] = out[i] > 0.0f ? dout[i] : 0.0f;
}

void crossentropy_forward(float *losses, float *dlogits, const float *logits, const int32_t *tgt, float scale,
                          int N, int V)
{
    for (int n = 0; n < N; n++) {
        const float *x = logits + (size_t)n * V;
        float mx = x[0];
        for (int j = 1; j < V; j++) mx = x[j] > mx ? x[j] : mx;
        double sum = 0.0;
        for (int j = 0; j < V; j++) sum += expf(x[j] - mx);
        losses[n] = (float)(log(sum) - (double)(x[tgt[n]] - mx));
        if (dlogits) {
            float *g = dlogits + (size_t)n * V;
            float inv = (float)(1.0 / sum) * scale;
            for (int j = 0; j < V; j++) g[j] = expf(x[j] - mx) * inv;
            g[tgt[n]] -= scale;
        }
    }
}

/* Softmax of s [n] in place over the entries with keep[t] != 0; the others become exactly 0. */
static void masked_softmax(float *s, const unsigned char *keep, int n)
{
    float mx = -INFINITY;
    for (int t = 0; t < n; t++)
        if (keep[t] && s[t] > mx) mx = s[t];
    float sum = 0.0f;
    for (int t = 0; t < n; t++) {
        s[t] = keep[t] ? expf(s[t] - mx) : 0.0f;
        sum += s[t];
    }
    float inv = 1.0f / sum;
    for (int t = 0; t < n; t++) s[t] *= inv;
}

void attention_last_forward(float *q, float *u, float *a, float *mx, float *msg, const float *X,
                            const int32_t *ids, const float *wq, const float *wk, const float *wv,
                            int B, int T, int D, int H)
{
    int d = D / H;
    float c = 1.0f / sqrtf((float)d);
    const float *xl = X + (size_t)(T - 1) * D;   /* x = X[b,T-1], rows T*D apart */
    /* q = x W_Q^T */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, D, D, 1.0f, xl, T * D, wq, D, 0.0f, q, D);
    /* u_h = c W_K_h^T q_h: [B,d] x [d,D] per head */
    for (int h = 0; h < H; h++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, D, d, c, q + h * d, D, wk + (size_t)h * d * D, D,
                    0.0f, u + (size_t)h * D, H * D);
    unsigned char keep[T];
    for (int b = 0; b < B; b++) {
        const float *Xb = X + (size_t)b * T * D;
        const int32_t *id = ids + (size_t)b * T;
        for (int t = 0; t < T; t++) keep[t] = id[T - 1] == 0 || id[t] != 0;
        for (int h = 0; h < H; h++) {
            const float *uh = u + ((size_t)b * H + h) * D;
            float *ah = a + ((size_t)b * H + h) * T;
            for (int t = 0; t < T; t++) {   /* scores_h = X u_h */
                const float *x = Xb + (size_t)t * D;
                float s = 0.0f;
                for (int k = 0; k < D; k++) s += x[k] * uh[k];
                ah[t] = s;
            }
            masked_softmax(ah, keep, T);
            float *m = mx + ((size_t)b * H + h) * D;   /* mx_h = sum_t a_t X_t */
            memset(m, 0, sizeof(float) * D);
            for (int t = 0; t < T; t++) {
                const float *x = Xb + (size_t)t * D;
                float w = ah[t];
                for (int k = 0; k < D; k++) m[k] += w * x[k];
            }
        }
    }
    /* message_h = mx_h W_V_h^T: [B,D] x [D,d] per head */
    for (int h = 0; h < H; h++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, d, D, 1.0f, mx + (size_t)h * D, H * D,
                    wv + (size_t)h * d * D, D, 0.0f, msg + h * d, D);
}

void attention_last_backward(float *dX, float *dwq, float *dwk, float *dwv, float *dq, float *du, float *dmx,
                             const float *dmsg, const float *X, const float *q, const float *u, const float *a,
                             const float *mx, const float *wq, const float *wk, const float *wv,
                             int B, int T, int D, int H)
{
    int d = D / H;
    float c = 1.0f / sqrtf((float)d);
    const float *xl = X + (size_t)(T - 1) * D;
    for (int h = 0; h < H; h++) {
        /* message_h = mx_h W_V_h^T: dW_V_h = dmsg_h^T mx_h, dmx_h = dmsg_h W_V_h */
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, d, D, B, 1.0f, dmsg + h * d, D, mx + (size_t)h * D,
                    H * D, 0.0f, dwv + (size_t)h * d * D, D);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, D, d, 1.0f, dmsg + h * d, D,
                    wv + (size_t)h * d * D, D, 0.0f, dmx + (size_t)h * D, H * D);
    }
    float da[T];
    for (int b = 0; b < B; b++) {
        const float *Xb = X + (size_t)b * T * D;
        float *dXb = dX + (size_t)b * T * D;
        for (int h = 0; h < H; h++) {
            size_t bh = (size_t)b * H + h;
            const float *ah = a + bh * T, *uh = u + bh * D, *dm = dmx + bh * D;
            float *duh = du + bh * D;
            /* mx_h = sum_t a_t X_t: da_t = dmx_h . X_t, dX_t += a_t dmx_h */
            float dot = 0.0f;
            for (int t = 0; t < T; t++) {
                const float *x = Xb + (size_t)t * D;
                float *dx = dXb + (size_t)t * D;
                float s = 0.0f;
                for (int k = 0; k < D; k++) {
                    s += dm[k] * x[k];
                    dx[k] += ah[t] * dm[k];
                }
                da[t] = s;
                dot += ah[t] * s;
            }
            /* a = softmax(scores): ds_t = a_t (da_t - sum a da); scores_t = X_t . u_h: dX_t += ds_t u_h,
             * du_h = sum_t ds_t X_t */
            memset(duh, 0, sizeof(float) * D);
            for (int t = 0; t < T; t++) {
                float ds = ah[t] * (da[t] - dot);
                const float *x = Xb + (size_t)t * D;
                float *dx = dXb + (size_t)t * D;
                for (int k = 0; k < D; k++) {
                    dx[k] += ds * uh[k];
                    duh[k] += ds * x[k];
                }
            }
        }
    }
    for (int h = 0; h < H; h++) {
        /* u_h = c W_K_h^T q_h: dq_h = c du_h W_K_h^T, dW_K_h = c q_h^T du_h */
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, d, D, c, du + (size_t)h * D, H * D,
                    wk + (size_t)h * d * D, D, 0.0f, dq + h * d, D);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, d, D, B, c, q + h * d, D, du + (size_t)h * D, H * D,
                    0.0f, dwk + (size_t)h * d * D, D);
    }
    /* q = x W_Q^T: dW_Q = dq^T x, dx += dq W_Q */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, D, D, B, 1.0f, dq, D, xl, T * D, 0.0f, dwq, D);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, D, D, 1.0f, dq, D, wq, D, 1.0f, dX + (size_t)(T - 1) * D,
                T * D);
}

void attention_full_forward(float *Q, float *K, float *V, float *scores, float *weights, float *messages,
                            const float *Qf, const float *Kf, const float *Vf, const int32_t *ids,
                            int B, int T, int D, int H)
{
    int d = D / H;
    float c = 1.0f / sqrtf((float)d);
    unsigned char keep[T];
    for (int b = 0; b < B; b++) {
        const int32_t *id = ids + (size_t)b * T;
        for (int h = 0; h < H; h++) {
            size_t bh = (size_t)b * H + h;
            float *Qh = Q + bh * T * d, *Kh = K + bh * T * d, *Vh = V + bh * T * d;
            for (int t = 0; t < T; t++) {   /* split the heads: [T,D] -> [H,T,d] */
                size_t src = ((size_t)b * T + t) * D + (size_t)h * d;
                memcpy(Qh + (size_t)t * d, Qf + src, sizeof(float) * d);
                memcpy(Kh + (size_t)t * d, Kf + src, sizeof(float) * d);
                memcpy(Vh + (size_t)t * d, Vf + src, sizeof(float) * d);
            }
            for (int t = 0; t < T; t++) {
                float *s = scores + (bh * T + t) * T, *w = weights + (bh * T + t) * T;
                const float *qt = Qh + (size_t)t * d;
                for (int j = 0; j < T; j++) {
                    keep[j] = j <= t && (id[t] == 0 || id[j] != 0);
                    float acc = 0.0f;
                    for (int k = 0; k < d; k++) acc += qt[k] * Kh[(size_t)j * d + k];
                    s[j] = keep[j] ? acc * c : -INFINITY;
                    w[j] = acc * c;
                }
                masked_softmax(w, keep, T);
                float *m = messages + ((size_t)b * T + t) * D + (size_t)h * d;
                memset(m, 0, sizeof(float) * d);
                for (int j = 0; j <= t; j++)
                    for (int k = 0; k < d; k++) m[k] += w[j] * Vh[(size_t)j * d + k];
            }
        }
    }
}

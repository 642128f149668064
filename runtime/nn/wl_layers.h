/* wl_layers.h: the models' layers as free functions <op>_forward / <op>_backward (outputs first, then inputs, then sizes).
 *
 * Shapes: B batch, T context, D width, H heads, d = D/H head width, F hidden, V vocab, N rows, C in, OC out.
 * Matrices are row-major; a Linear weight is [OC, C] as in PyTorch. Unless a comment says "accumulates",
 * every output is overwritten. Results depend only on the inputs and the thread count (no racy sums). */
#ifndef WL_LAYERS_H
#define WL_LAYERS_H

#include <stddef.h>
#include <stdint.h>

/* X[b,t,:] = tok[ids[b,t],:] + pos[t,:] (pos may be NULL: no positions). X [B,T,D]. */
void embed_forward(float *X, const int32_t *ids, const float *tok, const float *pos, int B, int T, int D);
/* Accumulates dX [B,T,D] into the rows of dtok [V,D] (the PAD row 0 is skipped: it never learns) and,
 * when dpos is non-NULL, into dpos [T,D]. */
void embed_backward(float *dtok, float *dpos, const float *dX, const int32_t *ids, int B, int T, int D);

/* out[N,OC] = inp[N,C] weight[OC,C]^T + bias[OC] (bias may be NULL). */
void matmul_forward(float *out, const float *inp, const float *weight, const float *bias, int N, int C, int OC);
/* dinp[N,C] = dout weight (skipped when dinp is NULL); dweight[OC,C] = dout^T inp;
 * dbias[OC] = column sums of dout (skipped when dbias is NULL). */
void matmul_backward(float *dinp, float *dweight, float *dbias, const float *dout, const float *inp,
                     const float *weight, int N, int C, int OC);

/* out = max(inp, 0) over n values; out may equal inp. */
void relu_forward(float *out, const float *inp, size_t n);
/* dinp = dout where out > 0, else 0; dinp may equal dout. */
void relu_backward(float *dinp, const float *dout, const float *out, size_t n);

/* Softmax cross-entropy of logits [N,V] against tgt [N]: losses[n] = -ln softmax(logits[n])[tgt[n]].
 * When dlogits is non-NULL it receives (softmax - onehot(tgt)) * scale (dlogits may equal logits). */
void crossentropy_forward(float *losses, float *dlogits, const float *logits, const int32_t *tgt, float scale,
                          int N, int V);

/* The final query row of causal attention with H heads, folded through W_K and W_V so that K and V are never
 * formed: with x = X[b,T-1] and q = W_Q x, each head uses u_h = W_K_h^T q_h / sqrt(d) (scores_h = X u_h),
 * weights a_h = softmax(scores_h) and mx_h = sum_t a_h[t] X[b,t] (message_h = W_V_h mx_h).
 * Mask: when ids[b,T-1] is a real token, PAD keys are masked; a PAD last slot keeps every key (causal prefix).
 * Outputs q [B,D], u [B,H,D], a [B,H,T], mx [B,H,D], msg [B,D]; inputs X [B,T,D], ids [B,T], wq, wk, wv [D,D]. */
void attention_last_forward(float *q, float *u, float *a, float *mx, float *msg, const float *X,
                            const int32_t *ids, const float *wq, const float *wk, const float *wv,
                            int B, int T, int D, int H);
/* Backward of attention_last_forward given dmsg [B,D]: accumulates into dX [B,T,D] (the query path lands in
 * dX[b,T-1]); writes dwq, dwk, dwv [D,D]. Scratch: dq [B,D], du [B,H,D], dmx [B,H,D]. */
void attention_last_backward(float *dX, float *dwq, float *dwk, float *dwv, float *dq, float *du, float *dmx,
                             const float *dmsg, const float *X, const float *q, const float *u, const float *a,
                             const float *mx, const float *wq, const float *wk, const float *wv,
                             int B, int T, int D, int H);

/* Every query row of causal attention with H heads (the inspection path).
 * Mask for query t: keys after t; and, when ids[b,t] is real, PAD keys. A PAD query keeps its causal prefix.
 * Inputs X [B,T,D] and Qf, Kf, Vf [B,T,D] (= X W^T); outputs Q, K, V [B,H,T,d] (the heads split out),
 * scores [B,H,T,T] (masked entries -INFINITY), weights [B,H,T,T], messages [B,T,D] (heads concatenated). */
void attention_full_forward(float *Q, float *K, float *V, float *scores, float *weights, float *messages,
                            const float *Qf, const float *Kf, const float *Vf, const int32_t *ids,
                            int B, int T, int D, int H);

#endif

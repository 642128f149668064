/* wl_layers.h: the models' layers as free functions <op>_forward / <op>_backward (outputs first, then inputs, then sizes).
 *
 * Shapes: B batch, T context, D width, H heads, d = D/H head width, F hidden, V vocab, N rows, C in, OC out.
 * Matrices are row-major; a Linear weight is [OC, C] as in PyTorch. Unless a comment says "accumulates",
 * every output is overwritten. D must be a multiple of 16. Functions marked "per example" treat each example
 * on its own, so a caller may run them on disjoint batch slices in parallel (each with its own scratch and
 * accumulators); every matrix product goes through wl_gemm (the big ones split over the caller's threads, the
 * attention's small per-head ones on the calling thread). Sums run in a fixed order: the same inputs and thread
 * count give bit-identical results. */
#ifndef WL_LAYERS_H
#define WL_LAYERS_H

#include <stddef.h>
#include <stdint.h>

#include "wl_gemm.h"

/* Per example. X[b,t,:] = tok[ids[b,t],:] + pos[t,:] (pos may be NULL: no positions). X [B,T,D]. */
void wl_embed_forward(float *X, const int32_t *ids, const float *tok, const float *pos, int B, int T, int D);
/* Per example. Accumulates dX [B,T,D] into the rows of dtok [V,D] (the PAD row 0 is skipped: it never learns)
 * and, when dpos is non-NULL, into dpos [T,D]. */
void wl_embed_backward(float *dtok, float *dpos, const float *dX, const int32_t *ids, int B, int T, int D);

/* Linear, through wl_gemm (par: the caller's threads, may be NULL); ld >= C is the row stride of inp (and dinp):
 * out[N,OC] = inp[N,C] weight[OC,C]^T + bias[OC] (bias may be NULL). */
void wl_linear_forward(const wl_par *par, float *out, const float *inp, size_t ld, const float *weight,
                       const float *bias, int N, int C, int OC);
/* dweight[OC,C] = dout^T inp; dinp[N,C] = dout weight (skipped when dinp is NULL);
 * dbias[OC] = column sums of dout (skipped when dbias is NULL). */
void wl_linear_backward(const wl_par *par, float *dinp, float *dweight, float *dbias, const float *dout,
                        const float *inp, size_t ld, const float *weight, int N, int C, int OC);
/* The vocabulary head, feature-major: outT[OC,N] = weight inp^T + bias, so example n is column n (the layout
 * the cross-entropy streams through and the backward products read directly). */
void wl_head_forward(const wl_par *par, float *outT, const float *inp, const float *weight, const float *bias, int N,
                     int C, int OC);
/* Backward of head_forward: dweight[OC,C] = doutT inp; dinp[N,C] = doutT^T weight. */
void wl_head_backward(const wl_par *par, float *dinp, float *dweight, const float *doutT, const float *inp,
                      const float *weight, int N, int C, int OC);
/* out[cols,rows] = in[rows,cols]^T. */
void wl_transpose(float *out, const float *in, int rows, int cols);

/* out = max(inp, 0) over n values; out may equal inp. */
void wl_relu_forward(float *out, const float *inp, size_t n);
/* dinp = dout where out > 0, else 0; dinp may equal dout. */
void wl_relu_backward(float *dinp, const float *dout, const float *out, size_t n);

/* Per example (column). Softmax cross-entropy of the N columns of logitsT (row stride ld, V rows):
 * losses[n] = -ln softmax(column n)[tgt[n]]. stats [2,ld] (a column slice of it, as of logitsT) receives each
 * column's max and scale / its sum of exponentials; when elogitsT is non-NULL (it may equal logitsT) it receives
 * the exponentials exp(x - max), for wl_crossentropy_backward. */
void wl_crossentropy_forward(float *losses, float *elogitsT, float *stats, const float *logitsT, const int32_t *tgt,
                             float scale, int N, int V, int ld);
/* Rows v0 .. v0+rows-1 of the softmax gradient, in place of those rows of the forward's exponentials (dlogitsT),
 * from its stats of all N columns: dlogitsT = (softmax - onehot(tgt)) * scale; when dbias is non-NULL,
 * dbias[r] = the sum of row r (the gradient of a bias added to every column). */
void wl_crossentropy_backward(float *dlogitsT, float *dbias, const float *stats, const int32_t *tgt, float scale,
                              int v0, int rows, int N, int ld);
/* Per row, in double: losses[n] = -ln softmax(logits[n,:])[tgt[n]] = max + ln sum exp(logits[n,:] - max)
 * - logits[n,tgt[n]], for logits [N,V] row-major (as wl_model_forward writes them), tgt [N], losses [N]: each
 * target's loss as the lessons show it (the training loss above is float32 and feature-major). */
void wl_layers_token_losses(double *losses, const float *logits, const int32_t *tgt, int N, int V);
/* ln sum exp(z[v]) over z [V], in double as above (max + ln sum exp(z - max)): every next token's loss is this minus
 * its logit, and its probability exp of minus that loss, the same numbers as wl_layers_token_losses gives. */
double wl_layers_logsumexp(const float *z, int V);

/* The final query row of causal attention with H heads, folded through W_K and W_V so that K and V are never
 * formed. With x = X[b,T-1] and q = W_Q x, head h uses u_h = W_K_h^T q_h / sqrt(d) (scores_h = X u_h),
 * weights a_h = softmax(scores_h), mx_h = sum_t a_h[t] X[b,t] and message_h = W_V_h mx_h.
 * Mask: when ids[b,T-1] is a real token, PAD keys are masked; a PAD last slot keeps every key (causal prefix).
 * X = tok[ids] + pos is rebuilt per example and never stored whole. Three steps, each with its backward:
 *   query:   xl [B,D] = x, q [B,D], u [B,H,D]                       (batched sgemm)
 *   weights: a [B,H,T], mx [B,H,D]                                  (per example)
 *   message: msg [B,D]                                              (batched sgemm) */
void wl_attention_query_forward(float *xl, float *q, float *u, const int32_t *ids, const float *tok, const float *pos,
                                const float *wq, const float *wk, int B, int T, int D, int H);
/* Per example; scratch xs [T,D]. */
void wl_attention_weights_forward(float *a, float *mx, float *xs, const int32_t *ids, const float *tok,
                                  const float *pos, const float *u, int B, int T, int D, int H);
void wl_attention_message_forward(float *msg, const float *mx, const float *wv, int B, int D, int H);
/* dmx [B,H,D] and dwv [D,D] from dmsg [B,D]. */
void wl_attention_message_backward(float *dmx, float *dwv, const float *dmsg, const float *mx, const float *wv,
                                   int B, int D, int H);
/* Per example: du [B,H,D]; accumulates the gradient of X (through the weights and mx) into dtok (PAD row skipped)
 * and dpos. Scratch xs, dxs [T,D]. */
void wl_attention_weights_backward(float *du, float *dtok, float *dpos, float *xs, float *dxs, const float *dmx,
                                   const float *a, const float *u, const int32_t *ids, const float *tok,
                                   const float *pos, int B, int T, int D, int H);
/* dwq, dwk [D,D]; dxl [B,D] holds x's gradient from elsewhere (the residual) on entry and gets the query path
 * added; then the total is accumulated into dtok[ids[b,T-1]] (unless PAD) and dpos[T-1]. Scratch dq [B,D]. */
void wl_attention_query_backward(float *dtok, float *dpos, float *dwq, float *dwk, float *dq, float *dxl,
                                 const float *du, const float *xl, const float *q, const int32_t *ids,
                                 const float *wq, const float *wk, int B, int T, int D, int H);

/* Every query row of causal attention with H heads (the inspection path).
 * Mask for query t: keys after t; and, when ids[b,t] is real, PAD keys. A PAD query keeps its causal prefix.
 * Inputs Qf, Kf, Vf [B,T,D] (= X W^T); outputs Q, K, V [B,H,T,d] (the heads split out),
 * scores [B,H,T,T] (masked entries -INFINITY), weights [B,H,T,T], messages [B,T,D] (heads concatenated). */
void wl_attention_full_forward(float *Q, float *K, float *V, float *scores, float *weights, float *messages,
                               const float *Qf, const float *Kf, const float *Vf, const int32_t *ids,
                               int B, int T, int D, int H);

#endif

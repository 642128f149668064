/* wl_model.c: the three models: parameters in one buffer, initialisation, forward, loss with backward, details. */
#include "wl_model.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_layers.h"
#include "wl_pool.h"
#include "wl_rng.h"

/* ---- parameters ---- */

/* Named pointers into one buffer of the parameter layout (params, grads, optimizer state). */
typedef struct tensors {
    float *tok, *pos, *wq, *wk, *wv, *wo, *hid_w, *hid_b, *head_w, *head_b;
} tensors;

static float *at(const wl_model *m, float *base, const char *name)
{
    const wl_param_view *v = wl_model_view(m, name);
    return v ? base + v->offset : NULL;
}

static tensors tensors_at(const wl_model *m, float *base)
{
    tensors t = {
        at(m, base, "token_embedding.weight"), at(m, base, "position_embedding.weight"),
        at(m, base, "W_Q.weight"), at(m, base, "W_K.weight"), at(m, base, "W_V.weight"), at(m, base, "W_O.weight"),
        at(m, base, "hidden_layer.weight"), at(m, base, "hidden_layer.bias"),
        at(m, base, "vocab_head.weight"), at(m, base, "vocab_head.bias"),
    };
    return t;
}

static void add_view(wl_model *m, const char *name, int rows, int cols)
{
    wl_param_view *v = &m->views[m->nviews++];
    v->name = name;
    v->ndim = cols ? 2 : 1;
    v->shape[0] = rows;
    v->shape[1] = cols;
    v->offset = m->nparams;
    v->size = (size_t)rows * (cols ? cols : 1);
    m->nparams += v->size;
}

const wl_param_view *wl_model_view(const wl_model *m, const char *name)
{
    for (int i = 0; i < m->nviews; i++)
        if (strcmp(m->views[i].name, name) == 0) return &m->views[i];
    return NULL;
}

static void init_normal(float *p, size_t n, wl_rng *r)
{
    for (size_t i = 0; i < n; i++) p[i] = (float)wl_rng_normal(r);
}

static void init_uniform(float *p, size_t n, int fan_in, wl_rng *r)
{
    double bound = 1.0 / sqrt((double)fan_in);
    for (size_t i = 0; i < n; i++) p[i] = (float)((2.0 * wl_rng_uniform(r) - 1.0) * bound);
}

int wl_model_layout(wl_model *m, const char *kind_name, int V, int heads, wl_err *err)
{
    memset(m, 0, sizeof *m);
    if (!kind_name || (strcmp(kind_name, "mlp") && strcmp(kind_name, "attention") && strcmp(kind_name, "multihead")))
        return wl_fail(err, "unknown model kind '%s': choose mlp, attention or multihead", kind_name ? kind_name : "");
    if (V < 4 || V > WL_MODEL_MAX_V)
        return wl_fail(err, "model %s: vocabulary size %d is outside 4..%d (ids 0..3 are the special tokens)",
                       kind_name, V, WL_MODEL_MAX_V);
    int multi = strcmp(kind_name, "multihead") == 0;
    if (heads == 0) heads = multi ? 4 : 1;
    if (!multi && heads != 1)
        return wl_fail(err, "model %s has one head (heads=%d given); use kind multihead for several heads",
                       kind_name, heads);
    if (heads < 1 || WL_D % heads)
        return wl_fail(err, "model %s: heads=%d does not divide the width %d (choose 1, 2, 4, 8, 16, 32 or 64)",
                       kind_name, heads, WL_D);
    m->kind = strcmp(kind_name, "mlp") == 0 ? WL_KIND_MLP : WL_KIND_ATTENTION;
    snprintf(m->kind_name, sizeof m->kind_name, "%s", kind_name);
    m->V = V;
    m->H = heads;
    add_view(m, "token_embedding.weight", V, WL_D);
    if (m->kind == WL_KIND_MLP) {
        add_view(m, "hidden_layer.weight", WL_F, WL_T * WL_D);
    } else {
        add_view(m, "position_embedding.weight", WL_T, WL_D);
        add_view(m, "W_Q.weight", WL_D, WL_D);
        add_view(m, "W_K.weight", WL_D, WL_D);
        add_view(m, "W_V.weight", WL_D, WL_D);
        add_view(m, "W_O.weight", WL_D, WL_D);
        add_view(m, "hidden_layer.weight", WL_F, WL_D);
    }
    add_view(m, "hidden_layer.bias", WL_F, 0);
    add_view(m, "vocab_head.weight", V, WL_F);
    add_view(m, "vocab_head.bias", V, 0);
    return 0;
}

int wl_model_init(wl_model *m, const char *kind_name, int V, int heads, uint64_t seed, wl_err *err)
{
    if (wl_model_layout(m, kind_name, V, heads, err)) return -1;
    m->params = malloc(sizeof(float) * m->nparams);
    if (!m->params) {
        size_t n = m->nparams;
        memset(m, 0, sizeof *m);
        return wl_fail(err, "model %s: out of memory for %zu parameters", kind_name, n);
    }
    tensors t = tensors_at(m, m->params);
    m->tok_emb = t.tok;
    m->pos_emb = t.pos;
    m->wq = t.wq;
    m->wk = t.wk;
    m->wv = t.wv;
    m->wo = t.wo;
    m->hid_w = t.hid_w;
    m->hid_b = t.hid_b;
    m->head_w = t.head_w;
    m->head_b = t.head_b;

    wl_rng r;
    wl_rng_seed(&r, seed);
    for (int i = 0; i < m->nviews; i++) {
        const wl_param_view *v = &m->views[i];
        float *p = m->params + v->offset;
        if (strstr(v->name, "embedding")) {
            init_normal(p, v->size, &r);
        } else {
            /* a Linear's fan_in is its weight's in-features (the bias shares its weight's bound) */
            char wname[64];
            snprintf(wname, sizeof wname, "%.*s.weight", (int)(strchr(v->name, '.') - v->name), v->name);
            init_uniform(p, v->size, wl_model_view(m, wname)->shape[1], &r);
        }
    }
    memset(m->tok_emb, 0, sizeof(float) * WL_D);   /* the PAD row */
    return 0;
}

void wl_model_free(wl_model *m)
{
    if (!m) return;
    if (!m->borrowed) free(m->params);
    memset(m, 0, sizeof *m);
}

void wl_model_borrow_params(wl_model *m, float *params)
{
    float **named[] = {&m->tok_emb, &m->pos_emb, &m->wq, &m->wk, &m->wv, &m->wo, &m->hid_w, &m->hid_b, &m->head_w,
                       &m->head_b};
    for (size_t i = 0; i < sizeof named / sizeof *named; i++)
        if (*named[i]) *named[i] = params + (*named[i] - m->params);
    if (!m->borrowed) free(m->params);
    m->params = params;
    m->borrowed = 1;
}

/* ---- workspace ---- */

/* The mlp's X and dX rows are T*D = 4096 floats: 16 KiB apart they would all fall in the same sets of the L1
 * cache, so the rows are padded by one cache line. */
#define WL_MLP_LDX ((size_t)WL_T * WL_D + 16)

/* The embedding gradients sum each part of the batch on its own, then the parts in order: a fixed number of parts,
 * so that the thread count (one in the browser) does not change their bits. */
#define WL_GRAD_PARTS 2

/* One thread's scratch and private accumulators for the per-example loops (part 0 accumulates straight into
 * the gradients; the others are added to them in part order afterwards, so the sums are deterministic). */

typedef struct ws_part {
    float *xs, *dxs;      /* [T,D] one example's X and dX */
    float *dtok, *dpos;   /* [V,D], [T,D] (parts 1..) */
} ws_part;

struct wl_model_ws {
    wl_model_kind kind;
    int V, H, Bmax;
    /* mlp: X [B,T*D] the concatenated embeddings (row stride WL_MLP_LDX), dX likewise.
     * attention: xl [B,D] the last slot's X, q [B,D], u [B,H,D], a [B,H,T], mx [B,H,D], msg, ctx [B,D].
     * both: hid [B,F] (after ReLU); logitsT [V,B] feature-major (softmax gradient in place); losses [B];
     * stats [2,B] the softmax statistics of each column */
    float *X, *xl, *q, *u, *a, *mx, *msg, *ctx, *hid, *logitsT, *losses, *stats;
    float *dX, *dxl, *dq, *du, *dmx, *dmsg, *dctx, *dhid;
    ws_part parts[WL_POOL_MAX_THREADS];
    wl_pool *pool;
};

static wl_model_ws *ws_create(const wl_model *m, int Bmax, int nthreads)
{
    if (Bmax < 1) return NULL;
    wl_model_ws *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    ws->kind = m->kind;
    ws->V = m->V;
    ws->H = m->H;
    ws->Bmax = Bmax;
    ws->pool = wl_pool_new(nthreads);
    if (!ws->pool) {
        free(ws);
        return NULL;
    }
    size_t B = (size_t)Bmax, T = WL_T, D = WL_D, H = (size_t)m->H, F = WL_F, V = (size_t)m->V;
    struct { float **p; size_t n; } bufs[32 + 5 * WL_POOL_MAX_THREADS];
    int nb = 0;
#define WS_BUF(ptr, count) (bufs[nb].p = &(ptr), bufs[nb++].n = (count))
    WS_BUF(ws->hid, B * F);
    WS_BUF(ws->dhid, B * F);
    WS_BUF(ws->logitsT, B * V);
    WS_BUF(ws->losses, B);
    WS_BUF(ws->stats, 2 * B);
    if (m->kind == WL_KIND_ATTENTION) {
        float **one[] = {&ws->xl, &ws->q, &ws->msg, &ws->ctx, &ws->dxl, &ws->dq, &ws->dmsg, &ws->dctx};
        for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) WS_BUF(*one[i], B * D);
        WS_BUF(ws->u, B * H * D);
        WS_BUF(ws->mx, B * H * D);
        WS_BUF(ws->du, B * H * D);
        WS_BUF(ws->dmx, B * H * D);
        WS_BUF(ws->a, B * H * T);
    } else {
        WS_BUF(ws->X, B * WL_MLP_LDX);
        WS_BUF(ws->dX, B * WL_MLP_LDX);
    }
    int nparts = wl_pool_threads(ws->pool) > WL_GRAD_PARTS ? wl_pool_threads(ws->pool) : WL_GRAD_PARTS;
    for (int p = 0; p < nparts; p++) {
        WS_BUF(ws->parts[p].xs, T * D);
        WS_BUF(ws->parts[p].dxs, T * D);
        if (p > 0) {
            WS_BUF(ws->parts[p].dtok, V * D);
            WS_BUF(ws->parts[p].dpos, T * D);
        }
    }
#undef WS_BUF
    for (int i = 0; i < nb; i++) {
        *bufs[i].p = malloc(sizeof(float) * bufs[i].n);
        if (!*bufs[i].p) {
            wl_model_ws_free(ws);
            return NULL;
        }
    }
    return ws;
}

wl_model_ws *wl_model_ws_new(const wl_model *m, int Bmax)
{
    return ws_create(m, Bmax, openblas_get_num_threads());   /* as many threads as OpenBLAS uses */
}

void wl_model_ws_free(wl_model_ws *ws)
{
    if (!ws) return;
    wl_pool_free(ws->pool);
    float *bufs[] = {ws->X, ws->xl, ws->q, ws->u, ws->a, ws->mx, ws->msg, ws->ctx, ws->hid, ws->logitsT,
                     ws->losses, ws->stats, ws->dX, ws->dxl, ws->dq, ws->du, ws->dmx, ws->dmsg, ws->dctx, ws->dhid};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
    for (int p = 0; p < WL_POOL_MAX_THREADS; p++) {
        ws_part *q = &ws->parts[p];
        float *own[] = {q->xs, q->dxs, q->dtok, q->dpos};
        for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) free(own[i]);
    }
    free(ws);
}

/* ---- forward and backward ---- */

static int check_ids(const char *what, const int32_t *ids, size_t n, int per_row, int V, wl_err *err)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= V)
            return wl_fail(err, "%s id %d at [%zu, %zu] is outside the vocabulary 0..%d", what, (int)ids[i],
                           i / (size_t)per_row, i % (size_t)per_row, V - 1);
    return 0;
}

static int check_ws(const wl_model *m, const wl_model_ws *ws, wl_err *err)
{
    if (!ws || ws->kind != m->kind || ws->V != m->V || ws->H != m->H)
        return wl_fail(err, "model %s: the workspace was made for a different model", m->kind_name);
    return 0;
}

static int check_call(const wl_model *m, const wl_model_ws *ws, const int32_t *ctx, int B, wl_err *err)
{
    if (!m->params) return wl_fail(err, "the model is not initialised");
    if (check_ws(m, ws, err)) return -1;
    if (B < 1 || B > ws->Bmax)
        return wl_fail(err, "model %s: batch size %d is outside 1..%d (the workspace's size)", m->kind_name, B,
                       ws->Bmax);
    return check_ids("context", ctx, (size_t)B * WL_T, WL_T, m->V, err);
}

/* One call's state, shared by the parallel bodies below. */
typedef struct step {
    const wl_model *m;
    wl_model_ws *ws;
    const int32_t *ctx, *tgt;
    int B, nparts;   /* nparts: how many parts ran the per-example loops (and hold accumulators) */
    tensors g;       /* gradients (NULL pointers without) */
    wl_par par;
} step;

static void body_embed(void *arg, int p, int np)
{
    const step *s = arg;
    int b0, b1;
    wl_pool_split(s->B, p, np, &b0, &b1);
    for (int b = b0; b < b1; b++)
        wl_embed_forward(s->ws->X + (size_t)b * WL_MLP_LDX, s->ctx + (size_t)b * WL_T, s->m->tok_emb, NULL, 1, WL_T,
                         WL_D);
}

static void body_attention(void *arg, int p, int np)
{
    const step *s = arg;
    wl_model_ws *ws = s->ws;
    size_t H = (size_t)s->m->H;
    int b0, b1;
    wl_pool_split(s->B, p, np, &b0, &b1);
    wl_attention_weights_forward(ws->a + b0 * H * WL_T, ws->mx + b0 * H * WL_D, ws->parts[p].xs,
                                 s->ctx + (size_t)b0 * WL_T, s->m->tok_emb, s->m->pos_emb, ws->u + b0 * H * WL_D,
                                 b1 - b0, WL_T, WL_D, s->m->H);
}

/* Columns in whole groups of 16 per part (64-byte lines), the remainder with the last part. */
static void body_crossentropy(void *arg, int p, int np)
{
    const step *s = arg;
    wl_model_ws *ws = s->ws;
    int g0, g1, B = s->B;
    wl_pool_split(B / 16, p, np, &g0, &g1);
    int b0 = 16 * g0, b1 = p == np - 1 ? B : 16 * g1;
    wl_crossentropy_forward(ws->losses + b0, s->g.head_w ? ws->logitsT + b0 : NULL, ws->stats + b0, ws->logitsT + b0,
                            s->tgt + b0, 1.0f / (float)B, b1 - b0, s->m->V, B);
}

/* The softmax gradient in place of the exponentials, by rows, with vocab_head.bias's gradient (its row sums). */
static void body_crossentropy_backward(void *arg, int p, int np)
{
    const step *s = arg;
    int v0, v1;
    wl_pool_split(s->m->V, p, np, &v0, &v1);
    wl_crossentropy_backward(s->ws->logitsT + (size_t)v0 * s->B, s->g.head_b + v0, s->ws->stats, s->tgt,
                             1.0f / (float)s->B, v0, v1 - v0, s->B, s->B);
}

static float *part_dtok(const step *s, int p)
{
    return p ? s->ws->parts[p].dtok : s->g.tok;
}

static float *part_dpos(const step *s, int p)
{
    return p ? s->ws->parts[p].dpos : s->g.pos;
}

/* Zeroes part p's embedding accumulators (part 0's are the gradients themselves). */
static void zero_part(const step *s, int p)
{
    memset(part_dtok(s, p), 0, sizeof(float) * (size_t)s->m->V * WL_D);
    if (s->g.pos) memset(part_dpos(s, p), 0, sizeof(float) * WL_T * WL_D);
}

static void body_embed_backward(void *arg, int p, int np)
{
    const step *s = arg;
    int b0, b1;
    zero_part(s, p);
    wl_pool_split(s->B, p, np, &b0, &b1);
    for (int b = b0; b < b1; b++)
        wl_embed_backward(part_dtok(s, p), NULL, s->ws->dX + (size_t)b * WL_MLP_LDX, s->ctx + (size_t)b * WL_T, 1, WL_T,
                          WL_D);
}

static void body_attention_backward(void *arg, int p, int np)
{
    const step *s = arg;
    wl_model_ws *ws = s->ws;
    const wl_model *m = s->m;
    size_t H = (size_t)m->H;
    int b0, b1;
    zero_part(s, p);
    wl_pool_split(s->B, p, np, &b0, &b1);
    wl_attention_weights_backward(ws->du + b0 * H * WL_D, part_dtok(s, p), part_dpos(s, p), ws->parts[p].xs,
                                  ws->parts[p].dxs, ws->dmx + b0 * H * WL_D, ws->a + b0 * H * WL_T,
                                  ws->u + b0 * H * WL_D, s->ctx + (size_t)b0 * WL_T, m->tok_emb, m->pos_emb, b1 - b0,
                                  WL_T, WL_D, m->H);
}

/* Adds the other parts' token-embedding accumulators to part 0's, in part order, over this part's rows. */
static void body_reduce(void *arg, int p, int np)
{
    const step *s = arg;
    int v0, v1;
    wl_pool_split(s->m->V, p, np, &v0, &v1);
    for (int q = 1; q < s->nparts; q++) {
        const float *src = s->ws->parts[q].dtok;
        for (size_t i = (size_t)v0 * WL_D; i < (size_t)v1 * WL_D; i++) s->g.tok[i] += src[i];
    }
}

/* Runs the per-example backward body (each part zeroes its accumulators first) over WL_GRAD_PARTS parts of the
 * batch whatever the thread count (one thread runs them in turn), sums the parts. */
static void embedding_grads(step *s, void (*body)(void *, int, int))
{
    wl_model_ws *ws = s->ws;
    int k = s->B < WL_GRAD_PARTS ? s->B : WL_GRAD_PARTS;
    if (wl_pool_threads(ws->pool) >= k)
        wl_pool_run(ws->pool, body, s, k);
    else
        for (int p = 0; p < k; p++) body(s, p, k);
    s->nparts = k;
    if (k > 1) wl_pool_run(ws->pool, body_reduce, s, wl_pool_threads(ws->pool));
    for (int p = 1; p < k && s->g.pos; p++)
        for (int i = 0; i < WL_T * WL_D; i++) s->g.pos[i] += ws->parts[p].dpos[i];
}

static step make_step(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, const int32_t *tgt, int B,
                      float *grads)
{
    step s = {m, ws, ctx, tgt, B, 0, {0}, wl_pool_par(ws->pool)};
    if (grads) s.g = tensors_at(m, grads);
    return s;
}

/* @code forward: the forward pass of training and generation, for the three models */
/* The final-row forward into ws->logitsT [V,B]; fills the workspace's activations for backward. */
static void forward_core(step *s, float *logitsT)
{
    const wl_model *m = s->m;
    wl_model_ws *ws = s->ws;
    const int T = WL_T, D = WL_D, F = WL_F, B = s->B, H = m->H;
    int n = wl_pool_threads(ws->pool), k = B < n ? B : n;
    if (m->kind == WL_KIND_MLP) {
        wl_pool_run(ws->pool, body_embed, s, k);                                 /* [B,T*D] slots in order */
        wl_linear_forward(&s->par, ws->hid, ws->X, WL_MLP_LDX, m->hid_w, m->hid_b, B, T * D, F);
    } else {
        wl_attention_query_forward(ws->xl, ws->q, ws->u, s->ctx, m->tok_emb, m->pos_emb, m->wq, m->wk, B, T, D, H);
        wl_pool_run(ws->pool, body_attention, s, k);
        wl_attention_message_forward(ws->msg, ws->mx, m->wv, B, D, H);
        memcpy(ws->ctx, ws->xl, sizeof(float) * (size_t)B * D);                 /* contextual = x + msg W_O^T */
        wl_gemm(&s->par, &(wl_gemm_op){.m = B, .n = D, .k = D, .out = ws->ctx, .ld_out = D, .a = ws->msg, .ld_a = D,
                                       .b = m->wo, .ld_b = D, .b_t = 1, .accumulate = 1});
        wl_linear_forward(&s->par, ws->hid, ws->ctx, D, m->hid_w, m->hid_b, B, D, F);
    }
    wl_relu_forward(ws->hid, ws->hid, (size_t)B * F);
    wl_head_forward(&s->par, logitsT, ws->hid, m->head_w, m->head_b, B, F, m->V);
}
/* @end forward */

/* Logits [B,V] into out: a single column is already a row; more are transposed from feature-major. */
static void forward_logits(step *s, float *out)
{
    forward_core(s, s->B == 1 ? out : s->ws->logitsT);
    if (s->B > 1) wl_transpose(out, s->ws->logitsT, s->m->V, s->B);
}

int wl_model_forward(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, int B, float *logits, wl_err *err)
{
    if (check_call(m, ws, ctx, B, err)) return -1;
    step s = make_step(m, ws, ctx, NULL, B, NULL);
    forward_logits(&s, logits);
    return 0;
}

/* Backward of the mean loss; ws->logitsT holds the exponentials of the logits and ws->stats their statistics. */
static void backward(step *s)
{
    const wl_model *m = s->m;
    wl_model_ws *ws = s->ws;
    const int T = WL_T, D = WL_D, F = WL_F, V = m->V, H = m->H, B = s->B;
    tensors *g = &s->g;
    /* logitsT = W_head hid^T + b_head; hid = ReLU(pre) */
    wl_pool_run(ws->pool, body_crossentropy_backward, s, wl_pool_threads(ws->pool));   /* logitsT: the gradient */
    wl_head_backward(&s->par, ws->dhid, g->head_w, ws->logitsT, ws->hid, m->head_w, B, F, V);
    wl_relu_backward(ws->dhid, ws->dhid, ws->hid, (size_t)B * F);
    if (m->kind == WL_KIND_MLP) {   /* pre = X W_hid^T + b_hid */
        wl_linear_backward(&s->par, ws->dX, g->hid_w, g->hid_b, ws->dhid, ws->X, WL_MLP_LDX, m->hid_w, B, T * D, F);
        embedding_grads(s, body_embed_backward);
        return;
    }
    /* pre = contextual W_hid^T + b_hid; contextual = x + msg W_O^T */
    wl_linear_backward(&s->par, ws->dctx, g->hid_w, g->hid_b, ws->dhid, ws->ctx, D, m->hid_w, B, D, F);
    wl_linear_backward(&s->par, ws->dmsg, g->wo, NULL, ws->dctx, ws->msg, D, m->wo, B, D, D);
    wl_attention_message_backward(ws->dmx, g->wv, ws->dmsg, ws->mx, m->wv, B, D, H);
    embedding_grads(s, body_attention_backward);
    memcpy(ws->dxl, ws->dctx, sizeof(float) * (size_t)B * D);   /* the residual's share of x's gradient */
    wl_attention_query_backward(g->tok, g->pos, g->wq, g->wk, ws->dq, ws->dxl, ws->du, ws->xl, ws->q, s->ctx, m->wq,
                                m->wk, B, T, D, H);
}

int wl_model_loss(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, const int32_t *tgt, int B,
                  double *loss, float *grads, wl_err *err)
{
    if (check_call(m, ws, ctx, B, err) || check_ids("target", tgt, (size_t)B, 1, m->V, err)) return -1;
    step s = make_step(m, ws, ctx, tgt, B, grads);
    forward_core(&s, ws->logitsT);
    int groups = B / 16;
    wl_pool_run(ws->pool, body_crossentropy, &s, groups < 1 ? 1 : groups);
    double sum = 0.0;
    for (int b = 0; b < B; b++) sum += ws->losses[b];
    *loss = sum / B;
    if (grads) backward(&s);
    return 0;
}

/* ---- details ---- */

void wl_details_free(wl_details *d)
{
    if (!d) return;
    float *bufs[] = {d->E, d->Q, d->K, d->Vv, d->scores, d->weights, d->messages, d->contextual, d->logits_all,
                     d->logits};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
    memset(d, 0, sizeof *d);
}

static int details_mlp(const wl_model *m, const int32_t *ctx, int B, wl_details *out, wl_err *err)
{
    wl_model_ws *ws = ws_create(m, B, 1);
    if (!ws) {
        wl_details_free(out);
        return wl_fail(err, "model %s: out of memory for details of %d contexts", m->kind_name, B);
    }
    step s = make_step(m, ws, ctx, NULL, B, NULL);
    forward_logits(&s, out->logits);
    wl_model_ws_free(ws);
    return 0;
}

int wl_model_details(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, int B, wl_details *out, wl_err *err)
{
    memset(out, 0, sizeof *out);
    if (!m->params) return wl_fail(err, "the model is not initialised");
    if (B < 1) return wl_fail(err, "model %s: batch size %d must be at least 1", m->kind_name, B);
    if (check_ids("context", ctx, (size_t)B * WL_T, WL_T, m->V, err)) return -1;
    if (ws && check_ws(m, ws, err)) return -1;
    const size_t T = WL_T, D = WL_D, F = WL_F, V = (size_t)m->V, H = (size_t)m->H, N = (size_t)B * T;
    out->B = B;
    out->T = WL_T;
    out->D = WL_D;
    out->V = m->V;
    out->logits = malloc(sizeof(float) * B * V);
    if (!out->logits) return wl_fail(err, "model %s: out of memory for details of %d contexts", m->kind_name, B);
    if (m->kind == WL_KIND_MLP) return details_mlp(m, ctx, B, out, err);
    out->H = m->H;
    out->d = WL_D / m->H;
    float **slots[] = {&out->E, &out->Q, &out->K, &out->Vv, &out->scores, &out->weights, &out->messages,
                       &out->contextual, &out->logits_all};
    size_t sizes[] = {N * D, N * D, N * D, N * D, N * H * T, N * H * T, N * D, N * D, N * V};
    float *QKV = malloc(sizeof(float) * N * 3 * D), *hid = malloc(sizeof(float) * N * F);
    wl_pool *own = ws ? NULL : wl_pool_new(openblas_get_num_threads());   /* without a workspace: threads of its own */
    int ok = QKV && hid && (ws || own);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        *slots[i] = malloc(sizeof(float) * sizes[i]);
        ok = ok && *slots[i];
    }
    if (ok) {
        /* @code details: forward_details: every intermediate of the attention models, every query */
        /* E [B,T,D]; Qf Kf Vf [B,T,D] before the split into heads; hid [B,T,F]; logits_all [B,T,V]; logits [B,V] */
        float *Qf = QKV, *Kf = QKV + N * D, *Vf = QKV + 2 * N * D;
        wl_par par = wl_pool_par(ws ? ws->pool : own);
        wl_embed_forward(out->E, ctx, m->tok_emb, m->pos_emb, B, WL_T, WL_D);
        wl_linear_forward(&par, Qf, out->E, WL_D, m->wq, NULL, (int)N, WL_D, WL_D);
        wl_linear_forward(&par, Kf, out->E, WL_D, m->wk, NULL, (int)N, WL_D, WL_D);
        wl_linear_forward(&par, Vf, out->E, WL_D, m->wv, NULL, (int)N, WL_D, WL_D);
        wl_attention_full_forward(out->Q, out->K, out->Vv, out->scores, out->weights, out->messages, Qf, Kf, Vf, ctx,
                                  B, WL_T, WL_D, m->H);
        memcpy(out->contextual, out->E, sizeof(float) * N * D);   /* contextual = E + messages W_O^T */
        wl_gemm(&par, &(wl_gemm_op){.m = (int)N, .n = WL_D, .k = WL_D, .out = out->contextual, .ld_out = WL_D,
                                    .a = out->messages, .ld_a = D, .b = m->wo, .ld_b = WL_D, .b_t = 1,
                                    .accumulate = 1});
        wl_linear_forward(&par, hid, out->contextual, WL_D, m->hid_w, m->hid_b, (int)N, WL_D, WL_F);
        wl_relu_forward(hid, hid, N * F);
        /* logits_all [N,V] = hid W_head^T + b_head, computed as the head's W_head hid^T stored transposed */
        wl_gemm(&par, &(wl_gemm_op){.m = m->V, .n = (int)N, .k = WL_F, .out = out->logits_all, .ld_out = m->V,
                                    .out_t = 1, .a = m->head_w, .ld_a = F, .b = hid, .ld_b = WL_F, .b_t = 1,
                                    .row_bias = m->head_b});
        for (int b = 0; b < B; b++)
            memcpy(out->logits + b * V, out->logits_all + ((size_t)b * T + T - 1) * V, sizeof(float) * V);
        /* @end details */
    }
    free(QKV);
    free(hid);
    wl_pool_free(own);
    if (!ok) {
        wl_details_free(out);
        return wl_fail(err, "model %s: out of memory for details of %d contexts", m->kind_name, B);
    }
    return 0;
}

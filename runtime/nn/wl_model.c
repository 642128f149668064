/* wl_model.c: the three models: parameters in one buffer, initialisation, forward, loss with backward, details. */
#include "wl_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_layers.h"

/* ---- the seeded generator ---- */

void wl_rng_seed(wl_rng *r, uint64_t seed)
{
    r->state = seed;
}

uint64_t wl_rng_next(wl_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double wl_rng_uniform(wl_rng *r)
{
    return (double)(wl_rng_next(r) >> 11) * 0x1.0p-53;
}

double wl_rng_normal(wl_rng *r)
{
    double u1 = 1.0 - wl_rng_uniform(r);
    double u2 = wl_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

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

int wl_model_init(wl_model *m, const char *kind_name, int V, int heads, uint64_t seed, wl_err *err)
{
    memset(m, 0, sizeof *m);
    if (!kind_name || (strcmp(kind_name, "mlp") && strcmp(kind_name, "attention") && strcmp(kind_name, "multihead")))
        return wl_fail(err, "unknown model kind '%s': choose mlp, attention or multihead", kind_name ? kind_name : "");
    if (V < 4 || V > (1 << 24))
        return wl_fail(err, "model %s: vocabulary size %d is outside 4..16777216 (ids 0..3 are the special tokens)",
                       kind_name, V);
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
    free(m->params);
    memset(m, 0, sizeof *m);
}

/* ---- workspace ---- */

struct wl_model_ws {
    wl_model_kind kind;
    int V, H, Bmax;
    /* forward: X [B,T,D]; attention: q [B,D], u [B,H,D], a [B,H,T], mx [B,H,D], msg, ctx [B,D];
     * hid [B,F] (after ReLU), logits [B,V] (softmax gradient in place), losses [B] */
    float *X, *q, *u, *a, *mx, *msg, *ctx, *hid, *logits, *losses;
    /* backward */
    float *dX, *dq, *du, *dmx, *dmsg, *dctx, *dhid;
};

wl_model_ws *wl_model_ws_new(const wl_model *m, int Bmax)
{
    if (Bmax < 1) return NULL;
    wl_model_ws *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    ws->kind = m->kind;
    ws->V = m->V;
    ws->H = m->H;
    ws->Bmax = Bmax;
    size_t B = (size_t)Bmax, T = WL_T, D = WL_D, H = (size_t)m->H, F = WL_F, V = (size_t)m->V;
    int attn = m->kind == WL_KIND_ATTENTION;
    float **slots[] = {&ws->X, &ws->hid, &ws->logits, &ws->losses, &ws->dX, &ws->dhid,
                       &ws->q, &ws->u, &ws->a, &ws->mx, &ws->msg, &ws->ctx,
                       &ws->dq, &ws->du, &ws->dmx, &ws->dmsg, &ws->dctx};
    size_t sizes[] = {B * T * D, B * F, B * V, B, B * T * D, B * F,
                      B * D, B * H * D, B * H * T, B * H * D, B * D, B * D,
                      B * D, B * H * D, B * H * D, B * D, B * D};
    size_t nslots = attn ? sizeof sizes / sizeof sizes[0] : 6;
    for (size_t i = 0; i < nslots; i++) {
        *slots[i] = malloc(sizeof(float) * sizes[i]);
        if (!*slots[i]) {
            wl_model_ws_free(ws);
            return NULL;
        }
    }
    return ws;
}

void wl_model_ws_free(wl_model_ws *ws)
{
    if (!ws) return;
    float *bufs[] = {ws->X, ws->q, ws->u, ws->a, ws->mx, ws->msg, ws->ctx, ws->hid, ws->logits, ws->losses,
                     ws->dX, ws->dq, ws->du, ws->dmx, ws->dmsg, ws->dctx, ws->dhid};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
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

static int check_call(const wl_model *m, const wl_model_ws *ws, const int32_t *ctx, int B, wl_err *err)
{
    if (!m->params) return wl_fail(err, "the model is not initialised");
    if (!ws || ws->kind != m->kind || ws->V != m->V || ws->H != m->H)
        return wl_fail(err, "model %s: the workspace was made for a different model", m->kind_name);
    if (B < 1 || B > ws->Bmax)
        return wl_fail(err, "model %s: batch size %d is outside 1..%d (the workspace's size)", m->kind_name, B,
                       ws->Bmax);
    return check_ids("context", ctx, (size_t)B * WL_T, WL_T, m->V, err);
}

/* The final-row forward into logits [B,V]; fills the workspace's activations for backward. */
static void forward_core(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, int B, float *logits)
{
    const int T = WL_T, D = WL_D, F = WL_F, V = m->V, H = m->H;
    if (m->kind == WL_KIND_MLP) {
        embed_forward(ws->X, ctx, m->tok_emb, NULL, B, T, D);                    /* [B,T*D] slots in order */
        matmul_forward(ws->hid, ws->X, m->hid_w, m->hid_b, B, T * D, F);
    } else {
        embed_forward(ws->X, ctx, m->tok_emb, m->pos_emb, B, T, D);
        attention_last_forward(ws->q, ws->u, ws->a, ws->mx, ws->msg, ws->X, ctx, m->wq, m->wk, m->wv, B, T, D, H);
        matmul_forward(ws->ctx, ws->msg, m->wo, NULL, B, D, D);                 /* contextual = x + msg W_O^T */
        for (int b = 0; b < B; b++) {
            const float *x = ws->X + ((size_t)b * T + T - 1) * D;
            float *c = ws->ctx + (size_t)b * D;
            for (int i = 0; i < D; i++) c[i] += x[i];
        }
        matmul_forward(ws->hid, ws->ctx, m->hid_w, m->hid_b, B, D, F);
    }
    relu_forward(ws->hid, ws->hid, (size_t)B * F);
    matmul_forward(logits, ws->hid, m->head_w, m->head_b, B, F, V);
}

int wl_model_forward(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, int B, float *logits, wl_err *err)
{
    if (check_call(m, ws, ctx, B, err)) return -1;
    forward_core(m, ws, ctx, B, logits);
    return 0;
}

static void backward(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, int B, float *grads)
{
    const int T = WL_T, D = WL_D, F = WL_F, V = m->V, H = m->H;
    tensors g = tensors_at(m, grads);
    /* logits = hid W_head^T + b_head; hid = ReLU(pre) */
    matmul_backward(ws->dhid, g.head_w, g.head_b, ws->logits, ws->hid, m->head_w, B, F, V);
    relu_backward(ws->dhid, ws->dhid, ws->hid, (size_t)B * F);
    if (m->kind == WL_KIND_MLP) {
        matmul_backward(ws->dX, g.hid_w, g.hid_b, ws->dhid, ws->X, m->hid_w, B, T * D, F);
        memset(g.tok, 0, sizeof(float) * (size_t)V * D);
        embed_backward(g.tok, NULL, ws->dX, ctx, B, T, D);
        return;
    }
    /* pre = contextual W_hid^T + b_hid; contextual = x + msg W_O^T */
    matmul_backward(ws->dctx, g.hid_w, g.hid_b, ws->dhid, ws->ctx, m->hid_w, B, D, F);
    matmul_backward(ws->dmsg, g.wo, NULL, ws->dctx, ws->msg, m->wo, B, D, D);
    memset(ws->dX, 0, sizeof(float) * (size_t)B * T * D);
    for (int b = 0; b < B; b++)
        memcpy(ws->dX + ((size_t)b * T + T - 1) * D, ws->dctx + (size_t)b * D, sizeof(float) * D);
    attention_last_backward(ws->dX, g.wq, g.wk, g.wv, ws->dq, ws->du, ws->dmx, ws->dmsg, ws->X, ws->q, ws->u, ws->a,
                            ws->mx, m->wq, m->wk, m->wv, B, T, D, H);
    memset(g.tok, 0, sizeof(float) * (size_t)V * D);
    memset(g.pos, 0, sizeof(float) * (size_t)T * D);
    embed_backward(g.tok, g.pos, ws->dX, ctx, B, T, D);
}

int wl_model_loss(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, const int32_t *tgt, int B,
                  double *loss, float *grads, wl_err *err)
{
    if (check_call(m, ws, ctx, B, err) || check_ids("target", tgt, (size_t)B, 1, m->V, err)) return -1;
    forward_core(m, ws, ctx, B, ws->logits);
    crossentropy_forward(ws->losses, grads ? ws->logits : NULL, ws->logits, tgt, 1.0f / (float)B, B, m->V);
    double sum = 0.0;
    for (int b = 0; b < B; b++) sum += ws->losses[b];
    *loss = sum / B;
    if (grads) backward(m, ws, ctx, B, grads);
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

int wl_model_details(const wl_model *m, const int32_t *ctx, int B, wl_details *out, wl_err *err)
{
    memset(out, 0, sizeof *out);
    if (!m->params) return wl_fail(err, "the model is not initialised");
    if (B < 1) return wl_fail(err, "model %s: batch size %d must be at least 1", m->kind_name, B);
    if (check_ids("context", ctx, (size_t)B * WL_T, WL_T, m->V, err)) return -1;
    const size_t T = WL_T, D = WL_D, F = WL_F, V = (size_t)m->V, H = (size_t)m->H, N = (size_t)B * T;
    out->B = B;
    out->T = WL_T;
    out->D = WL_D;
    out->V = m->V;
    out->logits = malloc(sizeof(float) * B * V);
    if (!out->logits) return wl_fail(err, "model %s: out of memory for details of %d contexts", m->kind_name, B);
    if (m->kind == WL_KIND_MLP) {
        wl_model_ws *ws = wl_model_ws_new(m, B);
        if (!ws) {
            wl_details_free(out);
            return wl_fail(err, "model %s: out of memory for details of %d contexts", m->kind_name, B);
        }
        forward_core(m, ws, ctx, B, out->logits);
        wl_model_ws_free(ws);
        return 0;
    }
    out->H = m->H;
    out->d = WL_D / m->H;
    float **slots[] = {&out->E, &out->Q, &out->K, &out->Vv, &out->scores, &out->weights, &out->messages,
                       &out->contextual, &out->logits_all};
    size_t sizes[] = {N * D, N * D, N * D, N * D, N * H * T, N * H * T, N * D, N * D, N * V};
    float *Qf = malloc(sizeof(float) * N * D), *Kf = malloc(sizeof(float) * N * D),
          *Vf = malloc(sizeof(float) * N * D), *hid = malloc(sizeof(float) * N * F);
    int ok = Qf && Kf && Vf && hid;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        *slots[i] = malloc(sizeof(float) * sizes[i]);
        ok = ok && *slots[i];
    }
    if (ok) {
        embed_forward(out->E, ctx, m->tok_emb, m->pos_emb, B, WL_T, WL_D);
        matmul_forward(Qf, out->E, m->wq, NULL, (int)N, WL_D, WL_D);
        matmul_forward(Kf, out->E, m->wk, NULL, (int)N, WL_D, WL_D);
        matmul_forward(Vf, out->E, m->wv, NULL, (int)N, WL_D, WL_D);
        attention_full_forward(out->Q, out->K, out->Vv, out->scores, out->weights, out->messages, Qf, Kf, Vf, ctx,
                               B, WL_T, WL_D, m->H);
        matmul_forward(out->contextual, out->messages, m->wo, NULL, (int)N, WL_D, WL_D);
        for (size_t i = 0; i < N * D; i++) out->contextual[i] += out->E[i];
        matmul_forward(hid, out->contextual, m->hid_w, m->hid_b, (int)N, WL_D, WL_F);
        relu_forward(hid, hid, N * F);
        matmul_forward(out->logits_all, hid, m->head_w, m->head_b, (int)N, WL_F, m->V);
        for (int b = 0; b < B; b++)
            memcpy(out->logits + b * V, out->logits_all + ((size_t)b * T + T - 1) * V, sizeof(float) * V);
    }
    free(Qf);
    free(Kf);
    free(Vf);
    free(hid);
    if (!ok) {
        wl_details_free(out);
        return wl_fail(err, "model %s: out of memory for details of %d contexts", m->kind_name, B);
    }
    return 0;
}

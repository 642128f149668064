/* wl_model.c: the three models: parameters in one buffer, initialisation, forward, loss with backward, details. */
#include "wl_model.h"

#include <cblas.h>
#include <math.h>
#include <pthread.h>
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

/* ---- workspace and its threads ---- */

#define WL_MAX_THREADS 16

/* One thread's share of the per-example loops: scratch and private accumulators (part 0 accumulates straight
 * into the gradients; the others are added to them in part order afterwards, so the sums are deterministic). */
typedef struct ws_part {
    float *xs, *dxs;      /* [T,D] one example's X and dX */
    float *dtok, *dpos;   /* [V,D], [T,D] (parts 1..) */
    float *dsum;          /* [V] column sums of dlogits (parts 1..) */
} ws_part;

typedef struct ws_worker {
    wl_model_ws *ws;
    int index;
} ws_worker;

/* A parallel job: fn(job, part, b0, b1) for each part's rows [b0, b1) of n. */
typedef struct job job;
typedef void (*job_fn)(const job *j, int p, int b0, int b1);

struct job {
    job_fn fn;
    int n;
    const wl_model *m;
    wl_model_ws *ws;
    const int32_t *ctx, *tgt;
    float scale;
    float *grads;
    int parts;   /* job_reduce: how many parts accumulated */
};

struct wl_model_ws {
    wl_model_kind kind;
    int V, H, Bmax;
    /* mlp: X [B,T*D] the concatenated embeddings, dX likewise.
     * attention: xl [B,D] the last slot's X, q [B,D], u [B,H,D], a [B,H,T], mx [B,H,D], msg, ctx [B,D].
     * both: hid [B,F] (after ReLU), logits [B,V] (softmax gradient in place), losses [B] */
    float *X, *xl, *q, *u, *a, *mx, *msg, *ctx, *hid, *logits, *losses;
    float *dX, *dxl, *dq, *du, *dmx, *dmsg, *dctx, *dhid;
    int nthreads, nworkers;
    ws_part parts[WL_MAX_THREADS];
    ws_worker workers[WL_MAX_THREADS];
    pthread_t threads[WL_MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned generation;
    int pending, quit, sync_ready;
    const job *current;
};

/* Rows of part p when n rows are split into parts: contiguous, in order, a function of n and nthreads only. */
static int nparts(const wl_model_ws *ws, int n)
{
    return n < ws->nthreads ? n : ws->nthreads;
}

static void run_part(const job *j, int p)
{
    int k = nparts(j->ws, j->n);
    if (p < k) j->fn(j, p, (int)((long)j->n * p / k), (int)((long)j->n * (p + 1) / k));
}

static void *worker_main(void *arg)
{
    ws_worker *w = arg;
    wl_model_ws *ws = w->ws;
    unsigned seen = 0;
    pthread_mutex_lock(&ws->mu);
    for (;;) {
        while (ws->generation == seen && !ws->quit) pthread_cond_wait(&ws->go, &ws->mu);
        if (ws->quit) break;
        seen = ws->generation;
        const job *j = ws->current;
        pthread_mutex_unlock(&ws->mu);
        run_part(j, w->index);
        pthread_mutex_lock(&ws->mu);
        if (--ws->pending == 0) pthread_cond_signal(&ws->done);
    }
    pthread_mutex_unlock(&ws->mu);
    return NULL;
}

/* Runs j on every part (the calling thread takes part 0) and returns when all are done. */
static void run_job(wl_model_ws *ws, const job *j)
{
    if (nparts(ws, j->n) <= 1) {
        run_part(j, 0);
        return;
    }
    pthread_mutex_lock(&ws->mu);
    ws->current = j;
    ws->pending = ws->nworkers;
    ws->generation++;
    pthread_cond_broadcast(&ws->go);
    pthread_mutex_unlock(&ws->mu);
    run_part(j, 0);
    pthread_mutex_lock(&ws->mu);
    while (ws->pending > 0) pthread_cond_wait(&ws->done, &ws->mu);
    pthread_mutex_unlock(&ws->mu);
}

static wl_model_ws *ws_create(const wl_model *m, int Bmax, int nthreads)
{
    if (Bmax < 1) return NULL;
    wl_model_ws *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    ws->kind = m->kind;
    ws->V = m->V;
    ws->H = m->H;
    ws->Bmax = Bmax;
    ws->nthreads = nthreads < 1 ? 1 : nthreads > WL_MAX_THREADS ? WL_MAX_THREADS : nthreads;
    size_t B = (size_t)Bmax, T = WL_T, D = WL_D, H = (size_t)m->H, F = WL_F, V = (size_t)m->V;
    int attn = m->kind == WL_KIND_ATTENTION;
    struct { float **p; size_t n; } bufs[64];
    int nb = 0;
#define WS_BUF(ptr, count) (bufs[nb].p = &(ptr), bufs[nb++].n = (count))
    WS_BUF(ws->hid, B * F);
    WS_BUF(ws->dhid, B * F);
    WS_BUF(ws->logits, B * V);
    WS_BUF(ws->losses, B);
    if (attn) {
        float **one[] = {&ws->xl, &ws->q, &ws->msg, &ws->ctx, &ws->dxl, &ws->dq, &ws->dmsg, &ws->dctx};
        for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) WS_BUF(*one[i], B * D);
        WS_BUF(ws->u, B * H * D);
        WS_BUF(ws->mx, B * H * D);
        WS_BUF(ws->du, B * H * D);
        WS_BUF(ws->dmx, B * H * D);
        WS_BUF(ws->a, B * H * T);
    } else {
        WS_BUF(ws->X, B * T * D);
        WS_BUF(ws->dX, B * T * D);
    }
    for (int p = 0; p < ws->nthreads; p++) {
        WS_BUF(ws->parts[p].xs, T * D);
        WS_BUF(ws->parts[p].dxs, T * D);
        if (p > 0) {
            WS_BUF(ws->parts[p].dtok, V * D);
            WS_BUF(ws->parts[p].dpos, T * D);
            WS_BUF(ws->parts[p].dsum, V);
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
    pthread_mutex_init(&ws->mu, NULL);
    pthread_cond_init(&ws->go, NULL);
    pthread_cond_init(&ws->done, NULL);
    ws->sync_ready = 1;
    for (int i = 1; i < ws->nthreads; i++) {
        ws->workers[i] = (ws_worker){ws, i};
        if (pthread_create(&ws->threads[i], NULL, worker_main, &ws->workers[i]) != 0) {
            wl_model_ws_free(ws);
            return NULL;
        }
        ws->nworkers = i;
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
    if (ws->nworkers > 0) {
        pthread_mutex_lock(&ws->mu);
        ws->quit = 1;
        pthread_cond_broadcast(&ws->go);
        pthread_mutex_unlock(&ws->mu);
        for (int i = 1; i <= ws->nworkers; i++) pthread_join(ws->threads[i], NULL);
    }
    if (ws->sync_ready) {
        pthread_mutex_destroy(&ws->mu);
        pthread_cond_destroy(&ws->go);
        pthread_cond_destroy(&ws->done);
    }
    float *bufs[] = {ws->X, ws->xl, ws->q, ws->u, ws->a, ws->mx, ws->msg, ws->ctx, ws->hid, ws->logits, ws->losses,
                     ws->dX, ws->dxl, ws->dq, ws->du, ws->dmx, ws->dmsg, ws->dctx, ws->dhid};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
    for (int p = 0; p < WL_MAX_THREADS; p++) {
        free(ws->parts[p].xs);
        free(ws->parts[p].dxs);
        free(ws->parts[p].dtok);
        free(ws->parts[p].dpos);
        free(ws->parts[p].dsum);
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

/* The parallel pieces: each handles rows [b0, b1) with part p's scratch. */

static void job_embed(const job *j, int p, int b0, int b1)
{
    (void)p;
    embed_forward(j->ws->X + (size_t)b0 * WL_T * WL_D, j->ctx + (size_t)b0 * WL_T, j->m->tok_emb, NULL, b1 - b0,
                  WL_T, WL_D);
}

static void job_attention(const job *j, int p, int b0, int b1)
{
    wl_model_ws *ws = j->ws;
    int H = j->m->H;
    attention_weights_forward(ws->a + (size_t)b0 * H * WL_T, ws->mx + (size_t)b0 * H * WL_D, ws->parts[p].xs,
                              j->ctx + (size_t)b0 * WL_T, j->m->tok_emb, j->m->pos_emb, ws->u + (size_t)b0 * H * WL_D,
                              b1 - b0, WL_T, WL_D, H);
}

/* Where part p accumulates: the gradients themselves for part 0, its own buffers for the others. */
static float *part_dtok(const job *j, int p)
{
    return p ? j->ws->parts[p].dtok : tensors_at(j->m, j->grads).tok;
}

static float *part_dpos(const job *j, int p)
{
    return p ? j->ws->parts[p].dpos : tensors_at(j->m, j->grads).pos;
}

static float *part_dsum(const job *j, int p)
{
    return p ? j->ws->parts[p].dsum : tensors_at(j->m, j->grads).head_b;
}

static void job_crossentropy(const job *j, int p, int b0, int b1)
{
    wl_model_ws *ws = j->ws;
    size_t V = (size_t)j->m->V;
    float *dlogits = j->grads ? ws->logits + b0 * V : NULL, *dsum = j->grads ? part_dsum(j, p) : NULL;
    if (dsum) memset(dsum, 0, sizeof(float) * V);
    crossentropy_forward(ws->losses + b0, dlogits, dsum, ws->logits + b0 * V, j->tgt + b0, j->scale, b1 - b0, (int)V);
}

static void job_embed_backward(const job *j, int p, int b0, int b1)
{
    embed_backward(part_dtok(j, p), NULL, j->ws->dX + (size_t)b0 * WL_T * WL_D, j->ctx + (size_t)b0 * WL_T, b1 - b0,
                   WL_T, WL_D);
}

static void job_attention_backward(const job *j, int p, int b0, int b1)
{
    wl_model_ws *ws = j->ws;
    const wl_model *m = j->m;
    size_t H = (size_t)m->H;
    attention_weights_backward(ws->du + b0 * H * WL_D, part_dtok(j, p), part_dpos(j, p), ws->parts[p].xs,
                               ws->parts[p].dxs, ws->dmx + b0 * H * WL_D, ws->a + b0 * H * WL_T,
                               ws->u + b0 * H * WL_D, j->ctx + (size_t)b0 * WL_T, m->tok_emb, m->pos_emb, b1 - b0,
                               WL_T, WL_D, m->H);
}

/* Adds the other parts' accumulators to part 0's, in part order; runs in parallel over vocabulary rows. */
static void job_reduce(const job *j, int p, int r0, int r1)
{
    (void)p;
    const wl_model_ws *ws = j->ws;
    float *tok = tensors_at(j->m, j->grads).tok;
    for (int q = 1; q < j->parts; q++) {
        const float *src = ws->parts[q].dtok;
        for (size_t i = (size_t)r0 * WL_D; i < (size_t)r1 * WL_D; i++) tok[i] += src[i];
    }
}

/* Zeroes the accumulators of the k parts that the per-example job over B rows will use. */
static void zero_accumulators(const wl_model *m, wl_model_ws *ws, tensors *g, int k)
{
    memset(g->tok, 0, sizeof(float) * (size_t)m->V * WL_D);
    if (g->pos) memset(g->pos, 0, sizeof(float) * WL_T * WL_D);
    for (int p = 1; p < k; p++) {
        memset(ws->parts[p].dtok, 0, sizeof(float) * (size_t)m->V * WL_D);
        memset(ws->parts[p].dpos, 0, sizeof(float) * WL_T * WL_D);
    }
}

/* Sums the parts' accumulators (embedding rows in parallel; positions and vocab-head biases in order). */
static void reduce_accumulators(const wl_model *m, wl_model_ws *ws, job *j, tensors *g, int k, int with_pos)
{
    for (int p = 1; p < k; p++) {
        for (int i = 0; i < m->V; i++) g->head_b[i] += ws->parts[p].dsum[i];
        if (with_pos)
            for (int i = 0; i < WL_T * WL_D; i++) g->pos[i] += ws->parts[p].dpos[i];
    }
    if (k <= 1) return;
    job r = *j;
    r.fn = job_reduce;
    r.n = m->V;
    r.parts = k;
    run_job(ws, &r);
}

/* The final-row forward into logits [B,V]; fills the workspace's activations for backward. */
static void forward_core(const wl_model *m, wl_model_ws *ws, const job *j, float *logits)
{
    const int T = WL_T, D = WL_D, F = WL_F, B = j->n, H = m->H;
    if (m->kind == WL_KIND_MLP) {
        job e = *j;
        e.fn = job_embed;
        run_job(ws, &e);                                                          /* [B,T*D] slots in order */
        matmul_forward(ws->hid, ws->X, m->hid_w, m->hid_b, B, T * D, F);
    } else {
        attention_query_forward(ws->xl, ws->q, ws->u, j->ctx, m->tok_emb, m->pos_emb, m->wq, m->wk, B, T, D, H);
        job a = *j;
        a.fn = job_attention;
        run_job(ws, &a);
        attention_message_forward(ws->msg, ws->mx, m->wv, B, D, H);
        matmul_forward(ws->ctx, ws->msg, m->wo, NULL, B, D, D);                 /* contextual = x + msg W_O^T */
        for (size_t i = 0; i < (size_t)B * D; i++) ws->ctx[i] += ws->xl[i];
        matmul_forward(ws->hid, ws->ctx, m->hid_w, m->hid_b, B, D, F);
    }
    relu_forward(ws->hid, ws->hid, (size_t)B * F);
    matmul_forward(logits, ws->hid, m->head_w, m->head_b, B, F, m->V);
}

static job make_job(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, const int32_t *tgt, int B, float *grads)
{
    job j = {NULL, B, m, ws, ctx, tgt, 1.0f / (float)B, grads, 0};
    return j;
}

int wl_model_forward(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, int B, float *logits, wl_err *err)
{
    if (check_call(m, ws, ctx, B, err)) return -1;
    job j = make_job(m, ws, ctx, NULL, B, NULL);
    forward_core(m, ws, &j, logits);
    return 0;
}

/* Backward of the mean loss; the softmax gradient is in ws->logits and vocab_head.bias's part-0 share in grads. */
static void backward(const wl_model *m, wl_model_ws *ws, job *j)
{
    const int T = WL_T, D = WL_D, F = WL_F, V = m->V, H = m->H, B = j->n;
    tensors g = tensors_at(m, j->grads);
    int k = nparts(ws, B);
    /* logits = hid W_head^T + b_head; hid = ReLU(pre) */
    matmul_backward(ws->dhid, g.head_w, NULL, ws->logits, ws->hid, m->head_w, B, F, V);
    relu_backward(ws->dhid, ws->dhid, ws->hid, (size_t)B * F);
    job e = *j;
    if (m->kind == WL_KIND_MLP) {
        matmul_backward(ws->dX, g.hid_w, g.hid_b, ws->dhid, ws->X, m->hid_w, B, T * D, F);
        zero_accumulators(m, ws, &g, k);
        e.fn = job_embed_backward;
        run_job(ws, &e);
        reduce_accumulators(m, ws, j, &g, k, 0);
        return;
    }
    /* pre = contextual W_hid^T + b_hid; contextual = x + msg W_O^T */
    matmul_backward(ws->dctx, g.hid_w, g.hid_b, ws->dhid, ws->ctx, m->hid_w, B, D, F);
    matmul_backward(ws->dmsg, g.wo, NULL, ws->dctx, ws->msg, m->wo, B, D, D);
    attention_message_backward(ws->dmx, g.wv, ws->dmsg, ws->mx, m->wv, B, D, H);
    zero_accumulators(m, ws, &g, k);
    e.fn = job_attention_backward;
    run_job(ws, &e);
    reduce_accumulators(m, ws, j, &g, k, 1);
    memcpy(ws->dxl, ws->dctx, sizeof(float) * (size_t)B * D);   /* the residual's share of x's gradient */
    attention_query_backward(g.tok, g.pos, g.wq, g.wk, ws->dq, ws->dxl, ws->du, ws->xl, ws->q, j->ctx, m->wq, m->wk,
                             B, T, D, H);
}

int wl_model_loss(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, const int32_t *tgt, int B,
                  double *loss, float *grads, wl_err *err)
{
    if (check_call(m, ws, ctx, B, err) || check_ids("target", tgt, (size_t)B, 1, m->V, err)) return -1;
    job j = make_job(m, ws, ctx, tgt, B, grads);
    forward_core(m, ws, &j, ws->logits);
    j.fn = job_crossentropy;
    run_job(ws, &j);
    double sum = 0.0;
    for (int b = 0; b < B; b++) sum += ws->losses[b];
    *loss = sum / B;
    if (grads) backward(m, ws, &j);
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
        wl_model_ws *ws = ws_create(m, B, 1);
        if (!ws) {
            wl_details_free(out);
            return wl_fail(err, "model %s: out of memory for details of %d contexts", m->kind_name, B);
        }
        job j = make_job(m, ws, ctx, NULL, B, NULL);
        forward_core(m, ws, &j, out->logits);
        wl_model_ws_free(ws);
        return 0;
    }
    out->H = m->H;
    out->d = WL_D / m->H;
    float **slots[] = {&out->E, &out->Q, &out->K, &out->Vv, &out->scores, &out->weights, &out->messages,
                       &out->contextual, &out->logits_all};
    size_t sizes[] = {N * D, N * D, N * D, N * D, N * H * T, N * H * T, N * D, N * D, N * V};
    float *QKV = malloc(sizeof(float) * N * 3 * D), *hid = malloc(sizeof(float) * N * F);
    int ok = QKV && hid;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        *slots[i] = malloc(sizeof(float) * sizes[i]);
        ok = ok && *slots[i];
    }
    if (ok) {
        float *Qf = QKV, *Kf = QKV + N * D, *Vf = QKV + 2 * N * D;
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
    free(QKV);
    free(hid);
    if (!ok) {
        wl_details_free(out);
        return wl_fail(err, "model %s: out of memory for details of %d contexts", m->kind_name, B);
    }
    return 0;
}

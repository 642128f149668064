/* wl_model.h: the course's three models (mlp, attention with H heads) with one parameter buffer and named views.
 *
 * Shapes: B batch, T context (64), D width (64), H heads, d = D/H head width, F hidden (256), V vocab.
 * Parameter names and shapes follow PyTorch (Linear weight is [out, in]) so checkpoints load in PyTorch. */
#ifndef WL_MODEL_H
#define WL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "wl_core.h"
#include "wl_corpus.h"

#define WL_T WL_CONTEXT   /* the model's context is the corpus's window length (64) */
#define WL_D 64
/* The largest vocabulary of a model (`model new`, a checkpoint's embedding): 100,000 words keep the largest model
 * near 40 MB of weights. */
#define WL_MODEL_MAX_V 100000
#define WL_F 256
#define WL_MAX_PARAMS 12

typedef enum wl_model_kind { WL_KIND_MLP, WL_KIND_ATTENTION } wl_model_kind;

/* One named view into the parameter buffer. */
typedef struct wl_param_view {
    const char *name;     /* PyTorch name, e.g. "token_embedding.weight" */
    int ndim;             /* 1 or 2 */
    int shape[2];
    size_t offset;        /* in floats, into params (and grads, m, v) */
    size_t size;          /* number of floats */
} wl_param_view;

typedef struct wl_model {
    wl_model_kind kind;
    char kind_name[16];   /* "mlp", "attention" (H = 1) or "multihead" (H > 1) */
    int V, H;
    size_t nparams;
    float *params;        /* [nparams], one buffer */
    int nviews;
    wl_param_view views[WL_MAX_PARAMS];
    /* named pointers into params (NULL where the model has no such parameter) */
    float *tok_emb;       /* [V,D] */
    float *pos_emb;       /* [T,D] attention only */
    float *wq, *wk, *wv, *wo;   /* [D,D] attention only */
    float *hid_w;         /* mlp [F, T*D]; attention [F, D] */
    float *hid_b;         /* [F] */
    float *head_w;        /* [V, F] */
    float *head_b;        /* [V] */
    int borrowed;         /* 1: params is not the model's own (wl_model_borrow_params) and is not freed with it */
} wl_model;

/* kind_name: "mlp", "attention" or "multihead"; heads: 1 (or 0) for mlp and attention; for multihead H, which must
 * divide 64 (0 means the default, 4). kind_name is kept as given, so multihead with H = 1 is named "multihead".
 * Initialises with PyTorch's default distributions from wl_rng seeded with seed, tensor by tensor in view order
 * (the order of the table in SPEC §3), each in row-major order: embeddings draw N(0,1) per element (then the PAD
 * row is set to zero), Linear weights and biases draw U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = in features. */
int wl_model_init(wl_model *m, const char *kind_name, int V, int heads, uint64_t seed, wl_err *err);
/* What wl_model_init checks and lays out (kind, V, H, views, nparams) without allocating or initialising:
 * params stays NULL; nothing to free. */
int wl_model_layout(wl_model *m, const char *kind_name, int V, int heads, wl_err *err);
void wl_model_free(wl_model *m);
/* Moves m onto params [nparams], a buffer of m's layout that holds the same values and that m does not own (a
 * shared mapping of them, which must outlive m): m's own buffer is freed. */
void wl_model_borrow_params(wl_model *m, float *params);
/* The view named name (a PyTorch name such as "W_Q.weight"), or NULL when the model has no such parameter.
 * Its offset and size locate the tensor in params and in any buffer of the same layout (grads, AdamW m and v). */
const wl_param_view *wl_model_view(const wl_model *m, const char *name);

/* Scratch memory and threads (as many as OpenBLAS uses) for forward and backward at batch size up to Bmax, for
 * models of m's kind, V and H.
 * Returns NULL when memory runs out. A workspace serves one call at a time. */
typedef struct wl_model_ws wl_model_ws;
wl_model_ws *wl_model_ws_new(const wl_model *m, int Bmax);
void wl_model_ws_free(wl_model_ws *ws);

/* Final query row only. ctx [B,T] ids in [0,V), logits out [B,V]; 1 <= B <= the workspace's Bmax.
 * The final row's weights mask PAD keys (windows always end in a real token; a context ending in PAD keeps
 * every key, as forward_details does for a PAD query). */
int wl_model_forward(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, int B, float *logits, wl_err *err);

/* Mean cross-entropy of the final-row logits against tgt [B]; when grads is non-NULL, writes
 * d(loss)/d(params) into grads [nparams] (overwritten, not accumulated). Returns 0 / -1. */
int wl_model_loss(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, const int32_t *tgt, int B,
                  double *loss, float *grads, wl_err *err);

/* Every row, every intermediate (malloc'd, owned by the struct; free with wl_details_free).
 * For mlp only logits is set (every other pointer is NULL, H = d = 0). */
typedef struct wl_details {
    int B, T, D, H, d, V;
    float *E;            /* [B,T,D] */
    float *Q, *K, *Vv;   /* [B,H,T,d] */
    float *scores;       /* [B,H,T,T] (masked entries hold -INFINITY) */
    float *weights;      /* [B,H,T,T] */
    float *messages;     /* [B,T,D] */
    float *contextual;   /* [B,T,D] */
    float *logits_all;   /* [B,T,V] */
    float *logits;       /* [B,V] the last row */
} wl_details;

/* ws: a workspace of m's (any Bmax: only its threads are used) or NULL (the call starts threads of its own). */
int wl_model_details(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, int B, wl_details *out, wl_err *err);
void wl_details_free(wl_details *d);

#endif

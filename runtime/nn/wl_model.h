/* wl_model.h: the course's three models (mlp, attention with H heads) with one parameter buffer and named views.
 *
 * Shapes: B batch, T context (64), D width (64), H heads, d = D/H head width, F hidden (256), V vocab.
 * Parameter names and shapes follow PyTorch (Linear weight is [out, in]) so checkpoints load in PyTorch. */
#ifndef WL_MODEL_H
#define WL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "wl_core.h"

#define WL_T 64
#define WL_D 64
#define WL_F 256
#define WL_PAD 0
#define WL_BOS 1
#define WL_EOS 2
#define WL_UNK 3
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
} wl_model;

/* kind_name: "mlp", "attention" or "multihead"; heads: 1 for mlp/attention, H (divides 64) for multihead.
 * Initialises with PyTorch's default distributions from our own seeded generator. */
int wl_model_init(wl_model *m, const char *kind_name, int V, int heads, uint64_t seed, wl_err *err);
void wl_model_free(wl_model *m);
/* Points the named pointers of m at the views of buf (params, grads or optimizer state share the layout). */
const wl_param_view *wl_model_view(const wl_model *m, const char *name);

/* Scratch memory for forward and backward at batch size up to Bmax. */
typedef struct wl_model_ws wl_model_ws;
wl_model_ws *wl_model_ws_new(const wl_model *m, int Bmax);
void wl_model_ws_free(wl_model_ws *ws);

/* Final query row only. ctx [B,T] ids, logits out [B,V]. */
int wl_model_forward(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, int B, float *logits, wl_err *err);

/* Mean cross-entropy of the final-row logits against tgt [B]; when grads is non-NULL, writes
 * d(loss)/d(params) into grads [nparams] (overwritten, not accumulated). Returns 0 / -1. */
int wl_model_loss(const wl_model *m, wl_model_ws *ws, const int32_t *ctx, const int32_t *tgt, int B,
                  double *loss, float *grads, wl_err *err);

/* Every row, every intermediate (malloc'd, owned by the struct). mlp fills only logits_all = NULL and logits. */
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

int wl_model_details(const wl_model *m, const int32_t *ctx, int B, wl_details *out, wl_err *err);
void wl_details_free(wl_details *d);

#endif

/* wl_wasm.c: the runtime's entry points for JavaScript (the WebAssembly build): vocabulary, tokenize, checkpoints,
 * forward, forward_details and generation one model call at a time.
 *
 * vocab.json and .npz files are read from the module's in-memory file system, where the JavaScript side writes
 * the bytes it downloaded. Contexts are [T] ids (T = 64), one at a time. A function that fails returns NULL or -1
 * and keeps its message for wlw_error(); strings it returns as char * are malloc'd (the caller frees them). */
#include <cJSON.h>
#include <emscripten.h>
#include <stdlib.h>
#include <string.h>

#include "wl_checkpoint.h"
#include "wl_corpus.h"
#include "wl_generate.h"
#include "wl_model.h"
#include "wl_text.h"

#define API EMSCRIPTEN_KEEPALIVE

static wl_err last;

API const char *wlw_error(void)
{
    return last.msg;
}

API int wlw_context_len(void)
{
    return WL_T;
}

/* ---- vocabulary and text ---- */

API wl_vocab *wlw_vocab_load(const char *path)
{
    wl_vocab *v = calloc(1, sizeof *v);
    if (!v) {
        wl_fail(&last, "out of memory");
        return NULL;
    }
    if (wl_vocab_load(path, v, &last) < 0) {
        free(v);
        return NULL;
    }
    return v;
}

API void wlw_vocab_free(wl_vocab *v)
{
    wl_vocab_free(v);
    free(v);
}

API int wlw_vocab_size(const wl_vocab *v)
{
    return (int)v->n;
}

/* The token of an id, or NULL outside [0, size). */
API const char *wlw_vocab_token(const wl_vocab *v, int id)
{
    return id >= 0 && (size_t)id < v->n ? v->itos[id] : NULL;
}

/* tokenize(text) as JSON {"tokens": [...]}, with "ids": [...] (unknown words are <UNK>, 3) when v is not NULL. */
API char *wlw_tokenize(const char *text, const wl_vocab *v)
{
    wl_tokens t;
    if (wl_text_tokenize(text, strlen(text), &t, &last) < 0) return NULL;
    int32_t *ids = v ? malloc(sizeof(int32_t) * (t.n + 1)) : NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON *toks = cJSON_AddArrayToObject(o, "tokens");
    cJSON *idl = v ? cJSON_AddArrayToObject(o, "ids") : NULL;
    int ok = o && toks && (!v || (ids && idl));
    if (ok && v) wl_vocab_encode(v, (const char *const *)t.tok, t.n, ids);
    for (size_t i = 0; ok && i < t.n; i++) {
        ok = cJSON_AddItemToArray(toks, cJSON_CreateString(t.tok[i]));
        if (ok && v) ok = cJSON_AddItemToArray(idl, cJSON_CreateNumber(ids[i]));
    }
    char *json = ok ? cJSON_PrintUnformatted(o) : NULL;
    if (!json) wl_fail(&last, "out of memory tokenizing %zu bytes", strlen(text));
    cJSON_Delete(o);
    free(ids);
    wl_tokens_free(&t);
    return json;
}

/* The readable text (wl_text_readable) of ids [from..n) through v, with ids [0..from) the text before them (a
 * prompt); ids outside the vocabulary are an error. */
API char *wlw_detokenize(const wl_vocab *v, const int32_t *ids, int n, int from)
{
    const char **words = malloc(sizeof(char *) * ((size_t)n + 1));
    if (!words) {
        wl_fail(&last, "out of memory");
        return NULL;
    }
    char *out = NULL;
    int i = 0;
    for (; i < n && (words[i] = wlw_vocab_token(v, ids[i])); i++) {}
    if (i < n) wl_fail(&last, "id %d at position %d is outside the vocabulary [0, %zu)", (int)ids[i], i, v->n);
    else wl_text_readable(words, (size_t)n, (size_t)(from < 0 ? 0 : from > n ? n : from), &out, &last);
    free(words);
    return out;
}

/* ---- models ---- */

/* A loaded checkpoint with the workspace of its one-context forward calls. */
typedef struct wlw_model {
    wl_model m;
    wl_ckpt_meta meta;
    wl_model_ws *ws;
} wlw_model;

API void wlw_model_free(wlw_model *h)
{
    if (!h) return;
    wl_model_ws_free(h->ws);
    wl_model_free(&h->m);
    wl_ckpt_meta_free(&h->meta);
    free(h);
}

/* Reads a checkpoint; expect_vocab > 0 requires that vocabulary size. */
API wlw_model *wlw_model_load(const char *path, int expect_vocab)
{
    wlw_model *h = calloc(1, sizeof *h);
    if (!h) {
        wl_fail(&last, "out of memory");
        return NULL;
    }
    if (wl_checkpoint_load(path, expect_vocab, NULL, &h->m, &h->meta, &last) < 0) {
        free(h);
        return NULL;
    }
    if (!(h->ws = wl_model_ws_new(&h->m, 1))) {
        wl_fail(&last, "%s: out of memory for the model's workspace", path);
        wlw_model_free(h);
        return NULL;
    }
    return h;
}

/* {"kind", "heads", "vocab_size", "parameters", "metadata": the checkpoint's metadata_json} */
API char *wlw_model_info(const wlw_model *h)
{
    cJSON *o = cJSON_CreateObject();
    int ok = o && cJSON_AddStringToObject(o, "kind", h->m.kind_name) && cJSON_AddNumberToObject(o, "heads", h->m.H) &&
             cJSON_AddNumberToObject(o, "vocab_size", h->m.V) &&
             cJSON_AddNumberToObject(o, "parameters", (double)h->m.nparams);
    cJSON *meta = ok ? cJSON_Parse(h->meta.json) : NULL;
    ok = ok && meta && cJSON_AddItemToObject(o, "metadata", meta);
    if (!ok) cJSON_Delete(meta);
    char *json = ok ? cJSON_PrintUnformatted(o) : NULL;
    if (!json) wl_fail(&last, "out of memory describing the model");
    cJSON_Delete(o);
    return json;
}

API int wlw_model_vocab_size(const wlw_model *h)
{
    return h->m.V;
}

API int wlw_model_heads(const wlw_model *h)
{
    return h->m.kind == WL_KIND_ATTENTION ? h->m.H : 0;
}

/* logits [V] of the final row for ctx [T]. */
API int wlw_forward(wlw_model *h, const int32_t *ctx, float *logits)
{
    return wl_model_forward(&h->m, h->ws, ctx, 1, logits, &last);
}

/* forward_details of ctx [T]; read it with the accessors below. */
API wl_details *wlw_details(const wlw_model *h, const int32_t *ctx)
{
    wl_details *d = malloc(sizeof *d);
    if (!d) {
        wl_fail(&last, "out of memory");
        return NULL;
    }
    if (wl_model_details(&h->m, h->ws, ctx, 1, d, &last) < 0) {
        free(d);
        return NULL;
    }
    return d;
}

API void wlw_details_free(wl_details *d)
{
    if (!d) return;
    wl_details_free(d);
    free(d);
}

/* [V] the final row's logits. */
API const float *wlw_details_logits(const wl_details *d)
{
    return d->logits;
}

/* [H,T,T] attention weights (NULL for mlp). */
API const float *wlw_details_weights(const wl_details *d)
{
    return d->weights;
}

/* ---- generation ---- */

/* seed is a double so that JavaScript can pass any integer up to 2^53. */
API wl_gen *wlw_gen_start(const wlw_model *h, const int32_t *prompt, int nprompt, int max_new_tokens, int greedy,
                          double temperature, double seed)
{
    if (!(seed >= 0 && seed <= 9007199254740992.0 && seed == (double)(uint64_t)seed)) {
        wl_fail(&last, "generate: the seed must be an integer in [0, 2^53], got %g", seed);
        return NULL;
    }
    wl_gen_config cfg = {.max_new_tokens = max_new_tokens, .temperature = temperature, .greedy = greedy,
                         .seed = (uint64_t)seed};
    wl_gen *g;
    return wl_gen_start(&h->m, prompt, nprompt, &cfg, &g, &last) < 0 ? NULL : g;
}

API int wlw_gen_step(wl_gen *g)
{
    return wl_gen_step(g, &last);
}

API int wlw_gen_finished(const wl_gen *g)
{
    return wl_gen_finished(g);
}

API const int32_t *wlw_gen_context(const wl_gen *g)
{
    return wl_gen_context(g);
}

API int wlw_gen_count(const wl_gen *g)
{
    return wl_gen_progress(g)->n_new;
}

API const int32_t *wlw_gen_ids(const wl_gen *g)
{
    return wl_gen_progress(g)->ids;
}

API int wlw_gen_calls(const wl_gen *g)
{
    return wl_gen_progress(g)->calls;
}

API double wlw_gen_seconds(const wl_gen *g)
{
    return wl_gen_progress(g)->seconds;
}

/* "eos", "limit" or "interrupted" once finished. */
API const char *wlw_gen_stop(const wl_gen *g)
{
    return wl_gen_stop_name(wl_gen_progress(g)->stop);
}

API void wlw_gen_interrupt(wl_gen *g)
{
    wl_gen_interrupt(g);
}

API void wlw_gen_free(wl_gen *g)
{
    wl_gen_free(g);
}

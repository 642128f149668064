/* wl_checkpoint.c: saving and loading model checkpoints (.npz with state__<name> arrays and metadata_json), checked array by array. */
#include "wl_checkpoint.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "wl_npz.h"

#define STATE_PREFIX "state__"
#define META_NAME "metadata_json"
#define EMB_NAME STATE_PREFIX "token_embedding.weight"
/* Bytes the metadata may declare: 1 MiB, and 4 KiB for each token of the vocabulary it may carry (UTF-32). */
#define META_MAX(V) (((size_t)1 << 20) + (size_t)(V) * 4096)

void wl_ckpt_meta_free(wl_ckpt_meta *meta)
{
    free(meta->json);
    meta->json = NULL;
}

/* The metadata object as JSON text (malloc'd), or NULL with err set. */
static char *meta_text(const char *path, const wl_model *m, uint64_t seed, int selected_step, double test_loss,
                       const char *extra_json, wl_err *err)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *extra = NULL;
    char *text = NULL;
    if (!o) goto oom;
    if (extra_json) {
        extra = cJSON_Parse(extra_json);
        if (!cJSON_IsObject(extra)) {
            wl_fail(err, "%s: the extra checkpoint metadata is not a JSON object", path);
            goto done;
        }
    }
    int ok = cJSON_AddStringToObject(o, "kind", m->kind_name) && cJSON_AddNumberToObject(o, "heads", m->H) &&
             cJSON_AddNumberToObject(o, "seed", (double)seed) &&
             cJSON_AddNumberToObject(o, "selected_step", selected_step) &&
             (isfinite(test_loss) ? cJSON_AddNumberToObject(o, "test_loss", test_loss) != NULL
                                  : cJSON_AddNullToObject(o, "test_loss") != NULL) &&
             cJSON_AddNumberToObject(o, "vocab_size", m->V) &&
             cJSON_AddNumberToObject(o, "parameters", (double)m->nparams);
    if (!ok) goto oom;
    if (extra) {
        for (cJSON *it = extra->child; it; it = it->next) {
            if (cJSON_HasObjectItem(o, it->string)) continue;   /* the model's own facts win */
            cJSON *copy = cJSON_Duplicate(it, 1);
            if (!copy || !cJSON_AddItemToObject(o, it->string, copy)) {
                cJSON_Delete(copy);
                goto oom;
            }
        }
    }
    text = cJSON_PrintUnformatted(o);
    if (!text) goto oom;
    goto done;
oom:
    wl_fail(err, "%s: out of memory while writing the checkpoint metadata", path);
done:
    cJSON_Delete(o);
    cJSON_Delete(extra);
    return text;
}

/* Refuses a name that ends as another kind of file's (a slip that would put a checkpoint where a notebook, a lesson,
 * a vocab.json or a text belongs), suggesting the name with .npz instead. */
static int check_name(const char *path, wl_err *err)
{
    static const char *const others[] = {".ipynb", ".wlab", ".txt", ".json", ".jsonl", ".py", ".md"};
    const char *base = strrchr(path, '/');
    const char *dot = strrchr(base ? base + 1 : path, '.');
    for (size_t i = 0; dot && i < sizeof others / sizeof *others; i++)
        if (!strcasecmp(dot, others[i]))
            return wl_fail(err, "%s: a checkpoint is not saved under a name ending %s, another kind of file's; nothing "
                           "written: give a name ending .npz, such as %.*s.npz", path, dot, (int)(dot - path), path);
    return 0;
}

int wl_checkpoint_save(const char *path, const wl_model *m, uint64_t seed, int selected_step, double test_loss,
                       const char *extra_json, wl_err *err)
{
    if (check_name(path, err)) return -1;
    wl_npy arrays[WL_MAX_PARAMS + 1];
    char names[WL_MAX_PARAMS][64];
    memset(arrays, 0, sizeof arrays);
    int n = 0;
    for (; n < m->nviews; n++) {
        const wl_param_view *v = &m->views[n];
        snprintf(names[n], sizeof names[n], STATE_PREFIX "%s", v->name);
        wl_npy *a = &arrays[n];
        a->name = names[n];
        strcpy(a->dtype, "<f4");
        a->ndim = v->ndim;
        for (int d = 0; d < v->ndim; d++) a->shape[d] = (size_t)v->shape[d];
        a->data = m->params + v->offset;   /* written, never modified */
        a->nbytes = v->size * sizeof(float);
    }
    char *text = meta_text(path, m, seed, selected_step, test_loss, extra_json, err);
    if (!text) return -1;
    int rc = wl_npy_set_string(&arrays[n], META_NAME, text, err);
    free(text);
    if (rc < 0) return -1;
    rc = wl_npz_write(path, arrays, (size_t)n + 1, 0, err);
    wl_npy_free(&arrays[n]);
    return rc;
}

/* Reads the metadata fields that say which model to build. */
static int parse_meta(const char *path, const wl_npz *z, wl_ckpt_meta *meta, wl_err *err)
{
    const wl_npy *a = wl_npz_find(z, META_NAME);
    if (!a) return wl_fail(err, "%s: the checkpoint has no array '%s'", path, META_NAME);
    if (strcmp(a->dtype, "<U") != 0 || a->ndim != 0)
        return wl_fail(err, "%s: array '%s' must be a 0-d unicode string (dtype <U), got dtype %s with %d dimensions",
                       path, META_NAME, a->dtype, a->ndim);
    if (wl_npy_get_string(a, &meta->json, err) < 0) return -1;
    cJSON *o = cJSON_Parse(meta->json);
    int rc = 0;
    if (!cJSON_IsObject(o)) {
        rc = wl_fail(err, "%s: array '%s' does not hold a JSON object", path, META_NAME);
        goto done;
    }
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    const cJSON *heads = cJSON_GetObjectItemCaseSensitive(o, "heads");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(o, "seed");
    const cJSON *step = cJSON_GetObjectItemCaseSensitive(o, "selected_step");
    const cJSON *loss = cJSON_GetObjectItemCaseSensitive(o, "test_loss");
    const cJSON *vocab = cJSON_GetObjectItemCaseSensitive(o, "vocab_size");
    if (!cJSON_IsString(kind) || (strcmp(kind->valuestring, "mlp") && strcmp(kind->valuestring, "attention") &&
                                  strcmp(kind->valuestring, "multihead"))) {
        rc = wl_fail(err, "%s: array '%s': \"kind\" must be \"mlp\", \"attention\" or \"multihead\"", path, META_NAME);
        goto done;
    }
    snprintf(meta->kind, sizeof meta->kind, "%s", kind->valuestring);
    meta->heads = cJSON_IsNumber(heads) ? heads->valueint : 0;   /* 0: the kind's default */
    if (cJSON_IsNumber(seed) && !(seed->valuedouble >= 0 && seed->valuedouble < 0x1p64 &&
                                  seed->valuedouble == floor(seed->valuedouble))) {
        rc = wl_fail(err, "%s: array '%s': \"seed\" must be a whole number from 0 to 2^64 - 1", path, META_NAME);
        goto done;
    }
    meta->seed = cJSON_IsNumber(seed) ? (uint64_t)seed->valuedouble : 0;
    meta->selected_step = cJSON_IsNumber(step) ? step->valueint : 0;
    meta->test_loss = cJSON_IsNumber(loss) ? loss->valuedouble : NAN;
    meta->vocab_size = cJSON_IsNumber(vocab) ? vocab->valueint : 0;
done:
    cJSON_Delete(o);
    return rc;
}

/* The token embedding, whose shape [V, D] gives the vocabulary; NULL with err set when it is missing or wrong. */
static const wl_npy *embedding(const char *path, const wl_npz *z, wl_err *err)
{
    const wl_npy *e = wl_npz_find(z, EMB_NAME);
    if (!e) wl_fail(err, "%s: the checkpoint has no array '%s'", path, EMB_NAME);
    else if (e->ndim != 2 || e->shape[1] != WL_D || e->shape[0] <= WL_UNK || e->shape[0] > WL_MODEL_MAX_V)
        wl_fail(err, "%s: array '%s' must have shape [V, %d] with V from %d to %d, got %d dimensions [%zu, ...]", path,
                EMB_NAME, WL_D, WL_UNK + 1, WL_MODEL_MAX_V, e->ndim, e->ndim > 0 ? e->shape[0] : 0);
    else return e;
    return NULL;
}

/* Before any data is inflated: the arrays may declare no more bytes than the largest model of their vocabulary
 * holds, plus the metadata (with the vocabulary it may carry). */
static int check_declared(void *ud, const wl_npz *z, wl_err *err)
{
    const char *path = ud;
    const wl_npy *e = embedding(path, z, err);
    if (!e) return -1;
    size_t most = 0, total = 0;
    static const char *const kinds[] = {"mlp", "attention"};
    for (int k = 0; k < 2; k++) {
        wl_model m;
        if (wl_model_layout(&m, kinds[k], (int)e->shape[0], 0, NULL) == 0 && m.nparams > most) most = m.nparams;
    }
    size_t allowed = most * sizeof(float) + META_MAX(e->shape[0]);
    for (size_t i = 0; i < z->n; i++) total += z->arrays[i].nbytes;
    if (total > allowed)
        return wl_fail(err, "%s: its arrays declare %zu bytes, more than the %zu that a checkpoint with a vocabulary of "
                       "%zu tokens holds", path, total, allowed, e->shape[0]);
    return 0;
}

static int load_arrays(const char *path, const wl_npz *z, int expect_vocab, wl_model *m, wl_ckpt_meta *meta,
                       wl_err *err)
{
    if (parse_meta(path, z, meta, err) < 0) return -1;
    const wl_npy *e = embedding(path, z, err);
    if (!e) return -1;
    int V = (int)e->shape[0];
    if (meta->vocab_size > 0 && meta->vocab_size != V)
        return wl_fail(err, "%s: array '%s' has %d rows but the metadata says vocab_size %d", path, EMB_NAME, V,
                       meta->vocab_size);
    if (expect_vocab > 0 && expect_vocab != V)
        return wl_fail(err, "%s: array '%s' has a vocabulary of %d tokens, but the vocabulary in use has %d", path,
                       EMB_NAME, V, expect_vocab);
    meta->vocab_size = V;
    wl_err why;
    if (wl_model_init(m, meta->kind, V, meta->heads, 0, &why) < 0)
        return wl_fail(err, "%s: array '%s' describes a model that cannot be built: %s", path, META_NAME, why.msg);
    meta->heads = m->H;
    /* Every name must be a parameter of this model or the metadata. */
    for (size_t i = 0; i < z->n; i++) {
        const char *name = z->arrays[i].name;
        if (strcmp(name, META_NAME) == 0) continue;
        if (strncmp(name, STATE_PREFIX, strlen(STATE_PREFIX)) != 0 ||
            !wl_model_view(m, name + strlen(STATE_PREFIX))) {
            wl_model_free(m);
            return wl_fail(err, "%s: unexpected array '%s' (a %s checkpoint has no such parameter)", path, name,
                           meta->kind);
        }
    }
    for (int i = 0; i < m->nviews; i++) {
        const wl_param_view *v = &m->views[i];
        char name[96];
        snprintf(name, sizeof name, STATE_PREFIX "%s", v->name);
        size_t shape[2] = {(size_t)v->shape[0], (size_t)v->shape[1]};
        const wl_npy *a = wl_npz_expect(z, name, "<f4", v->ndim, shape, err);
        if (!a) {
            wl_model_free(m);
            return -1;
        }
        const float *x = a->data;
        size_t bad = 0;
        while (bad < v->size && isfinite(x[bad])) bad++;
        if (bad < v->size) {
            char at[64];
            if (v->ndim == 2) snprintf(at, sizeof at, "[%zu, %zu]", bad / (size_t)v->shape[1], bad % (size_t)v->shape[1]);
            else snprintf(at, sizeof at, "[%zu]", bad);
            wl_fail(err, "%s: array '%s' holds %s at index %s; a checkpoint's parameters must be finite", path, name,
                    isnan(x[bad]) ? "NaN" : "infinity", at);
            wl_model_free(m);
            return -1;
        }
        memcpy(m->params + v->offset, a->data, v->size * sizeof(float));
    }
    return 0;
}

int wl_checkpoint_load(const char *path, int expect_vocab, volatile sig_atomic_t *interrupt, wl_model *m,
                       wl_ckpt_meta *meta, wl_err *err)
{
    wl_ckpt_meta local;
    wl_ckpt_meta *mt = meta ? meta : &local;
    memset(mt, 0, sizeof *mt);
    wl_npz z;
    wl_npz_opts o = {.interrupt = interrupt, .check = check_declared, .ud = (void *)path};
    if (wl_npz_read_opts(path, &o, &z, err) < 0) return -1;
    int rc = load_arrays(path, &z, expect_vocab, m, mt, err);
    wl_npz_free(&z);
    if (rc < 0 || !meta) wl_ckpt_meta_free(mt);
    return rc;
}

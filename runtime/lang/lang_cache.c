/* lang_cache.c: the commands' side of the shared cache: shared=off, notes to stderr, the corpus, its windows, scores. */
#include "lang_objs.h"

#include "wl_cache.h"
#include "wl_storygen.h"

#include <stdlib.h>
#include <string.h>

static void note_stderr(void *ud, const char *msg)
{
    wl_call *c = ud;
    wl_sink_write(c->sink, "stderr", msg, strlen(msg));
    wl_sink_write(c->sink, "stderr", "\n", 1);
}

/* The cache the command uses: the interpreter's folder, unless it has none or the command says shared=off (-1 on a
 * bad value). */
static int cache_of(wl_call *c, wl_cache *out)
{
    const char *v = wl_opt_str(c, "shared", "on");
    if (!v) return -1;
    if (strcmp(v, "on") && strcmp(v, "off"))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "shared"), "shared is on or off, not %s", v);
    const wl_interp_opts *o = wl_interp_options(c->in);
    *out = (wl_cache){.dir = strcmp(v, "off") ? o->shared_cache : NULL, .limit = o->shared_cache_limit,
                      .note = note_stderr, .ud = c, .interrupt = lang_interrupt(c)};
    return 0;
}

typedef struct gen_job {
    const wl_profile *prof;
    uint64_t seed;
    wl_call *c;
} gen_job;

static int fill_corpus(void *ud, unsigned char **data, size_t *len, wl_err *err)
{
    gen_job *j = ud;
    wl_corpus g;
    if (wl_corpus_generate(j->prof, j->seed, lang_interrupt(j->c), &g, err)) return -1;
    int rc = wl_corpus_pack(&g, WL_CACHE_HEAD, data, len, err);
    wl_corpus_free(&g);
    return rc;
}

/* What a generated corpus depends on: the generator (its version and its first stories of this seed, so that a
 * changed generator never meets an old entry), the profile and the seed. */
static int corpus_name(const wl_profile *prof, uint64_t seed, char **name, wl_err *err)
{
    char **texts;
    if (wl_storygen_generate(seed, 4, &texts, err)) return -1;
    unsigned char md[32];
    wl_buf b = {0};
    for (int i = 0; i < 4; i++) wl_buf_puts(&b, texts[i]);
    wl_storygen_free(texts, 4);
    int rc = wl_corpus_sha256("", 0, b.s, b.len, md, err);
    free(b.s);
    b = (wl_buf){0};
    if (rc) return -1;
    wl_buf_printf(&b, "wordlab corpus (packed 1)\ngenerator %d ", WL_STORYGEN_VERSION);
    for (int i = 0; i < 32; i++) wl_buf_printf(&b, "%02x", md[i]);
    wl_buf_printf(&b, "\nprofile %s stories %zu max_vocab %zu min_freq %zu\nseed %llu\n", prof->name, prof->stories,
                  prof->max_vocab, prof->min_freq, (unsigned long long)seed);
    *name = wl_buf_take(&b);
    return 0;
}

int lang_cache_corpus(wl_call *c, const wl_profile *prof, uint64_t seed, lang_corpus *lc)
{
    wl_cache cache;
    if (cache_of(c, &cache)) return -1;
    if (!cache.dir) return wl_corpus_generate(prof, seed, lang_interrupt(c), &lc->c, c->err);
    char *name;
    if (corpus_name(prof, seed, &name, c->err)) return -1;
    gen_job j = {prof, seed, c};
    if (wl_cache_get(&cache, name, fill_corpus, &j, &lc->entry, c->err) ||
        wl_corpus_unpack(lc->entry.data, lc->entry.len, &lc->c, c->err)) {
        wl_cache_release(&lc->entry);
        free(name);
        return -1;
    }
    lc->cache_name = name;
    return 0;
}

typedef struct win_job {
    lang_corpus *lc;
    wl_split s;
    wl_call *c;
} win_job;

/* Payload: n (u64), 56 zero bytes, ctx [n, WL_CONTEXT] int32, tgt [n] int32. */
#define WIN_HEAD 64

static int fill_windows(void *ud, unsigned char **data, size_t *len, wl_err *err)
{
    win_job *j = ud;
    uint64_t n = wl_corpus_window_count(&j->lc->c, j->s);
    *len = WIN_HEAD + (size_t)n * (WL_CONTEXT + 1) * sizeof(int32_t);
    if (!(*data = calloc(1, WL_CACHE_HEAD + *len)))
        return wl_fail(err, "out of memory for %llu windows of the %s split", (unsigned long long)n, wl_split_name(j->s));
    unsigned char *p = *data + WL_CACHE_HEAD;
    memcpy(p, &n, 8);
    int32_t *ctx = (int32_t *)(p + WIN_HEAD);
    if (wl_corpus_windows_into(&j->lc->c, j->s, lang_interrupt(j->c), ctx, ctx + n * WL_CONTEXT, err)) {
        free(*data);
        return -1;
    }
    return 0;
}

int lang_cache_windows(wl_call *c, lang_corpus *lc, wl_split s)
{
    wl_cache cache;
    if (cache_of(c, &cache)) return -1;
    wl_buf b = {0};
    wl_buf_printf(&b, "%swindows (1) of the %s split, T %d\n", lc->cache_name, wl_split_name(s), WL_CONTEXT);
    char *name = wl_buf_take(&b);
    win_job j = {lc, s, c};
    wl_cache_entry *e = &lc->win_entry[s];
    int rc = wl_cache_get(&cache, name, fill_windows, &j, e, c->err);
    free(name);
    if (rc) return -1;
    uint64_t n;
    memcpy(&n, e->data, 8);
    if (e->len != WIN_HEAD + n * (WL_CONTEXT + 1) * sizeof(int32_t)) {
        wl_cache_release(e);
        return wl_fail(c->err, "the cached windows of the %s split have the wrong size", wl_split_name(s));
    }
    int32_t *ctx = (int32_t *)(e->data + WIN_HEAD);
    lc->win[s] = (wl_windows){ctx, ctx + n * WL_CONTEXT, (size_t)n};
    return 0;
}

typedef struct eval_job {
    const lang_model *lm;
    const wl_window_set *w;
    int batch;
    wl_call *c;
} eval_job;

static int fill_eval(void *ud, unsigned char **data, size_t *len, wl_err *err)
{
    eval_job *j = ud;
    double r[2];
    if (wl_evaluate(&j->lm->m, NULL, j->w, j->batch, lang_interrupt(j->c), &r[0], &r[1], err)) return -1;
    *len = sizeof r;
    *data = wl_xcalloc(1, WL_CACHE_HEAD + sizeof r);
    memcpy(*data + WL_CACHE_HEAD, r, sizeof r);
    return 0;
}

int lang_cache_evaluate(wl_call *c, const lang_model *lm, const lang_corpus *lc, wl_split s, const wl_window_set *w,
                        int batch, double *loss, double *ppl)
{
    wl_cache cache;
    if (cache_of(c, &cache)) return -1;
    if (!lm->checkpoint_sha[0] || !lc->cache_name) cache.dir = NULL;   /* a model or corpus of the student's own */
    wl_buf b = {0};
    wl_buf_printf(&b, "%sevaluate (1) checkpoint %s on the %s split in batches of %d\n", lc->cache_name ? lc->cache_name : "",
                  lm->checkpoint_sha, wl_split_name(s), batch);
    char *name = wl_buf_take(&b);
    eval_job j = {lm, w, batch, c};
    wl_cache_entry e;
    int rc = wl_cache_get(&cache, name, fill_eval, &j, &e, c->err);
    free(name);
    if (rc) return -1;
    if (e.len != 2 * sizeof(double)) {
        wl_cache_release(&e);
        return wl_fail(c->err, "a cached evaluation has the wrong size");
    }
    memcpy(loss, e.data, sizeof(double));
    memcpy(ppl, e.data + sizeof(double), sizeof(double));
    wl_cache_release(&e);
    return 0;
}

static int fill_params(void *ud, unsigned char **data, size_t *len, wl_err *err)
{
    const wl_model *m = ud;
    *len = m->nparams * sizeof(float);
    if (!(*data = malloc(WL_CACHE_HEAD + *len))) return wl_fail(err, "out of memory for %zu weights", m->nparams);
    memcpy(*data + WL_CACHE_HEAD, m->params, *len);
    return 0;
}

int lang_cache_checkpoint(wl_call *c, const char *path, lang_model *lm)
{
    lm->checkpoint_sha[0] = 0;
    wl_cache cache;
    if (cache_of(c, &cache)) return -1;
    if (!cache.dir) return 0;
    if (wl_cache_file_hash(path, lm->checkpoint_sha, c->err)) return -1;
    /* the weights as loaded, shared by every kernel that loads the same file; a write (training) copies a page */
    cache.copy_on_write = 1;
    wl_buf b = {0};
    wl_buf_printf(&b, "wordlab checkpoint weights (1) %s\n%s V %d H %d params %zu\n", lm->checkpoint_sha, lm->m.kind_name,
                  lm->m.V, lm->m.H, lm->m.nparams);
    char *name = wl_buf_take(&b);
    int rc = wl_cache_get(&cache, name, fill_params, &lm->m, &lm->params, c->err);
    free(name);
    if (rc) return -1;
    if (lm->params.len != lm->m.nparams * sizeof(float)) {
        wl_cache_release(&lm->params);
        return wl_fail(c->err, "the cached weights of %s have the wrong size", path);
    }
    wl_model_borrow_params(&lm->m, (float *)lm->params.data);
    return 0;
}

/* wl_corpus_pack.c: a corpus as one flat byte string, and a corpus whose texts, token bytes and ids point into one. */
#include "wl_corpus.h"

#include "wl_buf.h"

#include <stdlib.h>
#include <string.h>

/* Layout (every item 8-byte aligned, integers as the machine writes them):
 *   "WLCORP01", sizeof(wl_audit), the audit, the profile's name [32], stories, max_vocab, min_freq,
 *   the source (u64 length, bytes, NUL), the vocabulary's JSON (u64 length, bytes, NUL), n[WL_NSPLITS],
 *   then per story in split order: doc_id [24], row_idx, line, text length, token count, token bytes' length,
 *   the text and a NUL, ids [token count] int32, the tokens NUL-separated. */
static const char MAGIC[8] = {'W', 'L', 'C', 'O', 'R', 'P', '0', '1'};

static void put(wl_buf *b, const void *p, size_t n)
{
    wl_buf_put(b, p, n);
    static const char zeros[8];
    if (n % 8) wl_buf_put(b, zeros, 8 - n % 8);
}

static void put_u64(wl_buf *b, uint64_t v)
{
    put(b, &v, 8);
}

int wl_corpus_pack(const wl_corpus *c, size_t head, unsigned char **data, size_t *len, wl_err *err)
{
    char *vj = wl_vocab_json(&c->vocab);
    if (!vj) return wl_fail(err, "out of memory packing the corpus");
    wl_buf b = {0};
    char pad[8] = {0};
    for (size_t k = 0; k < head; k += 8) wl_buf_put(&b, pad, 8);   /* head is a multiple of 8 */
    put(&b, MAGIC, 8);
    put_u64(&b, sizeof(wl_audit));
    put(&b, &c->audit, sizeof(wl_audit));
    char name[32] = {0};
    snprintf(name, sizeof name, "%s", c->profile.name);
    put(&b, name, sizeof name);
    put_u64(&b, c->profile.stories);
    put_u64(&b, c->profile.max_vocab);
    put_u64(&b, c->profile.min_freq);
    const char *strs[2] = {c->source, vj};
    for (int k = 0; k < 2; k++) {
        put_u64(&b, strlen(strs[k]));
        put(&b, strs[k], strlen(strs[k]) + 1);
    }
    free(vj);
    for (int s = 0; s < WL_NSPLITS; s++) put_u64(&b, c->n[s]);
    for (int s = 0; s < WL_NSPLITS; s++)
        for (size_t i = 0; i < c->n[s]; i++) {
            const wl_story *st = &c->stories[s][i];
            char id[24] = {0};
            memcpy(id, st->doc_id, sizeof st->doc_id);
            put(&b, id, sizeof id);
            wl_tokens tk;
            if (wl_story_tokens(st, &tk, err)) {
                free(b.s);
                return -1;
            }
            size_t tb = 0;
            for (size_t k = 0; k < tk.n; k++) tb += strlen(tk.tok[k]) + 1;
            uint64_t f[5] = {(uint64_t)st->row_idx, st->line, strlen(st->text), st->tokens.n, tb};
            put(&b, f, sizeof f);
            put(&b, st->text, f[2] + 1);
            put(&b, st->ids, st->tokens.n * sizeof(int32_t));
            size_t at = b.len;
            for (size_t k = 0; k < tk.n; k++) wl_buf_put(&b, tk.tok[k], strlen(tk.tok[k]) + 1);
            wl_tokens_free(&tk);
            if ((b.len - at) % 8) wl_buf_put(&b, pad, 8 - (b.len - at) % 8);
        }
    *len = b.len - head;
    *data = (unsigned char *)wl_buf_take(&b);
    return 0;
}

typedef struct reader {
    const unsigned char *p, *end;
} reader;

/* The next n bytes (and the padding after them), or NULL past the end. */
static const void *take(reader *r, uint64_t n)
{
    uint64_t padded = n + (8 - n % 8) % 8;
    if (n > (uint64_t)(r->end - r->p) || padded > (uint64_t)(r->end - r->p)) return NULL;
    const void *at = r->p;
    r->p += padded;
    return at;
}

static int take_u64(reader *r, uint64_t *v)
{
    const void *p = take(r, 8);
    if (p) memcpy(v, p, 8);
    return p ? 0 : -1;
}

/* A NUL-terminated string of length n. */
static const char *take_str(reader *r, uint64_t n)
{
    const char *s = n < UINT64_MAX ? take(r, n + 1) : NULL;
    return s && s[n] == 0 && memchr(s, 0, n) == NULL ? s : NULL;
}

static int story_unpack(reader *r, wl_story *st)
{
    const char *id = take(r, 24);
    const uint64_t *f = take(r, 5 * 8);
    if (!id || !f || memchr(id, 0, WL_DOC_ID_LEN + 1) != id + WL_DOC_ID_LEN) return -1;
    memcpy(st->doc_id, id, WL_DOC_ID_LEN + 1);
    st->row_idx = (long)f[0];
    st->line = (size_t)f[1];
    const char *text = take_str(r, f[2]);
    const int32_t *ids = f[3] <= SIZE_MAX / 8 ? take(r, f[3] * 4) : NULL;
    const char *tb = take(r, f[4]);
    if (!text || !ids || !tb || (f[4] && tb[f[4] - 1])) return -1;
    st->text = (char *)text;
    st->ids = (int32_t *)ids;
    st->tokens.n = (size_t)f[3];
    st->tokbytes = tb;
    const char *at = tb, *end = tb + f[4];
    for (size_t k = 0; k < f[3]; k++) {   /* n tokens, each ended by a NUL, and nothing more */
        if (at >= end) return -1;
        at += strlen(at) + 1;
    }
    return at == end ? 0 : -1;
}

int wl_corpus_unpack(const void *data, size_t len, wl_corpus *c, wl_err *err)
{
    memset(c, 0, sizeof *c);
    c->borrowed = 1;
    reader r = {data, (const unsigned char *)data + len};
    uint64_t asz, stories, max_vocab, min_freq, sl[2], n[WL_NSPLITS];
    const void *magic = take(&r, 8);
    if (!magic || memcmp(magic, MAGIC, 8) || take_u64(&r, &asz) || asz != sizeof(wl_audit))
        return wl_fail(err, "a packed corpus of another format");
    const void *audit = take(&r, sizeof(wl_audit));
    const char *name = take(&r, 32);
    if (!audit || !name || !memchr(name, 0, 32) || take_u64(&r, &stories) || take_u64(&r, &max_vocab) ||
        take_u64(&r, &min_freq))
        goto bad;
    memcpy(&c->audit, audit, sizeof(wl_audit));
    if (wl_profile_get(name, &c->profile, err)) goto bad;
    c->profile.stories = (size_t)stories;
    c->profile.max_vocab = (size_t)max_vocab;
    c->profile.min_freq = (size_t)min_freq;
    const char *strs[2];
    for (int k = 0; k < 2; k++)
        if (take_u64(&r, &sl[k]) || !(strs[k] = take_str(&r, sl[k]))) goto bad;
    if (!(c->source = strdup(strs[0])) || wl_vocab_parse(strs[1], (size_t)sl[1], "a packed corpus", &c->vocab, err))
        goto bad;
    for (int s = 0; s < WL_NSPLITS; s++)
        if (take_u64(&r, &n[s]) || n[s] > len) goto bad;
    for (int s = 0; s < WL_NSPLITS; s++) {
        if (n[s] && !(c->stories[s] = calloc((size_t)n[s], sizeof(wl_story)))) goto bad;
        for (; c->n[s] < n[s]; c->n[s]++)
            if (story_unpack(&r, &c->stories[s][c->n[s]])) goto bad;
    }
    if (r.p == r.end) return 0;
bad:
    wl_corpus_free(c);
    return wl_fail(err, "a packed corpus that is truncated or malformed");
}

/* wl_vocab.c: the training-only vocabulary: fit, token <-> id lookup, vocab.json save and load. */
#include "wl_corpus.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the hash: SipHash-1-3 with a random key, so that no file can make its tokens collide ---- */

static uint64_t rotl(uint64_t x, int b) { return x << b | x >> (64 - b); }

static void sip_round(uint64_t v[4])
{
    v[0] += v[1], v[1] = rotl(v[1], 13) ^ v[0], v[0] = rotl(v[0], 32);
    v[2] += v[3], v[3] = rotl(v[3], 16) ^ v[2];
    v[0] += v[3], v[3] = rotl(v[3], 21) ^ v[0];
    v[2] += v[1], v[1] = rotl(v[1], 17) ^ v[2], v[2] = rotl(v[2], 32);
}

static uint64_t hash_str(const uint64_t key[2], const char *s)
{
    uint64_t v[4] = {key[0] ^ 0x736f6d6570736575ULL, key[1] ^ 0x646f72616e646f6dULL, key[0] ^ 0x6c7967656e657261ULL,
                     key[1] ^ 0x7465646279746573ULL};
    size_t len = strlen(s), i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t m = 0;
        for (int k = 7; k >= 0; k--) m = m << 8 | (unsigned char)s[i + (size_t)k];   /* little-endian */
        v[3] ^= m;
        sip_round(v);
        v[0] ^= m;
    }
    uint64_t m = (uint64_t)len << 56;
    for (size_t k = 0; i + k < len; k++) m |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
    v[3] ^= m;
    sip_round(v);
    v[0] ^= m;
    v[2] ^= 0xff;
    for (int r = 0; r < 3; r++) sip_round(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* A fresh key from the kernel's generator (the clock and an address if it has none). */
static void new_key(uint64_t key[2])
{
    if (wl_random_bytes(key, 2 * sizeof *key) == 0) return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    key[0] = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ULL ^ (uint64_t)ts.tv_sec;
    key[1] = (uint64_t)(uintptr_t)key * 0xBF58476D1CE4E5B9ULL ^ (uint64_t)clock();
}

static size_t table_size(size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    return cap;
}

int32_t wl_vocab_id(const wl_vocab *v, const char *token)
{
    if (!v->nslots) return WL_UNK;
    size_t mask = v->nslots - 1;
    for (size_t i = hash_str(v->key, token) & mask;; i = (i + 1) & mask) {
        int32_t id = v->slots[i];
        if (id < 0) return WL_UNK;
        if (!strcmp(v->itos[id], token)) return id;
    }
}

size_t wl_vocab_encode(const wl_vocab *v, const char *const *tokens, size_t n, int32_t *ids)
{
    size_t unknown = 0;
    for (size_t i = 0; i < n; i++) {
        ids[i] = wl_vocab_id(v, tokens[i]);
        unknown += ids[i] == WL_UNK;
    }
    return unknown;
}

void wl_vocab_free(wl_vocab *v)
{
    if (!v) return;
    for (size_t i = 0; i < v->n; i++) free(v->itos[i]);
    free(v->itos);
    free(v->slots);
    memset(v, 0, sizeof *v);
}

/* Builds the stoi table over v->itos; fails on a repeated token. */
static int index_tokens(wl_vocab *v, const char *where, wl_err *err)
{
    v->nslots = table_size(v->n);
    v->slots = malloc(v->nslots * sizeof *v->slots);
    if (!v->slots) return wl_fail(err, "%s: out of memory for %zu tokens", where, v->n);
    memset(v->slots, 0xff, v->nslots * sizeof *v->slots);
    new_key(v->key);
    size_t mask = v->nslots - 1;
    for (size_t id = 0; id < v->n; id++) {
        size_t i = hash_str(v->key, v->itos[id]) & mask;
        for (; v->slots[i] >= 0; i = (i + 1) & mask)
            if (!strcmp(v->itos[v->slots[i]], v->itos[id]))
                return wl_fail(err, "%s: token \"%s\" appears twice (ids %d and %zu)", where, v->itos[id],
                               v->slots[i], id);
        v->slots[i] = (int32_t)id;
    }
    return 0;
}

static void set_settings(wl_vocab *v, const char *profile, size_t min_freq, size_t max_vocab)
{
    snprintf(v->profile, sizeof v->profile, "%s", profile ? profile : "");
    v->min_freq = min_freq;
    v->max_vocab = max_vocab;
}

/* A token and its train count, while fitting. */
typedef struct {
    const char *tok;
    size_t count;
    uint64_t hash;
} tok_count;

static int by_count_then_token(const void *a, const void *b)
{
    const tok_count *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return strcmp(x->tok, y->tok);   /* byte order of UTF-8 is code-point order */
}

/* Places e in a table of nslots (a power of two) with no equal token in it. */
static void place(tok_count *slots, size_t nslots, tok_count e)
{
    size_t i = e.hash & (nslots - 1);
    while (slots[i].tok) i = (i + 1) & (nslots - 1);
    slots[i] = e;
}

/* Counts the tokens of docs into a malloc'd array of distinct tokens. */
static int count_tokens(const wl_tokens *docs, size_t ndocs, volatile sig_atomic_t *interrupt, tok_count **out,
                        size_t *nout, wl_err *err)
{
    size_t nslots = 4096, n = 0;
    uint64_t key[2];
    new_key(key);
    tok_count *slots = calloc(nslots, sizeof *slots);
    for (size_t d = 0; slots && d < ndocs; d++) {
        if (interrupt && *interrupt) {
            free(slots);
            return wl_fail(err, "interrupted while counting the tokens of the training stories (%zu of %zu)", d, ndocs);
        }
        for (size_t t = 0; slots && t < docs[d].n; t++) {
            const char *tok = docs[d].tok[t];
            uint64_t h = hash_str(key, tok);
            size_t i = h & (nslots - 1);
            while (slots[i].tok && (slots[i].hash != h || strcmp(slots[i].tok, tok))) i = (i + 1) & (nslots - 1);
            if (slots[i].tok) {
                slots[i].count++;
                continue;
            }
            slots[i] = (tok_count){tok, 1, h};
            if (2 * ++n <= nslots) continue;
            tok_count *grown = calloc(2 * nslots, sizeof *grown);
            for (size_t k = 0; grown && k < nslots; k++)
                if (slots[k].tok) place(grown, 2 * nslots, slots[k]);
            free(slots);
            slots = grown;
            nslots *= 2;
        }
    }
    if (!slots) return wl_fail(err, "out of memory counting the tokens of %zu stories", ndocs);
    size_t k = 0;
    for (size_t i = 0; i < nslots; i++)
        if (slots[i].tok) slots[k++] = slots[i];
    *out = slots;
    *nout = n;
    return 0;
}

int wl_vocab_fit(const wl_tokens *docs, size_t ndocs, const wl_profile *profile, volatile sig_atomic_t *interrupt,
                 wl_vocab *v, wl_err *err)
{
    memset(v, 0, sizeof *v);
    if (profile->max_vocab < WL_TEXT_NSPECIALS)
        return wl_fail(err, "max_vocab %zu is smaller than the %d special tokens", profile->max_vocab,
                       WL_TEXT_NSPECIALS);
    tok_count *counts = NULL;
    size_t ndistinct = 0;
    if (count_tokens(docs, ndocs, interrupt, &counts, &ndistinct, err)) return -1;
    qsort(counts, ndistinct, sizeof *counts, by_count_then_token);
    size_t keep = 0, limit = profile->max_vocab - WL_TEXT_NSPECIALS;
    while (keep < ndistinct && keep < limit && counts[keep].count >= profile->min_freq) keep++;
    v->itos = calloc(WL_TEXT_NSPECIALS + keep, sizeof *v->itos);
    int rc = v->itos ? 0 : wl_fail(err, "out of memory for a vocabulary of %zu tokens", keep);
    for (size_t i = 0; rc == 0 && i < WL_TEXT_NSPECIALS + keep; i++) {
        v->itos[i] = strdup(i < WL_TEXT_NSPECIALS ? wl_text_specials[i] : counts[i - WL_TEXT_NSPECIALS].tok);
        if (!v->itos[i]) rc = wl_fail(err, "out of memory for a vocabulary of %zu tokens", keep);
        else v->n = i + 1;
    }
    free(counts);
    if (rc == 0) rc = index_tokens(v, "vocabulary", err);
    if (rc) {
        wl_vocab_free(v);
        return -1;
    }
    set_settings(v, profile->name, profile->min_freq, profile->max_vocab);
    return 0;
}

char *wl_vocab_json(const wl_vocab *v)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *itos = cJSON_AddArrayToObject(root, "itos");
    int ok = root && itos;
    for (size_t i = 0; ok && i < v->n; i++) {
        cJSON *s = cJSON_CreateString(v->itos[i]);
        ok = s && cJSON_AddItemToArray(itos, s);
    }
    ok = ok && cJSON_AddStringToObject(root, "profile", v->profile) &&
         cJSON_AddNumberToObject(root, "min_freq", (double)v->min_freq) &&
         cJSON_AddNumberToObject(root, "max_vocab", (double)v->max_vocab);
    char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return text;
}

/* A vocab.json as a save may replace it: a JSON object with an "itos" array, read whole. */
static int is_vocab(const unsigned char *b, size_t n, size_t size)
{
    char why[160];
    cJSON *root = n == size ? wl_corpus_json_parse((const char *)b, n, why, sizeof why) : NULL;
    int is = cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "itos"));
    cJSON_Delete(root);
    return is;
}

static const wl_save_kind vocab_kind = {"a vocab.json (a JSON object with \"itos\")", WL_VOCAB_FILE_MAX, is_vocab};

int wl_vocab_save(const wl_vocab *v, const char *path, wl_err *err)
{
    char *text = wl_vocab_json(v);
    if (!text) return wl_fail(err, "out of memory writing the vocabulary to %s", path);
    int rc = wl_write_atomic_kind(path, &vocab_kind, text, strlen(text), err);
    free(text);
    return rc;
}

/* A non-negative integer field of a vocab.json object; absent gives 0. */
static int read_count(const cJSON *root, const char *name, size_t *out, const char *path, wl_err *err)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, name);
    *out = 0;
    if (!f) return 0;
    if (!cJSON_IsNumber(f) || !(f->valuedouble >= 0 && f->valuedouble <= 1e15) || f->valuedouble != floor(f->valuedouble))
        return wl_fail(err, "%s: \"%s\" must be an integer from 0 to 10^15", path, name);
    *out = (size_t)f->valuedouble;
    return 0;
}

static int load_json(const cJSON *root, const char *path, wl_vocab *v, wl_err *err)
{
    const cJSON *itos = cJSON_GetObjectItemCaseSensitive(root, "itos");
    if (!cJSON_IsArray(itos)) return wl_fail(err, "%s: no \"itos\" array", path);
    size_t n = (size_t)cJSON_GetArraySize(itos);
    if (n < WL_TEXT_NSPECIALS)
        return wl_fail(err, "%s: \"itos\" has %zu entries, fewer than the %d special tokens", path, n,
                       WL_TEXT_NSPECIALS);
    v->itos = calloc(n, sizeof *v->itos);
    if (!v->itos) return wl_fail(err, "%s: out of memory for %zu tokens", path, n);
    const cJSON *item;
    cJSON_ArrayForEach(item, itos) {
        if (!cJSON_IsString(item))
            return wl_fail(err, "%s: itos[%zu] is not a string", path, v->n);
        if (v->n < WL_TEXT_NSPECIALS && strcmp(item->valuestring, wl_text_specials[v->n]))
            return wl_fail(err, "%s: itos[%zu] is \"%s\", expected \"%s\"", path, v->n, item->valuestring,
                           wl_text_specials[v->n]);
        if (!(v->itos[v->n] = strdup(item->valuestring))) return wl_fail(err, "%s: out of memory", path);
        v->n++;
    }
    const cJSON *profile = cJSON_GetObjectItemCaseSensitive(root, "profile");
    if (profile && !cJSON_IsString(profile)) return wl_fail(err, "%s: \"profile\" must be a string", path);
    size_t min_freq, max_vocab;
    if (read_count(root, "min_freq", &min_freq, path, err) || read_count(root, "max_vocab", &max_vocab, path, err))
        return -1;
    set_settings(v, profile ? profile->valuestring : "", min_freq, max_vocab);
    return index_tokens(v, path, err);
}

/* The JSON text lives in vocab.json and story files alike (wl_corpus.c also calls it). */
size_t wl_corpus_json_nul_at(const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (!s[i] || (s[i] == '\\' && run % 2 == 0 && n - i >= 6 && !memcmp(s + i + 1, "u0000", 5))) return i;
        run = s[i] == '\\' ? run + 1 : 0;
    }
    return n;
}

/* The nesting depth of the JSON text s just before byte at (brackets inside strings do not count). */
static size_t json_depth(const char *s, size_t at)
{
    size_t depth = 0;
    for (size_t i = 0, in_str = 0; i < at; i++) {
        if (in_str && s[i] == '\\') i++;
        else if (s[i] == '"') in_str = !in_str;
        else if (!in_str && (s[i] == '[' || s[i] == '{')) depth++;
        else if (!in_str && (s[i] == ']' || s[i] == '}') && depth) depth--;
    }
    return depth;
}

/* Where the string opens that the JSON text s[0..n) never closes, or n when every string is closed. */
static size_t open_string(const char *s, size_t n)
{
    size_t open = n;
    for (size_t i = 0; i < n; i++) {
        if (open < n && s[i] == '\\') i++;
        else if (s[i] == '"') open = open < n ? n : i;
    }
    return open;
}

/* What is wrong at byte at of the JSON text s[0..n) where cJSON stopped, when it can be named ("" otherwise). */
static void json_what(const char *s, size_t n, size_t at, char *out, size_t cap)
{
    unsigned code = 0;
    int hex = 0;
    if (at + 1 < n && s[at] == '\\' && s[at + 1] == 'u')
        for (hex = 0; hex < 4 && at + 2 + (size_t)hex < n && isxdigit((unsigned char)s[at + 2 + hex]); hex++)
            code = code * 16 + (unsigned)(isdigit((unsigned char)s[at + 2 + hex]) ? s[at + 2 + hex] - '0'
                                                                                   : (s[at + 2 + hex] | 0x20) - 'a' + 10);
    if (at + 1 < n && s[at] == '\\' && s[at + 1] == 'u' && hex < 4)
        snprintf(out, cap, ": \\u is not followed by four hex digits");
    else if (hex == 4 && code >= 0xD800 && code <= 0xDBFF)
        snprintf(out, cap, ": \\u%.4s is the first half of a UTF-16 surrogate pair, and no \\uDC00-\\uDFFF follows it: "
                           "it is not a character", s + at + 2);
    else if (hex == 4 && code >= 0xDC00 && code <= 0xDFFF)
        snprintf(out, cap, ": \\u%.4s is the second half of a UTF-16 surrogate pair without its first: it is not a "
                           "character", s + at + 2);
    else if (open_string(s, n) <= at)
        snprintf(out, cap, ": the text ends inside the string that starts at byte %zu", open_string(s, n) + 1);
    else if (at < n && (s[at] == '[' || s[at] == '{') && json_depth(s, at) >= CJSON_NESTING_LIMIT)
        snprintf(out, cap, ": nested deeper than %d levels, the most the JSON parser takes", CJSON_NESTING_LIMIT);
    else
        out[0] = 0;
}

struct cJSON *wl_corpus_json_parse(const char *s, size_t n, char *why, size_t cap)
{
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(s, n, &end, 0);
    size_t at = end && end >= s && end <= s + n ? (size_t)(end - s) : 0, line = 1, col = 1;
    if (j)
        while (at < n && strchr(" \t\r\n", s[at])) at++;
    if (j && at == n) return j;
    cJSON_Delete(j);
    for (size_t i = 0; i < at; i++) {
        if (s[i] == '\n') line++, col = 1;
        else if (((unsigned char)s[i] & 0xC0) != 0x80) col++;   /* a column is a character */
    }
    char what[200], *more = !j && at + 1 >= n ? malloc(n + 1) : NULL;
    const char *stop = NULL;
    if (more) {   /* cJSON stops at the last byte when it runs past the end: one byte more tells which */
        memcpy(more, s, n);
        more[n] = ' ';
        cJSON_Delete(cJSON_ParseWithLengthOpts(more, n + 1, &stop, 0));
    }
    if (j) snprintf(what, sizeof what, ": more text after the JSON value");
    else if (more && stop && stop >= more + n) snprintf(what, sizeof what, ": the text ends inside the JSON value");
    else json_what(s, n, at, what, sizeof what);
    free(more);
    if (memchr(s, '\n', n))
        snprintf(why, cap, "not valid JSON: at line %zu, column %zu (byte %zu)%s", line, col, at + 1, what);
    else snprintf(why, cap, "not valid JSON: at byte %zu%s", at + 1, what);
    return NULL;
}

/* The error for a vocab.json whose text holds a NUL at byte offset at: cJSON cuts strings there, so a copy of the
 * text is parsed again with U+0001 in its place, and the first token that comes out longer names the place. */
static int nul_fail(const char *json, size_t len, size_t at, const cJSON *root, const char *where, wl_err *err)
{
    char *data = malloc(len);
    if (!data) return wl_fail(err, "%s: out of memory", where);
    memcpy(data, json, len);
    for (size_t i = at; i < len; i += 1 + wl_corpus_json_nul_at(data + i + 1, len - i - 1)) {
        if (data[i]) data[i + 5] = '1';   /* \u0000 -> \u0001 */
        else data[i] = 1;
    }
    cJSON *again = cJSON_ParseWithLength(data, len);
    free(data);
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "itos"), *b = cJSON_GetObjectItemCaseSensitive(again, "itos");
    int i = 0, found = -1;
    for (const cJSON *x = a ? a->child : NULL, *y = b ? b->child : NULL; x && y && found < 0; x = x->next, y = y->next, i++)
        if (cJSON_IsString(x) && cJSON_IsString(y) && strlen(x->valuestring) != strlen(y->valuestring)) found = i;
    cJSON_Delete(again);
    if (found >= 0) return wl_fail(err, "%s: itos[%d] holds U+0000 (NUL), which a token cannot hold", where, found);
    return wl_fail(err, "%s: a NUL (a NUL byte or \\u0000) at byte offset %zu, which vocab.json cannot hold", where, at);
}

int wl_vocab_parse(const char *json, size_t len, const char *where, wl_vocab *v, wl_err *err)
{
    memset(v, 0, sizeof *v);
    char why[WL_ERR_MAX / 2];
    cJSON *root = wl_corpus_json_parse(json, len, why, sizeof why);
    size_t nul = wl_corpus_json_nul_at(json, len);
    int rc = nul < len ? nul_fail(json, len, nul, root, where, err)
           : !root ? wl_fail(err, "%s: %s", where, why)
           : cJSON_IsObject(root) ? load_json(root, where, v, err)
                                  : wl_fail(err, "%s: not a JSON object (expected {\"itos\": [...]})", where);
    cJSON_Delete(root);
    if (rc) wl_vocab_free(v);
    return rc;
}

int wl_vocab_load(const char *path, wl_vocab *v, wl_err *err)
{
    memset(v, 0, sizeof *v);
    char *data;
    size_t len;
    if (wl_read_file_max(path, WL_VOCAB_FILE_MAX, &data, &len, err)) return -1;
    int rc = wl_vocab_parse(data, len, path, v, err);
    free(data);
    return rc;
}

/* wl_corpus.c: profiles, building a corpus from texts or a file, and windows. */
#include "wl_corpus.h"
#include "wl_storygen.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const wl_profile PROFILES[] = {
    {"smoke", 480, 1500, 2},
    {"classroom", 3000, 3000, 2},
    {"dgx", 6000, 4000, 2},
};

int wl_profile_get(const char *name, wl_profile *out, wl_err *err)
{
    for (size_t i = 0; i < sizeof PROFILES / sizeof PROFILES[0]; i++)
        if (!strcmp(name, PROFILES[i].name)) {
            *out = PROFILES[i];
            return 0;
        }
    return wl_fail(err, "unknown corpus profile \"%s\" (the profiles are smoke, classroom and dgx)", name);
}

/* --- building --------------------------------------------------------------------------- */

/* A corpus under construction: stories are added in source order until the profile is full. */
typedef struct builder {
    wl_corpus *c;
    size_t cap[WL_NSPLITS];
    uint64_t *seen;      /* open-addressing set of doc ids (their 64 bits), 0 = empty */
    size_t nseen, nslots;
    int has_zero_id;     /* the doc id 0000000000000000 was seen (0 marks empty slots) */
    volatile sig_atomic_t *interrupt;   /* every loop over the stories stops when it is set (may be NULL) */
} builder;

static int stopped(volatile sig_atomic_t *interrupt) { return interrupt && *interrupt; }

static int builder_full(const builder *b)
{
    const wl_corpus *c = b->c;
    return c->profile.stories && c->n[WL_TRAIN] + c->n[WL_VALIDATION] + c->n[WL_TEST] >= c->profile.stories;
}

/* Adds id to the seen set; returns 1 if it was already there, -1 when out of memory. */
static int seen_insert(builder *b, uint64_t id)
{
    if (id == 0) {
        int was = b->has_zero_id;
        b->has_zero_id = 1;
        return was;
    }
    if (2 * (b->nseen + 1) > b->nslots) {
        size_t n2 = b->nslots ? 2 * b->nslots : 1024;
        uint64_t *s2 = calloc(n2, sizeof *s2);
        if (!s2) return -1;
        for (size_t i = 0; i < b->nslots; i++)
            if (b->seen[i]) {
                size_t j = (b->seen[i] * 0x9E3779B97F4A7C15ULL) >> 20 & (n2 - 1);
                while (s2[j]) j = (j + 1) & (n2 - 1);
                s2[j] = b->seen[i];
            }
        free(b->seen);
        b->seen = s2;
        b->nslots = n2;
    }
    size_t mask = b->nslots - 1, j = (id * 0x9E3779B97F4A7C15ULL) >> 20 & mask;
    for (; b->seen[j]; j = (j + 1) & mask)
        if (b->seen[j] == id) return 1;
    b->seen[j] = id;
    b->nseen++;
    return 0;
}

static void story_free(wl_story *s, int borrowed)
{
    if (!borrowed) {
        free(s->text);
        free(s->ids);
    }
    wl_tokens_free(&s->tokens);   /* borrowed token bytes have buf NULL */
}

/* An error about line `at` of the file path ("stories.jsonl line 7: ..."), or about text `at` when path is NULL
 * ("text 3: ..."). */
static int fail_where(wl_err *err, const char *path, size_t at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail_where(wl_err *err, const char *path, size_t at, const char *fmt, ...)
{
    char what[WL_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return path ? wl_fail(err, "%s line %zu: %s", path, at, what) : wl_fail(err, "text %zu: %s", at, what);
}

/* Adds one text, which starts at line `line` of the file path, or is text number `line` when path is NULL. */
static int builder_add(builder *b, const char *text, size_t len, long row_idx, size_t line, const char *path,
                       wl_err *err)
{
    wl_corpus *c = b->c;
    wl_err e;
    char *norm;
    size_t nlen;
    c->audit.texts_read++;
    if (wl_text_normalize(text, len, &norm, &nlen, &e)) return fail_where(err, path, line, "%s", e.msg);
    if (nlen == 0) {
        free(norm);
        c->audit.empty++;
        return 0;
    }
    wl_story s = {.row_idx = row_idx, .line = path ? line : 0};
    wl_split split;
    int rc = wl_corpus_doc_id_normalized(norm, nlen, s.doc_id, err) || wl_corpus_split_normalized(norm, nlen, &split, err);
    int dup = rc ? 0 : seen_insert(b, strtoull(s.doc_id, NULL, 16));
    if (rc == 0 && dup == 0) rc = wl_text_tokenize_normalized(norm, nlen, &s.tokens, err);
    free(norm);
    if (rc) return -1;
    if (dup < 0) return fail_where(err, path, line, "out of memory");
    if (dup) {
        c->audit.duplicates++;
        return 0;
    }
    s.text = malloc(len + 1);
    if (s.text) memcpy(s.text, text, len), s.text[len] = '\0';
    if (s.text && c->n[split] == b->cap[split]) {
        size_t cap = b->cap[split] ? 2 * b->cap[split] : 256;
        wl_story *grown = realloc(c->stories[split], cap * sizeof *grown);
        if (grown) c->stories[split] = grown, b->cap[split] = cap;
    }
    if (!s.text || c->n[split] == b->cap[split]) {
        story_free(&s, 0);
        return fail_where(err, path, line, "out of memory");
    }
    c->stories[split][c->n[split]++] = s;
    return 0;
}

static int by_doc_id(const void *a, const void *b)
{
    return strcmp(((const wl_story *)a)->doc_id, ((const wl_story *)b)->doc_id);
}

static int by_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Doc ids present in more than one split. */
static size_t count_overlap(const wl_corpus *c)
{
    size_t overlap = 0;
    for (int s = 0; s < WL_NSPLITS; s++)
        for (int t = s + 1; t < WL_NSPLITS; t++) {
            size_t i = 0, j = 0;
            while (i < c->n[s] && j < c->n[t]) {
                int d = strcmp(c->stories[s][i].doc_id, c->stories[t][j].doc_id);
                overlap += d == 0;
                i += d <= 0;
                j += d >= 0;
            }
        }
    return overlap;
}

static int audit_split(wl_corpus *c, wl_split s, wl_err *err)
{
    wl_split_audit *a = &c->audit.split[s];
    size_t n = c->n[s];
    a->documents = n;
    if (n == 0) return 0;
    size_t *lens = malloc(n * sizeof *lens);
    if (!lens) return wl_fail(err, "out of memory auditing the %s split", wl_split_name(s));
    for (size_t i = 0; i < n; i++) {
        lens[i] = c->stories[s][i].tokens.n;
        a->tokens += lens[i];
    }
    qsort(lens, n, sizeof *lens, by_size);
    a->targets = a->tokens + n;
    a->unknown_rate = a->tokens ? (double)a->unknown / (double)a->tokens : 0.0;
    a->len_min = lens[0];
    a->len_max = lens[n - 1];
    a->len_median = n % 2 ? (double)lens[n / 2] : ((double)lens[n / 2 - 1] + (double)lens[n / 2]) / 2.0;
    free(lens);
    return 0;
}

/* Sorts, fits the vocabulary on train, encodes every story and fills the audit. */
static int builder_finish(builder *b, const char *source, wl_err *err)
{
    wl_corpus *c = b->c;
    free(b->seen);
    b->seen = NULL;
    size_t total = c->n[WL_TRAIN] + c->n[WL_VALIDATION] + c->n[WL_TEST];
    if (total == 0) {
        if (c->audit.texts_read == 0) return wl_fail(err, "%s: empty source: no stories in it", source);
        return wl_fail(err, "%s: no stories: all %zu texts are empty", source, c->audit.texts_read);
    }
    if (!(c->source = strdup(source))) return wl_fail(err, "out of memory");
    for (int s = 0; s < WL_NSPLITS; s++)
        if (c->n[s]) qsort(c->stories[s], c->n[s], sizeof(wl_story), by_doc_id);
    c->audit.overlap = count_overlap(c);

    wl_tokens *train = malloc((c->n[WL_TRAIN] + 1) * sizeof *train);
    if (!train) return wl_fail(err, "out of memory fitting the vocabulary");
    for (size_t i = 0; i < c->n[WL_TRAIN]; i++) train[i] = c->stories[WL_TRAIN][i].tokens;
    int rc = wl_vocab_fit(train, c->n[WL_TRAIN], &c->profile, b->interrupt, &c->vocab, err);
    free(train);
    if (rc) return -1;
    c->audit.vocab_size = c->vocab.n;

    for (int s = 0; s < WL_NSPLITS; s++) {
        for (size_t i = 0; i < c->n[s]; i++) {
            if (stopped(b->interrupt))
                return wl_fail(err, "interrupted while encoding the %s split (%zu of %zu stories)", wl_split_name(s), i,
                               c->n[s]);
            wl_story *st = &c->stories[s][i];
            st->ids = malloc((st->tokens.n + 1) * sizeof *st->ids);
            if (!st->ids) return wl_fail(err, "out of memory encoding the %s split", wl_split_name(s));
            c->audit.split[s].unknown +=
                wl_vocab_encode(&c->vocab, (const char *const *)st->tokens.tok, st->tokens.n, st->ids);
        }
        if (audit_split(c, s, err)) return -1;
    }
    return 0;
}

static void builder_init(builder *b, wl_corpus *c, const wl_profile *profile, volatile sig_atomic_t *interrupt)
{
    memset(b, 0, sizeof *b);
    memset(c, 0, sizeof *c);
    b->c = c;
    b->interrupt = interrupt;
    c->profile = *profile;
}

/* Ends a build: on failure frees everything and leaves *c zeroed. */
static int builder_end(builder *b, int rc)
{
    free(b->seen);
    if (rc) wl_corpus_free(b->c);
    return rc ? -1 : 0;
}

static int build_texts(const char *const *texts, size_t n, const wl_profile *profile, volatile sig_atomic_t *interrupt,
                       wl_corpus *c, wl_err *err)
{
    builder b;
    builder_init(&b, c, profile, interrupt);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n && !builder_full(&b); i++) {
        if (stopped(interrupt)) {
            rc = wl_fail(err, "interrupted after %zu of %zu texts", i, n);
            break;
        }
        rc = builder_add(&b, texts[i], strlen(texts[i]), (long)i, i + 1, NULL, err);
    }
    char source[64];
    snprintf(source, sizeof source, "%zu given texts", n);
    if (rc == 0) rc = builder_finish(&b, source, err);
    return builder_end(&b, rc);
}

int wl_corpus_build_texts(const char *const *texts, size_t n, const wl_profile *profile, wl_corpus *c, wl_err *err)
{
    return build_texts(texts, n, profile, NULL, c, err);
}

int wl_corpus_generate(const wl_profile *profile, uint64_t seed, volatile sig_atomic_t *interrupt, wl_corpus *c,
                       wl_err *err)
{
    char **texts;
    size_t n = profile->stories;
    memset(c, 0, sizeof *c);
    if (n == 0) return wl_fail(err, "profile %s sets no story count to generate", profile->name);
    if (wl_storygen_generate_interruptible(seed, n, interrupt, &texts, err)) return -1;
    int rc = build_texts((const char *const *)texts, n, profile, interrupt, c, err);
    wl_storygen_free(texts, n);
    char gen[64];
    snprintf(gen, sizeof gen, "the embedded story generator (seed %llu)", (unsigned long long)seed);
    char *source = rc == 0 ? strdup(gen) : NULL;
    if (rc == 0 && !source) {
        wl_corpus_free(c);
        rc = wl_fail(err, "out of memory");
    }
    if (rc == 0) {
        free(c->source);
        c->source = source;
    }
    return rc;
}

/* --- files ------------------------------------------------------------------------------ */

/* Reads one line (without its "\n" or "\r\n"); returns 1, 0 at the end of the file, or -1 with an error naming the
 * line (a read error is never taken for the end). */
static int read_line(FILE *f, const char *path, size_t lineno, char **buf, size_t *cap, size_t *n, wl_err *err)
{
    int rc = wl_read_line(f, buf, cap, n);
    if (rc < 0) return fail_where(err, path, lineno, "cannot read: %s", wl_read_line_why(errno));
    if (rc && *n > 0 && (*buf)[*n - 1] == '\r') (*buf)[--*n] = '\0';
    return rc;
}

static int is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n' && s[i] != '\f' && s[i] != '\v') return 0;
    return 1;
}

/* A line of a story file must be UTF-8 without NUL bytes (plain text and JSON lines alike). */
static int check_line_text(const char *line, size_t n, wl_err *err)
{
    size_t bad;
    const char *nul = memchr(line, 0, n);
    if (nul) return wl_fail(err, "a NUL byte at byte %zu of the line, which a story cannot hold", (size_t)(nul - line) + 1);
    if (wl_text_utf8_check(line, n, &bad)) return wl_fail(err, "invalid UTF-8 at byte %zu of the line", bad + 1);
    return 0;
}

int wl_corpus_parse_json_line(const char *line, size_t n, char **text, long *row_idx, wl_err *err)
{
    *text = NULL;
    *row_idx = -1;
    if (check_line_text(line, n, err)) return -1;
    char why[WL_ERR_MAX / 2];
    cJSON *obj = wl_corpus_json_parse(line, n, why, sizeof why);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(obj, "text");
    const cJSON *row = cJSON_GetObjectItemCaseSensitive(obj, "row_idx");
    int rc = -1;
    if (!obj) wl_fail(err, "%s", why);
    else if (!cJSON_IsObject(obj)) wl_fail(err, "not a JSON object");
    else if (!t) wl_fail(err, "no \"text\" field");
    else if (!cJSON_IsString(t)) wl_fail(err, "\"text\" is not a string");
    else if (wl_corpus_json_nul_at(line, n) < n) wl_fail(err, "a string contains \\u0000 (NUL), which a story cannot hold");
    else if (row && (!cJSON_IsNumber(row) || row->valuedouble < 0 || row->valuedouble > 1e15 ||
                     row->valuedouble != (double)(long)row->valuedouble))
        wl_fail(err, "\"row_idx\" is not a non-negative integer");
    else if (!(*text = strdup(t->valuestring))) wl_fail(err, "out of memory");
    else rc = 0;
    if (rc == 0 && row) *row_idx = (long)row->valuedouble;
    cJSON_Delete(obj);
    return rc;
}

/* JSON lines: {"text": "...", "row_idx": n}. Blank lines are allowed between records. */
static int load_jsonl(FILE *f, const char *path, builder *b, wl_err *err)
{
    char *line = NULL, *text;
    size_t cap = 0, lineno = 0, n;
    long row;
    int rc = 0, more;
    wl_err e;
    while (rc == 0 && !builder_full(b) && (more = read_line(f, path, lineno + 1, &line, &cap, &n, err)) != 0) {
        lineno++;
        if (more < 0) {
            rc = -1;
            break;
        }
        if (stopped(b->interrupt)) {
            rc = wl_fail(err, "%s: interrupted at line %zu", path, lineno);
            break;
        }
        if (is_blank(line, n)) continue;
        if (wl_corpus_parse_json_line(line, n, &text, &row, &e)) {
            rc = fail_where(err, path, lineno, "%s", e.msg);
            break;
        }
        rc = builder_add(b, text, strlen(text), row >= 0 ? row : (long)b->c->audit.texts_read, lineno, path, err);
        free(text);
    }
    free(line);
    return rc;
}

#define WL_EOT "<|endoftext|>"

/* TinyStories plain text: stories separated by the line <|endoftext|>. */
static int load_plain(FILE *f, const char *path, builder *b, wl_err *err)
{
    char *line = NULL, *story = NULL;
    size_t cap = 0, slen = 0, scap = 0, lineno = 0, first = 0, n = 0;
    int rc = 0, more = 1;
    while (rc == 0 && more && !builder_full(b)) {
        more = read_line(f, path, lineno + 1, &line, &cap, &n, err);
        if (more < 0) {
            rc = -1;
            break;
        }
        if (more) {
            lineno++;
            if (stopped(b->interrupt)) {
                rc = wl_fail(err, "%s: interrupted at line %zu", path, lineno);
                break;
            }
            wl_err e;
            if (check_line_text(line, n, &e)) {
                rc = fail_where(err, path, lineno, "%s", e.msg);
                break;
            }
        }
        size_t a = 0, z = more ? n : 0;
        while (a < z && (line[a] == ' ' || line[a] == '\t')) a++;
        while (z > a && (line[z - 1] == ' ' || line[z - 1] == '\t')) z--;
        if (!more || (z - a == strlen(WL_EOT) && !memcmp(line + a, WL_EOT, z - a))) {
            if (first) rc = builder_add(b, story, slen, (long)b->c->audit.texts_read, first, path, err);
            slen = 0;
            first = 0;
            continue;
        }
        if (!first && is_blank(line, n)) continue;   /* blank lines before a story */
        if (slen + n + 2 > scap) {
            size_t ncap = 2 * (slen + n + 2);
            char *grown = realloc(story, ncap);
            if (!grown) {
                rc = fail_where(err, path, lineno, "out of memory");
                break;
            }
            story = grown;
            scap = ncap;
        }
        if (first) story[slen++] = '\n';
        else first = lineno;
        memcpy(story + slen, line, n);
        slen += n;
        story[slen] = '\0';
    }
    free(line);
    free(story);
    return rc;
}

/* The format a file's name gives it: .jsonl JSON lines, .txt plain text (either case); else an error. */
static int format_by_name(const char *path, wl_corpus_format *f, wl_err *err)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(slash ? slash : path, '.');
    if (dot && !strcasecmp(dot, ".jsonl")) *f = WL_CORPUS_JSONL;
    else if (dot && !strcasecmp(dot, ".txt")) *f = WL_CORPUS_TEXT;
    else
        return wl_fail(err, "%s: its name does not say how to read it (.jsonl: JSON lines with a \"text\" field; .txt: "
                            "plain text, stories separated by a line %s); give format=jsonl or format=text", path, WL_EOT);
    return 0;
}

/* Reads the stories of the open file f (named path in messages) in format into a corpus; closes f. */
static int load_stream(FILE *f, const char *path, wl_corpus_format format, builder *b, wl_err *err)
{
    unsigned char bom[3];   /* a UTF-8 byte order mark at the start is skipped */
    size_t got = fread(bom, 1, 3, f);
    int rc;
    if (ferror(f) || fseek(f, got == 3 && !memcmp(bom, "\xEF\xBB\xBF", 3) ? 3 : 0, SEEK_SET))
        rc = wl_fail(err, "cannot read %s: %s", path, strerror(errno));
    else rc = format == WL_CORPUS_JSONL ? load_jsonl(f, path, b, err) : load_plain(f, path, b, err);
    if (rc == 0 && ferror(f)) rc = wl_fail(err, "cannot read %s: %s", path, strerror(errno));
    fclose(f);
    if (rc == 0) rc = builder_finish(b, path, err);
    return builder_end(b, rc);
}

int wl_corpus_load_file(const char *path, wl_corpus_format format, const wl_profile *profile,
                        volatile sig_atomic_t *interrupt, wl_corpus *c, wl_err *err)
{
    builder b;
    builder_init(&b, c, profile, interrupt);
    size_t size;
    FILE *f = NULL;
    if ((format == WL_CORPUS_BY_NAME && format_by_name(path, &format, err)) ||
        !(f = wl_fopen_read(path, WL_CORPUS_FILE_MAX, &size, err)))
        return builder_end(&b, -1);
    return load_stream(f, path, format, &b, err);
}

int wl_corpus_load_mem(const char *data, size_t len, const char *name, wl_corpus_format format,
                       const wl_profile *profile, volatile sig_atomic_t *interrupt, wl_corpus *c, wl_err *err)
{
    builder b;
    builder_init(&b, c, profile, interrupt);
    if (format == WL_CORPUS_BY_NAME && format_by_name(name, &format, err)) return builder_end(&b, -1);
    FILE *f = fmemopen((void *)(len ? data : "\n"), len ? len : 1, "r");   /* fmemopen takes no empty buffer */
    if (!f) return builder_end(&b, wl_fail(err, "%s: out of memory", name));
    return load_stream(f, name, format, &b, err);
}

/* --- windows ---------------------------------------------------------------------------- */

void wl_windows_free(wl_windows *w)
{
    if (!w) return;
    free(w->ctx);
    free(w->tgt);
    memset(w, 0, sizeof *w);
}

int wl_story_tokens(const wl_story *st, wl_tokens *out, wl_err *err)
{
    *out = (wl_tokens){.n = st->tokens.n};
    if (!st->tokens.n) return 0;
    if (!(out->tok = malloc(st->tokens.n * sizeof *out->tok)))
        return wl_fail(err, "out of memory for a story of %zu tokens", st->tokens.n);
    const char *at = st->tokbytes;
    for (size_t k = 0; k < st->tokens.n; k++) {
        out->tok[k] = at ? (char *)at : st->tokens.tok[k];
        if (at) at += strlen(at) + 1;
    }
    return 0;
}

size_t wl_corpus_window_count(const wl_corpus *c, wl_split s)
{
    size_t n = 0;
    for (size_t i = 0; (unsigned)s < WL_NSPLITS && i < c->n[s]; i++) n += c->stories[s][i].tokens.n + 1;
    return n;
}

int wl_corpus_windows_into(const wl_corpus *c, wl_split s, volatile sig_atomic_t *interrupt, int32_t *ctx_all,
                           int32_t *tgt, wl_err *err)
{
    if ((unsigned)s >= WL_NSPLITS) return wl_fail(err, "no split number %d", (int)s);
    size_t longest = 0;
    for (size_t i = 0; i < c->n[s]; i++)
        if (c->stories[s][i].tokens.n > longest) longest = c->stories[s][i].tokens.n;
    int32_t *seq = malloc((longest + 2) * sizeof *seq);   /* BOS + ids + EOS */
    if (!seq) return wl_fail(err, "out of memory for the windows of the %s split", wl_split_name(s));
    size_t row = 0;
    for (size_t i = 0; i < c->n[s]; i++) {
        if (stopped(interrupt)) {
            free(seq);
            return wl_fail(err, "interrupted while making the windows of the %s split (%zu of %zu stories)",
                           wl_split_name(s), i, c->n[s]);
        }
        const wl_story *st = &c->stories[s][i];
        size_t len = st->tokens.n + 2;
        seq[0] = WL_BOS;
        memcpy(seq + 1, st->ids, st->tokens.n * sizeof *seq);
        seq[len - 1] = WL_EOS;
        for (size_t p = 1; p < len; p++, row++) {
            int32_t *ctx = ctx_all + row * WL_CONTEXT;   /* [T]: ids[max(0,p-T):p], left-padded */
            size_t k = p < WL_CONTEXT ? p : WL_CONTEXT;
            for (size_t j = 0; j < WL_CONTEXT - k; j++) ctx[j] = WL_PAD;
            memcpy(ctx + WL_CONTEXT - k, seq + p - k, k * sizeof *ctx);
            tgt[row] = seq[p];
        }
    }
    free(seq);
    return 0;
}

int wl_corpus_windows(const wl_corpus *c, wl_split s, volatile sig_atomic_t *interrupt, wl_windows *w, wl_err *err)
{
    memset(w, 0, sizeof *w);
    if ((unsigned)s >= WL_NSPLITS) return wl_fail(err, "no split number %d", (int)s);
    size_t n = wl_corpus_window_count(c, s);
    w->ctx = malloc((n ? n : 1) * WL_CONTEXT * sizeof *w->ctx);
    w->tgt = malloc((n ? n : 1) * sizeof *w->tgt);
    if (!w->ctx || !w->tgt) {
        wl_windows_free(w);
        return wl_fail(err, "out of memory for %zu windows of the %s split", n, wl_split_name(s));
    }
    if (wl_corpus_windows_into(c, s, interrupt, w->ctx, w->tgt, err)) {
        wl_windows_free(w);
        return -1;
    }
    w->n = n;
    return 0;
}

void wl_corpus_free(wl_corpus *c)
{
    if (!c) return;
    for (int s = 0; s < WL_NSPLITS; s++) {
        for (size_t i = 0; i < c->n[s]; i++) story_free(&c->stories[s][i], c->borrowed);
        free(c->stories[s]);
    }
    wl_vocab_free(&c->vocab);
    free(c->source);
    memset(c, 0, sizeof *c);
}

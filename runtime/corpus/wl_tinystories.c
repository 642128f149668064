/* wl_tinystories.c: the course's TinyStories subset: revision check, offsets, pages with retries, cache and manifest. */
#include "wl_tinystories.h"
#include "wl_buf.h"
#include "wl_corpus.h"
#include "wl_pyrand.h"
#include "wl_text.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* --- JSON as Python's json.dumps writes it ---------------------------------------------------- */

/* Writes s[0..n) at out + *k when out is not NULL; counts it in *k either way. */
static void put(char *out, size_t *k, const char *s, size_t n)
{
    if (out) memcpy(out + *k, s, n);
    *k += n;
}

/* A JSON string as Python's json.dumps(..., ensure_ascii=False) writes it: ", \ and the control characters
 * escaped (\n \r \t \b \f, else \u00XX in lower-case hex), everything else as it is. Written at out + *k when
 * out is not NULL; *k grows by its length either way. */
static void json_str(char *out, size_t *k, const char *s)
{
    put(out, k, "\"", 1);
    for (const char *p = s, *run = s;; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        put(out, k, run, (size_t)(p - run));
        run = p + 1;
        if (!c) break;
        static const char short_esc[] = {['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't', ['\b'] = 'b', ['\f'] = 'f',
                                         ['"'] = '"', ['\\'] = '\\'};
        char e[8];
        if (c < sizeof short_esc && short_esc[c]) snprintf(e, sizeof e, "\\%c", short_esc[c]);
        else snprintf(e, sizeof e, "\\u%04x", c);
        put(out, k, e, strlen(e));
    }
    put(out, k, "\"", 1);
}

/* The JSON line of one row (see wl_ts_json_line) at out + *k when out is not NULL; *k grows by its length. */
static void json_line(char *out, size_t *k, long row_idx, const char *text)
{
    char head[64];
    snprintf(head, sizeof head, "{\"row_idx\": %ld, \"text\": ", row_idx);
    put(out, k, head, strlen(head));
    json_str(out, k, text);
    put(out, k, "}\n", 2);
}

char *wl_ts_json_line(long row_idx, const char *text, size_t *len)
{
    size_t n = 0;
    json_line(NULL, &n, row_idx, text);
    char *out = malloc(n + 1);
    if (!out) return NULL;
    n = 0;
    json_line(out, &n, row_idx, text);
    out[n] = 0;
    if (len) *len = n;
    return out;
}

/* --- offsets ------------------------------------------------------------------------------ */

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int wl_ts_offsets(size_t stories, uint64_t **offsets, size_t *n, wl_err *err)
{
    size_t pages = (stories + WL_TS_PAGE_ROWS - 1) / WL_TS_PAGE_ROWS;
    uint64_t population = (WL_TS_TOTAL_ROWS - WL_TS_PAGE_ROWS) / WL_TS_PAGE_ROWS + 1;  /* len(range(0, 2119620, 100)) */
    uint64_t *o = malloc((pages ? pages : 1) * sizeof *o);
    if (!o) return wl_fail(err, "out of memory choosing %zu pages", pages);
    wl_pyrand r;
    wl_pyrand_seed(&r, WL_TS_OFFSET_SEED);
    if (wl_pyrand_sample(&r, population, pages, o, err)) {
        free(o);
        return -1;
    }
    for (size_t i = 0; i < pages; i++) o[i] *= WL_TS_PAGE_ROWS;
    qsort(o, pages, sizeof *o, by_u64);
    *offsets = o;
    *n = pages;
    return 0;
}

/* --- files -------------------------------------------------------------------------------- */

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* mkdir -p */
static int make_dirs(const char *dir, wl_err *err)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) return wl_fail(err, "the cache path %s is too long", dir);
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s) continue;
        char c = *s;
        *s = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST)
            return wl_fail(err, "cannot create the cache directory %s: %s", p, strerror(errno));
        *s = c;
        if (!c) return 0;
    }
}

static void hex(const unsigned char md[32], char out[65])
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static int sha256_hex(const char *data, size_t len, char out[65], wl_err *err)
{
    unsigned char md[32];
    if (wl_corpus_sha256("", 0, data, len, md, err)) return -1;
    hex(md, out);
    return 0;
}

/* --- requests ----------------------------------------------------------------------------- */

static void emit(const wl_ts_config *cfg, const wl_ts_event *e)
{
    if (cfg->on_event) cfg->on_event(cfg->ud, e);
}

static int interrupted(const wl_ts_config *cfg) { return cfg->interrupt && *cfg->interrupt; }

/* Sleeps s seconds (scaled) in short slices; -1 when interrupted. */
static int pause_for(const wl_ts_config *cfg, double s)
{
    double left = s * cfg->time_scale;
    while (left > 0) {
        if (interrupted(cfg)) return -1;
        double d = left < 0.05 ? left : 0.05;
        struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        nanosleep(&ts, NULL);
        left -= d;
    }
    return interrupted(cfg) ? -1 : 0;
}

/* Retry-After in seconds (the delta-seconds form; an HTTP date counts as absent): 0 when absent or invalid. */
static double retry_after_s(const char *v)
{
    char *end;
    double s = strtod(v, &end);
    while (*end == ' ' || *end == '\t') end++;
    return end != v && !*end && s > 0 && isfinite(s) ? s : 0;
}

/* Parses a 200 answer as JSON (*nul: it has a \u0000 escape); fills why when it is not JSON. */
static cJSON *parse_body(const wl_http_reply *rp, int *nul, char *why, size_t cap)
{
    size_t bad;
    if (!rp->body || !rp->len) {
        snprintf(why, cap, "the answer is empty, not JSON");
        return NULL;
    }
    if (wl_text_utf8_check(rp->body, rp->len, &bad)) {
        snprintf(why, cap, "the answer is not valid UTF-8 (byte %zu)", bad + 1);
        return NULL;
    }
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(rp->body, rp->len, &end, 0);
    size_t at = end ? (size_t)(end - rp->body) : 0;
    while (j && at < rp->len && strchr(" \t\r\n", rp->body[at])) at++;
    if (!j || at < rp->len) {
        const char *e = j ? end : cJSON_GetErrorPtr();
        size_t off = e && e >= rp->body && e <= rp->body + rp->len ? (size_t)(e - rp->body) : at;
        snprintf(why, cap, "the answer is not valid JSON (at byte %zu of %zu)", off + 1, rp->len);
        cJSON_Delete(j);
        return NULL;
    }
    *nul = wl_corpus_json_nul_at(rp->body, rp->len) < rp->len;
    return j;
}

/* GETs url and parses its JSON, with the course's retries: up to WL_TS_ATTEMPTS attempts; after a failed
 * one, waits max(Retry-After on 429, min(30, 1.5 * 2^attempt)) seconds. A 200 that is not JSON, 408, 429,
 * 5xx and transient transport failures are retried; other statuses and permanent failures are not. */
static cJSON *get_json(const wl_ts_config *cfg, const char *url, const char *what, int *nul, wl_err *err)
{
    for (int attempt = 0;; attempt++) {
        wl_http_reply rp;
        memset(&rp, 0, sizeof rp);
        wl_err e = {{0}};
        char why[WL_ERR_MAX];
        double wait_after = 0;
        int rc = cfg->http->get(cfg->http->ud, url, WL_TS_TIMEOUT_S, cfg->interrupt, &rp, &e);
        if (rc && (rp.failure == WL_HTTP_INTERRUPTED || interrupted(cfg))) {
            free(rp.body);
            wl_fail(err, "interrupted while fetching %s", what);
            return NULL;
        }
        if (rc && rp.failure != WL_HTTP_TRANSIENT) {
            free(rp.body);
            wl_fail(err, "cannot fetch %s: %s", what, e.msg);
            return NULL;
        }
        if (rc) {
            snprintf(why, sizeof why, "%s", e.msg);
        } else if (rp.status == 200) {
            cJSON *j = parse_body(&rp, nul, why, sizeof why);
            if (j) {
                free(rp.body);
                return j;
            }
        } else if (rp.status == 408 || rp.status == 429 || rp.status >= 500) {
            snprintf(why, sizeof why, "HTTP %ld", rp.status);
            if (rp.status == 429) wait_after = retry_after_s(rp.retry_after);
        } else {
            free(rp.body);
            wl_fail(err, "cannot fetch %s: the server answered HTTP %ld for %s", what, rp.status, url);
            return NULL;
        }
        free(rp.body);
        if (attempt + 1 >= WL_TS_ATTEMPTS) {
            wl_fail(err, "cannot fetch %s: %d attempts failed, the last with: %s (%s)", what, WL_TS_ATTEMPTS, why, url);
            return NULL;
        }
        double backoff = fmin(30.0, 1.5 * pow(2, attempt));
        wl_ts_event ev = {.kind = WL_TS_EV_RETRY, .url = url, .why = why, .attempt = attempt + 1,
                          .wait_s = fmax(wait_after, backoff)};
        emit(cfg, &ev);
        if (pause_for(cfg, ev.wait_s)) {
            wl_fail(err, "interrupted while waiting to fetch %s again", what);
            return NULL;
        }
    }
}

static int check_revision(const wl_ts_config *cfg, wl_err *err)
{
    char url[1024];
    snprintf(url, sizeof url, "%s/api/datasets/%s", cfg->hub_base, WL_TS_DATASET);
    int nul;
    cJSON *j = get_json(cfg, url, "the dataset's current revision from the Hugging Face Hub", &nul, err);
    if (!j) return -1;
    const cJSON *sha = cJSON_GetObjectItemCaseSensitive(j, "sha");
    int rc = 0;
    if (!cJSON_IsString(sha))
        rc = wl_fail(err, "the Hub's answer for %s has no \"sha\" string (%s)", WL_TS_DATASET, url);
    else if (strcmp(sha->valuestring, WL_TS_REVISION))
        rc = wl_fail(err, "TinyStories changed upstream: the course pins revision %s, the Hub now reports %.64s; "
                          "the rows API serves only the current revision, so the course's subset cannot be fetched",
                     WL_TS_REVISION, sha->valuestring);
    cJSON_Delete(j);
    return rc;
}

/* Python's truth value of a JSON value (absent: false). */
static int truthy(const cJSON *v)
{
    if (!v || cJSON_IsNull(v) || cJSON_IsFalse(v)) return 0;
    if (cJSON_IsArray(v) || cJSON_IsObject(v)) return v->child != NULL;
    if (cJSON_IsString(v)) return v->valuestring[0] != 0;
    if (cJSON_IsNumber(v)) return v->valuedouble != 0;
    return 1;
}

/* The JSON lines of one rows-API page (checked: an object, not partial, 100 rows, each with an integer
 * row_idx, a text string of valid UTF-8 and no truncated cell) into *out (malloc'd, *len bytes); has_nul: the
 * page's JSON has a \u0000 escape. */
static int page_lines(const cJSON *page, int has_nul, uint64_t offset, char **out, size_t *len, wl_err *err)
{
    unsigned long long o = (unsigned long long)offset;
    if (!cJSON_IsObject(page)) return wl_fail(err, "the rows API's page at offset %llu is not a JSON object", o);
    if (truthy(cJSON_GetObjectItemCaseSensitive(page, "partial")))
        return wl_fail(err, "the rows API returned a partial page at offset %llu", o);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(page, "rows");
    if (!cJSON_IsArray(rows)) return wl_fail(err, "the rows API's page at offset %llu has no \"rows\" list", o);
    if (has_nul)   /* cJSON cannot tell a NUL inside a string from its end */
        return wl_fail(err, "the rows API's page at offset %llu has a text with \\u0000 (NUL), which a story cannot hold", o);
    int n = 0;
    size_t total = 0;
    for (const cJSON *row = rows->child; row; row = row->next, n++) {
        const cJSON *idx = cJSON_GetObjectItemCaseSensitive(row, "row_idx");
        const cJSON *cells = cJSON_GetObjectItemCaseSensitive(row, "row");
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(cells, "text");
        if (!cJSON_IsNumber(idx) || idx->valuedouble < 0 || idx->valuedouble > 1e15 ||
            idx->valuedouble != floor(idx->valuedouble))
            return wl_fail(err, "row %d of the page at offset %llu has no integer \"row_idx\"", n + 1, o);
        long r = (long)idx->valuedouble;
        if (truthy(cJSON_GetObjectItemCaseSensitive(row, "truncated_cells")))
            return wl_fail(err, "the rows API truncated row %ld (page at offset %llu)", r, o);
        if (!cJSON_IsString(text)) return wl_fail(err, "row %ld (page at offset %llu) has no \"text\" string", r, o);
        size_t bad;
        if (wl_text_utf8_check(text->valuestring, strlen(text->valuestring), &bad))
            return wl_fail(err, "the text of row %ld (page at offset %llu) is not valid Unicode (byte %zu)", r, o, bad + 1);
        json_line(NULL, &total, r, text->valuestring);
    }
    if (n != WL_TS_PAGE_ROWS)
        return wl_fail(err, "the rows API's page at offset %llu has %d rows, not %d", o, n, WL_TS_PAGE_ROWS);
    if (!(*out = malloc(total + 1))) return wl_fail(err, "out of memory");
    *len = 0;
    for (const cJSON *row = rows->child; row; row = row->next)   /* checked above */
        json_line(*out, len, (long)cJSON_GetObjectItemCaseSensitive(row, "row_idx")->valuedouble,
                  cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(row, "row"), "text")->valuestring);
    return 0;
}

static int fetch_page(const wl_ts_config *cfg, uint64_t offset, const char *path, wl_err *err)
{
    char url[1024], what[96];
    snprintf(url, sizeof url, "%s/rows?dataset=roneneldan%%2FTinyStories&config=default&split=train&offset=%llu&length=%d",
             cfg->rows_base, (unsigned long long)offset, WL_TS_PAGE_ROWS);
    snprintf(what, sizeof what, "the page of rows at offset %llu", (unsigned long long)offset);
    int nul;
    cJSON *page = get_json(cfg, url, what, &nul, err);
    if (!page) return -1;
    char *lines = NULL;
    size_t len = 0;
    int rc = page_lines(page, nul, offset, &lines, &len, err);
    cJSON_Delete(page);
    if (rc == 0) rc = wl_write_atomic(path, lines, len, err);
    free(lines);
    return rc;
}

/* --- the cache ---------------------------------------------------------------------------- */

static const char SELECTION[] = "deterministic non-overlapping 100-row pages, then truncate";

/* A JSON string (json_str) appended to b. */
static void buf_json_str(wl_buf *b, const char *s)
{
    size_t n = 0;
    json_str(NULL, &n, s);
    char *e = wl_xmalloc(n);
    n = 0;
    json_str(e, &n, s);
    wl_buf_put(b, e, n);
    free(e);
}

/* source_manifest.json as the course writes it: json.dumps(manifest, indent=2) + "\n". */
static char *manifest_text(const wl_ts_config *cfg, const uint64_t *offsets, size_t pages, size_t rows,
                           const char *sha, const char *api)
{
    wl_buf b = {0};
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    const char *keys[] = {"dataset", "dataset_revision", "license", "source_split", "selection", "profile"};
    const char *vals[] = {WL_TS_DATASET, WL_TS_REVISION, WL_TS_LICENSE, "train", SELECTION, cfg->profile};
    wl_buf_puts(&b, "{\n");
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        wl_buf_printf(&b, "  \"%s\": ", keys[i]);
        buf_json_str(&b, vals[i]);
        wl_buf_puts(&b, ",\n");
    }
    wl_buf_printf(&b, "  \"requested_stories\": %zu,\n  \"downloaded_stories\": %zu,\n  \"offset_seed\": %d,\n",
                  cfg->stories, rows, WL_TS_OFFSET_SEED);
    wl_buf_puts(&b, pages ? "  \"page_offsets\": [\n" : "  \"page_offsets\": [],\n");
    for (size_t i = 0; i < pages; i++)
        wl_buf_printf(&b, "    %llu%s\n", (unsigned long long)offsets[i], i + 1 < pages ? "," : "\n  ],");
    wl_buf_printf(&b, "  \"raw_sha256\": \"%s\",\n  \"retrieved_utc\": \"%s\",\n  \"api\": ", sha, when);
    buf_json_str(&b, api);
    wl_buf_puts(&b, "\n}\n");
    return wl_buf_take(&b);
}

static void course_match(const wl_ts_config *cfg, wl_ts_result *res)
{
    res->course_match = strcmp(cfg->profile, "dgx") ? -1 : !strcmp(res->sha256, WL_TS_DGX_SHA256);
}

/* A cached stories.jsonl with its manifest: the SHA-256, the revision and the profile must match. */
static int verify_cached(const wl_ts_config *cfg, const char *dir, const char *mpath, wl_ts_result *res, wl_err *err)
{
    char *data = NULL, *man = NULL;
    size_t len = 0, mlen = 0;
    if (wl_read_file(res->path, &data, &len, err) || wl_read_file(mpath, &man, &mlen, err)) {
        free(data);
        return -1;
    }
    int rc = sha256_hex(data, len, res->sha256, err);
    cJSON *m = rc ? NULL : cJSON_ParseWithLength(man, mlen);
    const cJSON *sha = cJSON_GetObjectItemCaseSensitive(m, "raw_sha256");
    const cJSON *rev = cJSON_GetObjectItemCaseSensitive(m, "dataset_revision");
    const cJSON *prof = cJSON_GetObjectItemCaseSensitive(m, "profile");
    const cJSON *offs = cJSON_GetObjectItemCaseSensitive(m, "page_offsets");
    const char *again = "delete the directory to fetch the subset again";
    if (rc) {
    } else if (!cJSON_IsObject(m) || !cJSON_IsString(sha) || !cJSON_IsString(rev)) {
        rc = wl_fail(err, "%s is not a TinyStories source manifest (no raw_sha256 or dataset_revision): %s %s", mpath,
                     again, dir);
    } else if (strcmp(sha->valuestring, res->sha256)) {
        rc = wl_fail(err, "cached data checksum mismatch: %s has SHA-256 %s, its manifest records %.64s; %s %s", res->path,
                     res->sha256, sha->valuestring, again, dir);
    } else if (strcmp(rev->valuestring, WL_TS_REVISION)) {
        rc = wl_fail(err, "%s came from TinyStories revision %.64s, not the pinned %s; %s %s", res->path,
                     rev->valuestring, WL_TS_REVISION, again, dir);
    } else if (cJSON_IsString(prof) && strcmp(prof->valuestring, cfg->profile)) {
        rc = wl_fail(err, "%s holds the %.32s subset, not %s; %s %s", res->path, prof->valuestring, cfg->profile, again, dir);
    }
    if (rc == 0) {
        for (size_t i = 0; i < len; i++) res->stories += data[i] == '\n';
        res->pages = (size_t)cJSON_GetArraySize(offs);
        res->cached = 1;
        course_match(cfg, res);
    }
    cJSON_Delete(m);
    free(data);
    free(man);
    return rc;
}

/* Concatenates the pages in offset order, truncated to the story count, into *out (malloc'd, *len bytes). */
static int assemble(const wl_ts_config *cfg, char (*page_path)[PATH_MAX], size_t pages, char **out, size_t *len,
                    size_t *rows, wl_err *err)
{
    char **data = calloc(pages ? pages : 1, sizeof *data);   /* the pages read, each used up to used[i] */
    size_t *used = calloc(pages ? pages : 1, sizeof *used), n = 0, total = 0;
    int rc = data && used ? 0 : wl_fail(err, "out of memory assembling the subset");
    *rows = 0;
    for (; rc == 0 && n < pages && *rows < cfg->stories; n++) {
        size_t dlen, at = 0;
        if ((rc = wl_read_file(page_path[n], &data[n], &dlen, err))) break;
        while (at < dlen && *rows < cfg->stories) {
            char *nl = memchr(data[n] + at, '\n', dlen - at);
            if (!nl) break;
            at = (size_t)(nl - data[n]) + 1;
            ++*rows;
        }
        used[n] = at;
        total += at;
    }
    if (rc == 0 && !(*out = malloc(total + 1))) rc = wl_fail(err, "out of memory assembling the subset");
    *len = 0;
    for (size_t i = 0; data && i < n; i++) {
        if (rc == 0) put(*out, len, data[i], used[i]);
        free(data[i]);
    }
    free(data);
    free(used);
    return rc;
}

/* Pages kept from an earlier fetch hold WL_TS_PAGE_ROWS lines (they were written atomically once checked). */
static int page_ok(const char *path)
{
    char *data;
    size_t len, lines = 0;
    wl_err e;
    if (wl_read_file(path, &data, &len, &e)) return 0;
    for (size_t i = 0; i < len; i++) lines += data[i] == '\n';
    free(data);
    return lines == WL_TS_PAGE_ROWS;
}

static int fetch_all(const wl_ts_config *cfg, const char *dir, const char *mpath, wl_ts_result *res, uint64_t *offsets,
                     size_t pages, char (*page_path)[PATH_MAX], wl_err *err)
{
    char pdir[PATH_MAX];
    if (snprintf(pdir, sizeof pdir, "%s/pages", dir) >= (int)sizeof pdir)
        return wl_fail(err, "the cache path %s is too long", dir);
    if (check_revision(cfg, err) || make_dirs(pdir, err)) return -1;
    wl_ts_event ev = {.kind = WL_TS_EV_REVISION, .pages = pages};
    emit(cfg, &ev);
    int fetched = 0;
    for (size_t i = 0; i < pages; i++) {
        if (snprintf(page_path[i], PATH_MAX, "%s/%010llu.jsonl", pdir, (unsigned long long)offsets[i]) >= PATH_MAX)
            return wl_fail(err, "the cache path %s is too long", pdir);
        if (page_ok(page_path[i])) {
            res->resumed++;
        } else {
            if ((fetched && pause_for(cfg, WL_TS_PAGE_PAUSE_S)) || interrupted(cfg) ||
                fetch_page(cfg, offsets[i], page_path[i], err)) {
                if (interrupted(cfg))
                    wl_fail(err, "interrupted with %zu of %zu pages fetched; they are kept in %s and the same command "
                                 "resumes from there", i, pages, pdir);
                return -1;
            }
            fetched = 1;
        }
        ev = (wl_ts_event){.kind = WL_TS_EV_PAGE, .done = i + 1, .pages = pages, .resumed = res->resumed};
        emit(cfg, &ev);
    }
    char *all = NULL;
    size_t len, rows;
    char api[1100];
    snprintf(api, sizeof api, "%s/rows", cfg->rows_base);
    int rc = assemble(cfg, page_path, pages, &all, &len, &rows, err);
    if (rc == 0) rc = sha256_hex(all, len, res->sha256, err);
    char *man = rc ? NULL : manifest_text(cfg, offsets, pages, rows, res->sha256, api);
    /* the data first: a manifest always describes a complete file */
    if (rc == 0) rc = wl_write_atomic(res->path, all, len, err);
    if (rc == 0) rc = wl_write_atomic(mpath, man, strlen(man), err);
    free(man);
    free(all);
    if (rc) return -1;
    for (size_t i = 0; i < pages; i++) unlink(page_path[i]);
    rmdir(pdir);
    res->stories = rows;
    course_match(cfg, res);
    return 0;
}

int wl_ts_fetch(const wl_ts_config *cfg, wl_ts_result *res, wl_err *err)
{
    memset(res, 0, sizeof *res);
    res->course_match = -1;
    char dir[PATH_MAX], mpath[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s/%s", cfg->root, cfg->profile) >= (int)sizeof dir ||
        snprintf(res->path, sizeof res->path, "%s/stories.jsonl", dir) >= (int)sizeof res->path ||
        snprintf(mpath, sizeof mpath, "%s/source_manifest.json", dir) >= (int)sizeof mpath - 32)
        return wl_fail(err, "the cache path %s is too long", cfg->root);
    if (exists(res->path) && exists(mpath)) return verify_cached(cfg, dir, mpath, res, err);
    if (!cfg->http)
        return wl_fail(err, "the TinyStories %s subset is not in %s, and fetching it needs the network, which this "
                            "front end does not offer", cfg->profile, dir);
    uint64_t *offsets;
    size_t pages;
    if (wl_ts_offsets(cfg->stories, &offsets, &pages, err)) return -1;
    res->pages = pages;
    char (*page_path)[PATH_MAX] = calloc(pages ? pages : 1, sizeof *page_path);
    int rc = page_path ? fetch_all(cfg, dir, mpath, res, offsets, pages, page_path, err) : wl_fail(err, "out of memory");
    free(page_path);
    free(offsets);
    return rc;
}

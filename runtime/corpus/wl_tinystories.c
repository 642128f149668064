/* wl_tinystories.c: the course's TinyStories subset: revision check, offsets, pages with retries, cache and manifest. */
#include "wl_tinystories.h"
#include "wl_buf.h"
#include "wl_corpus.h"
#include "wl_pyrand.h"
#include "wl_text.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
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

/* --- the cache directory ----------------------------------------------------------------- */

#define INDEX_NAME "sha256sums"
#define MANIFEST_MAX ((size_t)1 << 20)

/* One fetch: its configuration, deadline, the directories it works in (never reached through a link) and the pages'
 * SHA-256 as recorded when they were fetched. */
typedef struct ts_run {
    const wl_ts_config *cfg;
    double request_s, fetch_s, deadline;   /* deadline: CLOCK_MONOTONIC seconds */
    int past_deadline;                     /* a request or a wait ran into the deadline */
    int dfd, pdfd;                         /* root/<profile>/ and its pages/; -1 when not open */
    char dir[PATH_MAX];                    /* root/<profile>, for messages */
    size_t pages;
    uint64_t *offsets;                     /* [pages] */
    char (*sha)[65];                       /* [pages]: "" until known */
} ts_run;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* mkdir -p of the root (the user's choice of directory: links on its way are theirs) */
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

/* Opens the directory name in dfd, never through a symbolic link; creates it first when create. -1 with err set,
 * or -1 with *missing set (err untouched) when it does not exist and create is 0. */
static int open_dir(int dfd, const char *name, const char *shown, int create, int *missing, wl_err *err)
{
    if (create && mkdirat(dfd, name, 0755) != 0 && errno != EEXIST)
        return wl_fail(err, "cannot create the cache directory %s: %s", shown, strerror(errno));
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) return fd;
    int e = errno;
    struct stat st;
    if (e == ENOENT && !create && missing) {
        *missing = 1;
        return -1;
    }
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return wl_fail(err, "%s is a symbolic link; wordlab follows no link inside its download cache (remove it)", shown);
    return wl_fail(err, "cannot open the cache directory %s: %s", shown, strerror(e));
}

/* Something (a file, a link, anything) stands at name in dfd. */
static int there(int dfd, const char *name)
{
    struct stat st;
    return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Reads name in dfd (a regular file of at most max bytes, never through a link); messages say dir/name. */
static int read_at(int dfd, const char *dir, const char *name, size_t max, char **data, size_t *len, wl_err *err)
{
    char shown[PATH_MAX + 64];
    snprintf(shown, sizeof shown, "%s/%s", dir, name);
    return wl_read_file_at(dfd, name, 1, max, shown, data, len, err);
}

/* Writes name in dfd atomically, never through a link; messages say dir/name. */
static int write_at(int dfd, const char *dir, const char *name, const char *data, size_t len, wl_err *err)
{
    char shown[PATH_MAX + 64];
    snprintf(shown, sizeof shown, "%s/%s", dir, name);
    return wl_write_atomic_at(dfd, name, shown, data, len, err);
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

static void page_name(uint64_t offset, char name[32])
{
    snprintf(name, 32, "%010llu.jsonl", (unsigned long long)offset);
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
    char what[WL_ERR_MAX / 2];
    if (!rp->body || !rp->len) {
        snprintf(why, cap, "the answer is empty, not JSON");
        return NULL;
    }
    if (wl_text_utf8_check(rp->body, rp->len, &bad)) {
        snprintf(why, cap, "the answer is not valid UTF-8 (byte %zu)", bad + 1);
        return NULL;
    }
    cJSON *j = wl_corpus_json_parse(rp->body, rp->len, what, sizeof what);
    if (!j) {
        snprintf(why, cap, "the answer is %s (%zu bytes)", what, rp->len);
        return NULL;
    }
    *nul = wl_corpus_json_nul_at(rp->body, rp->len) < rp->len;
    return j;
}

/* Fails for a fetch that ran into its deadline while fetching what (the last attempt failed with why, if set). */
static int deadline_fail(ts_run *run, const char *what, const char *why, const char *url, wl_err *err)
{
    run->past_deadline = 1;
    if (why)
        return wl_fail(err, "the fetch reached its deadline of %g s (deadline=) before %s could be fetched; the last "
                            "attempt failed with: %s (%s)", run->fetch_s, what, why, url);
    return wl_fail(err, "the fetch reached its deadline of %g s (deadline=) before %s was fetched", run->fetch_s, what);
}

/* GETs url and parses its JSON, with the course's retries: up to WL_TS_ATTEMPTS attempts; after a failed
 * one, waits max(Retry-After on 429 (at most WL_TS_RETRY_AFTER_MAX_S), min(30, 1.5 * 2^attempt)) seconds. A 200
 * that is not JSON, 408, 429, 5xx and transient transport failures (a request past request_s included) are
 * retried; other statuses and permanent failures are not. No request and no wait goes past the fetch's deadline. */
static cJSON *get_json(ts_run *run, const char *url, const char *what, int *nul, wl_err *err)
{
    const wl_ts_config *cfg = run->cfg;
    for (int attempt = 0;; attempt++) {
        double left = run->deadline - now_s();
        if (left <= 0) {
            deadline_fail(run, what, NULL, url, err);
            return NULL;
        }
        wl_http_reply rp;
        memset(&rp, 0, sizeof rp);
        wl_err e = {{0}};
        char why[WL_ERR_MAX];
        double asked = 0, total = fmin(run->request_s, left);
        int rc = cfg->http->get(cfg->http->ud, url, fmin(WL_TS_STALL_S, total), total, cfg->interrupt, &rp, &e);
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
            if (rp.status == 429) asked = retry_after_s(rp.retry_after);
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
        wl_ts_event ev = {.kind = WL_TS_EV_RETRY, .url = url, .why = why, .attempt = attempt + 1, .asked_s = asked,
                          .wait_s = fmax(fmin(asked, WL_TS_RETRY_AFTER_MAX_S), backoff)};
        if (now_s() + ev.wait_s * cfg->time_scale >= run->deadline) {
            deadline_fail(run, what, why, url, err);
            return NULL;
        }
        emit(cfg, &ev);
        if (pause_for(cfg, ev.wait_s)) {
            wl_fail(err, "interrupted while waiting to fetch %s again", what);
            return NULL;
        }
    }
}

static int check_revision(ts_run *run, wl_err *err)
{
    char url[1024];
    snprintf(url, sizeof url, "%s/api/datasets/%s", run->cfg->hub_base, WL_TS_DATASET);
    int nul;
    cJSON *j = get_json(run, url, "the dataset's current revision from the Hugging Face Hub", &nul, err);
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

/* The SHA-256 of every kept page as sha256sum writes them, written atomically. */
static int write_index(ts_run *run, wl_err *err)
{
    wl_buf b = {0};
    char name[32];
    for (size_t i = 0; i < run->pages; i++) {
        if (!run->sha[i][0]) continue;
        page_name(run->offsets[i], name);
        wl_buf_printf(&b, "%s  %s\n", run->sha[i], name);
    }
    char pdir[PATH_MAX + 8];
    snprintf(pdir, sizeof pdir, "%s/pages", run->dir);
    int rc = write_at(run->pdfd, pdir, INDEX_NAME, b.s ? b.s : "", b.len, err);
    free(b.s);
    return rc;
}

/* The hashes recorded in pages/sha256sums for the pages of this fetch (others are ignored; none without the file). */
static int read_index(ts_run *run, wl_err *err)
{
    char pdir[PATH_MAX + 8], *data, name[32];
    size_t len;
    snprintf(pdir, sizeof pdir, "%s/pages", run->dir);
    if (!there(run->pdfd, INDEX_NAME)) return 0;
    if (read_at(run->pdfd, pdir, INDEX_NAME, MANIFEST_MAX, &data, &len, err)) return -1;
    for (char *line = data, *nl; line < data + len; line = nl + 1) {
        if (!(nl = memchr(line, '\n', (size_t)(data + len - line)))) break;
        *nl = 0;
        if (nl - line < 66 || line[64] != ' ' || line[65] != ' ' || strspn(line, "0123456789abcdef") != 64) continue;
        for (size_t i = 0; i < run->pages; i++) {
            page_name(run->offsets[i], name);
            if (!strcmp(line + 66, name)) snprintf(run->sha[i], 65, "%.64s", line);
        }
    }
    free(data);
    return 0;
}

/* Whether the page data[0..len) holds the 100 rows from offset on, each line as json_line writes it; why when not. */
static int rows_ok(const char *data, size_t len, uint64_t offset, char *why, size_t cap)
{
    size_t at = 0;
    for (int i = 0; i < WL_TS_PAGE_ROWS; i++) {
        const char *nl = at < len ? memchr(data + at, '\n', len - at) : NULL;
        if (!nl) {
            snprintf(why, cap, "it holds %d rows, not %d", i, WL_TS_PAGE_ROWS);
            return 0;
        }
        size_t n = (size_t)(nl - data) - at, k = 0;
        char *text;
        long row;
        wl_err e;
        int bad = wl_corpus_parse_json_line(data + at, n, &text, &row, &e);
        if (!bad) {
            json_line(NULL, &k, row, text);
            free(text);
        }
        if (bad || row != (long)(offset + (uint64_t)i) || k != n + 1) {
            snprintf(why, cap, "line %d is not row %llu as the rows API gives it%s%.200s", i + 1,
                     (unsigned long long)(offset + (uint64_t)i), bad ? ": " : "", bad ? e.msg : "");
            return 0;
        }
        at += n + 1;
    }
    if (at != len) snprintf(why, cap, "it holds more than %d rows", WL_TS_PAGE_ROWS);
    return at == len;
}

/* The page i kept from an earlier fetch: 1 when its SHA-256 is the one recorded when it was fetched and its rows are
 * the page's; 0 when there is none or it fails (then a REFETCH event says why); -1 with err when it cannot be read
 * (a link, not a regular file, too large). */
static int kept_page(ts_run *run, size_t i, wl_err *err)
{
    char name[32], pdir[PATH_MAX + 8], sha[65], fault[WL_ERR_MAX / 2] = "", why[PATH_MAX + WL_ERR_MAX];
    char *data;
    size_t len;
    page_name(run->offsets[i], name);
    snprintf(pdir, sizeof pdir, "%s/pages", run->dir);
    if (!there(run->pdfd, name)) {
        run->sha[i][0] = 0;
        return 0;
    }
    if (read_at(run->pdfd, pdir, name, WL_TS_PAGE_MAX, &data, &len, err)) return -1;
    int rc = sha256_hex(data, len, sha, err);
    if (rc == 0 && !run->sha[i][0])
        snprintf(fault, sizeof fault, "no SHA-256 was recorded for it when it was fetched");
    else if (rc == 0 && strcmp(sha, run->sha[i]))
        snprintf(fault, sizeof fault, "its SHA-256 is %s, not the %s recorded when it was fetched", sha, run->sha[i]);
    else if (rc == 0)
        rows_ok(data, len, run->offsets[i], fault, sizeof fault);
    free(data);
    if (rc) return -1;
    if (!fault[0]) return 1;
    run->sha[i][0] = 0;
    snprintf(why, sizeof why, "%s/%s: %s; fetching it again", pdir, name, fault);
    wl_ts_event ev = {.kind = WL_TS_EV_REFETCH, .why = why, .pages = run->pages};
    emit(run->cfg, &ev);
    return 0;
}

/* Fetches page i, checks it, keeps it in pages/ and records its SHA-256. */
static int fetch_page(ts_run *run, size_t i, wl_err *err)
{
    char url[1024], what[96], name[32], pdir[PATH_MAX + 8];
    uint64_t offset = run->offsets[i];
    snprintf(url, sizeof url, "%s/rows?dataset=roneneldan%%2FTinyStories&config=default&split=train&offset=%llu&length=%d",
             run->cfg->rows_base, (unsigned long long)offset, WL_TS_PAGE_ROWS);
    snprintf(what, sizeof what, "the page of rows at offset %llu", (unsigned long long)offset);
    int nul;
    cJSON *page = get_json(run, url, what, &nul, err);
    if (!page) return -1;
    char *lines = NULL;
    size_t len = 0;
    int rc = page_lines(page, nul, offset, &lines, &len, err);
    cJSON_Delete(page);
    if (rc == 0 && len > WL_TS_PAGE_MAX)
        rc = wl_fail(err, "the page at offset %llu holds %zu bytes of rows, more than the %zu a page may hold",
                     (unsigned long long)offset, len, WL_TS_PAGE_MAX);
    page_name(offset, name);
    snprintf(pdir, sizeof pdir, "%s/pages", run->dir);
    if (rc == 0) rc = sha256_hex(lines, len, run->sha[i], err);
    if (rc == 0) rc = write_at(run->pdfd, pdir, name, lines, len, err);
    if (rc == 0) rc = write_index(run, err);
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
static int verify_cached(ts_run *run, wl_ts_result *res, wl_err *err)
{
    const wl_ts_config *cfg = run->cfg;
    const char *dir = run->dir;
    char *data = NULL, *man = NULL, mpath[PATH_MAX + 32];
    size_t len = 0, mlen = 0;
    snprintf(mpath, sizeof mpath, "%s/source_manifest.json", dir);
    if (read_at(run->dfd, dir, "stories.jsonl", WL_CORPUS_FILE_MAX, &data, &len, err) ||
        read_at(run->dfd, dir, "source_manifest.json", MANIFEST_MAX, &man, &mlen, err)) {
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
        res->data = data;
        res->len = len;
        data = NULL;
    }
    cJSON_Delete(m);
    free(data);
    free(man);
    return rc;
}

/* Concatenates the pages in offset order, truncated to the story count, into *out (malloc'd, *len bytes); each page
 * read again is checked against the SHA-256 recorded for it. */
static int assemble(ts_run *run, char **out, size_t *len, size_t *rows, wl_err *err)
{
    size_t pages = run->pages;
    char **data = calloc(pages ? pages : 1, sizeof *data);   /* the pages read, each used up to used[i] */
    size_t *used = calloc(pages ? pages : 1, sizeof *used), n = 0, total = 0;
    char pdir[PATH_MAX + 8], name[32], sha[65];
    snprintf(pdir, sizeof pdir, "%s/pages", run->dir);
    int rc = data && used ? 0 : wl_fail(err, "out of memory assembling the subset");
    *rows = 0;
    for (; rc == 0 && n < pages && *rows < run->cfg->stories; n++) {
        size_t dlen, at = 0;
        page_name(run->offsets[n], name);
        if ((rc = read_at(run->pdfd, pdir, name, WL_TS_PAGE_MAX, &data[n], &dlen, err)) ||
            (rc = sha256_hex(data[n], dlen, sha, err)))
            break;
        if (strcmp(sha, run->sha[n])) {
            rc = wl_fail(err, "%s/%s changed while the subset was fetched (SHA-256 %s, not %s)", pdir, name, sha,
                         run->sha[n]);
            break;
        }
        while (at < dlen && *rows < run->cfg->stories) {
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
    for (size_t i = 0; data && i < pages; i++) {   /* data[i] is NULL past the pages read */
        if (rc == 0 && i < n) put(*out, len, data[i], used[i]);
        free(data[i]);
    }
    free(data);
    free(used);
    return rc;
}

/* After an interrupt or the deadline: err says so and that the pages fetched are kept for the next fetch. */
static int kept_fail(ts_run *run, size_t done, wl_err *err)
{
    char why[WL_ERR_MAX];
    snprintf(why, sizeof why, "%s", err->msg);
    if (interrupted(run->cfg))
        return wl_fail(err, "interrupted with %zu of %zu pages fetched; they are kept in %s/pages and the same command "
                            "resumes from there", done, run->pages, run->dir);
    return wl_fail(err, "%s; %zu of %zu pages are kept in %s/pages and the same command resumes from there", why, done,
                   run->pages, run->dir);
}

static int fetch_all(ts_run *run, wl_ts_result *res, wl_err *err)
{
    const wl_ts_config *cfg = run->cfg;
    int missing = 0;
    char pdir[PATH_MAX + 8];
    snprintf(pdir, sizeof pdir, "%s/pages", run->dir);
    if (check_revision(run, err) || (run->pdfd = open_dir(run->dfd, "pages", pdir, 1, &missing, err)) < 0 ||
        read_index(run, err))
        return -1;
    wl_ts_event ev = {.kind = WL_TS_EV_REVISION, .pages = run->pages};
    emit(cfg, &ev);
    int fetched = 0;
    for (size_t i = 0; i < run->pages; i++) {
        int kept = kept_page(run, i, err);
        if (kept < 0) return -1;
        if (kept) {
            res->resumed++;
        } else {
            if ((fetched && pause_for(cfg, WL_TS_PAGE_PAUSE_S)) || interrupted(cfg) || fetch_page(run, i, err)) {
                if (interrupted(cfg) || run->past_deadline) return kept_fail(run, i, err);
                return -1;
            }
            fetched = 1;
        }
        ev = (wl_ts_event){.kind = WL_TS_EV_PAGE, .done = i + 1, .pages = run->pages, .resumed = res->resumed};
        emit(cfg, &ev);
    }
    char *all = NULL;
    size_t len, rows;
    char api[1100], name[32];
    snprintf(api, sizeof api, "%s/rows", cfg->rows_base);
    int rc = assemble(run, &all, &len, &rows, err);
    if (rc == 0) rc = sha256_hex(all, len, res->sha256, err);
    char *man = rc ? NULL : manifest_text(cfg, run->offsets, run->pages, rows, res->sha256, api);
    /* the data first: a manifest always describes a complete file */
    if (rc == 0) rc = write_at(run->dfd, run->dir, "stories.jsonl", all, len, err);
    if (rc == 0) rc = write_at(run->dfd, run->dir, "source_manifest.json", man, strlen(man), err);
    free(man);
    if (rc) {
        free(all);
        return -1;
    }
    for (size_t i = 0; i < run->pages; i++) {
        page_name(run->offsets[i], name);
        unlinkat(run->pdfd, name, 0);
    }
    unlinkat(run->pdfd, INDEX_NAME, 0);
    unlinkat(run->dfd, "pages", AT_REMOVEDIR);
    res->stories = rows;
    res->data = all;
    res->len = len;
    course_match(cfg, res);
    return 0;
}

/* Opens root/<profile> (created when create); -1 with *missing set when it is not there and create is 0. */
static int open_profile(ts_run *run, int create, int *missing, wl_err *err)
{
    const wl_ts_config *cfg = run->cfg;
    if (create && make_dirs(cfg->root, err)) return -1;
    int root = open(cfg->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0 && errno == ENOENT && !create) {
        *missing = 1;
        return -1;
    }
    if (root < 0) return wl_fail(err, "cannot open the cache directory %s: %s", cfg->root, strerror(errno));
    run->dfd = open_dir(root, cfg->profile, run->dir, create, missing, err);
    close(root);
    return run->dfd < 0 ? -1 : 0;
}

int wl_ts_fetch(const wl_ts_config *cfg, wl_ts_result *res, wl_err *err)
{
    memset(res, 0, sizeof *res);
    res->course_match = -1;
    ts_run run = {.cfg = cfg, .request_s = cfg->request_s > 0 ? cfg->request_s : WL_TS_REQUEST_S,
                  .fetch_s = cfg->fetch_s > 0 ? cfg->fetch_s : WL_TS_FETCH_S, .dfd = -1, .pdfd = -1};
    run.deadline = now_s() + run.fetch_s;
    if (strchr(cfg->profile, '/') || !cfg->profile[0] || cfg->profile[0] == '.')
        return wl_fail(err, "\"%s\" cannot name a cache directory", cfg->profile);
    if (snprintf(run.dir, sizeof run.dir, "%s/%s", cfg->root, cfg->profile) >= (int)sizeof run.dir ||
        snprintf(res->path, sizeof res->path, "%s/stories.jsonl", run.dir) >= (int)sizeof res->path ||
        strlen(run.dir) + 64 >= sizeof run.dir)
        return wl_fail(err, "the cache path %s is too long", cfg->root);
    int missing = 0, rc;
    if (open_profile(&run, 0, &missing, err) && !missing) return -1;
    if (run.dfd >= 0 && there(run.dfd, "stories.jsonl") && there(run.dfd, "source_manifest.json")) {
        rc = verify_cached(&run, res, err);
        close(run.dfd);
        return rc;
    }
    if (!cfg->http) {
        if (run.dfd >= 0) close(run.dfd);
        return wl_fail(err, "the TinyStories %s subset is not in %s, and fetching it needs the network, which this "
                            "front end does not offer", cfg->profile, run.dir);
    }
    rc = run.dfd >= 0 ? 0 : open_profile(&run, 1, &missing, err);
    if (rc == 0) rc = wl_ts_offsets(cfg->stories, &run.offsets, &run.pages, err);
    if (rc == 0) {
        res->pages = run.pages;
        run.sha = calloc(run.pages ? run.pages : 1, sizeof *run.sha);
        rc = run.sha ? fetch_all(&run, res, err) : wl_fail(err, "out of memory");
    }
    if (run.pdfd >= 0) close(run.pdfd);
    if (run.dfd >= 0) close(run.dfd);
    free(run.sha);
    free(run.offsets);
    return rc;
}

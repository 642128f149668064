/* test_tinystories.c: wl_ts_fetch against an in-memory fake of the two APIs: the cache, verification, resume,
 * retries and the errors (tests/py/test_tinystories.py checks the same through libcurl and a fake server). */
#include "wl_test.h"
#include "wl_tinystories.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct fake {
    const char *revision;
    int requests, page_requests;
    int fail_at;              /* the page request (1-based) that gets `fault`; 0: none */
    const char *fault;        /* "interrupt", "429", "429huge", "503", "partial", "truncated", "nul", "short",
                               * "malformed", "slow" (a transient timeout after the request's whole budget, total_s) */
    int fault_times;          /* how many requests get it */
    volatile sig_atomic_t *flag;
    double most_total;        /* the largest total_s a request was given */
} fake;

static char *page_json(long offset, const char *fault)
{
    cJSON *p = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(p, "rows");
    int n = fault && !strcmp(fault, "short") ? 40 : WL_TS_PAGE_ROWS;
    for (int i = 0; i < n; i++) {
        cJSON *r = cJSON_CreateObject(), *cells = cJSON_AddObjectToObject(r, "row");
        char text[96];
        snprintf(text, sizeof text, "Story %ld: \"Tom\"\tsaw a \\ dog.\nThe end \xc3\xa9 \x01.", offset + i);
        cJSON_AddNumberToObject(r, "row_idx", (double)(offset + i));
        cJSON_AddStringToObject(cells, "text", fault && !strcmp(fault, "nul") && i == 3 ? "NULHERE" : text);
        cJSON *cut = cJSON_AddArrayToObject(r, "truncated_cells");
        if (fault && !strcmp(fault, "truncated") && i == 5) cJSON_AddItemToArray(cut, cJSON_CreateString("text"));
        cJSON_AddItemToArray(rows, r);
    }
    cJSON_AddBoolToObject(p, "partial", fault && !strcmp(fault, "partial"));
    char *s = cJSON_PrintUnformatted(p);
    cJSON_Delete(p);
    char *nul = strstr(s, "NULHERE");
    if (nul) memcpy(nul, "\\u0000x", 7);
    return s;
}

static int fake_get(void *ud, const char *url, double stall_s, double total_s, volatile sig_atomic_t *interrupt,
                    wl_http_reply *rp, wl_err *err)
{
    fake *f = ud;
    (void)interrupt;
    memset(rp, 0, sizeof rp[0]);
    f->requests++;
    CHECK(stall_s > 0 && stall_s <= total_s);
    if (total_s > f->most_total) f->most_total = total_s;
    rp->status = 200;
    if (strstr(url, "/api/datasets/roneneldan/TinyStories")) {
        char body[128];
        snprintf(body, sizeof body, "{\"id\": \"roneneldan/TinyStories\", \"sha\": \"%s\"}", f->revision);
        rp->body = strdup(body);
        rp->len = strlen(body);
        return 0;
    }
    const char *o = strstr(url, "&offset=");
    CHECK(o != NULL && strstr(url, "/rows?dataset=roneneldan%2FTinyStories&config=default&split=train&") != NULL);
    int k = ++f->page_requests;
    const char *fault = f->fail_at && k >= f->fail_at && k < f->fail_at + f->fault_times ? f->fault : NULL;
    if (fault && !strcmp(fault, "interrupt")) {
        *f->flag = 1;
        rp->failure = WL_HTTP_INTERRUPTED;
        return wl_fail(err, "interrupted during the request");
    }
    if (fault && (!strcmp(fault, "429") || !strcmp(fault, "429huge") || !strcmp(fault, "503"))) {
        rp->status = atoi(fault);
        snprintf(rp->retry_after, sizeof rp->retry_after, "%s", rp->status != 429 ? "" : fault[3] ? "100000000" : "7");
        return 0;
    }
    if (fault && !strcmp(fault, "slow")) {
        struct timespec ts = {(time_t)total_s, (long)((total_s - floor(total_s)) * 1e9)};
        nanosleep(&ts, NULL);
        rp->failure = WL_HTTP_TRANSIENT;
        return wl_fail(err, "timed out: the request took longer than %g s", total_s);
    }
    rp->body = page_json(strtol(o + 8, NULL, 10), fault);
    rp->len = strlen(rp->body);
    if (fault && !strcmp(fault, "malformed")) rp->len /= 2;
    return 0;
}

typedef struct events {
    int pages, retries, revision, refetched;
    double last_wait, last_asked;
    char why[WL_ERR_MAX];
} events;

static void on_event(void *ud, const wl_ts_event *e)
{
    events *ev = ud;
    if (e->kind == WL_TS_EV_PAGE) ev->pages++;
    if (e->kind == WL_TS_EV_REVISION) ev->revision++;
    if (e->kind == WL_TS_EV_RETRY) ev->retries++, ev->last_wait = e->wait_s, ev->last_asked = e->asked_s;
    if (e->kind == WL_TS_EV_REFETCH) ev->refetched++, snprintf(ev->why, sizeof ev->why, "%s", e->why);
}

static char g_root[64];
static volatile sig_atomic_t g_flag;
static fake g_fake;
static events g_ev;
static wl_http g_http = {.ud = &g_fake, .get = fake_get};
static double g_fetch_s;   /* the fetch's deadline (0: the default) */

/* A smoke fetch through the fake (http NULL: without the network). */
static int fetch(const wl_http *http, wl_ts_result *res, wl_err *err)
{
    wl_ts_config cfg = {.profile = "smoke", .stories = 480, .root = g_root, .hub_base = "http://fake",
                        .rows_base = "http://fake", .time_scale = 0, .fetch_s = g_fetch_s, .http = http, .interrupt = &g_flag,
                        .on_event = on_event, .ud = &g_ev};
    int rc = wl_ts_fetch(&cfg, res, err);
    CHECK(rc == 0 ? res->data && res->len > 0 : !res->data);
    free(res->data);   /* what the caller reads: the file's bytes as verified */
    res->data = NULL;
    return rc;
}

/* Resets the fake (and the cache when wipe) before a case; the next page request from fail_at on gets fault, times
 * times. */
static void reset(int wipe, int fail_at, const char *fault, int times)
{
    g_fake = (fake){.revision = WL_TS_REVISION, .flag = &g_flag, .fail_at = fail_at, .fault = fault, .fault_times = times};
    g_ev = (events){0};
    g_flag = 0;
    g_fetch_s = 0;
    if (wipe) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s/smoke", g_root);
        CHECK(system(cmd) == 0);
    }
}

static int count_pages(void)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s/smoke/pages", g_root);
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".jsonl") != NULL;
    if (d) closedir(d);
    return n;
}

static void test_offsets(void)
{
    uint64_t *o;
    size_t n;
    wl_err err;
    CHECK(wl_ts_offsets(6000, &o, &n, &err) == 0);
    CHECK(n == 60);
    for (size_t i = 0; i < n; i++) {
        CHECK(o[i] % 100 == 0 && o[i] + 100 <= WL_TS_TOTAL_ROWS);
        if (i) CHECK(o[i - 1] < o[i]);
    }
    free(o);
}

static void test_json_line(void)
{
    size_t len;
    char *s = wl_ts_json_line(12, "a\"b\\c\n\r\t\b\f\x01\x1f\x7f \xc3\xa9/", &len);
    const char *want = "{\"row_idx\": 12, \"text\": \"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f\x7f \xc3\xa9/\"}\n";
    CHECK_MSG(s && !strcmp(s, want) && len == strlen(want), "%s", s);
    free(s);
}

static void test_fetch_verify_and_reuse(void)
{
    reset(1, 0, NULL, 0);
    wl_ts_result res;
    wl_err err;
    CHECK_MSG(fetch(&g_http, &res, &err) == 0, "%s", err.msg);
    CHECK(res.stories == 480 && res.pages == 5 && !res.cached && res.course_match == -1);
    CHECK(g_fake.page_requests == 5 && g_ev.pages == 5 && g_ev.revision == 1 && count_pages() == 0);
    char *data;
    size_t len;
    CHECK(wl_read_file(res.path, &data, &len, &err) == 0);
    size_t lines = 0;
    for (size_t i = 0; i < len; i++) lines += data[i] == '\n';
    CHECK(lines == 480 && !strncmp(data, "{\"row_idx\": ", 12));
    /* again: verified, no request */
    reset(0, 0, NULL, 0);
    CHECK_MSG(fetch(&g_http, &res, &err) == 0, "%s", err.msg);
    CHECK(res.cached && res.stories == 480 && g_fake.requests == 0);
    /* a changed byte: the checksum no longer matches */
    data[20] ^= 1;
    CHECK(wl_write_atomic(res.path, data, len, &err) == 0);
    free(data);
    CHECK(fetch(&g_http, &res, &err) == -1);
    CHECK_MSG(strstr(err.msg, "checksum mismatch") != NULL, "%s", err.msg);
    CHECK(g_fake.requests == 0);
    /* without the network, only a cache helps */
    reset(1, 0, NULL, 0);
    CHECK(fetch(NULL, &res, &err) == -1 && strstr(err.msg, "needs the network") != NULL);
}

static void test_interrupt_then_resume(void)
{
    reset(1, 3, "interrupt", 1);
    wl_ts_result res;
    wl_err err;
    CHECK(fetch(&g_http, &res, &err) == -1);
    CHECK_MSG(strstr(err.msg, "2 of 5 pages fetched") != NULL, "%s", err.msg);
    CHECK(count_pages() == 2);
    reset(0, 0, NULL, 0);
    CHECK_MSG(fetch(&g_http, &res, &err) == 0, "%s", err.msg);
    CHECK(res.resumed == 2 && g_fake.page_requests == 3 && res.stories == 480);
}

static void test_retries(void)
{
    reset(1, 2, "429", 1);
    wl_ts_result res;
    wl_err err;
    CHECK_MSG(fetch(&g_http, &res, &err) == 0, "%s", err.msg);
    CHECK(g_ev.retries == 1 && g_ev.last_wait == 7.0 && g_fake.page_requests == 6);
    reset(1, 1, "malformed", 2);
    CHECK_MSG(fetch(&g_http, &res, &err) == 0, "%s", err.msg);
    CHECK(g_ev.retries == 2 && g_ev.last_wait == 3.0);
    reset(1, 1, "503", WL_TS_ATTEMPTS);
    CHECK(fetch(&g_http, &res, &err) == -1);
    CHECK_MSG(strstr(err.msg, "8 attempts failed, the last with: HTTP 503") != NULL, "%s", err.msg);
    CHECK(g_ev.retries == WL_TS_ATTEMPTS - 1 && g_ev.last_wait == 30.0);
}

/* A Retry-After past the cap waits the cap; requests and waits end by the deadline; each request gets at most the
 * request timeout and what is left of the deadline. */
static void test_cap_and_deadline(void)
{
    reset(1, 2, "429huge", 1);
    wl_ts_result res;
    wl_err err;
    CHECK_MSG(fetch(&g_http, &res, &err) == 0, "%s", err.msg);
    CHECK(g_ev.retries == 1 && g_ev.last_asked == 1e8 && g_ev.last_wait == WL_TS_RETRY_AFTER_MAX_S);
    CHECK(g_fake.most_total > 0 && g_fake.most_total <= WL_TS_REQUEST_S);
    /* the second page's request times out after all the deadline leaves it (the first page may take any time
     * under 2 s, however loaded the machine), so the deadline, not the attempts, ends the fetch */
    reset(1, 2, "slow", WL_TS_ATTEMPTS);
    g_fetch_s = 2;
    CHECK(fetch(&g_http, &res, &err) == -1);
    CHECK_MSG(strstr(err.msg, "the fetch reached its deadline of 2 s (deadline=) before the page of rows at offset") &&
              strstr(err.msg, "1 of 5 pages are kept in") && strstr(err.msg, "timed out"), "%s", err.msg);
    CHECK(g_fake.most_total <= 2 && g_fake.page_requests >= 2 && g_fake.page_requests < 1 + WL_TS_ATTEMPTS);
    CHECK(count_pages() == 1);
}

/* A kept page is used again only when its hash and rows check out; a link in the cache is never followed. */
static void test_kept_pages(void)
{
    reset(1, 3, "interrupt", 1);
    wl_ts_result res;
    wl_err err;
    CHECK(fetch(&g_http, &res, &err) == -1 && count_pages() == 2);
    uint64_t *o;
    size_t n;
    CHECK(wl_ts_offsets(480, &o, &n, &err) == 0);
    char page[160], victim[160];
    snprintf(page, sizeof page, "%s/smoke/pages/%010llu.jsonl", g_root, (unsigned long long)o[1]);
    char *data;
    size_t len;
    CHECK(wl_read_file(page, &data, &len, &err) == 0);
    data[30] ^= 1;
    CHECK(wl_write_atomic(page, data, len, &err) == 0);
    free(data);
    reset(0, 0, NULL, 0);
    CHECK_MSG(fetch(&g_http, &res, &err) == 0, "%s", err.msg);
    CHECK(res.resumed == 1 && g_fake.page_requests == 4 && g_ev.refetched == 1);
    CHECK_MSG(strstr(g_ev.why, page) && strstr(g_ev.why, "recorded when it was fetched; fetching it again"), "%s", g_ev.why);
    /* a link where a page goes: neither read nor written through */
    reset(1, 0, NULL, 0);
    snprintf(victim, sizeof victim, "%s/victim", g_root);
    CHECK(wl_write_atomic(victim, "precious", 8, &err) == 0);
    snprintf(page, sizeof page, "%s/smoke", g_root);
    CHECK(mkdir(page, 0755) == 0);
    snprintf(page, sizeof page, "%s/smoke/pages", g_root);
    CHECK(mkdir(page, 0755) == 0);
    snprintf(page, sizeof page, "%s/smoke/pages/%010llu.jsonl", g_root, (unsigned long long)o[0]);
    CHECK(symlink(victim, page) == 0);
    CHECK(fetch(&g_http, &res, &err) == -1);
    CHECK_MSG(strstr(err.msg, "is a symbolic link, not a regular file"), "%s", err.msg);
    CHECK(wl_read_file(victim, &data, &len, &err) == 0 && !strcmp(data, "precious") && g_fake.page_requests == 0);
    free(data);
    unlink(victim);
    free(o);
}

static void test_errors(void)
{
    static const struct {
        const char *fault, *msg;
    } cases[] = {
        {"partial", "partial page at offset"},
        {"truncated", "truncated row"},
        {"nul", "\\u0000 (NUL)"},
        {"short", "has 40 rows, not 100"},
    };
    wl_ts_result res;
    wl_err err;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(1, 2, cases[i].fault, 1);
        CHECK(fetch(&g_http, &res, &err) == -1);
        CHECK_MSG(strstr(err.msg, cases[i].msg) != NULL, "%s: %s", cases[i].fault, err.msg);
        CHECK(g_fake.page_requests == 2 && count_pages() == 1);
    }
    reset(1, 0, NULL, 0);
    g_fake.revision = "0000000000000000000000000000000000000000";
    CHECK(fetch(&g_http, &res, &err) == -1);
    CHECK_MSG(strstr(err.msg, "changed upstream") != NULL, "%s", err.msg);
    CHECK(g_fake.page_requests == 0);
}

void wl_test_main(void)
{
    snprintf(g_root, sizeof g_root, "/tmp/wl-ts-unit-%ld", (long)getpid());
    test_offsets();
    test_json_line();
    test_fetch_verify_and_reuse();
    test_interrupt_then_resume();
    test_retries();
    test_cap_and_deadline();
    test_kept_pages();
    test_errors();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_root);
    CHECK(system(cmd) == 0);
}

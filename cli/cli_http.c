/* cli_http.c: the front ends' HTTP GET for the runtime (libcurl), the user's cache directory, the interpreter settings. */
#include "cli.h"
#include "wl_tinystories.h"

#include <curl/curl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* An answer's most bytes, decoded: a rows page is about 100 KB and a Hub answer a few KB; the JSON parse that follows
 * takes about 30 times its text, so a small compressed answer must not decode to much more. */
#define CLI_HTTP_MAX_BODY (16u << 20)

typedef struct http_xfer {
    char *body;
    size_t len, cap;
    int too_big;
    wl_http_reply *reply;
    volatile sig_atomic_t *interrupt;
    double stall_s, total_s;
} http_xfer;

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    http_xfer *x = ud;
    size_t k = size * n;
    if (x->len + k > CLI_HTTP_MAX_BODY) {
        x->too_big = 1;
        return 0;
    }
    if (x->len + k + 1 > x->cap) {
        size_t cap = x->cap ? x->cap : 65536;
        while (x->len + k + 1 > cap) cap *= 2;
        char *b = realloc(x->body, cap);
        if (!b) return 0;
        x->body = b, x->cap = cap;
    }
    memcpy(x->body + x->len, p, k);
    x->len += k;
    x->body[x->len] = 0;
    return k;
}

/* Keeps the Retry-After header (of the last response, when redirects were followed). */
static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    http_xfer *x = ud;
    size_t k = size * n;
    if (k > 5 && !strncmp(p, "HTTP/", 5)) x->reply->retry_after[0] = 0;
    if (k > 12 && !strncasecmp(p, "Retry-After:", 12)) {
        const char *v = p + 12, *end = p + k;
        while (v < end && (*v == ' ' || *v == '\t')) v++;
        while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
        snprintf(x->reply->retry_after, sizeof x->reply->retry_after, "%.*s", (int)(end - v), v);
    }
    return k;
}

/* Stops the transfer when the interrupt flag is set. */
static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    http_xfer *x = ud;
    return x->interrupt && *x->interrupt;
}

static pthread_once_t g_curl_once = PTHREAD_ONCE_INIT;
static CURLcode g_curl_init;

static void curl_init_once(void) { g_curl_init = curl_global_init(CURL_GLOBAL_DEFAULT); }

/* Which failures another attempt may cure, and the words for them. */
static int http_failed(CURL *h, CURLcode rc, const char *url, const char *detail, const http_xfer *x,
                       wl_http_reply *reply, wl_err *err)
{
    curl_off_t took_us = 0;
    const char *d = detail[0] ? detail : curl_easy_strerror(rc);
    reply->failure = WL_HTTP_TRANSIENT;
    switch (rc) {
    case CURLE_ABORTED_BY_CALLBACK:
        reply->failure = WL_HTTP_INTERRUPTED;
        return wl_fail(err, "interrupted during the request");
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        reply->failure = WL_HTTP_PERMANENT;
        return wl_fail(err, "cannot resolve the host of %s (no network, or a DNS failure): %s", url, d);
    case CURLE_COULDNT_CONNECT:
        return wl_fail(err, "cannot connect (no network, or the server is down): %s", d);
    case CURLE_OPERATION_TIMEDOUT:   /* the whole request's limit, or too long without data */
        curl_easy_getinfo(h, CURLINFO_TOTAL_TIME_T, &took_us);
        if ((double)took_us >= x->total_s * 1e6 - 5e5)
            return wl_fail(err, "timed out: the request took longer than %.3g s: %s", x->total_s, d);
        return wl_fail(err, "timed out: no data for %g s: %s", x->stall_s, d);
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_USE_SSL_FAILED:
        reply->failure = WL_HTTP_PERMANENT;
        return wl_fail(err, "TLS failure talking to %s: %s", url, d);
    case CURLE_WRITE_ERROR:
        reply->failure = WL_HTTP_PERMANENT;
        return wl_fail(err, x->too_big ? "the answer is over %u MiB" : "out of memory receiving the answer (%u MiB at most)",
                       CLI_HTTP_MAX_BODY >> 20);
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return wl_fail(err, "the connection broke: %s", d);
    default:
        reply->failure = WL_HTTP_PERMANENT;
        return wl_fail(err, "%s", d);
    }
}

static int http_get(void *ud, const char *url, double stall_s, double total_s, volatile sig_atomic_t *interrupt,
                    wl_http_reply *reply, wl_err *err)
{
    (void)ud;
    memset(reply, 0, sizeof *reply);
    pthread_once(&g_curl_once, curl_init_once);
    CURL *h = g_curl_init == CURLE_OK ? curl_easy_init() : NULL;
    if (!h) {
        reply->failure = WL_HTTP_PERMANENT;
        return wl_fail(err, "libcurl could not be initialised");
    }
    http_xfer x = {.reply = reply, .interrupt = interrupt, .stall_s = stall_s, .total_s = total_s};
    char detail[CURL_ERROR_SIZE] = "";
    long stall = stall_s < 1 ? 1 : (long)stall_s, total_ms = total_s < 0.001 ? 1 : (long)(total_s * 1000);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "wordlab/" WL_VERSION " (+corpus source=tinystories)");
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, stall * 1000 < total_ms ? stall * 1000 : total_ms);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);   /* no byte for stall_s: a timeout */
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, stall);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, total_ms);  /* the whole exchange, however slowly the bytes come */
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, detail);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &x);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, &x);
    CURLcode rc = curl_easy_perform(h);
    int out = 0;
    if (rc == CURLE_OK) {
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &reply->status);
        reply->body = x.body;
        reply->len = x.len;
        x.body = NULL;
    } else {
        out = http_failed(h, rc, url, detail, &x, reply, err);
    }
    free(x.body);
    curl_easy_cleanup(h);
    return out;
}

static const wl_http CLI_HTTP = {.get = http_get};

/* $XDG_CACHE_HOME/wordlab or ~/.cache/wordlab; NULL when neither is set. */
static const char *cache_dir(void)
{
    static char dir[PATH_MAX];
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/') n = snprintf(dir, sizeof dir, "%s/wordlab", xdg);   /* the XDG spec: absolute paths only */
    else if (home && home[0]) n = snprintf(dir, sizeof dir, "%s/.cache/wordlab", home);
    else return NULL;
    return n > 0 && (size_t)n < sizeof dir ? dir : NULL;
}

/* The shared cache of computed results: $WORDLAB_CACHE (a classroom's system folder; "off": none), else
 * <cache_dir>/cache. */
static const char *shared_cache(void)
{
    static char dir[PATH_MAX];
    const char *env = getenv("WORDLAB_CACHE"), *user = cache_dir();
    if (env && env[0]) return strcmp(env, "off") ? env : NULL;
    return user && snprintf(dir, sizeof dir, "%s/cache", user) < (int)sizeof dir ? dir : NULL;
}

wl_interp_opts cli_interp_opts(void)
{
    const char *mb = getenv("WORDLAB_CACHE_LIMIT_MB");   /* the shared cache's bound, in MiB */
    return (wl_interp_opts){.allow_files = 1, .artifacts_dir = getenv("WORDLAB_ARTIFACTS"), .http = &CLI_HTTP,
                            .cache_dir = cache_dir(), .shared_cache = shared_cache(),
                            .shared_cache_limit = mb ? strtoull(mb, NULL, 10) << 20 : 0};
}

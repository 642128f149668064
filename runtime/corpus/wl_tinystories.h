/* wl_tinystories.h: the course's pinned TinyStories subset: the revision check, the page offsets, the rows
 * API's pages with retries, and the cache (stories.jsonl exactly as Python's json.dumps writes it, and
 * source_manifest.json), verified and resumable. The front end performs each HTTP GET (wl_http): the runtime
 * opens no socket.
 *
 * The cache of a profile is the directory ROOT/<profile>/ (ROOT is the course's data directory):
 *   stories.jsonl          one line per row: json.dumps({"row_idx": i, "text": t}, ensure_ascii=False) + "\n"
 *   source_manifest.json   json.dumps(manifest, indent=2) + "\n", with raw_sha256 of stories.jsonl
 *   pages/<offset>.jsonl   while fetching: each page's lines, written atomically once it is checked; the next
 *                          fetch keeps them, so an interrupted fetch resumes; removed when the file is complete
 *   pages/sha256sums       the SHA-256 of each page when it was fetched (as sha256sum writes them): a kept page
 *                          is used again only when its hash and its 100 rows (the right row_idx, each line as
 *                          json.dumps writes it) check out; otherwise it is fetched again
 * Inside ROOT, nothing is read or written through a symbolic link: a link (or anything but a directory or a regular
 * file) where one of these stands is an error that names it. */
#ifndef WL_TINYSTORIES_H
#define WL_TINYSTORIES_H

#include "wl_core.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define WL_TS_DATASET "roneneldan/TinyStories"
#define WL_TS_REVISION "f54c09fd23315a6f9c86f9dc80f725de7d8f9c64"
#define WL_TS_LICENSE "CDLA-Sharing-1.0"
#define WL_TS_TOTAL_ROWS 2119719       /* rows of the train split at the pinned revision */
#define WL_TS_PAGE_ROWS 100            /* rows per request and per page */
#define WL_TS_OFFSET_SEED 1701         /* random.Random(1701).sample chooses the pages */
#define WL_TS_ATTEMPTS 8               /* tries per request */
#define WL_TS_STALL_S 60.0             /* a request that receives no byte for this long fails (and is tried again) */
#define WL_TS_REQUEST_S 300.0          /* by default, the most one request may take in all (timeout=) */
#define WL_TS_FETCH_S 3600.0           /* by default, the most a whole fetch may take, waits included (deadline=) */
#define WL_TS_RETRY_AFTER_MAX_S 60.0   /* the longest Retry-After obeyed: a server that asks for more gets this */
#define WL_TS_PAGE_MAX ((size_t)64 << 20)  /* the most a kept page's file may hold (a page is about 100 KB) */
#define WL_TS_PAGE_PAUSE_S 0.2         /* between two fetched pages */
#define WL_TS_HUB_BASE "https://huggingface.co"                  /* + /api/datasets/<dataset>: field "sha" */
#define WL_TS_ROWS_BASE "https://datasets-server.huggingface.co" /* + /rows?dataset=...&offset=O&length=100 */
/* SHA-256 of the course's dgx stories.jsonl. */
#define WL_TS_DGX_SHA256 "ecaf3b99879170311c1fcde645251b9793620f1f5bf57159210fb7ab7180a7b3"

/* --- the front end's HTTP GET ----------------------------------------------------------- */

typedef enum wl_http_failure {
    WL_HTTP_TRANSIENT = 1,   /* worth another attempt: refused or reset connection, timeout, broken transfer */
    WL_HTTP_PERMANENT,       /* not: host not found (DNS, no network), TLS failure, bad URL */
    WL_HTTP_INTERRUPTED,     /* the interrupt flag was set during the transfer */
} wl_http_failure;

typedef struct wl_http_reply {
    long status;             /* the HTTP status of a completed exchange */
    char *body;              /* malloc'd (the runtime frees it); may be NULL when len is 0 */
    size_t len;
    char retry_after[64];    /* the Retry-After header's value, "" when absent */
    wl_http_failure failure; /* set when get fails */
} wl_http_reply;

typedef struct wl_http {
    void *ud;
    /* GETs url (sending a User-Agent), giving up when no data arrives for stall_s seconds or when the whole
     * exchange takes more than total_s seconds (both transient failures), and polling *interrupt (may be NULL)
     * during the transfer. Returns 0 with status and body for any completed exchange (whatever its status), or -1
     * with reply->failure set and err saying what happened. */
    int (*get)(void *ud, const char *url, double stall_s, double total_s, volatile sig_atomic_t *interrupt,
               wl_http_reply *reply, wl_err *err);
} wl_http;

/* --- fetching ------------------------------------------------------------------------------ */

typedef enum wl_ts_event_kind {
    WL_TS_EV_REVISION,   /* the Hub confirmed the pinned revision */
    WL_TS_EV_PAGE,       /* one more page is in the cache (fetched, or kept from an interrupted fetch) */
    WL_TS_EV_RETRY,      /* an attempt failed; the next one follows after wait_s */
    WL_TS_EV_REFETCH,    /* a page kept from an earlier fetch failed its checks (why) and is fetched again */
} wl_ts_event_kind;

typedef struct wl_ts_event {
    wl_ts_event_kind kind;
    size_t done, pages;   /* pages in the cache so far, of pages */
    size_t resumed;       /* of those, kept from an earlier fetch */
    const char *url;      /* RETRY: the request */
    const char *why;      /* RETRY: what went wrong ("HTTP 503", "timed out ..."); REFETCH: the page and its fault */
    int attempt;          /* RETRY: the attempt that failed, 1..WL_TS_ATTEMPTS-1 */
    double wait_s;        /* RETRY: seconds before the next attempt (before time_scale) */
    double asked_s;       /* RETRY: the wait the server asked for (Retry-After on 429; 0: none); wait_s obeys it up to
                           * WL_TS_RETRY_AFTER_MAX_S */
} wl_ts_event;

typedef struct wl_ts_config {
    const char *profile;        /* names the cache directory and goes into the manifest */
    size_t stories;             /* the profile's story count: ceil(stories / 100) pages, truncated to stories rows */
    const char *root;           /* the cache root: files go to root/<profile>/ */
    const char *hub_base;       /* WL_TS_HUB_BASE, or a test server's base URL */
    const char *rows_base;      /* WL_TS_ROWS_BASE, or a test server's base URL */
    double time_scale;          /* multiplies every pause and backoff (1; tests make it small) */
    double request_s;           /* the most one request may take (0: WL_TS_REQUEST_S) */
    double fetch_s;             /* the most the fetch may take, from its start (0: WL_TS_FETCH_S) */
    const wl_http *http;        /* NULL: no network (a verified cache still loads) */
    volatile sig_atomic_t *interrupt;
    void (*on_event)(void *ud, const wl_ts_event *e);
    void *ud;
} wl_ts_config;

typedef struct wl_ts_result {
    char path[PATH_MAX];        /* root/<profile>/stories.jsonl */
    char *data;                 /* its bytes as verified (malloc'd: the caller frees them); read these, not path */
    size_t len;
    char sha256[65];            /* its SHA-256, hex */
    int cached;                 /* 1: an existing, verified file was used and nothing was fetched */
    size_t pages, resumed;      /* pages of the subset; kept from an interrupted fetch */
    size_t stories;             /* rows in the file */
    int course_match;           /* -1: the course published no SHA-256 for this profile; else 1 / 0 */
} wl_ts_result;

/* Makes sure root/<profile>/stories.jsonl holds the subset and returns it (res->data) and where it is. A file
 * with a manifest is verified (its SHA-256 against raw_sha256, the revision, the profile) and used without any
 * request; otherwise the Hub must report the pinned revision, then every page not yet in pages/ (or kept there
 * but failing its checks) is fetched (up to WL_TS_ATTEMPTS tries each with backoff min(30, 1.5 * 2^attempt) s,
 * at least Retry-After on 429 up to WL_TS_RETRY_AFTER_MAX_S), checked (not partial, no truncated cell, 100 rows)
 * and kept with its SHA-256; stories.jsonl and the manifest are written atomically when every page is there.
 * Each request ends within request_s, the whole fetch within fetch_s (a wait that would pass it is not begun).
 * Interrupted or past the deadline: -1, the pages fetched so far are kept. */
int wl_ts_fetch(const wl_ts_config *cfg, wl_ts_result *res, wl_err *err);

/* --- the pieces, for tests ------------------------------------------------------------------ */

/* The page offsets of a story count: sorted(random.Random(1701).sample(range(0, 2119719 - 100 + 1, 100),
 * ceil(stories / 100))). *offsets is malloc'd. */
int wl_ts_offsets(size_t stories, uint64_t **offsets, size_t *n, wl_err *err);

/* json.dumps({"row_idx": row_idx, "text": text}, ensure_ascii=False) + "\n" for valid UTF-8 text without
 * NUL: malloc'd, its length in *len; NULL when out of memory. */
char *wl_ts_json_line(long row_idx, const char *text, size_t *len);

#endif

/* kernel_core.h: the Jupyter protocol core: dispatch by msg_type, busy/idle, execution count, history, aborts. */
#ifndef WL_KERNEL_CORE_H
#define WL_KERNEL_CORE_H

#include <stddef.h>

#ifdef __cplusplus
#include <atomic>
using atomic_int = std::atomic_int;   /* what C++23's <stdatomic.h> provides */
extern "C" {
#else
#include <stdatomic.h>
#endif

#include <cJSON.h>

#include "kernel_adapter.h"
#include "kernel_json.h"
#include "kernel_transport.h"

/* One stored cell of this session's history. */
typedef struct wl_hist {
    int line;            /* its execution_count */
    char *input;
    char *output;        /* text/plain of its result, or NULL */
} wl_hist;

typedef struct wl_kernel {
    wl_adapter adapter;
    atomic_int shutdown;                /* set by shutdown_request: the shell loop ends */
    /* Shell thread only: */
    int execution_count;
    wl_hist *hist;
    int nhist, caphist;
    size_t hist_bytes;   /* of every kept input and output */
    int aborting;        /* an execute failed with stop_on_error: abort the executes queued before its reply */
} wl_kernel;

/* The requests one thread serves through its transport. */
typedef struct wl_chan {
    wl_kernel *k;
    const wl_transport *t;
    int is_shell;
} wl_chan;

/* Handles one request: busy, the handler, its reply, idle (on every path). On shell, when an execute fails with
 * stop_on_error, the requests already queued are taken in before its reply goes out; after its idle each
 * execute_request among them is answered "aborted" (the others are handled normally). A request that comes after
 * the error's reply was sent runs. */
void wl_kernel_handle(wl_chan *c, const wl_request *req);

/* One cell run through the adapter with its output published through c (the output layer). */
typedef struct wl_cell {
    int ok;
    cJSON *fields;   /* ok: payload (help for the pager) and user_expressions; error: ename, evalue, traceback */
    cJSON *data;     /* ok with a value, not silent: the execute_result's data; else NULL */
    char *text;      /* ok with a value: its text/plain (malloc'd), for history; else NULL */
} wl_cell;
/* Runs code[0..len) (req: the request the output belongs to). The caller owns and frees the cell's parts. */
void wl_kernel_run(wl_chan *c, const wl_request *req, const char *code, size_t len, int silent, int allow_stdin,
                   const cJSON *user_exprs, wl_cell *cell);

/* Reply contents made from the adapter alone (cursor_pos in code points, negative: the end of the code). */
cJSON *wl_kernel_info_content(const wl_adapter *a);
cJSON *wl_kernel_complete_content(const wl_adapter *a, const char *code, long cursor_pos);
cJSON *wl_kernel_inspect_content(const wl_adapter *a, const char *code, long cursor_pos);
cJSON *wl_kernel_is_complete_content(const wl_adapter *a, const char *code);

/* Publishes a message on IOPub with parent req (content deleted). */
void wl_kernel_publish(wl_chan *c, const wl_request *req, const char *type, cJSON *content);
/* Publishes status busy / idle / starting. */
void wl_kernel_status(wl_chan *c, const wl_request *req, const char *state);

/* History keeps the last WL_HIST_MAX cells, each input cut to WL_HIST_INPUT_MAX bytes (a cell refused for its
 * size too) and each result's text to WL_HIST_OUTPUT_MAX, and drops the oldest to hold at most WL_HIST_TOTAL_MAX
 * bytes in all, so a kernel that runs all day holds a bounded amount. */
#define WL_HIST_MAX 1000
#define WL_HIST_INPUT_MAX (64 * 1024)
#define WL_HIST_OUTPUT_MAX 4096
#define WL_HIST_TOTAL_MAX (8 * 1024 * 1024)
void wl_kernel_history_add(wl_kernel *k, int line, const char *input, const char *output);
void wl_kernel_history_free(wl_kernel *k);
/* The history_reply content for a history_request's content (tail, range or search). */
cJSON *wl_kernel_history_content(const wl_kernel *k, const cJSON *content);

#ifdef __cplusplus
}
#endif

#endif

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

/* One received request as the core sees it; the transport keeps the message itself behind msg. */
typedef struct wl_request {
    const char *type;            /* header.msg_type */
    const cJSON *content;        /* an object */
    const char *raw_content;     /* the content's received bytes (a NUL inside "code" is found there) */
    size_t raw_content_len;
    void *msg;                   /* the transport's own message */
} wl_request;

/* What the core asks of a transport (kernel_zmq.c over libzmq; a mock in tests/unit/kernel). One transport
 * serves one channel (shell or control) and is used by one thread, the flush timer's publishing aside (the
 * output layer serializes it). Every cJSON content passed in is deleted. Each returns 0, or -1 on a
 * socket error (which the transport logs). */
typedef struct wl_transport {
    void *ud;
    const char *name;                   /* "shell", "control": for error messages */
    /* The reply to req on its own channel, to its sender. */
    int (*reply)(void *ud, const wl_request *req, const char *type, cJSON *content);
    /* A message on IOPub with parent req (NULL: none). */
    int (*publish)(void *ud, const wl_request *parent, const char *type, cJSON *content);
    /* Shell only (NULL on control): sends input_request content on stdin to req's sender and waits for its
     * input_reply, asking stop(arg) between waits; 0 with the value in out[cap], -1 when stopped or failed. */
    int (*input)(void *ud, const wl_request *req, cJSON *content, int (*stop)(void *arg), void *arg, char *out,
                 size_t cap);
    /* A request already queued on this channel, without waiting: 1 with *out filled (give it back with
     * release), 0 when there is none. */
    int (*next_queued)(void *ud, wl_request *out);
    void (*release)(void *ud, wl_request *req);
    /* Waits, a bounded time, until someone listens on IOPub (NULL: does not wait). */
    void (*await_listener)(void *ud);
} wl_transport;

/* One stored cell of this session's history. */
typedef struct wl_hist {
    int line;            /* its execution_count */
    char *input;
    char *output;        /* text/plain of its result, or NULL */
} wl_hist;

typedef struct wl_core {
    wl_adapter adapter;
    atomic_int shutdown;                /* set by shutdown_request: the shell loop ends */
    /* Shell thread only: */
    int execution_count;
    wl_hist *hist;
    int nhist, caphist;
    size_t hist_bytes;   /* of every kept input and output */
    int aborting;        /* an execute failed with stop_on_error: abort the queued executes */
} wl_core;

/* The requests one thread serves through its transport. */
typedef struct wl_chan {
    wl_core *k;
    const wl_transport *t;
    int is_shell;
} wl_chan;

/* Handles one request: busy, the handler, its reply, idle (on every path). On shell, after an execute failed
 * with stop_on_error, it then answers every execute_request already queued with "aborted" (other queued
 * requests are handled normally); a request that comes after the error's reply was sent runs. */
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
void wl_kernel_history_add(wl_core *k, int line, const char *input, const char *output);
void wl_kernel_history_free(wl_core *k);
/* The history_reply content for a history_request's content (tail, range or search). */
cJSON *wl_kernel_history_content(const wl_core *k, const cJSON *content);

#ifdef __cplusplus
}
#endif

#endif

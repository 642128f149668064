/* kernel_core.h: the Jupyter protocol core: kernel state, the request dispatch table, busy/idle, history. */
#ifndef WL_KERNEL_CORE_H
#define WL_KERNEL_CORE_H

#include <signal.h>
#include <stdatomic.h>

#include "kernel_wire.h"
#include "wl_lang.h"

/* One stored cell of this session's history. */
typedef struct wl_hist {
    int line;            /* its execution_count */
    char *input;
    char *output;        /* text/plain of its result, or NULL */
} wl_hist;

typedef struct wl_kernel {
    wl_wire wire;
    volatile sig_atomic_t *interrupt;   /* set by SIGINT or interrupt_request; read by the running cell */
    atomic_int shutdown;                /* set by shutdown_request: the shell loop ends */
    atomic_int iopub_subscribers;       /* counted by the IOPub thread */
    /* Shell thread only: */
    wl_interp *interp;
    int execution_count;
    wl_hist *hist;
    int nhist, caphist;
    size_t hist_bytes;   /* of every kept input and output */
    int aborting;        /* an execute failed with stop_on_error: abort the queued executes */
} wl_kernel;

/* The requests one thread serves: its ROUTER socket, its own way into IOPub, and (shell only) stdin. */
typedef struct wl_chan {
    wl_kernel *k;
    wl_port req;
    wl_port iopub;       /* a PUSH into the IOPub forwarder, owned by this thread */
    wl_port *stdin_port; /* NULL on control */
    int is_shell;
} wl_chan;

/* Handles one request: busy, the handler, its reply, idle (on every path). */
void wl_kernel_handle(wl_chan *c, const wl_msg *m);
/* After an execute failed with stop_on_error: answers every execute_request already queued on shell
 * (received by the socket, not yet read) with "aborted"; other requests are handled normally. A request
 * that comes after the error's reply was sent runs. */
void wl_kernel_abort_queue(wl_chan *c);

/* Publishes a message on IOPub with parent m (content deleted). */
void wl_kernel_publish(wl_chan *c, const wl_msg *m, const char *type, cJSON *content);
/* Publishes status busy / idle / starting. */
void wl_kernel_status(wl_chan *c, const wl_msg *m, const char *state);

/* History keeps the last WL_HIST_MAX cells, each input cut to WL_HIST_INPUT_MAX bytes (a cell refused for its
 * size too) and each result's text to WL_HIST_OUTPUT_MAX, and drops the oldest to hold at most WL_HIST_TOTAL_MAX
 * bytes in all, so a kernel that runs all day holds a bounded amount. */
#define WL_HIST_MAX 1000
#define WL_HIST_INPUT_MAX (64 * 1024)
#define WL_HIST_OUTPUT_MAX 4096
#define WL_HIST_TOTAL_MAX (8 * 1024 * 1024)
void wl_kernel_history_add(wl_kernel *k, int line, const char *input, const char *output);
void wl_kernel_history_free(wl_kernel *k);

/* The language adapter (kernel_exec.c): each returns the reply content. */
cJSON *wl_exec_execute(wl_chan *c, const wl_msg *m);
cJSON *wl_exec_complete(wl_chan *c, const wl_msg *m);
cJSON *wl_exec_inspect(wl_chan *c, const wl_msg *m);

/* An error reply content {status: error, ename, evalue, traceback: [evalue]}. */
cJSON *wl_kernel_error_reply(const char *ename, const char *evalue);
/* A field of a request's content: bool (with a default) and integer (with a default). */
int wl_content_bool(const cJSON *content, const char *key, int dflt);
long wl_content_int(const cJSON *content, const char *key, long dflt);

#endif

/* kernel_output.h: one execute's output as IOPub messages: coalesced streams and display updates, a flush timer. */
#ifndef WL_KERNEL_OUTPUT_H
#define WL_KERNEL_OUTPUT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "kernel_transport.h"
#include "wl_buf.h"
#include "wl_lang.h"

/* The sink's state while one execute_request runs. While the cell runs, mu guards everything below it and
 * every publish through the channel's transport: the sink callbacks (shell thread) and the flush timer both
 * publish. */
typedef struct wl_output {
    const wl_transport *t;
    const wl_request *req;
    int silent, allow_stdin;
    volatile sig_atomic_t *interrupted;   /* the sink's interrupt flag; it also ends a wait for input */
    atomic_int *shutdown;                 /* set: a wait for input ends */
    pthread_mutex_t mu;
    pthread_cond_t wake;         /* the flush timer waits on it */
    pthread_t timer;
    int timer_on, done;
    char stream[8];              /* name of the buffered stream ("stdout" / "stderr") */
    wl_buf buf;                  /* its text held back */
    double last_flush;
    cJSON *pending;              /* a throttled update_display_data content, or NULL */
    double last_update;
} wl_output;

/* Starts the output of req through t and fills *sink with callbacks into it (silent: nothing is published;
 * allow_stdin: input goes to the client through the transport; interrupted and shutdown as above). */
void wl_output_begin(wl_output *o, const wl_transport *t, const wl_request *req, int silent, int allow_stdin,
                     volatile sig_atomic_t *interrupted, atomic_int *shutdown, wl_sink *sink);
/* The cell has ended: the timer stops and everything held back goes out. */
void wl_output_end(wl_output *o);

#endif

/* kernel_output.h: one execute's output as IOPub messages: coalesced streams and display updates, a flush timer. */
#ifndef WL_KERNEL_OUTPUT_H
#define WL_KERNEL_OUTPUT_H

#include <pthread.h>

#include "kernel_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The sink's state while one execute_request runs. While the cell runs, mu guards everything below it and
 * every publish through the channel's transport: the sink callbacks (shell thread) and the flush timer both
 * publish. */
typedef struct wl_output {
    wl_chan *c;
    const wl_request *req;
    int silent, allow_stdin;
    pthread_mutex_t mu;
    pthread_cond_t wake;         /* the flush timer waits on it */
    pthread_t timer;
    int timer_on, done;
    char stream[8];              /* name of the buffered stream ("stdout" / "stderr") */
    char *buf;
    size_t len, cap;
    double last_flush;
    cJSON *pending;              /* a throttled update_display_data content, or NULL */
    double last_update;
} wl_output;

/* Starts the output of req on c and fills *sink with callbacks into it (silent: nothing is published;
 * allow_stdin: input goes to the client through the transport). */
void wl_output_begin(wl_output *o, wl_chan *c, const wl_request *req, int silent, int allow_stdin, wl_sink *sink);
/* The cell has ended: the timer stops and everything held back goes out. */
void wl_output_end(wl_output *o);

#ifdef __cplusplus
}
#endif

#endif

/* kernel_output.c: one execute's output as IOPub messages: coalesced streams and display updates, a flush timer. */
#include "kernel_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel_json.h"

#define STREAM_FLUSH_S 0.05      /* coalesce stream writes and display updates for this long */
#define STREAM_MAX (64 * 1024)   /* or until this many bytes are buffered */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A message on IOPub (content deleted); a failure is the transport's to log. */
static void publish(wl_output *o, const char *type, cJSON *content)
{
    o->t->publish(o->t->ud, o->req, type, content);
}

static void flush_stream(wl_output *o)
{
    if (o->buf.len) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "name", o->stream);
        cJSON_AddItemToObject(s, "text", wl_json_visible(o->buf.s, o->buf.len));   /* no raw ESC from data */
        publish(o, "stream", s);
        free(o->buf.s);
        o->buf = (wl_buf){0};
    }
    o->last_flush = now_s();
}

static void flush_update(wl_output *o)
{
    if (!o->pending) return;
    publish(o, "update_display_data", o->pending);
    o->pending = NULL;
    o->last_update = now_s();
}

/* Everything buffered goes out, in order, before any other output. */
static void flush_all(wl_output *o)
{
    flush_stream(o);
    flush_update(o);
}

/* When what is buffered must go out (0: nothing is buffered). */
static double flush_due(const wl_output *o)
{
    double due = o->buf.len ? o->last_flush + STREAM_FLUSH_S : 0;
    double due_update = o->pending ? o->last_update + STREAM_FLUSH_S : 0;
    return !due || (due_update && due_update < due) ? due_update : due;
}

/* The flush timer: text or a display update held back to coalesce goes out STREAM_FLUSH_S after the previous
 * flush even when the cell writes nothing more (a long computation right after a print). */
static void *timer_main(void *arg)
{
    wl_output *o = arg;
    pthread_mutex_lock(&o->mu);
    while (!o->done) {
        double due = flush_due(o);
        if (!due) {
            pthread_cond_wait(&o->wake, &o->mu);
        } else if (now_s() >= due) {
            flush_all(o);
        } else {
            struct timespec ts = {(time_t)due, (long)((due - (double)(time_t)due) * 1e9)};
            pthread_cond_timedwait(&o->wake, &o->mu, &ts);
        }
    }
    pthread_mutex_unlock(&o->mu);
    return NULL;
}

/* Called with mu held after output was held back: starts the flush timer (once per cell) and wakes it.
 * Without a timer thread the output still goes out with the next write or at the end of the cell. */
static void arm_timer(wl_output *o)
{
    if (!o->timer_on) o->timer_on = !pthread_create(&o->timer, NULL, timer_main, o);
    pthread_cond_signal(&o->wake);
}

static void sink_write(void *ud, const char *stream, const char *s, size_t n)
{
    wl_output *o = ud;
    if (o->silent || !n) return;
    pthread_mutex_lock(&o->mu);
    const char *name = stream && !strcmp(stream, "stderr") ? "stderr" : "stdout";
    if (o->buf.len && strcmp(o->stream, name)) flush_stream(o);
    flush_update(o);
    wl_buf_put(&o->buf, s, n);
    snprintf(o->stream, sizeof o->stream, "%s", name);
    if (o->buf.len >= STREAM_MAX || now_s() - o->last_flush >= STREAM_FLUSH_S)
        flush_stream(o);
    else
        arm_timer(o);
    pthread_mutex_unlock(&o->mu);
}

static void sink_display(void *ud, const char *display_id, const wl_mime *bundle, int update)
{
    wl_output *o = ud;
    if (o->silent || !bundle || (update && !display_id)) return;
    cJSON *d = cJSON_CreateObject();
    cJSON_AddItemToObject(d, "data", wl_json_mime(bundle));
    cJSON_AddObjectToObject(d, "metadata");
    if (display_id) cJSON_AddStringToObject(cJSON_AddObjectToObject(d, "transient"), "display_id", display_id);
    pthread_mutex_lock(&o->mu);
    flush_stream(o);
    if (!update) {
        flush_update(o);
        publish(o, "display_data", d);
    } else {
        /* Updates of one display faster than STREAM_FLUSH_S are coalesced: only the latest goes out. */
        if (o->pending) {
            const char *id = wl_json_str(cJSON_GetObjectItemCaseSensitive(o->pending, "transient"), "display_id");
            if (strcmp(id, display_id)) flush_update(o);
        }
        cJSON_Delete(o->pending);
        o->pending = d;
        if (now_s() - o->last_update >= STREAM_FLUSH_S)
            flush_update(o);
        else
            arm_timer(o);
    }
    pthread_mutex_unlock(&o->mu);
}

static void sink_clear(void *ud, int wait)
{
    wl_output *o = ud;
    if (o->silent) return;
    cJSON *d = cJSON_CreateObject();
    cJSON_AddBoolToObject(d, "wait", wait);
    pthread_mutex_lock(&o->mu);
    flush_all(o);
    publish(o, "clear_output", d);
    pthread_mutex_unlock(&o->mu);
}

/* An interrupt or a shutdown ends a wait for input. */
static int input_stop(void *arg)
{
    wl_output *o = arg;
    return *o->interrupted || atomic_load(o->shutdown);
}

/* input_request on stdin to the shell request's sender, then its input_reply (the transport waits). */
static int sink_input(void *ud, const char *prompt, int password, char *out, size_t cap)
{
    wl_output *o = ud;
    const wl_transport *t = o->t;
    if (!o->allow_stdin || !t->input) return -1;
    pthread_mutex_lock(&o->mu);
    flush_all(o);
    pthread_mutex_unlock(&o->mu);
    cJSON *req = cJSON_CreateObject();
    const char *shown = prompt ? prompt : "";
    cJSON_AddItemToObject(req, "prompt", wl_json_visible(shown, strlen(shown)));
    cJSON_AddBoolToObject(req, "password", password);
    return t->input(t->ud, o->req, req, input_stop, o, out, cap);
}

void wl_output_begin(wl_output *o, const wl_transport *t, const wl_request *req, int silent, int allow_stdin,
                     volatile sig_atomic_t *interrupted, atomic_int *shutdown, wl_sink *sink)
{
    memset(o, 0, sizeof *o);
    o->t = t;
    o->req = req;
    o->silent = silent;
    o->allow_stdin = allow_stdin;
    o->interrupted = interrupted;
    o->shutdown = shutdown;
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);   /* the clock of now_s */
    pthread_cond_init(&o->wake, &a);
    pthread_condattr_destroy(&a);
    pthread_mutex_init(&o->mu, NULL);
    o->last_flush = o->last_update = now_s() - 1;
    *sink = (wl_sink){.ud = o,
                      .write = sink_write,
                      .display = sink_display,
                      .clear = sink_clear,
                      .input = sink_input,
                      .interrupt = interrupted};
}

void wl_output_end(wl_output *o)
{
    pthread_mutex_lock(&o->mu);
    o->done = 1;
    pthread_cond_signal(&o->wake);
    pthread_mutex_unlock(&o->mu);
    if (o->timer_on) pthread_join(o->timer, NULL);
    flush_all(o);
    free(o->buf.s);
    pthread_cond_destroy(&o->wake);
    pthread_mutex_destroy(&o->mu);
}

/* kernel_exec.c: the language adapter: execute (with the output sink), complete and inspect for the kernel. */
#include "kernel_core.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STREAM_FLUSH_S 0.05      /* coalesce stream writes and display updates for this long */
#define STREAM_MAX (64 * 1024)   /* or until this many bytes are buffered */
#define INPUT_POLL_MS 100

/* The sink's state while one execute_request runs. While the cell runs, mu guards everything below it and
 * every use of the IOPub port: the sink callbacks (shell thread) and the flush timer both publish. */
typedef struct wl_cell {
    wl_chan *c;
    const wl_msg *m;
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
} wl_cell;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static cJSON *clean_string(const char *s)
{
    char *t = wl_utf8_clean(s, strlen(s));
    cJSON *j = cJSON_CreateString(t ? t : "");
    free(t);
    return j;
}

/* A MIME bundle as the "data" object: text/plain always, and every richer form the value has. */
static cJSON *mime_data(const wl_mime *b)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddItemToObject(d, "text/plain", clean_string(b->text_plain ? b->text_plain : ""));
    if (b->text_html) cJSON_AddItemToObject(d, "text/html", clean_string(b->text_html));
    if (b->image_svg) cJSON_AddItemToObject(d, "image/svg+xml", clean_string(b->image_svg));
    if (b->app_json) {
        cJSON *j = cJSON_Parse(b->app_json);
        if (j) cJSON_AddItemToObject(d, "application/json", j);
    }
    cJSON *vl = b->vegalite ? cJSON_Parse(b->vegalite) : NULL;
    if (vl) cJSON_AddItemToObject(d, "application/vnd.vegalite.v5+json", vl);
    return d;
}

static void flush_stream(wl_cell *cell)
{
    if (cell->len) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "name", cell->stream);
        char *t = wl_utf8_clean(cell->buf, cell->len);
        cJSON_AddStringToObject(s, "text", t ? t : "");
        free(t);
        wl_kernel_publish(cell->c, cell->m, "stream", s);
        cell->len = 0;
    }
    cell->last_flush = now_s();
}

static void flush_update(wl_cell *cell)
{
    if (!cell->pending) return;
    wl_kernel_publish(cell->c, cell->m, "update_display_data", cell->pending);
    cell->pending = NULL;
    cell->last_update = now_s();
}

/* Everything buffered goes out, in order, before any other output. */
static void flush_all(wl_cell *cell)
{
    flush_stream(cell);
    flush_update(cell);
}

/* When what is buffered must go out (0: nothing is buffered). */
static double flush_due(const wl_cell *cell)
{
    double due = cell->len ? cell->last_flush + STREAM_FLUSH_S : 0;
    double due_update = cell->pending ? cell->last_update + STREAM_FLUSH_S : 0;
    return !due || (due_update && due_update < due) ? due_update : due;
}

/* The flush timer: text or a display update held back to coalesce goes out STREAM_FLUSH_S after the previous
 * flush even when the cell writes nothing more (a long computation right after a print). */
static void *timer_main(void *arg)
{
    wl_cell *cell = arg;
    pthread_mutex_lock(&cell->mu);
    while (!cell->done) {
        double due = flush_due(cell);
        if (!due) {
            pthread_cond_wait(&cell->wake, &cell->mu);
        } else if (now_s() >= due) {
            flush_all(cell);
        } else {
            struct timespec ts = {(time_t)due, (long)((due - (double)(time_t)due) * 1e9)};
            pthread_cond_timedwait(&cell->wake, &cell->mu, &ts);
        }
    }
    pthread_mutex_unlock(&cell->mu);
    return NULL;
}

/* Called with mu held after output was held back: starts the flush timer (once per cell) and wakes it.
 * Without a timer thread the output still goes out with the next write or at the end of the cell. */
static void arm_timer(wl_cell *cell)
{
    if (!cell->timer_on) cell->timer_on = !pthread_create(&cell->timer, NULL, timer_main, cell);
    pthread_cond_signal(&cell->wake);
}

static void cell_init(wl_cell *cell)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);   /* the clock of now_s */
    pthread_cond_init(&cell->wake, &a);
    pthread_condattr_destroy(&a);
    pthread_mutex_init(&cell->mu, NULL);
    cell->last_flush = cell->last_update = now_s() - 1;
}

/* The cell has ended: the timer stops and everything buffered goes out. */
static void cell_finish(wl_cell *cell)
{
    pthread_mutex_lock(&cell->mu);
    cell->done = 1;
    pthread_cond_signal(&cell->wake);
    pthread_mutex_unlock(&cell->mu);
    if (cell->timer_on) pthread_join(cell->timer, NULL);
    flush_all(cell);
    free(cell->buf);
    pthread_cond_destroy(&cell->wake);
    pthread_mutex_destroy(&cell->mu);
}

static void sink_write(void *ud, const char *stream, const char *s, size_t n)
{
    wl_cell *cell = ud;
    if (cell->silent || !n) return;
    pthread_mutex_lock(&cell->mu);
    const char *name = stream && !strcmp(stream, "stderr") ? "stderr" : "stdout";
    if (cell->len && strcmp(cell->stream, name)) flush_stream(cell);
    flush_update(cell);
    if (cell->len + n > cell->cap) {
        size_t cap = cell->cap ? cell->cap : 4096;
        while (cap < cell->len + n) cap *= 2;
        char *b = realloc(cell->buf, cap);
        if (!b) {
            pthread_mutex_unlock(&cell->mu);
            return;
        }
        cell->buf = b;
        cell->cap = cap;
    }
    memcpy(cell->buf + cell->len, s, n);
    cell->len += n;
    snprintf(cell->stream, sizeof cell->stream, "%s", name);
    if (cell->len >= STREAM_MAX || now_s() - cell->last_flush >= STREAM_FLUSH_S)
        flush_stream(cell);
    else
        arm_timer(cell);
    pthread_mutex_unlock(&cell->mu);
}

static void sink_display(void *ud, const char *display_id, const wl_mime *bundle, int update)
{
    wl_cell *cell = ud;
    if (cell->silent || !bundle || (update && !display_id)) return;
    cJSON *d = cJSON_CreateObject();
    cJSON_AddItemToObject(d, "data", mime_data(bundle));
    cJSON_AddObjectToObject(d, "metadata");
    if (display_id) cJSON_AddStringToObject(cJSON_AddObjectToObject(d, "transient"), "display_id", display_id);
    pthread_mutex_lock(&cell->mu);
    flush_stream(cell);
    if (!update) {
        flush_update(cell);
        wl_kernel_publish(cell->c, cell->m, "display_data", d);
    } else {
        /* Updates of one display faster than STREAM_FLUSH_S are coalesced: only the latest goes out. */
        if (cell->pending) {
            const char *id = wl_msg_str(cJSON_GetObjectItemCaseSensitive(cell->pending, "transient"), "display_id");
            if (strcmp(id, display_id)) flush_update(cell);
        }
        cJSON_Delete(cell->pending);
        cell->pending = d;
        if (now_s() - cell->last_update >= STREAM_FLUSH_S)
            flush_update(cell);
        else
            arm_timer(cell);
    }
    pthread_mutex_unlock(&cell->mu);
}

static void sink_clear(void *ud, int wait)
{
    wl_cell *cell = ud;
    if (cell->silent) return;
    cJSON *d = cJSON_CreateObject();
    cJSON_AddBoolToObject(d, "wait", wait);
    pthread_mutex_lock(&cell->mu);
    flush_all(cell);
    wl_kernel_publish(cell->c, cell->m, "clear_output", d);
    pthread_mutex_unlock(&cell->mu);
}

/* input_request on stdin with the shell request's routing ids, then waits for input_reply.
 * An interrupt or a shutdown ends the wait. */
static int sink_input(void *ud, const char *prompt, int password, char *out, size_t cap)
{
    wl_cell *cell = ud;
    wl_chan *c = cell->c;
    if (!cell->allow_stdin || !c->stdin_port) return -1;
    pthread_mutex_lock(&cell->mu);
    flush_all(cell);
    pthread_mutex_unlock(&cell->mu);
    cJSON *req = cJSON_CreateObject();
    cJSON_AddItemToObject(req, "prompt", clean_string(prompt ? prompt : ""));
    cJSON_AddBoolToObject(req, "password", password);
    if (wl_wire_send_json(c->stdin_port, cell->m, 1, "input_request", req)) return -1;
    for (;;) {
        if (*c->k->interrupt || atomic_load(&c->k->shutdown)) return -1;
        zmq_pollitem_t it = {c->stdin_port->sock, 0, ZMQ_POLLIN, 0};
        int r = zmq_poll(&it, 1, INPUT_POLL_MS);
        if (r < 0 && errno != EINTR) return -1;
        if (r <= 0) continue;
        wl_msg m;
        if (wl_wire_recv(c->stdin_port, &m, ZMQ_DONTWAIT) != 1) continue;
        int ok = !strcmp(m.type, "input_reply");
        const char *value = wl_msg_str(m.content, "value");
        if (ok) snprintf(out, cap, "%s", value ? value : "");
        wl_msg_free(&m);
        if (ok) return 0;
    }
}

/* A cell that is exactly `?NAME` or `NAME?` opens NAME's help in the pager (a "page" payload). */
static cJSON *pager_payload(wl_kernel *k, const char *code)
{
    char word[256];
    if (!wl_lang_help_request(code, word, sizeof word)) return NULL;
    wl_mime help = {0};
    if (!wl_interp_inspect(k->interp, word, strlen(word), &help)) return NULL;
    cJSON *page = cJSON_CreateObject();
    cJSON_AddStringToObject(page, "source", "page");
    cJSON_AddItemToObject(page, "data", mime_data(&help));
    cJSON_AddNumberToObject(page, "start", 0);
    wl_mime_free(&help);
    cJSON *payload = cJSON_CreateArray();
    cJSON_AddItemToArray(payload, page);
    return payload;
}

/* The error output and reply fields: ename, evalue and a traceback list. The language's traceback
 * names the origin, line and column and shows the line with a caret; without one, a line is made here. */
static void add_error(cJSON *obj, const wl_lang_error *e)
{
    const char *ename = e->ename[0] ? e->ename : "Error";
    cJSON_AddItemToObject(obj, "ename", clean_string(ename));
    cJSON_AddItemToObject(obj, "evalue", clean_string(e->evalue));
    cJSON *tb = cJSON_AddArrayToObject(obj, "traceback");
    for (int i = 0; i < e->ntraceback; i++) {
        char line[WL_ERR_MAX + 64];
        /* The first line (the message) in red, as notebooks show errors. */
        snprintf(line, sizeof line, i ? "%s" : "\x1b[0;31m%s\x1b[0m", e->traceback[i]);
        cJSON_AddItemToArray(tb, clean_string(line));
    }
    if (e->ntraceback) return;
    char line[WL_ERR_MAX + 200];
    if (e->line > 0)
        snprintf(line, sizeof line, "\x1b[0;31m%s\x1b[0m at line %d, column %d: %s", ename, e->line, e->col, e->evalue);
    else
        snprintf(line, sizeof line, "\x1b[0;31m%s\x1b[0m: %s", ename, e->evalue);
    cJSON_AddItemToArray(tb, clean_string(line));
}

/* user_expressions: each is evaluated with no output; its value or its error is returned. */
static cJSON *user_expressions(wl_kernel *k, const cJSON *exprs)
{
    cJSON *out = cJSON_CreateObject();
    const cJSON *e;
    cJSON_ArrayForEach(e, exprs)
    {
        if (!e->string) continue;
        cJSON *r = cJSON_CreateObject();
        wl_sink quiet = {.interrupt = k->interrupt};
        wl_mime value = {0};
        wl_lang_error err = {0};
        if (!cJSON_IsString(e)) {
            cJSON_AddStringToObject(r, "status", "error");
            cJSON_AddStringToObject(r, "ename", "TypeError");
            cJSON_AddStringToObject(r, "evalue", "a user expression must be a string");
            cJSON_AddArrayToObject(r, "traceback");
        } else if (wl_interp_eval(k->interp, e->valuestring, "user_expression", 1, &quiet, &value, &err)) {
            cJSON_AddStringToObject(r, "status", "error");
            add_error(r, &err);
        } else {
            cJSON_AddStringToObject(r, "status", "ok");
            cJSON_AddItemToObject(r, "data", mime_data(&value));
            cJSON_AddObjectToObject(r, "metadata");
        }
        wl_mime_free(&value);
        wl_lang_error_clear(&err);
        cJSON_AddItemToObject(out, e->string, r);
    }
    return out;
}

/* The length of the code, counting up to its first NUL too: cJSON ends the "code" string at a \u0000 (or a raw NUL),
 * so the raw content is scanned for one inside the value of "code"; the NUL then stands at code[strlen(code)]. */
static size_t code_length(const wl_msg *m, const char *code)
{
    const char *s = zmq_msg_data(&m->frames[m->delim + 5]), *end = s + zmq_msg_size(&m->frames[m->delim + 5]);
    for (const char *k = s; (k = memmem(k, (size_t)(end - k), "\"code\"", 6)); k += 6) {
        const char *p = k + 6;
        while (p < end && *p && strchr(" \t\r\n", *p)) p++;
        if (p == end || *p++ != ':') continue;
        while (p < end && *p && strchr(" \t\r\n", *p)) p++;
        if (p == end || *p++ != '"') continue;
        for (; p < end && *p != '"'; p++) {
            if (!*p || (*p == '\\' && end - p >= 6 && !memcmp(p + 1, "u0000", 5))) return strlen(code) + 1;
            if (*p == '\\') p++;
        }
        break;
    }
    return strlen(code);
}

cJSON *wl_exec_execute(wl_chan *c, const wl_msg *m)
{
    wl_kernel *k = c->k;
    const char *code = wl_msg_str(m->content, "code");
    if (!code) {
        cJSON *r = wl_kernel_error_reply("BadRequest", "execute_request needs a \"code\" string.");
        cJSON_AddNumberToObject(r, "execution_count", k->execution_count);
        return r;
    }
    int silent = wl_content_bool(m->content, "silent", 0);
    int store = !silent && wl_content_bool(m->content, "store_history", 1);
    int stop_on_error = wl_content_bool(m->content, "stop_on_error", 1);
    if (store) k->execution_count++;
    int count = k->execution_count;
    if (!silent) {
        cJSON *in = cJSON_CreateObject();
        cJSON_AddStringToObject(in, "code", code);
        cJSON_AddNumberToObject(in, "execution_count", count);
        wl_kernel_publish(c, m, "execute_input", in);
    }
    wl_cell cell = {.c = c, .m = m, .silent = silent, .allow_stdin = wl_content_bool(m->content, "allow_stdin", 0)};
    cell_init(&cell);
    wl_sink sink = {.ud = &cell,
                    .write = sink_write,
                    .display = sink_display,
                    .clear = sink_clear,
                    .input = sink_input,
                    .interrupt = k->interrupt};
    wl_mime result = {0};
    wl_lang_error err = {0};
    cJSON *payload = pager_payload(k, code);
    int rc = payload ? 0 : wl_interp_eval_n(k->interp, code, code_length(m, code), "cell", 1, &sink, &result, &err);
    cell_finish(&cell);
    cJSON *r = cJSON_CreateObject();
    if (rc == 0) {
        if (result.text_plain && !silent) {
            cJSON *res = cJSON_CreateObject();
            cJSON_AddNumberToObject(res, "execution_count", count);
            cJSON_AddItemToObject(res, "data", mime_data(&result));
            cJSON_AddObjectToObject(res, "metadata");
            wl_kernel_publish(c, m, "execute_result", res);
        }
        cJSON_AddStringToObject(r, "status", "ok");
        cJSON_AddNumberToObject(r, "execution_count", count);
        cJSON_AddItemToObject(r, "payload", payload ? payload : cJSON_CreateArray());
        const cJSON *exprs = cJSON_GetObjectItemCaseSensitive(m->content, "user_expressions");
        cJSON_AddItemToObject(r, "user_expressions",
                              cJSON_IsObject(exprs) ? user_expressions(k, exprs) : cJSON_CreateObject());
    } else {
        if (!silent) {
            cJSON *e = cJSON_CreateObject();
            add_error(e, &err);
            wl_kernel_publish(c, m, "error", e);
        }
        cJSON_AddStringToObject(r, "status", "error");
        cJSON_AddNumberToObject(r, "execution_count", count);
        add_error(r, &err);
        if (stop_on_error && !silent) k->aborting = 1;
    }
    if (store) wl_kernel_history_add(k, count, code, rc == 0 ? result.text_plain : NULL);
    wl_mime_free(&result);
    wl_lang_error_clear(&err);
    return r;
}

/* The request's code and its cursor_pos (code points; default: the end) as a byte offset. */
static const char *code_cursor(const wl_msg *m, size_t *cursor)
{
    const char *code = wl_msg_str(m->content, "code");
    if (!code) return NULL;
    size_t len = strlen(code);
    long cp = wl_content_int(m->content, "cursor_pos", -1);
    *cursor = cp < 0 ? len : wl_utf8_byte_offset(code, len, cp);
    return code;
}

cJSON *wl_exec_complete(wl_chan *c, const wl_msg *m)
{
    size_t cursor;
    const char *code = code_cursor(m, &cursor);
    if (!code) return wl_kernel_error_reply("BadRequest", "complete_request needs a \"code\" string.");
    char **matches = NULL;
    size_t start = cursor, end = cursor;
    int n = wl_interp_complete(c->k->interp, code, cursor, &matches, &start, &end);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON *list = cJSON_AddArrayToObject(r, "matches");
    for (int i = 0; i < n; i++) {
        cJSON_AddItemToArray(list, clean_string(matches[i]));
        free(matches[i]);
    }
    free(matches);
    if (start > end || end > strlen(code)) start = end = cursor;
    cJSON_AddNumberToObject(r, "cursor_start", (double)wl_utf8_cp_count(code, start));
    cJSON_AddNumberToObject(r, "cursor_end", (double)wl_utf8_cp_count(code, end));
    cJSON_AddObjectToObject(r, "metadata");
    return r;
}

cJSON *wl_exec_inspect(wl_chan *c, const wl_msg *m)
{
    size_t cursor;
    const char *code = code_cursor(m, &cursor);
    if (!code) return wl_kernel_error_reply("BadRequest", "inspect_request needs a \"code\" string.");
    wl_mime help = {0};
    int found = wl_interp_inspect(c->k->interp, code, cursor, &help);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON_AddBoolToObject(r, "found", found);
    cJSON_AddItemToObject(r, "data", found ? mime_data(&help) : cJSON_CreateObject());
    cJSON_AddObjectToObject(r, "metadata");
    wl_mime_free(&help);
    return r;
}

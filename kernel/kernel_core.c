/* kernel_core.c: the Jupyter protocol core: a dispatch table keyed by msg_type, busy/idle around every request. */
#include "kernel_core.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SESSION_NO 1        /* history is kept per process: it is always session 1 */
#define SUBSCRIBER_WAIT_MS 1000
#define SUBSCRIBER_TICK_MS 2

void wl_kernel_publish(wl_chan *c, const wl_msg *m, const char *type, cJSON *content)
{
    if (wl_wire_send_json(&c->iopub, m, 0, type, content))
        fprintf(stderr, "wordlab kernel: cannot publish %s: %s\n", type, zmq_strerror(errno));
}

void wl_kernel_status(wl_chan *c, const wl_msg *m, const char *state)
{
    char content[64];
    int n = snprintf(content, sizeof content, "{\"execution_state\":\"%s\"}", state);
    if (wl_wire_send(&c->iopub, m, 0, "status", content, (size_t)n))
        fprintf(stderr, "wordlab kernel: cannot publish status: %s\n", zmq_strerror(errno));
}

int wl_content_bool(const cJSON *content, const char *key, int dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(content, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

long wl_content_int(const cJSON *content, const char *key, long dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(content, key);
    if (!cJSON_IsNumber(v) || v->valuedouble != v->valuedouble) return dflt;
    if (v->valuedouble > 1e15) return (long)1e15;
    if (v->valuedouble < -1e15) return (long)-1e15;
    return (long)v->valuedouble;
}

cJSON *wl_kernel_error_reply(const char *ename, const char *evalue)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "error");
    cJSON_AddStringToObject(r, "ename", ename);
    cJSON_AddStringToObject(r, "evalue", evalue);
    cJSON *tb = cJSON_AddArrayToObject(r, "traceback");
    char line[WL_ERR_MAX + 80];
    snprintf(line, sizeof line, "%s: %s", ename, evalue);
    cJSON_AddItemToArray(tb, cJSON_CreateString(line));
    return r;
}

/* ---- requests that need no language state ---- */

/* A client may execute as soon as it has this reply; if nobody listens on IOPub yet, its
 * output would be lost (the slow-joiner problem: jupyter-console waits for the reply only).
 * So the reply waits, a bounded time, for a subscriber. */
static void wait_for_subscriber(wl_kernel *k)
{
    struct timespec tick = {0, SUBSCRIBER_TICK_MS * 1000000L};
    for (int waited = 0; waited < SUBSCRIBER_WAIT_MS && atomic_load(&k->iopub_subscribers) <= 0;
         waited += SUBSCRIBER_TICK_MS)
        nanosleep(&tick, NULL);
}

static cJSON *kernel_info(wl_chan *c, const wl_msg *m)
{
    (void)m;
    wait_for_subscriber(c->k);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON_AddStringToObject(r, "protocol_version", WL_PROTOCOL_VERSION);
    cJSON_AddStringToObject(r, "implementation", "wordlab");
    cJSON_AddStringToObject(r, "implementation_version", WL_VERSION);
    cJSON_AddStringToObject(r, "banner",
                            "wordlab " WL_VERSION ": see how a word-level attention language model works.\n"
                            "Type `help` for the commands, `help CMD` or `?CMD` for one of them.");
    cJSON *li = cJSON_AddObjectToObject(r, "language_info");
    cJSON_AddStringToObject(li, "name", "wordlab");
    cJSON_AddStringToObject(li, "version", WL_VERSION);
    cJSON_AddStringToObject(li, "mimetype", "text/x-wordlab");
    cJSON_AddStringToObject(li, "file_extension", ".wlab");
    cJSON_AddStringToObject(li, "pygments_lexer", "bash");
    cJSON_AddStringToObject(li, "codemirror_mode", "wordlab"); /* the mode of lab/src/mode.ts */
    cJSON_AddStringToObject(li, "nbconvert_exporter", "script");
    cJSON *links = cJSON_AddArrayToObject(r, "help_links");
    cJSON *link = cJSON_CreateObject();
    cJSON_AddStringToObject(link, "text", "wordlab README");
    cJSON_AddStringToObject(link, "url", "file://" WL_SOURCE_DIR "/README.md");
    cJSON_AddItemToArray(links, link);
    return r;
}

static cJSON *is_complete(wl_chan *c, const wl_msg *m)
{
    (void)c;
    const char *code = wl_msg_str(m->content, "code");
    if (!code) return wl_kernel_error_reply("BadRequest", "is_complete_request needs a \"code\" string.");
    const char *status = wl_lang_is_complete(code);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", status);
    if (!strcmp(status, "incomplete")) cJSON_AddStringToObject(r, "indent", "");
    return r;
}

static cJSON *comm_info(wl_chan *c, const wl_msg *m)
{
    (void)c, (void)m;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON_AddObjectToObject(r, "comms");
    return r;
}

/* No comm targets exist: a comm_open is answered by closing the comm. No reply on shell. */
static cJSON *comm_open(wl_chan *c, const wl_msg *m)
{
    const char *id = wl_msg_str(m->content, "comm_id");
    if (!id) return NULL;
    cJSON *close = cJSON_CreateObject();
    cJSON_AddStringToObject(close, "comm_id", id);
    cJSON_AddObjectToObject(close, "data");
    wl_kernel_publish(c, m, "comm_close", close);
    return NULL;
}

static cJSON *no_reply(wl_chan *c, const wl_msg *m)
{
    (void)c, (void)m;
    return NULL;
}

static cJSON *shutdown(wl_chan *c, const wl_msg *m)
{
    int restart = wl_content_bool(m->content, "restart", 0);
    atomic_store(&c->k->shutdown, 1);
    *c->k->interrupt = 1;   /* stop a running cell */
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON_AddBoolToObject(r, "restart", restart);
    return r;
}

static cJSON *interrupt(wl_chan *c, const wl_msg *m)
{
    (void)m;
    *c->k->interrupt = 1;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "ok");
    return r;
}

/* ---- history ---- */

/* A copy of text cut at a UTF-8 character boundary to at most max bytes plus "…". */
static char *hist_cut(const char *text, size_t max)
{
    size_t n = strlen(text);
    if (n <= max) return strdup(text);
    n = max;
    while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80) n--;   /* not inside a character */
    char *s = malloc(n + sizeof "\u2026");
    if (!s) return NULL;
    memcpy(s, text, n);
    memcpy(s + n, "\u2026", sizeof "\u2026");
    return s;
}

static size_t hist_size(const wl_hist *h)
{
    return strlen(h->input) + (h->output ? strlen(h->output) : 0);
}

static void hist_drop_oldest(wl_kernel *k)
{
    k->hist_bytes -= hist_size(&k->hist[0]);
    free(k->hist[0].input);
    free(k->hist[0].output);
    memmove(k->hist, k->hist + 1, (size_t)(k->nhist - 1) * sizeof *k->hist);
    k->nhist--;
}

void wl_kernel_history_add(wl_kernel *k, int line, const char *input, const char *output)
{
    wl_hist h = {line, hist_cut(input, WL_HIST_INPUT_MAX), output ? hist_cut(output, WL_HIST_OUTPUT_MAX) : NULL};
    if (!h.input) {   /* history is best effort */
        free(h.output);
        return;
    }
    size_t size = hist_size(&h);
    while (k->nhist && (k->nhist == WL_HIST_MAX || k->hist_bytes + size > WL_HIST_TOTAL_MAX)) hist_drop_oldest(k);
    if (k->nhist == k->caphist) {
        int cap = k->caphist ? 2 * k->caphist : 64;
        if (cap > WL_HIST_MAX) cap = WL_HIST_MAX;
        wl_hist *more = realloc(k->hist, (size_t)cap * sizeof *more);
        if (!more) {
            free(h.input);
            free(h.output);
            return;
        }
        k->hist = more;
        k->caphist = cap;
    }
    k->hist[k->nhist++] = h;
    k->hist_bytes += size;
}

void wl_kernel_history_free(wl_kernel *k)
{
    for (int i = 0; i < k->nhist; i++) {
        free(k->hist[i].input);
        free(k->hist[i].output);
    }
    free(k->hist);
    k->hist = NULL;
    k->nhist = k->caphist = 0;
    k->hist_bytes = 0;
}

static void hist_entry(cJSON *list, const wl_hist *h, int output)
{
    cJSON *e = cJSON_CreateArray();
    cJSON_AddItemToArray(e, cJSON_CreateNumber(SESSION_NO));
    cJSON_AddItemToArray(e, cJSON_CreateNumber(h->line));
    if (output) {
        cJSON *io = cJSON_CreateArray();
        cJSON_AddItemToArray(io, cJSON_CreateString(h->input));
        cJSON_AddItemToArray(io, h->output ? cJSON_CreateString(h->output) : cJSON_CreateNull());
        cJSON_AddItemToArray(e, io);
    } else {
        cJSON_AddItemToArray(e, cJSON_CreateString(h->input));
    }
    cJSON_AddItemToArray(list, e);
}

/* hist_access_type tail (last n), range (session, [start, stop)), search (glob pattern, last n, unique). */
static cJSON *history(wl_chan *c, const wl_msg *m)
{
    wl_kernel *k = c->k;
    const char *type = wl_msg_str(m->content, "hist_access_type");
    int output = wl_content_bool(m->content, "output", 0);
    long n = wl_content_int(m->content, "n", -1);
    if (!type) type = "tail";
    char *keep = calloc((size_t)k->nhist + 1, 1);   /* which entries the reply lists */
    if (!keep) return wl_kernel_error_reply("MemoryError", "out of memory");
    if (!strcmp(type, "tail")) {
        if (n < 0) n = 10;
        for (int i = k->nhist - 1; i >= 0 && n > 0; i--, n--) keep[i] = 1;
    } else if (!strcmp(type, "range")) {
        long session = wl_content_int(m->content, "session", 0);
        long start = wl_content_int(m->content, "start", 1);
        long stop = wl_content_int(m->content, "stop", -1);
        if (session == 0 || session == SESSION_NO)
            for (int i = 0; i < k->nhist; i++)
                keep[i] = k->hist[i].line >= start && (stop < 0 || k->hist[i].line < stop);
    } else if (!strcmp(type, "search")) {
        const char *pattern = wl_msg_str(m->content, "pattern");
        int unique = wl_content_bool(m->content, "unique", 0);
        if (!pattern) pattern = "*";
        long left = n < 0 ? k->nhist : n;
        for (int i = k->nhist - 1; i >= 0 && left > 0; i--) {
            if (fnmatch(pattern, k->hist[i].input, 0)) continue;
            int dup = 0;
            for (int j = i + 1; unique && !dup && j < k->nhist; j++)
                dup = keep[j] && !strcmp(k->hist[j].input, k->hist[i].input);
            if (dup) continue;
            keep[i] = 1;
            left--;
        }
    } else {
        free(keep);
        return wl_kernel_error_reply("BadRequest", "hist_access_type must be tail, range or search.");
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON *list = cJSON_AddArrayToObject(r, "history");
    for (int i = 0; i < k->nhist; i++)
        if (keep[i]) hist_entry(list, &k->hist[i], output);
    free(keep);
    return r;
}

/* ---- dispatch ---- */

enum { ON_SHELL = 1, ON_CONTROL = 2 };

typedef struct wl_handler {
    const char *type;
    cJSON *(*fn)(wl_chan *c, const wl_msg *m);   /* returns the reply content, or NULL: no reply */
    int where;
} wl_handler;

/* Control never touches the interpreter (it runs while a cell runs on shell). */
static const wl_handler HANDLERS[] = {
    {"kernel_info_request", kernel_info, ON_SHELL | ON_CONTROL},
    {"execute_request", wl_exec_execute, ON_SHELL},
    {"complete_request", wl_exec_complete, ON_SHELL},
    {"inspect_request", wl_exec_inspect, ON_SHELL},
    {"is_complete_request", is_complete, ON_SHELL | ON_CONTROL},
    {"history_request", history, ON_SHELL},
    {"comm_info_request", comm_info, ON_SHELL | ON_CONTROL},
    {"comm_open", comm_open, ON_SHELL},
    {"comm_msg", no_reply, ON_SHELL},
    {"comm_close", no_reply, ON_SHELL},
    {"shutdown_request", shutdown, ON_SHELL | ON_CONTROL},
    {"interrupt_request", interrupt, ON_CONTROL},
};

/* "x_request" -> a malloc'd "x_reply"; NULL when type is not a request (or out of memory). */
static char *reply_type(const char *type)
{
    size_t n = strlen(type);
    if (n < 8 || strcmp(type + n - 8, "_request")) return NULL;
    char *out = malloc(n);   /* "_reply" is two bytes shorter than "_request": room for the NUL */
    if (out) snprintf(out, n, "%.*s_reply", (int)(n - 8), type);
    return out;
}

void wl_kernel_handle(wl_chan *c, const wl_msg *m)
{
    const wl_handler *h = NULL;
    for (size_t i = 0; i < sizeof HANDLERS / sizeof HANDLERS[0]; i++)
        if (!strcmp(HANDLERS[i].type, m->type)) h = &HANDLERS[i];
    /* An interrupt that comes once the client can see this execute is busy is this execute's. */
    if (h && h->fn == wl_exec_execute && c->is_shell) *c->k->interrupt = 0;
    wl_kernel_status(c, m, "busy");
    char *rtype = reply_type(m->type);
    cJSON *reply = NULL;
    if (h && (h->where & (c->is_shell ? ON_SHELL : ON_CONTROL))) {
        reply = h->fn(c, m);
    } else if (rtype) {
        char why[300];   /* a long msg_type is cut here, and only here */
        snprintf(why, sizeof why, "%.200s is not handled on the %s channel.", m->type, c->req.name);
        char *text = wl_utf8_clean(why, strlen(why));   /* the client's bytes, perhaps cut inside a character */
        reply = wl_kernel_error_reply(h ? "WrongChannel" : "UnknownMessageType", text ? text : "");
        fprintf(stderr, "wordlab kernel: %s\n", text ? text : why);
        free(text);
    }
    if (reply && rtype && wl_wire_send_json(&c->req, m, 1, rtype, reply))
        fprintf(stderr, "wordlab kernel: cannot send %.200s: %s\n", rtype, zmq_strerror(errno));
    else if (reply && !rtype)
        cJSON_Delete(reply);
    free(rtype);
    wl_kernel_status(c, m, "idle");
}

void wl_kernel_abort_queue(wl_chan *c)
{
    c->k->aborting = 0;
    for (;;) {
        wl_msg m;
        int r = wl_wire_recv(&c->req, &m, ZMQ_DONTWAIT);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return;   /* EAGAIN: nothing else was queued */
        if (r == 0) continue;
        if (!strcmp(m.type, "execute_request")) {
            wl_kernel_status(c, &m, "busy");
            cJSON *r = cJSON_CreateObject();
            cJSON_AddStringToObject(r, "status", "aborted");
            cJSON_AddNumberToObject(r, "execution_count", c->k->execution_count);
            if (wl_wire_send_json(&c->req, &m, 1, "execute_reply", r))
                fprintf(stderr, "wordlab kernel: cannot send execute_reply: %s\n", zmq_strerror(errno));
            wl_kernel_status(c, &m, "idle");
        } else {
            wl_kernel_handle(c, &m);
        }
        wl_msg_free(&m);
    }
}

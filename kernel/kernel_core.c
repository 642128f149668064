/* kernel_core.c: the Jupyter protocol core: a dispatch table keyed by msg_type, busy/idle around every request. */
#include "kernel_core.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_output.h"
#include "wl_utf8.h"

#define SESSION_NO 1        /* history is kept per process: it is always session 1 */

void wl_kernel_publish(wl_chan *c, const wl_request *req, const char *type, cJSON *content)
{
    c->t->publish(c->t->ud, req, type, content);   /* a failure is the transport's to log */
}

void wl_kernel_status(wl_chan *c, const wl_request *req, const char *state)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "execution_state", state);
    wl_kernel_publish(c, req, "status", s);
}

/* ---- requests that need no language state ---- */

/* A client may execute as soon as it has this reply; if nobody listens on IOPub yet, its output would be lost
 * (the slow-joiner problem: jupyter-console waits for the reply only). So the transport may wait for a listener. */
cJSON *wl_kernel_info_content(const wl_adapter *a)
{
    wl_kernel_info info;
    a->kernel_info(a->self, &info);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON_AddStringToObject(r, "protocol_version", WL_PROTOCOL_VERSION);
    cJSON_AddStringToObject(r, "implementation", info.implementation);
    cJSON_AddStringToObject(r, "implementation_version", info.implementation_version);
    cJSON_AddStringToObject(r, "banner", info.banner);
    cJSON *li = cJSON_AddObjectToObject(r, "language_info");
    cJSON_AddStringToObject(li, "name", info.language);
    cJSON_AddStringToObject(li, "version", info.language_version);
    cJSON_AddStringToObject(li, "mimetype", info.mimetype);
    cJSON_AddStringToObject(li, "file_extension", info.file_extension);
    cJSON_AddStringToObject(li, "pygments_lexer", info.pygments_lexer);
    cJSON_AddStringToObject(li, "codemirror_mode", info.codemirror_mode);
    cJSON_AddStringToObject(li, "nbconvert_exporter", info.nbconvert_exporter);
    cJSON *links = cJSON_AddArrayToObject(r, "help_links");
    cJSON *link = cJSON_CreateObject();
    cJSON_AddStringToObject(link, "text", info.help_text);
    cJSON_AddStringToObject(link, "url", info.help_url);
    cJSON_AddItemToArray(links, link);
    return r;
}

static cJSON *kernel_info(wl_chan *c, const wl_request *req)
{
    (void)req;
    if (c->t->await_listener) c->t->await_listener(c->t->ud);
    return wl_kernel_info_content(&c->k->adapter);
}

cJSON *wl_kernel_is_complete_content(const wl_adapter *a, const char *code)
{
    const char *status = a->is_complete(a->self, code);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", status);
    if (!strcmp(status, "incomplete")) cJSON_AddStringToObject(r, "indent", "");
    return r;
}

static cJSON *is_complete(wl_chan *c, const wl_request *req)
{
    const char *code = wl_json_str(req->content, "code");
    if (!code) return wl_json_error_reply("BadRequest", "is_complete_request needs a \"code\" string.");
    return wl_kernel_is_complete_content(&c->k->adapter, code);
}

static cJSON *comm_info(wl_chan *c, const wl_request *req)
{
    (void)c, (void)req;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON_AddObjectToObject(r, "comms");
    return r;
}

/* No comm targets exist: a comm_open is answered by closing the comm. No reply on shell. */
static cJSON *comm_open(wl_chan *c, const wl_request *req)
{
    const char *id = wl_json_str(req->content, "comm_id");
    if (!id) return NULL;
    cJSON *close = cJSON_CreateObject();
    cJSON_AddStringToObject(close, "comm_id", id);
    cJSON_AddObjectToObject(close, "data");
    wl_kernel_publish(c, req, "comm_close", close);
    return NULL;
}

static cJSON *no_reply(wl_chan *c, const wl_request *req)
{
    (void)c, (void)req;
    return NULL;
}

static cJSON *shutdown(wl_chan *c, const wl_request *req)
{
    int restart = wl_json_bool(req->content, "restart", 0);
    c->k->adapter.interrupt(c->k->adapter.self, 1);   /* stop a running cell */
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON_AddBoolToObject(r, "restart", restart);
    return r;
}

static cJSON *interrupt(wl_chan *c, const wl_request *req)
{
    (void)req;
    c->k->adapter.interrupt(c->k->adapter.self, 1);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "ok");
    return r;
}

/* ---- history ---- */

/* A copy of text cut at a UTF-8 character boundary to at most max bytes plus "…". */
static char *hist_cut(const char *text, size_t max)
{
    size_t len = strlen(text), n = 0;
    if (len <= max) return strdup(text);
    for (;;) {   /* whole characters while they fit (a byte that is not UTF-8 counts as one) */
        size_t k = wl_utf8_next(text + n, len - n, NULL);
        if (!k) k = 1;
        if (n + k > max) break;
        n += k;
    }
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
cJSON *wl_kernel_history_content(const wl_kernel *k, const cJSON *content)
{
    const char *type = wl_json_str(content, "hist_access_type");
    int output = wl_json_bool(content, "output", 0);
    long n = wl_json_int(content, "n", -1);
    if (!type) type = "tail";
    char *keep = calloc((size_t)k->nhist + 1, 1);   /* which entries the reply lists */
    if (!keep) return wl_json_error_reply("MemoryError", "out of memory");
    if (!strcmp(type, "tail")) {
        if (n < 0) n = 10;
        for (int i = k->nhist - 1; i >= 0 && n > 0; i--, n--) keep[i] = 1;
    } else if (!strcmp(type, "range")) {
        long session = wl_json_int(content, "session", 0);
        long start = wl_json_int(content, "start", 1);
        long stop = wl_json_int(content, "stop", -1);
        if (session == 0 || session == SESSION_NO)
            for (int i = 0; i < k->nhist; i++)
                keep[i] = k->hist[i].line >= start && (stop < 0 || k->hist[i].line < stop);
    } else if (!strcmp(type, "search")) {
        const char *pattern = wl_json_str(content, "pattern");
        int unique = wl_json_bool(content, "unique", 0);
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
        return wl_json_error_reply("BadRequest", "hist_access_type must be tail, range or search.");
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON *list = cJSON_AddArrayToObject(r, "history");
    for (int i = 0; i < k->nhist; i++)
        if (keep[i]) hist_entry(list, &k->hist[i], output);
    free(keep);
    return r;
}

static cJSON *history(wl_chan *c, const wl_request *req)
{
    return wl_kernel_history_content(c->k, req->content);
}

/* ---- execute, complete, inspect: the language through its adapter ---- */

/* user_expressions: each is run with no output; its value or its error is returned. */
static cJSON *user_expressions(const wl_adapter *a, const cJSON *exprs)
{
    cJSON *out = cJSON_CreateObject();
    const cJSON *e;
    cJSON_ArrayForEach(e, exprs)
    {
        if (!e->string) continue;
        cJSON *r = cJSON_CreateObject();
        wl_sink quiet = {.interrupt = a->interrupted};
        wl_mime value = {0};
        wl_lang_error err = {0};
        if (!cJSON_IsString(e)) {
            cJSON_AddStringToObject(r, "status", "error");
            cJSON_AddStringToObject(r, "ename", "TypeError");
            cJSON_AddStringToObject(r, "evalue", "a user expression must be a string");
            cJSON_AddArrayToObject(r, "traceback");
        } else if (a->execute(a->self, e->valuestring, strlen(e->valuestring), &quiet, &value, NULL, &err)) {
            cJSON_AddStringToObject(r, "status", "error");
            wl_json_error(r, &err);
        } else {
            cJSON_AddStringToObject(r, "status", "ok");
            cJSON_AddItemToObject(r, "data", wl_json_mime(&value));
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
static size_t code_length(const wl_request *req, const char *code)
{
    const char *s = req->raw_content, *end = s + req->raw_content_len;
    for (const char *k = s; s && (k = memmem(k, (size_t)(end - k), "\"code\"", 6)); k += 6) {
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

/* A "page" payload that shows help in the pager. */
static cJSON *page_payload(const wl_mime *help)
{
    cJSON *page = cJSON_CreateObject();
    cJSON_AddStringToObject(page, "source", "page");
    cJSON_AddItemToObject(page, "data", wl_json_mime(help));
    cJSON_AddNumberToObject(page, "start", 0);
    cJSON *payload = cJSON_CreateArray();
    cJSON_AddItemToArray(payload, page);
    return payload;
}

void wl_kernel_run(wl_chan *c, const wl_request *req, const char *code, size_t len, int silent, int allow_stdin,
                   const cJSON *user_exprs, wl_cell *cell)
{
    const wl_adapter *a = &c->k->adapter;
    wl_output out;
    wl_sink sink;
    wl_output_begin(&out, c->t, req, silent, allow_stdin, a->interrupted, &c->k->shutdown, &sink);
    wl_mime result = {0}, page = {0};
    wl_lang_error err = {0};
    int rc = a->execute(a->self, code, len, &sink, &result, &page, &err);
    wl_output_end(&out);
    *cell = (wl_cell){.ok = rc == 0};
    if (rc == 0) {
        cell->fields = cJSON_CreateObject();
        cJSON_AddItemToObject(cell->fields, "payload", page.text_plain ? page_payload(&page) : cJSON_CreateArray());
        cJSON_AddItemToObject(cell->fields, "user_expressions",
                              cJSON_IsObject(user_exprs) ? user_expressions(a, user_exprs) : cJSON_CreateObject());
        if (result.text_plain && !silent) cell->data = wl_json_mime(&result);
        cell->text = result.text_plain;
        result.text_plain = NULL;
    } else {
        cell->fields = cJSON_CreateObject();
        wl_json_error(cell->fields, &err);
    }
    wl_mime_free(&result);
    wl_mime_free(&page);
    wl_lang_error_clear(&err);
}

/* execute_input, the cell, execute_result or error, the reply; the execution count, history and the
 * stop_on_error abort are kept here. */
static cJSON *execute(wl_chan *c, const wl_request *req)
{
    wl_kernel *k = c->k;
    const char *code = wl_json_str(req->content, "code");
    if (!code) {
        cJSON *r = wl_json_error_reply("BadRequest", "execute_request needs a \"code\" string.");
        cJSON_AddNumberToObject(r, "execution_count", k->execution_count);
        return r;
    }
    int silent = wl_json_bool(req->content, "silent", 0);
    int store = !silent && wl_json_bool(req->content, "store_history", 1);
    int stop_on_error = wl_json_bool(req->content, "stop_on_error", 1);
    if (store) k->execution_count++;
    int count = k->execution_count;
    if (!silent) {
        cJSON *in = cJSON_CreateObject();
        cJSON_AddStringToObject(in, "code", code);
        cJSON_AddNumberToObject(in, "execution_count", count);
        wl_kernel_publish(c, req, "execute_input", in);
    }
    wl_cell cell;
    wl_kernel_run(c, req, code, code_length(req, code), silent, wl_json_bool(req->content, "allow_stdin", 0),
                  cJSON_GetObjectItemCaseSensitive(req->content, "user_expressions"), &cell);
    if (cell.data) {
        cJSON *res = cJSON_CreateObject();
        cJSON_AddNumberToObject(res, "execution_count", count);
        cJSON_AddItemToObject(res, "data", cell.data);
        cJSON_AddObjectToObject(res, "metadata");
        wl_kernel_publish(c, req, "execute_result", res);
    }
    if (!cell.ok && !silent) wl_kernel_publish(c, req, "error", cJSON_Duplicate(cell.fields, 1));
    if (!cell.ok && !silent && stop_on_error) k->aborting = 1;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", cell.ok ? "ok" : "error");
    cJSON_AddNumberToObject(r, "execution_count", count);
    while (cell.fields->child) {
        cJSON *f = cJSON_DetachItemViaPointer(cell.fields, cell.fields->child);
        cJSON_AddItemToObject(r, f->string, f);
    }
    cJSON_Delete(cell.fields);
    if (store) wl_kernel_history_add(k, count, code, cell.text);
    free(cell.text);
    return r;
}

/* A cursor_pos (code points; negative: the end) as a byte offset into code. */
static size_t code_cursor(const char *code, long cursor_pos)
{
    size_t len = strlen(code);
    return cursor_pos < 0 ? len : wl_utf8_byte_offset(code, len, cursor_pos);
}

cJSON *wl_kernel_complete_content(const wl_adapter *a, const char *code, long cursor_pos)
{
    size_t cursor = code_cursor(code, cursor_pos);
    char **matches = NULL;
    size_t start = cursor, end = cursor;
    int n = a->complete(a->self, code, cursor, &matches, &start, &end);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON *list = cJSON_AddArrayToObject(r, "matches");
    for (int i = 0; i < n; i++) {
        cJSON_AddItemToArray(list, wl_json_string(matches[i]));
        free(matches[i]);
    }
    free(matches);
    if (start > end || end > strlen(code)) start = end = cursor;
    cJSON_AddNumberToObject(r, "cursor_start", (double)wl_utf8_cp_count(code, start));
    cJSON_AddNumberToObject(r, "cursor_end", (double)wl_utf8_cp_count(code, end));
    cJSON_AddObjectToObject(r, "metadata");
    return r;
}

cJSON *wl_kernel_inspect_content(const wl_adapter *a, const char *code, long cursor_pos)
{
    wl_mime help = {0};
    int found = a->inspect(a->self, code, code_cursor(code, cursor_pos), &help);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON_AddBoolToObject(r, "found", found);
    cJSON_AddItemToObject(r, "data", found ? wl_json_mime(&help) : cJSON_CreateObject());
    cJSON_AddObjectToObject(r, "metadata");
    wl_mime_free(&help);
    return r;
}

static cJSON *complete(wl_chan *c, const wl_request *req)
{
    const char *code = wl_json_str(req->content, "code");
    if (!code) return wl_json_error_reply("BadRequest", "complete_request needs a \"code\" string.");
    return wl_kernel_complete_content(&c->k->adapter, code, wl_json_int(req->content, "cursor_pos", -1));
}

static cJSON *inspect(wl_chan *c, const wl_request *req)
{
    const char *code = wl_json_str(req->content, "code");
    if (!code) return wl_json_error_reply("BadRequest", "inspect_request needs a \"code\" string.");
    return wl_kernel_inspect_content(&c->k->adapter, code, wl_json_int(req->content, "cursor_pos", -1));
}

/* ---- dispatch ---- */

enum { ON_SHELL = 1, ON_CONTROL = 2 };

typedef struct wl_handler {
    const char *type;
    cJSON *(*fn)(wl_chan *c, const wl_request *req);   /* returns the reply content, or NULL: no reply */
    int where;
} wl_handler;

/* Control never touches the interpreter (it runs while a cell runs on shell). */
static const wl_handler HANDLERS[] = {
    {"kernel_info_request", kernel_info, ON_SHELL | ON_CONTROL},
    {"execute_request", execute, ON_SHELL},
    {"complete_request", complete, ON_SHELL},
    {"inspect_request", inspect, ON_SHELL},
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

/* The requests queued on shell when an execute failed with stop_on_error, taken in before its reply goes out: a
 * request the client sends once it has seen the error is never among them (it runs). */
typedef struct wl_held {
    wl_request *req;
    size_t n, cap;
} wl_held;

static void handle_one(wl_chan *c, const wl_request *req, wl_held *held);

/* A request queued behind a failed execute: an execute is answered "aborted", with its own busy and idle; another
 * request is handled normally. Releases it. */
static void abort_one(wl_chan *c, wl_request *q)
{
    if (!strcmp(q->type, "execute_request")) {
        wl_kernel_status(c, q, "busy");
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "status", "aborted");
        cJSON_AddNumberToObject(r, "execution_count", c->k->execution_count);
        c->t->reply(c->t->ud, q, "execute_reply", r);
        wl_kernel_status(c, q, "idle");
    } else {
        handle_one(c, q, NULL);
    }
    c->t->release(c->t->ud, q);
}

/* Takes every request already queued into held. Out of memory, a request that does not fit is dealt with at once
 * (its reply then comes before the failed execute's). */
static void hold_queue(wl_chan *c, wl_held *held)
{
    wl_request q;
    while (c->t->next_queued && c->t->next_queued(c->t->ud, &q) == 1) {
        if (held->n == held->cap) {
            size_t cap = held->cap ? 2 * held->cap : 16;
            wl_request *more = realloc(held->req, cap * sizeof *more);
            if (!more) {
                abort_one(c, &q);
                continue;
            }
            held->req = more;
            held->cap = cap;
        }
        held->req[held->n++] = q;
    }
}

/* One request: busy, the handler, its reply, idle. With held (shell's own requests), an execute that fails with
 * stop_on_error takes the queued requests into it before its reply. */
static void handle_one(wl_chan *c, const wl_request *req, wl_held *held)
{
    const wl_handler *h = NULL;
    for (size_t i = 0; i < sizeof HANDLERS / sizeof HANDLERS[0]; i++)
        if (!strcmp(HANDLERS[i].type, req->type)) h = &HANDLERS[i];
    /* An interrupt that comes once the client can see this execute is busy is this execute's. */
    if (h && h->fn == execute && c->is_shell) c->k->adapter.interrupt(c->k->adapter.self, 0);
    wl_kernel_status(c, req, "busy");
    char *rtype = reply_type(req->type);
    cJSON *reply = NULL;
    if (h && (h->where & (c->is_shell ? ON_SHELL : ON_CONTROL))) {
        reply = h->fn(c, req);
    } else if (rtype) {
        char why[300];   /* a long msg_type is cut here, and only here */
        snprintf(why, sizeof why, "%.200s is not handled on the %s channel.", req->type, c->t->name);
        char *text = wl_utf8_clean(why, strlen(why));   /* the client's bytes, perhaps cut inside a character */
        reply = wl_json_error_reply(h ? "WrongChannel" : "UnknownMessageType", text ? text : "");
        fprintf(stderr, "wordlab kernel: %s\n", text ? text : why);
        free(text);
    }
    if (held && c->k->aborting) hold_queue(c, held);
    if (reply && rtype)
        c->t->reply(c->t->ud, req, rtype, reply);
    else if (reply)
        cJSON_Delete(reply);
    free(rtype);
    wl_kernel_status(c, req, "idle");
    /* Only now, with the reply and idle sent: once the flag is up the shell loop may end and the kernel close. */
    if (h && h->fn == shutdown && reply) atomic_store(&c->k->shutdown, 1);
}

void wl_kernel_handle(wl_chan *c, const wl_request *req)
{
    if (!c->is_shell) {   /* control: aborting is shell's */
        handle_one(c, req, NULL);
        return;
    }
    wl_held held = {0};
    handle_one(c, req, &held);
    c->k->aborting = 0;
    for (size_t i = 0; i < held.n; i++) abort_one(c, &held.req[i]);
    free(held.req);
}

/* test_core.c: the kernel's protocol core driven by a mock adapter and a mock transport (no sockets): busy/idle
 * ordering, execution count, stop_on_error aborting only the queued requests, history, errors, stdin. */
#include "kernel_core.h"
#include "wl_test.h"

#include <stdlib.h>
#include <string.h>

/* ---- the mock transport: every message sent, in order, as "CHANNEL TYPE CONTENT" ---- */

#define MAX_SENT 256
#define MAX_QUEUED 8

typedef struct mock_transport {
    char *sent[MAX_SENT];
    int nsent;
    cJSON *queued[MAX_QUEUED][2];   /* header-less requests waiting on the channel: {type string, content} */
    int nqueued, next;
    const char *answer;             /* what the user types at an input_request */
} mock_transport;

static void record(mock_transport *m, const char *channel, const char *type, cJSON *content)
{
    char *json = cJSON_PrintUnformatted(content);
    size_t n = strlen(channel) + strlen(type) + strlen(json) + 3;
    char *line = malloc(n);
    snprintf(line, n, "%s %s %s", channel, type, json);
    if (m->nsent < MAX_SENT) m->sent[m->nsent++] = line;
    else free(line);
    cJSON_free(json);
    cJSON_Delete(content);
}

static int mock_reply(void *ud, const wl_request *req, const char *type, cJSON *content)
{
    (void)req;
    record(ud, "reply", type, content);
    return 0;
}

static int mock_publish(void *ud, const wl_request *parent, const char *type, cJSON *content)
{
    (void)parent;
    record(ud, "iopub", type, content);
    return 0;
}

static int mock_input(void *ud, const wl_request *req, cJSON *content, int (*stop)(void *arg), void *arg, char *out,
                      size_t cap)
{
    (void)req;
    mock_transport *m = ud;
    record(m, "stdin", "input_request", content);
    if (stop(arg)) return -1;
    snprintf(out, cap, "%s", m->answer);
    return 0;
}

static int mock_next(void *ud, wl_request *out)
{
    mock_transport *m = ud;
    if (m->next == m->nqueued) return 0;
    cJSON **q = m->queued[m->next++];
    record(m, "take", q[0]->valuestring, cJSON_CreateObject());
    *out = (wl_request){.type = q[0]->valuestring, .content = q[1]};
    return 1;
}

static void mock_release(void *ud, wl_request *req)
{
    (void)ud, (void)req;
}

static void queue(mock_transport *m, const char *type, const char *content)
{
    m->queued[m->nqueued][0] = cJSON_CreateString(type);
    m->queued[m->nqueued][1] = cJSON_Parse(content);
    m->nqueued++;
}

static void mock_reset(mock_transport *m)
{
    for (int i = 0; i < m->nsent; i++) free(m->sent[i]);
    for (int i = 0; i < m->nqueued; i++) {
        cJSON_Delete(m->queued[i][0]);
        cJSON_Delete(m->queued[i][1]);
    }
    memset(m, 0, sizeof *m);
}

/* ---- the mock adapter: "print TEXT", "value TEXT", "ask [PROMPT]", help for "?NAME"; anything else fails (its
 * message TEXT for "fail TEXT") ---- */

typedef struct mock_lang {
    int executed;             /* how many cells ran */
    int interrupt_calls;
} mock_lang;

static volatile sig_atomic_t flag;

static int mock_execute(void *self, const char *code, size_t len, const wl_sink *sink, wl_mime *result,
                        wl_mime *page, wl_lang_error *err)
{
    mock_lang *l = self;
    (void)len;
    if (page && code[0] == '?') {
        page->text_plain = strdup("help page");
        return 0;
    }
    l->executed++;
    if (!strncmp(code, "print ", 6)) {
        sink->write(sink->ud, "stdout", code + 6, strlen(code + 6));
    } else if (!strncmp(code, "value ", 6)) {
        result->text_plain = strdup(code + 6);
    } else if (!strncmp(code, "ask", 3) && (!code[3] || code[3] == ' ')) {
        char line[64];
        if (sink->input(sink->ud, code[3] ? code + 4 : "name? ", 0, line, sizeof line)) return -1;
        result->text_plain = strdup(line);
    } else {
        snprintf(err->ename, sizeof err->ename, "RuntimeError");
        snprintf(err->evalue, sizeof err->evalue, "%s", strncmp(code, "fail ", 5) ? "boom" : code + 5);
        return -1;
    }
    return 0;
}

static int mock_complete(void *self, const char *code, size_t cursor, char ***matches, size_t *start, size_t *end)
{
    (void)self, (void)code;
    *matches = malloc(sizeof **matches);
    (*matches)[0] = strdup("tokenize");
    *start = 0;
    *end = cursor;
    return 1;
}

static int mock_inspect(void *self, const char *code, size_t cursor, wl_mime *out)
{
    (void)self, (void)cursor;
    if (strcmp(code, "help")) return 0;
    out->text_plain = strdup("help: lists the commands");
    return 1;
}

static const char *mock_is_complete(void *self, const char *code)
{
    (void)self;
    return strchr(code, '"') ? "incomplete" : "complete";
}

static void mock_interrupt(void *self, int requested)
{
    ((mock_lang *)self)->interrupt_calls++;
    flag = requested;
}

static void mock_info(void *self, wl_kernel_info *info)
{
    (void)self;
    *info = (wl_kernel_info){"mock", "1", "banner", "mocklang", "1", "text/x-mock", ".mock",
                             "text", "text", "script", "help", "file:///help"};
}

typedef struct fixture {
    mock_lang lang;
    mock_transport t;
    wl_transport tr, tr_control;
    wl_kernel k;
    wl_chan shell, control;
} fixture;

static void setup(fixture *f)
{
    memset(f, 0, sizeof *f);
    flag = 0;
    f->tr = (wl_transport){.ud = &f->t, .name = "shell", .reply = mock_reply, .publish = mock_publish,
                           .input = mock_input, .next_queued = mock_next, .release = mock_release};
    f->tr_control = f->tr;
    f->tr_control.name = "control";
    f->tr_control.input = NULL;
    f->k.adapter = (wl_adapter){.self = &f->lang, .execute = mock_execute, .complete = mock_complete,
                                .inspect = mock_inspect, .is_complete = mock_is_complete,
                                .interrupt = mock_interrupt, .kernel_info = mock_info, .interrupted = &flag};
    f->shell = (wl_chan){.k = &f->k, .t = &f->tr, .is_shell = 1};
    f->control = (wl_chan){.k = &f->k, .t = &f->tr_control, .is_shell = 0};
}

static void teardown(fixture *f)
{
    mock_reset(&f->t);
    wl_kernel_history_free(&f->k);
}

static void send_on(wl_chan *c, const char *type, const char *content)
{
    cJSON *j = cJSON_Parse(content);
    wl_request req = {.type = type, .content = j, .raw_content = content, .raw_content_len = strlen(content)};
    wl_kernel_handle(c, &req);
    cJSON_Delete(j);
}

/* Checks that the messages sent since index *at are exactly the expected lines (each a prefix of one). */
static void expect(fixture *f, int *at, const char *const *lines, int n, int line_no)
{
    int got = f->t.nsent - *at;
    CHECK_MSG(got == n, "line %d: %d messages, expected %d", line_no, got, n);
    for (int i = 0; i < n && i < got; i++)
        CHECK_MSG(!strncmp(f->t.sent[*at + i], lines[i], strlen(lines[i])), "line %d: message %d is %s, expected %s",
                  line_no, i, f->t.sent[*at + i], lines[i]);
    *at = f->t.nsent;
}
#define EXPECT(f, at, ...) do { static const char *const l_[] = {__VA_ARGS__}; \
    expect(f, at, l_, (int)(sizeof l_ / sizeof l_[0]), __LINE__); } while (0)

static const char BUSY[] = "iopub status {\"execution_state\":\"busy\"}";
static const char IDLE[] = "iopub status {\"execution_state\":\"idle\"}";

static void test_execute_order_and_count(void)
{
    fixture f;
    setup(&f);
    int at = 0;
    send_on(&f.shell, "execute_request", "{\"code\":\"print hi\"}");
    EXPECT(&f, &at, BUSY, "iopub execute_input {\"code\":\"print hi\",\"execution_count\":1}",
           "iopub stream {\"name\":\"stdout\",\"text\":\"hi\"}",
           "reply execute_reply {\"status\":\"ok\",\"execution_count\":1,\"payload\":[],\"user_expressions\":{}}", IDLE);
    send_on(&f.shell, "execute_request", "{\"code\":\"value 42\"}");
    EXPECT(&f, &at, BUSY, "iopub execute_input {\"code\":\"value 42\",\"execution_count\":2}",
           "iopub execute_result {\"execution_count\":2,\"data\":{\"text/plain\":\"42\"},\"metadata\":{}}",
           "reply execute_reply {\"status\":\"ok\",\"execution_count\":2", IDLE);
    /* silent: no execute_input, no output, no new count; store_history false: no new count either */
    send_on(&f.shell, "execute_request", "{\"code\":\"value 7\",\"silent\":true}");
    EXPECT(&f, &at, BUSY, "reply execute_reply {\"status\":\"ok\",\"execution_count\":2", IDLE);
    send_on(&f.shell, "execute_request", "{\"code\":\"value 8\",\"store_history\":false}");
    EXPECT(&f, &at, BUSY, "iopub execute_input {\"code\":\"value 8\",\"execution_count\":2}",
           "iopub execute_result {\"execution_count\":2", "reply execute_reply {\"status\":\"ok\",\"execution_count\":2",
           IDLE);
    CHECK(f.k.execution_count == 2 && f.lang.executed == 4);
    /* an error: the error message with a traceback, then the reply with the same fields and the count */
    send_on(&f.shell, "execute_request", "{\"code\":\"oops\",\"stop_on_error\":false}");
    EXPECT(&f, &at, BUSY, "iopub execute_input {\"code\":\"oops\",\"execution_count\":3}",
           "iopub error {\"ename\":\"RuntimeError\",\"evalue\":\"boom\",\"traceback\":[\"\\u001b[0;31mRuntimeError",
           "reply execute_reply {\"status\":\"error\",\"execution_count\":3,\"ename\":\"RuntimeError\"", IDLE);
    /* a help cell: its page payload, nothing runs */
    send_on(&f.shell, "execute_request", "{\"code\":\"?help\"}");
    EXPECT(&f, &at, BUSY, "iopub execute_input {\"code\":\"?help\",\"execution_count\":4}",
           "reply execute_reply {\"status\":\"ok\",\"execution_count\":4,\"payload\":[{\"source\":\"page\","
           "\"data\":{\"text/plain\":\"help page\"},\"start\":0}]",
           IDLE);
    CHECK(f.lang.executed == 5);
    teardown(&f);
}

static void test_stop_on_error_aborts_only_queued(void)
{
    fixture f;
    setup(&f);
    int at = 0;
    queue(&f.t, "execute_request", "{\"code\":\"value a\"}");
    queue(&f.t, "kernel_info_request", "{}");
    queue(&f.t, "execute_request", "{\"code\":\"value b\",\"silent\":true}");
    send_on(&f.shell, "execute_request", "{\"code\":\"oops\"}");
    /* the queue is taken in before the error's reply goes out: what a client sends once it has seen it runs */
    EXPECT(&f, &at, BUSY, "iopub execute_input", "iopub error", "take execute_request", "take kernel_info_request",
           "take execute_request", "reply execute_reply {\"status\":\"error\"", IDLE,
           BUSY, "reply execute_reply {\"status\":\"aborted\",\"execution_count\":1}", IDLE,
           BUSY, "reply kernel_info_reply {\"status\":\"ok\",\"protocol_version\":\"5.3\",\"implementation\":\"mock\"", IDLE,
           BUSY, "reply execute_reply {\"status\":\"aborted\",\"execution_count\":1}", IDLE);
    CHECK(f.lang.executed == 1);   /* only the failing cell ran */
    CHECK(f.k.execution_count == 1 && !f.k.aborting);
    /* a request that comes after the error's reply runs */
    send_on(&f.shell, "execute_request", "{\"code\":\"value c\"}");
    EXPECT(&f, &at, BUSY, "iopub execute_input {\"code\":\"value c\",\"execution_count\":2}", "iopub execute_result",
           "reply execute_reply {\"status\":\"ok\",\"execution_count\":2", IDLE);
    /* without stop_on_error (and for a silent error) nothing queued is aborted */
    queue(&f.t, "execute_request", "{\"code\":\"value d\"}");
    send_on(&f.shell, "execute_request", "{\"code\":\"oops\",\"stop_on_error\":false}");
    send_on(&f.shell, "execute_request", "{\"code\":\"oops\",\"silent\":true}");
    CHECK(f.t.next == 3);   /* the queue was not read */
    CHECK(f.lang.executed == 4);
    teardown(&f);
}

static void test_history(void)
{
    fixture f;
    setup(&f);
    send_on(&f.shell, "execute_request", "{\"code\":\"value a\"}");
    send_on(&f.shell, "execute_request", "{\"code\":\"print b\"}");
    send_on(&f.shell, "execute_request", "{\"code\":\"value a\"}");
    send_on(&f.shell, "execute_request", "{\"code\":\"value s\",\"silent\":true}");
    send_on(&f.shell, "execute_request", "{\"code\":\"oops\"}");
    int at = f.t.nsent;
    send_on(&f.shell, "history_request", "{\"hist_access_type\":\"tail\",\"n\":2}");
    EXPECT(&f, &at, BUSY,
           "reply history_reply {\"status\":\"ok\",\"history\":[[1,3,\"value a\"],[1,4,\"oops\"]]}", IDLE);
    send_on(&f.shell, "history_request", "{\"hist_access_type\":\"range\",\"session\":0,\"start\":2,\"stop\":4,"
                                         "\"output\":true}");
    EXPECT(&f, &at, BUSY,
           "reply history_reply {\"status\":\"ok\",\"history\":[[1,2,[\"print b\",null]],[1,3,[\"value a\",\"a\"]]]}",
           IDLE);
    send_on(&f.shell, "history_request", "{\"hist_access_type\":\"search\",\"pattern\":\"value*\",\"unique\":true}");
    EXPECT(&f, &at, BUSY, "reply history_reply {\"status\":\"ok\",\"history\":[[1,3,\"value a\"]]}", IDLE);
    send_on(&f.shell, "history_request", "{\"hist_access_type\":\"sideways\"}");
    EXPECT(&f, &at, BUSY, "reply history_reply {\"status\":\"error\",\"ename\":\"BadRequest\"", IDLE);
    /* the bound: the oldest cells go first */
    for (int i = 0; i < WL_HIST_MAX + 5; i++) wl_kernel_history_add(&f.k, 100 + i, "x", NULL);
    CHECK(f.k.nhist == WL_HIST_MAX && f.k.hist[0].line == 105);
    teardown(&f);
}

static void test_other_requests(void)
{
    fixture f;
    setup(&f);
    int at = 0;
    send_on(&f.shell, "complete_request", "{\"code\":\"t\\u00e9k\",\"cursor_pos\":2}");   /* code points, not bytes */
    EXPECT(&f, &at, BUSY, "reply complete_reply {\"status\":\"ok\",\"matches\":[\"tokenize\"],\"cursor_start\":0,"
                          "\"cursor_end\":2,\"metadata\":{}}", IDLE);
    send_on(&f.shell, "inspect_request", "{\"code\":\"help\",\"cursor_pos\":1}");
    EXPECT(&f, &at, BUSY, "reply inspect_reply {\"status\":\"ok\",\"found\":true,\"data\":{\"text/plain\":\"help:", IDLE);
    send_on(&f.control, "is_complete_request", "{\"code\":\"say \\\"\"}");
    EXPECT(&f, &at, BUSY, "reply is_complete_reply {\"status\":\"incomplete\",\"indent\":\"\"}", IDLE);
    send_on(&f.shell, "frobnicate_request", "{}");
    EXPECT(&f, &at, BUSY, "reply frobnicate_reply {\"status\":\"error\",\"ename\":\"UnknownMessageType\"", IDLE);
    send_on(&f.shell, "interrupt_request", "{}");   /* a control request on shell */
    EXPECT(&f, &at, BUSY, "reply interrupt_reply {\"status\":\"error\",\"ename\":\"WrongChannel\"", IDLE);
    send_on(&f.control, "execute_request", "{\"code\":\"value x\"}");   /* control never runs code */
    EXPECT(&f, &at, BUSY, "reply execute_reply {\"status\":\"error\",\"ename\":\"WrongChannel\"", IDLE);
    send_on(&f.shell, "comm_open", "{\"comm_id\":\"c1\",\"target_name\":\"t\"}");
    EXPECT(&f, &at, BUSY, "iopub comm_close {\"comm_id\":\"c1\",\"data\":{}}", IDLE);
    /* interrupt on control asks the adapter; the next execute withdraws it before busy */
    send_on(&f.control, "interrupt_request", "{}");
    EXPECT(&f, &at, BUSY, "reply interrupt_reply {\"status\":\"ok\"}", IDLE);
    CHECK(flag == 1);
    send_on(&f.shell, "execute_request", "{\"code\":\"value y\"}");
    CHECK(flag == 0 && f.lang.interrupt_calls == 2);
    at = f.t.nsent;
    send_on(&f.control, "shutdown_request", "{\"restart\":true}");
    EXPECT(&f, &at, BUSY, "reply shutdown_reply {\"status\":\"ok\",\"restart\":true}", IDLE);
    CHECK(atomic_load(&f.k.shutdown) == 1 && flag == 1);
    teardown(&f);
}

static void test_stdin(void)
{
    fixture f;
    setup(&f);
    int at = 0;
    f.t.answer = "Ada";
    send_on(&f.shell, "execute_request", "{\"code\":\"ask\",\"allow_stdin\":true}");
    EXPECT(&f, &at, BUSY, "iopub execute_input", "stdin input_request {\"prompt\":\"name? \",\"password\":false}",
           "iopub execute_result {\"execution_count\":1,\"data\":{\"text/plain\":\"Ada\"}", "reply execute_reply", IDLE);
    /* allow_stdin false: no input_request, the cell fails */
    send_on(&f.shell, "execute_request", "{\"code\":\"ask\",\"stop_on_error\":false}");
    EXPECT(&f, &at, BUSY, "iopub execute_input", "iopub error", "reply execute_reply {\"status\":\"error\"", IDLE);
    teardown(&f);
}

/* Control characters in the text a cell writes reach the client shown as \u00XX (front ends read ANSI codes in
 * streams, text/plain, prompts and tracebacks); the kernel's own colour of the error line stays. In the JSON below a
 * raw ESC would be \u001b, the six characters shown are \\u001b. */
static void test_controls_shown(void)
{
    fixture f;
    setup(&f);
    int at = 0;
    send_on(&f.shell, "execute_request", "{\"code\":\"print a\\u001b]0;T\\u0007b\\r\\n\\tc\"}");
    EXPECT(&f, &at, BUSY, "iopub execute_input",
           "iopub stream {\"name\":\"stdout\",\"text\":\"a\\\\u001b]0;T\\\\u0007b\\\\u000d\\n\\tc\"}",
           "reply execute_reply", IDLE);
    send_on(&f.shell, "execute_request", "{\"code\":\"value x\\u001b[8my\\u009b\"}");
    EXPECT(&f, &at, BUSY, "iopub execute_input",
           "iopub execute_result {\"execution_count\":2,\"data\":{\"text/plain\":\"x\\\\u001b[8my\\\\u009b\"}",
           "reply execute_reply", IDLE);
    send_on(&f.shell, "execute_request", "{\"code\":\"fail e\\u001b[2J\",\"stop_on_error\":false}");
    EXPECT(&f, &at, BUSY, "iopub execute_input",
           "iopub error {\"ename\":\"RuntimeError\",\"evalue\":\"e\\\\u001b[2J\",\"traceback\":"
           "[\"\\u001b[0;31mRuntimeError\\u001b[0m: e\\\\u001b[2J\"]}",
           "reply execute_reply {\"status\":\"error\"", IDLE);
    f.t.answer = "Ada";
    send_on(&f.shell, "execute_request", "{\"code\":\"ask \\u001b]52;c;eA==\\u0007who?\",\"allow_stdin\":true}");
    EXPECT(&f, &at, BUSY, "iopub execute_input",
           "stdin input_request {\"prompt\":\"\\\\u001b]52;c;eA==\\\\u0007who?\",\"password\":false}",
           "iopub execute_result", "reply execute_reply", IDLE);
    teardown(&f);
}

void wl_test_main(void)
{
    test_execute_order_and_count();
    test_stop_on_error_aborts_only_queued();
    test_history();
    test_other_requests();
    test_stdin();
    test_controls_shown();
}

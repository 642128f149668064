/* fuzz_lang.c: libFuzzer target for the command language: the parser, the evaluator, every command, completion,
 * inspect and is_complete, on any bytes, with file commands disabled. Built by CMake (WL_FUZZ).
 * Seeds: tests/fuzz/corpus/lang (every help example, error cases, nesting, escapes).
 * Checks: evaluation succeeds or fails with a named error and a traceback whose first line names the
 * position; a result has text/plain and valid JSON; is_complete answers one of its three words and says
 * "complete" exactly when the code parses; completion ranges lie inside the code.
 * Work is bounded: an alarm after 0.3 s raises the interrupt flag that training, evaluation and
 * generation check, and a corpus has at most 40 stories (the generator is not interruptible). */
#include "wl_lang.h"

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t g_stop;

static void on_alarm(int sig)
{
    (void)sig;
    g_stop = 1;
}

static void check_bundle(const wl_mime *m)
{
    if (!m->text_plain) abort();
    if (m->app_json) {
        cJSON *j = cJSON_Parse(m->app_json);
        if (!j) abort();
        cJSON_Delete(j);
    }
}

static void on_display(void *ud, const char *id, const wl_mime *m, int update)
{
    (void)ud;
    (void)id;
    (void)update;
    check_bundle(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char *code = malloc(size + 1);
    if (!code) return 0;
    memcpy(code, data, size);
    code[size] = 0;

    const char *c = wl_lang_is_complete(code);
    if (strcmp(c, "complete") && strcmp(c, "incomplete") && strcmp(c, "invalid")) abort();

    wl_interp_opts o = {.allow_files = 0, .max_stories = 40};
    wl_interp *in = wl_interp_new(&o);
    signal(SIGALRM, on_alarm);
    g_stop = 0;
    struct itimerval t = {.it_value = {.tv_usec = 300000}};
    setitimer(ITIMER_REAL, &t, NULL);
    wl_sink sink = {.display = on_display, .interrupt = &g_stop};
    wl_mime result;
    wl_lang_error err;
    int rc = wl_interp_eval(in, code, "fuzz", 1, &sink, &result, &err);
    struct itimerval off = {0};
    setitimer(ITIMER_REAL, &off, NULL);
    if (rc == 0) {
        if (result.text_plain) check_bundle(&result);
        if (strcmp(c, "complete")) abort();   /* code that runs must parse */
    } else {
        if (!err.ename[0] || !err.evalue[0] || err.ntraceback < 1 || strncmp(err.traceback[0], "fuzz", 4)) abort();
        if (!strcmp(err.ename, "ParseError") == !strcmp(c, "complete")) abort();   /* ParseError exactly when it does not parse */
    }
    wl_mime_free(&result);
    wl_lang_error_clear(&err);

    size_t cursors[3] = {0, size / 2, size};
    for (int k = 0; k < 3; k++) {
        char **m;
        size_t s, e;
        int n = wl_interp_complete(in, code, cursors[k], &m, &s, &e);
        if (s > e || e > size) abort();
        for (int i = 0; i < n; i++) free(m[i]);
        free(m);
        wl_mime doc;
        if (wl_interp_inspect(in, code, cursors[k], &doc)) check_bundle(&doc);
        wl_mime_free(&doc);
    }
    wl_interp_free(in);
    free(code);
    return 0;
}

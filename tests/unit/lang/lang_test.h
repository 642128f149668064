/* lang_test.h: runs code through the interpreter and captures everything it reports, for the lang unit tests. */
#ifndef WL_LANG_TEST_H
#define WL_LANG_TEST_H

#include "wl_lang.h"

#include <stdlib.h>
#include <string.h>

typedef struct lt_run {
    int rc;
    char out[1 << 16];        /* sink writes (stdout and stderr) */
    size_t nout;
    char displays[1 << 16];   /* text/plain of every display, separated by newlines */
    size_t ndisp;
    int ndisplays;
    wl_mime result;
    wl_lang_error err;
} lt_run;

static inline void lt_append(char *buf, size_t *n, size_t cap, const char *s, size_t len)
{
    if (*n + len + 1 > cap) len = cap - *n - 1;
    memcpy(buf + *n, s, len);
    *n += len;
    buf[*n] = 0;
}

static inline void lt_write(void *ud, const char *stream, const char *s, size_t n)
{
    (void)stream;
    lt_run *r = ud;
    lt_append(r->out, &r->nout, sizeof r->out, s, n);
}

static inline void lt_display(void *ud, const char *id, const wl_mime *m, int update)
{
    (void)id;
    (void)update;
    lt_run *r = ud;
    r->ndisplays++;
    lt_append(r->displays, &r->ndisp, sizeof r->displays, m->text_plain, strlen(m->text_plain));
    lt_append(r->displays, &r->ndisp, sizeof r->displays, "\n", 1);
}

/* Evaluates code in interp (a fresh one when in is NULL); the caller frees with lt_free. */
static inline lt_run *lt_eval(wl_interp *in, const char *code, volatile sig_atomic_t *interrupt)
{
    lt_run *r = calloc(1, sizeof *r);
    wl_interp *own = NULL;
    if (!in) {
        wl_interp_opts o = {.allow_files = 1};
        in = own = wl_interp_new(&o);
    }
    wl_sink s = {.ud = r, .write = lt_write, .display = lt_display, .interrupt = interrupt};
    r->rc = wl_interp_eval(in, code, "cell", 1, &s, &r->result, &r->err);
    wl_interp_free(own);
    return r;
}

static inline void lt_free(lt_run *r)
{
    wl_mime_free(&r->result);
    wl_lang_error_clear(&r->err);
    free(r);
}

static inline const char *lt_text(const lt_run *r) { return r->result.text_plain ? r->result.text_plain : ""; }

#endif

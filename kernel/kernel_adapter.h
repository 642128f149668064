/* kernel_adapter.h: the language adapter: what a protocol core asks of the language, with no message in sight. */
#ifndef WL_KERNEL_ADAPTER_H
#define WL_KERNEL_ADAPTER_H

#include <signal.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "wl_lang.h"

/* What kernel_info_reply says of the implementation and its language. */
typedef struct wl_kernel_info {
    const char *implementation, *implementation_version, *banner;
    const char *language, *language_version, *mimetype, *file_extension;   /* file_extension with its dot */
    const char *pygments_lexer, *codemirror_mode, *nbconvert_exporter;
    const char *help_text, *help_url;                                       /* one help link */
} wl_kernel_info;

/* A language as a protocol core sees it (the C core of kernel_core.c and the xeus interpreter alike). Code is
 * UTF-8; cursors are byte offsets into it. Every function runs on the thread that executes, except interrupt. */
typedef struct wl_adapter {
    void *self;
    /* Runs code[0..len) (len may pass a NUL inside it) with output through sink; returns 0 with the value in
     * *result (text_plain NULL: none), or -1 with *err filled. When page is not NULL and the cell only asks for
     * help (`?NAME`, `NAME?`), nothing runs: the help fills *page and 0 is returned. */
    int (*execute)(void *self, const char *code, size_t len, const wl_sink *sink, wl_mime *result, wl_mime *page,
                   wl_lang_error *err);
    /* Completions of the word around cursor: their count, *matches (malloc'd strings in a malloc'd array), and the
     * replaced bytes [*start, *end). */
    int (*complete)(void *self, const char *code, size_t cursor, char ***matches, size_t *start, size_t *end);
    /* Help on the word at cursor: 1 with *out filled, or 0 when there is none. */
    int (*inspect)(void *self, const char *code, size_t cursor, wl_mime *out);
    /* "complete", "incomplete" or "invalid". */
    const char *(*is_complete)(void *self, const char *code);
    /* requested 1: stop the running execute soon (any thread, a signal handler too); 0: withdraw a request
     * that came before the next execute began. */
    void (*interrupt)(void *self, int requested);
    void (*kernel_info)(void *self, wl_kernel_info *info);
    /* The flag execute's sink carries (sink->interrupt): set while an interrupt is requested. */
    volatile sig_atomic_t *interrupted;
} wl_adapter;

/* wordlab's adapter over an interpreter (kernel_exec.c); interrupt sets *flag, which a SIGINT handler may set too.
 * self is NULL when memory runs out. wl_exec_adapter_free frees what it made (not the interpreter). */
wl_adapter wl_exec_adapter(wl_interp *interp, volatile sig_atomic_t *flag);
void wl_exec_adapter_free(wl_adapter *a);

#ifdef __cplusplus
}
#endif

#endif

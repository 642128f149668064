/* wl_buf.h: the project's growable string, HTML and JSON text in it, and its allocation convention for small
 * bookkeeping memory. */
#ifndef WL_BUF_H
#define WL_BUF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Memory comes in two kinds. Memory whose size the user's data decides (a corpus, a tensor, a checkpoint) is
 * asked for with malloc and checked: running out is a -1 with a message that names the size and the purpose.
 * Small bookkeeping memory (a string being built, a list of names, a value's header) comes from these wrappers,
 * which never return NULL: running out of it leaves no sensible way on, and calls abort(), the one place that
 * does (as Jim's Jim_Alloc and redis's zmalloc do). */
void *wl_xmalloc(size_t n);
void *wl_xcalloc(size_t n, size_t size);
void *wl_xrealloc(void *p, size_t n);
char *wl_xstrdup(const char *s);
char *wl_xstrndup(const char *s, size_t n);

/* A growable string: zero-initialise, append, take. s is NUL-terminated whenever it is not NULL. */
typedef struct wl_buf {
    char *s;
    size_t len, cap;
} wl_buf;
void wl_buf_put(wl_buf *b, const char *s, size_t n);
void wl_buf_puts(wl_buf *b, const char *s);
void wl_buf_printf(wl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *wl_buf_take(wl_buf *b);   /* the NUL-terminated string ("" when nothing was put); b is reset */

/* Appends s HTML/XML-escaped. */
void wl_buf_html(wl_buf *b, const char *s);
/* The same with each line break of s as <br>, so that HTML keeps the lines the text has (a trailing one dropped). */
void wl_buf_html_lines(wl_buf *b, const char *s);
/* Appends s[0..n) as wl_utf8_visible writes it: control characters but newline and tab as \u00XX. */
void wl_buf_visible(wl_buf *b, const char *s, size_t n);
/* JSON number text ("null" for NaN/Inf), at full precision: the shortest of 15 to 17 digits that reads back. */
void wl_buf_json_num(wl_buf *b, double x);
/* A JSON string. */
void wl_buf_json_str(wl_buf *b, const char *s);
/* A JSON array of x [n]: "[1,0.5]" ("[]" when n is 0). */
void wl_buf_json_nums(wl_buf *b, const double *x, int n);

#ifdef __cplusplus
}
#endif

#endif

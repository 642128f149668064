/* wl_buf.c: the project's growable string, and its allocation convention for small bookkeeping memory. */
#include "wl_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *wl_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

void *wl_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) abort();
    return p;
}

void *wl_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) abort();
    return q;
}

char *wl_xstrndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *d = wl_xmalloc(len + 1);
    memcpy(d, s, len);
    d[len] = 0;
    return d;
}

char *wl_xstrdup(const char *s) { return wl_xstrndup(s, strlen(s)); }

void wl_buf_put(wl_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1) cap *= 2;
        b->s = wl_xrealloc(b->s, cap);
        b->cap = cap;
    }
    if (n) memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void wl_buf_puts(wl_buf *b, const char *s) { wl_buf_put(b, s, strlen(s)); }

void wl_buf_printf(wl_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        wl_buf_put(b, small, (size_t)n);
        return;
    }
    char *big = wl_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    wl_buf_put(b, big, (size_t)n);
    free(big);
}

char *wl_buf_take(wl_buf *b)
{
    if (!b->s) wl_buf_put(b, "", 0);
    char *s = b->s;
    memset(b, 0, sizeof *b);
    return s;
}

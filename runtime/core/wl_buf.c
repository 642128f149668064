/* wl_buf.c: the project's growable string, HTML and JSON text in it, and its allocation convention for small
 * bookkeeping memory. */
#include "wl_buf.h"
#include "wl_utf8.h"

#include <math.h>
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

/* ---- HTML and JSON text ---- */

/* What HTML and JSON write for a byte that must not stand as itself (NULL: itself). */
static const char *const HTML_ESCAPES[256] = {['<'] = "&lt;", ['>'] = "&gt;", ['&'] = "&amp;", ['"'] = "&quot;",
                                              ['\''] = "&#39;"};
static const char *const JSON_ESCAPES[256] = {['"'] = "\\\"", ['\\'] = "\\\\", ['\n'] = "\\n", ['\t'] = "\\t",
                                              ['\r'] = "\\r"};

/* Appends s with each byte escaped as escapes says; with controls, any other byte below 0x20 as \u00XX. */
static void put_escaped(wl_buf *b, const char *s, const char *const escapes[256], int controls)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (escapes[*p]) wl_buf_puts(b, escapes[*p]);
        else if (controls && *p < 0x20) wl_buf_printf(b, "\\u%04x", *p);
        else wl_buf_put(b, (const char *)p, 1);
    }
}

void wl_buf_html(wl_buf *b, const char *s) { put_escaped(b, s, HTML_ESCAPES, 0); }

void wl_buf_html_lines(wl_buf *b, const char *s)
{
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        char *line = wl_xstrndup(s, n);
        wl_buf_html(b, line);
        free(line);
        s += n;
        if (*s) s++;
        if (*s) wl_buf_puts(b, "<br>");
    }
}

void wl_buf_visible(wl_buf *b, const char *s, size_t n)
{
    char *v = wl_utf8_visible(s, n);
    if (!v) abort();   /* out of memory: as wl_xmalloc */
    wl_buf_puts(b, v);
    free(v);
}

void wl_buf_json_num(wl_buf *b, double x)
{
    if (!isfinite(x)) {
        wl_buf_puts(b, "null");
        return;
    }
    if (x == floor(x) && fabs(x) < 1e15) {
        wl_buf_printf(b, "%.0f", x);
        return;
    }
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {   /* the shortest text that reads back exactly */
        snprintf(tmp, sizeof tmp, "%.*g", prec, x);
        if (strtod(tmp, NULL) == x) break;
    }
    wl_buf_puts(b, tmp);
}

void wl_buf_json_str(wl_buf *b, const char *s)
{
    wl_buf_put(b, "\"", 1);
    put_escaped(b, s, JSON_ESCAPES, 1);
    wl_buf_put(b, "\"", 1);
}

void wl_buf_json_nums(wl_buf *b, const double *x, int n)
{
    wl_buf_put(b, "[", 1);
    for (int i = 0; i < n; i++) {
        if (i) wl_buf_put(b, ",", 1);
        wl_buf_json_num(b, x[i]);
    }
    wl_buf_put(b, "]", 1);
}

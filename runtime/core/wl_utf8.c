/* wl_utf8.c: the one UTF-8 decoder and encoder of the project, and what is built on them. */
#include "wl_utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t wl_utf8_next(const char *s, size_t n, uint32_t *cp)
{
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    const unsigned char *p = (const unsigned char *)s;
    if (!n) return 0;
    if (p[0] < 0x80) {
        if (cp) *cp = p[0];
        return 1;
    }
    size_t k = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
    if (!k || p[0] > 0xF4 || k > n) return 0;
    uint32_t c = p[0] & (0x7Fu >> k);
    for (size_t i = 1; i < k; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        c = c << 6 | (p[i] & 0x3F);
    }
    if (c < min[k] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    if (cp) *cp = c;
    return k;
}

size_t wl_utf8_put(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (cp > 0x10FFFF) return 0;
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A control character that text shows visibly: C0 but newline and tab, DEL, C1. */
static int is_shown_control(uint32_t cp)
{
    return (cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7F && cp <= 0x9F);
}

/* s[0..n) as valid UTF-8 (each invalid byte as U+FFFD), with controls written as \u00XX when visible is set. */
static char *clean(const char *s, size_t n, int visible)
{
    char *out = malloc((visible ? 6 : 3) * n + 1);   /* a 1-byte control grows to 6 bytes, an invalid byte to 3 */
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = wl_utf8_next(s + i, n - i, &cp);
        if (k && visible && is_shown_control(cp)) {
            o += (size_t)snprintf(out + o, 7, "\\u%04x", (unsigned)cp);
            i += k;
        } else if (k) {
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        } else {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    out[o] = 0;
    return out;
}

char *wl_utf8_clean(const char *s, size_t n) { return clean(s, n, 0); }

char *wl_utf8_visible(const char *s, size_t n) { return clean(s, n, 1); }

size_t wl_utf8_byte_offset(const char *s, size_t len, long cp)
{
    size_t i = 0;
    for (long k = 0; k < cp && i < len; k++) {
        i++;
        while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80) i++;
    }
    return i;
}

long wl_utf8_cp_count(const char *s, size_t bytes)
{
    long n = 0;
    for (size_t i = 0; i < bytes && s[i]; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) n++;
    return n;
}

/* kernel_utf8.c: UTF-8 for the protocol: invalid bytes made U+FFFD, code points <-> byte offsets. */
#include "kernel_utf8.h"

#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 when invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (!len || len > n || c > 0xf4) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (c == 0xe0 && s[1] < 0xa0) return 0;   /* overlong */
    if (c == 0xed && s[1] >= 0xa0) return 0;  /* surrogate */
    if (c == 0xf0 && s[1] < 0x90) return 0;   /* overlong */
    if (c == 0xf4 && s[1] >= 0x90) return 0;  /* above U+10FFFF */
    return len;
}

char *wl_utf8_clean(const char *s, size_t n)
{
    char *out = malloc(3 * n + 1);   /* each invalid byte may grow to the 3-byte U+FFFD */
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq((const unsigned char *)s + i, n - i);
        if (k) {
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

size_t wl_utf8_byte_offset(const char *s, size_t len, long cp)
{
    size_t i = 0;
    for (long k = 0; k < cp && i < len; k++) {
        i++;
        while (i < len && ((unsigned char)s[i] & 0xc0) == 0x80) i++;
    }
    return i;
}

long wl_utf8_cp_count(const char *s, size_t bytes)
{
    long n = 0;
    for (size_t i = 0; i < bytes && s[i]; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80) n++;
    return n;
}

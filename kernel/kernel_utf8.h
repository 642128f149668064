/* kernel_utf8.h: UTF-8 for the protocol: invalid bytes made U+FFFD, code points <-> byte offsets. */
#ifndef WL_KERNEL_UTF8_H
#define WL_KERNEL_UTF8_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#ifdef __cplusplus
}
#endif

#endif

/* A malloc'd copy of s[0..n) that is valid UTF-8 (invalid bytes become U+FFFD). */
char *wl_utf8_clean(const char *s, size_t n);
/* Code points <-> byte offsets in UTF-8 text (clamped to the text). */
size_t wl_utf8_byte_offset(const char *s, size_t len, long cp);
long wl_utf8_cp_count(const char *s, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif

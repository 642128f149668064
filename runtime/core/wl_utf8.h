/* wl_utf8.h: the one UTF-8 decoder and encoder of the project, and what is built on them. */
#ifndef WL_UTF8_H
#define WL_UTF8_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The UTF-8 byte-order mark some editors put at the start of a file: not text, skipped where a file starts. */
#define WL_UTF8_BOM "\xEF\xBB\xBF"

/* The length (1-4) of the valid UTF-8 sequence at s (n bytes available) with its code point in *cp (may be
 * NULL), or 0 when the bytes there are not UTF-8: a stray continuation byte, a truncated sequence, an overlong
 * form, a surrogate (U+D800-U+DFFF) or a code point above U+10FFFF. A NUL byte is a valid sequence (U+0000). */
size_t wl_utf8_next(const char *s, size_t n, uint32_t *cp);

/* Writes cp (at most U+10FFFF, not a surrogate) as UTF-8 into out; returns its length (1-4), 0 for no code point. */
size_t wl_utf8_put(uint32_t cp, char out[4]);

/* A malloc'd copy of s[0..n) that is valid UTF-8 (each invalid byte becomes U+FFFD); NULL when memory runs out. */
char *wl_utf8_clean(const char *s, size_t n);

/* As wl_utf8_clean, and with every control character but newline and tab (C0 U+0000-U+001F, DEL U+007F, C1
 * U+0080-U+009F) written visibly as the six characters \u00XX, as JSON writes them: text that a terminal or an
 * ANSI-reading notebook shows as it is, where ESC, CR or BEL from data could clear the screen, set the title or
 * overwrite a line. NULL when memory runs out. */
char *wl_utf8_visible(const char *s, size_t n);

/* Code points <-> byte offsets in valid UTF-8 text: the byte offset of code point cp (clamped to len), and the
 * number of code points in the first bytes bytes (counting stops at a NUL). */
size_t wl_utf8_byte_offset(const char *s, size_t len, long cp);
long wl_utf8_cp_count(const char *s, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif

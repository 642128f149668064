/* test_utf8_buf.c: the UTF-8 decoder and encoder, U+FFFD cleaning, visible controls, offsets, the growable string. */
#include "wl_buf.h"
#include "wl_test.h"
#include "wl_utf8.h"

#include <stdlib.h>
#include <string.h>

static void test_decode_valid(void)
{
    uint32_t cp = 0;
    CHECK(wl_utf8_next("A", 1, &cp) == 1 && cp == 'A');
    CHECK(wl_utf8_next("\0", 1, &cp) == 1 && cp == 0);
    CHECK(wl_utf8_next("\xc3\xa9", 2, &cp) == 2 && cp == 0xE9);
    CHECK(wl_utf8_next("\xe2\x82\xac", 3, &cp) == 3 && cp == 0x20AC);
    CHECK(wl_utf8_next("\xf0\x9f\x98\x80", 4, &cp) == 4 && cp == 0x1F600);
    CHECK(wl_utf8_next("\xf4\x8f\xbf\xbf", 4, &cp) == 4 && cp == 0x10FFFF);
    CHECK(wl_utf8_next("\xc3\xa9", 2, NULL) == 2);
}

static void test_decode_invalid(void)
{
    uint32_t cp = 7;
    CHECK(wl_utf8_next("", 0, &cp) == 0);
    CHECK(wl_utf8_next("\x80", 1, &cp) == 0);                 /* stray continuation */
    CHECK(wl_utf8_next("\xc3", 1, &cp) == 0);                 /* truncated */
    CHECK(wl_utf8_next("\xe2\x82", 2, &cp) == 0);
    CHECK(wl_utf8_next("\xc3\x41", 2, &cp) == 0);             /* not a continuation */
    CHECK(wl_utf8_next("\xc0\xaf", 2, &cp) == 0);             /* overlong '/' */
    CHECK(wl_utf8_next("\xe0\x80\xaf", 3, &cp) == 0);
    CHECK(wl_utf8_next("\xf0\x80\x80\xaf", 4, &cp) == 0);
    CHECK(wl_utf8_next("\xed\xa0\x80", 3, &cp) == 0);         /* surrogate U+D800 */
    CHECK(wl_utf8_next("\xf4\x90\x80\x80", 4, &cp) == 0);     /* U+110000 */
    CHECK(wl_utf8_next("\xff", 1, &cp) == 0);
    CHECK(cp == 7);                                            /* untouched on failure */
}

static void test_encode_roundtrip(void)
{
    uint32_t cps[] = {0, 0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x10FFFF};
    for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++) {
        char out[4];
        uint32_t back = 1;
        size_t k = wl_utf8_put(cps[i], out);
        CHECK(k >= 1 && k <= 4);
        CHECK(wl_utf8_next(out, k, &back) == k && back == cps[i]);
    }
    char out[4];
    CHECK(wl_utf8_put(0xD800, out) == 0);
    CHECK(wl_utf8_put(0x110000, out) == 0);
}

static void test_clean_and_offsets(void)
{
    char *c = wl_utf8_clean("a\xff\xc3\xa9\xc3", 5);
    CHECK(c && !strcmp(c, "a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd"));
    free(c);
    /* ESC ] 0 ; T BEL, CR, DEL, NUL, C1 CSI (U+009B) shown; newline, tab, é and U+00A0 kept; an invalid byte U+FFFD */
    static const char ctl[] = "\x1b]0;T\x07x\r\n\t\x7f\0\xc2\x9b\xc3\xa9\xc2\xa0\xff";
    c = wl_utf8_visible(ctl, sizeof ctl - 1);
    CHECK(c && !strcmp(c, "\\u001b]0;T\\u0007x\\u000d\n\t\\u007f\\u0000\\u009b\xc3\xa9\xc2\xa0\xef\xbf\xbd"));
    free(c);
    c = wl_utf8_visible("", 0);
    CHECK(c && !strcmp(c, ""));
    free(c);
    const char *s = "a\xc3\xa9\xe2\x82\xac!";   /* a é € ! */
    size_t len = strlen(s);
    CHECK(wl_utf8_cp_count(s, len) == 4);
    CHECK(wl_utf8_byte_offset(s, len, 0) == 0);
    CHECK(wl_utf8_byte_offset(s, len, 2) == 3);
    CHECK(wl_utf8_byte_offset(s, len, 3) == 6);
    CHECK(wl_utf8_byte_offset(s, len, 99) == len);
}

static void test_buf(void)
{
    wl_buf b = {0};
    char *empty = wl_buf_take(&b);
    CHECK(empty && !strcmp(empty, ""));
    free(empty);
    for (int i = 0; i < 1000; i++) wl_buf_printf(&b, "%d,", i);
    wl_buf_puts(&b, "end");
    wl_buf_put(&b, "\0x", 2);   /* bytes, NUL included */
    CHECK(b.len == strlen(b.s) + 2 && b.s[b.len] == 0);
    char big[600];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = 0;
    wl_buf_printf(&b, "[%s]", big);   /* longer than printf's small buffer */
    size_t n = b.len;
    char *s = wl_buf_take(&b);
    CHECK(!strncmp(s, "0,1,2,", 6) && s[n - 1] == ']' && s[n - 2] == 'z');
    CHECK(b.s == NULL && b.len == 0 && b.cap == 0);
    free(s);
    char *d = wl_xstrndup("abcdef", 3);
    CHECK(!strcmp(d, "abc"));
    free(d);
}

void wl_test_main(void)
{
    test_decode_valid();
    test_decode_invalid();
    test_encode_roundtrip();
    test_clean_and_offsets();
    test_buf();
}

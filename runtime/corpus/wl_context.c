/* wl_context.c: text as a model reads it: tokenize, <BOS> + ids, and the left-padded window of the last T ids. */
#include "wl_context.h"

#include <stdlib.h>
#include <string.h>

int wl_context_ids(const wl_vocab *v, const char *const *tokens, size_t n, int32_t **hist, wl_err *err)
{
    *hist = malloc(sizeof(int32_t) * (n + 2));
    if (!*hist) return wl_fail(err, "out of memory for the ids of %zu tokens", n);
    (*hist)[0] = WL_BOS;
    wl_vocab_encode(v, tokens, n, *hist + 1);
    return 0;
}

int wl_context_encode(const wl_vocab *v, const char *text, size_t len, wl_tokens *toks, int32_t **hist, wl_err *err)
{
    *hist = NULL;
    if (wl_text_tokenize(text, len, toks, err)) return -1;
    if (wl_context_ids(v, (const char *const *)toks->tok, toks->n, hist, err)) {
        wl_tokens_free(toks);
        return -1;
    }
    return 0;
}

size_t wl_context_window(const int32_t *hist, size_t n, int32_t *ctx, size_t T)
{
    size_t keep = n < T ? n : T;
    for (size_t i = 0; i < T - keep; i++) ctx[i] = WL_PAD;
    memcpy(ctx + (T - keep), hist + (n - keep), sizeof(int32_t) * keep);
    return n - keep;
}

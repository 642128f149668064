/* wl_context.h: text as a model reads it: <BOS> and the tokens' ids, and the left-padded context of the last T ids. */
#ifndef WL_CONTEXT_H
#define WL_CONTEXT_H

#include "wl_corpus.h"

#include <stddef.h>
#include <stdint.h>

/* The history a model reads tokens with: *hist [1 + n + 1] = <BOS>, then the id in v of each of tokens [n]
 * (<UNK> for a token outside it), then one spare slot (for an <EOS>, left unset). *hist is malloc'd; free it.
 * Returns 0, or -1 with err when memory runs out (the size is the text's). */
int wl_context_ids(const wl_vocab *v, const char *const *tokens, size_t n, int32_t **hist, wl_err *err);

/* The same for text[0..len): toks gets tokenize(text) (free it with wl_tokens_free) and *hist [1 + toks->n + 1]
 * its history as above. Returns 0, or -1 with err (invalid UTF-8, out of memory) and nothing to free. */
int wl_context_encode(const wl_vocab *v, const char *text, size_t len, wl_tokens *toks, int32_t **hist, wl_err *err);

/* The context the model sees at the end of hist [n]: ctx [T] = the last T ids of hist, after T - n <PAD>
 * when n < T. Returns how many ids of hist were cropped from the left (0 when n <= T). */
size_t wl_context_window(const int32_t *hist, size_t n, int32_t *ctx, size_t T);

#endif

/* test_context.c: text as a model reads it: <BOS> + ids, unknown words, the spare slot, and the left-padded window. */
#include "wl_context.h"
#include "wl_test.h"

#include <stdlib.h>
#include <string.h>

static const char VOCAB[] = "{\"itos\": [\"<PAD>\", \"<BOS>\", \"<EOS>\", \"<UNK>\", \"the\", \"dog\", \"ran\", \".\"]}";

static void test_encode(void)
{
    wl_vocab v;
    wl_err err = {{0}};
    CHECK(wl_vocab_parse(VOCAB, strlen(VOCAB), "test vocab", &v, &err) == 0);
    wl_tokens t;
    int32_t *hist = NULL;
    CHECK(wl_context_encode(&v, "The dog ran home.", 17, &t, &hist, &err) == 0);
    CHECK(t.n == 5);
    const int32_t want[] = {WL_BOS, 4, 5, 6, WL_UNK, 7};   /* "home" is not in the vocabulary */
    for (size_t i = 0; hist && i < 6; i++) CHECK_MSG(hist[i] == want[i], "hist[%zu] = %d, want %d", i, hist[i], want[i]);
    CHECK(t.n == 5 && !strcmp(t.tok[4], "."));
    if (hist) hist[t.n + 1] = WL_EOS;   /* the spare slot is there for an <EOS> (ASan checks the bounds) */
    free(hist);
    wl_tokens_free(&t);

    /* the empty text: <BOS> alone */
    CHECK(wl_context_encode(&v, "", 0, &t, &hist, &err) == 0);
    CHECK(t.n == 0 && hist && hist[0] == WL_BOS);
    free(hist);
    wl_tokens_free(&t);

    /* tokens already split give the same ids */
    const char *toks[] = {"dog", "the", "cat"};
    CHECK(wl_context_ids(&v, toks, 3, &hist, &err) == 0);
    CHECK(hist && hist[0] == WL_BOS && hist[1] == 5 && hist[2] == 4 && hist[3] == WL_UNK);
    free(hist);

    /* invalid UTF-8 fails with its offset and leaves nothing to free */
    int32_t sentinel = 0;
    hist = &sentinel;
    CHECK(wl_context_encode(&v, "ok \xff", 4, &t, &hist, &err) == -1);
    CHECK(hist == NULL && t.tok == NULL && t.buf == NULL);
    CHECK_MSG(strstr(err.msg, "byte offset 3") != NULL, "the error names the offset: %s", err.msg);
    wl_vocab_free(&v);
}

static void test_window(void)
{
    const int32_t hist[] = {WL_BOS, 10, 11, 12, 13};
    int32_t ctx[8];
    /* shorter than T: left-padded */
    CHECK(wl_context_window(hist, 3, ctx, 6) == 0);
    const int32_t padded[] = {WL_PAD, WL_PAD, WL_PAD, WL_BOS, 10, 11};
    CHECK(!memcmp(ctx, padded, sizeof padded));
    /* exactly T */
    CHECK(wl_context_window(hist, 5, ctx, 5) == 0);
    CHECK(!memcmp(ctx, hist, sizeof hist));
    /* longer than T: the last T, cropped from the left */
    CHECK(wl_context_window(hist, 5, ctx, 2) == 3);
    CHECK(ctx[0] == 12 && ctx[1] == 13);
    /* nothing yet: all padding */
    CHECK(wl_context_window(hist, 0, ctx, 4) == 0);
    CHECK(ctx[0] == WL_PAD && ctx[3] == WL_PAD);
}

void wl_test_main(void)
{
    test_encode();
    test_window();
}

/* test_corpus_pack.c: a packed and unpacked corpus is the same corpus (stories, tokens, ids, vocabulary, audit,
 * windows), and no cut or damaged packing is read as one. */
#include "wl_corpus.h"
#include "wl_test.h"

#include <stdlib.h>
#include <string.h>

static void same_corpus(const wl_corpus *a, const wl_corpus *b)
{
    CHECK(!strcmp(a->source, b->source) && !strcmp(a->profile.name, b->profile.name));
    CHECK(a->profile.stories == b->profile.stories && a->profile.max_vocab == b->profile.max_vocab);
    CHECK(!memcmp(&a->audit, &b->audit, sizeof a->audit));
    CHECK(a->vocab.n == b->vocab.n);
    for (size_t i = 0; i < a->vocab.n && i < b->vocab.n; i++) CHECK(!strcmp(a->vocab.itos[i], b->vocab.itos[i]));
    for (int s = 0; s < WL_NSPLITS; s++) {
        CHECK(a->n[s] == b->n[s]);
        for (size_t i = 0; i < a->n[s] && i < b->n[s]; i++) {
            const wl_story *x = &a->stories[s][i], *y = &b->stories[s][i];
            CHECK(!strcmp(x->doc_id, y->doc_id) && !strcmp(x->text, y->text));
            CHECK(x->row_idx == y->row_idx && x->line == y->line && x->tokens.n == y->tokens.n);
            CHECK(!memcmp(x->ids, y->ids, x->tokens.n * sizeof(int32_t)));
            wl_tokens tx, ty;
            wl_err e = {""};
            CHECK(wl_story_tokens(x, &tx, &e) == 0 && wl_story_tokens(y, &ty, &e) == 0);
            for (size_t k = 0; k < tx.n; k++) CHECK(!strcmp(tx.tok[k], ty.tok[k]));
            wl_tokens_free(&tx);
            wl_tokens_free(&ty);
        }
        wl_windows wa, wb;
        wl_err e = {""};
        CHECK(wl_corpus_windows(a, (wl_split)s, NULL, &wa, &e) == 0 && wl_corpus_windows(b, (wl_split)s, NULL, &wb, &e) == 0);
        CHECK(wa.n == wb.n && !memcmp(wa.ctx, wb.ctx, wa.n * WL_CONTEXT * 4) && !memcmp(wa.tgt, wb.tgt, wa.n * 4));
        wl_windows_free(&wa);
        wl_windows_free(&wb);
    }
}

static void test_round_trip_and_damage(void)
{
    wl_profile p;
    wl_err e = {""};
    CHECK(wl_profile_get("smoke", &p, &e) == 0);
    p.stories = 40;
    wl_corpus c, u;
    CHECK(wl_corpus_generate(&p, 7, NULL, &c, &e) == 0);
    unsigned char *data;
    size_t len;
    CHECK(wl_corpus_pack(&c, 16, &data, &len, &e) == 0);
    /* the packed bytes, 8-byte aligned as a mapping gives them */
    unsigned char *packed = aligned_alloc(64, (len + 63) / 64 * 64);
    memcpy(packed, data + 16, len);
    CHECK(wl_corpus_unpack(packed, len, &u, &e) == 0 && u.borrowed);
    same_corpus(&c, &u);
    /* packing an unpacked corpus gives the same bytes */
    unsigned char *again;
    size_t len2;
    CHECK(wl_corpus_pack(&u, 16, &again, &len2, &e) == 0 && len2 == len && !memcmp(again + 16, data + 16, len));
    free(again);
    wl_corpus_free(&u);
    /* every cut of the packing fails cleanly */
    for (size_t cut = 0; cut < len; cut += 1 + cut / 7) {
        wl_err ce = {""};
        CHECK_MSG(wl_corpus_unpack(packed, cut, &u, &ce) == -1 && strstr(ce.msg, "packed corpus"), "cut at %zu of %zu", cut, len);
    }
    /* a wrong magic, and a token count past the bytes */
    packed[0] ^= 1;
    CHECK(wl_corpus_unpack(packed, len, &u, &e) == -1 && strstr(e.msg, "another format"));
    packed[0] ^= 1;
    free(packed);
    free(data);
    wl_corpus_free(&c);
}

void wl_test_main(void)
{
    test_round_trip_and_damage();
}

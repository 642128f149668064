/* wl_corpus_split.c: a text's doc id and its split: SHA-256 of the normalized text, with and without the split seed. */
#include "wl_corpus_split.h"
#include "wl_text.h"

#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

const char *wl_split_name(wl_split s)
{
    static const char *const names[WL_NSPLITS] = {"train", "validation", "test"};
    return (unsigned)s < WL_NSPLITS ? names[s] : "?";
}

int wl_corpus_sha256(const void *prefix, size_t plen, const char *data, size_t len, unsigned char md[32], wl_err *err)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned int mdlen = 0;
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) && EVP_DigestUpdate(ctx, prefix, plen) &&
             EVP_DigestUpdate(ctx, data, len) && EVP_DigestFinal_ex(ctx, md, &mdlen) && mdlen == 32;
    EVP_MD_CTX_free(ctx);
    return ok ? 0 : wl_fail(err, "SHA-256 failed in OpenSSL");
}

int wl_corpus_doc_id_normalized(const char *norm, size_t len, char doc_id[WL_DOC_ID_LEN + 1], wl_err *err)
{
    unsigned char md[32];
    if (wl_corpus_sha256("", 0, norm, len, md, err)) return -1;
    for (int i = 0; i < WL_DOC_ID_LEN / 2; i++) snprintf(doc_id + 2 * i, 3, "%02x", md[i]);
    return 0;
}

int wl_corpus_split_normalized(const char *norm, size_t len, wl_split *split, wl_err *err)
{
    unsigned char md[32];
    if (wl_corpus_sha256(WL_SPLIT_SEED, sizeof WL_SPLIT_SEED, norm, len, md, err)) return -1;  /* with its NUL */
    uint64_t x = 0;
    for (int i = 0; i < 8; i++) x = x << 8 | md[i];
    /* x / 2^64 < 0.8 exactly as Python's float division compares it: x is rounded to a double first. */
    double u = (double)x / 18446744073709551616.0;
    *split = u < 0.80 ? WL_TRAIN : u < 0.90 ? WL_VALIDATION : WL_TEST;
    return 0;
}

int wl_corpus_doc_info(const char *text, size_t len, char doc_id[WL_DOC_ID_LEN + 1], wl_split *split, wl_err *err)
{
    char *norm;
    size_t nlen;
    if (wl_text_normalize(text, len, &norm, &nlen, err)) return -1;
    int rc = wl_corpus_doc_id_normalized(norm, nlen, doc_id, err) || wl_corpus_split_normalized(norm, nlen, split, err);
    free(norm);
    return rc ? -1 : 0;
}

/* wl_corpus_split.h: a text's doc id and its split (train, validation, test): the corpus's hash rule. */
#ifndef WL_CORPUS_SPLIT_H
#define WL_CORPUS_SPLIT_H

#include "wl_core.h"

#include <stddef.h>

typedef enum { WL_TRAIN = 0, WL_VALIDATION = 1, WL_TEST = 2 } wl_split;
#define WL_NSPLITS 3

/* "train", "validation", "test". */
const char *wl_split_name(wl_split s);

#define WL_DOC_ID_LEN 16
#define WL_SPLIT_SEED "31415"

/* doc_id of already normalized text: the first 16 hex digits of SHA-256(norm), NUL-terminated. */
int wl_corpus_doc_id_normalized(const char *norm, size_t len, char doc_id[WL_DOC_ID_LEN + 1], wl_err *err);

/* The split of already normalized text: SHA-256("31415" "\0" norm), first 8 bytes big-endian / 2^64:
 * < 0.80 train, < 0.90 validation, else test. */
int wl_corpus_split_normalized(const char *norm, size_t len, wl_split *split, wl_err *err);

/* SHA-256 of prefix (plen bytes) followed by data (len bytes) into md. */
int wl_corpus_sha256(const void *prefix, size_t plen, const char *data, size_t len, unsigned char md[32], wl_err *err);

/* Both, from raw text (normalizes it; invalid UTF-8 fails with the byte offset). */
int wl_corpus_doc_info(const char *text, size_t len, char doc_id[WL_DOC_ID_LEN + 1], wl_split *split,
                       wl_err *err);

#endif

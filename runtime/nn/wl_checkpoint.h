/* wl_checkpoint.h: model checkpoints as NumPy .npz files (state__<name> float32 arrays + metadata_json) that PyTorch can load. */
#ifndef WL_CHECKPOINT_H
#define WL_CHECKPOINT_H

#include <stdint.h>

#include "wl_core.h"
#include "wl_model.h"

/* What a checkpoint says about itself (the metadata_json object). */
typedef struct wl_ckpt_meta {
    char kind[16];        /* "mlp", "attention" or "multihead" */
    int heads;
    uint64_t seed;
    int selected_step;
    double test_loss;     /* NaN when the checkpoint was saved without a test score (JSON null) */
    int vocab_size;
    char *json;           /* the whole metadata object as JSON text (malloc'd; set by load) */
} wl_ckpt_meta;

void wl_ckpt_meta_free(wl_ckpt_meta *meta);

/* Writes m to path atomically: one "<f4" array state__<name> per parameter in view order, then
 * metadata_json, a 0-d "<U" string of a JSON object with kind, heads, seed, selected_step, test_loss,
 * vocab_size and parameters; extra_json (NULL or the text of a JSON object) adds its members after those. A name
 * ending .ipynb, .wlab, .txt, .json, .jsonl, .py or .md (any case) is refused, and an existing file is replaced only
 * when it is an .npz (wl_npz_write). */
int wl_checkpoint_save(const char *path, const wl_model *m, uint64_t seed, int selected_step, double test_loss,
                       const char *extra_json, wl_err *err);

/* Reads a checkpoint into a new model *m (kind and heads from the metadata, V from the arrays).
 * expect_vocab > 0 requires that vocabulary size. Every problem is a clear error naming the file
 * and the array (missing, unexpected, wrong dtype or shape, vocabulary mismatch, a NaN or infinite
 * parameter and its first index) or the byte offset (a truncated or non-zip file). The arrays may
 * declare no more bytes than the largest model of their vocabulary holds (checked before anything is
 * inflated); a non-zero *interrupt (interrupt may be NULL) stops the inflation. meta may be NULL;
 * else free it with wl_ckpt_meta_free. */
int wl_checkpoint_load(const char *path, int expect_vocab, volatile sig_atomic_t *interrupt, wl_model *m,
                       wl_ckpt_meta *meta, wl_err *err);

#endif

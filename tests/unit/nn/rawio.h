/* rawio.h: raw little-endian files shared by the PyTorch check helpers (nn_torchcheck, nn_adamwcheck). */
#ifndef WL_RAWIO_H
#define WL_RAWIO_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "wl_model.h"

/* DIR/<prefix><name>.bin, in a static buffer (valid until the next call). */
const char *rawio_path(const char *dir, const char *prefix, const char *name);
/* Reads exactly n bytes of a raw file into out. */
int rawio_read(const char *file, void *out, size_t n, wl_err *err);
/* Writes n bytes to a raw file. */
int rawio_write(const char *file, const void *data, size_t n, wl_err *err);
/* DIR/manifest.json parsed (the caller deletes it), or NULL with err. */
cJSON *rawio_manifest(const char *dir, wl_err *err);
/* Reads (or writes) every view of buf, a buffer of m's parameter layout, from (to) DIR/<prefix><name>.bin;
 * prefix is a printf format that may use step. */
int rawio_views(const wl_model *m, const char *dir, const char *prefix, int step, float *buf, int write, wl_err *err);
/* What both helpers run a model on: a workspace for B windows a call, a gradient buffer and the windows of DIR. */
typedef struct rawio_run {
    wl_model_ws *ws;
    float *grads;          /* [nparams] */
    int32_t *ctx, *tgt;    /* [n, WL_T] from DIR/ctx.bin, [n] from DIR/tgt.bin */
} rawio_run;
/* Fills r for model m (reads the windows); on failure r holds what rawio_run_free frees. */
int rawio_run_init(rawio_run *r, const wl_model *m, const char *dir, int B, size_t n, wl_err *err);
/* Frees what r holds. */
void rawio_run_free(rawio_run *r);
/* The helpers' main: `NAME DIR` runs run(DIR); exit status 0, 1 with the error on stderr, or 2 for usage. */
int rawio_main(int argc, char **argv, const char *name, int (*run)(const char *dir, wl_err *err));
/* Defines main as rawio_main with the helper's name and run. */
#define RAWIO_MAIN(name, run) \
    int main(int argc, char **argv) { return rawio_main(argc, argv, name, run); }

#endif

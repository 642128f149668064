/* rawio.c: raw little-endian files shared by the PyTorch check helpers (nn_torchcheck, nn_adamwcheck). */
#include "rawio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rawio_path(const char *dir, const char *prefix, const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s%s.bin", dir, prefix, name);
    return path;
}

int rawio_read(const char *file, void *out, size_t n, wl_err *err)
{
    char *data;
    size_t len;
    if (wl_read_file(file, &data, &len, err)) return -1;
    int rc = len == n ? 0 : wl_fail(err, "%s: %zu bytes, expected %zu", file, len, n);
    if (rc == 0) memcpy(out, data, n);
    free(data);
    return rc;
}

cJSON *rawio_manifest(const char *dir, wl_err *err)
{
    char path[4096], *text;
    size_t len;
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (wl_read_file(path, &text, &len, err)) return NULL;
    cJSON *j = cJSON_Parse(text);
    free(text);
    if (!j) wl_fail(err, "%s is not JSON", path);
    return j;
}

int rawio_views(const wl_model *m, const char *dir, const char *prefix, int step, float *buf, int write, wl_err *err)
{
    char pre[64];
    snprintf(pre, sizeof pre, prefix, step);
    for (int i = 0; i < m->nviews; i++) {
        const char *file = rawio_path(dir, pre, m->views[i].name);
        float *p = buf + m->views[i].offset;
        size_t n = sizeof(float) * m->views[i].size;
        if (write ? rawio_write(file, p, n, err) : rawio_read(file, p, n, err)) return -1;
    }
    return 0;
}

int rawio_run_init(rawio_run *r, const wl_model *m, const char *dir, int B, size_t n, wl_err *err)
{
    *r = (rawio_run){.ws = wl_model_ws_new(m, B), .grads = malloc(sizeof(float) * m->nparams),
                     .ctx = malloc(sizeof(int32_t) * n * WL_T), .tgt = malloc(sizeof(int32_t) * n)};
    if (!r->ws || !r->grads || !r->ctx || !r->tgt) return wl_fail(err, "out of memory for %zu windows", n);
    if (rawio_read(rawio_path(dir, "", "ctx"), r->ctx, sizeof(int32_t) * n * WL_T, err) ||
        rawio_read(rawio_path(dir, "", "tgt"), r->tgt, sizeof(int32_t) * n, err))
        return -1;
    return 0;
}

void rawio_run_free(rawio_run *r)
{
    wl_model_ws_free(r->ws);
    free(r->grads);
    free(r->ctx);
    free(r->tgt);
    *r = (rawio_run){0};
}

int rawio_main(int argc, char **argv, const char *name, int (*run)(const char *dir, wl_err *err))
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", name);
        return 2;
    }
    wl_err err = {""};
    if (run(argv[1], &err)) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return 1;
    }
    return 0;
}

int rawio_write(const char *file, const void *data, size_t n, wl_err *err)
{
    FILE *f = fopen(file, "wb");
    if (!f) return wl_fail(err, "cannot write %s", file);
    size_t w = fwrite(data, 1, n, f);
    if (fclose(f) != 0 || w != n) return wl_fail(err, "cannot write %s", file);
    return 0;
}

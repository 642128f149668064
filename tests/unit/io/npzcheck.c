/* npzcheck.c: a test helper for tests/py/test_npz_numpy.py: dumps an .npz as JSON, writes a fixed one, copies one.
 *   io_npzcheck read FILE             -> JSON {"arrays": [{name, dtype, shape, nbytes, crc32, hex?, string?}]}
 *   io_npzcheck write FILE stored|deflate
 *   io_npzcheck copy IN OUT stored|deflate
 * Errors go to stderr with exit status 1. */
#include "wl_npz.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define HEX_MAX 4096 /* arrays up to this many bytes are dumped in full */

static int dump(const char *path)
{
    wl_npz z;
    wl_err err;
    if (wl_npz_read(path, &z, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    cJSON *root = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(root, "arrays");
    for (size_t i = 0; i < z.n; i++) {
        const wl_npy *a = &z.arrays[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", a->name);
        cJSON_AddStringToObject(o, "dtype", a->dtype);
        cJSON *shape = cJSON_AddArrayToObject(o, "shape");
        for (int d = 0; d < a->ndim; d++) cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)a->shape[d]));
        cJSON_AddNumberToObject(o, "nbytes", (double)a->nbytes);
        cJSON_AddNumberToObject(o, "crc32", (double)crc32_z(0, a->data, a->nbytes));
        if (a->nbytes <= HEX_MAX) {
            char *hex = malloc(2 * a->nbytes + 1);
            for (size_t k = 0; k < a->nbytes; k++) sprintf(hex + 2 * k, "%02x", ((unsigned char *)a->data)[k]);
            hex[2 * a->nbytes] = 0;
            cJSON_AddStringToObject(o, "hex", hex);
            free(hex);
        }
        char *s;
        if (strcmp(a->dtype, "<U") == 0) {
            if (wl_npy_get_string(a, &s, &err)) {
                fprintf(stderr, "%s\n", err.msg);
                cJSON_Delete(o);
                cJSON_Delete(root);
                wl_npz_free(&z);
                return 1;
            }
            cJSON_AddStringToObject(o, "string", s);
            free(s);
        }
        cJSON_AddItemToArray(list, o);
    }
    char *text = cJSON_PrintUnformatted(root);
    puts(text);
    free(text);
    cJSON_Delete(root);
    wl_npz_free(&z);
    return 0;
}

/* The fixed archive: values follow simple formulas the Python test recomputes. */
static int write_fixed(const char *path, int compress)
{
    float w[12], empty[1];
    int32_t idx[5];
    int64_t big[8];
    double scalar = 2.718281828459045;
    uint8_t mask[3] = { 1, 0, 1 };
    for (int i = 0; i < 12; i++) w[i] = (float)i * 0.5f - 1.0f;
    for (int i = 0; i < 5; i++) idx[i] = (i - 2) * 1000003;
    for (int i = 0; i < 8; i++) big[i] = ((int64_t)1 << 40) * (i - 4) + i;
    wl_npy arrays[7] = {
        { .name = "state__w", .dtype = "<f4", .ndim = 2, .shape = { 3, 4 }, .data = w, .nbytes = sizeof w },
        { .name = "idx", .dtype = "<i4", .ndim = 1, .shape = { 5 }, .data = idx, .nbytes = sizeof idx },
        { .name = "big", .dtype = "<i8", .ndim = 3, .shape = { 2, 2, 2 }, .data = big, .nbytes = sizeof big },
        { .name = "scalar", .dtype = "<f8", .ndim = 0, .data = &scalar, .nbytes = sizeof scalar },
        { .name = "mask", .dtype = "|b1", .ndim = 1, .shape = { 3 }, .data = mask, .nbytes = sizeof mask },
        { .name = "empty", .dtype = "<f4", .ndim = 2, .shape = { 0, 3 }, .data = empty, .nbytes = 0 },
        { 0 },
    };
    wl_err err;
    if (wl_npy_set_string(&arrays[6], "metadata_json",
                          "{\"kind\": \"attention\", \"note\": \"h\xc3\xa9llo \xe2\x80\x93 \xe4\xb8\x96\xe7\x95\x8c \xf0\x9f\x99\x82\"}", &err) ||
        wl_npz_write(path, arrays, 7, compress, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        wl_npy_free(&arrays[6]);
        return 1;
    }
    wl_npy_free(&arrays[6]);
    return 0;
}

static int copy(const char *in, const char *out, int compress)
{
    wl_npz z;
    wl_err err;
    int rc = wl_npz_read(in, &z, &err) || wl_npz_write(out, z.arrays, z.n, compress, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    wl_npz_free(&z);
    return rc;
}

static int mode(const char *s)
{
    return strcmp(s, "deflate") == 0 ? 1 : strcmp(s, "stored") == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "read") == 0) return dump(argv[2]);
    if (argc == 4 && strcmp(argv[1], "write") == 0 && mode(argv[3]) >= 0) return write_fixed(argv[2], mode(argv[3]));
    if (argc == 5 && strcmp(argv[1], "copy") == 0 && mode(argv[4]) >= 0) return copy(argv[2], argv[3], mode(argv[4]));
    fprintf(stderr, "usage: io_npzcheck read FILE | write FILE stored|deflate | copy IN OUT stored|deflate\n");
    return 2;
}

/* fuzz_npz.c: libFuzzer target for the .npz reader: any input must fail cleanly or read back
 * identically after writing it out again. Built by CMake (WL_FUZZ), or alone with the line below.
 * Seeds: tests/fuzz/corpus/npz (files from wordlab and numpy.savez/savez_compressed, stored and deflated,
 * with data descriptors, and one with ZIP64 extras, ZIP64 end records and a format 2.0 header). */
// clang -fsanitize=fuzzer,address,undefined -Iruntime/core -Iruntime/io tests/fuzz/fuzz_npz.c runtime/io/*.c runtime/core/*.c -lz -lm
#include "wl_npz.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int same(const wl_npy *a, const wl_npy *b)
{
    if (strcmp(a->name, b->name) || strcmp(a->dtype, b->dtype) || a->ndim != b->ndim || a->nbytes != b->nbytes)
        return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d]) return 0;
    return a->nbytes == 0 || memcmp(a->data, b->data, a->nbytes) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wl_npz z;
    wl_err err;
    if (wl_npz_read_mem(data, size, "fuzz.npz", &z, &err)) {
        if (!err.msg[0]) abort(); /* a failure must say why */
        return 0;
    }
    for (size_t i = 0; i < z.n; i++) {
        char *s;
        if (z.arrays[i].dtype[1] == 'U' && wl_npy_get_string(&z.arrays[i], &s, &err) == 0) free(s);
    }
    void *buf;
    size_t len;
    for (int compress = 0; compress <= 1; compress++) {
        if (wl_npz_write_mem(z.arrays, z.n, compress, &buf, &len, &err)) continue;
        wl_npz back;
        if (wl_npz_read_mem(buf, len, "again.npz", &back, &err) || back.n != z.n) abort();
        for (size_t i = 0; i < z.n; i++)
            if (!same(&z.arrays[i], &back.arrays[i])) abort();
        wl_npz_free(&back);
        free(buf);
    }
    wl_npz_free(&z);
    return 0;
}

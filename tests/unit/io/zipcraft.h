/* zipcraft.h: .npz archives whose members declare big arrays of zeros without the memory or time to make them: each
 * member's deflate stream is its .npy header, then one compressed 16 MiB chunk of zeros repeated (every piece ends
 * with a full flush, so the pieces join), then an empty final block. For the tests of the bounds on inflating. */
#ifndef ZIPCRAFT_H
#define ZIPCRAFT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define ZC_CHUNK ((size_t)16 << 20)

typedef struct zc_member {
    const char *name;    /* "a.npy" */
    const char *descr;   /* "<f4" */
    const char *shape;   /* "(375000000,)" */
    size_t zeros;        /* data bytes: the shape's element count times the item size */
} zc_member;

typedef struct zc_buf {
    unsigned char *p;
    size_t len, cap;
} zc_buf;

static void zc_put(zc_buf *b, const void *s, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = 2 * (b->len + n);
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void zc_le(zc_buf *b, unsigned long v, int bytes)
{
    for (int i = 0; i < bytes; i++) {
        unsigned char c = (unsigned char)(v >> (8 * i));
        zc_put(b, &c, 1);
    }
}

/* n bytes of s deflated on a fresh raw stream, ended by a full flush (not final), appended to b. */
static void zc_deflate(zc_buf *b, const unsigned char *s, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK) abort();
    size_t cap = deflateBound(&z, n) + 64;
    unsigned char *out = malloc(cap);
    if (!out) abort();
    z.next_in = (unsigned char *)s;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FULL_FLUSH) != Z_OK || z.avail_in) abort();
    zc_put(b, out, cap - z.avail_out);
    deflateEnd(&z);
    free(out);
}

/* The archive in a malloc'd buffer (*len bytes). */
static unsigned char *zc_build(const zc_member *m, int n, size_t *len)
{
    unsigned char *zeros = calloc(1, ZC_CHUNK);
    zc_buf chunk = {0}, out = {0}, cdir = {0};
    if (!zeros) abort();
    zc_deflate(&chunk, zeros, ZC_CHUNK);
    uLong chunk_crc = crc32(0, zeros, (uInt)ZC_CHUNK);
    for (int i = 0; i < n; i++) {
        char dict[256];
        int dl = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", m[i].descr, m[i].shape);
        while ((10 + dl + 1) % 64) dict[dl++] = ' ';
        dict[dl++] = '\n';
        zc_buf head = {0}, data = {0};
        zc_put(&head, "\x93NUMPY\x01\x00", 8);
        zc_le(&head, (unsigned long)dl, 2);
        zc_put(&head, dict, (size_t)dl);
        zc_deflate(&data, head.p, head.len);
        uLong crc = crc32(0, head.p, (uInt)head.len);
        size_t left = m[i].zeros;
        for (; left >= ZC_CHUNK; left -= ZC_CHUNK) {
            zc_put(&data, chunk.p, chunk.len);
            crc = crc32_combine(crc, chunk_crc, (z_off_t)ZC_CHUNK);
        }
        if (left) {
            zc_deflate(&data, zeros, left);
            crc = crc32_combine(crc, crc32(0, zeros, (uInt)left), (z_off_t)left);
        }
        zc_put(&data, "\x03\x00", 2);   /* an empty final block */
        size_t usize = head.len + m[i].zeros, nlen = strlen(m[i].name), off = out.len;
        const unsigned long fields[] = {crc, data.len, usize};
        zc_le(&out, 0x04034b50, 4);
        zc_le(&out, 20, 2), zc_le(&out, 0, 2), zc_le(&out, 8, 2), zc_le(&out, 0, 4);
        for (int k = 0; k < 3; k++) zc_le(&out, fields[k], 4);
        zc_le(&out, nlen, 2), zc_le(&out, 0, 2);
        zc_put(&out, m[i].name, nlen);
        zc_put(&out, data.p, data.len);
        zc_le(&cdir, 0x02014b50, 4);
        zc_le(&cdir, 20, 2), zc_le(&cdir, 20, 2), zc_le(&cdir, 0, 2), zc_le(&cdir, 8, 2), zc_le(&cdir, 0, 4);
        for (int k = 0; k < 3; k++) zc_le(&cdir, fields[k], 4);
        zc_le(&cdir, nlen, 2), zc_le(&cdir, 0, 2), zc_le(&cdir, 0, 2), zc_le(&cdir, 0, 2), zc_le(&cdir, 0, 2);
        zc_le(&cdir, 0, 4), zc_le(&cdir, off, 4);
        zc_put(&cdir, m[i].name, nlen);
        free(head.p);
        free(data.p);
    }
    size_t cd_off = out.len;
    zc_put(&out, cdir.p, cdir.len);
    zc_le(&out, 0x06054b50, 4);
    zc_le(&out, 0, 2), zc_le(&out, 0, 2), zc_le(&out, (unsigned long)n, 2), zc_le(&out, (unsigned long)n, 2);
    zc_le(&out, cdir.len, 4), zc_le(&out, cd_off, 4), zc_le(&out, 0, 2);
    free(cdir.p);
    free(chunk.p);
    free(zeros);
    *len = out.len;
    return out.p;
}

#endif

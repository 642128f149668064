/* test_npz.c: .npz round trips, strings, hand-crafted ZIP variants and every class of bad input. */
#include "wl_npz.h"
#include "wl_test.h"
#include "zipcraft.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* ---- helpers ---- */

static void put16(unsigned char *p, uint32_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *p, uint32_t v) { put16(p, v & 0xFFFF); put16(p + 2, v >> 16); }
static void put64(unsigned char *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }
static uint32_t get32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* Reads buf and expects failure with an error containing every given fragment. */
static void expect_fail(const void *buf, size_t len, const char *what, const char *frag1, const char *frag2)
{
    wl_npz z;
    wl_err e = { "" };
    int rc = wl_npz_read_mem(buf, len, "t.npz", &z, &e);
    CHECK_MSG(rc == -1, "%s: read succeeded", what);
    CHECK_MSG(z.n == 0 && z.arrays == NULL, "%s: output not empty after failure", what);
    CHECK_MSG(strstr(e.msg, "t.npz") != NULL, "%s: error lacks the label: %s", what, e.msg);
    CHECK_MSG(frag1 == NULL || strstr(e.msg, frag1) != NULL, "%s: error lacks '%s': %s", what, frag1, e.msg);
    CHECK_MSG(frag2 == NULL || strstr(e.msg, frag2) != NULL, "%s: error lacks '%s': %s", what, frag2, e.msg);
    if (rc == 0) wl_npz_free(&z);
}

/* A .npy member: magic, version 1.0, the given header dict padded to 64 bytes, then data. */
static size_t make_npy(unsigned char *out, const char *dict, const void *data, size_t n)
{
    size_t dl = strlen(dict), total = (10 + dl + 1 + 63) / 64 * 64, hlen = total - 10;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    put16(out + 8, (uint32_t)hlen);
    memcpy(out + 10, dict, dl);
    memset(out + 10 + dl, ' ', hlen - dl - 1);
    out[total - 1] = '\n';
    memcpy(out + total, data, n);
    return total + n;
}

/* A hand-built archive: each member stored or deflated, optionally with a data descriptor
 * (flag bit 3, zero sizes in the local header) or ZIP64 extras in both headers; optionally
 * ZIP64 end records. Offsets of local headers and directory records are returned. */
typedef struct craft_member {
    const char *name;
    const void *data;
    size_t len;
    int deflate, descriptor, zip64;
} craft_member;

typedef struct crafted {
    unsigned char buf[16384];
    size_t len, loc[8], cdr[8], cd_off, eocd;
} crafted;

static size_t raw_deflate(const void *in, size_t n, unsigned char *out, size_t cap)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    deflateInit2(&zs, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    zs.next_in = (Bytef *)in;
    zs.avail_in = (uInt)n;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    int rc = deflate(&zs, Z_FINISH);
    CHECK(rc == Z_STREAM_END);
    size_t len = zs.total_out;
    deflateEnd(&zs);
    return len;
}

static void craft(crafted *c, const craft_member *m, size_t n, int zip64_end)
{
    unsigned char *b = c->buf;
    size_t at = 0;
    uint32_t crcs[8];
    size_t csz[8];
    for (size_t i = 0; i < n; i++) {
        size_t nl = strlen(m[i].name), xl = m[i].zip64 ? 20 : 0;
        crcs[i] = (uint32_t)crc32(0, m[i].data, (uInt)m[i].len);
        c->loc[i] = at;
        unsigned char *l = b + at;
        put32(l, 0x04034b50);
        put16(l + 4, m[i].zip64 ? 45 : 20);
        put16(l + 6, m[i].descriptor ? 8 : 0);
        put16(l + 8, m[i].deflate ? 8 : 0);
        put32(l + 10, 0);
        put16(l + 26, (uint32_t)nl);
        put16(l + 28, (uint32_t)xl);
        memcpy(l + 30, m[i].name, nl);
        unsigned char *d = l + 30 + nl + xl;
        csz[i] = m[i].deflate ? raw_deflate(m[i].data, m[i].len, d, 4096) : m[i].len;
        if (!m[i].deflate) memcpy(d, m[i].data, m[i].len);
        put32(l + 14, m[i].descriptor ? 0 : crcs[i]);
        put32(l + 18, m[i].descriptor ? 0 : m[i].zip64 ? 0xFFFFFFFF : (uint32_t)csz[i]);
        put32(l + 22, m[i].descriptor ? 0 : m[i].zip64 ? 0xFFFFFFFF : (uint32_t)m[i].len);
        if (m[i].zip64) {
            put16(l + 30 + nl, 1);
            put16(l + 32 + nl, 16);
            put64(l + 34 + nl, m[i].len);
            put64(l + 42 + nl, csz[i]);
        }
        at += 30 + nl + xl + csz[i];
        if (m[i].descriptor) {
            put32(b + at, 0x08074b50);
            put32(b + at + 4, crcs[i]);
            put32(b + at + 8, (uint32_t)csz[i]);
            put32(b + at + 12, (uint32_t)m[i].len);
            at += 16;
        }
    }
    c->cd_off = at;
    for (size_t i = 0; i < n; i++) {
        size_t nl = strlen(m[i].name), xl = m[i].zip64 ? 28 : 0;
        unsigned char *r = b + at;
        memset(r, 0, 46);
        c->cdr[i] = at;
        put32(r, 0x02014b50);
        put16(r + 4, 20);
        put16(r + 6, m[i].zip64 ? 45 : 20);
        put16(r + 8, m[i].descriptor ? 8 : 0);
        put16(r + 10, m[i].deflate ? 8 : 0);
        put32(r + 16, crcs[i]);
        put32(r + 20, m[i].zip64 ? 0xFFFFFFFF : (uint32_t)csz[i]);
        put32(r + 24, m[i].zip64 ? 0xFFFFFFFF : (uint32_t)m[i].len);
        put16(r + 28, (uint32_t)nl);
        put16(r + 30, (uint32_t)xl);
        put32(r + 42, m[i].zip64 ? 0xFFFFFFFF : (uint32_t)c->loc[i]);
        memcpy(r + 46, m[i].name, nl);
        if (m[i].zip64) {
            put16(r + 46 + nl, 1);
            put16(r + 48 + nl, 24);
            put64(r + 50 + nl, m[i].len);
            put64(r + 58 + nl, csz[i]);
            put64(r + 66 + nl, c->loc[i]);
        }
        at += 46 + nl + xl;
    }
    size_t cd_size = at - c->cd_off;
    if (zip64_end) {
        unsigned char *r = b + at;
        memset(r, 0, 56 + 20);
        put32(r, 0x06064b50);
        put64(r + 4, 44);
        put16(r + 12, 45);
        put16(r + 14, 45);
        put64(r + 24, n);
        put64(r + 32, n);
        put64(r + 40, cd_size);
        put64(r + 48, c->cd_off);
        put32(r + 56, 0x07064b50);
        put64(r + 64, at);
        put32(r + 72, 1);
        at += 76;
    }
    unsigned char *e = b + at;
    memset(e, 0, 22);
    c->eocd = at;
    put32(e, 0x06054b50);
    put16(e + 8, zip64_end ? 0xFFFF : (uint32_t)n);
    put16(e + 10, zip64_end ? 0xFFFF : (uint32_t)n);
    put32(e + 12, zip64_end ? 0xFFFFFFFF : (uint32_t)cd_size);
    put32(e + 16, zip64_end ? 0xFFFFFFFF : (uint32_t)c->cd_off);
    c->len = at + 22;
}

/* Arrays of every supported kind, filled with values derived from their index. */
static float t_f4[6] = { 1.5f, -2.0f, 0.0f, 3.25f, 1e-30f, -7.0f };
static double t_f8 = 3.141592653589793;
static int32_t t_i4[4] = { -1, 0, 1, 2147483647 };
static int64_t t_i8[2] = { INT64_MIN, 1234567890123LL };
static uint8_t t_u1[3] = { 0, 128, 255 };

static size_t sample_arrays(wl_npy *a)
{
    wl_npy s[6] = {
        { .name = "state__w", .dtype = "<f4", .ndim = 2, .shape = { 2, 3 }, .data = t_f4, .nbytes = sizeof t_f4 },
        { .name = "pi", .dtype = "<f8", .ndim = 0, .data = &t_f8, .nbytes = sizeof t_f8 },
        { .name = "ints", .dtype = "<i4", .ndim = 4, .shape = { 1, 2, 1, 2 }, .data = t_i4, .nbytes = sizeof t_i4 },
        { .name = "longs", .dtype = "<i8", .ndim = 1, .shape = { 2 }, .data = t_i8, .nbytes = sizeof t_i8 },
        { .name = "bytes", .dtype = "|u1", .ndim = 1, .shape = { 3 }, .data = t_u1, .nbytes = sizeof t_u1 },
        { .name = "none", .dtype = "<f4", .ndim = 2, .shape = { 0, 5 }, .data = NULL, .nbytes = 0 },
    };
    memcpy(a, s, sizeof s);
    return 6;
}

static void check_same(const wl_npz *z, const wl_npy *a, size_t n)
{
    CHECK(z->n == n);
    for (size_t i = 0; i < n && i < z->n; i++) {
        const wl_npy *b = &z->arrays[i];
        CHECK_MSG(strcmp(a[i].name, b->name) == 0, "member %zu: %s vs %s", i, a[i].name, b->name);
        CHECK(strcmp(a[i].dtype, b->dtype) == 0);
        CHECK(a[i].ndim == b->ndim);
        for (int d = 0; d < a[i].ndim; d++) CHECK(a[i].shape[d] == b->shape[d]);
        CHECK(a[i].nbytes == b->nbytes);
        CHECK(a[i].nbytes == 0 || memcmp(a[i].data, b->data, a[i].nbytes) == 0);
        CHECK(wl_npz_find(z, a[i].name) == b);
    }
}

/* A small valid archive (3 arrays and a string), stored or deflated. */
static void *small_archive(int compress, size_t *len)
{
    wl_npy a[6];
    sample_arrays(a);
    wl_npy arrays[4] = { a[0], a[1], a[2], { 0 } };
    wl_err e;
    CHECK(wl_npy_set_string(&arrays[3], "metadata_json", "{\"kind\": \"mlp\", \"t\": \"\xc3\xa9\"}", &e) == 0);
    void *buf = NULL;
    CHECK(wl_npz_write_mem(arrays, 4, compress, &buf, len, &e) == 0);
    wl_npy_free(&arrays[3]);
    return buf;
}

/* ---- round trips ---- */

static void test_roundtrip_mem(void)
{
    wl_npy a[7];
    size_t n = sample_arrays(a);
    wl_err e;
    CHECK(wl_npy_set_string(&a[n], "metadata_json", "{\"seed\": 11, \"name\": \"na\xc3\xafve \xf0\x9f\x98\x80\"}", &e) == 0);
    n++;
    for (int compress = 0; compress <= 1; compress++) {
        void *buf;
        size_t len;
        CHECK(wl_npz_write_mem(a, n, compress, &buf, &len, &e) == 0);
        wl_npz z;
        CHECK_MSG(wl_npz_read_mem(buf, len, "mem", &z, &e) == 0, "%s", e.msg);
        check_same(&z, a, n);
        CHECK(strcmp(z.label, "mem") == 0);
        const unsigned char *u = buf;
        CHECK((u[8] | u[9] << 8) == (compress ? 8 : 0)); /* the first member's compression method */
        char *s;
        const wl_npy *meta = wl_npz_find(&z, "metadata_json");
        CHECK(meta && wl_npy_get_string(meta, &s, &e) == 0 &&
              strcmp(s, "{\"seed\": 11, \"name\": \"na\xc3\xafve \xf0\x9f\x98\x80\"}") == 0);
        if (meta) free(s);
        CHECK(wl_npz_find(&z, "missing") == NULL);
        wl_npz_free(&z);
        CHECK(z.n == 0 && z.arrays == NULL);
        wl_npz_free(&z); /* twice is harmless */
        free(buf);
    }
    wl_npy_free(&a[n - 1]);
}

static void test_roundtrip_file(void)
{
    char dir[] = "/tmp/wl_npz_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], bad[300];
    snprintf(path, sizeof path, "%s/ck.npz", dir);
    snprintf(bad, sizeof bad, "%s/no/such/dir/ck.npz", dir);
    wl_npy a[6];
    size_t n = sample_arrays(a);
    wl_err e;
    CHECK(wl_npz_write(path, a, n, 1, &e) == 0);
    CHECK(wl_npz_write(path, a, 2, 0, &e) == 0); /* replaces the file */
    wl_npz z;
    CHECK_MSG(wl_npz_read(path, &z, &e) == 0, "%s", e.msg);
    check_same(&z, a, 2);
    CHECK(strcmp(z.label, path) == 0);
    wl_npz_free(&z);
    CHECK(wl_npz_write(bad, a, n, 1, &e) == -1);
    CHECK(strstr(e.msg, bad) != NULL);
    CHECK(wl_npz_read(bad, &z, &e) == -1);
    CHECK(strstr(e.msg, bad) != NULL);
    unlink(path);
    rmdir(dir);
}

static void test_write_rejects(void)
{
    wl_npy a[6];
    sample_arrays(a);
    void *buf;
    size_t len;
    wl_err e;
    wl_npy two[2] = { a[0], a[0] };
    CHECK(wl_npz_write_mem(two, 2, 0, &buf, &len, &e) == -1);
    CHECK(strstr(e.msg, "'state__w' is given twice") != NULL);
    wl_npy x = a[0];
    x.nbytes = 20;
    CHECK(wl_npz_write_mem(&x, 1, 0, &buf, &len, &e) == -1);
    CHECK(strstr(e.msg, "state__w") && strstr(e.msg, "does not match"));
    x = a[0];
    strcpy(x.dtype, ">f4");
    CHECK(wl_npz_write_mem(&x, 1, 0, &buf, &len, &e) == -1);
    CHECK(strstr(e.msg, "unsupported dtype") != NULL);
    x = a[0];
    x.ndim = 5;
    CHECK(wl_npz_write_mem(&x, 1, 0, &buf, &len, &e) == -1);
    CHECK(strstr(e.msg, "dimensions") != NULL);
    x = a[0];
    x.name = "";
    CHECK(wl_npz_write_mem(&x, 1, 0, &buf, &len, &e) == -1);
    x = a[0];
    x.name = "tab\there";
    CHECK(wl_npz_write_mem(&x, 1, 0, &buf, &len, &e) == -1);
    CHECK(strstr(e.msg, "not printable UTF-8") != NULL);
    x = a[0];
    x.data = NULL;
    CHECK(wl_npz_write_mem(&x, 1, 0, &buf, &len, &e) == -1);
    CHECK(strstr(e.msg, "no data") != NULL);
    CHECK(wl_npz_write_mem(NULL, 0, 1, &buf, &len, &e) == 0); /* an empty archive is valid */
    wl_npz z;
    CHECK(wl_npz_read_mem(buf, len, "empty", &z, &e) == 0 && z.n == 0);
    wl_npz_free(&z);
    free(buf);
}

static void test_expect(void)
{
    wl_npy a[6];
    size_t n = sample_arrays(a);
    void *buf;
    size_t len;
    wl_err e;
    CHECK(wl_npz_write_mem(a, n, 0, &buf, &len, &e) == 0);
    wl_npz z;
    CHECK(wl_npz_read_mem(buf, len, "ck.npz", &z, &e) == 0);
    size_t good[2] = { 2, 3 }, wrong[2] = { 3, 2 };
    CHECK(wl_npz_expect(&z, "state__w", "<f4", 2, good, &e) == wl_npz_find(&z, "state__w"));
    CHECK(wl_npz_expect(&z, "state__w", "<f4", 2, wrong, &e) == NULL);
    CHECK_MSG(strstr(e.msg, "ck.npz: array 'state__w' has shape (2, 3), expected (3, 2)") != NULL, "%s", e.msg);
    CHECK(wl_npz_expect(&z, "state__w", "<f4", 1, wrong, &e) == NULL);
    CHECK(strstr(e.msg, "expected (3,)") != NULL);
    CHECK(wl_npz_expect(&z, "state__w", "<f8", 2, good, &e) == NULL);
    CHECK(strstr(e.msg, "has dtype <f4, expected <f8") != NULL);
    CHECK(wl_npz_expect(&z, "state__q", "<f4", 2, good, &e) == NULL);
    CHECK(strstr(e.msg, "ck.npz: array 'state__q' is missing") != NULL);
    CHECK(wl_npz_expect(&z, "pi", "<f8", 0, NULL, &e) != NULL);
    const char *names[7] = { "none", "bytes", "longs", "ints", "pi", "state__w", "extra" };
    CHECK(wl_npz_check_names(&z, names, 6, &e) == 0);
    CHECK(wl_npz_check_names(&z, names, 7, &e) == -1);
    CHECK(strstr(e.msg, "ck.npz: array 'extra' is missing") != NULL);
    CHECK(wl_npz_check_names(&z, names + 1, 5, &e) == -1);
    CHECK(strstr(e.msg, "ck.npz: unexpected array 'none'") != NULL);
    wl_npz_free(&z);
    free(buf);
}

static void test_strings(void)
{
    wl_npy s;
    wl_err e;
    char *out;
    CHECK(wl_npy_set_string(&s, "m", "", &e) == 0);
    CHECK(s.nbytes == 4 && s.ndim == 0 && strcmp(s.dtype, "<U") == 0);
    CHECK(wl_npy_get_string(&s, &out, &e) == 0 && strcmp(out, "") == 0);
    free(out);
    wl_npy_free(&s);
    /* Every UTF-8 length: 1, 2, 3 and 4 bytes. */
    const char *txt = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x99\x82";
    CHECK(wl_npy_set_string(&s, "m", txt, &e) == 0);
    CHECK(s.nbytes == 16);
    const unsigned char *d = s.data;
    CHECK(get32(d) == 'a' && get32(d + 4) == 0xE9 && get32(d + 8) == 0x20AC && get32(d + 12) == 0x1F642);
    CHECK(wl_npy_get_string(&s, &out, &e) == 0 && strcmp(out, txt) == 0);
    free(out);
    /* A surrogate code point is not text. */
    put32((unsigned char *)s.data + 4, 0xD800);
    CHECK(wl_npy_get_string(&s, &out, &e) == -1 && out == NULL);
    CHECK(strstr(e.msg, "U+D800") && strstr(e.msg, "character 1"));
    wl_npy_free(&s);
    const char *bad[] = { "ab\xff", "\xc0\x80", "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "x\xc3" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_MSG(wl_npy_set_string(&s, "meta", bad[i], &e) == -1, "bad UTF-8 %zu accepted", i);
        CHECK(strstr(e.msg, "not valid UTF-8 at byte offset") != NULL && strstr(e.msg, "'meta'") != NULL);
        CHECK(s.name == NULL && s.data == NULL);
    }
    CHECK(wl_npy_set_string(&s, "meta", "ab\xff", &e) == -1 && strstr(e.msg, "offset 2") != NULL);
    wl_npy f = { .name = "w", .dtype = "<f4", .ndim = 1, .shape = { 1 }, .data = t_f4, .nbytes = 4 };
    CHECK(wl_npy_get_string(&f, &out, &e) == -1 && strstr(e.msg, "not a 0-d unicode string") != NULL);
}

/* ---- ZIP variants Python's zipfile and other tools write ---- */

static void test_zip_variants(void)
{
    unsigned char npy[512];
    float v[4] = { 1, 2, 3, 4 };
    size_t n = make_npy(npy, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", v, sizeof v);
    static crafted c;
    for (int variant = 0; variant < 16; variant++) {
        craft_member m[2] = {
            { "a.npy", npy, n, variant & 1, variant >> 1 & 1, variant >> 2 & 1 },
            { "b.npy", npy, n, !(variant & 1), 0, 0 },
        };
        craft(&c, m, 2, variant >> 3 & 1);
        wl_npz z;
        wl_err e;
        CHECK_MSG(wl_npz_read_mem(c.buf, c.len, "v", &z, &e) == 0, "variant %d: %s", variant, e.msg);
        CHECK(z.n == 2 && strcmp(z.arrays[0].name, "a") == 0 && strcmp(z.arrays[1].name, "b") == 0);
        CHECK(z.n == 2 && z.arrays[1].nbytes == 16 && memcmp(z.arrays[1].data, v, 16) == 0);
        wl_npz_free(&z);
    }
    /* Headers NumPy or other writers may produce: quotes, spacing, trailing commas, versions. */
    const char *ok[] = {
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }",
        "{\"descr\":\"<f4\",\"fortran_order\":False,\"shape\":(4,)}",
        "{'shape': (4, ), 'fortran_order': True, 'descr': '<f4'}",
        "  { 'descr' : '<f4' , 'fortran_order' : False , 'shape' : ( 4 , ) , }  ",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        n = make_npy(npy, ok[i], v, sizeof v);
        craft_member m = { "x.npy", npy, n, 0, 0, 0 };
        craft(&c, &m, 1, 0);
        wl_npz z;
        wl_err e;
        CHECK_MSG(wl_npz_read_mem(c.buf, c.len, "h", &z, &e) == 0, "header %zu: %s", i, e.msg);
        CHECK(z.n == 1 && z.arrays[0].ndim == 1 && z.arrays[0].shape[0] == 4);
        wl_npz_free(&z);
    }
    /* Format 2.0 and 3.0: a 4-byte header length. */
    for (int ver = 2; ver <= 3; ver++) {
        const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
        size_t dl = strlen(dict), total = (12 + dl + 1 + 63) / 64 * 64;
        memcpy(npy, "\x93NUMPY", 6);
        npy[6] = (unsigned char)ver;
        npy[7] = 0;
        put32(npy + 8, (uint32_t)(total - 12));
        memset(npy + 12, ' ', total - 12);
        memcpy(npy + 12, dict, dl);
        npy[total - 1] = '\n';
        memcpy(npy + total, v, sizeof v);
        craft_member m = { "v.npy", npy, total + sizeof v, 1, 0, 0 };
        craft(&c, &m, 1, 0);
        wl_npz z;
        wl_err e;
        CHECK_MSG(wl_npz_read_mem(c.buf, c.len, "h", &z, &e) == 0, "version %d: %s", ver, e.msg);
        CHECK(z.n == 1 && z.arrays[0].ndim == 2 && memcmp(z.arrays[0].data, v, 16) == 0);
        wl_npz_free(&z);
    }
}

/* ---- bad input ---- */

/* Where expect_patched writes: the member's local header, its central directory record, the end record. */
enum { AT_LOC, AT_CDR, AT_EOCD };

/* Crafts the archive of member m alone, writes value (bits 16 or 32) at byte off of the header that at names, and
 * expects the reader to fail as expect_fail does. */
static void expect_patched(crafted *c, const craft_member *m, int at, size_t off, int bits, uint32_t value,
                           const char *what, const char *frag1, const char *frag2)
{
    craft(c, m, 1, 0);
    unsigned char *p = c->buf + (at == AT_LOC ? c->loc[0] : at == AT_CDR ? c->cdr[0] : c->eocd) + off;
    if (bits == 16) put16(p, value);
    else put32(p, value);
    expect_fail(c->buf, c->len, what, frag1, frag2);
}


static void test_bad_container(void)
{
    expect_fail("", 0, "empty", "not a ZIP archive", NULL);
    const char junk[] = "this is certainly not a zip archive, just some text";
    expect_fail(junk, sizeof junk, "text", "not a ZIP archive", NULL);

    unsigned char npy[512];
    float v[4] = { 1, 2, 3, 4 };
    size_t n = make_npy(npy, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", v, sizeof v);
    static crafted c, c2;
    craft_member one = { "w.npy", npy, n, 0, 0, 0 };

    /* Bad CRC: flip a data byte of a stored member. */
    craft(&c, &one, 1, 0);
    c.buf[c.cd_off - 1] ^= 0x40;
    expect_fail(c.buf, c.len, "crc", "member 'w.npy' (local header at byte offset 0)", "CRC-32 mismatch");

    /* Unknown compression method (bzip2) in both headers. */
    craft(&c, &one, 1, 0);
    put16(c.buf + c.loc[0] + 8, 12);
    put16(c.buf + c.cdr[0] + 10, 12);
    expect_fail(c.buf, c.len, "method", "compression method 12 (bzip2)", "'w.npy'");

    /* Local and central headers disagree. */
    expect_patched(&c, &one, AT_LOC, 8, 16, 8, "method mismatch", "local header says compression method 8", NULL);
    craft(&c, &one, 1, 0);
    c.buf[c.loc[0] + 30] = 'x';
    expect_fail(c.buf, c.len, "name mismatch", "local header names a different member", NULL);
    expect_patched(&c, &one, AT_CDR, 42, 32, 5, "bad offset", "no local file header signature", "byte offset 5");

    /* Encrypted. */
    expect_patched(&c, &one, AT_CDR, 8, 16, 1, "encrypted", "encrypted", NULL);

    /* Absurd sizes: beyond the member limit, beyond the deflate ratio, beyond the file. */
    expect_patched(&c, &one, AT_CDR, 24, 32, 0xFFFFFFF0u, "huge usize", "claims 4294967280 bytes uncompressed", "'w.npy'");
    craft_member def = { "w.npy", npy, n, 1, 0, 0 };
    expect_patched(&c, &def, AT_CDR, 24, 32, 0x7FFFFFFF, "ratio", "ratio", NULL);
    craft(&c, &one, 1, 0);
    put32(c.buf + c.cdr[0] + 20, 0x7FFFFFFF);
    put32(c.buf + c.cdr[0] + 24, 0x7FFFFFFF);
    expect_fail(c.buf, c.len, "csize", "beyond the file", NULL);
    craft(&c, &one, 1, 0);
    put32(c.buf + c.cdr[0] + 20, (uint32_t)n + 40);
    put32(c.buf + c.cdr[0] + 24, (uint32_t)n + 40);
    expect_fail(c.buf, c.len, "past data", "run past the end of the data area", NULL);
    expect_patched(&c, &one, AT_CDR, 20, 32, (uint32_t)n - 1, "stored sizes", "sizes differ", NULL);

    /* Deflate stream shorter or longer than declared, or garbage. */
    craft(&c, &def, 1, 0);
    put32(c.buf + c.cdr[0] + 20, get32(c.buf + c.cdr[0] + 20) - 5);
    expect_fail(c.buf, c.len, "short deflate", "'w.npy'", "ends early");
    expect_patched(&c, &def, AT_CDR, 24, 32, (uint32_t)n - 8, "long deflate", "inflates to more than the declared", NULL);
    expect_patched(&c, &def, AT_CDR, 24, 32, (uint32_t)n + 8, "short output", "not the declared", NULL);
    craft(&c, &def, 1, 0);
    memset(c.buf + c.loc[0] + 35, 0xFF, 8);
    expect_fail(c.buf, c.len, "garbage deflate", "'w.npy'", NULL);

    /* Duplicate names. */
    craft_member dup[2] = { one, one };
    craft(&c, dup, 2, 0);
    char where[64];
    snprintf(where, sizeof where, "byte offset %zu): duplicate name (also at byte offset 0)", c.loc[1]);
    expect_fail(c.buf, c.len, "duplicate", "member 'w.npy'", where);

    /* Overlapping members: a second directory entry pointing into the first member's data,
     * where a complete local record of the same archive was planted. */
    craft(&c2, &one, 1, 0);
    craft_member outer[2] = { { "a.npy", c2.buf, c2.cd_off, 0, 0, 0 }, one };
    craft(&c, outer, 2, 0);
    put32(c.buf + c.cdr[1] + 42, (uint32_t)(c.loc[0] + 30 + 5));
    expect_fail(c.buf, c.len, "overlap", "overlaps member", NULL);

    /* Directory damage. */
    craft(&c, &one, 1, 0);
    put16(c.buf + c.eocd + 10, 3);
    put16(c.buf + c.eocd + 8, 3);
    expect_fail(c.buf, c.len, "count", "claims 3 members", NULL);
    expect_patched(&c, &one, AT_EOCD, 4, 16, 1, "disk", "multi-disk", NULL);
    craft(&c, &one, 1, 0);
    put32(c.buf + c.eocd + 16, (uint32_t)c.cd_off + 3);
    expect_fail(c.buf, c.len, "cd offset", "lies outside the file", NULL);
    craft(&c, &one, 1, 0);
    c.buf[c.cdr[0]] = 'Q';
    expect_fail(c.buf, c.len, "cd sig", "central directory record 0", "is corrupt");
    craft(&c, &one, 1, 0);
    put16(c.buf + c.eocd + 8, 0xFFFF);
    put16(c.buf + c.eocd + 10, 0xFFFF);
    expect_fail(c.buf, c.len, "zip64 locator", "ZIP64 locator", NULL);
    craft(&c, &one, 1, 1);
    put64(c.buf + c.eocd - 20 + 8, 3);
    expect_fail(c.buf, c.len, "zip64 eocd", "ZIP64 end record not found", NULL);
    craft_member z64 = { "w.npy", npy, n, 0, 0, 1 };
    craft(&c, &z64, 1, 0);
    put16(c.buf + c.cdr[0] + 48 + 5, 16); /* the ZIP64 extra lacks the offset */
    expect_fail(c.buf, c.len, "zip64 extra", "ZIP64 extra field is too short", NULL);

    /* Names: not .npy, and empty after the suffix. */
    craft_member txt = { "notes.txt", npy, n, 0, 0, 0 };
    craft(&c, &txt, 1, 0);
    expect_fail(c.buf, c.len, "txt", "'notes.txt'", "not a .npy array");
    craft_member latin1 = { "caf\xe9.npy", npy, n, 0, 0, 0 };
    craft(&c, &latin1, 1, 0);
    expect_fail(c.buf, c.len, "latin1 name", "record 0 at byte offset", "not printable UTF-8");
    craft_member ctrl = { "a\nb.npy", npy, n, 0, 0, 0 };
    craft(&c, &ctrl, 1, 0);
    expect_fail(c.buf, c.len, "control name", "not printable UTF-8", NULL);
    craft_member utf8 = { "caf\xc3\xa9.npy", npy, n, 1, 0, 0 };
    craft(&c, &utf8, 1, 0);
    wl_npz z;
    wl_err e;
    CHECK(wl_npz_read_mem(c.buf, c.len, "u", &z, &e) == 0 && z.n == 1 && strcmp(z.arrays[0].name, "caf\xc3\xa9") == 0);
    wl_npz_free(&z);
    craft_member bare = { ".npy", npy, n, 0, 0, 0 };
    craft(&c, &bare, 1, 0);
    expect_fail(c.buf, c.len, "bare", "not a .npy array", NULL);
}

static void test_bad_npy(void)
{
    static const struct { const char *dict; size_t data; const char *frag; } cases[] = {
        { "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", 16, "unsupported dtype" },
        { "{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }", 8, "unsupported dtype" },
        { "{'descr': '|O', 'fortran_order': False, 'shape': (4,), }", 32, "unsupported dtype" },
        { "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }", 16, "not a simple type string" },
        { "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16, "fortran_order True" },
        { "{'descr': '<f4', 'fortran_order': 0, 'shape': (4,), }", 16, "neither True nor False" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 16, "holds 16 data bytes, but dtype <f4 and shape (3,) need 12" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", 16, "need 20" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 4), }", 16, "more than 4 dimensions" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", 16, "too large" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", 16, "too large" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", 16, "'shape' is not a tuple" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (4), }", 16, "'shape' is not a tuple" },
        { "{'descr': '<f4', 'fortran_order': False, }", 16, "missing one of the keys" },
        { "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 16, "repeated key" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'extra': 1}", 16, "unexpected" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), } x", 16, "not a Python dict literal" },
        { "['descr', '<f4']", 16, "not a Python dict literal" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (4,)", 16, "not a Python dict literal" },
        { "{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }", 24, "only as 0-d strings" },
        { "{'descr': '<U3x', 'fortran_order': False, 'shape': (), }", 12, "unsupported dtype" },
        { "{'descr': '<U', 'fortran_order': False, 'shape': (), }", 4, "unsupported dtype" },
        { "{'descr': '<U2', 'fortran_order': False, 'shape': (), }", 12, "need 8" },
    };
    unsigned char npy[1024], zeros[64] = { 0 };
    static crafted c;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = make_npy(npy, cases[i].dict, zeros, cases[i].data);
        craft_member m = { "arr.npy", npy, n, i & 1, 0, 0 };
        craft(&c, &m, 1, 0);
        char what[32];
        snprintf(what, sizeof what, "npy case %zu", i);
        expect_fail(c.buf, c.len, what, "member 'arr.npy' (local header at byte offset 0)", cases[i].frag);
    }
    /* Magic, version and header length. */
    size_t n = make_npy(npy, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", zeros, 16);
    craft_member m = { "arr.npy", npy, n, 0, 0, 0 };
    npy[1] = 'X';
    craft(&c, &m, 1, 0);
    expect_fail(c.buf, c.len, "magic", "not a .npy file (bad magic string)", NULL);
    npy[1] = 'N';
    npy[6] = 4;
    craft(&c, &m, 1, 0);
    expect_fail(c.buf, c.len, "version", "unsupported .npy format version 4.0", NULL);
    npy[6] = 1;
    put16(npy + 8, 0xFFF0);
    craft(&c, &m, 1, 0);
    expect_fail(c.buf, c.len, "hlen", "header runs past the end", NULL);
    craft_member tiny = { "arr.npy", npy, 7, 0, 0, 0 };
    craft(&c, &tiny, 1, 0);
    expect_fail(c.buf, c.len, "tiny", "bad magic", NULL);
}

/* Every prefix of a valid archive must fail cleanly; every single-byte corruption must
 * either fail or give a well-formed result (ASan checks memory). */
static void test_truncation_and_flips(void)
{
    for (int compress = 0; compress <= 1; compress++) {
        size_t len;
        unsigned char *full = small_archive(compress, &len);
        for (size_t k = 0; k < len; k++) {
            unsigned char *p = malloc(k ? k : 1);
            memcpy(p, full, k);
            wl_npz z;
            wl_err e = { "" };
            int rc = wl_npz_read_mem(p, k, "cut.npz", &z, &e);
            CHECK_MSG(rc == -1 && strstr(e.msg, "cut.npz") != NULL, "prefix %zu of %zu: rc %d: %s", k, len, rc, e.msg);
            if (rc == 0) wl_npz_free(&z);
            free(p);
        }
        unsigned char *p = malloc(len);
        size_t failed = 0;
        for (size_t k = 0; k < len; k++) {
            memcpy(p, full, len);
            p[k] ^= 0x5A;
            wl_npz z;
            wl_err e = { "" };
            if (wl_npz_read_mem(p, len, "flip.npz", &z, &e) == 0) {
                for (size_t i = 0; i < z.n; i++) CHECK(z.arrays[i].name && z.arrays[i].data);
                wl_npz_free(&z);
            } else {
                CHECK(strstr(e.msg, "flip.npz") != NULL);
                failed++;
            }
        }
        CHECK_MSG(failed > len / 2, "only %zu of %zu corruptions were detected", failed, len);
        free(p);
        free(full);
    }
}

/* Members that each pass the per-member limit but together declare 4.5 GB are refused before anything is inflated. */
static void test_total_bound(void)
{
    const zc_member m[3] = {{"a.npy", "<f4", "(375000000,)", 1500000000},
                            {"b.npy", "<f4", "(375000000,)", 1500000000},
                            {"c.npy", "<f4", "(375000000,)", 1500000000}};
    size_t len;
    unsigned char *buf = zc_build(m, 3, &len);
    wl_npz z;
    wl_err e = {{0}};
    CHECK(wl_npz_read_mem(buf, len, "big.npz", &z, &e) == -1 && z.n == 0);
    CHECK_MSG(strstr(e.msg, "big.npz: its arrays declare 4500000") && strstr(e.msg, "in all, more than the 2147483648 allowed"),
              "%s", e.msg);
    wl_npz_opts o = {.max_total = 1000};
    const zc_member small[1] = {{"s.npy", "<f4", "(1000,)", 4000}};
    free(buf);
    buf = zc_build(small, 1, &len);
    CHECK(wl_npz_read_mem_opts(buf, len, "small.npz", &o, &z, &e) == -1 && strstr(e.msg, "more than the 1000 allowed"));
    free(buf);
}

static int seen_shapes;

static int refuse_after_looking(void *ud, const wl_npz *declared, wl_err *err)
{
    (void)ud;
    seen_shapes = declared->n == 1 && declared->arrays[0].data == NULL && declared->arrays[0].ndim == 2 &&
                  declared->arrays[0].shape[0] == 4096 && declared->arrays[0].shape[1] == 4096 &&
                  !strcmp(declared->arrays[0].name, "w") && !strcmp(declared->arrays[0].dtype, "<f4");
    return wl_fail(err, "refused by the check");
}

/* A 64 MiB member inflates in several steps; interrupt stops it; the check sees the declared shapes first. */
static void test_interrupt_and_check(void)
{
    const zc_member m[1] = {{"w.npy", "<f4", "(4096, 4096)", (size_t)64 << 20}};
    size_t len;
    unsigned char *buf = zc_build(m, 1, &len);
    wl_npz z;
    wl_err e = {{0}};
    CHECK_MSG(wl_npz_read_mem(buf, len, "w.npz", &z, &e) == 0, "%s", e.msg);
    int zero = z.n == 1 && z.arrays[0].nbytes == ((size_t)64 << 20);
    for (size_t i = 0; zero && i < z.arrays[0].nbytes; i += 4096) zero = ((const unsigned char *)z.arrays[0].data)[i] == 0;
    CHECK(zero);
    wl_npz_free(&z);
    volatile sig_atomic_t stop = 1;
    wl_npz_opts o = {.interrupt = &stop};
    CHECK(wl_npz_read_mem_opts(buf, len, "w.npz", &o, &z, &e) == -1 && z.n == 0);
    CHECK_MSG(strstr(e.msg, "w.npz: member 'w.npy'") && strstr(e.msg, "interrupted after inflating"), "%s", e.msg);
    wl_npz_opts c = {.check = refuse_after_looking};
    CHECK(wl_npz_read_mem_opts(buf, len, "w.npz", &c, &z, &e) == -1 && strstr(e.msg, "refused by the check") && seen_shapes);
    free(buf);
}

void wl_test_main(void)
{
    test_total_bound();
    test_interrupt_and_check();
    test_roundtrip_mem();
    test_roundtrip_file();
    test_write_rejects();
    test_expect();
    test_strings();
    test_zip_variants();
    test_bad_container();
    test_bad_npy();
    test_truncation_and_flips();
}

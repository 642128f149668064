/* wl_zip.c: the ZIP container under .npz: reads what Python's zipfile writes, writes what it reads. */
#include "wl_zip.h"
#include "wl_utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define SIG_LOCAL 0x04034b50u
#define SIG_CDIR 0x02014b50u
#define SIG_EOCD 0x06054b50u
#define SIG_Z64_EOCD 0x06064b50u
#define SIG_Z64_LOCATOR 0x07064b50u
#define LOCAL_LEN 30
#define CDIR_LEN 46
#define EOCD_LEN 22
#define Z64_EOCD_LEN 56
#define Z64_LOCATOR_LEN 20
#define U16_MAX 0xFFFFu
#define U32_MAX 0xFFFFFFFFu
#define ZLIB_CHUNK ((size_t)1 << 30) /* zlib counts in 32-bit units: feed it at most this much */
#define INFLATE_STEP ((size_t)16 << 20) /* bytes inflated between looks at the interrupt flag */
#define DOS_DATE_1980 0x0021         /* 1980-01-01, for reproducible archives */

static uint32_t rd16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const unsigned char *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* Names must be UTF-8 without control characters, so that messages and callers can show them. */
static int printable_utf8(const char *s)
{
    uint32_t cp;
    for (size_t n = strlen(s), k; n; s += k, n -= k)
        if (!(k = wl_utf8_next(s, n, &cp)) || cp < 0x20 || cp == 0x7F) return 0;
    return 1;
}

/* An error about one member: "<label>: member '<name>' (local header at byte offset N): ...". */
static int member_fail(wl_err *err, const char *label, const char *name, size_t off,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int member_fail(wl_err *err, const char *label, const char *name, size_t off,
                       const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return wl_fail(err, "%s: member '%s' (local header at byte offset %zu): %s", label, name, off, what);
}

static const char *method_name(uint32_t m)
{
    switch (m) {
    case 9: return "deflate64";
    case 12: return "bzip2";
    case 14: return "LZMA";
    case 93: return "zstd";
    case 95: return "xz";
    default: return "unknown";
    }
}

/* Finds the end-of-central-directory record, searching back over a possible comment. */
static int find_eocd(const unsigned char *buf, size_t len, const char *label, size_t *pos, wl_err *err)
{
    if (len < EOCD_LEN)
        return wl_fail(err, "%s: not a ZIP archive (%zu bytes, too short for an end record); truncated?", label, len);
    size_t start = len - EOCD_LEN;
    size_t stop = start > U16_MAX ? start - U16_MAX : 0;
    for (size_t p = start + 1; p-- > stop;) {
        if (rd32(buf + p) == SIG_EOCD && rd16(buf + p + 20) <= len - p - EOCD_LEN) {
            *pos = p;
            return 0;
        }
    }
    return wl_fail(err, "%s: not a ZIP archive or truncated (no end-of-central-directory record in its last %zu bytes)",
                   label, len - stop);
}

/* Reads the ZIP64 extra field (id 1) of a central directory record: each of usize, csize and
 * header offset that is 0xFFFFFFFF in the record is replaced by the next 64-bit field. */
static int read_zip64_extra(const unsigned char *x, size_t xlen, uint64_t *usize, uint64_t *csize,
                            uint64_t *off, const char *label, const char *name, size_t rec, wl_err *err)
{
    while (xlen >= 4) {
        uint32_t id = rd16(x), sz = rd16(x + 2);
        if (sz > xlen - 4) break;
        if (id == 1) {
            uint64_t *fields[3] = { usize, csize, off };
            size_t at = 0;
            for (int i = 0; i < 3; i++) {
                if (*fields[i] != U32_MAX) continue;
                if (sz - at < 8)
                    return wl_fail(err, "%s: member '%s' (central directory record at byte offset %zu): ZIP64 extra field is too short",
                                   label, name, rec);
                *fields[i] = rd64(x + 4 + at);
                at += 8;
            }
            return 0;
        }
        x += 4 + sz;
        xlen -= 4 + sz;
    }
    return 0;
}

static int cmp_offset(const void *a, const void *b)
{
    const wl_zip_entry *x = *(const wl_zip_entry *const *)a, *y = *(const wl_zip_entry *const *)b;
    return x->header_off < y->header_off ? -1 : x->header_off > y->header_off;
}

static int cmp_name(const void *a, const void *b)
{
    const wl_zip_entry *x = *(const wl_zip_entry *const *)a, *y = *(const wl_zip_entry *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : cmp_offset(a, b);
}

/* Members must be distinct and must not overlap (which would let a small file inflate to
 * a huge total). Sorts a scratch array of pointers, once by offset and once by name. */
static int check_layout(wl_zip_entry *e, size_t n, const char *label, wl_err *err)
{
    if (n < 2) return 0;
    wl_zip_entry **s = malloc(n * sizeof *s);
    if (!s) return wl_fail(err, "%s: out of memory for %zu directory entries", label, n);
    for (size_t i = 0; i < n; i++) s[i] = &e[i];
    int rc = 0;
    qsort(s, n, sizeof *s, cmp_offset);
    for (size_t i = 0; i + 1 < n && rc == 0; i++)
        if (s[i]->data_off + s[i]->csize > s[i + 1]->header_off)
            rc = member_fail(err, label, s[i]->name, s[i]->header_off,
                             "its data overlaps member '%s' at byte offset %zu", s[i + 1]->name, s[i + 1]->header_off);
    qsort(s, n, sizeof *s, cmp_name);
    for (size_t i = 0; i + 1 < n && rc == 0; i++)
        if (strcmp(s[i]->name, s[i + 1]->name) == 0)
            rc = member_fail(err, label, s[i + 1]->name, s[i + 1]->header_off,
                             "duplicate name (also at byte offset %zu)", s[i]->header_off);
    free(s);
    return rc;
}

/* Checks one central directory record's sizes and its local header; fills data_off. */
static int check_member(const unsigned char *buf, size_t cd_off, const char *label, wl_zip_entry *e,
                        uint32_t flags, const unsigned char *cname, size_t nlen, wl_err *err)
{
    const char *nm = e->name;
    if (flags & 1) return member_fail(err, label, nm, e->header_off, "is encrypted, which is not supported");
    if (e->method != 0 && e->method != 8)
        return member_fail(err, label, nm, e->header_off,
                           "uses compression method %d (%s); only stored (0) and deflate (8) are supported",
                           e->method, method_name((uint32_t)e->method));
    if (e->method == 0 && e->csize != e->usize)
        return member_fail(err, label, nm, e->header_off, "is stored but its sizes differ (%zu compressed, %zu uncompressed)",
                           e->csize, e->usize);
    if (e->header_off > cd_off || cd_off - e->header_off < LOCAL_LEN)
        return member_fail(err, label, nm, e->header_off, "local header lies outside the file's data area (which ends at byte offset %zu)",
                           cd_off);
    if (e->method == 8 && e->usize / WL_ZIP_MAX_RATIO > e->csize + 1)
        return member_fail(err, label, nm, e->header_off,
                           "claims %zu bytes from %zu compressed, beyond the %dx ratio any deflate stream can reach",
                           e->usize, e->csize, WL_ZIP_MAX_RATIO);
    const unsigned char *l = buf + e->header_off;
    if (rd32(l) != SIG_LOCAL) return member_fail(err, label, nm, e->header_off, "no local file header signature there");
    if ((int)rd16(l + 8) != e->method)
        return member_fail(err, label, nm, e->header_off, "local header says compression method %u, central directory says %d",
                           rd16(l + 8), e->method);
    size_t lnlen = rd16(l + 26), lxlen = rd16(l + 28);
    if (lnlen != nlen || cd_off - e->header_off - LOCAL_LEN < lnlen || memcmp(l + LOCAL_LEN, cname, nlen) != 0)
        return member_fail(err, label, nm, e->header_off, "local header names a different member");
    e->data_off = e->header_off + LOCAL_LEN + lnlen + lxlen;
    if (e->data_off > cd_off || e->csize > cd_off - e->data_off)
        return member_fail(err, label, nm, e->header_off,
                           "its %zu bytes of data at byte offset %zu run past the end of the data area (byte offset %zu); truncated?",
                           e->csize, e->data_off, cd_off);
    return 0;
}

int wl_zip_list(const unsigned char *buf, size_t len, const char *label,
                wl_zip_entry **entries, size_t *n, wl_err *err)
{
    *entries = NULL;
    *n = 0;
    size_t eocd = 0;
    if (find_eocd(buf, len, label, &eocd, err)) return -1;
    const unsigned char *r = buf + eocd;
    if (rd16(r + 4) != 0 || rd16(r + 6) != 0 || rd16(r + 8) != rd16(r + 10))
        return wl_fail(err, "%s: multi-disk ZIP archives are not supported (end record at byte offset %zu)", label, eocd);
    uint64_t count = rd16(r + 10), cd_size = rd32(r + 12), cd_off = rd32(r + 16);
    size_t end = eocd; /* the central directory must end before the end records */
    if (count == U16_MAX || cd_size == U32_MAX || cd_off == U32_MAX) {
        if (eocd < Z64_LOCATOR_LEN || rd32(buf + eocd - Z64_LOCATOR_LEN) != SIG_Z64_LOCATOR)
            return wl_fail(err, "%s: end record at byte offset %zu needs a ZIP64 locator, which is missing", label, eocd);
        const unsigned char *loc = buf + eocd - Z64_LOCATOR_LEN;
        uint64_t z = rd64(loc + 8);
        if (z > eocd - Z64_LOCATOR_LEN || eocd - Z64_LOCATOR_LEN - z < Z64_EOCD_LEN || rd32(buf + z) != SIG_Z64_EOCD)
            return wl_fail(err, "%s: ZIP64 end record not found at byte offset %llu", label, (unsigned long long)z);
        const unsigned char *r64 = buf + z;
        if (rd32(r64 + 16) != 0 || rd32(r64 + 20) != 0 || rd64(r64 + 24) != rd64(r64 + 32))
            return wl_fail(err, "%s: multi-disk ZIP archives are not supported (ZIP64 end record at byte offset %llu)",
                           label, (unsigned long long)z);
        count = rd64(r64 + 32);
        cd_size = rd64(r64 + 40);
        cd_off = rd64(r64 + 48);
        end = (size_t)z;
    }
    if (cd_off > end || cd_size > end - cd_off)
        return wl_fail(err, "%s: central directory (%llu bytes at byte offset %llu) lies outside the file; truncated?",
                       label, (unsigned long long)cd_size, (unsigned long long)cd_off);
    if (count > cd_size / CDIR_LEN)
        return wl_fail(err, "%s: central directory at byte offset %llu claims %llu members but has room for %llu",
                       label, (unsigned long long)cd_off, (unsigned long long)count,
                       (unsigned long long)(cd_size / CDIR_LEN));
    wl_zip_entry *e = calloc(count ? count : 1, sizeof *e);
    if (!e) return wl_fail(err, "%s: out of memory for %llu directory entries", label, (unsigned long long)count);
    size_t p = cd_off, cd_end = cd_off + cd_size, i;
    for (i = 0; i < count; i++) {
        const unsigned char *c = buf + p;
        if (cd_end - p < CDIR_LEN || rd32(c) != SIG_CDIR) {
            wl_fail(err, "%s: central directory record %zu at byte offset %zu is corrupt", label, i, p);
            break;
        }
        size_t nlen = rd16(c + 28), xlen = rd16(c + 30), clen = rd16(c + 32);
        if (CDIR_LEN + nlen + xlen + clen > cd_end - p) {
            wl_fail(err, "%s: central directory record %zu at byte offset %zu runs past the directory's end", label, i, p);
            break;
        }
        if (nlen == 0 || memchr(c + CDIR_LEN, 0, nlen)) {
            wl_fail(err, "%s: central directory record %zu at byte offset %zu has an empty name or one with a NUL byte",
                    label, i, p);
            break;
        }
        e[i].name = malloc(nlen + 1);
        if (!e[i].name) {
            wl_fail(err, "%s: out of memory", label);
            break;
        }
        memcpy(e[i].name, c + CDIR_LEN, nlen);
        e[i].name[nlen] = 0;
        if (!printable_utf8(e[i].name)) {
            wl_fail(err, "%s: central directory record %zu at byte offset %zu: the member name is not printable UTF-8",
                    label, i, p);
            break;
        }
        uint64_t usize = rd32(c + 24), csize = rd32(c + 20), hoff = rd32(c + 42);
        if (read_zip64_extra(c + CDIR_LEN + nlen, xlen, &usize, &csize, &hoff, label, e[i].name, p, err)) break;
        if (usize > WL_ZIP_MAX_MEMBER) {
            wl_fail(err, "%s: member '%s' (central directory record at byte offset %zu) claims %llu bytes uncompressed, more than the %zu allowed",
                    label, e[i].name, p, (unsigned long long)usize, WL_ZIP_MAX_MEMBER);
            break;
        }
        if (csize > len || hoff > len) {
            wl_fail(err, "%s: member '%s' (central directory record at byte offset %zu) claims %llu bytes at byte offset %llu, beyond the file's %zu bytes",
                    label, e[i].name, p, (unsigned long long)csize, (unsigned long long)hoff, len);
            break;
        }
        e[i].usize = (size_t)usize;
        e[i].csize = (size_t)csize;
        e[i].header_off = (size_t)hoff;
        e[i].crc = rd32(c + 16);
        e[i].method = (int)rd16(c + 10);
        if (check_member(buf, cd_off, label, &e[i], rd16(c + 8), c + CDIR_LEN, nlen, err)) break;
        p += CDIR_LEN + nlen + xlen + clen;
    }
    if (i < count || check_layout(e, count, label, err)) {
        wl_zip_entries_free(e, count);
        return -1;
    }
    *entries = e;
    *n = count;
    return 0;
}

void wl_zip_entries_free(wl_zip_entry *entries, size_t n)
{
    if (!entries) return;
    for (size_t i = 0; i < n; i++) free(entries[i].name);
    free(entries);
}

/* Inflates the member's first `want` bytes into out: all of it (want == e->usize, checked to end exactly there) or
 * a head of it. Looks at the interrupt flag after every INFLATE_STEP bytes. */
static int inflate_member(const unsigned char *in, const char *label, const wl_zip_entry *e, size_t want,
                          volatile sig_atomic_t *interrupt, unsigned char *out, wl_err *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, -15) != Z_OK) return member_fail(err, label, e->name, e->header_off, "cannot start inflate");
    size_t in_left = e->csize, produced = 0;
    zs.next_out = out;
    int rc;
    for (;;) {
        if (zs.avail_in == 0 && in_left > 0) {
            size_t chunk = in_left < ZLIB_CHUNK ? in_left : ZLIB_CHUNK;
            zs.next_in = (Bytef *)in;
            zs.avail_in = (uInt)chunk;
            in += chunk;
            in_left -= chunk;
        }
        if (zs.avail_out == 0) {
            produced = (size_t)(zs.next_out - out);
            if (produced == want && want < e->usize) {
                inflateEnd(&zs);
                return 0;
            }
            if (interrupt && *interrupt) {
                inflateEnd(&zs);
                return member_fail(err, label, e->name, e->header_off, "interrupted after inflating %zu of its %zu bytes",
                                   produced, e->usize);
            }
            zs.avail_out = (uInt)(want - produced < INFLATE_STEP ? want - produced : INFLATE_STEP);
        }
        rc = inflate(&zs, Z_NO_FLUSH);
        if (rc != Z_OK) break;
    }
    produced = (size_t)(zs.next_out - out);
    int at_end = zs.avail_in == 0 && in_left == 0;
    const char *zmsg = zs.msg ? zs.msg : "corrupt data";
    char why[128];
    snprintf(why, sizeof why, "%s", zmsg);
    inflateEnd(&zs);
    if (rc == Z_STREAM_END) {
        if (produced == e->usize) return 0;
        return member_fail(err, label, e->name, e->header_off, "inflates to %zu bytes, not the declared %zu",
                           produced, e->usize);
    }
    if (rc == Z_BUF_ERROR && at_end)
        return member_fail(err, label, e->name, e->header_off,
                           "deflate stream ends early after %zu of %zu bytes; truncated?", produced, e->usize);
    if (rc == Z_BUF_ERROR)
        return member_fail(err, label, e->name, e->header_off, "inflates to more than the declared %zu bytes", e->usize);
    return member_fail(err, label, e->name, e->header_off, "corrupt deflate data (%s)", why);
}

int wl_zip_extract(const unsigned char *buf, const char *label, const wl_zip_entry *e,
                   volatile sig_atomic_t *interrupt, unsigned char **out, wl_err *err)
{
    *out = NULL;
    unsigned char *o = malloc(e->usize ? e->usize : 1);
    if (!o) return member_fail(err, label, e->name, e->header_off, "out of memory for %zu bytes", e->usize);
    const unsigned char *in = buf + e->data_off;
    if (e->method == 0) {
        memcpy(o, in, e->usize);
    } else if (inflate_member(in, label, e, e->usize, interrupt, o, err)) {
        free(o);
        return -1;
    }
    uint32_t crc = (uint32_t)crc32_z(0, o, e->usize);
    if (crc != e->crc) {
        free(o);
        return member_fail(err, label, e->name, e->header_off,
                           "CRC-32 mismatch (stored 0x%08x, computed 0x%08x); the file is corrupt", e->crc, crc);
    }
    *out = o;
    return 0;
}

int wl_zip_extract_head(const unsigned char *buf, const char *label, const wl_zip_entry *e, size_t want,
                        unsigned char *out, wl_err *err)
{
    if (want > e->usize) want = e->usize;
    if (e->method == 0) {
        memcpy(out, buf + e->data_off, want);
        return 0;
    }
    return inflate_member(buf + e->data_off, label, e, want, NULL, out, err);
}

/* Makes room for need more bytes in a growing buffer. */
static int grow(unsigned char **b, size_t *cap, size_t len, size_t need, wl_err *err)
{
    if (need <= *cap - len) return 0;
    if (need > SIZE_MAX / 2 - len) return wl_fail(err, "archive too large");
    size_t c = *cap ? *cap : 4096;
    while (c - len < need) c *= 2;
    unsigned char *nb = realloc(*b, c);
    if (!nb) return wl_fail(err, "out of memory for a %zu-byte archive", c);
    *b = nb;
    *cap = c;
    return 0;
}

static unsigned char *put16(unsigned char *p, uint32_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); return p + 2; }
static unsigned char *put32(unsigned char *p, uint32_t v) { return put16(put16(p, v & 0xFFFF), v >> 16); }

/* The fields a local header and its central directory record share, from "version needed" to the name's
 * length: version 2.0, flags, method (8 deflate, 0 stored), time 0 and date 1980-01-01, CRC-32, sizes. */
static unsigned char *put_entry_fields(unsigned char *p, uint32_t flags, int compress, uint32_t crc, size_t csize,
                                       size_t usize, size_t nlen)
{
    p = put16(p, 20);
    p = put16(p, flags);
    p = put16(p, compress ? 8 : 0);
    p = put16(p, 0);
    p = put16(p, DOS_DATE_1980);
    p = put32(p, crc);
    p = put32(p, (uint32_t)csize);
    p = put32(p, (uint32_t)usize);
    return put16(p, (uint32_t)nlen);
}

static int deflate_parts(z_stream *zs, const void *const *parts, const size_t *sizes, int nparts)
{
    for (int i = 0; i < nparts; i++) {
        const unsigned char *p = parts[i];
        size_t left = sizes[i];
        while (left > 0) {
            size_t chunk = left < ZLIB_CHUNK ? left : ZLIB_CHUNK;
            zs->next_in = (Bytef *)p;
            zs->avail_in = (uInt)chunk;
            if (deflate(zs, Z_NO_FLUSH) != Z_OK || zs->avail_in != 0) return -1;
            p += chunk;
            left -= chunk;
        }
    }
    return deflate(zs, Z_FINISH) == Z_STREAM_END ? 0 : -1;
}

int wl_zip_add(wl_zip_writer *w, const char *name, const void *const *parts,
               const size_t *sizes, int nparts, int compress, wl_err *err)
{
    size_t nlen = strlen(name), usize = 0;
    if (nlen == 0 || nlen > U16_MAX) return wl_fail(err, "member name '%s' is empty or too long", name);
    if (!printable_utf8(name)) return wl_fail(err, "member name '%s' is not printable UTF-8", name);
    if (w->count >= U16_MAX) return wl_fail(err, "member '%s': more than %u members", name, U16_MAX - 1);
    uint32_t crc = (uint32_t)crc32_z(0, NULL, 0);
    for (int i = 0; i < nparts; i++) {
        if (sizes[i] > WL_ZIP_MAX_MEMBER - usize)
            return wl_fail(err, "member '%s' exceeds the %zu-byte limit", name, WL_ZIP_MAX_MEMBER);
        usize += sizes[i];
        if (sizes[i]) crc = (uint32_t)crc32_z(crc, parts[i], sizes[i]); /* zlib restarts on a NULL buffer */
    }
    uint32_t flags = 0;
    for (size_t i = 0; i < nlen; i++)
        if ((unsigned char)name[i] >= 0x80) flags = 0x800; /* the name is UTF-8 */
    size_t hoff = w->len;
    size_t room = compress ? (size_t)deflateBound(NULL, usize) + 64 : usize;
    if (grow(&w->buf, &w->cap, w->len, LOCAL_LEN + nlen + room, err)) return -1;
    unsigned char *data = w->buf + hoff + LOCAL_LEN + nlen;
    size_t csize;
    if (compress) {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            return wl_fail(err, "member '%s': cannot start deflate", name);
        zs.next_out = data;
        zs.avail_out = (uInt)room;
        int rc = deflate_parts(&zs, parts, sizes, nparts);
        csize = (size_t)zs.total_out;
        deflateEnd(&zs);
        if (rc) return wl_fail(err, "member '%s': deflate failed", name);
    } else {
        unsigned char *d = data;
        for (int i = 0; i < nparts; i++) {
            if (sizes[i]) memcpy(d, parts[i], sizes[i]);
            d += sizes[i];
        }
        csize = usize;
    }
    if (hoff + LOCAL_LEN + nlen + csize >= U32_MAX)
        return wl_fail(err, "member '%s': the archive would exceed 4 GiB, which needs ZIP64", name);
    unsigned char *l = w->buf + hoff;
    l = put32(l, SIG_LOCAL);
    l = put_entry_fields(l, flags, compress, crc, csize, usize, nlen);
    l = put16(l, 0);
    memcpy(l, name, nlen);
    if (grow(&w->cdir, &w->cdir_cap, w->cdir_len, CDIR_LEN + nlen, err)) return -1;
    unsigned char *c = w->cdir + w->cdir_len;
    c = put32(c, SIG_CDIR);
    c = put16(c, 3 << 8 | 20); /* made by: Unix, ZIP 2.0 */
    c = put_entry_fields(c, flags, compress, crc, csize, usize, nlen);
    c = put16(c, 0); /* extra */
    c = put16(c, 0); /* comment */
    c = put16(c, 0); /* disk */
    c = put16(c, 0); /* internal attributes */
    c = put32(c, 0100644u << 16); /* regular file, rw-r--r-- */
    c = put32(c, (uint32_t)hoff);
    memcpy(c, name, nlen);
    w->cdir_len += CDIR_LEN + nlen;
    w->len = hoff + LOCAL_LEN + nlen + csize;
    w->count++;
    return 0;
}

int wl_zip_finish(wl_zip_writer *w, void **buf, size_t *len, wl_err *err)
{
    size_t cd_off = w->len;
    if (cd_off + w->cdir_len + EOCD_LEN >= U32_MAX)
        return wl_fail(err, "the archive would exceed 4 GiB, which needs ZIP64");
    if (grow(&w->buf, &w->cap, w->len, w->cdir_len + EOCD_LEN, err)) return -1;
    if (w->cdir_len) memcpy(w->buf + w->len, w->cdir, w->cdir_len);
    unsigned char *r = w->buf + w->len + w->cdir_len;
    r = put32(r, SIG_EOCD);
    r = put16(r, 0);
    r = put16(r, 0);
    r = put16(r, (uint32_t)w->count);
    r = put16(r, (uint32_t)w->count);
    r = put32(r, (uint32_t)w->cdir_len);
    r = put32(r, (uint32_t)cd_off);
    put16(r, 0);
    *buf = w->buf;
    *len = cd_off + w->cdir_len + EOCD_LEN;
    w->buf = NULL;
    wl_zip_writer_free(w);
    return 0;
}

void wl_zip_writer_free(wl_zip_writer *w)
{
    free(w->buf);
    free(w->cdir);
    memset(w, 0, sizeof *w);
}

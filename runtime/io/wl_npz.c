/* wl_npz.c: .npy members (format 1.0/2.0/3.0 headers) inside .npz archives, and 0-d unicode strings.
 * The runtime assumes a little-endian host, like the "<" dtypes it reads and writes. */
#include "wl_npz.h"
#include "wl_utf8.h"
#include "wl_zip.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64
#define NPY_SUFFIX ".npy"
#define NPY_HEAD_MAX ((size_t)64 << 10)   /* bytes of a member read for its .npy header */

static const struct { const char *dtype; size_t size; } npy_types[] = {
    { "<f4", 4 }, { "<f8", 8 }, { "<i4", 4 }, { "<i8", 8 }, { "|u1", 1 }, { "|b1", 1 }, { "<U", 4 },
};

size_t wl_npy_itemsize(const char *dtype)
{
    for (size_t i = 0; i < sizeof npy_types / sizeof npy_types[0]; i++)
        if (strcmp(dtype, npy_types[i].dtype) == 0) return npy_types[i].size;
    return 0;
}

/* Writes a shape as Python's repr of a tuple: "()", "(3,)", "(3, 4)". */
static void format_shape(char *out, size_t cap, int ndim, const size_t *shape)
{
    size_t at = (size_t)snprintf(out, cap, "(");
    for (int d = 0; d < ndim && at < cap; d++)
        at += (size_t)snprintf(out + at, cap - at, d ? ", %zu" : "%zu", shape[d]);
    if (at < cap) snprintf(out + at, cap - at, ndim == 1 ? ",)" : ")");
}

/* Element count of a shape, or -1 on overflow. */
static int shape_count(int ndim, const size_t *shape, size_t *count)
{
    size_t c = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] && c > SIZE_MAX / shape[d]) return -1;
        c *= shape[d];
    }
    *count = c;
    return 0;
}

/* ---- reading ---- */

/* A tiny reader for the Python dict literal of a .npy header. */
typedef struct hdr {
    const char *s;
    size_t n, at;
} hdr;

static void hdr_ws(hdr *h)
{
    while (h->at < h->n && (h->s[h->at] == ' ' || h->s[h->at] == '\t' || h->s[h->at] == '\n' || h->s[h->at] == '\r'))
        h->at++;
}

static int hdr_eat(hdr *h, char c)
{
    hdr_ws(h);
    if (h->at < h->n && h->s[h->at] == c) {
        h->at++;
        return 1;
    }
    return 0;
}

/* A quoted string without escapes into out (cap bytes); -1 if absent, malformed or too long. */
static int hdr_str(hdr *h, char *out, size_t cap)
{
    hdr_ws(h);
    if (h->at >= h->n || (h->s[h->at] != '\'' && h->s[h->at] != '"')) return -1;
    char q = h->s[h->at++];
    size_t k = 0;
    while (h->at < h->n && h->s[h->at] != q) {
        if (h->s[h->at] == '\\' || k + 1 >= cap) return -1;
        out[k++] = h->s[h->at++];
    }
    if (h->at >= h->n) return -1;
    h->at++;
    out[k] = 0;
    return 0;
}

static int hdr_word(hdr *h, const char *w)
{
    hdr_ws(h);
    size_t k = strlen(w);
    if (h->n - h->at < k || memcmp(h->s + h->at, w, k) != 0) return 0;
    h->at += k;
    return 1;
}

/* "(3, 4)" with an optional trailing comma; at most WL_NPY_MAX_DIMS entries. */
static int hdr_shape(hdr *h, int *ndim, size_t *shape, const char **why)
{
    *why = "'shape' is not a tuple of non-negative integers";
    if (!hdr_eat(h, '(')) return -1;
    *ndim = 0;
    for (;;) {
        if (hdr_eat(h, ')')) return 0;
        if (*ndim == WL_NPY_MAX_DIMS) {
            *why = "more than 4 dimensions are not supported";
            return -1;
        }
        hdr_ws(h);
        size_t v = 0, digits = 0;
        while (h->at < h->n && h->s[h->at] >= '0' && h->s[h->at] <= '9') {
            unsigned dgt = (unsigned)(h->s[h->at++] - '0');
            if (v > (SIZE_MAX - dgt) / 10) {
                *why = "a dimension of 'shape' is too large";
                return -1;
            }
            v = v * 10 + dgt;
            digits++;
        }
        if (!digits) return -1;
        shape[(*ndim)++] = v;
        if (hdr_eat(h, ',')) continue;
        if (hdr_eat(h, ')')) return *ndim == 1 ? -1 : 0; /* "(3)" is not a tuple */
        return -1;
    }
}

/* Parses the header dict into a (dtype, ndim, shape); on failure *why says what is wrong. */
static int parse_header(const char *s, size_t n, wl_npy *a, size_t *itemsize, const char **why)
{
    hdr h = { s, n, 0 };
    int seen_descr = 0, seen_fortran = 0, seen_shape = 0, fortran = 0;
    char key[32], descr[32];
    *why = "not a Python dict literal";
    if (!hdr_eat(&h, '{')) return -1;
    while (!hdr_eat(&h, '}')) {
        if (hdr_str(&h, key, sizeof key) || !hdr_eat(&h, ':')) return -1;
        if (strcmp(key, "descr") == 0 && !seen_descr) {
            seen_descr = 1;
            if (hdr_str(&h, descr, sizeof descr)) {
                *why = "unsupported dtype (not a simple type string)";
                return -1;
            }
        } else if (strcmp(key, "fortran_order") == 0 && !seen_fortran) {
            seen_fortran = 1;
            if (hdr_word(&h, "True")) fortran = 1;
            else if (!hdr_word(&h, "False")) {
                *why = "'fortran_order' is neither True nor False";
                return -1;
            }
        } else if (strcmp(key, "shape") == 0 && !seen_shape) {
            seen_shape = 1;
            if (hdr_shape(&h, &a->ndim, a->shape, why)) return -1;
        } else {
            *why = "unexpected or repeated key (only 'descr', 'fortran_order' and 'shape' are allowed)";
            return -1;
        }
        *why = "not a Python dict literal";
        if (!hdr_eat(&h, ',')) {
            if (!hdr_eat(&h, '}')) return -1;
            break;
        }
    }
    hdr_ws(&h);
    if (h.at != n) return -1;
    if (!seen_descr || !seen_fortran || !seen_shape) {
        *why = "missing one of the keys 'descr', 'fortran_order', 'shape'";
        return -1;
    }
    if (fortran && a->ndim > 1) {
        *why = "fortran_order True (column-major data) is not supported; save a C-ordered array";
        return -1;
    }
    if (strncmp(descr, "<U", 2) == 0 && descr[2]) {
        size_t chars = 0;
        for (const char *p = descr + 2; *p; p++) {
            if (*p < '0' || *p > '9' || chars > (WL_ZIP_MAX_MEMBER / 4)) {
                *why = "unsupported dtype";
                return -1;
            }
            chars = chars * 10 + (size_t)(*p - '0');
        }
        if (a->ndim != 0) {
            *why = "unicode arrays are supported only as 0-d strings";
            return -1;
        }
        strcpy(a->dtype, "<U");
        *itemsize = 4 * chars;
        return 0;
    }
    *itemsize = strcmp(descr, "<U") == 0 ? 0 : wl_npy_itemsize(descr);
    if (*itemsize == 0) {
        *why = "unsupported dtype (supported: <f4 <f8 <i4 <i8 |u1 |b1 and 0-d <U strings)";
        return -1;
    }
    strcpy(a->dtype, descr);
    return 0;
}

/* Reads the .npy header at the start of a member (avail of its bytes in raw) into a's dtype and shape, checking that
 * they need exactly the member's declared size; *data_off gets where the data starts. */
static int parse_npy_header(const unsigned char *raw, size_t avail, const char *label, const wl_zip_entry *e,
                            wl_npy *a, size_t *data_off, wl_err *err)
{
    if (avail < 10 || memcmp(raw, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return wl_fail(err, "%s: member '%s' (local header at byte offset %zu): not a .npy file (bad magic string)",
                       label, e->name, e->header_off);
    if (raw[6] < 1 || raw[6] > 3)
        return wl_fail(err, "%s: member '%s' (local header at byte offset %zu): unsupported .npy format version %d.%d",
                       label, e->name, e->header_off, raw[6], raw[7]);
    /* Version 1.0 has a 2-byte header length, 2.0 and 3.0 (UTF-8 header) a 4-byte one. */
    size_t hstart = raw[6] == 1 ? 10 : 12, hlen = (size_t)raw[8] | (size_t)raw[9] << 8;
    if (hstart == 12 && avail >= 12) hlen |= (size_t)raw[10] << 16 | (size_t)raw[11] << 24;
    if (avail < hstart || hlen > avail - hstart)
        return wl_fail(err, "%s: member '%s' (local header at byte offset %zu): the .npy header runs past %s",
                       label, e->name, e->header_off, avail < e->usize ? "the first 64 KiB of the member" : "the end of the member");
    const char *why;
    size_t itemsize = 0;
    if (parse_header((const char *)raw + hstart, hlen, a, &itemsize, &why))
        return wl_fail(err, "%s: member '%s' (local header at byte offset %zu): .npy header: %s", label, e->name,
                       e->header_off, why);
    size_t count, have = e->usize - hstart - hlen;
    int huge = shape_count(a->ndim, a->shape, &count) || (itemsize && count > SIZE_MAX / itemsize);
    if (huge || count * itemsize != have) {
        char shp[128];
        format_shape(shp, sizeof shp, a->ndim, a->shape);
        if (huge)
            return wl_fail(err, "%s: member '%s' (local header at byte offset %zu): shape %s is too large",
                           label, e->name, e->header_off, shp);
        return wl_fail(err, "%s: member '%s' (local header at byte offset %zu): holds %zu data bytes, "
                       "but dtype %s and shape %s need %zu", label, e->name, e->header_off, have, a->dtype, shp,
                       count * itemsize);
    }
    *data_off = hstart + hlen;
    a->nbytes = have;
    return 0;
}

/* Every member's name, dtype and shape from its header alone (data NULL), checked against its declared size;
 * data_off[i] gets where member i's data starts. */
static int read_headers(const unsigned char *buf, const char *label, const wl_zip_entry *e, size_t n, wl_npz *out,
                        size_t *data_off, size_t *total, wl_err *err)
{
    unsigned char *head = malloc(NPY_HEAD_MAX);
    if (!head) return wl_fail(err, "%s: out of memory", label);
    int rc = 0;
    *total = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        size_t nlen = strlen(e[i].name), slen = strlen(NPY_SUFFIX);
        wl_npy *a = &out->arrays[i];
        if (nlen <= slen || strcmp(e[i].name + nlen - slen, NPY_SUFFIX) != 0)
            rc = wl_fail(err, "%s: member '%s' (local header at byte offset %zu) is not a .npy array (its name does not end in .npy)",
                         label, e[i].name, e[i].header_off);
        else if (wl_zip_extract_head(buf, label, &e[i], NPY_HEAD_MAX, head, err) ||
                 parse_npy_header(head, e[i].usize < NPY_HEAD_MAX ? e[i].usize : NPY_HEAD_MAX, label, &e[i], a,
                                  &data_off[i], err))
            rc = -1;
        else if (!(a->name = strndup(e[i].name, nlen - slen)))
            rc = wl_fail(err, "%s: out of memory", label);
        else
            out->n++;
        *total += e[i].usize;
    }
    free(head);
    return rc;
}

int wl_npz_read_mem_opts(const void *buf, size_t len, const char *label, const wl_npz_opts *o, wl_npz *out,
                         wl_err *err)
{
    memset(out, 0, sizeof *out);
    if (!label) label = "npz";
    const wl_npz_opts none = {0};
    if (!o) o = &none;
    size_t limit = o->max_total ? o->max_total : WL_NPZ_MAX_TOTAL, total = 0;
    wl_zip_entry *e;
    size_t n;
    if (wl_zip_list(buf, len, label, &e, &n, err)) return -1;
    out->arrays = calloc(n ? n : 1, sizeof *out->arrays);
    out->label = strdup(label);
    size_t *data_off = calloc(n ? n : 1, sizeof *data_off);
    if (!out->arrays || !out->label || !data_off) {
        wl_fail(err, "%s: out of memory", label);
        goto fail;
    }
    if (read_headers(buf, label, e, n, out, data_off, &total, err)) goto fail;
    if (total > limit) {
        wl_fail(err, "%s: its arrays declare %zu bytes in all, more than the %zu allowed", label, total, limit);
        goto fail;
    }
    if (o->check && o->check(o->ud, out, err)) goto fail;
    for (size_t i = 0; i < n; i++) {
        unsigned char *raw;
        if (wl_zip_extract(buf, label, &e[i], o->interrupt, &raw, err)) goto fail;
        wl_npy *a = &out->arrays[i];
        memmove(raw, raw + data_off[i], a->nbytes);
        unsigned char *shrunk = realloc(raw, a->nbytes ? a->nbytes : 1);
        a->data = shrunk ? shrunk : raw;
    }
    free(data_off);
    wl_zip_entries_free(e, n);
    return 0;
fail:
    free(data_off);
    wl_zip_entries_free(e, n);
    wl_npz_free(out);
    return -1;
}

int wl_npz_read_mem(const void *buf, size_t len, const char *label, wl_npz *out, wl_err *err)
{
    return wl_npz_read_mem_opts(buf, len, label, NULL, out, err);
}

int wl_npz_read_opts(const char *path, const wl_npz_opts *o, wl_npz *out, wl_err *err)
{
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len, arrays = o && o->max_total ? o->max_total : WL_NPZ_MAX_TOTAL;
    size_t max = arrays > SIZE_MAX - WL_NPZ_MAX_HEADERS ? SIZE_MAX : arrays + WL_NPZ_MAX_HEADERS;
    if (wl_read_file_max(path, max, &buf, &len, err)) return -1;
    int rc = wl_npz_read_mem_opts(buf, len, path, o, out, err);
    free(buf);
    return rc;
}

int wl_npz_read(const char *path, wl_npz *out, wl_err *err)
{
    return wl_npz_read_opts(path, NULL, out, err);
}

const wl_npy *wl_npz_find(const wl_npz *z, const char *name)
{
    for (size_t i = 0; i < z->n; i++)
        if (strcmp(z->arrays[i].name, name) == 0) return &z->arrays[i];
    return NULL;
}

const wl_npy *wl_npz_expect(const wl_npz *z, const char *name, const char *dtype,
                            int ndim, const size_t *shape, wl_err *err)
{
    const char *label = z->label ? z->label : "npz";
    const wl_npy *a = wl_npz_find(z, name);
    if (!a) {
        wl_fail(err, "%s: array '%s' is missing", label, name);
        return NULL;
    }
    if (strcmp(a->dtype, dtype) != 0) {
        wl_fail(err, "%s: array '%s' has dtype %s, expected %s", label, name, a->dtype, dtype);
        return NULL;
    }
    int same = a->ndim == ndim;
    for (int d = 0; same && d < ndim; d++) same = a->shape[d] == shape[d];
    if (!same) {
        char got[128], want[128];
        format_shape(got, sizeof got, a->ndim, a->shape);
        format_shape(want, sizeof want, ndim, shape);
        wl_fail(err, "%s: array '%s' has shape %s, expected %s", label, name, got, want);
        return NULL;
    }
    return a;
}

int wl_npz_check_names(const wl_npz *z, const char *const *names, size_t n, wl_err *err)
{
    const char *label = z->label ? z->label : "npz";
    for (size_t i = 0; i < n; i++)
        if (!wl_npz_find(z, names[i])) return wl_fail(err, "%s: array '%s' is missing", label, names[i]);
    for (size_t i = 0; i < z->n; i++) {
        size_t j = 0;
        while (j < n && strcmp(z->arrays[i].name, names[j]) != 0) j++;
        if (j == n) return wl_fail(err, "%s: unexpected array '%s'", label, z->arrays[i].name);
    }
    return 0;
}

void wl_npy_free(wl_npy *a)
{
    free(a->name);
    free(a->data);
    memset(a, 0, sizeof *a);
}

void wl_npz_free(wl_npz *z)
{
    for (size_t i = 0; i < z->n; i++) wl_npy_free(&z->arrays[i]);
    free(z->arrays);
    free(z->label);
    memset(z, 0, sizeof *z);
}

/* ---- writing ---- */

/* Checks one array before writing; returns the dtype string for its header in descr. */
static int check_array(const wl_npy *a, char *descr, size_t cap, wl_err *err)
{
    if (!a->name || !a->name[0]) return wl_fail(err, "array without a name");
    if (strlen(a->name) > 60000) return wl_fail(err, "array '%.40s...': name too long", a->name);
    size_t itemsize = wl_npy_itemsize(a->dtype), count;
    if (!itemsize) return wl_fail(err, "array '%s': unsupported dtype '%s'", a->name, a->dtype);
    if (a->ndim < 0 || a->ndim > WL_NPY_MAX_DIMS)
        return wl_fail(err, "array '%s': %d dimensions (0 to %d are supported)", a->name, a->ndim, WL_NPY_MAX_DIMS);
    if (strcmp(a->dtype, "<U") == 0) {
        if (a->ndim != 0 || a->nbytes == 0 || a->nbytes % 4)
            return wl_fail(err, "array '%s': a \"<U\" array must be 0-d with at least one code point", a->name);
        snprintf(descr, cap, "<U%zu", a->nbytes / 4);
    } else {
        if (shape_count(a->ndim, a->shape, &count) || count > SIZE_MAX / itemsize || count * itemsize != a->nbytes)
            return wl_fail(err, "array '%s': nbytes %zu does not match dtype %s and its shape", a->name, a->nbytes, a->dtype);
        snprintf(descr, cap, "%s", a->dtype);
    }
    if (a->nbytes && !a->data) return wl_fail(err, "array '%s': no data", a->name);
    return 0;
}

/* The .npy preamble: magic, version 1.0, header dict padded with spaces and a newline to a
 * multiple of 64 bytes. The dict is at most ~180 bytes (descr < 32, four 20-digit dimensions),
 * so the preamble fits NPY_PREAMBLE_MAX. */
#define NPY_PREAMBLE_MAX 320
static size_t npy_preamble(const wl_npy *a, const char *descr, char out[NPY_PREAMBLE_MAX])
{
    char shp[128], dict[256];
    format_shape(shp, sizeof shp, a->ndim, a->shape);
    int dl = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shp);
    size_t total = (NPY_MAGIC_LEN + 4 + (size_t)dl + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    size_t hlen = total - NPY_MAGIC_LEN - 4;
    memcpy(out, NPY_MAGIC, NPY_MAGIC_LEN);
    out[6] = 1;
    out[7] = 0;
    out[8] = (char)(hlen & 0xFF);
    out[9] = (char)(hlen >> 8);
    memcpy(out + 10, dict, (size_t)dl);
    memset(out + 10 + dl, ' ', hlen - (size_t)dl - 1);
    out[total - 1] = '\n';
    return total;
}

int wl_npz_write_mem(const wl_npy *arrays, size_t n, int compress, void **buf, size_t *len,
                     wl_err *err)
{
    *buf = NULL;
    *len = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (arrays[i].name && arrays[j].name && strcmp(arrays[i].name, arrays[j].name) == 0)
                return wl_fail(err, "array '%s' is given twice", arrays[i].name);
    wl_zip_writer w;
    memset(&w, 0, sizeof w);
    for (size_t i = 0; i < n; i++) {
        const wl_npy *a = &arrays[i];
        char descr[32], pre[NPY_PREAMBLE_MAX];
        if (check_array(a, descr, sizeof descr, err)) goto fail;
        size_t plen = npy_preamble(a, descr, pre);
        size_t nlen = strlen(a->name);
        char *member = malloc(nlen + sizeof NPY_SUFFIX);
        if (!member) {
            wl_fail(err, "array '%s': out of memory", a->name);
            goto fail;
        }
        memcpy(member, a->name, nlen);
        memcpy(member + nlen, NPY_SUFFIX, sizeof NPY_SUFFIX);
        const void *parts[2] = { pre, a->data };
        size_t sizes[2] = { plen, a->nbytes };
        int rc = wl_zip_add(&w, member, parts, sizes, 2, compress, err);
        free(member);
        if (rc) goto fail;
    }
    if (wl_zip_finish(&w, buf, len, err)) goto fail;
    return 0;
fail:
    wl_zip_writer_free(&w);
    return -1;
}

/* An .npz as a save may replace it: a ZIP whose first local header names a member ending .npy (numpy.savez and
 * wl_npz_write both begin so; a .docx or .odt, also ZIPs, do not). */
static int is_npz(const unsigned char *b, size_t n, size_t size)
{
    (void)size;
    if (n < 30 || memcmp(b, "PK\3\4", 4)) return 0;
    size_t nlen = (size_t)b[26] | (size_t)b[27] << 8;
    return nlen >= 4 && 30 + nlen <= n && !memcmp(b + 30 + nlen - 4, ".npy", 4);
}

static const wl_save_kind npz_kind = {"an .npz file (a ZIP of NumPy arrays, as numpy.savez and model save write)",
                                      30 + 0xffff, is_npz};

int wl_npz_write(const char *path, const wl_npy *arrays, size_t n, int compress, wl_err *err)
{
    void *buf;
    size_t len;
    if (wl_npz_write_mem(arrays, n, compress, &buf, &len, err)) {
        char msg[WL_ERR_MAX];
        snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
        return wl_fail(err, "%s: %s", path, msg);
    }
    int rc = wl_write_atomic_kind(path, &npz_kind, buf, len, err);
    free(buf);
    return rc;
}

/* ---- strings ---- */

int wl_npy_set_string(wl_npy *a, const char *name, const char *utf8, wl_err *err)
{
    memset(a, 0, sizeof *a);
    size_t n = strlen(utf8), chars = 0;
    uint32_t cp;
    for (size_t i = 0, k; i < n; i += k, chars++)
        if (!(k = wl_utf8_next(utf8 + i, n - i, &cp)))
            return wl_fail(err, "string '%s': text is not valid UTF-8 at byte offset %zu", name, i);
    size_t cells = chars ? chars : 1; /* NumPy stores "" as one NUL code point */
    unsigned char *d = calloc(cells, 4);
    a->name = strdup(name);
    if (!d || !a->name) {
        free(d);
        free(a->name);
        a->name = NULL;
        return wl_fail(err, "string '%s': out of memory", name);
    }
    for (size_t i = 0, k, j = 0; i < n; i += k, j++) {
        k = wl_utf8_next(utf8 + i, n - i, &cp);
        for (int b = 0; b < 4; b++) d[4 * j + (size_t)b] = (unsigned char)(cp >> (8 * b));
    }
    strcpy(a->dtype, "<U");
    a->ndim = 0;
    a->data = d;
    a->nbytes = 4 * cells;
    return 0;
}

int wl_npy_get_string(const wl_npy *a, char **utf8, wl_err *err)
{
    *utf8 = NULL;
    if (strcmp(a->dtype, "<U") != 0 || a->ndim != 0 || a->nbytes % 4)
        return wl_fail(err, "array '%s' is not a 0-d unicode string (dtype %s)", a->name, a->dtype);
    const unsigned char *d = a->data;
    size_t chars = a->nbytes / 4;
    uint32_t cp;
#define CP(i) ((uint32_t)d[4 * (i)] | (uint32_t)d[4 * (i) + 1] << 8 | (uint32_t)d[4 * (i) + 2] << 16 | (uint32_t)d[4 * (i) + 3] << 24)
    while (chars > 0 && CP(chars - 1) == 0) chars--;
    if (chars > SIZE_MAX / 4 - 1) return wl_fail(err, "array '%s': string too long", a->name);
    char *o = malloc(4 * chars + 1);
    if (!o) return wl_fail(err, "array '%s': out of memory", a->name);
    size_t k = 0;
    for (size_t i = 0; i < chars; i++) {
        cp = CP(i);
        if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            free(o);
            return wl_fail(err, "array '%s' holds an invalid code point U+%04X at character %zu", a->name, cp, i);
        }
        k += wl_utf8_put(cp, o + k);
    }
#undef CP
    o[k] = 0;
    *utf8 = o;
    return 0;
}

/* wl_npz.h: NumPy .npz files (a ZIP of .npy members, stored or deflated): read, write, check, strings. */
#ifndef WL_NPZ_H
#define WL_NPZ_H

#include <stddef.h>

#include "wl_core.h"

#define WL_NPY_MAX_DIMS 4

/* One array. Data is C-ordered, little-endian, owned by whoever filled the struct.
 * dtype is one of "<f4" (float32), "<f8", "<i4", "<i8", "|u1", "|b1", or "<U" for a 0-d
 * unicode string (UTF-32LE, nbytes = 4 * code points; use the string helpers below).
 * ndim is 0..4; shape[d] for d < ndim; nbytes = itemsize * product(shape). */
typedef struct wl_npy {
    char *name;              /* member name without ".npy" */
    char dtype[8];
    int ndim;
    size_t shape[WL_NPY_MAX_DIMS];
    void *data;
    size_t nbytes;
} wl_npy;

/* A whole archive, in the archive's member order. */
typedef struct wl_npz {
    wl_npy *arrays;
    size_t n;
    char *label;             /* the path or label given when read (for error messages) */
} wl_npz;

/* A member is bounded as wl_zip.h says (WL_ZIP_MAX_MEMBER, WL_ZIP_MAX_RATIO). The default bound on all members
 * together, from the sizes their .npy headers declare (checked before any data is inflated): */
#define WL_NPZ_MAX_TOTAL ((size_t)1 << 31)
/* A file read from disk may be that bound plus this much for its ZIP and .npy headers, checked before it is read. */
#define WL_NPZ_MAX_HEADERS ((size_t)16 << 20)

/* Reads an .npz file (members stored or deflated, ZIP64 extras and data descriptors
 * accepted, CRC-32 checked): a regular file of at most WL_NPZ_MAX_TOTAL + WL_NPZ_MAX_HEADERS bytes (with opts, its
 * max_total + WL_NPZ_MAX_HEADERS), as wl_open_read takes it. On failure *out is empty and err names the file, the
 * member and the byte offset. */
int wl_npz_read(const char *path, wl_npz *out, wl_err *err);

/* The same from memory; label stands for the file name in messages. */
int wl_npz_read_mem(const void *buf, size_t len, const char *label, wl_npz *out, wl_err *err);

/* How a read is bounded. Every member's .npy header is read first (its name, dtype and shape, checked against
 * the member's declared size); then the total is bounded and check (if set) sees the arrays with data NULL;
 * only then is data inflated, looking at *interrupt (if set) as it goes. */
typedef struct wl_npz_opts {
    size_t max_total;                     /* bytes of all arrays together; 0: WL_NPZ_MAX_TOTAL */
    volatile sig_atomic_t *interrupt;
    int (*check)(void *ud, const wl_npz *declared, wl_err *err);   /* -1 (err set) refuses the file */
    void *ud;
} wl_npz_opts;

int wl_npz_read_opts(const char *path, const wl_npz_opts *o, wl_npz *out, wl_err *err);
int wl_npz_read_mem_opts(const void *buf, size_t len, const char *label, const wl_npz_opts *o, wl_npz *out,
                         wl_err *err);

/* The array with that name (without ".npy"), or NULL. */
const wl_npy *wl_npz_find(const wl_npz *z, const char *name);

/* The array with that name, checked to have that dtype, ndim and shape; otherwise NULL and
 * an error naming the file and the array (missing, wrong dtype, wrong shape). */
const wl_npy *wl_npz_expect(const wl_npz *z, const char *name, const char *dtype,
                            int ndim, const size_t *shape, wl_err *err);

/* Checks that the archive holds exactly the arrays named in names (any order); otherwise an
 * error naming the file and the first missing or unexpected array. */
int wl_npz_check_names(const wl_npz *z, const char *const *names, size_t n, wl_err *err);

/* Frees every array and resets *z to empty. Safe on an empty or zeroed struct. */
void wl_npz_free(wl_npz *z);

/* Writes the arrays as an .npz that numpy.load reads, atomically (temporary file + rename;
 * on failure an existing file is untouched). An existing file is replaced only when it is an .npz (a ZIP whose
 * first member's name ends .npy): anything else there is refused, naming what it holds. compress != 0: deflate, else stored.
 * Names must be unique and non-empty; data and nbytes must match dtype and shape. */
int wl_npz_write(const char *path, const wl_npy *arrays, size_t n, int compress, wl_err *err);

/* The same into a malloc'd buffer (*buf, *len). */
int wl_npz_write_mem(const wl_npy *arrays, size_t n, int compress, void **buf, size_t *len,
                     wl_err *err);

/* Bytes per element of a dtype string ("<U" gives 4, one code point), or 0 if unsupported. */
size_t wl_npy_itemsize(const char *dtype);

/* Fills *a (which it owns afterwards: free with wl_npy_free) with a 0-d "<U" array named
 * name holding the UTF-8 text utf8. Invalid UTF-8 is an error naming the byte offset. */
int wl_npy_set_string(wl_npy *a, const char *name, const char *utf8, wl_err *err);

/* The text of a 0-d "<U" array as a malloc'd NUL-terminated UTF-8 string (trailing NUL
 * code points dropped, as NumPy does). */
int wl_npy_get_string(const wl_npy *a, char **utf8, wl_err *err);

/* Frees a->name and a->data and zeroes *a. */
void wl_npy_free(wl_npy *a);

#endif

/* wl_zip.h: the ZIP container under .npz: central directory parsing, member extraction, writing. */
#ifndef WL_ZIP_H
#define WL_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "wl_core.h"

/* Limits on what a reader accepts: a member may not inflate to more than WL_ZIP_MAX_MEMBER bytes, nor to more
 * than WL_ZIP_MAX_RATIO times its compressed size (plus a little slack for tiny members). */
#define WL_ZIP_MAX_MEMBER ((size_t)1 << 31)
#define WL_ZIP_MAX_RATIO 1032

/* One member as the central directory describes it, checked against its local header. */
typedef struct wl_zip_entry {
    char *name;          /* NUL-terminated copy of the member name */
    size_t header_off;   /* byte offset of the local file header */
    size_t data_off;     /* byte offset of the (compressed) data */
    size_t csize, usize; /* compressed and uncompressed sizes */
    uint32_t crc;
    int method;          /* 0 stored, 8 deflated */
} wl_zip_entry;

/* Parses the archive in buf: end record (ZIP64 too), central directory (ZIP64 extras),
 * local headers; checks that members lie inside the file without overlapping, that names
 * are unique, and that sizes respect the limits above. Fills a malloc'd array. */
int wl_zip_list(const unsigned char *buf, size_t len, const char *label,
                wl_zip_entry **entries, size_t *n, wl_err *err);

void wl_zip_entries_free(wl_zip_entry *entries, size_t n);

/* Decompresses (or copies) one member into a malloc'd buffer of e->usize bytes (at least
 * one byte is allocated) and checks its CRC-32. A non-zero *interrupt (interrupt may be NULL)
 * stops the inflation with an error. */
int wl_zip_extract(const unsigned char *buf, const char *label, const wl_zip_entry *e,
                   volatile sig_atomic_t *interrupt, unsigned char **out, wl_err *err);

/* The first min(want, e->usize) bytes of the member into out, without the rest (nor its CRC). */
int wl_zip_extract_head(const unsigned char *buf, const char *label, const wl_zip_entry *e, size_t want,
                        unsigned char *out, wl_err *err);

/* Builds an archive in memory. Each member is the concatenation of nparts byte ranges. */
typedef struct wl_zip_writer {
    unsigned char *buf;
    size_t len, cap;
    unsigned char *cdir; /* central directory records, appended at finish */
    size_t cdir_len, cdir_cap;
    size_t count;
} wl_zip_writer;

int wl_zip_add(wl_zip_writer *w, const char *name, const void *const *parts,
               const size_t *sizes, int nparts, int compress, wl_err *err);

/* Appends the central directory and end record; hands the buffer to the caller
 * (*buf, *len) and leaves the writer empty. */
int wl_zip_finish(wl_zip_writer *w, void **buf, size_t *len, wl_err *err);

/* Frees whatever the writer holds (after an error). */
void wl_zip_writer_free(wl_zip_writer *w);

#endif

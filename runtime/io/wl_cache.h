/* wl_cache.h: a content-addressed cache of computed results shared by the processes of a machine, mapped read-only.
 *
 * An entry is named by the SHA-256 of a text that says everything its payload depends on (what, a format version,
 * the inputs or their hashes): DIR/<64 hex digits>.wlc, a 128-byte header (magic, payload length, the payload's
 * SHA-256, the name's SHA-256) and the payload. It is written once, atomically (a temporary file, mode 0644, renamed
 * into place), by the one process that holds the entry's lock (flock on DIR/<hex>.lock): processes that ask for the
 * same entry at once wait for it and then read it. A reader checks the header and the payload's hash and maps the
 * file read-only (MAP_SHARED), so every process holds the same pages; a corrupt or truncated entry is never used:
 * it is reported through note and computed again (and replaced, where the reader may write).
 *
 * Who may write: only the folder's owner. A process of another user reads entries owned by itself or by the
 * folder's owner, that nobody else can write (no group or other write bit), and computes the rest for itself
 * without storing it. So a classroom whose students are separate users gets a folder owned by the classroom's own
 * user (filled by running the lessons as that user) and the students can share it without being able to poison
 * it; students who are one user share one folder they all fill. The folder is bounded: after each write the entries
 * used longest ago (reads by the owner refresh an entry's time) are removed until the folder holds at most limit
 * bytes; a process that has an entry mapped keeps its pages. */
#ifndef WL_CACHE_H
#define WL_CACHE_H

#include "wl_core.h"

#include <stddef.h>
#include <stdint.h>

/* The bytes before an entry's payload (the payload is 64-byte aligned in a mapping). */
#define WL_CACHE_HEAD 128
/* The folder's bound when the caller gives none. */
#define WL_CACHE_DEFAULT_LIMIT ((uint64_t)2 << 30)

typedef struct wl_cache {
    const char *dir;                   /* the folder (made 0755 with its parents when missing); NULL: no cache */
    uint64_t limit;                    /* bytes the folder's entries may take; 0: WL_CACHE_DEFAULT_LIMIT */
    void (*note)(void *ud, const char *msg);   /* told when an entry is discarded or cannot be stored; may be NULL */
    void *ud;
    volatile sig_atomic_t *interrupt;  /* may be NULL; stops a wait for another process's entry */
    int copy_on_write;                 /* 1: map entries writable and private: pages stay shared until this process
                                          writes one, which then becomes its own copy (a model that may be trained) */
} wl_cache;

/* Computes an entry: *data gets a malloc'd buffer of WL_CACHE_HEAD bytes (left for the cache to fill) followed by
 * the payload, *len the payload's length (without the head). Returns 0, or -1 with err. */
typedef int (*wl_cache_fill_fn)(void *ud, unsigned char **data, size_t *len, wl_err *err);

/* An entry as read: payload [len], read-only, either in a mapping of the entry's file or (computed without a cache,
 * or where it could not be stored) in private memory. */
typedef struct wl_cache_entry {
    const unsigned char *data;
    size_t len;
    void *base;       /* the mapping, or the malloc'd buffer */
    size_t maplen;    /* > 0 when base is a mapping */
    int cached;       /* 1: read from the folder (not computed by this call) */
} wl_cache_entry;

/* The entry that name determines: read from c's folder, or computed with fill (once per machine, under the entry's
 * lock) and stored. c NULL or c->dir NULL: computed with fill, nothing stored. Returns 0, or -1 with err (fill
 * failed, interrupted, out of memory); problems of the folder itself are notes, and the entry is computed. */
int wl_cache_get(const wl_cache *c, const char *name, wl_cache_fill_fn fill, void *ud, wl_cache_entry *e, wl_err *err);

/* The file of name's entry in c's folder (DIR/<SHA-256 of name in hex>.wlc): 0, or -1 when it does not fit in cap. */
int wl_cache_entry_path(const wl_cache *c, const char *name, char *out, size_t cap);

/* Unmaps or frees e's payload (e zeroed; NULL and an empty entry are fine). */
void wl_cache_release(wl_cache_entry *e);

/* The SHA-256 of a file's content as 64 hex digits and a NUL: 0, or -1 with err naming the file. */
int wl_cache_file_hash(const char *path, char hex[65], wl_err *err);

#endif

/* wl_cache.c: the shared cache of computed results: named by SHA-256, written once under a lock, verified, mapped. */
#include "wl_cache.h"

#include "wl_buf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char MAGIC[8] = {'W', 'L', 'C', 'A', 'C', 'H', 'E', '1'};

/* The header: magic [8], payload length (u64, little-endian as the machine writes it), payload SHA-256 [32],
 * name SHA-256 [32], zeros to WL_CACHE_HEAD. */
#define OFF_LEN 8
#define OFF_SUM 16
#define OFF_KEY 48

static int sha256(const void *a, size_t na, unsigned char md[32])
{
    EVP_MD_CTX *x = EVP_MD_CTX_new();
    unsigned int n = 0;
    int ok = x && EVP_DigestInit_ex(x, EVP_sha256(), NULL) && EVP_DigestUpdate(x, a, na) &&
             EVP_DigestFinal_ex(x, md, &n) && n == 32;
    EVP_MD_CTX_free(x);
    return ok ? 0 : -1;
}

static void hex(const unsigned char *md, char out[65])
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static void note(const wl_cache *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const wl_cache *c, const char *fmt, ...)
{
    if (!c->note) return;
    char msg[WL_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->note(c->ud, msg);
}

/* mkdir -p with mode 0755 for the parts that are missing. */
static int make_dirs(const char *dir)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) return -1;
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(p, 0755) && errno != EEXIST) return -1;
            *s = '/';
        }
    return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

/* Reads entry path: 1 mapped into e, 0 absent, -1 unusable (noted: untrusted, corrupt or truncated). owner: the
 * folder's owner; mine: this process may write the folder (then a read refreshes the entry's time). */
static int entry_read(const wl_cache *c, const char *path, const unsigned char key[32], uid_t owner, int mine,
                      wl_cache_entry *e)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return 0;
        note(c, "the cache entry %s cannot be opened (%s); computing it here", path, strerror(errno));
        return -1;
    }
    struct stat st;
    const char *why = NULL;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) why = "it is not a regular file";
    else if ((st.st_uid != geteuid() && st.st_uid != owner) || (st.st_mode & (S_IWGRP | S_IWOTH)))
        why = "someone other than the cache folder's owner may have written it";
    else if (st.st_size < WL_CACHE_HEAD) why = "it is truncated";
    void *m = why ? MAP_FAILED
                  : c->copy_on_write ? mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0)
                                     : mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (!why && m == MAP_FAILED) why = "it cannot be mapped";
    if (!why) {
        const unsigned char *h = m;
        uint64_t len;
        memcpy(&len, h + OFF_LEN, 8);
        unsigned char md[32];
        if (memcmp(h, MAGIC, 8) || memcmp(h + OFF_KEY, key, 32)) why = "its header is not the entry's";
        else if (len != (uint64_t)st.st_size - WL_CACHE_HEAD) why = "it is truncated";
        else if (sha256(h + WL_CACHE_HEAD, (size_t)len, md) || memcmp(md, h + OFF_SUM, 32)) why = "its content does not match its hash";
        if (why) munmap(m, (size_t)st.st_size);
    }
    if (why) {
        close(fd);
        note(c, "the cache entry %s is not used: %s; computing it again", path, why);
        return -1;
    }
    if (mine) futimens(fd, NULL);   /* the time eviction orders by: last use */
    close(fd);
    *e = (wl_cache_entry){.data = (const unsigned char *)m + WL_CACHE_HEAD, .len = (size_t)st.st_size - WL_CACHE_HEAD,
                          .base = m, .maplen = (size_t)st.st_size, .cached = 1};
    return 1;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Writes head + payload [WL_CACHE_HEAD + len] to path through a temporary file renamed into place, mode 0644. */
static int entry_write(const char *dir, const char *path, unsigned char *buf, size_t len)
{
    char tmp[PATH_MAX];
    unsigned char r[8];
    if (wl_random_bytes(r, sizeof r)) return -1;
    snprintf(tmp, sizeof tmp, "%s/.tmp-%ld-%02x%02x%02x%02x%02x%02x%02x%02x", dir, (long)getpid(), r[0], r[1], r[2],
             r[3], r[4], r[5], r[6], r[7]);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    int rc = fchmod(fd, 0644) || write_all(fd, buf, WL_CACHE_HEAD + len) || fsync(fd) ? -1 : 0;
    if (close(fd)) rc = -1;
    if (rc == 0) rc = rename(tmp, path);
    if (rc) unlink(tmp);
    return rc;
}

typedef struct used {
    char name[72];
    off_t size;
    struct timespec t;
} used;

static int older(const void *a, const void *b)
{
    const used *x = a, *y = b;
    if (x->t.tv_sec != y->t.tv_sec) return x->t.tv_sec < y->t.tv_sec ? -1 : 1;
    return x->t.tv_nsec < y->t.tv_nsec ? -1 : x->t.tv_nsec > y->t.tv_nsec;
}

/* The bytes the folder's entries may take. */
static uint64_t cache_limit(const wl_cache *c) { return c->limit ? c->limit : WL_CACHE_DEFAULT_LIMIT; }

/* Removes the entries used longest ago (never keep) until the folder's entries take at most limit bytes, and the
 * temporary files of writers that died (untouched for 10 minutes). */
static void evict(const wl_cache *c, const char *keep)
{
    uint64_t limit = cache_limit(c), total = 0;
    DIR *d = opendir(c->dir);
    if (!d) return;
    used *u = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    time_t now = time(NULL);
    while ((de = readdir(d))) {
        size_t k = strlen(de->d_name);
        struct stat st;
        if (!strncmp(de->d_name, ".tmp-", 5) && fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode) && st.st_mtime < now - 600)
            unlinkat(dirfd(d), de->d_name, 0);
        if (k != 68 || strcmp(de->d_name + 64, ".wlc") || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
            !S_ISREG(st.st_mode))
            continue;
        total += (uint64_t)st.st_size;
        if (!strcmp(de->d_name, keep)) continue;
        if (n == cap) u = wl_xrealloc(u, (cap = cap ? 2 * cap : 64) * sizeof *u);
        memcpy(u[n].name, de->d_name, k + 1);
        u[n].size = st.st_size;
        u[n++].t = st.st_mtim;
    }
    if (n) qsort(u, n, sizeof *u, older);
    for (size_t i = 0; i < n && total > limit; i++)
        if (unlinkat(dirfd(d), u[i].name, 0) == 0) total -= (uint64_t)u[i].size;
    closedir(d);
    free(u);
}

/* Takes the exclusive lock on fd, waking every 10 ms to look at *interrupt. */
static int lock_wait(const wl_cache *c, int fd, wl_err *err)
{
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) return 0;
        if (errno != EWOULDBLOCK && errno != EINTR) return 1;
        if (c->interrupt && *c->interrupt) return wl_fail(err, "interrupted while waiting for another process's cache entry");
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
}

static int compute_private(wl_cache_fill_fn fill, void *ud, wl_cache_entry *e, wl_err *err)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    if (fill(ud, &buf, &len, err)) return -1;
    *e = (wl_cache_entry){.data = buf + WL_CACHE_HEAD, .len = len, .base = buf};
    return 0;
}

int wl_cache_entry_path(const wl_cache *c, const char *name, char *out, size_t cap)
{
    unsigned char key[32];
    char hx[65];
    if (sha256(name, strlen(name), key)) return -1;
    hex(key, hx);
    return c && c->dir && snprintf(out, cap, "%s/%s.wlc", c->dir, hx) < (int)cap ? 0 : -1;
}

int wl_cache_get(const wl_cache *c, const char *name, wl_cache_fill_fn fill, void *ud, wl_cache_entry *e, wl_err *err)
{
    *e = (wl_cache_entry){0};
    if (!c || !c->dir) return compute_private(fill, ud, e, err);
    unsigned char key[32];
    char hx[65], path[PATH_MAX], lockpath[PATH_MAX], file[72];
    if (sha256(name, strlen(name), key)) return wl_fail(err, "out of memory hashing a cache entry's name");
    hex(key, hx);
    snprintf(file, sizeof file, "%s.wlc", hx);
    if (wl_cache_entry_path(c, name, path, sizeof path) ||
        snprintf(lockpath, sizeof lockpath, "%s/%s.lock", c->dir, hx) >= (int)sizeof lockpath) {
        note(c, "the cache folder's name is too long; computing here");
        return compute_private(fill, ud, e, err);
    }
    struct stat dst;
    if (make_dirs(c->dir) || stat(c->dir, &dst) || !S_ISDIR(dst.st_mode)) {
        note(c, "the cache folder %s cannot be made (%s); computing here", c->dir, strerror(errno));
        return compute_private(fill, ud, e, err);
    }
    int mine = dst.st_uid == geteuid() && access(c->dir, W_OK) == 0;
    int r = entry_read(c, path, key, dst.st_uid, mine, e);
    if (r == 1) return 0;
    if (!mine) return compute_private(fill, ud, e, err);
    int lfd = open(lockpath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    int locked = lfd < 0 ? 1 : lock_wait(c, lfd, err);
    if (locked < 0) {
        close(lfd);
        return -1;
    }
    if (locked) {
        int e0 = errno;
        if (lfd >= 0) close(lfd);
        note(c, "the cache entry's lock %s cannot be taken (%s); computing here", lockpath, strerror(e0));
        return compute_private(fill, ud, e, err);
    }
    /* Another process may have written it while this one waited; a bad entry (noted once) is replaced. */
    wl_cache quiet = *c;
    if (r < 0) quiet.note = NULL;
    r = entry_read(&quiet, path, key, dst.st_uid, mine, e);
    if (r == 1) {
        close(lfd);   /* releases the lock */
        return 0;
    }
    unsigned char *buf = NULL;
    size_t len = 0;
    if (fill(ud, &buf, &len, err)) {
        close(lfd);
        return -1;
    }
    memset(buf, 0, WL_CACHE_HEAD);
    memcpy(buf, MAGIC, 8);
    uint64_t len64 = len;
    memcpy(buf + OFF_LEN, &len64, 8);
    memcpy(buf + OFF_KEY, key, 32);
    uint64_t limit = cache_limit(c);
    if (len + WL_CACHE_HEAD > limit) {
        /* stored, it would evict every other entry and still pass the limit */
        close(lfd);
        note(c, "the cache entry %s would take %.1f MiB, over the cache's limit of %.1f MiB; kept here only", path,
             (double)(len + WL_CACHE_HEAD) / (1 << 20), (double)limit / (1 << 20));
        *e = (wl_cache_entry){.data = buf + WL_CACHE_HEAD, .len = len, .base = buf};
        return 0;
    }
    int stored = sha256(buf + WL_CACHE_HEAD, len, buf + OFF_SUM) == 0 && entry_write(c->dir, path, buf, len) == 0;
    close(lfd);
    if (stored) evict(c, file);
    if (stored && entry_read(c, path, key, dst.st_uid, mine, e) == 1) {
        free(buf);
        e->cached = 0;
        return 0;
    }
    if (!stored) note(c, "the cache entry %s cannot be stored (%s); kept here only", path, strerror(errno));
    *e = (wl_cache_entry){.data = buf + WL_CACHE_HEAD, .len = len, .base = buf};
    return 0;
}

void wl_cache_release(wl_cache_entry *e)
{
    if (!e) return;
    if (e->maplen) munmap(e->base, e->maplen);
    else free(e->base);
    *e = (wl_cache_entry){0};
}

int wl_cache_file_hash(const char *path, char out[65], wl_err *err)
{
    char *data;
    size_t len;
    if (wl_read_file(path, &data, &len, err)) return -1;
    unsigned char md[32];
    int rc = sha256(data, len, md);
    free(data);
    if (rc) return wl_fail(err, "%s: out of memory hashing the file", path);
    hex(md, out);
    return 0;
}

/* wl_core.c: error messages, sink helpers, MIME bundles and atomic file I/O shared by the runtime. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700   /* realpath */
#include "wl_core.h"
#include "wl_utf8.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_INFIX ".tmp."

int wl_fail(wl_err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void wl_mime_free(wl_mime *m)
{
    if (!m) return;
    free(m->text_plain);
    free(m->text_html);
    free(m->image_svg);
    free(m->app_json);
    free(m->vegalite);
    memset(m, 0, sizeof *m);
}

void wl_sink_write(const wl_sink *s, const char *stream, const char *text, size_t n)
{
    if (s && s->write && n) s->write(s->ud, stream, text, n);
}

void wl_sink_printf(const wl_sink *s, const char *fmt, ...)
{
    if (!s || !s->write) return;
    va_list ap;
    va_start(ap, fmt);
    char small[512];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        s->write(s->ud, "stdout", small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) return;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->write(s->ud, "stdout", big, (size_t)n);
    free(big);
}

int wl_sink_interrupted(const wl_sink *s)
{
    return s && s->interrupt && *s->interrupt;
}

char *wl_path_shown(const char *path)
{
    size_t len = strlen(path);
    char *full = strdup(path), *out = NULL;
    if (!full || !len) return full;
    for (size_t n = len;;) {
        char c = full[n];
        full[n] = 0;
        char *real = realpath(n ? full : path[0] == '/' ? "/" : ".", NULL);
        full[n] = c;
        if (real) {
            const char *rest = full + n;
            while (*rest == '/') rest++;
            size_t cap = strlen(real) + strlen(rest) + 2;
            if ((out = malloc(cap))) snprintf(out, cap, "%s%s%s", real, *rest && strcmp(real, "/") ? "/" : "", rest);
            free(real);
            break;
        }
        if (n == 0) break;
        do n--; while (n > 0 && full[n] != '/');
    }
    if (out) {
        free(full);
        return out;
    }
    memcpy(full, path, len + 1);
    return full;
}

/* Fails with "SHOWN: what: why" where SHOWN is shown when it is not NULL, else path as wl_path_shown gives it; a
 * path too long for the message keeps its first and last 300 bytes around "...". */
static int fail_at(wl_err *err, const char *path, const char *shown, const char *what, int e)
{
    char *resolved = shown ? NULL : wl_path_shown(path);
    const char *p = shown ? shown : resolved ? resolved : path;
    size_t n = strlen(p);
    int head = n > 700 ? 300 : (int)n;
    wl_fail(err, "%.*s%s%s: %s%s%s", head, p, n > 700 ? "..." : "", n > 700 ? p + n - 300 : "", what, e ? ": " : "",
            e ? strerror(e) : "");
    free(resolved);
    return -1;
}

static const char *file_kind(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : S_ISLNK(m) ? "a symbolic link" : "not a regular file";
}

/* The file a save to path replaces (malloc'd in *target): path itself when nothing or a regular file stands there,
 * the regular file that a symbolic link at path leads to; anything else is refused. */
static int save_target(const char *path, char **target, wl_err *err)
{
    struct stat st;
    *target = NULL;
    if (!*path) return wl_fail(err, "an empty file name: give the file to write, such as model.npz");
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT) return fail_at(err, path, NULL, "cannot save here", errno);
        *target = strdup(path);
    } else if (S_ISREG(st.st_mode)) {
        *target = strdup(path);
    } else if (S_ISLNK(st.st_mode)) {
        char *real = realpath(path, NULL);
        if (!real)
            return wl_fail(err, "%s: is a symbolic link that leads to no file (%s); wordlab saves only through a link to a "
                           "regular file", path, strerror(errno));
        if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
            wl_fail(err, "%s: is a symbolic link to %s; wordlab replaces only regular files", path, file_kind(st.st_mode));
            free(real);
            return -1;
        }
        *target = real;
        return 0;
    } else {
        char what[160];
        snprintf(what, sizeof what, "is %s; wordlab replaces only regular files", file_kind(st.st_mode));
        return fail_at(err, path, NULL, what, 0);
    }
    return *target ? 0 : wl_fail(err, "%s: out of memory", path);
}
/* Removes the NAME.tmp.PID.RANDOM files in directory dfd that a process killed while saving NAME left behind
 * (PID no longer running); best effort. */
static void remove_stale_temps(int dfd, const char *name)
{
    size_t nlen = strlen(name), stem = nlen + strlen(TMP_INFIX);
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return;
    }
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, name, nlen) || strncmp(e->d_name + nlen, TMP_INFIX, strlen(TMP_INFIX)) ||
            e->d_name[stem] < '0' || e->d_name[stem] > '9')
            continue;
        char *end;
        long pid = strtol(e->d_name + stem, &end, 10);
        if (*end != '.' || !end[1] || pid <= 0) continue;
        if (pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH) unlinkat(dfd, e->d_name, 0);
    }
    closedir(d);
}

/* Creates NAME.tmp.PID.RANDOM in dfd exclusively, never through a link; its name goes to *tmp (malloc'd). */
static int create_temp(int dfd, const char *name, char **tmp)
{
    size_t cap = strlen(name) + strlen(TMP_INFIX) + 48;
    if (!(*tmp = malloc(cap))) {
        errno = ENOMEM;
        return -1;
    }
    for (int tries = 0; tries < 100; tries++) {
        uint64_t r;
        if (wl_random_bytes(&r, sizeof r)) break;
        snprintf(*tmp, cap, "%s" TMP_INFIX "%ld.%016llx", name, (long)getpid(), (unsigned long long)r);
        int fd = openat(dfd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

static int write_all(int fd, const char *p, size_t left)
{
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return -1;
        p += w;
        left -= (size_t)w;
    }
    return 0;
}

/* Writes data as name in the directory dfd: a temporary created there, fsync, renameat; messages name path (or shown). */
static int write_into(int dfd, const char *name, const char *path, const char *shown, const void *data, size_t len,
                      wl_err *err)
{
    char *tmp = NULL;
    int rc = -1, fd = create_temp(dfd, name, &tmp);
    if (fd < 0) {
        fail_at(err, path, shown, "cannot create a temporary file", errno);
    } else if (write_all(fd, data, len)) {
        fail_at(err, path, shown, "write failed", errno);
        close(fd);
    } else if (fsync(fd) != 0 || close(fd) != 0) {
        fail_at(err, path, shown, "cannot flush", errno);
    } else if (renameat(dfd, tmp, dfd, name) != 0) {
        fail_at(err, path, shown, "cannot rename the temporary file into place", errno);
    } else {
        rc = 0;
        remove_stale_temps(dfd, name);
        fsync(dfd);   /* makes the rename itself durable (best effort) */
    }
    if (rc && fd >= 0) unlinkat(dfd, tmp, 0);
    free(tmp);
    return rc;
}

/* Up to cap bytes from the start of fd into buf: how many were read, or -1 (errno set). */
static ssize_t read_head(int fd, unsigned char *buf, size_t cap)
{
    size_t n = 0;
    while (n < cap) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        n += (size_t)r;
    }
    return (ssize_t)n;
}

/* What the n first bytes of a file of size > 0 bytes hold, for a refusal: "holds a ZIP archive of 9 bytes",
 * "holds text beginning \"my essay\"" (up to 40 characters, white space as one space) or "holds binary data of 9
 * bytes" (a control character, or bytes that are not UTF-8). */
static void describe_content(const unsigned char *b, size_t n, size_t size, char *out, size_t cap)
{
    if (n >= 4 && !memcmp(b, "PK\3\4", 4)) {
        snprintf(out, cap, "holds a ZIP archive of %zu bytes", size);
        return;
    }
    char shown[40 * 4 + 1];
    size_t k = 0, i = 0;
    for (int chars = 0; i < n && chars < 40; chars++) {
        uint32_t cp;
        size_t len = wl_utf8_next((const char *)b + i, n - i, &cp);
        if (!len && n - i < 4 && n < size) break;   /* a character cut where the head ends */
        if (!len || (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0x7f) {
            snprintf(out, cap, "holds binary data of %zu bytes", size);
            return;
        }
        if (cp < 0x20 || cp == ' ') {
            if (k && shown[k - 1] != ' ') shown[k++] = ' ';
        } else {
            memcpy(shown + k, b + i, len);
            if (cp == '"') shown[k] = '\'';
            k += len;
        }
        i += len;
    }
    while (k && shown[k - 1] == ' ') k--;
    shown[k] = 0;
    snprintf(out, cap, "holds text beginning \"%s%s\"", shown, i < size ? "..." : "");
}

/* Refuses (-1, err set) to replace target, the file a save to path replaces, when it exists and kind->is says it is
 * not of the kind; an empty file, which holds nothing to lose, is replaced. */
static int check_kind(const char *path, const char *target, const wl_save_kind *kind, wl_err *err)
{
    size_t size;
    struct stat st;
    if (lstat(target, &st) != 0 && errno == ENOENT) return 0;
    int fd = wl_open_read(AT_FDCWD, target, 0, SIZE_MAX, NULL, &size, err);
    if (fd < 0) return -1;
    if (size == 0) {
        close(fd);
        return 0;
    }
    size_t want = size < kind->head ? size : kind->head;
    unsigned char *head = malloc(want);
    ssize_t n = head ? read_head(fd, head, want) : -1;
    int e = head ? errno : ENOMEM;
    close(fd);
    int rc = 0;
    if (n < 0) {
        rc = fail_at(err, path, NULL, "cannot read what a save would replace", e);
    } else if (!kind->is(head, (size_t)n, size)) {
        char what[WL_ERR_MAX / 2], held[256];
        describe_content(head, (size_t)n, size, held, sizeof held);
        snprintf(what, sizeof what, "%s, not %s; nothing was written (wordlab replaces only a file of the kind it "
                 "saves): remove the file or save under another name", held, kind->name);
        rc = fail_at(err, path, NULL, what, 0);
    }
    free(head);
    return rc;
}

int wl_write_atomic(const char *path, const void *data, size_t len, wl_err *err)
{
    return wl_write_atomic_kind(path, NULL, data, len, err);
}

int wl_write_atomic_kind(const char *path, const wl_save_kind *kind, const void *data, size_t len, wl_err *err)
{
    char *target;
    if (save_target(path, &target, err)) return -1;
    if (kind && check_kind(path, target, kind, err)) {
        free(target);
        return -1;
    }
    char *slash = strrchr(target, '/');
    const char *name = slash ? slash + 1 : target;
    if (!*name) {
        free(target);
        return fail_at(err, path, NULL, "is a directory; wordlab replaces only regular files", 0);
    }
    if (slash) *slash = 0;
    int dfd = open(slash ? (slash == target ? "/" : target) : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (slash) *slash = '/';
    int rc = dfd < 0 ? fail_at(err, path, NULL, "cannot create a temporary file", errno)
                     : write_into(dfd, name, path, NULL, data, len, err);
    if (dfd >= 0) close(dfd);
    free(target);
    return rc;
}

int wl_write_atomic_at(int dfd, const char *name, const char *shown, const void *data, size_t len, wl_err *err)
{
    struct stat st;
    int there = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (!there && errno != ENOENT) return fail_at(err, name, shown, "cannot save here", errno);
    if (there && !S_ISREG(st.st_mode)) {
        char what[160];
        snprintf(what, sizeof what, "is %s; wordlab replaces only regular files here, and follows no link",
                 file_kind(st.st_mode));
        return fail_at(err, name, shown, what, 0);
    }
    return write_into(dfd, name, name, shown, data, len, err);
}

double wl_mean(const double *x, size_t n)
{
    double s = 0;
    int finite = 1;
    for (size_t i = 0; i < n; i++) {
        s += x[i];
        finite = finite && isfinite(x[i]);
    }
    if (isfinite(s) || !finite) return s / (double)n;
    s = 0;
    for (size_t i = 0; i < n; i++) s += x[i] / (double)n;
    return s;
}

double wl_sample_std(const double *x, size_t n, double mean)
{
    double big = 0, ss = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(x[i] - mean);
        if (!(d <= big)) big = d;   /* NaN stays */
    }
    if (!(big > 0) || isinf(big)) return big;   /* 0, NaN or inf */
    for (size_t i = 0; i < n; i++) ss += ((x[i] - mean) / big) * ((x[i] - mean) / big);
    return big * sqrt(ss / (double)(n - 1));
}

int wl_read_line(FILE *f, char **buf, size_t *cap, size_t *len)
{
    size_t n = 0;
    int ch, rc = 1;
    flockfile(f);
    for (;;) {
        ch = getc_unlocked(f);
        if (ch == EOF || ch == '\n') break;
        if (n == WL_LINE_MAX) {
            errno = EFBIG;
            rc = -1;
            break;
        }
        if (n + 2 > *cap) {
            size_t ncap = *cap < 256 ? 256 : 2 * *cap;
            char *grown = realloc(*buf, ncap);
            if (!grown) {
                errno = ENOMEM;
                rc = -1;
                break;
            }
            *buf = grown;
            *cap = ncap;
        }
        (*buf)[n++] = (char)ch;
    }
    if (rc == 1 && ch == EOF && ferror_unlocked(f)) rc = -1;
    else if (rc == 1 && ch == EOF && n == 0) rc = 0;
    funlockfile(f);
    if (rc == 1 && !*buf && !(*buf = malloc(*cap = 256))) {
        errno = ENOMEM;
        return -1;
    }
    if (rc == 1) (*buf)[n] = 0;
    *len = n;
    return rc;
}

int wl_random_bytes(void *buf, size_t n)
{
    return getentropy(buf, n) == 0 ? 0 : -1;
}

const char *wl_read_line_why(int e)
{
    return e == EFBIG ? "longer than 16 MiB" : strerror(e);
}

/* Refuses (-1, err set) what st describes unless it is a regular file of at most max bytes. */
static int check_regular(const struct stat *st, const char *path, const char *shown, size_t max, wl_err *err)
{
    char what[200];
    if (!S_ISREG(st->st_mode)) {
        snprintf(what, sizeof what, "is %s, not a regular file; wordlab reads only regular files", file_kind(st->st_mode));
        return fail_at(err, path, shown, what, 0);
    }
    if ((uintmax_t)st->st_size > (uintmax_t)max) {
        snprintf(what, sizeof what, "is %jd bytes, larger than %zu bytes, the most read here", (intmax_t)st->st_size, max);
        return fail_at(err, path, shown, what, 0);
    }
    return 0;
}

int wl_open_read(int dfd, const char *path, int nofollow, size_t max, const char *shown, size_t *size, wl_err *err)
{
    struct stat st;
    *size = 0;
    /* what stands there is looked at before it is opened (a device is not even opened), and again once open (it may
     * have been replaced meanwhile; O_NONBLOCK: opening a FIFO never waits for a writer) */
    if (fstatat(dfd, path, &st, nofollow ? AT_SYMLINK_NOFOLLOW : 0) == 0 && check_regular(&st, path, shown, max, err))
        return -1;
    int fd = openat(dfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
    if (fd < 0) return fail_at(err, path, shown, errno == ELOOP && nofollow ? "is a symbolic link, which is not followed "
                                                                              "here" : "cannot open", errno);
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) != 0 || flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        return fail_at(err, path, shown, "cannot read", e);
    }
    if (check_regular(&st, path, shown, max, err)) {
        close(fd);
        return -1;
    }
    *size = (size_t)st.st_size;
    return fd;
}

FILE *wl_fopen_read(const char *path, size_t max, size_t *size, wl_err *err)
{
    int fd = wl_open_read(AT_FDCWD, path, 0, max, NULL, size, err);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
    if (fd >= 0 && !f) {
        fail_at(err, path, NULL, "cannot read", errno);
        close(fd);
    }
    return f;
}

/* Reads fd to its end into a malloc'd, NUL-terminated buffer, expecting size bytes (a file that grows meanwhile is
 * read on, up to max bytes): 0, or an errno (EFBIG past max). */
static int read_all(int fd, size_t size, size_t max, char **data, size_t *len)
{
    size_t cap = size + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf) return ENOMEM;
    for (;;) {
        char extra;
        int full = n + 1 == cap;   /* at the size expected: the end, unless the file grew */
        ssize_t r = full ? read(fd, &extra, 1) : read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            int e = r ? errno : 0;
            if (e) {
                free(buf);
                return e;
            }
            break;
        }
        if (full) {
            size_t ncap = cap <= max / 2 ? 2 * cap : max + 1;
            char *grown = n < max ? realloc(buf, ncap) : NULL;
            if (!grown) {
                free(buf);
                return n < max ? ENOMEM : EFBIG;
            }
            buf = grown;
            cap = ncap;
            buf[n++] = extra;
        } else {
            n += (size_t)r;
        }
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return 0;
}

int wl_read_file_at(int dfd, const char *path, int nofollow, size_t max, const char *shown, char **data, size_t *len,
                    wl_err *err)
{
    size_t size;
    *data = NULL;
    *len = 0;
    int fd = wl_open_read(dfd, path, nofollow, max, shown, &size, err);
    if (fd < 0) return -1;
    int bad = read_all(fd, size, max, data, len);
    close(fd);
    if (!bad) return 0;
    char what[64];
    snprintf(what, sizeof what, "larger than %zu bytes, the most read here", max);
    return fail_at(err, path, shown, bad == EFBIG ? what : bad == ENOMEM ? "out of memory" : "read error",
                   bad == EFBIG || bad == ENOMEM ? 0 : bad);
}

int wl_read_file_max(const char *path, size_t max, char **data, size_t *len, wl_err *err)
{
    return wl_read_file_at(AT_FDCWD, path, 0, max, NULL, data, len, err);
}

int wl_read_file(const char *path, char **data, size_t *len, wl_err *err)
{
    return wl_read_file_max(path, WL_READ_MAX, data, len, err);
}

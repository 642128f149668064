/* wl_core.c: error messages, sink helpers, MIME bundles and atomic file I/O shared by the runtime. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700   /* realpath */
#include "wl_core.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

const char *wl_path_shown(const char *path, char *out, size_t cap)
{
    char full[PATH_MAX], real[PATH_MAX];
    if (!path[0] || snprintf(full, sizeof full, "%s", path) >= (int)sizeof full) return path;
    for (size_t n = strlen(full);;) {
        char c = full[n];
        full[n] = 0;
        const char *r = realpath(n ? full : path[0] == '/' ? "/" : ".", real);
        full[n] = c;
        if (r) {
            const char *rest = full + n;
            while (*rest == '/') rest++;
            int w = snprintf(out, cap, "%s%s%s", real, *rest && strcmp(real, "/") ? "/" : "", rest);
            return w > 0 && (size_t)w < cap ? out : path;
        }
        if (n == 0) return path;
        do n--; while (n > 0 && full[n] != '/');
    }
}

/* Removes the NAME.tmp.PID files in directory dfd that a process killed while saving NAME left behind
 * (PID no longer running); best effort. tmpname is this save's own NAME.tmp.PID. */
static void remove_stale_temps(int dfd, const char *tmpname)
{
    size_t stem = strlen(tmpname);
    while (stem > 0 && tmpname[stem - 1] != '.') stem--;   /* NAME.tmp. */
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return;
    }
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, tmpname, stem) || e->d_name[stem] < '0' || e->d_name[stem] > '9') continue;
        char *end;
        long pid = strtol(e->d_name + stem, &end, 10);
        if (*end || pid <= 0) continue;
        if (pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH) unlinkat(dfd, e->d_name, 0);
    }
    closedir(d);
}

int wl_write_atomic(const char *path, const void *data, size_t len, wl_err *err)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 32);
    if (!tmp) return wl_fail(err, "%s: out of memory", path);
    snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        int e = errno;
        char shown[PATH_MAX];
        free(tmp);
        return wl_fail(err, "%s: cannot create temporary file: %s", wl_path_shown(path, shown, sizeof shown),
                       strerror(e));
    }
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            free(tmp);
            return wl_fail(err, "%s: write failed: %s", path, strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        return wl_fail(err, "%s: cannot flush: %s", path, strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        char shown[PATH_MAX];
        unlink(tmp);
        free(tmp);
        return wl_fail(err, "%s: cannot rename temporary file into place: %s", wl_path_shown(path, shown, sizeof shown),
                       strerror(e));
    }
    /* Make the rename itself durable: fsync the directory that holds the file (best effort). */
    char *slash = strrchr(tmp, '/');
    if (slash) *slash = '\0';
    int dfd = open(slash ? (slash == tmp ? "/" : tmp) : ".", O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        remove_stale_temps(dfd, slash ? slash + 1 : tmp);
        fsync(dfd);
        close(dfd);
    }
    free(tmp);
    return 0;
}

int wl_read_file(const char *path, char **data, size_t *len, wl_err *err)
{
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        char shown[PATH_MAX];
        return wl_fail(err, "%s: cannot open: %s", wl_path_shown(path, shown, sizeof shown), strerror(e));
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return wl_fail(err, "%s: out of memory", path);
    }
    for (;;) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return wl_fail(err, "%s: out of memory", path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return wl_fail(err, "%s: read error", path);
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
}

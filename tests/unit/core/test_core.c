/* test_core.c: error formatting, atomic writes and file reads of the core module. */
#include "wl_core.h"
#include "wl_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_fail_formats(void)
{
    wl_err e;
    CHECK(wl_fail(&e, "line %d: %s", 7, "bad") == -1);
    CHECK(strcmp(e.msg, "line 7: bad") == 0);
    CHECK(wl_fail(NULL, "ignored") == -1);
}

/* A fresh directory under /tmp for one test, in dir (at least 20 bytes). */
static void tmp_dir(char *dir)
{
    strcpy(dir, "/tmp/wl_core_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes dir and everything in it (links themselves, not what they lead to). */
static void remove_tmp_dir(const char *dir)
{
    CHECK(nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS) == 0);
}

static void test_atomic_roundtrip(void)
{
    char dir[32];
    tmp_dir(dir);
    char path[256];
    snprintf(path, sizeof path, "%s/f.txt", dir);
    wl_err e;
    CHECK(wl_write_atomic(path, "hello", 5, &e) == 0);
    CHECK(wl_write_atomic(path, "world!", 6, &e) == 0);
    char *data;
    size_t len;
    CHECK(wl_read_file(path, &data, &len, &e) == 0);
    CHECK(len == 6 && memcmp(data, "world!", 6) == 0);
    free(data);
    char bad[300];
    snprintf(bad, sizeof bad, "%s/missing/dir/f.txt", dir);
    CHECK(wl_write_atomic(bad, "x", 1, &e) == -1);
    CHECK(strstr(e.msg, bad) != NULL);
    CHECK(wl_read_file(bad, &data, &len, &e) == -1);
    CHECK(strstr(e.msg, "cannot open") != NULL);
    CHECK(wl_write_atomic("", "x", 1, &e) == -1 && strstr(e.msg, "an empty file name"));
    remove_tmp_dir(dir);
}

static char *path_in(const char *dir, const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

/* Only a regular file is replaced; a link to one is written through; a link to anything else is refused. */
static void test_atomic_destinations(void)
{
    char dir[32];
    tmp_dir(dir);
    wl_err e;
    CHECK(mkfifo(path_in(dir, "fifo"), 0644) == 0 && mkdir(path_in(dir, "sub"), 0755) == 0);
    CHECK(wl_write_atomic(path_in(dir, "fifo"), "x", 1, &e) == -1 && strstr(e.msg, "fifo: is a FIFO; wordlab replaces only regular files"));
    CHECK(wl_write_atomic(path_in(dir, "sub"), "x", 1, &e) == -1 && strstr(e.msg, "sub: is a directory"));
    CHECK(wl_write_atomic(path_in(dir, "sub/"), "x", 1, &e) == -1 && strstr(e.msg, "is a directory"));
    struct stat st;
    CHECK(lstat(path_in(dir, "fifo"), &st) == 0 && S_ISFIFO(st.st_mode));

    CHECK(wl_write_atomic(path_in(dir, "real"), "old", 3, &e) == 0);
    CHECK(symlink("real", path_in(dir, "link")) == 0 && symlink("fifo", path_in(dir, "to_fifo")) == 0 &&
          symlink("nowhere", path_in(dir, "dangling")) == 0);
    CHECK_MSG(wl_write_atomic(path_in(dir, "link"), "new!", 4, &e) == 0, "%s", e.msg);
    char *data;
    size_t len;
    CHECK(lstat(path_in(dir, "link"), &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(wl_read_file(path_in(dir, "real"), &data, &len, &e) == 0 && len == 4 && !memcmp(data, "new!", 4));
    free(data);
    CHECK(wl_write_atomic(path_in(dir, "to_fifo"), "x", 1, &e) == -1 && strstr(e.msg, "to_fifo: is a symbolic link to a FIFO"));
    CHECK(wl_write_atomic(path_in(dir, "dangling"), "x", 1, &e) == -1 && strstr(e.msg, "dangling: is a symbolic link that leads to no file"));
    CHECK(lstat(path_in(dir, "nowhere"), &st) == -1 && errno == ENOENT);
    CHECK(entries(dir) == 6);   /* fifo sub real link to_fifo dangling: no temporary left */
    remove_tmp_dir(dir);
}

/* Temporaries of dead savers (NAME.tmp.PID.RANDOM) are removed after a save; a live saver's, another file's and
 * names of another form are kept. */
static void test_stale_temporaries(void)
{
    char dir[32];
    tmp_dir(dir);
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    waitpid(dead, NULL, 0);
    char stale[64], live[64], other[64];
    snprintf(stale, sizeof stale, "f.npz.tmp.%d.00aa11bb22cc33dd", (int)dead);
    snprintf(live, sizeof live, "f.npz.tmp.%d.00aa11bb22cc33dd", (int)getppid());
    snprintf(other, sizeof other, "g.npz.tmp.%d.00aa11bb22cc33dd", (int)dead);
    const char *kept[] = {live, other, "f.npz.tmp.x", "f.npz.tmp.123"};
    wl_err e;
    CHECK(wl_write_atomic(path_in(dir, stale), "s", 1, &e) == 0);
    for (int i = 0; i < 4; i++) CHECK(wl_write_atomic(path_in(dir, kept[i]), "k", 1, &e) == 0);
    CHECK(wl_write_atomic(path_in(dir, "f.npz"), "data", 4, &e) == 0);
    CHECK(access(path_in(dir, stale), F_OK) != 0);
    for (int i = 0; i < 4; i++) CHECK_MSG(access(path_in(dir, kept[i]), F_OK) == 0, "%s removed", kept[i]);
    CHECK(entries(dir) == 5);
    remove_tmp_dir(dir);
}

/* Paths longer than any fixed buffer are used whole; one past what the system takes is an error that says so. */
static void test_long_paths(void)
{
    char dir[32];
    tmp_dir(dir);
    char path[8192], comp[201];
    memset(comp, 'd', 200);
    comp[200] = 0;
    snprintf(path, sizeof path, "%s", dir);
    for (int i = 0; i < 4; i++) {
        strcat(path, "/");
        strcat(path, comp);
        CHECK(mkdir(path, 0755) == 0);
    }
    strcat(path, "/f.txt");   /* over 800 bytes */
    wl_err e;
    CHECK_MSG(wl_write_atomic(path, "long", 4, &e) == 0, "%s", e.msg);
    char *data, *shown = wl_path_shown(path);
    size_t len;
    CHECK(wl_read_file(path, &data, &len, &e) == 0 && len == 4);
    free(data);
    CHECK(shown && !strcmp(shown, path));
    free(shown);
    char big[8192];
    snprintf(big, sizeof big, "%s", dir);
    for (int i = 0; i < 30; i++) strcat(big, "/"), strcat(big, comp);
    CHECK(wl_read_file(big, &data, &len, &e) == -1 && strstr(e.msg, "File name too long") && strstr(e.msg, "..."));
    CHECK(wl_write_atomic(big, "x", 1, &e) == -1 && strstr(e.msg, "File name too long"));
    remove_tmp_dir(dir);
}

/* Readers take a regular file only, and check its size before they read: a FIFO (never waited on), a device, a
 * directory and a file over the limit are errors that name the path; a link is refused where nofollow says so. */
static void test_read_regular_only(void)
{
    char dir[32];
    tmp_dir(dir);
    wl_err e;
    char *data;
    size_t len, size;
    CHECK(mkfifo(path_in(dir, "fifo"), 0644) == 0);   /* no writer: opening it for reading would block */
    CHECK(wl_read_file(path_in(dir, "fifo"), &data, &len, &e) == -1 && !data);
    CHECK_MSG(strstr(e.msg, "fifo: is a FIFO, not a regular file; wordlab reads only regular files"), "%s", e.msg);
    CHECK(wl_read_file("/dev/zero", &data, &len, &e) == -1);
    CHECK_MSG(strstr(e.msg, "/dev/zero: is a character device, not a regular file"), "%s", e.msg);
    CHECK(wl_read_file(dir, &data, &len, &e) == -1 && strstr(e.msg, "is a directory, not a regular file"));
    CHECK(wl_fopen_read(path_in(dir, "fifo"), 100, &size, &e) == NULL && strstr(e.msg, "is a FIFO"));
    FILE *f = fopen(path_in(dir, "big"), "w");   /* sparse: 3 GB on no disk space */
    CHECK(f && ftruncate(fileno(f), 3000000000) == 0);
    if (f) fclose(f);
    CHECK(wl_read_file_max(path_in(dir, "big"), 1000, &data, &len, &e) == -1);
    CHECK_MSG(strstr(e.msg, "big: is 3000000000 bytes, larger than 1000 bytes, the most read here"), "%s", e.msg);
    CHECK(wl_write_atomic(path_in(dir, "real"), "data", 4, &e) == 0 && symlink("real", path_in(dir, "link")) == 0);
    CHECK(wl_read_file_max(path_in(dir, "link"), 4, &data, &len, &e) == 0 && len == 4 && !strcmp(data, "data"));
    free(data);
    CHECK(wl_read_file_max(path_in(dir, "real"), 3, &data, &len, &e) == -1 && strstr(e.msg, "larger than 3 bytes"));
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    CHECK(wl_read_file_at(dfd, "link", 1, 100, "cache/link", &data, &len, &e) == -1);
    CHECK_MSG(strstr(e.msg, "cache/link: is a symbolic link, not a regular file"), "%s", e.msg);
    CHECK(wl_read_file_at(dfd, "real", 1, 100, "cache/real", &data, &len, &e) == 0 && len == 4);
    free(data);
    FILE *s = wl_fopen_read(path_in(dir, "link"), 100, &size, &e);
    CHECK(s && size == 4 && fgetc(s) == 'd');
    if (s) fclose(s);
    /* a save into the directory never goes through a link, nor replaces anything but a regular file */
    CHECK(wl_write_atomic_at(dfd, "link", "cache/link", "evil", 4, &e) == -1);
    CHECK_MSG(strstr(e.msg, "cache/link: is a symbolic link; wordlab replaces only regular files here"), "%s", e.msg);
    CHECK(wl_write_atomic_at(dfd, "fifo", "cache/fifo", "x", 1, &e) == -1 && strstr(e.msg, "is a FIFO"));
    CHECK(wl_write_atomic_at(dfd, "real", "cache/real", "new!", 4, &e) == 0);
    CHECK(wl_write_atomic_at(dfd, "fresh", "cache/fresh", "one", 3, &e) == 0);
    CHECK(wl_read_file(path_in(dir, "real"), &data, &len, &e) == 0 && !strcmp(data, "new!"));
    free(data);
    CHECK(entries(dir) == 5);   /* fifo big real link fresh: no temporary left */
    close(dfd);
    remove_tmp_dir(dir);
}

/* Lines: a read error or a line past WL_LINE_MAX is an error, never the end; NUL bytes are kept. */
static void test_read_line(void)
{
    char *buf = NULL;
    size_t cap = 0, len;
    FILE *f = fmemopen((void *)"a\0b\nlast", 8, "r");
    CHECK(wl_read_line(f, &buf, &cap, &len) == 1 && len == 3 && !memcmp(buf, "a\0b", 3));
    CHECK(wl_read_line(f, &buf, &cap, &len) == 1 && len == 4 && !strcmp(buf, "last"));
    CHECK(wl_read_line(f, &buf, &cap, &len) == 0);
    fclose(f);
    f = fopen("/tmp", "r");   /* a directory: read fails with EISDIR */
    CHECK(f && wl_read_line(f, &buf, &cap, &len) == -1 && errno == EISDIR);
    if (f) fclose(f);
    f = fopen("/dev/zero", "r");
    CHECK(f && wl_read_line(f, &buf, &cap, &len) == -1 && errno == EFBIG && len == WL_LINE_MAX);
    CHECK(!strcmp(wl_read_line_why(EFBIG), "longer than 16 MiB"));
    if (f) fclose(f);
    free(buf);
}

static void test_mean_and_std(void)
{
    double huge[2] = {1e308, 1e308}, neg[3] = {-1e308, -1e308, -1e308}, some[4] = {1, 2, 3, 4};
    CHECK(wl_mean(huge, 2) == 1e308 && wl_mean(neg, 3) == -1e308);
    CHECK(wl_mean(some, 4) == 2.5 && fabs(wl_sample_std(some, 4, 2.5) - 1.2909944487358056) < 1e-15);
    double spread[2] = {-1e308, 1e308};
    CHECK(wl_mean(spread, 2) == 0 && fabs(wl_sample_std(spread, 2, 0) / 1.4142135623730951e308 - 1) < 1e-15);
    double odd[2] = {1, NAN}, inf[2] = {1, INFINITY};
    CHECK(isnan(wl_mean(odd, 2)) && isnan(wl_sample_std(odd, 2, wl_mean(odd, 2))));
    CHECK(isinf(wl_mean(inf, 2)) && wl_sample_std(huge, 2, 1e308) == 0);
}

void wl_test_main(void)
{
    test_atomic_destinations();
    test_stale_temporaries();
    test_long_paths();
    test_read_line();
    test_read_regular_only();
    test_mean_and_std();
    test_fail_formats();
    test_atomic_roundtrip();
}

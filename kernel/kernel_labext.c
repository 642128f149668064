/* kernel_labext.c: installs the prebuilt wordlab JupyterLab extension beside the kernel spec (see kernel_labext.h). */
#include "kernel_labext.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cJSON.h>

/* nftw's callback: removes one entry of a tree, deepest first. */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Copies the directory src (regular files and directories only) into dst, which must not exist. */
static int copy_tree(const char *src, const char *dst, wl_err *err)
{
    if (mkdir(dst, 0755)) return wl_fail(err, "cannot create %s: %s", dst, strerror(errno));
    DIR *d = opendir(src);
    if (!d) return wl_fail(err, "cannot open %s: %s", src, strerror(errno));
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char from[PATH_MAX], to[PATH_MAX];
        if (snprintf(from, sizeof from, "%s/%s", src, e->d_name) >= (int)sizeof from ||
            snprintf(to, sizeof to, "%s/%s", dst, e->d_name) >= (int)sizeof to) {
            rc = wl_fail(err, "a path under %s is too long", src);
            break;
        }
        struct stat st;
        if (lstat(from, &st)) {
            rc = wl_fail(err, "cannot read %s: %s", from, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            rc = copy_tree(from, to, err);
        } else if (S_ISREG(st.st_mode)) {
            char *data;
            size_t len;
            rc = wl_read_file(from, &data, &len, err);
            if (rc == 0) {
                rc = wl_write_atomic(to, data, len, err);
                free(data);
            }
        } else {
            rc = wl_fail(err, "%s is neither a file nor a directory", from);
        }
    }
    closedir(d);
    return rc;
}

int wl_labext_install(const char *exe_dir, const char *base, char *out, size_t cap, wl_err *err)
{
    char src[PATH_MAX], path[PATH_MAX + 16];
    snprintf(src, sizeof src, "%s/lab/labextension", exe_dir);
    snprintf(path, sizeof path, "%s/package.json", src);
    char *text;
    size_t len;
    if (wl_read_file(path, &text, &len, err))
        return wl_fail(err, "the JupyterLab extension is not built next to this program (%s: build the target "
                            "labextension)", src);
    cJSON *pkg = cJSON_Parse(text);
    free(text);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(pkg, "name");
    int ok = cJSON_IsString(name) && name->valuestring[0] && !strstr(name->valuestring, "..") &&
             strspn(name->valuestring, "abcdefghijklmnopqrstuvwxyz0123456789-_.") == strlen(name->valuestring);
    int n = ok ? snprintf(out, cap, "%s/labextensions/%s", base, name->valuestring) : 0;
    cJSON_Delete(pkg);
    if (!ok) return wl_fail(err, "%s has no plain package name", path);
    if (n >= (int)cap) return wl_fail(err, "the path %s/labextensions/... is too long", base);
    char parent[PATH_MAX + 32];
    snprintf(parent, sizeof parent, "%s/labextensions", base);
    if (mkdir(parent, 0755) && errno != EEXIST) return wl_fail(err, "cannot create %s: %s", parent, strerror(errno));
    struct stat st;
    if (lstat(out, &st) == 0 && nftw(out, remove_entry, 16, FTW_DEPTH | FTW_PHYS))
        return wl_fail(err, "cannot remove the earlier copy in %s: %s", out, strerror(errno));
    return copy_tree(src, out, err);
}

/* kernel_spec.c: `wordlab install-kernel`: writes the Jupyter kernel spec that runs this binary. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cJSON.h>

#include "wl_core.h"

#define SPEC_SRC WL_SOURCE_DIR "/share/jupyter/kernels/wordlab"

static const char *LOGOS[] = {"logo-32x32.png", "logo-64x64.png", "logo-svg.svg"};

static int install_usage(void)
{
    fprintf(stderr,
            "usage: wordlab install-kernel [--user | --prefix DIR] [--name NAME] [--interrupt-mode signal|message]\n"
            "  --user     into the user's Jupyter data directory (the default)\n"
            "  --prefix   into DIR/share/jupyter/kernels/NAME (put DIR/share/jupyter on JUPYTER_PATH)\n");
    return 2;
}

/* mkdir -p; returns 0 / -1 (errno set). */
static int make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        int rc = mkdir(path, 0755);
        *p = '/';
        if (rc && errno != EEXIST) return -1;
    }
    return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

/* The user's Jupyter data directory, as jupyter_core finds it. */
static int user_data_dir(char *out, size_t cap)
{
    const char *jd = getenv("JUPYTER_DATA_DIR"), *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (jd && *jd) return snprintf(out, cap, "%s", jd) < (int)cap ? 0 : -1;
    if (xdg && *xdg) return snprintf(out, cap, "%s/jupyter", xdg) < (int)cap ? 0 : -1;
    if (home && *home) return snprintf(out, cap, "%s/.local/share/jupyter", home) < (int)cap ? 0 : -1;
    return -1;
}

int wl_cmd_install_kernel(int argc, char **argv)
{
    const char *prefix = NULL, *name = "wordlab", *mode = "signal";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--user"))
            prefix = NULL;
        else if (!strcmp(argv[i], "--prefix") && i + 1 < argc)
            prefix = argv[++i];
        else if (!strcmp(argv[i], "--name") && i + 1 < argc)
            name = argv[++i];
        else if (!strcmp(argv[i], "--interrupt-mode") && i + 1 < argc)
            mode = argv[++i];
        else
            return install_usage();
    }
    if (strcmp(mode, "signal") && strcmp(mode, "message")) return install_usage();
    if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(name)) {
        fprintf(stderr, "wordlab install-kernel: a kernel name uses only a-z 0-9 . _ - (got '%s')\n", name);
        return 2;
    }
    char exe[PATH_MAX], base[PATH_MAX], dir[PATH_MAX + 64];
    if (!realpath("/proc/self/exe", exe)) {
        fprintf(stderr, "wordlab install-kernel: cannot find this program's path: %s\n", strerror(errno));
        return 1;
    }
    if (prefix)
        snprintf(base, sizeof base, "%s/share/jupyter", prefix);
    else if (user_data_dir(base, sizeof base)) {
        fprintf(stderr, "wordlab install-kernel: neither JUPYTER_DATA_DIR, XDG_DATA_HOME nor HOME is set\n");
        return 1;
    }
    snprintf(dir, sizeof dir, "%s/kernels/%s", base, name);
    if (make_dirs(dir)) {
        fprintf(stderr, "wordlab install-kernel: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }

    cJSON *spec = cJSON_CreateObject();
    cJSON *args = cJSON_AddArrayToObject(spec, "argv");
    const char *words[] = {exe, "kernel", "-f", "{connection_file}"};
    for (int i = 0; i < 4; i++) cJSON_AddItemToArray(args, cJSON_CreateString(words[i]));
    cJSON_AddStringToObject(spec, "display_name", "wordlab");
    cJSON_AddStringToObject(spec, "language", "wordlab");
    cJSON_AddStringToObject(spec, "interrupt_mode", mode);
    cJSON_AddObjectToObject(spec, "env");
    cJSON_AddObjectToObject(spec, "metadata");
    char *text = cJSON_Print(spec);
    cJSON_Delete(spec);
    char path[PATH_MAX + 128];
    wl_err err;
    snprintf(path, sizeof path, "%s/kernel.json", dir);
    int rc = text ? wl_write_atomic(path, text, strlen(text), &err) : wl_fail(&err, "out of memory");
    cJSON_free(text);
    for (size_t i = 0; rc == 0 && i < sizeof LOGOS / sizeof LOGOS[0]; i++) {
        char src[PATH_MAX];
        char *data;
        size_t len;
        snprintf(src, sizeof src, "%s/%s", SPEC_SRC, LOGOS[i]);
        snprintf(path, sizeof path, "%s/%s", dir, LOGOS[i]);
        rc = wl_read_file(src, &data, &len, &err);
        if (rc == 0) {
            rc = wl_write_atomic(path, data, len, &err);
            free(data);
        }
    }
    if (rc) {
        fprintf(stderr, "wordlab install-kernel: %s\n", err.msg);
        return 1;
    }
    printf("Installed the wordlab kernel spec in %s\n", dir);
    return 0;
}

/* kernel_spec.c: `wordlab install-kernel`: writes the Jupyter kernel specs that run this binary and wordlab-xeus, and
 * installs the prebuilt JupyterLab extension beside them. */
#include "kernel.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "kernel_labext.h"
#include "wl_core.h"

#define SPEC_SRC WL_SOURCE_DIR "/share/jupyter/kernels/wordlab"

static const char *LOGOS[] = {"logo-32x32.png", "logo-64x64.png", "logo-svg.svg"};

static int install_usage(void)
{
    fprintf(stderr,
            "usage: wordlab install-kernel [--user | --prefix DIR] [--kernel wordlab|wordlab-xeus|both] [--name NAME]\n"
            "                              [--interrupt-mode signal|message]\n"
            "  --user     into the user's Jupyter data directory (the default)\n"
            "  --prefix   into DIR/share/jupyter/kernels/NAME (put DIR/share/jupyter on JUPYTER_PATH; DIR is\n"
            "             sys.prefix of a Python environment: its JupyterLab finds them there)\n"
            "  the wordlab JupyterLab extension (built next to this program) goes to labextensions/ beside kernels/\n"
            "  --kernel   wordlab (the default), wordlab-xeus (the same language on xeus, built next to this\n"
            "             program) or both; --name renames a single one\n");
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

/* The spec of one kernel: name NAME in base/kernels, running program (argv: program, then args). Returns 0 / 1. */
static int install_spec(const char *base, const char *name, const char *display, const char *program,
                        const char *const *args, int nargs, const char *mode)
{
    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/kernels/%s", base, name);
    if (make_dirs(dir)) {
        fprintf(stderr, "wordlab install-kernel: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    cJSON *spec = cJSON_CreateObject();
    cJSON *argv = cJSON_AddArrayToObject(spec, "argv");
    cJSON_AddItemToArray(argv, cJSON_CreateString(program));
    for (int i = 0; i < nargs; i++) cJSON_AddItemToArray(argv, cJSON_CreateString(args[i]));
    cJSON_AddStringToObject(spec, "display_name", display);
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
    printf("Installed the %s kernel spec in %s\n", display, dir);
    return 0;
}

int wl_kernel_spec_install(int argc, char **argv)
{
    const char *prefix = NULL, *name = NULL, *mode = "signal", *kernel = "wordlab";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--user"))
            prefix = NULL;
        else if (!strcmp(argv[i], "--prefix") && i + 1 < argc)
            prefix = argv[++i];
        else if (!strcmp(argv[i], "--name") && i + 1 < argc)
            name = argv[++i];
        else if (!strcmp(argv[i], "--interrupt-mode") && i + 1 < argc)
            mode = argv[++i];
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc)
            kernel = argv[++i];
        else
            return install_usage();
    }
    if (strcmp(mode, "signal") && strcmp(mode, "message")) return install_usage();
    int plain = !strcmp(kernel, "wordlab") || !strcmp(kernel, "both");
    int xeus = !strcmp(kernel, "wordlab-xeus") || !strcmp(kernel, "both");
    if ((!plain && !xeus) || (name && plain && xeus)) return install_usage();
    if (name && (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(name))) {
        fprintf(stderr, "wordlab install-kernel: a kernel name uses only a-z 0-9 . _ - (got '%s')\n", name);
        return 2;
    }
    if (xeus && !strcmp(mode, "message")) {
        fprintf(stderr, "wordlab install-kernel: wordlab-xeus is interrupted by signal only (xeus 2.4 answers an "
                        "interrupt_request with {} and interrupts nothing)\n");
        return 2;
    }
    char exe[PATH_MAX], base[PATH_MAX], xexe[PATH_MAX + 16];
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
    /* wordlab-xeus is built next to this program */
    snprintf(xexe, sizeof xexe, "%.*s/wordlab-xeus", (int)(strrchr(exe, '/') - exe), exe);
    if (xeus && access(xexe, X_OK)) {
        fprintf(stderr, "wordlab install-kernel: %s: %s (build it with the CMake option WL_XEUS and xeus-dev)\n", xexe,
                strerror(errno));
        return 1;
    }
    static const char *const kernel_args[] = {"kernel", "-f", "{connection_file}"};
    static const char *const xeus_args[] = {"-f", "{connection_file}"};
    int rc = 0;
    if (plain) rc = install_spec(base, name ? name : "wordlab", "wordlab", exe, kernel_args, 3, mode);
    if (xeus && !rc)
        rc = install_spec(base, name ? name : "wordlab-xeus", "wordlab (xeus)", xexe, xeus_args, 2, mode);
    if (rc) return rc;
    /* The extension that highlights the language, built next to this program. */
    char dir[PATH_MAX + 64];
    wl_err err;
    *strrchr(exe, '/') = 0;
    if (wl_labext_install(exe, base, dir, sizeof dir, &err)) {
        fprintf(stderr, "wordlab install-kernel: %s\n", err.msg);
        return 1;
    }
    printf("Installed the wordlab JupyterLab extension in %s\n", dir);
    return 0;
}

/* lang_artifacts.c: where the bundled vocab.json, checkpoints and comparison.json live, and how saved outputs name them. */
#include "lang_objs.h"

#include <stdlib.h>
#include <string.h>

/* A malloc'd "<a><b>". */
static char *joined(const char *a, const char *b)
{
    wl_buf buf = {0};
    wl_buf_printf(&buf, "%s%s", a, b);
    return wl_buf_take(&buf);
}

int lang_artifact_dirs(const wl_interp *in, char *dirs[3])
{
    int n = 0;
    const char *first = wl_interp_options(in)->artifacts_dir;
    if (first && *first) dirs[n++] = wl_xstrdup(first);
    char *exe = realpath("/proc/self/exe", NULL);
    char *slash = exe ? strrchr(exe, '/') : NULL;
    if (slash) {
        *slash = 0;
        dirs[n++] = joined(exe, "/../share/artifacts");
    }
    free(exe);
#ifdef WL_SOURCE_DIR
    dirs[n++] = wl_xstrdup(WL_SOURCE_DIR "/share/artifacts");
#endif
    return n;
}

void lang_artifact_dirs_free(char *dirs[3], int n)
{
    for (int i = 0; i < n; i++) free(dirs[i]);
}

char *lang_path_shown(const wl_interp *in, const char *path)
{
    char *dirs[3], *real = realpath(path, NULL), *shown = NULL;
    int n = lang_artifact_dirs(in, dirs);
    for (int i = 0; real && i < n && !shown; i++) {
        char *dir = realpath(dirs[i], NULL);
        size_t k = dir ? strlen(dir) : 0;
        if (dir && !strncmp(real, dir, k) && real[k] == '/') shown = joined("share/artifacts", real + k);
        free(dir);
    }
    free(real);
    lang_artifact_dirs_free(dirs, n);
    return shown ? shown : wl_xstrdup(path);
}

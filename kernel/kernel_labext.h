/* kernel_labext.h: installs the prebuilt wordlab JupyterLab extension beside the kernel spec. */
#ifndef WL_KERNEL_LABEXT_H
#define WL_KERNEL_LABEXT_H

#include "wl_core.h"

/* Copies the prebuilt extension that the build put in EXE_DIR/lab/labextension (scripts/build-labextension.sh) to
 * base/labextensions/NAME (NAME: its package.json's "name"), replacing an earlier copy whole; base is a Jupyter data
 * directory (the user's, or PREFIX/share/jupyter). On success writes the installed directory to out. Returns 0 / -1
 * (err says what and where). */
int wl_labext_install(const char *exe_dir, const char *base, char *out, size_t cap, wl_err *err);

#endif

/* wl_core.h: the runtime's shared contract: status and error messages, the output sink, MIME bundles. */
#ifndef WL_CORE_H
#define WL_CORE_H

#include <signal.h>
#include <stddef.h>

/* Every runtime function that can fail returns 0 on success or -1 on failure and
 * fills the caller's wl_err with one clear sentence that says what and where. */
#define WL_ERR_MAX 1024
typedef struct wl_err {
    char msg[WL_ERR_MAX];
} wl_err;

/* Formats into err (if non-NULL) and returns -1, so callers can `return wl_fail(...)`. */
int wl_fail(wl_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A MIME bundle: any field may be NULL. Strings are owned by the bundle (malloc'd). */
typedef struct wl_mime {
    char *text_plain;   /* always set for a displayable value */
    char *text_html;
    char *image_svg;    /* image/svg+xml */
    char *app_json;     /* application/json: a JSON object or array as text */
    char *vegalite;     /* application/vnd.vegalite.v5+json: a chart's Vega-Lite specification as text */
} wl_mime;

void wl_mime_free(wl_mime *m);

/* The sink: how the runtime and the language report to a front end (REPL or kernel).
 * Any callback may be NULL. The runtime never prints; it calls these. */
typedef struct wl_sink {
    void *ud;
    /* Text output; stream is "stdout" or "stderr"; s is UTF-8, n bytes. */
    void (*write)(void *ud, const char *stream, const char *s, size_t n);
    /* A rich display. display_id may be NULL; update != 0 replaces the display with that id. */
    void (*display)(void *ud, const char *display_id, const wl_mime *bundle, int update);
    /* Clears the current cell's output (wait != 0: when the next output arrives). */
    void (*clear)(void *ud, int wait);
    /* Asks the user for a line; returns 0 and fills out (NUL-terminated), or -1 if no input is possible. */
    int (*input)(void *ud, const char *prompt, int password, char *out, size_t cap);
    /* Set to non-zero (by a signal handler or interrupt_request) to stop the running command. */
    volatile sig_atomic_t *interrupt;
} wl_sink;

/* Helpers that tolerate a NULL sink or NULL callbacks. */
void wl_sink_write(const wl_sink *s, const char *stream, const char *text, size_t n);
void wl_sink_printf(const wl_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int wl_sink_interrupted(const wl_sink *s);

/* Writes data to path atomically: a temporary file (path.tmp.PID) in the same directory, fsync, rename.
 * On failure the old file (if any) is untouched. A successful write also removes the path.tmp.PID files
 * that processes killed while saving left behind. */
int wl_write_atomic(const char *path, const void *data, size_t len, wl_err *err);

/* path as error messages show it: its longest existing leading part resolved (absolute, no symbolic
 * links), the rest as given, in out (PATH_MAX bytes suffice). Returns out, or path itself when that fails.
 * The kernel's working directory need not be the one the user has in mind. */
const char *wl_path_shown(const char *path, char *out, size_t cap);

/* Reads a whole file into a malloc'd buffer (NUL-terminated; *len excludes the NUL). */
int wl_read_file(const char *path, char **data, size_t *len, wl_err *err);

#endif

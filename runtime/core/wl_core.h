/* wl_core.h: the runtime's shared contract: status and error messages, the output sink, MIME bundles. */
#ifndef WL_CORE_H
#define WL_CORE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Every runtime function that can fail returns 0 on success or -1 on failure and
 * fills the caller's wl_err with one clear sentence that says what and where. */
#define WL_ERR_MAX 1024
typedef struct wl_err {
    char msg[WL_ERR_MAX];
} wl_err;

/* Formats into err (if non-NULL) and returns -1, so callers can `return wl_fail(...)`. */
int wl_fail(wl_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The MIME type of a value's JSON for programs: a vendor type, so that no front end prefers it over the HTML, SVG or
 * text meant for reading (stock front ends rank application/json first and would show a JSON tree). */
#define WL_MIME_VALUE_JSON "application/vnd.wordlab.value+json"

/* A MIME bundle: any field may be NULL. Strings are owned by the bundle (malloc'd). */
typedef struct wl_mime {
    char *text_plain;   /* always set for a displayable value */
    char *text_html;
    char *image_svg;    /* image/svg+xml */
    char *app_json;     /* WL_MIME_VALUE_JSON: the value for programs, a JSON object or array as text */
    char *vegalite;     /* application/vnd.vegalite.v5+json: a chart's Vega-Lite specification as text */
    int text_plain_sgr; /* 1: text_plain shades with the runtime's own ANSI colour (ESC [ ... m) and holds no
                         * other control character; a terminal shows it as it is (else controls are shown visibly) */
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
    /* Asks the user for a line; returns 0 and fills out (NUL-terminated), 1 when the answer has cap bytes or more
     * (out is left empty: an answer is never cut), or -1 if no input is possible. */
    int (*input)(void *ud, const char *prompt, int password, char *out, size_t cap);
    /* Set to non-zero (by a signal handler or interrupt_request) to stop the running command. */
    volatile sig_atomic_t *interrupt;
} wl_sink;

/* Helpers that tolerate a NULL sink or NULL callbacks. */
void wl_sink_write(const wl_sink *s, const char *stream, const char *text, size_t n);
void wl_sink_printf(const wl_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int wl_sink_interrupted(const wl_sink *s);

/* Writes data to path atomically: a temporary file NAME.tmp.PID.RANDOM (created exclusively, never through a
 * link) in the destination's directory, fsync, rename. Only a regular file is replaced: a directory, FIFO, device
 * or socket at path is refused; a symbolic link to a regular file is written through (the file it leads to is
 * replaced atomically, the link stays), one that leads nowhere or to anything else is refused. On failure the old
 * file (if any) is untouched. A successful write also removes the NAME.tmp.PID.* files that processes killed
 * while saving left behind. */
int wl_write_atomic(const char *path, const void *data, size_t len, wl_err *err);

/* What a save of one kind may replace, so that a slip of the name does not destroy a file of another kind (an essay,
 * a notebook). is() sees the first head bytes of the regular file that stands there (n of them, fewer when the file,
 * of size bytes, is shorter) and says 1 when that file is of the kind. */
typedef struct wl_save_kind {
    const char *name;   /* what the save writes, in messages: "a checkpoint (a ZIP of .npy arrays, as numpy.savez writes)" */
    size_t head;
    int (*is)(const unsigned char *head, size_t n, size_t size);
} wl_save_kind;

/* wl_write_atomic that replaces an existing file (the one a link leads to) only when it is empty or kind->is says it is
 * of the kind; otherwise nothing is written and the error names the path, what it holds and what the save replaces. */
int wl_write_atomic_kind(const char *path, const wl_save_kind *kind, const void *data, size_t len, wl_err *err);

/* The same as name in the directory dfd, never through a link: a regular file at name is replaced, anything else (a
 * symbolic link included) is refused. shown names the file in messages. For a directory that holds only what wordlab
 * writes there (the download cache). */
int wl_write_atomic_at(int dfd, const char *name, const char *shown, const void *data, size_t len, wl_err *err);

/* path as error messages show it: its longest existing leading part resolved (absolute, no symbolic links), the
 * rest as given; malloc'd (a copy of path when nothing resolves; NULL only when memory runs out).
 * The kernel's working directory need not be the one the user has in mind. */
char *wl_path_shown(const char *path);

/* The mean of n > 0 numbers, without overflow: finite numbers whose sum overflows still give their mean
 * (1e308 and 1e308: 1e308). */
double wl_mean(const double *x, size_t n);

/* The sample standard deviation of n >= 2 numbers around their mean, scaled so that no square overflows. */
double wl_sample_std(const double *x, size_t n, double mean);

/* The longest line wl_read_line accepts: a line of a text format that goes past it is an error, not a line. */
#define WL_LINE_MAX ((size_t)16 << 20)

/* Reads one line of f into *buf (grown as needed, capacity *cap; NUL-terminated, without its "\n"; it may hold NUL
 * bytes) and its length into *len. Returns 1 for a line, 0 at the end of the file, -1 with errno set when reading
 * fails, memory runs out (ENOMEM) or the line is longer than WL_LINE_MAX bytes (EFBIG). */
int wl_read_line(FILE *f, char **buf, size_t *cap, size_t *len);

/* Why wl_read_line failed, from its errno: "longer than 16 MiB" for EFBIG, else strerror. */
const char *wl_read_line_why(int e);

/* n (at most 256) unpredictable bytes from the system's generator (getentropy; the browser's in WebAssembly):
 * 0, or -1 when there is none. */
int wl_random_bytes(void *buf, size_t n);

/* Every reader of a file opens it here: only a regular file of at most max bytes is taken. A directory, a FIFO
 * (opened without waiting for a writer), a device or a socket is refused, naming the path and what it is; a larger
 * file, naming the limit; all before a byte is read. path is relative to the directory dfd (AT_FDCWD: the working
 * directory); nofollow != 0 refuses a symbolic link at path too. Messages name the file as shown gives it (NULL:
 * path as wl_path_shown gives it). Returns the descriptor (close-on-exec, blocking) and the file's size in *size,
 * or -1 with err set. */
int wl_open_read(int dfd, const char *path, int nofollow, size_t max, const char *shown, size_t *size, wl_err *err);

/* The same as a stdio stream (for readers that go line by line); NULL with err set. */
FILE *wl_fopen_read(const char *path, size_t max, size_t *size, wl_err *err);

/* Reads a whole file (opened as wl_open_read does) into a malloc'd buffer (NUL-terminated; *len excludes the NUL);
 * a file that grows past max bytes while it is read is an error too. wl_read_file's bound is WL_READ_MAX (4 GiB;
 * 1 GiB where size_t has 32 bits, as in WebAssembly). */
#define WL_READ_MAX (SIZE_MAX > 0xffffffffu ? (size_t)4 << 30 : (size_t)1 << 30)
int wl_read_file(const char *path, char **data, size_t *len, wl_err *err);
int wl_read_file_max(const char *path, size_t max, char **data, size_t *len, wl_err *err);
int wl_read_file_at(int dfd, const char *path, int nofollow, size_t max, const char *shown, char **data, size_t *len,
                    wl_err *err);

#endif

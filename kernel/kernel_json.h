/* kernel_json.h: the adapter's results as Jupyter JSON: MIME bundles, error fields, cleaned strings. */
#ifndef WL_KERNEL_JSON_H
#define WL_KERNEL_JSON_H

#include <cJSON.h>

#define WL_PROTOCOL_VERSION "5.3"

#ifdef __cplusplus
extern "C" {
#endif

#include "wl_lang.h"

/* A field of an object: a string (or NULL), a bool and an integer (with a default; clamped to +-1e15). */
const char *wl_json_str(const cJSON *obj, const char *key);
int wl_json_bool(const cJSON *obj, const char *key, int dflt);
long wl_json_int(const cJSON *obj, const char *key, long dflt);
/* A string made valid UTF-8 first. */
cJSON *wl_json_string(const char *s);
/* Text made valid UTF-8 with its control characters but newline and tab shown as \u00XX (wl_utf8_visible): front
 * ends read ANSI codes in text/plain, streams and tracebacks (JupyterLab, jupyter console), where an ESC from data
 * would recolour or hide text, or act on the terminal. */
cJSON *wl_json_visible(const char *s, size_t n);
/* A MIME bundle as the "data" object: text/plain always, and every richer form the value has. */
cJSON *wl_json_mime(const wl_mime *b);
/* Adds the error fields to obj: ename, evalue and a traceback list. The language's traceback names the origin,
 * line and column and shows the line with a caret; without one, a line is made here. */
void wl_json_error(cJSON *obj, const wl_lang_error *e);
/* An error reply content {status: error, ename, evalue, traceback: ["ename: evalue"]}. */
cJSON *wl_json_error_reply(const char *ename, const char *evalue);

#ifdef __cplusplus
}
#endif

#endif

/* kernel_json.c: the adapter's results as Jupyter JSON: MIME bundles, error fields, cleaned strings. */
#include "kernel_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_buf.h"
#include "wl_utf8.h"

const char *wl_json_str(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int wl_json_bool(const cJSON *obj, const char *key, int dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

long wl_json_int(const cJSON *obj, const char *key, long dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(v) || v->valuedouble != v->valuedouble) return dflt;
    if (v->valuedouble > 1e15) return (long)1e15;
    if (v->valuedouble < -1e15) return (long)-1e15;
    return (long)v->valuedouble;
}

/* A JSON string of t, which is freed (NULL, when memory ran out: an empty string). */
static cJSON *take_string(char *t)
{
    cJSON *j = cJSON_CreateString(t ? t : "");
    free(t);
    return j;
}

cJSON *wl_json_string(const char *s) { return take_string(wl_utf8_clean(s, strlen(s))); }

cJSON *wl_json_visible(const char *s, size_t n) { return take_string(wl_utf8_visible(s, n)); }

cJSON *wl_json_mime(const wl_mime *b)
{
    cJSON *d = cJSON_CreateObject();
    const char *plain = b->text_plain ? b->text_plain : "";
    cJSON_AddItemToObject(d, "text/plain", wl_json_visible(plain, strlen(plain)));
    if (b->text_html) cJSON_AddItemToObject(d, "text/html", wl_json_string(b->text_html));
    if (b->image_svg) cJSON_AddItemToObject(d, "image/svg+xml", wl_json_string(b->image_svg));
    if (b->app_json) {
        cJSON *j = cJSON_Parse(b->app_json);
        if (j) cJSON_AddItemToObject(d, WL_MIME_VALUE_JSON, j);
    }
    cJSON *vl = b->vegalite ? cJSON_Parse(b->vegalite) : NULL;
    if (vl) cJSON_AddItemToObject(d, "application/vnd.vegalite.v5+json", vl);
    return d;
}

void wl_json_error(cJSON *obj, const wl_lang_error *e)
{
    const char *ename = e->ename[0] ? e->ename : "Error";
    cJSON_AddItemToObject(obj, "ename", wl_json_string(ename));
    cJSON_AddItemToObject(obj, "evalue", wl_json_visible(e->evalue, strlen(e->evalue)));
    cJSON *tb = cJSON_AddArrayToObject(obj, "traceback");
    wl_buf b = {0};
    for (int i = 0; i < e->ntraceback; i++) {
        /* The first line (the message) in red, as notebooks show errors; any control of the text itself shown. */
        if (!i) wl_buf_puts(&b, "\x1b[0;31m");
        wl_buf_visible(&b, e->traceback[i], strlen(e->traceback[i]));
        if (!i) wl_buf_puts(&b, "\x1b[0m");
        char *line = wl_buf_take(&b);
        cJSON_AddItemToArray(tb, cJSON_CreateString(line));
        free(line);
    }
    if (e->ntraceback) return;
    wl_buf_printf(&b, "\x1b[0;31m%s\x1b[0m", ename);
    if (e->line > 0) wl_buf_printf(&b, " at line %d, column %d", e->line, e->col);
    wl_buf_puts(&b, ": ");
    wl_buf_visible(&b, e->evalue, strlen(e->evalue));
    char *line = wl_buf_take(&b);
    cJSON_AddItemToArray(tb, cJSON_CreateString(line));
    free(line);
}

cJSON *wl_json_error_reply(const char *ename, const char *evalue)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "status", "error");
    cJSON_AddStringToObject(r, "ename", ename);
    cJSON_AddStringToObject(r, "evalue", evalue);
    cJSON *tb = cJSON_AddArrayToObject(r, "traceback");
    char line[WL_ERR_MAX + 80];
    snprintf(line, sizeof line, "%s: %s", ename, evalue);
    cJSON_AddItemToArray(tb, cJSON_CreateString(line));
    return r;
}

/* lang_value.c: reference-counted values (numbers, strings, lists, objects), their JSON, number formatting. */
#include "lang_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *wl_fmt_num(double x, int is_int, char *buf)
{
    if (isnan(x)) return strcpy(buf, "nan");
    if (isinf(x)) return strcpy(buf, x > 0 ? "inf" : "-inf");
    if (is_int && fabs(x) < 1e18) {
        snprintf(buf, 64, "%.0f", x);
        return buf;
    }
    if (x != 0 && (fabs(x) >= 1e9 || fabs(x) < 0.1)) {   /* small numbers keep 4 significant digits: 0.00025 */
        snprintf(buf, 64, "%.4g", x);
        return buf;
    }
    snprintf(buf, 64, "%.4f", x);
    char *dot = strchr(buf, '.');
    char *end = buf + strlen(buf) - 1;
    while (end > dot + 1 && *end == '0') *end-- = 0;
    if (!strcmp(buf, "-0.0")) strcpy(buf, "0.0");
    return buf;
}

const char *wl_fmt_count(size_t n, char *buf)
{
    char tmp[32];
    int len = snprintf(tmp, sizeof tmp, "%zu", n), k = 0;
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0) buf[k++] = ',';
        buf[k++] = tmp[i];
    }
    buf[k] = 0;
    return buf;
}

/* ---- values ---- */

static wl_value *new_value(wl_vtype t)
{
    wl_value *v = wl_xcalloc(1, sizeof *v);
    v->refs = 1;
    v->type = t;
    return v;
}

wl_value *wl_num(double x)
{
    wl_value *v = new_value(WL_V_NUM);
    v->num = x;
    return v;
}

wl_value *wl_int(long long x)
{
    wl_value *v = wl_num((double)x);
    v->is_int = 1;
    return v;
}

wl_value *wl_strn(const char *s, size_t n)
{
    wl_value *v = new_value(WL_V_STR);
    v->str = wl_xcalloc(n + 1, 1);
    memcpy(v->str, s, n);
    v->len = n;
    return v;
}

wl_value *wl_str(const char *s) { return wl_strn(s, strlen(s)); }

wl_value *wl_list(void) { return new_value(WL_V_LIST); }

void wl_list_push(wl_value *list, wl_value *item)
{
    if (list->n == list->cap) {
        list->cap = list->cap ? list->cap * 2 : 8;
        list->items = wl_xrealloc(list->items, sizeof(wl_value *) * (size_t)list->cap);
    }
    list->items[list->n++] = item;
}

wl_value *wl_list_nums(const double *x, int n)
{
    wl_value *l = wl_list();
    for (int i = 0; i < n; i++) wl_list_push(l, wl_num(x[i]));
    return l;
}

wl_value *wl_list_strs(char *const *s, size_t n)
{
    wl_value *l = wl_list();
    for (size_t i = 0; i < n; i++) wl_list_push(l, wl_str(s[i]));
    return l;
}

wl_value *wl_obj(const wl_objtype *t, void *data)
{
    wl_value *v = new_value(WL_V_OBJ);
    v->otype = t;
    v->data = data;
    return v;
}

wl_value *wl_ref(wl_value *v)
{
    if (v) v->refs++;
    return v;
}

void wl_obj_free(const wl_objtype *t, void *data)
{
    if (!data) return;
    if (t->free) t->free(data);
    for (const wl_owned *o = t->owns; o && o->member != WL_MEMBER_NONE; o++) {
        void *member = *(void **)((char *)data + o->at);
        if (o->member == WL_MEMBER_VALUE) wl_unref(member);
        else free(member);
    }
    free(data);
}

void wl_unref(wl_value *v)
{
    if (!v || --v->refs > 0) return;
    switch (v->type) {
    case WL_V_LIST:
        for (int i = 0; i < v->n; i++) wl_unref(v->items[i]);
        free(v->items);
        break;
    case WL_V_OBJ:
        wl_obj_free(v->otype, v->data);
        break;
    default:
        break;
    }
    free(v->str);
    free(v);
}

void *wl_obj_data(const wl_value *v, const wl_objtype *t)
{
    return v && v->type == WL_V_OBJ && v->otype == t ? v->data : NULL;
}

const char *wl_value_kind(const wl_value *v)
{
    static _Thread_local char buf[80];
    if (!v) return "no value";
    switch (v->type) {
    case WL_V_NUM: return "a number";
    case WL_V_STR: return "a string";
    case WL_V_LIST: return "a list";
    case WL_V_OBJ:
        snprintf(buf, sizeof buf, "%s %s", strchr("aeiou", v->otype->name[0]) ? "an" : "a", v->otype->name);
        return buf;
    }
    return "a value";
}

/* ---- rendering the built-in kinds ---- */

#define LIST_SHOW 60   /* items shown in text before eliding */

static void text_item(wl_buf *b, const wl_value *v, wl_err *err)
{
    char nb[64];
    if (v->type == WL_V_NUM) {
        wl_buf_puts(b, wl_fmt_num(v->num, v->is_int, nb));
    } else if (v->type == WL_V_STR) {
        wl_buf_json_str(b, v->str);
    } else {
        wl_mime m = {0};
        if (wl_value_render(v, &m, err) == 0 && m.text_plain) {
            const char *nl = strchr(m.text_plain, '\n');
            wl_buf_put(b, m.text_plain, nl ? (size_t)(nl - m.text_plain) : strlen(m.text_plain));
        }
        wl_mime_free(&m);
    }
}

void wl_value_json(wl_buf *b, const wl_value *v, wl_err *err)
{
    switch (v->type) {
    case WL_V_NUM: wl_buf_json_num(b, v->num); break;
    case WL_V_STR: wl_buf_json_str(b, v->str); break;
    case WL_V_LIST:
        wl_buf_put(b, "[", 1);
        for (int i = 0; i < v->n; i++) {
            if (i) wl_buf_put(b, ",", 1);
            wl_value_json(b, v->items[i], err);
        }
        wl_buf_put(b, "]", 1);
        break;
    case WL_V_OBJ: {
        wl_mime m = {0};
        if (wl_value_render(v, &m, err) == 0 && m.app_json) wl_buf_puts(b, m.app_json);
        else wl_buf_puts(b, "null");
        wl_mime_free(&m);
        break;
    }
    }
}

int wl_value_render(const wl_value *v, wl_mime *out, wl_err *err)
{
    memset(out, 0, sizeof *out);
    wl_buf t = {0}, j = {0};
    switch (v->type) {
    case WL_V_NUM:
    case WL_V_STR:
        if (v->type == WL_V_STR) wl_buf_puts(&t, v->str);
        else text_item(&t, v, err);
        wl_value_json(&j, v, err);
        break;
    case WL_V_LIST:
        wl_buf_put(&t, "[", 1);
        for (int i = 0; i < v->n; i++) {
            if (i == LIST_SHOW && v->n > LIST_SHOW + 10) {
                wl_buf_printf(&t, "... %d more ...", v->n - LIST_SHOW - 10);
                i = v->n - 10;
            }
            if (i) wl_buf_puts(&t, ", ");
            text_item(&t, v->items[i], err);
        }
        wl_buf_put(&t, "]", 1);
        if (v->n > LIST_SHOW) wl_buf_printf(&t, "  (%d items)", v->n);
        wl_value_json(&j, v, err);
        break;
    case WL_V_OBJ:
        if (v->otype->render(v->data, out, err)) {
            wl_mime_free(out);
            return -1;
        }
        if (!out->text_plain) out->text_plain = wl_xstrdup(v->otype->name);
        if (!out->app_json && v->otype->fields) {
            wl_fields_json(&j, (wl_value *)v, err);
            out->app_json = wl_buf_take(&j);
        } else if (!out->app_json) {
            wl_buf_puts(&j, "{\"type\":");
            wl_buf_json_str(&j, v->otype->name);
            wl_buf_puts(&j, ",\"text\":");
            wl_buf_json_str(&j, out->text_plain);
            wl_buf_puts(&j, "}");
            out->app_json = wl_buf_take(&j);
        }
        return 0;
    }
    out->text_plain = wl_buf_take(&t);
    out->app_json = wl_buf_take(&j);
    return 0;
}

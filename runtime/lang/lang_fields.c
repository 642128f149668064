/* lang_fields.c: the fields of a value, from its type's table: $x.NAME, the list errors and help show, the JSON. */
#include "lang_int.h"

#include <stdlib.h>
#include <string.h>

static int has_field(const wl_field *f, const void *data) { return !data || !f->has || f->has(data); }

/* Field f of v: its get, or the member of v's data it names. */
static wl_value *field_get(const wl_field *f, wl_value *v, wl_err *err)
{
    if (f->get) return f->get(v, err);
    const char *at = (const char *)v->data + f->at;
    switch (f->member) {
    case WL_MEMBER_INT: return wl_int(*(const int *)at);
    case WL_MEMBER_LONG: return wl_int(*(const long *)at);
    case WL_MEMBER_LLONG: return wl_int(*(const long long *)at);
    case WL_MEMBER_ULONG: return wl_int((long long)*(const unsigned long *)at);
    case WL_MEMBER_ULLONG: return wl_int((long long)*(const unsigned long long *)at);
    case WL_MEMBER_DOUBLE: return wl_num(*(const double *)at);
    case WL_MEMBER_STR: return wl_str(*(const char *const *)at);
    case WL_MEMBER_CHARS: return wl_str(at);
    case WL_MEMBER_VALUE: return wl_ref(*(wl_value *const *)at);
    default:   /* a table entry with neither get nor a member to read */
        wl_fail(err, "the field .%s of %s cannot be read", f->name, v->otype->name);
        return NULL;
    }
}

int wl_fields_names(const wl_objtype *t, const void *data, const char **names, int max)
{
    int n = 0;
    for (const wl_field *f = t->fields; f && f->name && n < max; f++)
        if (has_field(f, data)) names[n++] = f->name;
    return n;
}

/* Appends the fields data has as ".a .b .c". */
static void fields_list(wl_buf *b, const wl_objtype *t, const void *data)
{
    const char *names[64];
    int n = wl_fields_names(t, data, names, 64);
    for (int i = 0; i < n; i++) wl_buf_printf(b, "%s.%s", i ? " " : "", names[i]);
}

void wl_fields_help(wl_buf *b, const wl_objtype *t, int width)
{
    wl_buf all = {0};
    wl_buf_puts(&all, "Fields:");
    for (const wl_field *f = t->fields; f && f->name; f++) {
        wl_buf_printf(&all, " .%s", f->name);
        if (f->about) wl_buf_printf(&all, " (%s)", f->about);
    }
    /* wrapped at the spaces between fields (a note stays with its field) into lines of at most width columns */
    size_t line = 0, cut = 0, depth = 0;
    for (size_t i = 0; i <= all.len; i++) {
        if (i == all.len || (all.s[i] == ' ' && !depth && all.s[i + 1] != '(')) {
            if (i - line > (size_t)width && cut > line) {
                wl_buf_put(b, all.s + line, cut - line);
                wl_buf_put(b, "\n", 1);
                line = cut + 1;
            }
            cut = i;
        }
        if (i < all.len && all.s[i] == '(') depth++;
        else if (i < all.len && all.s[i] == ')' && depth) depth--;
    }
    wl_buf_put(b, all.s + line, all.len - line);
    free(all.s);
}

int wl_item_index(const char *name, long *i)
{
    char *end;
    *i = strtol(name, &end, 10);
    const char *d = name + (name[0] == '-');
    return *end == 0 && d[0] >= '0' && d[0] <= '9';
}

wl_value *wl_value_field(wl_value *v, const char *name, wl_err *err)
{
    long i;
    if (v->otype->item && wl_item_index(name, &i)) return v->otype->item(v, i, err);
    const wl_field *f = v->otype->fields;
    while (f && f->name && strcmp(f->name, name)) f++;
    if (f && f->name && has_field(f, v->data)) return field_get(f, v, err);
    wl_buf b = {0};
    wl_buf_printf(&b, "%s has no field .%s", wl_value_kind(v), name);
    if (f && f->name && f->when) wl_buf_printf(&b, " (only %s)", f->when);   /* a field that only some values have */
    wl_buf_puts(&b, "; its fields are ");
    fields_list(&b, v->otype, v->data);
    const char *when = NULL;   /* those it lacks, by the values that have them */
    for (f = v->otype->fields; f && f->name; f++) {
        if (has_field(f, v->data) || !f->when) continue;
        if (!when || strcmp(when, f->when)) wl_buf_printf(&b, "; only %s:", f->when);
        wl_buf_printf(&b, " .%s", f->name);
        when = f->when;
    }
    if (v->otype->item) wl_buf_puts(&b, "; items by index (.0)");
    const char *names[64];
    wl_did_you_mean(&b, name, names, wl_fields_names(v->otype, NULL, names, 64), ".");
    wl_fail(err, "%s", b.s);
    free(b.s);
    return NULL;
}

void wl_fields_json(wl_buf *b, wl_value *v, wl_err *err)
{
    wl_buf_puts(b, "{\"type\":");
    wl_buf_json_str(b, v->otype->name);
    for (const wl_field *f = v->otype->fields; f && f->name; f++) {
        if (f->no_json || !has_field(f, v->data)) continue;
        wl_value *x = field_get(f, v, err);   /* null when it cannot be had (a tensor too large for a list) */
        wl_buf_printf(b, ",\"%s\":", f->name);
        if (x) wl_value_json(b, x, err);
        else wl_buf_puts(b, "null");
        wl_unref(x);
    }
    wl_buf_puts(b, "}");
}

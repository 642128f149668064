/* lang_tensor.c: the tensor value: float32 data of up to four axes, its summary, a preview, .shape .values and indexing. */
#include "lang_objs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lang_shape_text(wl_buf *b, const int *shape, int ndim)
{
    wl_buf_put(b, "[", 1);
    for (int i = 0; i < ndim; i++) wl_buf_printf(b, "%s%d", i ? "," : "", shape[i]);
    wl_buf_put(b, "]", 1);
}

static int tensor_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_tensor *t = d;
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    size_t finite = 0;
    for (size_t i = 0; i < t->n; i++) {
        double x = t->data[i];
        if (!isfinite(x)) continue;
        lo = fmin(lo, x);
        hi = fmax(hi, x);
        sum += x;
        finite++;
    }
    wl_buf b = {0};
    wl_buf_printf(&b, "%s ", t->name);
    lang_shape_text(&b, t->shape, t->ndim);
    if (finite) wl_buf_printf(&b, " float32: min %.4g, max %.4g, mean %.4g", lo, hi, sum / (double)finite);
    if (finite < t->n) wl_buf_printf(&b, " (%zu masked entries are -inf)", t->n - finite);
    /* a preview of the first matrix (leading indices 0) */
    int rows = t->ndim >= 2 ? t->shape[t->ndim - 2] : 1, cols = t->shape[t->ndim - 1];
    int showr = rows < 6 ? rows : 6, showc = cols < 8 ? cols : 8;
    if (t->ndim > 2) {
        wl_buf_puts(&b, "\nfirst matrix [");
        for (int i = 0; i < t->ndim - 2; i++) wl_buf_puts(&b, "0,");
        wl_buf_puts(&b, ":,:]");
    }
    for (int r = 0; r < showr; r++) {
        wl_buf_puts(&b, "\n ");
        for (int c = 0; c < showc; c++) wl_buf_printf(&b, " %9.4f", t->data[(size_t)r * (size_t)cols + (size_t)c]);
        if (showc < cols) wl_buf_puts(&b, "  …");
    }
    if (showr < rows) wl_buf_puts(&b, "\n  …");
    out->text_plain = wl_buf_take(&b);
    return 0;
}

static const lang_tensor *T(const wl_value *v) { return v->data; }
static wl_value *tensor_shape(wl_value *v, wl_err *err)
{
    (void)err;
    wl_value *l = wl_list();
    for (int i = 0; i < T(v)->ndim; i++) wl_list_push(l, wl_int(T(v)->shape[i]));
    return l;
}
static wl_value *tensor_values(wl_value *v, wl_err *err)
{
    const lang_tensor *t = T(v);
    if (t->n > (1 << 20)) {
        wl_fail(err, "%s has %zu values, too many for a list; index it first (.0)", t->name, t->n);
        return NULL;
    }
    wl_value *l = wl_list();
    for (size_t i = 0; i < t->n; i++) wl_list_push(l, wl_num(t->data[i]));
    return l;
}

/* $t.I: row I of the first axis (-1: the last), a number for a vector. */
static wl_value *tensor_item(wl_value *v, long i, wl_err *err)
{
    const lang_tensor *t = T(v);
    long at = i < 0 ? i + t->shape[0] : i;
    if (at < 0 || at >= t->shape[0]) {
        wl_fail(err, "index %ld is %s of the first axis (size %d; indices count from 0, or from -1 at the end)", i,
                i < 0 ? "before the start" : "past the end", t->shape[0]);
        return NULL;
    }
    i = at;
    if (t->ndim == 1) return wl_num(t->data[i]);
    size_t inner = t->n / (size_t)t->shape[0];
    char nm[48];
    snprintf(nm, sizeof nm, "%.20s.%d", t->name, (int)i);
    wl_value *row = lang_tensor_value(nm, t->data + (size_t)i * inner, t->ndim - 1, t->shape + 1, err);
    if (row) lang_tensor_words(row, t->vocab);
    return row;
}

void lang_tensor_words(wl_value *t, wl_value *vocab)
{
    lang_tensor *lt = t->data;
    wl_unref(lt->vocab);
    lt->vocab = vocab ? wl_ref(vocab) : NULL;
}

static const wl_field TENSOR_FIELDS[] = {
    {WL_FIELD_CHARS("name", lang_tensor, name)}, {.name = "shape", .get = tensor_shape}, {.name = "values", .get = tensor_values}, {0},
};
static const wl_owned TENSOR_OWNS[] = {WL_OWNS(lang_tensor, data), WL_OWNS(lang_tensor, vocab), {0}};

const wl_objtype lang_tensor_type = {.name = "tensor", .fields = TENSOR_FIELDS, .owns = TENSOR_OWNS, .render = tensor_render,
                                     .item = tensor_item};

wl_value *lang_tensor_value(const char *name, const float *data, int ndim, const int *shape, wl_err *err)
{
    lang_tensor *t = wl_xcalloc(1, sizeof *t);
    snprintf(t->name, sizeof t->name, "%.31s", name);
    t->ndim = ndim;
    t->n = 1;
    for (int i = 0; i < ndim; i++) {
        t->shape[i] = shape[i];
        t->n *= (size_t)shape[i];
    }
    t->data = malloc(sizeof(float) * t->n);
    if (!t->data) {
        wl_fail(err, "out of memory for the %zu values of %s", t->n, t->name);
        free(t);
        return NULL;
    }
    memcpy(t->data, data, sizeof(float) * t->n);
    return wl_obj(&lang_tensor_type, t);
}

/* lang_arith.c: numbers and lists of numbers: reading them from values, elementwise + - * / and a result's value. */
#include "lang_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WHOLE_MAX 9007199254740992.0   /* 2^53: whole numbers below it are shown without a point */

void lang_nums_free(lang_nums *a)
{
    free(a->x);
    memset(a, 0, sizeof *a);
}

/* One number of a list or a lone value: a number, or a string that reads as one. */
static int item_num(const wl_value *v, double *x, int *is_int)
{
    if (v->type == WL_V_NUM) {
        *x = v->num;
        *is_int = v->is_int;
        return 0;
    }
    return v->type == WL_V_STR && wl_parse_number(v->str, x, is_int) ? 0 : -1;
}

int lang_nums_read(const wl_value *v, lang_nums *out, int *bad)
{
    memset(out, 0, sizeof *out);
    *bad = -1;
    const double *src = NULL;
    int n = 1;
    if (v->type == WL_V_OBJ) {
        if (!v->otype->numbers) return -1;
        v->otype->numbers(v->data, &src, &n);
    } else if (v->type == WL_V_LIST) {
        n = v->n;
    }
    out->list = v->type != WL_V_NUM && v->type != WL_V_STR;
    out->x = malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (!out->x) return -2;
    out->n = n;
    out->ints = !src;
    for (int i = 0; i < n; i++) {
        int is_int = 0;
        if (src) out->x[i] = src[i];
        else if (item_num(v->type == WL_V_LIST ? v->items[i] : v, &out->x[i], &is_int)) {
            *bad = v->type == WL_V_LIST ? i : -1;
            lang_nums_free(out);
            return -1;
        }
        out->ints &= is_int;
    }
    return 0;
}

wl_value *lang_nums_value(const lang_nums *a)
{
    if (!a->list) return a->ints ? wl_int((long long)a->x[0]) : wl_num(a->x[0]);
    wl_value *l = wl_list();
    for (int i = 0; i < a->n; i++) wl_list_push(l, a->ints ? wl_int((long long)a->x[i]) : wl_num(a->x[i]));
    return l;
}

int lang_nums_op(char op, const lang_nums *a, const lang_nums *b, lang_nums *out, wl_buf *msg, int *blame)
{
    memset(out, 0, sizeof *out);
    if (a->list && b->list && a->n != b->n) {
        *blame = 0;
        wl_buf_printf(msg, "the lists on either side of %c have %d and %d items; they must have as many (or one side be "
                           "a single number)", op, a->n, b->n);
        return -1;
    }
    out->list = a->list || b->list;
    out->n = a->list ? a->n : b->n;
    out->ints = a->ints && b->ints && op != '/';
    out->x = malloc(sizeof(double) * (size_t)(out->n ? out->n : 1));
    if (!out->x) {
        *blame = 0;
        wl_buf_printf(msg, "out of memory for %d numbers", out->n);
        return -1;
    }
    for (int i = 0; i < out->n; i++) {
        double x = a->x[a->list ? i : 0], y = b->x[b->list ? i : 0], r;
        switch (op) {
        case '+': r = x + y; break;
        case '-': r = x - y; break;
        case '*': r = x * y; break;
        default:
            if (y == 0) {
                *blame = 2;
                if (b->list) wl_buf_printf(msg, "division by zero: item %d of the list is 0", i);
                else wl_buf_puts(msg, "division by zero");
                lang_nums_free(out);
                return -1;
            }
            r = x / y;
        }
        if (!isfinite(r)) {
            *blame = 0;
            wl_buf_printf(msg, "%g %c %g overflows a double", x, op, y);
            lang_nums_free(out);
            return -1;
        }
        out->x[i] = r;
        if (fabs(r) >= WHOLE_MAX) out->ints = 0;
    }
    return 0;
}

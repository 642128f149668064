/* lang_args.c: the command API (wl_cmd.h): typed argument and option reads with errors at the word, print's text. */
#include "lang_int.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wl_call_fail(wl_call *c, const char *ename, int word, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err->msg, sizeof c->err->msg, fmt, ap);
    va_end(ap);
    c->ename = ename;
    c->errword = word;
    return -1;
}

int wl_call_argword(const wl_call *c, int i) { return i >= 0 && i < c->argc ? c->argword[i] : -1; }

int wl_call_optword(const wl_call *c, const char *key)
{
    for (int i = 0; i < c->nopts; i++)
        if (!strcmp(c->optk[i], key)) return c->optword[i];
    return -1;
}

static const char *nth(int i)
{
    static const char *const n[] = {"first", "second", "third", "fourth", "fifth", "sixth"};
    return i < 6 ? n[i] : "next";
}

static int type_fail(wl_call *c, int i, const char *want, const wl_value *got)
{
    return wl_call_fail(c, "TypeError", wl_call_argword(c, i), "the %s argument of `%s` must be %s, not %s; usage: %s",
                        nth(i), c->cmd->name, want, wl_value_kind(got), c->cmd->synopsis);
}

static int num_of(const wl_value *v, double *out)
{
    int is_int;
    if (v->type == WL_V_NUM) {
        *out = v->num;
        return 0;
    }
    if (v->type == WL_V_STR && wl_parse_number(v->str, out, &is_int)) return 0;
    return -1;
}

/* A word written as a number too large for a double (1e309): an ArgumentError at the word that says so. */
static int out_of_range(wl_call *c, int word, const char *what, const wl_value *v)
{
    double x;
    int is_int;
    if (v->type != WL_V_STR || wl_parse_number(v->str, &x, &is_int) || !isinf(x)) return 0;
    wl_call_fail(c, "ArgumentError", word, "%s of `%s` is %.40s%s, a number out of range: a number's magnitude is at "
                 "most %.17g", what, c->cmd->name, v->str, strlen(v->str) > 40 ? "..." : "", DBL_MAX);
    return 1;
}

/* The same for (an item of) the i-th argument. */
static int arg_out_of_range(wl_call *c, int i, const wl_value *v)
{
    char what[32];
    snprintf(what, sizeof what, "the %s argument", nth(i));
    return out_of_range(c, wl_call_argword(c, i), what, v);
}

int wl_arg_num(wl_call *c, int i, double *out)
{
    if (i >= c->argc) return wl_call_fail(c, "ArgumentError", c->argc + 1, "`%s` is missing its %s argument; usage: %s",
                                          c->cmd->name, nth(i), c->cmd->synopsis);
    if (num_of(c->argv[i], out))
        return arg_out_of_range(c, i, c->argv[i]) ? -1 : type_fail(c, i, "a number", c->argv[i]);
    return 0;
}

/* Whether x is a whole number from lo to hi that a long long holds (checked before any conversion: (double)LLONG_MAX
 * is 2^63, one past it). */
static int whole_in(double x, long long lo, long long hi)
{
    return x == floor(x) && x >= -0x1p63 && x < 0x1p63 && (long long)x >= lo && (long long)x <= hi;
}

int wl_arg_int(wl_call *c, int i, long long lo, long long hi, long long *out)
{
    double x;
    if (wl_arg_num(c, i, &x)) return -1;
    if (!whole_in(x, lo, hi))
        return wl_call_fail(c, "ArgumentError", wl_call_argword(c, i), "the %s argument of `%s` must be a whole number from %lld to %lld",
                            nth(i), c->cmd->name, lo, hi);
    *out = (long long)x;
    return 0;
}

const char *wl_arg_str(wl_call *c, int i)
{
    if (i >= c->argc) {
        wl_call_fail(c, "ArgumentError", c->argc + 1, "`%s` is missing its %s argument; usage: %s", c->cmd->name, nth(i),
                     c->cmd->synopsis);
        return NULL;
    }
    wl_value *v = c->argv[i];
    if (v->type == WL_V_STR) return v->str;
    if (v->type == WL_V_NUM && v->str) return v->str;
    if (v->type == WL_V_NUM) {
        char nb[64];
        v->str = wl_xstrdup(wl_fmt_num(v->num, v->is_int, nb));
        v->len = strlen(v->str);
        return v->str;
    }
    type_fail(c, i, "text", v);
    return NULL;
}

void *wl_arg_obj(wl_call *c, int i, const wl_objtype *t)
{
    if (i >= c->argc) {
        wl_call_fail(c, "ArgumentError", c->argc + 1, "`%s` is missing its %s argument (a %s); usage: %s", c->cmd->name,
                     nth(i), t->name, c->cmd->synopsis);
        return NULL;
    }
    void *d = wl_obj_data(c->argv[i], t);
    if (!d) {
        char want[80];
        snprintf(want, sizeof want, "%s %s", strchr("aeiou", t->name[0]) ? "an" : "a", t->name);
        type_fail(c, i, want, c->argv[i]);
    }
    return d;
}

int wl_args_nums(wl_call *c, int from, double **out, int *n)
{
    *out = NULL;
    *n = 0;
    int cap = 0;
    for (int i = from; i < c->argc; i++) {
        wl_value *v = c->argv[i];
        const double *stands = NULL;   /* a value that stands for numbers */
        int cnt = v->type == WL_V_LIST ? v->n : 1;
        if (v->type == WL_V_OBJ && v->otype->numbers) v->otype->numbers(v->data, &stands, &cnt);
        for (int k = 0; k < cnt; k++) {
            wl_value *item = v->type == WL_V_LIST ? v->items[k] : v;
            double x = stands ? stands[k] : 0;
            if (!stands && num_of(item, &x)) {
                free(*out);
                *out = NULL;
                if (arg_out_of_range(c, i, item)) return -1;
                return type_fail(c, i, v->type == WL_V_LIST ? "numbers (this list holds something else)" : "a number", item);
            }
            if (*n == cap) {
                cap = cap ? cap * 2 : 16;
                double *nd = realloc(*out, sizeof(double) * (size_t)cap);
                if (!nd) {
                    free(*out);
                    *out = NULL;
                    return wl_call_fail(c, "RuntimeError", wl_call_argword(c, i), "`%s`: out of memory for %d numbers",
                                        c->cmd->name, cap);
                }
                *out = nd;
            }
            (*out)[(*n)++] = x;
        }
    }
    return 0;
}

wl_value *wl_opt_val(wl_call *c, const char *key)
{
    for (int i = 0; i < c->nopts; i++)
        if (!strcmp(c->optk[i], key)) return c->optv[i];
    return NULL;
}

int wl_opt_has(wl_call *c, const char *key) { return wl_opt_val(c, key) != NULL; }

int wl_opt_num(wl_call *c, const char *key, double dflt, double *out)
{
    wl_value *v = wl_opt_val(c, key);
    *out = dflt;
    if (!v) return 0;
    if (num_of(v, out) || !isfinite(*out)) {
        char what[64];
        snprintf(what, sizeof what, "option %.40s=", key);
        if (out_of_range(c, wl_call_optword(c, key), what, v)) return -1;
        return wl_call_fail(c, "TypeError", wl_call_optword(c, key), "option %s= of `%s` must be a number, not %s", key,
                            c->cmd->name, wl_value_kind(v));
    }
    return 0;
}

int wl_opt_int(wl_call *c, const char *key, long long dflt, long long lo, long long hi, long long *out)
{
    double x;
    *out = dflt;
    if (!wl_opt_has(c, key)) return 0;
    if (wl_opt_num(c, key, 0, &x)) return -1;
    if (!whole_in(x, lo, hi))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, key), "option %s= of `%s` must be a whole number from %lld to %lld",
                            key, c->cmd->name, lo, hi);
    *out = (long long)x;
    return 0;
}

const char *wl_opt_str(wl_call *c, const char *key, const char *dflt)
{
    wl_value *v = wl_opt_val(c, key);
    if (!v) return dflt;
    if (v->type == WL_V_STR || (v->type == WL_V_NUM && v->str)) return v->str;
    wl_call_fail(c, "TypeError", wl_call_optword(c, key), "option %s= of `%s` must be text, not %s", key, c->cmd->name,
                 wl_value_kind(v));
    return NULL;
}

int wl_value_underflowed(const wl_value *v)
{
    if (v->type != WL_V_NUM || v->num != 0 || !v->str) return 0;
    for (const char *p = v->str; *p && *p != 'e' && *p != 'E'; p++)
        if (*p >= '1' && *p <= '9') return 1;
    return 0;
}

/* Whether v is a number or a value that stands for numbers. */
static int numeric(const wl_value *v) { return v->type == WL_V_NUM || (v->type == WL_V_OBJ && v->otype->numbers); }

/* The operator word i of the call stands between two numbers: its character, else 0. */
static char arith_op(wl_call *c, int i)
{
    const wl_stmt *st = c->stmt;
    char op = i + 1 < c->argc ? wl_word_op(&st->words[c->argword[i]]) : 0;
    return op && numeric(c->argv[i - 1]) && numeric(c->argv[i + 1]) ? op : 0;
}

/* An operand as written (a number's text), "..." for a value that stands for numbers. */
static const char *operand(const wl_value *v) { return v->type == WL_V_NUM && v->str ? v->str : "..."; }

/* When a bare + - * / stands between two numbers among the arguments (print 0.1 + 0.2), says on stderr that it is
 * written as text and how to compute instead: arithmetic is a statement of its own or goes in [ ], the whole of it
 * (print 2 * 3 + 1: print [2 * 3 + 1]). */
static void note_arithmetic(wl_call *c)
{
    for (int i = 1; c->stmt && i + 1 < c->argc; i++) {
        char op = arith_op(c, i);
        if (!op) continue;
        wl_buf b = {0};
        wl_buf_printf(&b, "%.40s", operand(c->argv[i - 1]));
        for (int k = i; arith_op(c, k) && b.len < 200; k += 2)
            wl_buf_printf(&b, " %c %.40s", arith_op(c, k), operand(c->argv[k + 1]));
        wl_call_note(c, "note: `%s` writes the %c as text, as it writes every word after its name; to %s the result, put "
                        "the arithmetic in [ ]: %s [%s]", c->cmd->name, op, c->cmd->name, c->cmd->name, b.s);
        free(b.s);
        return;
    }
}

void wl_call_note(wl_call *c, const char *fmt, ...)
{
    char note[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(note, sizeof note - 1, fmt, ap);   /* room for the newline */
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n > sizeof note - 2) n = (int)sizeof note - 2;
    note[n++] = '\n';
    wl_sink_write(c->sink, "stderr", note, (size_t)n);
}

/* Writes the arguments as text, separated by spaces and ended by a newline, to stream ("stdout" or "stderr"). */
int wl_call_write_args(wl_call *c, const char *stream)
{
    note_arithmetic(c);
    wl_buf b = {0};
    for (int i = 0; i < c->argc; i++) {
        if (i) wl_buf_put(&b, " ", 1);
        wl_value *v = c->argv[i];
        wl_mime m = {0};
        if (v->type == WL_V_STR) {
            wl_buf_put(&b, v->str, v->len);
        } else if (wl_value_render(v, &m, c->err) == 0) {
            wl_buf_puts(&b, m.text_plain);
        } else {
            free(b.s);
            return -1;
        }
        wl_mime_free(&m);
    }
    wl_buf_put(&b, "\n", 1);
    wl_sink_write(c->sink, stream, b.s, b.len);
    free(b.s);
    return 0;
}

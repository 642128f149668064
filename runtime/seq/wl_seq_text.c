/* wl_seq_text.c: the sequence lesson's printed lines and tables, column for column as the lesson prints them. */
#include "wl_seq.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growable string; after a failed allocation it stays failed and text() returns NULL. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->oom) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + (size_t)n + 1) cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static char *sb_take(sbuf *b)
{
    if (b->oom) {
        free(b->s);
        return NULL;
    }
    if (!b->s) return calloc(1, 1);
    return b->s;
}

static void summary_into(sbuf *b, const wl_seq_lesson *l)
{
    const wl_seq_summary *s = &l->summary;
    sb_printf(b, "sequences %d, length %d, training %d, held-out %d\n", s->n, WL_SEQ_T, s->ntrain, s->ntest);
    sb_printf(b, "rise label rate train %.4f, held-out %.4f\n", s->train_rate, s->test_rate);
    sb_printf(b, "baseline (most frequent class) %.4f\n", s->baseline);
    sb_printf(b, "example sequence [");
    for (int t = 0; t < WL_SEQ_T; t++) {
        char num[32];
        sb_printf(b, "%s%s", t ? ", " : "", wl_seq_float_repr(s->example[t], num));
    }
    sb_printf(b, "]\n");
}

static void heads_into(sbuf *b, const wl_seq_lesson *l)
{
    const wl_seq_opts *o = &l->opts;
    sb_printf(b, "total inner dimension %d, epochs %d, training examples %d, baseline %.4f\n", WL_SEQ_D,
              o->train.epochs, o->ntrain, l->summary.baseline);
    sb_printf(b, "%6s%12s%11s", "heads", "head size", "parameters");
    for (int k = 0; k < o->runs; k++) {
        char name[32];
        snprintf(name, sizeof name, "run %d", k + 1);
        sb_printf(b, "%10s", name);
    }
    sb_printf(b, "%10s%16s\n", "mean", "run difference");
    for (int i = 0; i < o->nheads; i++) {
        const wl_seq_run *r = &l->heads[i * o->runs];
        sb_printf(b, "%6d%12d%11d", r->H, WL_SEQ_D / r->H, WL_SEQ_NPARAMS);
        double sum = 0.0, lo = r[0].acc, hi = r[0].acc;
        for (int k = 0; k < o->runs; k++) {
            sb_printf(b, "%10.4f", r[k].acc);
            sum += r[k].acc;
            if (r[k].acc < lo) lo = r[k].acc;
            if (r[k].acc > hi) hi = r[k].acc;
        }
        sb_printf(b, "%10.4f%16.4f\n", sum / o->runs, hi - lo);
    }
}

static void centers_into(sbuf *b, const wl_seq_lesson *l)
{
    const wl_seq_opts *o = &l->opts;
    sb_printf(b, "the two regions the task wants: steps 1-5 and 7-11\n");
    sb_printf(b, "%18s%34s%12s%10s\n", "", "weight centers", "separation", "held-out");
    for (int i = 0; i < o->nheads; i++)
        for (int k = 0; k < o->runs; k++) {
            const wl_seq_run *r = &l->heads[i * o->runs + k];
            char name[64], centers[WL_SEQ_D * 32] = "";
            snprintf(name, sizeof name, "%d head%s, run %d", r->H, r->H > 1 ? "s" : "", k + 1);
            size_t len = 0;
            for (int h = 0; h < r->H; h++)
                len += (size_t)snprintf(centers + len, sizeof centers - len, "%s%.2f", h ? ", " : "", r->center[h]);
            sb_printf(b, "%-18s%34s%12.4f%10.4f\n", name, centers, r->separation, r->acc);
        }
}

static void order_into(sbuf *b, const wl_seq_lesson *l)
{
    const wl_seq_opts *o = &l->opts;
    sb_printf(b, "baseline (most frequent class) %.4f\n", l->summary.baseline);
    sb_printf(b, "%28s", "");
    for (int k = 0; k < o->runs; k++) {
        char name[32];
        snprintf(name, sizeof name, "run %d", k + 1);
        sb_printf(b, "%9s", name);
    }
    sb_printf(b, "%15s%10s\n", "mean |change|", "largest");
    const wl_seq_run *rows[2] = {l->order_pos, l->order_nopos};
    const char *names[2] = {"positional encoding present", "positional encoding absent"};
    for (int row = 0; row < 2; row++) {
        sb_printf(b, "%-28s", names[row]);
        for (int k = 0; k < o->runs; k++) sb_printf(b, "%9.4f", rows[row][k].acc);
        sb_printf(b, "%15.4f%10.4f\n", l->order_mean[row], l->order_max[row]);
    }
}

char *wl_seq_summary_text(const wl_seq_lesson *l)
{
    sbuf b = {0};
    summary_into(&b, l);
    return sb_take(&b);
}

char *wl_seq_heads_table_text(const wl_seq_lesson *l)
{
    if (!l->heads) return NULL;
    sbuf b = {0};
    heads_into(&b, l);
    return sb_take(&b);
}

char *wl_seq_centers_table_text(const wl_seq_lesson *l)
{
    if (!l->heads) return NULL;
    sbuf b = {0};
    centers_into(&b, l);
    return sb_take(&b);
}

char *wl_seq_order_table_text(const wl_seq_lesson *l)
{
    if (!l->order_pos) return NULL;
    sbuf b = {0};
    order_into(&b, l);
    return sb_take(&b);
}

char *wl_seq_lesson_text(const wl_seq_lesson *l)
{
    sbuf b = {0};
    summary_into(&b, l);
    if (l->heads) {
        heads_into(&b, l);
        centers_into(&b, l);
    }
    if (l->order_pos) order_into(&b, l);
    return sb_take(&b);
}

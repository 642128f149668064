/* wl_seq_text.c: the sequence lesson's printed lines and tables, column for column as the lesson prints them. */
#include "wl_seq.h"
#include "wl_buf.h"
#include "wl_seq_pyfloat.h"

#include <stdio.h>

static void summary_into(wl_buf *b, const wl_seq_lesson *l)
{
    const wl_seq_summary *s = &l->summary;
    wl_buf_printf(b, "sequences %d, length %d, training %d, held-out %d\n", s->n, WL_SEQ_T, s->ntrain, s->ntest);
    wl_buf_printf(b, "rise label rate train %.4f, held-out %.4f\n", s->train_rate, s->test_rate);
    wl_buf_printf(b, "baseline (most frequent class) %.4f\n", s->baseline);
    wl_buf_printf(b, "example sequence [");
    for (int t = 0; t < WL_SEQ_T; t++) {
        char num[32];
        wl_buf_printf(b, "%s%s", t ? ", " : "", wl_seq_float_repr(s->example[t], num));
    }
    wl_buf_printf(b, "]\n");
}

static void heads_into(wl_buf *b, const wl_seq_lesson *l)
{
    const wl_seq_opts *o = &l->opts;
    wl_buf_printf(b, "total inner dimension %d, epochs %d, training examples %d, baseline %.4f\n", WL_SEQ_D,
              o->train.epochs, o->ntrain, l->summary.baseline);
    wl_buf_printf(b, "%6s%12s%11s", "heads", "head size", "parameters");
    for (int k = 0; k < o->runs; k++) {
        char name[32];
        snprintf(name, sizeof name, "run %d", k + 1);
        wl_buf_printf(b, "%10s", name);
    }
    wl_buf_printf(b, "%10s%16s\n", "mean", "run difference");
    for (int i = 0; i < o->nheads; i++) {
        const wl_seq_run *r = &l->heads[i * o->runs];
        wl_buf_printf(b, "%6d%12d%11d", r->H, WL_SEQ_D / r->H, WL_SEQ_NPARAMS);
        double sum = 0.0, lo = r[0].acc, hi = r[0].acc;
        for (int k = 0; k < o->runs; k++) {
            wl_buf_printf(b, "%10.4f", r[k].acc);
            sum += r[k].acc;
            if (r[k].acc < lo) lo = r[k].acc;
            if (r[k].acc > hi) hi = r[k].acc;
        }
        wl_buf_printf(b, "%10.4f", sum / o->runs);
        if (o->runs > 1) wl_buf_printf(b, "%16.4f\n", hi - lo);
        else wl_buf_printf(b, "%15s\u2013\n", "");   /* one run: no difference to show */
    }
}

static void centers_into(wl_buf *b, const wl_seq_lesson *l)
{
    const wl_seq_opts *o = &l->opts;
    wl_buf_printf(b, "the two regions the task wants: steps 1-5 and 7-11\n");
    wl_buf_printf(b, "%18s%34s%12s%10s\n", "", "weight centers", "separation", "held-out");
    for (int i = 0; i < o->nheads; i++)
        for (int k = 0; k < o->runs; k++) {
            const wl_seq_run *r = &l->heads[i * o->runs + k];
            char name[64], centers[WL_SEQ_D * 32] = "";
            snprintf(name, sizeof name, "%d head%s, run %d", r->H, r->H > 1 ? "s" : "", k + 1);
            size_t len = 0;
            for (int h = 0; h < r->H; h++)
                len += (size_t)snprintf(centers + len, sizeof centers - len, "%s%.2f", h ? ", " : "", r->center[h]);
            wl_buf_printf(b, "%-18s%34s%12.4f%10.4f\n", name, centers, r->separation, r->acc);
        }
}

static void order_into(wl_buf *b, const wl_seq_lesson *l)
{
    const wl_seq_opts *o = &l->opts;
    wl_buf_printf(b, "baseline (most frequent class) %.4f\n", l->summary.baseline);
    wl_buf_printf(b, "%28s", "");
    for (int k = 0; k < o->runs; k++) {
        char name[32];
        snprintf(name, sizeof name, "run %d", k + 1);
        wl_buf_printf(b, "%9s", name);
    }
    wl_buf_printf(b, "%15s%10s\n", "mean |change|", "largest");
    const wl_seq_run *rows[2] = {l->order_pos, l->order_nopos};
    const char *names[2] = {"positional encoding present", "positional encoding absent"};
    for (int row = 0; row < 2; row++) {
        wl_buf_printf(b, "%-28s", names[row]);
        for (int k = 0; k < o->runs; k++) wl_buf_printf(b, "%9.4f", rows[row][k].acc);
        wl_buf_printf(b, "%15.4f%10.4f\n", l->order_mean[row], l->order_max[row]);
    }
}

/* What into writes of l, or NULL where l lacks it (has 0). */
static char *text_of(void (*into)(wl_buf *b, const wl_seq_lesson *l), const wl_seq_lesson *l, int has)
{
    if (!has) return NULL;
    wl_buf b = {0};
    into(&b, l);
    return wl_buf_take(&b);
}

char *wl_seq_summary_text(const wl_seq_lesson *l) { return text_of(summary_into, l, 1); }
char *wl_seq_heads_table_text(const wl_seq_lesson *l) { return text_of(heads_into, l, l->heads != NULL); }
char *wl_seq_centers_table_text(const wl_seq_lesson *l) { return text_of(centers_into, l, l->heads != NULL); }
char *wl_seq_order_table_text(const wl_seq_lesson *l) { return text_of(order_into, l, l->order_pos != NULL); }

char *wl_seq_lesson_text(const wl_seq_lesson *l)
{
    wl_buf b = {0};
    summary_into(&b, l);
    if (l->heads) {
        heads_into(&b, l);
        centers_into(&b, l);
    }
    if (l->order_pos) order_into(&b, l);
    return wl_buf_take(&b);
}

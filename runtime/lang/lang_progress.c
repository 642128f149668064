/* lang_progress.c: the live display of a training run: step, bar, loss, best validation, speed, time left and the curve. */
#include "lang_objs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int ui_counter;   /* numbers the displays of this process, so that no two share an id */

int lang_progress_init(lang_progress *ui, wl_call *c, int steps)
{
    *ui = (lang_progress){.c = c, .cap = steps + 1};   /* wl_train reports each step, and a last validation */
    ui->xs = malloc(sizeof(double) * (size_t)ui->cap);
    ui->ys = malloc(sizeof(double) * (size_t)ui->cap);
    if (ui->xs && ui->ys) return 0;
    lang_progress_free(ui);
    return wl_fail(c->err, "out of memory for the loss curve of %d steps", steps);
}

void lang_progress_start(lang_progress *ui, const char *what, int tag)
{
    *ui = (lang_progress){.c = ui->c, .xs = ui->xs, .ys = ui->ys, .cap = ui->cap};
    snprintf(ui->id, sizeof ui->id, "wordlab-%s-%d-%d", what, tag, ++ui_counter);
}

void lang_progress_free(lang_progress *ui)
{
    free(ui->xs);
    free(ui->ys);
    ui->xs = ui->ys = NULL;
}

static void bar(wl_buf *b, int step, int steps)
{
    int fill = steps > 0 ? (int)(16.0 * step / steps) : 0;
    for (int i = 0; i < 16; i++) wl_buf_puts(b, i < fill ? "█" : "░");
}

static void show_progress(lang_progress *ui, const wl_train_progress *p, int update)
{
    wl_buf b = {0};
    wl_buf_printf(&b, "step %d/%d ", p->step, p->steps);
    bar(&b, p->step, p->steps);
    char l[32];
    wl_buf_printf(&b, " loss %s", lang_fmt_loss(p->loss, l));
    if (ui->best_step) wl_buf_printf(&b, " | best val %s @%d", lang_fmt_loss(ui->best, l), ui->best_step);
    wl_buf_printf(&b, " | %.0f/s | %.0f s left", p->examples_per_s, p->eta_s);
    wl_mime m = {0};
    m.text_plain = wl_buf_take(&b);
    m.image_svg = lang_trace_chart(ui->trace, ui->ntrace, ui->xs, ui->ys, ui->n, NULL);
    if (!m.image_svg) {   /* no memory for this update: the next one tries again */
        wl_mime_free(&m);
        return;
    }
    wl_buf_puts(&b, "<pre>");
    wl_buf_html(&b, m.text_plain);
    wl_buf_printf(&b, "</pre>%s", m.image_svg);
    m.text_html = wl_buf_take(&b);
    if (ui->c->sink && ui->c->sink->display) ui->c->sink->display(ui->c->sink->ud, ui->id, &m, update);
    wl_mime_free(&m);
}

void lang_progress_step(void *ud, const wl_train_progress *p)
{
    lang_progress *ui = ud;
    if (ui->n < ui->cap) {
        ui->xs[ui->n] = p->step;
        ui->ys[ui->n++] = p->loss;
    }
    int validated = !isnan(p->validation_loss);
    if (validated) {
        if (!ui->best_step || p->validation_loss < ui->best) {
            ui->best = p->validation_loss;
            ui->best_step = p->step;
        }
        if (ui->ntrace < 64) ui->trace[ui->ntrace++] = (wl_trace_row){p->step, 0, p->loss, p->validation_loss};
    }
    double t = now_s();
    if (validated || p->step == p->steps || t - ui->last > 0.25) {
        show_progress(ui, p, ui->shown);
        ui->shown = 1;
        ui->last = t;
    }
}

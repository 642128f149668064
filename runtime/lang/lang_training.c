/* lang_training.c: the values of training and measuring: the training result with its loss chart, the evaluation. */
#include "lang_objs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the training result ---- */

typedef struct lang_run {
    wl_train_result r;
    char kind[16];
    int steps, batch, V;   /* V: the model's vocabulary size (ln V: the loss of a uniform guess) */
    double lr, wd;
} lang_run;

static void run_free(void *p)
{
    lang_run *run = p;
    wl_train_result_free(&run->r);
}

char *lang_trace_chart(const wl_trace_row *rows, int n, const double *xs, const double *ys, int nlive, char **vegalite)
{
    double *x = malloc(sizeof(double) * (size_t)(n + 1)), *tl = malloc(sizeof(double) * (size_t)(n + 1)),
           *vl = malloc(sizeof(double) * (size_t)(n + 1));
    if (!x || !tl || !vl) {
        free(x);
        free(tl);
        free(vl);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        x[i] = rows[i].step;
        tl[i] = rows[i].train_batch_loss;
        vl[i] = rows[i].validation_loss;
    }
    wl_series s[3] = {{"validation", x, vl, n}, {"train batch", x, tl, n}, {"train (each step)", xs, ys, nlive}};
    wl_chart c = {.title = "loss (nats per token)", .xlabel = "step", .ylabel = "loss", .s = s, .ns = nlive ? 3 : 2,
                  .x_integer = 1, .ref_y = NAN};
    char *svg = wl_chart_svg(&c);
    if (vegalite) *vegalite = wl_chart_vegalite(&c);
    free(x);
    free(tl);
    free(vl);
    return svg;
}

const char *lang_fmt_loss(double x, char buf[32])
{
    snprintf(buf, 32, fabs(x) < 1e6 ? "%.4f" : "%.4g", x);
    return buf;
}

static int run_render(const void *p, wl_mime *out, wl_err *err)
{
    const lang_run *run = p;
    const wl_train_result *r = &run->r;
    char *svg = lang_trace_chart(r->trace, r->ntrace, NULL, NULL, 0, &out->vegalite);
    if (!svg) return wl_fail(err, "out of memory drawing the loss chart of %d validations", r->ntrace);
    wl_table *t = wl_table_new(5);
    wl_table_header_rows(t, 1);
    wl_table_cell(t, "step", -1);
    wl_table_cell(t, "tokens seen", -1);
    wl_table_cell(t, "train batch loss", -1);
    wl_table_cell(t, "validation loss", -1);
    wl_table_cell(t, "", -1);
    for (int i = 0; i < r->ntrace; i++) {
        const wl_trace_row *row = &r->trace[i];
        wl_table_cellf(t, -1, "%d", row->step);
        char g[32];
        wl_table_cell(t, wl_fmt_count((size_t)row->tokens_seen, g), -1);
        wl_table_cell(t, lang_fmt_loss(row->train_batch_loss, g), -1);
        wl_table_cell(t, lang_fmt_loss(row->validation_loss, g), -1);
        wl_table_cell(t, row->step == r->selected_step ? "← kept" : "", -1);
    }
    char *tt = wl_table_text(t), *th = wl_table_html(t);
    wl_table_free(t);
    wl_buf b = {0};
    wl_buf_printf(&b, "trained %s for %d of %d steps (batch %d, lr %g, wd %g) in %.1f s%s\n", run->kind, r->steps_done,
                  run->steps, run->batch, run->lr, run->wd, r->runtime_seconds, r->interrupted ? ", interrupted" : "");
    char l[32];
    if (r->selected_step)
        wl_buf_printf(&b, "kept the weights of step %d (selection loss %s)\n", r->selected_step, lang_fmt_loss(r->selection_loss, l));
    else wl_buf_puts(&b, "kept the initial weights (no validation ran)\n");
    if (isfinite(r->validation_loss))
        wl_buf_printf(&b, "validation loss %s, perplexity %.2f", lang_fmt_loss(r->validation_loss, l), r->validation_perplexity);
    if (isfinite(r->test_loss))
        wl_buf_printf(&b, "; test loss %s, perplexity %.2f", lang_fmt_loss(r->test_loss, l), r->test_perplexity);
    else if (r->interrupted && isfinite(r->validation_loss)) wl_buf_puts(&b, "; test not measured (interrupted; `evaluate` measures it)");
    double uniform = log((double)run->V);
    if (r->selected_step && r->selection_loss > uniform)
        wl_buf_printf(&b, "\nthe kept weights score worse than a uniform guess over the %d words (ln %d = %.2f nats): "
                          "the run diverged; try a smaller lr", run->V, run->V, uniform);
    size_t summary = b.len;
    wl_buf_printf(&b, "\n%s", tt);
    out->text_plain = wl_buf_take(&b);
    char *head = wl_xstrndup(out->text_plain, summary);
    wl_buf_puts(&b, "<pre>");
    wl_buf_html(&b, head);
    wl_buf_printf(&b, "</pre>%s%s", svg, th);
    out->text_html = wl_buf_take(&b);
    out->image_svg = svg;
    free(head);
    free(tt);
    free(th);
    wl_buf_printf(&b, "{\"type\":\"training\",\"kind\":\"%s\",\"steps\":%d,\"steps_asked\":%d,\"batch_size\":%d,\"learning_rate\":",
                  run->kind, r->steps_done, run->steps, run->batch);
    wl_buf_json_num(&b, run->lr);
    wl_buf_puts(&b, ",\"weight_decay\":");
    wl_buf_json_num(&b, run->wd);
    wl_buf_printf(&b, ",\"selected_step\":%d,\"interrupted\":%s,\"validation_loss\":", r->selected_step,
                  r->interrupted ? "true" : "false");
    wl_buf_json_num(&b, r->validation_loss);
    wl_buf_puts(&b, ",\"validation_perplexity\":");
    wl_buf_json_num(&b, r->validation_perplexity);
    wl_buf_puts(&b, ",\"test_loss\":");
    wl_buf_json_num(&b, r->test_loss);
    wl_buf_puts(&b, ",\"test_perplexity\":");
    wl_buf_json_num(&b, r->test_perplexity);
    wl_buf_puts(&b, ",\"seconds\":");
    wl_buf_json_num(&b, r->runtime_seconds);
    wl_buf_puts(&b, ",\"trace\":[");
    for (int i = 0; i < r->ntrace; i++) {
        wl_buf_printf(&b, "%s{\"step\":%d,\"tokens_seen\":%ld,\"train_batch_loss\":", i ? "," : "", r->trace[i].step,
                      r->trace[i].tokens_seen);
        wl_buf_json_num(&b, r->trace[i].train_batch_loss);
        wl_buf_puts(&b, ",\"validation_loss\":");
        wl_buf_json_num(&b, r->trace[i].validation_loss);
        wl_buf_puts(&b, "}");
    }
    wl_buf_puts(&b, "]}");
    out->app_json = wl_buf_take(&b);
    return 0;
}

static const wl_field RUN_FIELDS[] = {
    {WL_FIELD_CHARS("kind", lang_run, kind)},
    {WL_FIELD_MEMBER("steps", lang_run, r.steps_done), .about = "the steps run"},
    {WL_FIELD_MEMBER("steps_asked", lang_run, steps)},
    {WL_FIELD_MEMBER("batch_size", lang_run, batch)},
    {WL_FIELD_MEMBER("learning_rate", lang_run, lr)},
    {WL_FIELD_MEMBER("weight_decay", lang_run, wd)},
    {WL_FIELD_MEMBER("selected_step", lang_run, r.selected_step)},
    {WL_FIELD_MEMBER("validation_loss", lang_run, r.validation_loss)},
    {WL_FIELD_MEMBER("validation_perplexity", lang_run, r.validation_perplexity)},
    {WL_FIELD_MEMBER("test_loss", lang_run, r.test_loss)},
    {WL_FIELD_MEMBER("test_perplexity", lang_run, r.test_perplexity)},
    {WL_FIELD_MEMBER("seconds", lang_run, r.runtime_seconds)},
    {0},
};

const wl_objtype lang_run_type = {.name = "training result", .fields = RUN_FIELDS, .free = run_free, .render = run_render,
                                  .json_only = "interrupted trace"};

wl_value *lang_run_value(const wl_model *m, int steps, int batch, double lr, double wd, wl_train_result *r)
{
    lang_run *run = wl_xcalloc(1, sizeof *run);
    run->r = *r;
    memset(r, 0, sizeof *r);
    snprintf(run->kind, sizeof run->kind, "%s", m->kind_name);
    run->V = m->V;
    run->steps = steps;
    run->batch = batch;
    run->lr = lr;
    run->wd = wd;
    return wl_obj(&lang_run_type, run);
}

/* ---- the evaluation ---- */

typedef struct lang_eval {
    char split[16];
    size_t targets;
    double loss, ppl;
} lang_eval;

static int eval_render(const void *p, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_eval *e = p;
    wl_buf b = {0};
    char g[32];
    wl_buf_printf(&b, "%s: cross-entropy %.4f nats per token, perplexity %.2f, over %s targets", e->split, e->loss, e->ppl,
                  wl_fmt_count(e->targets, g));
    out->text_plain = wl_buf_take(&b);
    return 0;
}

static const wl_field EVAL_FIELDS[] = {
    {WL_FIELD_MEMBER("loss", lang_eval, loss)}, {WL_FIELD_MEMBER("perplexity", lang_eval, ppl)},
    {WL_FIELD_MEMBER("targets", lang_eval, targets)}, {WL_FIELD_CHARS("split", lang_eval, split)}, {0},
};

const wl_objtype lang_evaluation_type = {.name = "evaluation", .fields = EVAL_FIELDS, .render = eval_render};

wl_value *lang_evaluation_value(wl_split split, size_t targets, double loss, double ppl)
{
    lang_eval *e = wl_xcalloc(1, sizeof *e);
    snprintf(e->split, sizeof e->split, "%s", wl_split_name(split));
    e->targets = targets;
    e->loss = loss;
    e->ppl = ppl;
    return wl_obj(&lang_evaluation_type, e);
}

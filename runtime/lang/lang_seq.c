/* lang_seq.c: the sequence lesson's values: its tables, one trained net, the net's weight plot and its parameters. */
#include "lang_objs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the lesson's tables: one value type, showing the part its command computed ---- */

typedef struct seq_tables {
    wl_seq_lesson l;      /* owned: its runs are freed with the value */
    lang_seq_show show;
} seq_tables;

static void tables_free(void *d)
{
    seq_tables *t = d;
    wl_seq_lesson_free(&t->l);
}

/* Appends ,"key":[x0,...] (x [n]). */
static void json_nums(wl_buf *b, const char *key, const double *x, int n)
{
    wl_buf_printf(b, ",\"%s\":", key);
    wl_buf_json_nums(b, x, n);
}

static const char *const SHOW_NAMES[] = {"data", "heads", "centers", "order", "lesson"};

static int tables_render(const void *d, wl_mime *out, wl_err *err)
{
    const seq_tables *t = d;
    const wl_seq_lesson *l = &t->l;
    char *text = t->show == LANG_SEQ_DATA      ? wl_seq_summary_text(l)
                 : t->show == LANG_SEQ_HEADS   ? wl_seq_heads_table_text(l)
                 : t->show == LANG_SEQ_CENTERS ? wl_seq_centers_table_text(l)
                 : t->show == LANG_SEQ_ORDER   ? wl_seq_order_table_text(l)
                                               : wl_seq_lesson_text(l);
    if (!text) return wl_fail(err, "sequence lesson: the %s table was not computed", SHOW_NAMES[t->show]);
    size_t n = strlen(text);
    if (n && text[n - 1] == '\n') text[n - 1] = '\0';   /* the front end ends the display with its own newline */
    wl_buf b = {0};
    wl_buf_puts(&b, "<pre class=\"wordlab-seq\">");
    wl_buf_html(&b, text);
    wl_buf_puts(&b, "</pre>");
    out->text_html = wl_buf_take(&b);
    out->text_plain = text;
    const wl_seq_summary *s = &l->summary;
    wl_buf_printf(&b, "{\"type\":\"sequence %s\",\"seed\":%lld,\"train_rate\":", SHOW_NAMES[t->show], (long long)l->opts.seed);
    wl_buf_json_num(&b, s->train_rate);
    wl_buf_puts(&b, ",\"test_rate\":");
    wl_buf_json_num(&b, s->test_rate);
    wl_buf_puts(&b, ",\"baseline\":");
    wl_buf_json_num(&b, s->baseline);
    json_nums(&b, "example", s->example, WL_SEQ_T);
    if (l->heads) {
        wl_buf_puts(&b, ",\"nets\":[");
        for (int i = 0; i < l->opts.nheads * l->opts.runs; i++) {
            const wl_seq_run *r = &l->heads[i];
            wl_buf_printf(&b, "%s{\"heads\":%d,\"run\":%d,\"accuracy\":", i ? "," : "", r->H, r->run);
            wl_buf_json_num(&b, r->acc);
            wl_buf_puts(&b, ",\"separation\":");
            wl_buf_json_num(&b, r->separation);
            json_nums(&b, "centers", r->center, r->H);
            wl_buf_put(&b, "}", 1);
        }
        wl_buf_put(&b, "]", 1);
    }
    if (l->order_pos) {
        json_nums(&b, "order_change", l->order_mean, 2);
        json_nums(&b, "order_largest", l->order_max, 2);
    }
    wl_buf_put(&b, "}", 1);
    out->app_json = wl_buf_take(&b);
    return 0;
}

static const wl_seq_lesson *SL(const wl_value *v) { return &((const seq_tables *)v->data)->l; }
static int tables_have_heads(const void *d) { return ((const seq_tables *)d)->l.heads != NULL; }
static int tables_have_order(const void *d) { return ((const seq_tables *)d)->l.order_pos != 0; }
static wl_value *tables_example(wl_value *v, wl_err *err) { (void)err; return wl_list_nums(SL(v)->summary.example, WL_SEQ_T); }
/* Per head count: each run's accuracy (means 0) or their mean (means 1). */
static wl_value *tables_accuracy(const wl_seq_lesson *l, int means)
{
    const wl_seq_opts *o = &l->opts;
    wl_value *v = wl_list();
    for (int i = 0; i < o->nheads; i++) {
        double acc[WL_SEQ_MAX_RUNS], sum = 0.0;
        for (int k = 0; k < o->runs; k++) sum += acc[k] = l->heads[i * o->runs + k].acc;
        wl_list_push(v, means ? wl_num(sum / o->runs) : wl_list_nums(acc, o->runs));
    }
    return v;
}
static wl_value *tables_accuracies(wl_value *v, wl_err *err) { (void)err; return tables_accuracy(SL(v), 0); }
static wl_value *tables_means(wl_value *v, wl_err *err) { (void)err; return tables_accuracy(SL(v), 1); }
/* Per net: its heads' centers (separations 0) or its separation (separations 1). */
static wl_value *tables_nets(const wl_seq_lesson *l, int separations)
{
    wl_value *v = wl_list();
    for (int i = 0; i < l->opts.nheads * l->opts.runs; i++)
        wl_list_push(v, separations ? wl_num(l->heads[i].separation) : wl_list_nums(l->heads[i].center, l->heads[i].H));
    return v;
}
static wl_value *tables_centers(wl_value *v, wl_err *err) { (void)err; return tables_nets(SL(v), 0); }
static wl_value *tables_separations(wl_value *v, wl_err *err) { (void)err; return tables_nets(SL(v), 1); }
static wl_value *tables_order_change(wl_value *v, wl_err *err) { (void)err; return wl_list_nums(SL(v)->order_mean, 2); }
static wl_value *tables_order_largest(wl_value *v, wl_err *err) { (void)err; return wl_list_nums(SL(v)->order_max, 2); }

#define FROM_HEADS "from seq_heads, seq_centers or seq_lesson"
#define FROM_ORDER "from seq_order or seq_lesson"
/* The JSON gives the runs as "nets" (each with its accuracy, separation and centers) rather than by field. */
static const wl_field TABLES_FIELDS[] = {
    {WL_FIELD_MEMBER("seed", seq_tables, l.opts.seed)},
    {WL_FIELD_MEMBER("train_rate", seq_tables, l.summary.train_rate)},
    {WL_FIELD_MEMBER("test_rate", seq_tables, l.summary.test_rate)},
    {WL_FIELD_MEMBER("baseline", seq_tables, l.summary.baseline)},
    {.name = "example", .get = tables_example},
    {.name = "accuracies", .get = tables_accuracies, .has = tables_have_heads, .about = "per head count, per run",
     .when = FROM_HEADS, .no_json = 1},
    {.name = "means", .get = tables_means, .has = tables_have_heads, .when = FROM_HEADS, .no_json = 1},
    {.name = "centers", .get = tables_centers, .has = tables_have_heads, .when = FROM_HEADS, .no_json = 1},
    {.name = "separations", .get = tables_separations, .has = tables_have_heads, .when = FROM_HEADS, .no_json = 1},
    {.name = "order_change", .get = tables_order_change, .has = tables_have_order, .when = FROM_ORDER},
    {.name = "order_largest", .get = tables_order_largest, .has = tables_have_order, .about = "present, absent",
     .when = FROM_ORDER},
    {0},
};

const wl_objtype lang_seq_tables_type = {.name = "sequence table", .fields = TABLES_FIELDS, .free = tables_free,
                                         .render = tables_render, .json_only = "nets"};

wl_value *lang_seq_tables_value(wl_seq_lesson *l, lang_seq_show show)
{
    seq_tables *t = wl_xcalloc(1, sizeof *t);
    t->l = *l;
    memset(l, 0, sizeof *l);
    t->show = show;
    return wl_obj(&lang_seq_tables_type, t);
}

/* ---- one trained net ---- */

/* "2 heads, run 1, positions on" */
static void net_name(const lang_seq_net *n, char *buf, size_t cap)
{
    snprintf(buf, cap, "%d head%s, run %d, positions %s", n->r.H, n->r.H > 1 ? "s" : "", n->r.run,
             n->r.positions ? "on" : "off");
}

/* The shade (0 blank .. 4 █) of a weight on the plot's scale: fifths of it. */
static int weight_shade(double w, double scale)
{
    int k = (int)(w / scale * 5);
    return k < 0 ? 0 : k > 4 ? 4 : k;
}

/* Each head's weights as shaded cells with the values below, all on one scale: the plot's largest weight, but at least
 * twice the uniform weight 1/T, so that uniform attention is drawn as a row of the middle shade ▒ (half the scale, in
 * the middle of its band), not as full blocks, and a peak stands out against it. */
static void weights_text(wl_buf *b, const lang_seq_net *n)
{
    static const char *const SHADE[] = {"     ", "░░░░░", "▒▒▒▒▒", "▓▓▓▓▓", "█████"};
    static const char *const KEY[] = {"blank", "░", "▒", "▓", "█"};
    const double uniform = 1.0 / WL_SEQ_T;
    double scale = 2 * uniform;
    for (int i = 0; i < n->r.H * WL_SEQ_T; i++)
        if (n->mw[i] > scale) scale = n->mw[i];
    wl_buf_puts(b, "step   ");
    for (int t = 0; t < WL_SEQ_T; t++) wl_buf_printf(b, "%6d", t);
    wl_buf_puts(b, "\n");
    for (int h = 0; h < n->r.H; h++) {
        const double *m = n->mw + h * WL_SEQ_T;
        wl_buf_printf(b, "head %d ", h + 1);
        for (int t = 0; t < WL_SEQ_T; t++) wl_buf_printf(b, " %s", SHADE[weight_shade(m[t], scale)]);
        wl_buf_puts(b, "\n       ");
        for (int t = 0; t < WL_SEQ_T; t++) wl_buf_printf(b, "%6.3f", m[t]);
        wl_buf_puts(b, "\n");
    }
    wl_buf_printf(b, "shade: weight / %.3f (the largest weight, at least 2 × uniform)\n"
                     "       blank <0.2   ░ <0.4   ▒ <0.6   ▓ <0.8   █ >=0.8   uniform: 1/%d = %.3f (%s)",
                  scale, WL_SEQ_T, uniform, KEY[weight_shade(uniform, scale)]);
}

/* The weight plot as SVG and as Vega-Lite; the y axis starts at 0 and 1/12 (uniform weights) is drawn. */
static void weights_chart(const lang_seq_net *n, const char *title, wl_mime *out)
{
    static const char *const NAMES[] = {"head 1", "head 2", "head 3", "head 4"};
    double steps[WL_SEQ_T];
    for (int t = 0; t < WL_SEQ_T; t++) steps[t] = t;
    wl_series s[WL_SEQ_D];
    for (int h = 0; h < n->r.H; h++) s[h] = (wl_series){.name = NAMES[h], .x = steps, .y = n->mw + h * WL_SEQ_T, .n = WL_SEQ_T};
    wl_chart c = {.title = title, .xlabel = "step", .ylabel = "mean attention weight", .s = s, .ns = n->r.H, .x_integer = 1,
                  .y_from_zero = 1, .ref_y = 1.0 / WL_SEQ_T, .ref_label = "uniform, 1/12"};
    out->image_svg = wl_chart_svg(&c);
    out->vegalite = wl_chart_vegalite(&c);
}

static int net_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_seq_net *n = d;
    char name[96];
    net_name(n, name, sizeof name);
    wl_buf b = {0};
    wl_buf_printf(&b, "sequence net: %s (head size %d, %d parameters, seed %lld + %d, %d epochs)\n", name, WL_SEQ_D / n->r.H,
                  WL_SEQ_NPARAMS, (long long)n->o.seed, n->r.run, n->o.train.epochs);
    wl_buf_printf(&b, "held-out accuracy %.4f over %d sequences; weight centers", n->r.acc, n->ntest);
    for (int h = 0; h < n->r.H; h++) wl_buf_printf(&b, "%s %.2f", h ? "," : "", n->r.center[h]);
    wl_buf_printf(&b, "; separation %.4f", n->r.separation);
    char *head = wl_buf_take(&b);
    wl_buf_printf(&b, "%s\n", head);
    weights_text(&b, n);
    out->text_plain = wl_buf_take(&b);
    wl_buf_puts(&b, "<pre class=\"wordlab-seq\">");
    wl_buf_html(&b, head);
    wl_buf_puts(&b, "</pre>");
    out->text_html = wl_buf_take(&b);
    wl_buf_printf(&b, "mean attention weight per step over the held-out sequences: %s", name);
    char *title = wl_buf_take(&b);
    weights_chart(n, title, out);
    free(title);
    free(head);
    return 0;
}

static const lang_seq_net *SN(const wl_value *v) { return v->data; }
static wl_value *net_centers(wl_value *v, wl_err *err) { (void)err; return wl_list_nums(SN(v)->r.center, SN(v)->r.H); }
static wl_value *net_params(wl_value *v, wl_err *err) { (void)err; return wl_list_nums(SN(v)->r.net.p, WL_SEQ_NPARAMS); }
static wl_value *net_weights(wl_value *v, wl_err *err)
{
    (void)err;
    wl_value *l = wl_list();
    for (int h = 0; h < SN(v)->r.H; h++) wl_list_push(l, wl_list_nums(SN(v)->mw + h * WL_SEQ_T, WL_SEQ_T));
    return l;
}

/* The net, its plot and its parameters: three views with the same fields. */
static const wl_field NET_FIELDS[] = {
    {WL_FIELD_MEMBER("accuracy", lang_seq_net, r.acc)},
    {.name = "centers", .get = net_centers},
    {WL_FIELD_MEMBER("separation", lang_seq_net, r.separation)},
    {.name = "weights", .get = net_weights, .about = "per head, per step"},
    {.name = "params", .get = net_params},
    {WL_FIELD_MEMBER("heads", lang_seq_net, r.H)},
    {WL_FIELD_MEMBER("run", lang_seq_net, r.run)},
    {WL_FIELD_MEMBER("positions", lang_seq_net, r.positions)},
    {0},
};

const wl_objtype lang_seq_net_type = {.name = "sequence net", .fields = NET_FIELDS, .render = net_render};

wl_value *lang_seq_net_value(lang_seq_net *n) { return wl_obj(&lang_seq_net_type, n); }

/* ---- the weight plot ---- */

static int plot_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_seq_net *n = d;
    char name[96];
    net_name(n, name, sizeof name);
    wl_buf b = {0};
    wl_buf_printf(&b, "mean attention weight per step over the %d held-out sequences: %s", n->ntest, name);
    char *title = wl_buf_take(&b);
    wl_buf_printf(&b, "%s\n", title);
    weights_text(&b, n);
    out->text_plain = wl_buf_take(&b);
    weights_chart(n, title, out);
    free(title);
    return 0;
}

const wl_objtype lang_seq_weights_type = {.name = "sequence weight plot", .fields = NET_FIELDS,
                                          .render = plot_render};

wl_value *lang_seq_weights_value(lang_seq_net *n) { return wl_obj(&lang_seq_weights_type, n); }


/* ---- the 33 parameters and what the net computes with them ---- */

static int params_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_seq_net *n = d;
    const double *p = n->r.net.p;
    int H = n->r.H, dh = WL_SEQ_D / H;
    char name[96];
    net_name(n, name, sizeof name);
    char per_head_matrix[32], per_head_vector[32];
    snprintf(per_head_matrix, sizeof per_head_matrix, "%d × [%d, %d]", H, dh, WL_SEQ_C);
    snprintf(per_head_vector, sizeof per_head_vector, "%d × [%d]", H, dh);
    const struct {
        const char *name, *shape;
        int count;
        const char *role;
    } parts[] = {
        {"parameters", "shape", -1, "role"},
        {"W_k", per_head_matrix, WL_SEQ_D * WL_SEQ_C, "keys: each head's d = 4/H rows read the 3 input channels"},
        {"W_v", per_head_matrix, WL_SEQ_D * WL_SEQ_C, "values: project the weighted input to the head's d numbers"},
        {"q", per_head_vector, WL_SEQ_D, "one learned query per head"},
        {"w", "[4]", WL_SEQ_D, "output weights over the concatenated heads"},
        {"b", "[1]", 1, "output bias"},
        {"total", "", WL_SEQ_NPARAMS, "the same for 1, 2 and 4 heads"},
    };
    wl_table *t = wl_table_new(4);
    wl_table_header_rows(t, 1);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        wl_table_cell(t, parts[i].name, -1);
        wl_table_cell(t, parts[i].shape, -1);
        if (parts[i].count < 0) wl_table_cell(t, "count", -1);
        else wl_table_cellf(t, -1, "%d", parts[i].count);
        wl_table_cell(t, parts[i].role, -1);
    }
    char *tt = wl_table_text(t);
    wl_table_free(t);
    wl_buf b = {0}, f = {0};
    wl_buf_printf(&f, "head h, on a sequence of inputs x_t = (reading, sin, cos), t = 0..11:\n"
                      "  u   = q_hᵀ W_k,h           the query folded into the keys: one weight per channel\n"
                      "  s_t = (u · x_t) / √d       the scores, scaled by 1/√d = %.4f (d = %d)\n"
                      "  a   = softmax(s)           the head's weights over the 12 steps (they sum to 1)\n"
                      "  c_h = W_v,h (Σ_t a_t x_t)  the value projection: the head's %d output number(s)\n"
                      "the output: o = b + w · %s, p(rise) = sigmoid(o) = 1 / (1 + e^−o)\n"
                      "this net's folded queries u (reading, sin, cos):",
                  n->r.net.scale, dh, dh, H == 1 ? "c_1" : H == 2 ? "[c_1, c_2]" : "[c_1, c_2, c_3, c_4]");
    for (int h = 0; h < H; h++) {
        double u[WL_SEQ_C];
        wl_seq_fold_query(&n->r.net, h, u);
        wl_buf_printf(&f, "\n  head %d: u = (%.4f, %.4f, %.4f)", h + 1, u[0], u[1], u[2]);
    }
    wl_buf_printf(&f, "\nand its output: w = (%.4f, %.4f, %.4f, %.4f), b = %.4f", p[WL_SEQ_W], p[WL_SEQ_W + 1], p[WL_SEQ_W + 2],
                  p[WL_SEQ_W + 3], p[WL_SEQ_B]);
    char *formulas = wl_buf_take(&f);
    wl_buf_printf(&b, "the %d parameters of the net with %s (head size d = %d)\n%s\n\n%s", WL_SEQ_NPARAMS, name, dh, tt, formulas);
    out->text_plain = wl_buf_take(&b);
    wl_buf_printf(&b, "<p><b>the %d parameters of the net with ", WL_SEQ_NPARAMS);
    wl_buf_html(&b, name);
    wl_buf_printf(&b, "</b> (head size d = %d)</p><pre>", dh);   /* the text table: its role column reads left to right */
    wl_buf_html(&b, tt);
    wl_buf_puts(&b, "\n\n");
    wl_buf_html(&b, formulas);
    wl_buf_puts(&b, "</pre>");
    out->text_html = wl_buf_take(&b);
    free(tt);
    free(formulas);
    return 0;
}

const wl_objtype lang_seq_params_type = {.name = "sequence net parameters", .fields = NET_FIELDS,
                                         .render = params_render};

wl_value *lang_seq_params_value(lang_seq_net *n) { return wl_obj(&lang_seq_params_type, n); }

/* cmd_seq.c: the sequence lesson's commands: data summary, one net, the head, centers and order tables, weight plots. */
#include "wl_cmd.h"
#include "wl_seq.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t *seq_interrupt(wl_call *c)
{
    return c->sink ? c->sink->interrupt : NULL;
}

/* The runtime's failure as the command's error: an interrupt or a RuntimeError. */
static int seq_failed(wl_call *c)
{
    if (wl_sink_interrupted(c->sink)) c->ename = "Interrupted";
    return -1;
}

/* ---- options shared by the commands (each lists the ones it takes) ---- */

/* heads=1,2,4 (text) or heads=2 or heads=[...] (a list): head counts, each 1, 2 or 4. */
static int opt_heads_list(wl_call *c, wl_seq_opts *o)
{
    wl_value *v = wl_opt_val(c, "heads");
    if (!v) return 0;
    int word = wl_call_optword(c, "heads");
    double x[WL_SEQ_MAX_HEADS_LIST];
    int n = 0;
    if (v->type == WL_V_NUM) {
        x[n++] = v->num;
    } else if (v->type == WL_V_LIST) {
        for (int i = 0; i < v->n; i++) {
            if (v->items[i]->type != WL_V_NUM || n == WL_SEQ_MAX_HEADS_LIST)
                return wl_call_fail(c, "ArgumentError", word, "heads= takes up to %d head counts, e.g. heads=1,2,4",
                                    WL_SEQ_MAX_HEADS_LIST);
            x[n++] = v->items[i]->num;
        }
    } else {
        const char *s = wl_opt_str(c, "heads", NULL);
        if (!s) return -1;
        while (*s) {
            char *end;
            if (n == WL_SEQ_MAX_HEADS_LIST) break;
            x[n++] = strtod(s, &end);
            if (end == s || (*end && *end != ',')) {
                n = WL_SEQ_MAX_HEADS_LIST + 1;
                break;
            }
            s = *end ? end + 1 : end;
        }
        if (n > WL_SEQ_MAX_HEADS_LIST || *s)
            return wl_call_fail(c, "ArgumentError", word, "heads= takes up to %d head counts separated by commas, "
                                "e.g. heads=1,2,4", WL_SEQ_MAX_HEADS_LIST);
    }
    if (n == 0) return wl_call_fail(c, "ArgumentError", word, "heads= needs at least one head count, e.g. heads=1,2,4");
    for (int i = 0; i < n; i++) {
        if (x[i] != 1 && x[i] != 2 && x[i] != 4)
            return wl_call_fail(c, "ArgumentError", word, "%g heads do not divide the inner width 4: use 1, 2 or 4", x[i]);
        o->heads[i] = (int)x[i];
    }
    o->nheads = n;
    return 0;
}

static int opt_one_heads(wl_call *c, const char *key, int dflt, int *out)
{
    long long h;
    if (wl_opt_int(c, key, dflt, 1, 4, &h)) return -1;
    if (h == 3) return wl_call_fail(c, "ArgumentError", wl_call_optword(c, key), "3 heads do not divide the inner width 4: use 1, 2 or 4");
    *out = (int)h;
    return 0;
}

/* The data and training settings, each defaulting to the lesson's value. */
static int opt_settings(wl_call *c, wl_seq_opts *o)
{
    wl_seq_opts_default(o);
    long long seed, n, ntrain, ntest, epochs, runs;
    if (wl_opt_int(c, "seed", o->seed, -(1LL << 53), 1LL << 53, &seed) || wl_opt_int(c, "n", o->n, 2, 1000000, &n) ||
        wl_opt_int(c, "train", o->ntrain, 1, 1000000, &ntrain) || wl_opt_int(c, "test", o->ntest, 1, 1000000, &ntest) ||
        wl_opt_int(c, "epochs", o->train.epochs, 0, 100000, &epochs) ||
        wl_opt_int(c, "runs", o->runs, 1, WL_SEQ_MAX_RUNS, &runs) || wl_opt_num(c, "lr", o->train.lr, &o->train.lr) ||
        wl_opt_num(c, "momentum", o->train.momentum, &o->train.momentum))
        return -1;
    o->seed = seed;
    o->n = (int)n;
    o->ntrain = (int)ntrain;
    o->ntest = (int)ntest;
    o->train.epochs = (int)epochs;
    o->runs = (int)runs;
    if (o->ntrain + o->ntest > o->n)
        return wl_call_fail(c, "ArgumentError",
                            wl_call_optword(c, wl_opt_has(c, "test") ? "test" : wl_opt_has(c, "train") ? "train" : "n"),
                            "train=%d and test=%d sequences do not fit, without overlap, in n=%d", o->ntrain, o->ntest, o->n);
    if (!(o->train.lr > 0) || !isfinite(o->train.lr))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "lr"), "lr must be a number greater than 0");
    if (!(o->train.momentum >= 0 && o->train.momentum < 1))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "momentum"), "momentum must be from 0 up to (not including) 1");
    return 0;
}

/* ---- the lesson's tables: one value type, showing the part its command computed ---- */

enum { SHOW_DATA, SHOW_HEADS, SHOW_CENTERS, SHOW_ORDER, SHOW_ALL };

typedef struct seq_tables {
    wl_seq_lesson l;
    int show;
} seq_tables;

static void tables_free(void *d)
{
    seq_tables *t = d;
    wl_seq_lesson_free(&t->l);
    free(t);
}

static void json_nums(wl_buf *b, const char *key, const double *x, int n)
{
    wl_buf_printf(b, ",\"%s\":[", key);
    for (int i = 0; i < n; i++) {
        if (i) wl_buf_put(b, ",", 1);
        wl_buf_json_num(b, x[i]);
    }
    wl_buf_put(b, "]", 1);
}

static const char *const SHOW_NAMES[] = {"data", "heads", "centers", "order", "lesson"};

static int tables_render(const void *d, wl_mime *out, wl_err *err)
{
    const seq_tables *t = d;
    const wl_seq_lesson *l = &t->l;
    char *text = t->show == SHOW_DATA      ? wl_seq_summary_text(l)
                 : t->show == SHOW_HEADS   ? wl_seq_heads_table_text(l)
                 : t->show == SHOW_CENTERS ? wl_seq_centers_table_text(l)
                 : t->show == SHOW_ORDER   ? wl_seq_order_table_text(l)
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

static wl_value *nums_value(const double *x, int n)
{
    wl_value *v = wl_list();
    for (int i = 0; i < n; i++) wl_list_push(v, wl_num(x[i]));
    return v;
}

static wl_value *tables_field(wl_value *self, const char *name, wl_err *err);

static const wl_objtype TABLES_T = {
    .name = "sequence table",
    .fields = "train_rate test_rate baseline example accuracies means centers separations order_change order_largest",
    .free = tables_free, .render = tables_render, .field = tables_field};

static wl_value *tables_field(wl_value *self, const char *name, wl_err *err)
{
    const wl_seq_lesson *l = &((const seq_tables *)self->data)->l;
    const wl_seq_opts *o = &l->opts;
    if (!strcmp(name, "train_rate")) return wl_num(l->summary.train_rate);
    if (!strcmp(name, "test_rate")) return wl_num(l->summary.test_rate);
    if (!strcmp(name, "baseline")) return wl_num(l->summary.baseline);
    if (!strcmp(name, "example")) return nums_value(l->summary.example, WL_SEQ_T);
    int heads_field = !strcmp(name, "accuracies") || !strcmp(name, "means") || !strcmp(name, "centers") ||
                      !strcmp(name, "separations");
    if (heads_field && !l->heads) {
        wl_fail(err, "this table has no .%s: it comes from seq_heads, seq_centers or seq_lesson", name);
        return NULL;
    }
    if (!strcmp(name, "accuracies") || !strcmp(name, "means")) {
        wl_value *v = wl_list();
        for (int i = 0; i < o->nheads; i++) {
            double acc[WL_SEQ_MAX_RUNS], sum = 0.0;
            for (int k = 0; k < o->runs; k++) sum += acc[k] = l->heads[i * o->runs + k].acc;
            wl_list_push(v, name[0] == 'a' ? nums_value(acc, o->runs) : wl_num(sum / o->runs));
        }
        return v;
    }
    if (!strcmp(name, "centers") || !strcmp(name, "separations")) {
        wl_value *v = wl_list();
        for (int i = 0; i < o->nheads * o->runs; i++)
            wl_list_push(v, name[0] == 'c' ? nums_value(l->heads[i].center, l->heads[i].H) : wl_num(l->heads[i].separation));
        return v;
    }
    if (!strcmp(name, "order_change") || !strcmp(name, "order_largest")) {
        if (!l->order_pos) {
            wl_fail(err, "this table has no .%s: it comes from seq_order or seq_lesson", name);
            return NULL;
        }
        return nums_value(name[6] == 'c' ? l->order_mean : l->order_max, 2);
    }
    wl_fail(err, "a sequence table has no field .%s; its fields are %s", name, TABLES_T.fields);
    return NULL;
}

/* order_key: the option naming the order test's heads ("heads" for seq_order, where heads= is not a
 * list of head counts), or NULL when the command has no order test. */
static int run_tables(wl_call *c, unsigned parts, int show, const char *order_key, wl_value **out)
{
    wl_seq_opts o;
    if (opt_settings(c, &o)) return -1;
    if (order_key && opt_one_heads(c, order_key, 2, &o.order_heads)) return -1;
    if ((!order_key || strcmp(order_key, "heads")) && opt_heads_list(c, &o)) return -1;
    seq_tables *t = wl_xcalloc(1, sizeof *t);
    if (wl_seq_lesson_run(&t->l, &o, parts, seq_interrupt(c), c->err)) {
        free(t);
        return seq_failed(c);
    }
    t->show = show;
    *out = wl_obj(&TABLES_T, t);
    return 0;
}

static int cmd_seq_data(wl_call *c, wl_value **out)
{
    return run_tables(c, 0, SHOW_DATA, NULL, out);
}

static int cmd_seq_heads(wl_call *c, wl_value **out)
{
    return run_tables(c, WL_SEQ_PART_HEADS, SHOW_HEADS, NULL, out);
}

static int cmd_seq_centers(wl_call *c, wl_value **out)
{
    return run_tables(c, WL_SEQ_PART_HEADS, SHOW_CENTERS, NULL, out);
}

static int cmd_seq_order(wl_call *c, wl_value **out)
{
    return run_tables(c, WL_SEQ_PART_ORDER, SHOW_ORDER, "heads", out);
}

static int cmd_seq_lesson(wl_call *c, wl_value **out)
{
    return run_tables(c, WL_SEQ_PART_ALL, SHOW_ALL, "order_heads", out);
}

/* ---- one trained net ---- */

typedef struct seq_net {
    wl_seq_run r;
    wl_seq_opts o;
    int ntest;
    double mw[WL_SEQ_D * WL_SEQ_T];   /* [H,T] each head's mean weight over the held-out sequences */
} seq_net;

/* "2 heads, run 1, positions on" */
static void net_name(const seq_net *n, char *buf, size_t cap)
{
    snprintf(buf, cap, "%d head%s, run %d, positions %s", n->r.H, n->r.H > 1 ? "s" : "", n->r.run,
             n->r.positions ? "on" : "off");
}

/* Each head's weights as shaded cells (shade: weight / the largest weight) with the values below. */
static void weights_text(wl_buf *b, const seq_net *n)
{
    static const char *const SHADE[] = {"     ", "░░░░░", "▒▒▒▒▒", "▓▓▓▓▓", "█████"};
    double top = 0;
    for (int i = 0; i < n->r.H * WL_SEQ_T; i++)
        if (n->mw[i] > top) top = n->mw[i];
    wl_buf_puts(b, "step   ");
    for (int t = 0; t < WL_SEQ_T; t++) wl_buf_printf(b, "%6d", t);
    wl_buf_puts(b, "\n");
    for (int h = 0; h < n->r.H; h++) {
        const double *m = n->mw + h * WL_SEQ_T;
        wl_buf_printf(b, "head %d ", h + 1);
        for (int t = 0; t < WL_SEQ_T; t++) {
            double v = top > 0 ? m[t] / top : 0;
            int k = v <= 0 ? 0 : v < 0.25 ? 1 : v < 0.5 ? 2 : v < 0.75 ? 3 : 4;
            wl_buf_printf(b, " %s", SHADE[k]);
        }
        wl_buf_puts(b, "\n       ");
        for (int t = 0; t < WL_SEQ_T; t++) wl_buf_printf(b, "%6.3f", m[t]);
        wl_buf_puts(b, "\n");
    }
    wl_buf_puts(b, "shade: weight / largest   ░ <0.25   ▒ <0.5   ▓ <0.75   █ >=0.75");
}

/* The weight plot as SVG and as Vega-Lite; the y axis starts at 0 and 1/12 (uniform weights) is drawn. */
static void weights_chart(const seq_net *n, const char *title, wl_mime *out)
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

static void net_json(wl_buf *b, const seq_net *n)
{
    wl_buf_printf(b, "{\"type\":\"sequence net\",\"heads\":%d,\"run\":%d,\"positions\":%s,\"accuracy\":", n->r.H, n->r.run,
                  n->r.positions ? "true" : "false");
    wl_buf_json_num(b, n->r.acc);
    wl_buf_puts(b, ",\"separation\":");
    wl_buf_json_num(b, n->r.separation);
    json_nums(b, "centers", n->r.center, n->r.H);
    json_nums(b, "mean_weights", n->mw, n->r.H * WL_SEQ_T);
    json_nums(b, "params", n->r.net.p, WL_SEQ_NPARAMS);
    wl_buf_put(b, "}", 1);
}

static int net_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const seq_net *n = d;
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
    net_json(&b, n);
    out->app_json = wl_buf_take(&b);
    return 0;
}

static wl_value *net_field(wl_value *self, const char *name, wl_err *err);

static const wl_objtype NET_T = {.name = "sequence net",
                                 .fields = "accuracy centers separation weights params heads run positions",
                                 .free = free, .render = net_render, .field = net_field};

static wl_value *net_field(wl_value *self, const char *name, wl_err *err)
{
    const seq_net *n = self->data;
    if (!strcmp(name, "accuracy")) return wl_num(n->r.acc);
    if (!strcmp(name, "centers")) return nums_value(n->r.center, n->r.H);
    if (!strcmp(name, "separation")) return wl_num(n->r.separation);
    if (!strcmp(name, "params")) return nums_value(n->r.net.p, WL_SEQ_NPARAMS);
    if (!strcmp(name, "heads")) return wl_int(n->r.H);
    if (!strcmp(name, "run")) return wl_int(n->r.run);
    if (!strcmp(name, "positions")) return wl_int(n->r.positions);
    if (!strcmp(name, "weights")) {
        wl_value *v = wl_list();
        for (int h = 0; h < n->r.H; h++) wl_list_push(v, nums_value(n->mw + h * WL_SEQ_T, WL_SEQ_T));
        return v;
    }
    wl_fail(err, "a sequence net has no field .%s; its fields are %s", name, NET_T.fields);
    return NULL;
}

/* Trains the net the options describe and measures it on the held-out sequences. */
static seq_net *train_net(wl_call *c)
{
    seq_net *n = wl_xcalloc(1, sizeof *n);
    long long run, positions;
    if (opt_settings(c, &n->o) || opt_one_heads(c, "heads", 2, &n->r.H) || wl_opt_int(c, "run", 1, 1, 1000000, &run) ||
        wl_opt_int(c, "positions", 1, 0, 1, &positions)) {
        free(n);
        return NULL;
    }
    n->r.run = (int)run;
    n->r.positions = (int)positions;
    n->ntest = n->o.ntest;
    wl_seq_data data;
    wl_seq_set tr = {0}, te = {0};
    int rc = wl_seq_data_build(&data, n->o.seed, n->o.n, c->err);
    if (rc == 0)
        rc = wl_seq_set_build(&tr, &data, 0, n->o.ntrain, n->r.positions, c->err) ||
             wl_seq_set_build(&te, &data, n->o.n - n->o.ntest, n->o.ntest, n->r.positions, c->err) ||
             wl_seq_train(&n->r.net, &tr, n->o.seed + n->r.run, n->r.H, &n->o.train, seq_interrupt(c), c->err);
    if (rc == 0) {
        n->r.acc = wl_seq_accuracy(&n->r.net, &te);
        for (int h = 0; h < n->r.H; h++) n->r.center[h] = wl_seq_center(&n->r.net, &te, h);
        n->r.separation = wl_seq_separation(&n->r.net, &te);
        wl_seq_mean_weights(&n->r.net, &te, n->mw);
    }
    wl_seq_set_free(&tr);
    wl_seq_set_free(&te);
    wl_seq_data_free(&data);
    if (rc) {
        free(n);
        seq_failed(c);
        return NULL;
    }
    return n;
}

static int cmd_seq_train(wl_call *c, wl_value **out)
{
    seq_net *n = train_net(c);
    if (!n) return -1;
    *out = wl_obj(&NET_T, n);
    return 0;
}

/* ---- the weight plot ---- */

static int plot_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const seq_net *n = d;
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
    net_json(&b, n);
    out->app_json = wl_buf_take(&b);
    return 0;
}

static const wl_objtype PLOT_T = {.name = "sequence weight plot", .fields = "accuracy centers separation weights params heads run positions",
                                  .free = free, .render = plot_render, .field = net_field};

/* The net a command shows: a copy of its argument (from seq_train), or one trained from its options. */
static seq_net *net_from_args(wl_call *c)
{
    if (c->argc == 0) return train_net(c);
    const seq_net *src = wl_arg_obj(c, 0, &NET_T);
    if (!src) return NULL;
    if (c->nopts) {
        wl_call_fail(c, "ArgumentError", wl_call_optword(c, c->optk[0]), "give either a sequence net or the options that train one, not both");
        return NULL;
    }
    seq_net *n = wl_xmalloc(sizeof *n);
    *n = *src;
    return n;
}

static int cmd_seq_weights(wl_call *c, wl_value **out)
{
    seq_net *n = net_from_args(c);
    if (!n) return -1;
    *out = wl_obj(&PLOT_T, n);
    return 0;
}

/* ---- the 33 parameters and what the net computes with them ---- */

static int params_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const seq_net *n = d;
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
    net_json(&b, n);
    out->app_json = wl_buf_take(&b);
    free(tt);
    free(formulas);
    return 0;
}

static const wl_objtype PARAMS_T = {.name = "sequence net parameters", .fields = "accuracy centers separation weights params heads run positions",
                                    .free = free, .render = params_render, .field = net_field};

static int cmd_seq_params(wl_call *c, wl_value **out)
{
    seq_net *n = net_from_args(c);
    if (!n) return -1;
    *out = wl_obj(&PARAMS_T, n);
    return 0;
}

/* ---- the table ---- */

#define SEQ_SETTINGS "seed n train test epochs lr momentum"
#define SEQ_SETTINGS_HELP                                                                                              \
    "Settings (the lesson's values by default): seed=20260218 (data seed; run k starts from seed+k),\n"                \
    "n=720 sequences, train=200 (the first ones), test=180 (the last ones), epochs=150, lr=0.15,\n"                  \
    "momentum=0.8"

const wl_command wl_cmds_seq[] = {
    {.name = "seq_data", .topic = "sequences", .synopsis = "seq_data [seed=S] [n=N] [train=N] [test=N]",
     .summary = "the fictional sequences of the sequence lesson: sizes, rise-label rates, baseline",
     .help = "Regenerates the lesson's fictional sequences: n sequences of 12 readings (step 0 is 0.0,\n"
             "each later step (r+r+r-1.5)*1.9 rounded to 3 decimals, r drawn from the lesson's hash\n"
             "generator). The rise label is 1 when the mean of steps 7-11 exceeds the mean of steps 1-5\n"
             "by more than 0.30. Shows the label rate on the training and held-out sequences, the\n"
             "baseline (always answering the most frequent class) and the first sequence.\n"
             "Fields: .train_rate .test_rate .baseline .example",
     .example = "seq_data\nseq_data seed=7 n=400", .min_args = 0, .max_args = 0, .options = "seed n train test",
     .fn = cmd_seq_data},
    {.name = "seq_train", .topic = "sequences",
     .synopsis = "seq_train [heads=2] [run=1] [positions=1] [seed=S] [epochs=E] [lr=X] [momentum=X] ...",
     .summary = "trains one 33-parameter attention net on the rise label and measures it",
     .help = "The net: total inner width 4 split over heads=1, 2 or 4 heads; each head folds its query\n"
             "into its keys, weighs the 12 steps with a softmax and projects the weighted input; the\n"
             "heads' outputs are concatenated and read by one logistic output. Every setup has 33\n"
             "parameters. Each step's input is (reading, sin(pi t/11), cos(pi t/11)), or (reading, 0, 0)\n"
             "with positions=0. Full-batch descent with momentum from the initialisation seed+run.\n"
             "Shows held-out accuracy, each head's weight center (mean step it looks at), the\n"
             "separation between heads (half the L1 distance of their weights, 0..1) and each head's\n"
             "mean weight per step.\n" SEQ_SETTINGS_HELP ".\n"
             "Fields: .accuracy .centers .separation .weights .params .heads .run .positions",
     .example = "net = seq_train heads=2 run=2\nprint $net.centers\nseq_train heads=4 positions=0 epochs=50",
     .min_args = 0, .max_args = 0, .options = "heads run positions " SEQ_SETTINGS, .fn = cmd_seq_train},
    {.name = "seq_heads", .topic = "sequences", .synopsis = "seq_heads [heads=1,2,4] [runs=2] [seed=S] [epochs=E] ...",
     .summary = "the lesson's table: held-out accuracy for 1, 2 and 4 heads at the same 33 parameters",
     .help = "Trains runs= nets (initialisation seeds seed+1, seed+2, ...) for each head count in heads=\n"
             "and prints the lesson's table: head size, parameters, each run's held-out accuracy, their\n"
             "mean and the difference between the best and the worst run.\n" SEQ_SETTINGS_HELP ".\n"
             "Fields: .accuracies (per head count, per run) .means .centers .separations .baseline",
     .example = "seq_heads\nseq_heads heads=2,4 runs=3 epochs=60", .min_args = 0, .max_args = 0,
     .options = "heads runs " SEQ_SETTINGS, .fn = cmd_seq_heads},
    {.name = "seq_centers", .topic = "sequences", .synopsis = "seq_centers [heads=1,2,4] [runs=2] [seed=S] ...",
     .summary = "the lesson's table: each head's weight center and the separation between heads",
     .help = "For the same nets as seq_heads: each head's weight center (the mean step its weights fall\n"
             "on over the held-out sequences) and the separation (half the L1 distance between two\n"
             "heads' weight distributions, averaged over pairs and sequences: 0 same, 1 disjoint).\n"
             "The task wants the regions of steps 1-5 and 7-11.\n" SEQ_SETTINGS_HELP ".\n"
             "Fields: .centers .separations .accuracies .means",
     .example = "seq_centers\nseq_centers heads=2 runs=4 epochs=80", .min_args = 0, .max_args = 0,
     .options = "heads runs " SEQ_SETTINGS, .fn = cmd_seq_centers},
    {.name = "seq_order", .topic = "sequences", .synopsis = "seq_order [heads=2] [runs=2] [seed=S] ...",
     .summary = "the lesson's order test: shuffle the readings, with and without positional encoding",
     .help = "Trains runs= nets of heads= heads with the position channels and runs= without, shows\n"
             "their held-out accuracies, then shuffles the readings of every held-out sequence (the\n"
             "position channels stay in place; shuffle seed seed+4000+i) and measures how far the\n"
             "last run's output probability moves: mean and largest |change|. Without positions the\n"
             "layer sees a set, so the output does not move (beyond rounding).\n" SEQ_SETTINGS_HELP ".\n"
             "Fields: .order_change .order_largest (present, absent) .baseline",
     .example = "seq_order\nseq_order heads=4 epochs=60", .min_args = 0, .max_args = 0,
     .options = "heads runs " SEQ_SETTINGS, .fn = cmd_seq_order},
    {.name = "seq_weights", .topic = "sequences", .synopsis = "seq_weights [NET] [heads=2] [run=1] [positions=1] ...",
     .summary = "a plot of each head's mean attention weight over the 12 steps",
     .help = "Plots, for a net from seq_train (or one trained here from the same options), each head's\n"
             "attention weight at each step averaged over the held-out sequences: a line per head in\n"
             "the notebook, shaded cells with the values in the terminal. A head that found one of\n"
             "the task's regions rises over steps 1-5 or 7-11.\n" SEQ_SETTINGS_HELP ".\n"
             "Fields: .weights (per head, per step) .centers .separation .accuracy",
     .example = "seq_weights heads=2 run=2\nnet = seq_train heads=4 run=2 epochs=40\nseq_weights $net", .min_args = 0,
     .max_args = 1, .options = "heads run positions " SEQ_SETTINGS, .fn = cmd_seq_weights},
    {.name = "seq_params", .topic = "sequences", .synopsis = "seq_params [NET] [heads=2] [run=1] [positions=1] ...",
     .summary = "the net's 33 parameters, part by part, and the formulas that use them",
     .help = "For a net from seq_train (or one trained here from the same options): the parameter count\n"
             "of each part (W_k, W_v, q, w, b), the computation of one head (the query folded into the\n"
             "keys, u = q^T W_k; scores u . x_t scaled by 1/sqrt(d); softmax; the value projection) and\n"
             "the sigmoid output, with this net's folded queries u and output weights.\n" SEQ_SETTINGS_HELP ".\n"
             "Fields: those of seq_train",
     .example = "seq_params heads=2 run=2\nnet = seq_train heads=4 run=1 epochs=20\nseq_params $net", .min_args = 0,
     .max_args = 1, .options = "heads run positions " SEQ_SETTINGS, .fn = cmd_seq_params},
    {.name = "seq_lesson", .topic = "sequences",
     .synopsis = "seq_lesson [heads=1,2,4] [runs=2] [order_heads=2] [seed=S] ...",
     .summary = "everything the sequence lesson prints, in its order",
     .help = "The data summary, the head-count table, the centers and separation table and the order\n"
             "test, exactly as the lesson's own code prints them (same digits).\n" SEQ_SETTINGS_HELP ".\n"
             "Fields: those of seq_data, seq_heads, seq_centers and seq_order",
     .example = "seq_lesson\nseq_lesson seed=12345 epochs=40", .min_args = 0, .max_args = 0,
     .options = "heads runs order_heads " SEQ_SETTINGS, .fn = cmd_seq_lesson},
    {0},
};

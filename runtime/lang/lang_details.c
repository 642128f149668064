/* lang_details.c: forward_details (every intermediate of one forward pass) and its views: the head table, the attention maps. */
#include "lang_objs.h"
#include "wl_utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void details_free(void *p)
{
    lang_details *ld = p;
    wl_details_free(&ld->d);
}

typedef struct tensor_ref {
    const char *name;
    const float *data;
    int ndim, shape[4];
} tensor_ref;

/* The intermediates in the order forward_details computes them. */
static int details_tensors(const lang_details *ld, tensor_ref *out)
{
    const wl_details *d = &ld->d;
    int n = 0;
    if (d->E) {
        out[n++] = (tensor_ref){"E", d->E, 3, {d->B, d->T, d->D}};
        out[n++] = (tensor_ref){"Q", d->Q, 4, {d->B, d->H, d->T, d->d}};
        out[n++] = (tensor_ref){"K", d->K, 4, {d->B, d->H, d->T, d->d}};
        out[n++] = (tensor_ref){"V", d->Vv, 4, {d->B, d->H, d->T, d->d}};
        out[n++] = (tensor_ref){"scores", d->scores, 4, {d->B, d->H, d->T, d->T}};
        out[n++] = (tensor_ref){"weights", d->weights, 4, {d->B, d->H, d->T, d->T}};
        out[n++] = (tensor_ref){"messages", d->messages, 3, {d->B, d->T, d->D}};
        out[n++] = (tensor_ref){"contextual", d->contextual, 3, {d->B, d->T, d->D}};
        out[n++] = (tensor_ref){"logits_all", d->logits_all, 3, {d->B, d->T, d->V}};
    }
    out[n++] = (tensor_ref){"logits", d->logits, 2, {d->B, d->V}};
    return n;
}

static int details_render(const void *p, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_details *ld = p;
    const wl_details *d = &ld->d;
    tensor_ref tr[10];
    int n = details_tensors(ld, tr);
    wl_table *t = wl_table_new(2);
    wl_table_header_rows(t, 1);
    wl_table_cell(t, "tensor", -1);
    wl_table_cell(t, "shape", -1);
    wl_buf b = {0};
    for (int i = 0; i < n; i++) {
        wl_table_cell(t, tr[i].name, -1);
        lang_shape_text(&b, tr[i].shape, tr[i].ndim);
        wl_table_cell(t, b.s, -1);
        free(wl_buf_take(&b));
    }
    wl_buf_printf(&b, "forward_details of the %s model on %d real id%s in %d slots:", ld->kind, ld->nreal, ld->nreal == 1 ? "" : "s",
                  d->T);
    char *title = wl_buf_take(&b);
    wl_table_title(t, title);
    char *tt = wl_table_text(t), *th = wl_table_html(t);
    wl_table_free(t);
    char g[32];
    if (d->E)
        wl_buf_printf(&b, "B = %d example, T = %d slots, D = %d, H = %d head%s, d = %d per head, V = %s words.\n"
                          "Fields: $x.E $x.Q ... $x.weights (tensors; .0 indexes the first axis).",
                      d->B, d->T, d->D, d->H, d->H == 1 ? "" : "s", d->d, wl_fmt_count((size_t)d->V, g));
    char *legend = wl_buf_take(&b);   /* "" for mlp */
    wl_buf_printf(&b, "%s%s%s", tt, d->E ? "\n" : "", legend);
    out->text_plain = wl_buf_take(&b);
    wl_buf_puts(&b, th);
    if (d->E) {
        wl_buf_puts(&b, "<p><small>");
        wl_buf_html_lines(&b, legend);
        wl_buf_puts(&b, "</small></p>");
    }
    out->text_html = wl_buf_take(&b);
    free(th);
    free(legend);
    free(tt);
    free(title);
    wl_buf_printf(&b, "{\"type\":\"details\",\"kind\":\"%s\",\"real\":%d,\"shapes\":{", ld->kind, ld->nreal);
    for (int i = 0; i < n; i++) {
        wl_buf_printf(&b, "%s\"%s\":", i ? "," : "", tr[i].name);
        lang_shape_text(&b, tr[i].shape, tr[i].ndim);
    }
    wl_buf_puts(&b, "}}");
    out->app_json = wl_buf_take(&b);
    return 0;
}

/* The intermediate called name as a tensor value (the logits name their words, for heat maps). */
static wl_value *details_tensor(wl_value *self, const char *name, wl_err *err)
{
    const lang_details *ld = self->data;
    tensor_ref tr[10];
    int n = details_tensors(ld, tr), i = 0;
    while (i < n - 1 && strcmp(tr[i].name, name)) i++;   /* the table's has() made sure it is there */
    wl_value *t = lang_tensor_value(name, tr[i].data, tr[i].ndim, tr[i].shape, err);
    if (t && !strncmp(name, "logits", 6)) lang_tensor_words(t, ld->vocab);
    return t;
}
static int details_attention(const void *d) { return ((const lang_details *)d)->d.E != NULL; }
static wl_value *details_ids(wl_value *self, wl_err *err)
{
    (void)err;
    const lang_details *ld = self->data;
    return lang_ids_value(ld->ids + (WL_T - ld->nreal), ld->nreal, WL_T, ld->vocab);
}
#define DETAILS_TENSOR(NAME) \
    static wl_value *details_##NAME(wl_value *self, wl_err *err) { return details_tensor(self, #NAME, err); }
DETAILS_TENSOR(E)
DETAILS_TENSOR(Q)
DETAILS_TENSOR(K)
DETAILS_TENSOR(V)
DETAILS_TENSOR(scores)
DETAILS_TENSOR(weights)
DETAILS_TENSOR(messages)
DETAILS_TENSOR(contextual)
DETAILS_TENSOR(logits_all)
DETAILS_TENSOR(logits)

/* The tensors are left out of the JSON, which gives their shapes by name instead ("shapes"). */
static const wl_field DETAILS_FIELDS[] = {
    {.name = "E", .get = details_E, .has = details_attention, .no_json = 1},
    {.name = "Q", .get = details_Q, .has = details_attention, .no_json = 1},
    {.name = "K", .get = details_K, .has = details_attention, .no_json = 1},
    {.name = "V", .get = details_V, .has = details_attention, .no_json = 1},
    {.name = "scores", .get = details_scores, .has = details_attention, .no_json = 1},
    {.name = "weights", .get = details_weights, .has = details_attention, .no_json = 1},
    {.name = "messages", .get = details_messages, .has = details_attention, .no_json = 1},
    {.name = "contextual", .get = details_contextual, .has = details_attention, .no_json = 1},
    {.name = "logits_all", .get = details_logits_all, .has = details_attention, .no_json = 1},
    {.name = "logits", .get = details_logits, .no_json = 1},
    {.name = "ids", .get = details_ids, .no_json = 1},
    {WL_FIELD_CHARS("kind", lang_details, kind), .about = "the model's"},
    {WL_FIELD_MEMBER("real", lang_details, nreal), .about = "real ids, after the padding"},
    {0},
};
static const wl_owned DETAILS_OWNS[] = {WL_OWNS(lang_details, vocab), {0}};

const wl_objtype lang_details_type = {.name = "forward_details", .fields = DETAILS_FIELDS, .free = details_free,
                                      .owns = DETAILS_OWNS, .render = details_render, .json_only = "shapes"};

wl_value *lang_details_value(const wl_model *m, const lang_ids *li, wl_value *vocab, wl_err *err)
{
    lang_details *ld = wl_xcalloc(1, sizeof *ld);
    if (wl_model_details(m, NULL, li->ids, 1, &ld->d, err)) {
        free(ld);
        return NULL;
    }
    memcpy(ld->ids, li->ids, sizeof ld->ids);
    ld->nreal = li->nreal;
    ld->vocab = wl_ref(vocab);
    snprintf(ld->kind, sizeof ld->kind, "%s", m->kind_name);
    return wl_obj(&lang_details_type, ld);
}

/* ---- the head table and the attention maps: the weights over the real tokens ---- */

/* Labels of the real slots: their tokens, or their ids when no vocabulary is known. */
static char **real_labels(const lang_details *ld)
{
    char **l = wl_xcalloc((size_t)ld->nreal, sizeof(char *));
    const wl_vocab *v = ld->vocab ? lang_vocab_get(ld->vocab) : NULL;
    for (int i = 0; i < ld->nreal; i++) {
        int32_t id = ld->ids[WL_T - ld->nreal + i];
        char buf[32];
        snprintf(buf, sizeof buf, "%d", id);
        l[i] = wl_xstrdup(v ? lang_token(v, id) : buf);
    }
    return l;
}

static void free_labels(char **l, int n)
{
    for (int i = 0; i < n; i++) free(l[i]);
    free(l);
}

typedef struct lang_heads {
    int H, n, query;      /* query: 0-based real slot whose row is shown */
    char **labels;        /* [n] */
    double *w;            /* [H, n] */
    int width;            /* text columns */
} lang_heads;

static void heads_free(void *p)
{
    lang_heads *h = p;
    free_labels(h->labels, h->n);
}

/* The table of every head's weights over real tokens [c0, c1), titled title. */
static wl_table *heads_table(const lang_heads *h, int c0, int c1, const char *title)
{
    wl_table *t = wl_table_new(c1 - c0 + 1);
    wl_table_header_rows(t, 1);
    wl_table_header_cols(t, 1);
    wl_table_title(t, title);
    wl_table_cell(t, "Head", -1);
    for (int i = c0; i < c1; i++) wl_table_cell(t, h->labels[i], -1);
    for (int k = 0; k < h->H; k++) {
        wl_table_cellf(t, -1, "%d", k + 1);
        for (int i = c0; i < c1; i++) {
            double w = h->w[(size_t)k * (size_t)h->n + (size_t)i];
            if (i > h->query) wl_table_cell(t, "\u2571\u2571\u2571\u2571\u2571", NAN);   /* not a weight: the heat maps' mark */
            else wl_table_cellf(t, w, "%.3f", w);
        }
    }
    return t;
}

/* The end of the text block of tokens that starts at c0: as many as fit in h->width columns (one at least). */
static int heads_block_end(const lang_heads *h, int c0)
{
    int width = h->width > 0 ? h->width : 80, used = 4, c = c0;   /* 4: the "Head" column */
    for (; c < h->n; c++) {
        int w = (int)wl_utf8_cp_count(h->labels[c], strlen(h->labels[c]));
        w = 2 + (w > 5 ? w : 5);   /* the gap, then the label or a weight (0.123) */
        if (c > c0 && used + w > width) break;
        used += w;
    }
    return c;
}

static int heads_render(const void *p, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_heads *h = p;
    wl_buf b = {0};
    int later = h->query < h->n - 1;   /* keys after the query: masked */
    wl_buf_printf(&b, "weights of query %d (%s) over the real tokens, per head%s:", h->query + 1, h->labels[h->query],
                  later ? " (\u2571 masked: a later key, hidden by the causal mask)" : "");
    int nblocks = 0;
    for (int c0 = 0; c0 < h->n; c0 = heads_block_end(h, c0)) nblocks++;
    if (nblocks == 1) {
        char *title = wl_buf_take(&b);
        wl_table *t = heads_table(h, 0, h->n, title);
        free(title);
        out->text_plain = wl_table_text(t);
        wl_table_free(t);
    } else {   /* wider than the text: blocks of columns, as the heat maps have */
        wl_buf_printf(&b, "\n(%d tokens, in %d blocks to fit %d characters)", h->n, nblocks, h->width > 0 ? h->width : 80);
        for (int c0 = 0, c1; c0 < h->n; c0 = c1) {
            c1 = heads_block_end(h, c0);
            char span[64];
            if (c1 - c0 > 1) snprintf(span, sizeof span, "tokens %d\u2013%d of %d", c0 + 1, c1, h->n);
            else snprintf(span, sizeof span, "token %d of %d", c1, h->n);
            wl_table *t = heads_table(h, c0, c1, span);
            char *tt = wl_table_text(t);
            wl_buf_printf(&b, "\n%s%s", c0 ? "\n" : "", tt);
            free(tt);
            wl_table_free(t);
        }
        out->text_plain = wl_buf_take(&b);
    }
    /* the HTML: one table, which scrolls; a masked cell is hatched, as in its heat maps */
    wl_buf_printf(&b, "weights of query %d (%s) over the real tokens, per head%s:", h->query + 1, h->labels[h->query],
                  later ? " (hatched grey = masked: a later key, hidden by the causal mask)" : "");
    char *title = wl_buf_take(&b);
    wl_table *t = heads_table(h, 0, h->n, title);
    free(title);
    out->text_html = wl_table_html(t);
    wl_table_free(t);
    return 0;
}

static const lang_heads *H(const wl_value *v) { return v->data; }
static wl_value *heads_query(wl_value *v, wl_err *err) { (void)err; return wl_int(H(v)->query + 1); }
static wl_value *heads_tokens(wl_value *v, wl_err *err) { (void)err; return wl_list_strs(H(v)->labels, (size_t)H(v)->n); }
static wl_value *heads_weights(wl_value *v, wl_err *err)
{
    (void)err;
    const lang_heads *h = H(v);
    wl_value *l = wl_list();
    for (int k = 0; k < h->H; k++) wl_list_push(l, wl_list_nums(h->w + (size_t)k * (size_t)h->n, h->n));
    return l;
}

static const wl_field HEADS_FIELDS[] = {
    {.name = "query", .get = heads_query, .about = "the real slot whose row is shown, from 1"},
    {.name = "tokens", .get = heads_tokens},
    {.name = "weights", .get = heads_weights, .about = "per head; 0 for a masked later key"},
    {0},
};

static const wl_owned HEADS_OWNS[] = {WL_OWNS(lang_heads, w), {0}};
const wl_objtype lang_heads_type = {.name = "head table", .fields = HEADS_FIELDS, .free = heads_free, .owns = HEADS_OWNS,
                                    .render = heads_render};

/* weights[0, head, row, key] */
static double weight_at(const lang_details *ld, int head, int row, int key)
{
    const wl_details *d = &ld->d;
    return d->weights[(((size_t)head * (size_t)d->T) + (size_t)row) * (size_t)d->T + (size_t)key];
}

wl_value *lang_heads_value(const lang_details *ld, int query, int width)
{
    lang_heads *h = wl_xcalloc(1, sizeof *h);
    h->width = width;
    h->H = ld->d.H;
    h->n = ld->nreal;
    h->query = query;
    h->labels = real_labels(ld);
    h->w = wl_xmalloc(sizeof(double) * (size_t)h->H * (size_t)h->n);   /* at most 64 x 64 */
    int pad = WL_T - ld->nreal;
    for (int k = 0; k < h->H; k++)
        for (int i = 0; i < h->n; i++) h->w[(size_t)k * (size_t)h->n + (size_t)i] = weight_at(ld, k, pad + h->query, pad + i);
    return wl_obj(&lang_heads_type, h);
}

typedef struct lang_attn {
    int nheads, first_head, n, from; /* n rows and keys, starting at slot from */
    char **labels;
    double *w;                       /* [nheads, n, n]; NaN where masked (above the diagonal) */
    int width;                       /* text columns */
} lang_attn;

static void attn_free(void *p)
{
    lang_attn *a = p;
    free_labels(a->labels, a->n);
}

static wl_heatmap attn_map(const lang_attn *a, int k, char *title, size_t cap)
{
    snprintf(title, cap, "head %d: each row is a query, each column a key (rows sum to 1)", a->first_head + k + 1);
    return (wl_heatmap){.title = title, .rows = a->n, .cols = a->n, .v = a->w + (size_t)k * (size_t)a->n * (size_t)a->n,
                        .row_labels = (const char *const *)a->labels, .col_labels = (const char *const *)a->labels,
                        .row_axis = "query", .col_axis = "key", .scale = WL_SCALE_SEQUENTIAL, .lo = 0, .hi = 1,
                        .masked = "masked: a later key (causal mask)", .width = a->width};
}

static int attn_render(const void *p, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_attn *a = p;
    wl_buf t = {0}, s = {0}, h = {0}, j = {0};
    int y = 0, width = 0;
    char title[128];
    wl_buf_puts(&j, "{\"type\":\"attention\",\"tokens\":[");
    for (int i = 0; i < a->n; i++) {
        if (i) wl_buf_put(&j, ",", 1);
        wl_buf_json_str(&j, a->labels[i]);
    }
    wl_buf_puts(&j, "],\"heads\":[");
    for (int k = 0; k < a->nheads; k++) {
        wl_heatmap m = attn_map(a, k, title, sizeof title);
        char *mt = wl_heatmap_text(&m), *ms = wl_heatmap_svg(&m), *mh = wl_heatmap_html(&m);
        wl_buf_printf(&t, "%s%s", k ? "\n\n" : "", mt);
        int w = 0, hh = 0;
        sscanf(ms, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\"", &w, &hh);
        wl_buf_printf(&s, "<svg x=\"0\" y=\"%d\"%s", y, ms + 4);
        y += hh;
        if (w > width) width = w;
        wl_buf_puts(&h, mh);
        wl_buf_printf(&j, "%s{\"head\":%d,\"weights\":[", k ? "," : "", a->first_head + k + 1);
        for (int r = 0; r < a->n; r++) {
            wl_buf_puts(&j, r ? ",[" : "[");
            for (int col = 0; col < a->n; col++) {
                double v = m.v[(size_t)r * (size_t)a->n + (size_t)col];
                if (col) wl_buf_put(&j, ",", 1);
                wl_buf_json_num(&j, isnan(v) ? 0.0 : v);
            }
            wl_buf_put(&j, "]", 1);
        }
        wl_buf_puts(&j, "]}");
        free(mt);
        free(ms);
        free(mh);
    }
    wl_buf_puts(&j, "]}");
    out->text_plain = wl_buf_take(&t);
    wl_buf_printf(&t, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">%s</svg>",
                  width, y, width, y, s.s ? s.s : "");
    out->image_svg = wl_buf_take(&t);
    out->text_html = wl_buf_take(&h);
    out->app_json = wl_buf_take(&j);
    free(s.s);
    return 0;
}

static const wl_owned ATTN_OWNS[] = {WL_OWNS(lang_attn, w), {0}};
static const wl_objtype ATTN_T = {.name = "attention map", .free = attn_free, .owns = ATTN_OWNS, .render = attn_render};

wl_value *lang_attention_value(const lang_details *ld, int first_head, int nheads, int pad, int width)
{
    lang_attn *a = wl_xcalloc(1, sizeof *a);
    a->first_head = first_head;
    a->nheads = nheads;
    a->n = pad ? WL_T : ld->nreal;
    a->from = WL_T - a->n;
    a->width = width;
    if (pad) {
        a->labels = wl_xcalloc(WL_T, sizeof(char *));
        const wl_vocab *v = ld->vocab ? lang_vocab_get(ld->vocab) : NULL;
        for (int i = 0; i < WL_T; i++) a->labels[i] = wl_xstrdup(v ? lang_token(v, ld->ids[i]) : "?");
    } else {
        a->labels = real_labels(ld);
    }
    a->w = wl_xmalloc(sizeof(double) * (size_t)a->nheads * (size_t)a->n * (size_t)a->n);   /* at most 64 x 64 x 64 */
    for (int k = 0; k < a->nheads; k++)
        for (int r = 0; r < a->n; r++)
            for (int col = 0; col < a->n; col++)
                a->w[((size_t)k * (size_t)a->n + (size_t)r) * (size_t)a->n + (size_t)col] =
                    col > r ? NAN : weight_at(ld, a->first_head + k, a->from + r, a->from + col);
    return wl_obj(&ATTN_T, a);
}

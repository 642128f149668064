/* lang_heatmap.c: the heat map value: one matrix of a tensor with its scale, its axes named, logits over their top words. */
#include "lang_objs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lang_hm {
    int rows, cols;
    double *v;             /* [rows, cols] the values, NaN masked */
    char **rlab, **clab;
    char title[256];
    char row_axis[64], col_axis[64];
    wl_scale scale;
    const char *masked;    /* what a masked cell is */
    int width;             /* text columns */
} lang_hm;

static void hm_free(void *d)
{
    lang_hm *h = d;
    for (int i = 0; i < h->rows; i++) free(h->rlab[i]);
    for (int i = 0; i < h->cols; i++) free(h->clab[i]);
    free(h->rlab);
    free(h->clab);
    free(h->v);
}

static int hm_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_hm *h = d;
    int unit = h->scale == WL_SCALE_SEQUENTIAL;   /* weights: 0 .. 1 */
    wl_heatmap m = {.title = h->title, .rows = h->rows, .cols = h->cols, .v = h->v,
                    .row_labels = (const char *const *)h->rlab, .col_labels = (const char *const *)h->clab,
                    .row_axis = h->row_axis, .col_axis = h->col_axis, .scale = h->scale, .lo = 0, .hi = unit,
                    .masked = h->masked, .width = h->width};
    out->text_plain = wl_heatmap_text(&m);
    out->image_svg = wl_heatmap_svg(&m);
    out->text_html = wl_heatmap_svg_html(out->image_svg);
    return 0;
}

static const wl_objtype HM_T = {.name = "heat map", .free = hm_free, .render = hm_render};

/* The columns of a logits matrix [R, V] worth showing: the k words with the largest logits at row `row`, largest first. */
static void top_columns(const float *m, int row, int V, int k, int *cols)
{
    const float *z = m + (size_t)row * (size_t)V;
    for (int i = 0; i < k; i++) cols[i] = -1;
    for (int j = 0; j < V; j++) {
        int at = k;
        while (at > 0 && (cols[at - 1] < 0 || z[j] > z[cols[at - 1]])) at--;
        if (at == k) continue;
        memmove(cols + at + 1, cols + at, sizeof(int) * (size_t)(k - 1 - at));
        cols[at] = j;
    }
}

wl_value *lang_heatmap_value(const lang_tensor *t, int head, int last, int cols, const wl_value *labels, int width)
{
    int R = t->shape[t->ndim - 2], C = t->shape[t->ndim - 1];
    char base[32];   /* the intermediate it is or was sliced from: weights for weights.0 */
    snprintf(base, sizeof base, "%.*s", (int)strcspn(t->name, "."), t->name);
    /* scores and weights are [.., T, T]: their columns are the same slots as the rows */
    int square = R == C && (!strcmp(base, "scores") || !strcmp(base, "weights"));
    /* forward_details' and forward's logits [1, V] are the last slot's row alone; it is labelled with that slot */
    int first_slot = !strcmp(t->name, "logits") && R == 1 ? WL_T - 1 : R - last;
    const wl_vocab *vocab = t->vocab ? lang_vocab_get(t->vocab) : NULL;
    int words = !square && vocab && (int)vocab->n == C;   /* columns: words by name */
    if (cols <= 0) cols = words ? 16 : 64;
    int nc = square ? last : (C < cols ? C : cols);
    const float *m = t->data + (size_t)(head - 1) * (size_t)R * (size_t)C;   /* batch 0, head `head` */
    int *col = wl_xmalloc(sizeof(int) * (size_t)nc);                          /* the tensor's column of each shown one */
    if (words) top_columns(m, R - 1, C, nc, col);
    else
        for (int k = 0; k < nc; k++) col[k] = square ? C - last + k : k;
    lang_hm *h = wl_xcalloc(1, sizeof *h);
    h->rows = last;
    h->cols = nc;
    h->v = wl_xmalloc(sizeof(double) * (size_t)h->rows * (size_t)nc);   /* a slice of a tensor already held, cols <= 256 */
    h->rlab = wl_xcalloc((size_t)h->rows, sizeof(char *));
    h->clab = wl_xcalloc((size_t)nc, sizeof(char *));
    /* a weight is exactly 0 only where the mask put it (the softmax's exponential never reaches 0) */
    int zero_masked = square && !strcmp(base, "weights");
    h->masked = zero_masked ? "masked: a later key or padding, weight exactly 0"
                            : "masked: a later key or padding, -inf before the softmax";
    double lo = INFINITY, hi = -INFINITY;
    for (int r = 0; r < h->rows; r++)
        for (int k = 0; k < nc; k++) {
            double x = m[(size_t)(R - h->rows + r) * (size_t)C + (size_t)col[k]];
            h->v[(size_t)r * (size_t)nc + (size_t)k] = isfinite(x) && !(zero_masked && x == 0) ? x : NAN;
            if (isfinite(x)) lo = fmin(lo, x), hi = fmax(hi, x);
        }
    int unit = lo >= 0 && hi <= 1;   /* weights and probabilities: the sequential scale over 0 .. 1 */
    h->scale = unit ? WL_SCALE_SEQUENTIAL : WL_SCALE_DIVERGING;
    h->width = width;
    if (square) snprintf(h->row_axis, sizeof h->row_axis, "query"), snprintf(h->col_axis, sizeof h->col_axis, "key");
    else {
        snprintf(h->row_axis, sizeof h->row_axis, "slot%s", labels ? " (its token)" : "");
        if (words) snprintf(h->col_axis, sizeof h->col_axis, "next word (the last slot's top %d)", nc);
        else if (t->ndim == 4) snprintf(h->col_axis, sizeof h->col_axis, "dimension of head %d", head);
        else snprintf(h->col_axis, sizeof h->col_axis, "%s", strncmp(t->name, "logits", 6) ? "dimension" : "word id");
    }
    char buf[64];
    for (int r = 0; r < h->rows; r++) {
        const wl_value *lab = labels ? labels->items[r] : NULL;
        if (lab && lab->type == WL_V_STR) h->rlab[r] = wl_xstrdup(lab->str);
        else if (lab) h->rlab[r] = wl_xstrdup(wl_fmt_num(lab->num, lab->is_int, buf));
        else snprintf(buf, sizeof buf, "%d", first_slot + r), h->rlab[r] = wl_xstrdup(buf);
    }
    for (int k = 0; k < nc; k++) {
        if (square) h->clab[k] = wl_xstrdup(h->rlab[k]);
        else if (words) h->clab[k] = wl_xstrdup(lang_token(vocab, col[k]));
        else snprintf(buf, sizeof buf, "%d", k), h->clab[k] = wl_xstrdup(buf);
    }
    free(col);
    /* short enough for the SVG's width at 8 columns; the shapes are shown by `details` */
    wl_buf b = {0};
    wl_buf_puts(&b, t->name);
    if (t->ndim == 4) wl_buf_printf(&b, " head %d", head);
    if (words) wl_buf_printf(&b, " (the top %d of %d words)", nc, C);
    else if (!square && nc < C) wl_buf_printf(&b, " (%d of %d columns)", nc, C);
    if (unit) wl_buf_puts(&b, ": 0 .. 1");
    else if (isfinite(lo)) wl_buf_printf(&b, ": %.3g .. %.3g", lo, hi);
    char *title = wl_buf_take(&b);
    snprintf(h->title, sizeof h->title, "%s", title);
    free(title);
    return wl_obj(&HM_T, h);
}

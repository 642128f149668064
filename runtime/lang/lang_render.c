/* lang_render.c: shared renderers: aligned and shaded tables, heat maps (Unicode shades, SVG, HTML), line charts (SVG, Vega-Lite). */
#include "lang_int.h"
#include "wl_utf8.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tables ---- */

struct wl_table {
    int ncols, ncells, cap;
    char **text;
    double *shade;
    char *title;
    int hrows, hcols;
};

wl_table *wl_table_new(int ncols)
{
    wl_table *t = wl_xcalloc(1, sizeof *t);
    t->ncols = ncols > 0 ? ncols : 1;
    return t;
}

void wl_table_free(wl_table *t)
{
    if (!t) return;
    for (int i = 0; i < t->ncells; i++) free(t->text[i]);
    free(t->text);
    free(t->shade);
    free(t->title);
    free(t);
}

void wl_table_title(wl_table *t, const char *title)
{
    free(t->title);
    t->title = wl_xstrdup(title);
}

void wl_table_cell(wl_table *t, const char *text, double shade)
{
    if (t->ncells == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 32;
        t->text = wl_xrealloc(t->text, sizeof(char *) * (size_t)t->cap);
        t->shade = wl_xrealloc(t->shade, sizeof(double) * (size_t)t->cap);
    }
    t->text[t->ncells] = wl_xstrdup(text);
    t->shade[t->ncells++] = shade;
}

void wl_table_cellf(wl_table *t, double shade, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    wl_table_cell(t, buf, shade);
}

void wl_table_header_rows(wl_table *t, int n) { t->hrows = n; }
void wl_table_header_cols(wl_table *t, int n) { t->hcols = n; }

/* Display width in code points. */
static int text_width(const char *s) { return (int)wl_utf8_cp_count(s, strlen(s)); }

static int looks_numeric(const char *s)
{
    if (*s == '-' || *s == '+') s++;
    if (!*s) return 0;
    int digit = 0;
    for (; *s; s++) {
        if (*s >= '0' && *s <= '9') digit = 1;
        else if (!strchr(".,%e+-×±", *s) && (unsigned char)*s < 0x80) return 0;
    }
    return digit;
}

char *wl_table_text(const wl_table *t)
{
    int nrows = (t->ncells + t->ncols - 1) / t->ncols;
    int *w = wl_xcalloc((size_t)t->ncols, sizeof(int));
    for (int i = 0; i < t->ncells; i++) {
        int cw = text_width(t->text[i]);
        if (cw > w[i % t->ncols]) w[i % t->ncols] = cw;
    }
    wl_buf b = {0};
    if (t->title) wl_buf_printf(&b, "%s\n", t->title);
    for (int r = 0; r < nrows; r++) {
        size_t line_start = b.len;
        for (int c = 0; c < t->ncols; c++) {
            int i = r * t->ncols + c;
            const char *s = i < t->ncells ? t->text[i] : "";
            int pad = w[c] - text_width(s);
            int right = r >= t->hrows && c >= t->hcols && looks_numeric(s);
            if (c) wl_buf_puts(&b, "  ");
            if (right) for (int k = 0; k < pad; k++) wl_buf_put(&b, " ", 1);
            wl_buf_puts(&b, s);
            if (!right) for (int k = 0; k < pad; k++) wl_buf_put(&b, " ", 1);
        }
        while (b.len > line_start && b.s[b.len - 1] == ' ') b.s[--b.len] = 0;
        wl_buf_put(&b, "\n", 1);
        if (t->hrows && r == t->hrows - 1) {
            int total = 0;
            for (int c = 0; c < t->ncols; c++) total += w[c] + (c ? 2 : 0);
            for (int k = 0; k < total; k++) wl_buf_puts(&b, "─");
            wl_buf_put(&b, "\n", 1);
        }
    }
    free(w);
    if (b.len && b.s[b.len - 1] == '\n') b.s[--b.len] = 0;
    return wl_buf_take(&b);
}

/* A masked cell: neutral grey with diagonal stripes, in every theme. */
#define MASKED_CSS "background:repeating-linear-gradient(135deg,#d9d9d9 0 3px,#8c8c8c 3px 5px);forced-color-adjust:none"

char *wl_table_html(const wl_table *t)
{
    int nrows = (t->ncells + t->ncols - 1) / t->ncols;
    wl_buf b = {0};
    wl_buf_puts(&b, "<table class=\"wordlab\" style=\"border-collapse:collapse;font-variant-numeric:tabular-nums;color:" WL_CSS_FG "\">");
    if (t->title) {
        wl_buf_puts(&b, "<caption style=\"text-align:left;font-weight:bold\">");
        wl_buf_html(&b, t->title);
        wl_buf_puts(&b, "</caption>");
    }
    for (int r = 0; r < nrows; r++) {
        wl_buf_puts(&b, "<tr>");
        for (int c = 0; c < t->ncols; c++) {
            int i = r * t->ncols + c;
            const char *s = i < t->ncells ? t->text[i] : "";
            int head = r < t->hrows || c < t->hcols;
            wl_buf_puts(&b, head ? "<th style=\"padding:4px 8px\"" : "<td style=\"padding:4px 8px;text-align:right");
            int masked = !head && i < t->ncells && isnan(t->shade[i]);
            if (!head && i < t->ncells && t->shade[i] >= 0) {
                wl_buf_put(&b, ";", 1);
                wl_buf_shade_style(&b, WL_SCALE_SEQUENTIAL, t->shade[i]);
            }
            if (masked) wl_buf_puts(&b, ";" MASKED_CSS "\" class=\"wordlab-masked\" title=\"masked");
            wl_buf_puts(&b, head ? ">" : "\">");
            if (!masked) wl_buf_html(&b, s);   /* a masked cell is its hatching: the text's mark is not repeated */
            wl_buf_puts(&b, head ? "</th>" : "</td>");
        }
        wl_buf_puts(&b, "</tr>");
    }
    wl_buf_puts(&b, "</table>");
    return wl_buf_take(&b);
}

/* ---- heat maps ---- */

static const char *const SHADES[] = {" ", "░", "▒", "▓", "█"};

static int shade_level(double v)
{
    if (v <= 0) return 0;
    int k = 1 + (int)(v * 4);
    return k > 4 ? 4 : k;
}

static int labels_are_numbers(const char *const *l, int n)
{
    for (int i = 0; i < n; i++) {
        const char *p = l[i];
        if (*p == '-') p++;
        if (!*p) return 0;
        for (; *p; p++)
            if (*p < '0' || *p > '9') return 0;
    }
    return 1;
}

/* Which columns a block or panel shows, in the numbering its column labels use: "0–31 of 0–63" when the labels
 * are numbers (the dimensions), "1–32 of 64" by position otherwise. */
static void heat_span(wl_buf *b, const wl_heatmap *h, int numbered, int c0, int c1)
{
    if (numbered)
        wl_buf_printf(b, "%s–%s of %s–%s", h->col_labels[c0], h->col_labels[c1 - 1], h->col_labels[0], h->col_labels[h->cols - 1]);
    else
        wl_buf_printf(b, "%d–%d of %d", c0 + 1, c1, h->cols);
}

/* A label with no letter or digit in it (a punctuation mark), which a key quotes so it is not read as its own comma. */
static int label_is_mark(const char *l)
{
    for (; *l; l++)
        if ((unsigned char)*l >= 0x80 || isalnum((unsigned char)*l)) return 0;
    return 1;
}

static int labels_equal(const char *const *a, const char *const *b, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(a[i], b[i])) return 0;
    return 1;
}

/* A heat map's scale: the values' own min and max (finite ones), the scale's ends a..b, how many cells are masked. */
typedef struct heat_scale {
    double min, max, a, b;
    int masked, diverging;
} heat_scale;

static heat_scale heat_scale_of(const wl_heatmap *h)
{
    heat_scale s = {INFINITY, -INFINITY, 0, 1, 0, h->scale == WL_SCALE_DIVERGING};
    for (int i = 0; i < h->rows * h->cols; i++) {
        if (isnan(h->v[i])) s.masked++;
        else s.min = fmin(s.min, h->v[i]), s.max = fmax(s.max, h->v[i]);
    }
    if (!(s.min <= s.max)) s.min = s.max = 0;
    if (s.diverging) {
        double m = fmax(fabs(s.min), fabs(s.max));
        s.a = -(m > 0 ? m : 1), s.b = -s.a;
    } else if (h->hi > h->lo) {
        s.a = h->lo, s.b = h->hi;
    } else {
        s.a = s.min, s.b = s.max > s.min ? s.max : s.min + 1;
    }
    return s;
}

/* Where x falls on the scale: [-1, 1] for the diverging scale, [0, 1] for the sequential one. */
static double heat_t(const heat_scale *s, double x) { return s->diverging ? x / s->b : (x - s->a) / (s->b - s->a); }

static void heat_num(double x, char *out, size_t cap) { snprintf(out, cap, "%.3g", fabs(x) < 1e-12 ? 0.0 : x); }

/* One text cell of width cw: the sign and the magnitude's shade (diverging), the shade (sequential), ╱ masked. */
static void heat_text_cell(wl_buf *b, const heat_scale *s, double v, int cw)
{
    if (isnan(v)) {
        for (int k = 0; k < cw; k++) wl_buf_puts(b, "╱");
        return;
    }
    double t = heat_t(s, v);
    if (!s->diverging) {
        for (int k = 0; k < cw; k++) wl_buf_puts(b, SHADES[shade_level(t)]);
        return;
    }
    int lv = shade_level(fabs(t));
    wl_buf_puts(b, lv ? (t < 0 ? "-" : "+") : " ");
    for (int k = 1; k < cw; k++) wl_buf_puts(b, SHADES[lv]);
}

char *wl_heatmap_text(const wl_heatmap *h)
{
    wl_buf b = {0};
    if (h->title) wl_buf_printf(&b, "%s\n", h->title);
    const char *ra = h->row_axis ? h->row_axis : "row", *ca = h->col_axis ? h->col_axis : "column";
    heat_scale sc = heat_scale_of(h);
    int numbered = labels_are_numbers(h->col_labels, h->cols);
    int same = !numbered && h->cols == h->rows && labels_equal(h->col_labels, h->row_labels, h->rows);
    int lw = 0, nw = 1;
    for (int r = 0; r < h->rows; r++) {
        int w = text_width(h->row_labels[r]);
        if (w > lw) lw = w;
    }
    if (lw > 16) lw = 16;
    for (int c = 0; c < h->cols; c++) {
        int w = numbered ? (int)strlen(h->col_labels[c]) : snprintf(NULL, 0, "%d", c + 1);
        if (w > nw) nw = w;
    }
    int cw = nw + 1 < 3 ? 3 : nw + 1, prefix = 4 + lw + 1;   /* "NNN label " then the cells */
    int width = h->width > 0 ? h->width : 80, per = (width - prefix - 2) / cw;
    if (per < 1) per = 1;
    int nblocks = (h->cols + per - 1) / per;
    wl_buf_printf(&b, "rows: %s · columns: %s%s", ra, ca, same ? " (numbered as the rows)" : "");
    if (nblocks > 1) wl_buf_printf(&b, "\n(%d columns, in %d blocks to fit %d characters)", h->cols, nblocks, width);
    wl_buf_put(&b, "\n", 1);
    for (int blk = 0; blk < nblocks; blk++) {
        int c0 = blk * per, c1 = c0 + per < h->cols ? c0 + per : h->cols;
        if (nblocks > 1) {
            wl_buf_printf(&b, "%s%s ", blk ? "\n" : "", numbered ? ca : "columns");
            heat_span(&b, h, numbered, c0, c1);
            wl_buf_put(&b, "\n", 1);
        }
        wl_buf_printf(&b, "%*s", prefix + 1, "");
        for (int c = c0; c < c1; c++) {
            if (numbered) wl_buf_printf(&b, "%*s", cw, h->col_labels[c]);
            else wl_buf_printf(&b, "%*d", cw, c + 1);
        }
        wl_buf_put(&b, "\n", 1);
        for (int r = 0; r < h->rows; r++) {
            char label[64];
            snprintf(label, sizeof label, "%s", h->row_labels[r]);
            wl_buf_printf(&b, "%3d %s", r + 1, label);
            for (int k = text_width(label); k < lw + 1; k++) wl_buf_put(&b, " ", 1);
            wl_buf_puts(&b, "│");
            for (int c = c0; c < c1; c++) heat_text_cell(&b, &sc, h->v[(size_t)r * (size_t)h->cols + (size_t)c], cw);
            wl_buf_puts(&b, "│\n");
        }
    }
    if (!numbered && !same) {
        wl_buf_printf(&b, "%s:", ca);
        int at = text_width(ca) + 1;
        for (int c = 0; c < h->cols; c++) {
            const char *l = h->col_labels[c], *q = label_is_mark(l) ? "\"" : "";   /* 1=",": a comma read as a word */
            int w = snprintf(NULL, 0, " %d=%s%s", c + 1, q, q) + text_width(l);
            if (at + w > width && at > 8) wl_buf_puts(&b, "\n     "), at = 5;
            wl_buf_printf(&b, " %d=%s%s%s", c + 1, q, l, q);
            at += w;
        }
        wl_buf_put(&b, "\n", 1);
    }
    char q[5][32], lo[32], hi[32];
    heat_num(sc.min, lo, sizeof lo);
    heat_num(sc.max, hi, sizeof hi);
    if (sc.diverging) {
        for (int k = 1; k <= 4; k++) heat_num(sc.b * k / 4, q[k], sizeof q[k]);
        wl_buf_printf(&b, "shade: the sign, then the size: + above 0, - below, blank 0\n"
                          "       ░ |x| < %s  ▒ < %s  ▓ < %s  █ up to %s\n", q[1], q[2], q[3], q[4]);
        wl_buf_printf(&b, "range: min %s%s max %s", lo, sc.min < 0 && sc.max > 0 ? " · 0 ·" : " ·", hi);
    } else {
        for (int k = 0; k <= 4; k++) heat_num(sc.a + (sc.b - sc.a) * k / 4, q[k], sizeof q[k]);
        wl_buf_printf(&b, "shade: blank = %s … █ up to %s\n       ░ < %s  ▒ < %s  ▓ < %s\n", q[0], q[4], q[1], q[2], q[3]);
        wl_buf_printf(&b, "range: min %s · max %s", lo, hi);
    }
    if (sc.masked) wl_buf_printf(&b, "\n╱ %s", h->masked ? h->masked : "masked");
    return wl_buf_take(&b);
}

/* A masked cell: neutral grey with two diagonal strokes. */
static void svg_masked_cell(wl_buf *b, int x, int y, int cell)
{
    wl_buf_printf(b, "<g class=\"masked\" style=\"forced-color-adjust:none\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#d9d9d9\"/>"
                     "<path d=\"M%d %dl%d %dM%d %dl%d %d\" stroke=\"#737373\" stroke-width=\"1.5\"/><title>masked</title></g>",
                  x, y, cell, cell, x, y + cell / 2, cell / 2, -cell / 2, x + cell / 2, y + cell, cell / 2, -cell / 2);
}

/* The colour bar at (x, y), h px tall, with its ends, 0 (or the middle) and the values' min and max written,
 * and the masked swatch below it when some cells are masked. Returns the y below it. */
static int svg_colour_bar(wl_buf *b, const wl_heatmap *h, const heat_scale *sc, int x, int y, int bh)
{
    enum { SLICES = 48 };
    char a[32], m[32], z[32];
    wl_buf_printf(b, "<g class=\"colourbar\"><text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>", x, y - 6,
                  sc->diverging ? "value (0 centred)" : "value");
    wl_buf_puts(b, "<g style=\"forced-color-adjust:none\">");
    for (int k = 0; k < SLICES; k++) {   /* top: the largest */
        double t = 1 - (k + 0.5) / SLICES;
        wl_rgb c = wl_scale_rgb(sc->diverging ? WL_SCALE_DIVERGING : WL_SCALE_SEQUENTIAL, sc->diverging ? 2 * t - 1 : t);
        wl_buf_printf(b, "<rect x=\"%d\" y=\"%.2f\" width=\"14\" height=\"%.2f\" fill=\"#%02x%02x%02x\"/>", x,
                      y + (double)bh * k / SLICES, (double)bh / SLICES + 0.3, c.r, c.g, c.b);
    }
    wl_buf_puts(b, "</g>");
    wl_buf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"%d\" fill=\"none\" style=\"stroke:" WL_CSS_LINE "\"/>", x, y, bh);
    heat_num(sc->b, a, sizeof a);
    heat_num(sc->diverging ? 0 : (sc->a + sc->b) / 2, m, sizeof m);
    heat_num(sc->a, z, sizeof z);
    const char *ends[3] = {a, m, z};
    for (int k = 0; k < 3; k++) {
        int ty = y + bh * k / 2;
        wl_buf_printf(b, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"currentColor\"/><text class=\"tick\" x=\"%d\" y=\"%d\">%s</text>",
                      x + 14, x + 18, ty, ty, x + 21, ty + 4, ends[k]);
    }
    heat_num(sc->min, z, sizeof z);
    heat_num(sc->max, a, sizeof a);
    wl_buf_printf(b, "<text class=\"range\" x=\"%d\" y=\"%d\">min %s</text><text class=\"range\" x=\"%d\" y=\"%d\">max %s</text>",
                  x, y + bh + 16, z, x, y + bh + 30, a);
    int yy = y + bh + 34;
    if (sc->masked) {
        svg_masked_cell(b, x, yy + 4, 14);
        wl_buf_printf(b, "<text class=\"masked-legend\" x=\"%d\" y=\"%d\">", x + 20, yy + 15);
        wl_buf_html(b, h->masked ? h->masked : "masked");
        wl_buf_puts(b, "</text>");
        yy += 22;
    }
    wl_buf_puts(b, "</g>");
    return yy;
}

char *wl_heatmap_svg(const wl_heatmap *h)
{
    heat_scale sc = heat_scale_of(h);
    wl_scale scale = sc.diverging ? WL_SCALE_DIVERGING : WL_SCALE_SEQUENTIAL;
    const char *ra = h->row_axis ? h->row_axis : "row", *ca = h->col_axis ? h->col_axis : "column";
    int cell = h->cols <= 24 ? 22 : 14, per = h->cols < WL_HEATMAP_PANEL ? h->cols : WL_HEATMAP_PANEL;
    int npanels = (h->cols + per - 1) / per, lrow = 0, lcol = 0, numbered = labels_are_numbers(h->col_labels, h->cols);
    for (int r = 0; r < h->rows; r++) lrow = text_width(h->row_labels[r]) > lrow ? text_width(h->row_labels[r]) : lrow;
    for (int c = 0; c < h->cols; c++) lcol = text_width(h->col_labels[c]) > lcol ? text_width(h->col_labels[c]) : lcol;
    if (lrow > 16) lrow = 16;
    if (lcol > 12) lcol = 12;
    if (lrow < text_width(ra) + 2) lrow = text_width(ra) + 2;   /* the row axis's title sits above the row labels */
    int left = 12 + 7 * lrow, title_h = h->title ? 26 : 6, labels_h = 10 + 5 * lcol;   /* column labels at -60 degrees */
    int panel_h = 18 + labels_h + cell * h->rows + 10, bh = cell * h->rows < 90 ? 90 : cell * h->rows > 200 ? 200 : cell * h->rows;
    int legend_w = sc.masked ? 26 + 6 * text_width(h->masked ? h->masked : "masked") : 0;   /* about 6 px a character */
    int bar_x = left + cell * per + 24, W = bar_x + (legend_w > 110 ? legend_w : 110), H = title_h + npanels * panel_h + 10;
    int bar_bottom = title_h + 18 + labels_h + bh + 34 + (sc.masked ? 22 : 0) + 10;
    if (H < bar_bottom) H = bar_bottom;
    int title_w = h->title ? 8 * text_width(h->title) + 10 : 0;   /* about 8 px per character at 14 px bold */
    if (W < title_w) W = title_w;
    wl_buf b = {0};
    wl_buf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                      "font-family=\"sans-serif\" font-size=\"11\" fill=\"currentColor\" class=\"wordlab-heatmap\" "
                      "style=\"color:" WL_CSS_FG "\">", W, H, W, H);
    wl_buf_printf(&b, "<rect class=\"page\" width=\"%d\" height=\"%d\" style=\"fill:" WL_CSS_PAGE "\"/>", W, H);
    if (h->title) {
        wl_buf_puts(&b, "<text class=\"title\" x=\"4\" y=\"17\" font-size=\"14\" font-weight=\"bold\">");
        wl_buf_html(&b, h->title);
        wl_buf_puts(&b, "</text>");
    }
    for (int p = 0; p < npanels; p++) {
        int c0 = p * per, c1 = c0 + per < h->cols ? c0 + per : h->cols, y0 = title_h + p * panel_h, top = y0 + 18 + labels_h;
        wl_buf_printf(&b, "<text class=\"axis\" x=\"%d\" y=\"%d\" font-style=\"italic\">", left, y0 + 12);
        wl_buf_html(&b, ca);
        if (npanels > 1) {
            wl_buf_puts(&b, numbered ? " " : " (columns ");
            heat_span(&b, h, numbered, c0, c1);
            wl_buf_puts(&b, numbered ? "" : ")");
        }
        wl_buf_puts(&b, " →</text>");
        wl_buf_printf(&b, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"end\" font-style=\"italic\">", left - 6, top - 6);
        wl_buf_html(&b, ra);
        wl_buf_puts(&b, " ↓</text>");
        for (int c = c0; c < c1; c++) {
            wl_buf_printf(&b, "<text class=\"col\" transform=\"translate(%d,%d) rotate(-60)\">", left + (c - c0) * cell + cell / 2 + 3,
                          top - 5);
            wl_buf_html(&b, h->col_labels[c]);
            wl_buf_puts(&b, "</text>");
        }
        for (int r = 0; r < h->rows; r++) {
            wl_buf_printf(&b, "<text class=\"row\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 6, top + r * cell + cell / 2 + 4);
            wl_buf_html(&b, h->row_labels[r]);
            wl_buf_puts(&b, "</text>");
        }
        /* the cells keep their colours in a forced-colours mode: they are the data */
        wl_buf_puts(&b, "<g class=\"cells\" style=\"stroke:" WL_CSS_PAGE ";forced-color-adjust:none\">");
        for (int r = 0; r < h->rows; r++) {
            for (int c = c0; c < c1; c++) {
                double v = h->v[(size_t)r * (size_t)h->cols + (size_t)c];
                int x = left + (c - c0) * cell, y = top + r * cell;
                if (isnan(v)) {
                    svg_masked_cell(&b, x, y, cell);
                    continue;
                }
                wl_rgb col = wl_scale_rgb(scale, heat_t(&sc, v));
                wl_buf_printf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#%02x%02x%02x\"><title>", x, y, cell,
                              cell, col.r, col.g, col.b);
                wl_buf_html(&b, h->row_labels[r]);
                wl_buf_puts(&b, ", ");
                wl_buf_html(&b, h->col_labels[c]);
                wl_buf_printf(&b, ": %.4g</title></rect>", v);
            }
        }
        wl_buf_puts(&b, "</g>");
    }
    svg_colour_bar(&b, h, &sc, bar_x, title_h + 18 + labels_h, bh);
    wl_buf_puts(&b, "</svg>");
    return wl_buf_take(&b);
}

char *wl_heatmap_svg_html(const char *svg)
{
    wl_buf b = {0};
    wl_buf_puts(&b, "<div class=\"wordlab-picture\" style=\"overflow-x:auto;max-width:100%\">");
    wl_buf_puts(&b, svg);
    wl_buf_puts(&b, "</div>");
    return wl_buf_take(&b);
}

char *wl_heatmap_html(const wl_heatmap *h)
{
    heat_scale sc = heat_scale_of(h);
    wl_table *t = wl_table_new(h->cols + 1);
    wl_buf cap = {0};
    if (h->title) wl_buf_printf(&cap, "%s · ", h->title);
    char lo[32], hi[32];
    heat_num(sc.a, lo, sizeof lo);
    heat_num(sc.b, hi, sizeof hi);
    wl_buf_printf(&cap, "shade: light %s to dark %s", lo, hi);
    if (sc.masked) wl_buf_printf(&cap, " · hatched grey = %s", h->masked ? h->masked : "masked");
    char *title = wl_buf_take(&cap);
    wl_table_title(t, title);
    free(title);
    wl_table_header_rows(t, 1);
    wl_table_header_cols(t, 1);
    wl_table_cellf(t, -1, "%s \\ %s", h->row_axis ? h->row_axis : "row", h->col_axis ? h->col_axis : "column");
    for (int c = 0; c < h->cols; c++) wl_table_cell(t, h->col_labels[c], -1);
    for (int r = 0; r < h->rows; r++) {
        wl_table_cell(t, h->row_labels[r], -1);
        for (int c = 0; c < h->cols; c++) {
            double v = h->v[(size_t)r * (size_t)h->cols + (size_t)c];
            if (isnan(v)) wl_table_cell(t, "", NAN);
            else wl_table_cellf(t, heat_t(&sc, v), "%.3f", v);
        }
    }
    char *s = wl_table_html(t);
    wl_table_free(t);
    return s;
}

/* ---- line charts ---- */

static const char *const COLORS[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

int wl_nice_ticks(double lo, double hi, int max_ticks, int integer, double *t0, double *step)
{
    if (!(hi > lo)) hi = lo + (integer ? 1 : fabs(lo) > 0 ? fabs(lo) * 0.1 : 1);
    if (max_ticks < 2) max_ticks = 2;
    double raw = (hi - lo) / (max_ticks - 1), mag = pow(10, floor(log10(raw))), st = 10 * mag;
    static const double MULT[] = {1, 2, 5, 10};
    for (int k = 0; k < 4; k++)
        if (MULT[k] * mag >= raw * (1 - 1e-9)) {
            st = MULT[k] * mag;
            break;
        }
    if (integer && st < 1) st = 1;
    double a = floor(lo / st + 1e-9) * st, b = ceil(hi / st - 1e-9) * st;
    *t0 = a;
    *step = st;
    return (int)lround((b - a) / st) + 1;
}

/* Decimals that tell ticks step apart. */
static int tick_decimals(double step)
{
    int d = (int)ceil(-log10(step) - 1e-9);
    return d < 0 ? 0 : d > 10 ? 10 : d;
}

/* The chart's axes: x spans the data (ticks xt, xt + xs, ... inside it), y is widened to whole ticks. */
typedef struct chart_axes {
    double x0, x1, xt, xs, y0, y1, ys;
    int nx, ny;
} chart_axes;

static chart_axes chart_range(const wl_chart *c)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int k = 0; k < c->ns && k < 4; k++)
        for (int i = 0; i < c->s[k].n; i++) {
            if (!isfinite(c->s[k].x[i]) || !isfinite(c->s[k].y[i])) continue;
            x0 = fmin(x0, c->s[k].x[i]);
            x1 = fmax(x1, c->s[k].x[i]);
            y0 = fmin(y0, c->s[k].y[i]);
            y1 = fmax(y1, c->s[k].y[i]);
        }
    if (!(x0 <= x1)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
    if (isfinite(c->ref_y)) y0 = fmin(y0, c->ref_y), y1 = fmax(y1, c->ref_y);
    if (c->y_from_zero && y0 > 0) y0 = 0;
    chart_axes a;
    if (x1 == x0) x0 -= 0.5, x1 += 0.5;
    a.x0 = x0;
    a.x1 = x1;
    wl_nice_ticks(x0, x1, 8, c->x_integer, &a.xt, &a.xs);
    if (a.xt < x0 - a.xs * 1e-9) a.xt += a.xs;
    a.nx = (int)floor((x1 - a.xt) / a.xs + 1e-9) + 1;
    a.ny = wl_nice_ticks(y0, y1, 6, 0, &a.y0, &a.ys);
    a.y1 = a.y0 + a.ys * (a.ny - 1);
    return a;
}

/* Splits s at spaces into lines of at most width code points (a longer word keeps a line of its own;
 * the last line takes whatever is left). Returns the number of lines. */
static int wrap_lines(const char *s, int width, char lines[][160], int max_lines)
{
    int n = 0;
    while (n < max_lines) {
        while (*s == ' ') s++;
        if (!*s) break;
        const char *p = s, *cut = NULL;
        int w = 0;
        for (; *p; p++) {
            if (*p == ' ') {
                if (w > width) break;
                cut = p;
            }
            w += (int)wl_utf8_cp_count(p, 1);
        }
        if ((!*p && w <= width) || !cut || n == max_lines - 1) cut = n == max_lines - 1 ? s + strlen(s) : p;
        size_t len = (size_t)(cut - s);
        if (len > 159) len = wl_utf8_byte_offset(s, len, wl_utf8_cp_count(s, 160) - 1);   /* whole characters, 159 bytes */
        memcpy(lines[n], s, len);
        lines[n++][len] = 0;
        s = cut;
    }
    return n;
}

enum { CHART_TITLE_CHARS = 62, CHART_TITLE_LINES = 4 };

char *wl_chart_svg(const wl_chart *c)
{
    chart_axes a = chart_range(c);
    char lines[CHART_TITLE_LINES][160];
    int nl = wrap_lines(c->title ? c->title : "", CHART_TITLE_CHARS, lines, CHART_TITLE_LINES);
    const int W = 520, L = 60, R = 150, B = 45, T = 14 + 18 * (nl ? nl : 1);
    const int H = T + 225 + B;
    double pw = W - L - R, ph = H - T - B;
#define PX(x) (L + pw * ((x) - a.x0) / (a.x1 - a.x0))
#define PY(y) (T + ph - ph * ((y) - a.y0) / (a.y1 - a.y0))
    wl_buf b = {0};
    wl_buf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                      "font-family=\"sans-serif\" font-size=\"11\" fill=\"currentColor\" class=\"wordlab-chart\" "
                      "style=\"color:" WL_CSS_FG "\"><rect class=\"page\" width=\"%d\" height=\"%d\" style=\"fill:" WL_CSS_PAGE "\"/>",
                  W, H, W, H, W, H);
    for (int i = 0; i < nl; i++) {
        wl_buf_printf(&b, "<text class=\"title\" x=\"8\" y=\"%d\" font-size=\"14\" font-weight=\"bold\">", 18 + 18 * i);
        wl_buf_html(&b, lines[i]);
        wl_buf_puts(&b, "</text>");
    }
    wl_buf_printf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%g\" height=\"%g\" fill=\"none\" style=\"stroke:" WL_CSS_LINE "\"/>", L, T, pw, ph);
    int yd = tick_decimals(a.ys), xd = c->x_integer ? 0 : tick_decimals(a.xs);
    for (int k = 0; k < a.ny; k++) {
        double v = a.y0 + a.ys * k;
        wl_buf_printf(&b, "<line x1=\"%d\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\" style=\"stroke:" WL_CSS_GRID "\"/>", L, L + pw, PY(v), PY(v));
        wl_buf_printf(&b, "<text class=\"ytick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>", L - 4, PY(v) + 4, yd,
                      fabs(v) < a.ys * 1e-9 ? 0.0 : v);
    }
    for (int k = 0; k < a.nx; k++) {
        double v = a.xt + a.xs * k;
        wl_buf_printf(&b, "<text class=\"xtick\" x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%.*f</text>", PX(v), T + ph + 14, xd,
                      fabs(v) < a.xs * 1e-9 ? 0.0 : v);
    }
    wl_buf_printf(&b, "<text x=\"%g\" y=\"%d\" text-anchor=\"middle\">", L + pw / 2, H - 8);
    wl_buf_html(&b, c->xlabel);
    wl_buf_printf(&b, "</text><text transform=\"translate(14,%g) rotate(-90)\" text-anchor=\"middle\">", T + ph / 2);
    wl_buf_html(&b, c->ylabel);
    wl_buf_puts(&b, "</text>");
    int entry = 0;
    if (isfinite(c->ref_y)) {
        wl_buf_printf(&b, "<line x1=\"%g\" x2=\"%g\" y1=\"%d\" y2=\"%d\" stroke=\"currentColor\" stroke-dasharray=\"4,2\"/>"
                          "<text class=\"legend\" x=\"%g\" y=\"%d\">",
                      L + pw + 10, L + pw + 22, T + 11, T + 11, L + pw + 26, T + 14);
        wl_buf_html(&b, c->ref_label ? c->ref_label : "reference");
        wl_buf_puts(&b, "</text>");
        entry++;
    }
    for (int k = 0; k < c->ns && k < 4; k++, entry++) {
        const wl_series *s = &c->s[k];
        int npts = 0;
        for (int i = 0; i < s->n; i++) npts += isfinite(s->x[i]) && isfinite(s->y[i]);
        wl_buf_printf(&b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", COLORS[k]);
        for (int i = 0; i < s->n; i++)
            if (isfinite(s->x[i]) && isfinite(s->y[i])) wl_buf_printf(&b, "%.1f,%.1f ", PX(s->x[i]), PY(s->y[i]));
        wl_buf_puts(&b, "\"/>");
        /* a point of its own for every value of a short series, so that one or two values show */
        for (int i = 0; npts <= 40 && i < s->n; i++)
            if (isfinite(s->x[i]) && isfinite(s->y[i]))
                wl_buf_printf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", PX(s->x[i]), PY(s->y[i]), COLORS[k]);
        int ly = T + 10 + 16 * entry;
        wl_buf_printf(&b, "<rect x=\"%g\" y=\"%d\" width=\"12\" height=\"3\" fill=\"%s\"/><text class=\"legend\" x=\"%g\" y=\"%d\">",
                      L + pw + 10, ly, COLORS[k], L + pw + 26, ly + 4);
        wl_buf_html(&b, s->name);
        if (!npts) wl_buf_puts(&b, " (none yet)");
        wl_buf_puts(&b, "</text>");
    }
    if (isfinite(c->ref_y)) /* drawn last, so that lines near it do not hide it */
        wl_buf_printf(&b, "<line class=\"reference\" x1=\"%d\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"currentColor\" "
                          "stroke-width=\"1.5\" stroke-dasharray=\"5,4\"/>", L, L + pw, PY(c->ref_y), PY(c->ref_y));
#undef PX
#undef PY
    wl_buf_puts(&b, "</svg>");
    return wl_buf_take(&b);
}

char *wl_chart_vegalite(const wl_chart *c)
{
    chart_axes a = chart_range(c);
    char lines[CHART_TITLE_LINES][160];
    int nl = wrap_lines(c->title ? c->title : "", CHART_TITLE_CHARS, lines, CHART_TITLE_LINES);
    wl_buf b = {0};
    wl_buf_puts(&b, "{\"$schema\":\"https://vega.github.io/schema/vega-lite/v5.json\",\"title\":{\"anchor\":\"start\",\"text\":[");
    for (int i = 0; i < nl; i++) {
        if (i) wl_buf_put(&b, ",", 1);
        wl_buf_json_str(&b, lines[i]);
    }
    wl_buf_puts(&b, "]},\"width\":360,\"height\":225,\"layer\":[{\"data\":{\"values\":[");
    int first = 1;
    for (int k = 0; k < c->ns && k < 4; k++)
        for (int i = 0; i < c->s[k].n; i++) {
            if (!isfinite(c->s[k].x[i]) || !isfinite(c->s[k].y[i])) continue;
            wl_buf_puts(&b, first ? "{\"series\":" : ",{\"series\":");
            first = 0;
            wl_buf_json_str(&b, c->s[k].name);
            wl_buf_puts(&b, ",\"x\":");
            wl_buf_json_num(&b, c->s[k].x[i]);
            wl_buf_puts(&b, ",\"y\":");
            wl_buf_json_num(&b, c->s[k].y[i]);
            wl_buf_put(&b, "}", 1);
        }
    wl_buf_puts(&b, "]},\"mark\":{\"type\":\"line\",\"point\":true,\"tooltip\":true},\"encoding\":{\"x\":{\"field\":\"x\",\"type\":\"quantitative\",\"title\":");
    wl_buf_json_str(&b, c->xlabel);
    wl_buf_printf(&b, ",\"scale\":{\"domain\":[%.10g,%.10g],\"nice\":false},\"axis\":{\"values\":[", a.x0, a.x1);
    for (int k = 0; k < a.nx; k++) wl_buf_printf(&b, "%s%.10g", k ? "," : "", a.xt + a.xs * k);
    wl_buf_printf(&b, "],\"format\":\".%df\"}},\"y\":{\"field\":\"y\",\"type\":\"quantitative\",\"title\":", c->x_integer ? 0 : tick_decimals(a.xs));
    wl_buf_json_str(&b, c->ylabel);
    wl_buf_printf(&b, ",\"scale\":{\"domain\":[%.10g,%.10g],\"nice\":false},\"axis\":{\"values\":[", a.y0, a.y1);
    for (int k = 0; k < a.ny; k++) wl_buf_printf(&b, "%s%.10g", k ? "," : "", a.y0 + a.ys * k);
    wl_buf_printf(&b, "],\"format\":\".%df\"}},\"color\":{\"field\":\"series\",\"type\":\"nominal\",\"title\":null,\"sort\":[", tick_decimals(a.ys));
    for (int k = 0; k < c->ns && k < 4; k++) {
        if (k) wl_buf_put(&b, ",", 1);
        wl_buf_json_str(&b, c->s[k].name);
    }
    wl_buf_puts(&b, "],\"scale\":{\"range\":[");
    for (int k = 0; k < c->ns && k < 4; k++) wl_buf_printf(&b, "%s\"%s\"", k ? "," : "", COLORS[k]);
    wl_buf_puts(&b, "]}}}}");
    if (isfinite(c->ref_y)) { /* the reference line, labelled at its right end */
        wl_buf_puts(&b, ",{\"data\":{\"values\":[{\"reference\":");
        wl_buf_json_str(&b, c->ref_label ? c->ref_label : "reference");
        wl_buf_puts(&b, ",\"y\":");
        wl_buf_json_num(&b, c->ref_y);
        wl_buf_printf(&b, ",\"x\":%.10g}]},\"encoding\":{\"y\":{\"field\":\"y\",\"type\":\"quantitative\"}},\"layer\":["
                          "{\"mark\":{\"type\":\"rule\",\"strokeDash\":[5,4],\"color\":\"#888\",\"tooltip\":true},"
                          "\"encoding\":{\"tooltip\":[{\"field\":\"reference\"},{\"field\":\"y\"}]}},"
                          "{\"mark\":{\"type\":\"text\",\"align\":\"right\",\"dy\":-7,\"color\":\"#888\"},"
                          "\"encoding\":{\"x\":{\"field\":\"x\",\"type\":\"quantitative\"},\"text\":{\"field\":\"reference\"}}}]}",
                      a.x1);
    }
    wl_buf_puts(&b, "]}");
    return wl_buf_take(&b);
}

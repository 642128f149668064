/* lang_render.c: shared renderers: aligned and shaded tables, heat maps (Unicode shades, SVG, HTML), line charts (SVG, Vega-Lite). */
#include "lang_int.h"
#include "wl_utf8.h"

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

/* White to deep blue for v in [0,1]. */
static void shade_rgb(double v, int *r, int *g, int *bl)
{
    if (v < 0) v = 0;
    if (v > 1) v = 1;
    *r = (int)lround(255 - v * (255 - 8));
    *g = (int)lround(255 - v * (255 - 69));
    *bl = (int)lround(255 - v * (255 - 148));
}

char *wl_table_html(const wl_table *t)
{
    int nrows = (t->ncells + t->ncols - 1) / t->ncols;
    wl_buf b = {0};
    wl_buf_puts(&b, "<table class=\"wordlab\" style=\"border-collapse:collapse;font-variant-numeric:tabular-nums\">");
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
            if (!head && i < t->ncells && t->shade[i] >= 0) {
                int R, G, B;
                shade_rgb(t->shade[i], &R, &G, &B);
                wl_buf_printf(&b, ";background:rgb(%d,%d,%d);color:%s", R, G, B, t->shade[i] > 0.55 ? "#fff" : "#000");
            }
            wl_buf_puts(&b, head ? ">" : "\">");
            wl_buf_html(&b, s);
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

static int labels_equal(const char *const *a, const char *const *b, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(a[i], b[i])) return 0;
    return 1;
}

/* The value that shade v in [0,1] stands for, as text. */
static void heat_value(const wl_heatmap *h, double v, char *out, size_t cap)
{
    double x = h->hi > h->lo ? h->lo + v * (h->hi - h->lo) : v;
    snprintf(out, cap, "%.3g", fabs(x) < 1e-12 ? 0.0 : x);
}

char *wl_heatmap_text(const wl_heatmap *h)
{
    wl_buf b = {0};
    if (h->title) wl_buf_printf(&b, "%s\n", h->title);
    const char *ra = h->row_axis ? h->row_axis : "row", *ca = h->col_axis ? h->col_axis : "column";
    int numbered = labels_are_numbers(h->col_labels, h->cols);
    int same = !numbered && h->cols == h->rows && labels_equal(h->col_labels, h->row_labels, h->rows);
    int lw = 0, nw = 1, masked = 0;
    for (int r = 0; r < h->rows; r++) {
        int w = text_width(h->row_labels[r]);
        if (w > lw) lw = w;
    }
    if (lw > 16) lw = 16;
    for (int c = 0; c < h->cols; c++) {
        int w = numbered ? (int)strlen(h->col_labels[c]) : snprintf(NULL, 0, "%d", c + 1);
        if (w > nw) nw = w;
    }
    for (int i = 0; i < h->rows * h->cols; i++) masked |= isnan(h->v[i]);
    int cw = nw + 1 < 3 ? 3 : nw + 1, prefix = 4 + lw + 1;   /* "NNN label " then the cells */
    int width = h->width > 0 ? h->width : 80, per = (width - prefix - 2) / cw;
    if (per < 1) per = 1;
    int nblocks = (h->cols + per - 1) / per;
    wl_buf_printf(&b, "rows: %s · columns: %s%s", ra, ca, same ? " (numbered as the rows)" : "");
    if (nblocks > 1) wl_buf_printf(&b, "\n(%d columns, in %d blocks to fit %d characters)", h->cols, nblocks, width);
    wl_buf_put(&b, "\n", 1);
    for (int blk = 0; blk < nblocks; blk++) {
        int c0 = blk * per, c1 = c0 + per < h->cols ? c0 + per : h->cols;
        if (nblocks > 1) wl_buf_printf(&b, "%scolumns %d–%d of %d\n", blk ? "\n" : "", c0 + 1, c1, h->cols);
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
            for (int c = c0; c < c1; c++) {
                double v = h->v[(size_t)r * (size_t)h->cols + (size_t)c];
                for (int k = 0; k < cw; k++) wl_buf_puts(&b, isnan(v) ? (k == cw - 1 ? "·" : " ") : SHADES[shade_level(v)]);
            }
            wl_buf_puts(&b, "│\n");
        }
    }
    if (!numbered && !same) {
        wl_buf_printf(&b, "%ss:", ca);
        int at = text_width(ca) + 2;
        for (int c = 0; c < h->cols; c++) {
            int w = snprintf(NULL, 0, " %d=", c + 1) + text_width(h->col_labels[c]);
            if (at + w > width && at > 8) wl_buf_puts(&b, "\n     "), at = 5;
            wl_buf_printf(&b, " %d=%s", c + 1, h->col_labels[c]);
            at += w;
        }
        wl_buf_put(&b, "\n", 1);
    }
    char v0[32], v1[32], v2[32], v3[32], v4[32];
    heat_value(h, 0, v0, sizeof v0);
    heat_value(h, 0.25, v1, sizeof v1);
    heat_value(h, 0.5, v2, sizeof v2);
    heat_value(h, 0.75, v3, sizeof v3);
    heat_value(h, 1, v4, sizeof v4);
    int real = h->hi > h->lo;
    wl_buf_printf(&b, "shade: blank = %s%s … █ up to %s%s\n       ░ < %s  ▒ < %s  ▓ < %s%s", v0, real ? " (smallest)" : "",
                  v4, real ? " (largest)" : "", v1, v2, v3, masked ? "  · masked" : "");
    return wl_buf_take(&b);
}

char *wl_heatmap_svg(const wl_heatmap *h)
{
    int cell = h->cols <= 24 ? 22 : h->cols <= 48 ? 12 : 8;
    int left = 110, top = h->title ? 100 : 80;
    int W = left + cell * h->cols + 20, H = top + cell * h->rows + 20;
    int title_w = h->title ? 8 * text_width(h->title) + 10 : 0;   /* about 8 px per character at 14 px bold */
    if (W < title_w) W = title_w;
    wl_buf b = {0};
    wl_buf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                      "font-family=\"sans-serif\" font-size=\"%d\">", W, H, W, H, cell >= 12 ? 11 : 8);
    wl_buf_printf(&b, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>", W, H);
    if (h->title) {
        wl_buf_puts(&b, "<text x=\"4\" y=\"16\" font-size=\"14\" font-weight=\"bold\">");
        wl_buf_html(&b, h->title);
        wl_buf_puts(&b, "</text>");
    }
    for (int c = 0; c < h->cols; c++) {
        int x = left + c * cell + cell / 2, y = top - 6;
        wl_buf_printf(&b, "<text transform=\"translate(%d,%d) rotate(-60)\">", x, y);
        wl_buf_html(&b, h->col_labels[c]);
        wl_buf_puts(&b, "</text>");
    }
    for (int r = 0; r < h->rows; r++) {
        wl_buf_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 6, top + r * cell + cell * 3 / 4);
        wl_buf_html(&b, h->row_labels[r]);
        wl_buf_puts(&b, "</text>");
        for (int c = 0; c < h->cols; c++) {
            double v = h->v[(size_t)r * (size_t)h->cols + (size_t)c];
            if (isnan(v)) continue;
            int R, G, B;
            shade_rgb(v, &R, &G, &B);
            wl_buf_printf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" stroke=\"#eee\">"
                              "<title>%.3f</title></rect>", left + c * cell, top + r * cell, cell, cell, R, G, B, v);
        }
    }
    wl_buf_puts(&b, "</svg>");
    return wl_buf_take(&b);
}

char *wl_heatmap_html(const wl_heatmap *h)
{
    wl_table *t = wl_table_new(h->cols + 1);
    if (h->title) wl_table_title(t, h->title);
    wl_table_header_rows(t, 1);
    wl_table_header_cols(t, 1);
    wl_table_cell(t, "query \\ key", -1);
    for (int c = 0; c < h->cols; c++) wl_table_cell(t, h->col_labels[c], -1);
    for (int r = 0; r < h->rows; r++) {
        wl_table_cell(t, h->row_labels[r], -1);
        for (int c = 0; c < h->cols; c++) {
            double v = h->v[(size_t)r * (size_t)h->cols + (size_t)c];
            if (isnan(v)) wl_table_cell(t, "", -1);
            else wl_table_cellf(t, v, "%.3f", v);
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
                      "font-family=\"sans-serif\" font-size=\"11\"><rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>",
                  W, H, W, H, W, H);
    for (int i = 0; i < nl; i++) {
        wl_buf_printf(&b, "<text class=\"title\" x=\"8\" y=\"%d\" font-size=\"14\" font-weight=\"bold\">", 18 + 18 * i);
        wl_buf_html(&b, lines[i]);
        wl_buf_puts(&b, "</text>");
    }
    wl_buf_printf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#888\"/>", L, T, pw, ph);
    int yd = tick_decimals(a.ys), xd = c->x_integer ? 0 : tick_decimals(a.xs);
    for (int k = 0; k < a.ny; k++) {
        double v = a.y0 + a.ys * k;
        wl_buf_printf(&b, "<line x1=\"%d\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>", L, L + pw, PY(v), PY(v));
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
        wl_buf_printf(&b, "<line x1=\"%g\" x2=\"%g\" y1=\"%d\" y2=\"%d\" stroke=\"#555\" stroke-dasharray=\"4,2\"/>"
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
        wl_buf_printf(&b, "<line class=\"reference\" x1=\"%d\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#222\" "
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
                          "{\"mark\":{\"type\":\"rule\",\"strokeDash\":[5,4],\"color\":\"#222\",\"tooltip\":true},"
                          "\"encoding\":{\"tooltip\":[{\"field\":\"reference\"},{\"field\":\"y\"}]}},"
                          "{\"mark\":{\"type\":\"text\",\"align\":\"right\",\"dy\":-7,\"color\":\"#222\"},"
                          "\"encoding\":{\"x\":{\"field\":\"x\",\"type\":\"quantitative\"},\"text\":{\"field\":\"reference\"}}}]}",
                      a.x1);
    }
    wl_buf_puts(&b, "]}");
    return wl_buf_take(&b);
}

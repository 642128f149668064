/* lang_render.c: shared renderers: aligned and shaded tables, heat maps (Unicode shades, SVG, HTML), line charts (SVG). */
#include "lang_int.h"

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
    wl_table *t = calloc(1, sizeof *t);
    if (!t) abort();
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
    t->title = strdup(title);
}

void wl_table_cell(wl_table *t, const char *text, double shade)
{
    if (t->ncells == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 32;
        char **nt = realloc(t->text, sizeof(char *) * (size_t)t->cap);
        double *ns = realloc(t->shade, sizeof(double) * (size_t)t->cap);
        if (!nt || !ns) abort();
        t->text = nt;
        t->shade = ns;
    }
    t->text[t->ncells] = strdup(text);
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
static int utf8_width(const char *s)
{
    int w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

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
    int *w = calloc((size_t)t->ncols, sizeof(int));
    if (!w) abort();
    for (int i = 0; i < t->ncells; i++) {
        int cw = utf8_width(t->text[i]);
        if (cw > w[i % t->ncols]) w[i % t->ncols] = cw;
    }
    wl_buf b = {0};
    if (t->title) wl_buf_printf(&b, "%s\n", t->title);
    for (int r = 0; r < nrows; r++) {
        size_t line_start = b.len;
        for (int c = 0; c < t->ncols; c++) {
            int i = r * t->ncols + c;
            const char *s = i < t->ncells ? t->text[i] : "";
            int pad = w[c] - utf8_width(s);
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

static const char *const SHADES[] = {"  ", "░░", "▒▒", "▓▓", "██"};

static int shade_level(double v)
{
    if (v <= 0) return 0;
    int k = 1 + (int)(v * 4);
    return k > 4 ? 4 : k;
}

char *wl_heatmap_text(const wl_heatmap *h)
{
    wl_buf b = {0};
    if (h->title) wl_buf_printf(&b, "%s\n", h->title);
    int lw = 0;
    for (int r = 0; r < h->rows; r++) {
        int w = utf8_width(h->row_labels[r]);
        if (w > lw) lw = w;
    }
    if (lw > 16) lw = 16;
    wl_buf_printf(&b, "%*s   ", lw + 3, "");
    for (int c = 0; c < h->cols; c++) wl_buf_printf(&b, "%2d", (c + 1) % 100);
    wl_buf_put(&b, "\n", 1);
    for (int r = 0; r < h->rows; r++) {
        char label[64];
        snprintf(label, sizeof label, "%s", h->row_labels[r]);
        wl_buf_printf(&b, "%3d %s", r + 1, label);
        for (int k = utf8_width(label); k < lw + 2; k++) wl_buf_put(&b, " ", 1);
        wl_buf_puts(&b, "│");
        for (int c = 0; c < h->cols; c++) {
            double v = h->v[(size_t)r * (size_t)h->cols + (size_t)c];
            wl_buf_puts(&b, isnan(v) ? "  " : SHADES[shade_level(v)]);
        }
        wl_buf_puts(&b, "│\n");
    }
    wl_buf_puts(&b, "keys:");
    for (int c = 0; c < h->cols; c++) wl_buf_printf(&b, " %d=%s", c + 1, h->col_labels[c]);
    wl_buf_puts(&b, "\nshade: '  ' 0   ░░ <0.25   ▒▒ <0.5   ▓▓ <0.75   ██ ≥0.75");
    return wl_buf_take(&b);
}

char *wl_heatmap_svg(const wl_heatmap *h)
{
    int cell = h->cols <= 24 ? 22 : h->cols <= 48 ? 12 : 8;
    int left = 110, top = h->title ? 100 : 80;
    int W = left + cell * h->cols + 20, H = top + cell * h->rows + 20;
    int title_w = h->title ? 8 * utf8_width(h->title) + 10 : 0;   /* about 8 px per character at 14 px bold */
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

char *wl_chart_svg(const char *title, const char *xlabel, const char *ylabel, const wl_series *s, int ns)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int k = 0; k < ns && k < 4; k++)
        for (int i = 0; i < s[k].n; i++) {
            if (!isfinite(s[k].x[i]) || !isfinite(s[k].y[i])) continue;
            x0 = fmin(x0, s[k].x[i]);
            x1 = fmax(x1, s[k].x[i]);
            y0 = fmin(y0, s[k].y[i]);
            y1 = fmax(y1, s[k].y[i]);
        }
    if (!(x0 <= x1)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
    if (x1 == x0) x1 = x0 + 1;
    if (y1 == y0) y1 = y0 + 1;
    const int W = 520, H = 300, L = 60, R = 140, T = 30, B = 45;
    double pw = W - L - R, ph = H - T - B;
    wl_buf b = {0};
    wl_buf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                      "font-family=\"sans-serif\" font-size=\"11\"><rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>",
                  W, H, W, H, W, H);
    wl_buf_puts(&b, "<text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">");
    wl_buf_html(&b, title);
    wl_buf_printf(&b, "</text><rect x=\"%d\" y=\"%d\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#888\"/>", L, T, pw, ph);
    for (int k = 0; k <= 4; k++) {
        double fy = y0 + (y1 - y0) * k / 4, py = T + ph - ph * k / 4;
        double fx = x0 + (x1 - x0) * k / 4, px = L + pw * k / 4;
        wl_buf_printf(&b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>", L - 4, py + 4, fy);
        wl_buf_printf(&b, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%.4g</text>", px, T + ph + 14, fx);
    }
    wl_buf_printf(&b, "<text x=\"%g\" y=\"%d\" text-anchor=\"middle\">", L + pw / 2, H - 8);
    wl_buf_html(&b, xlabel);
    wl_buf_printf(&b, "</text><text transform=\"translate(14,%g) rotate(-90)\" text-anchor=\"middle\">", T + ph / 2);
    wl_buf_html(&b, ylabel);
    wl_buf_puts(&b, "</text>");
    for (int k = 0; k < ns && k < 4; k++) {
        wl_buf_printf(&b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", COLORS[k]);
        for (int i = 0; i < s[k].n; i++) {
            if (!isfinite(s[k].x[i]) || !isfinite(s[k].y[i])) continue;
            wl_buf_printf(&b, "%.1f,%.1f ", L + pw * (s[k].x[i] - x0) / (x1 - x0), T + ph - ph * (s[k].y[i] - y0) / (y1 - y0));
        }
        wl_buf_printf(&b, "\"/><rect x=\"%g\" y=\"%d\" width=\"12\" height=\"3\" fill=\"%s\"/><text x=\"%g\" y=\"%d\">",
                      L + pw + 10, T + 10 + 16 * k, COLORS[k], L + pw + 26, T + 14 + 16 * k);
        wl_buf_html(&b, s[k].name);
        wl_buf_puts(&b, "</text>");
    }
    wl_buf_puts(&b, "</svg>");
    return wl_buf_take(&b);
}

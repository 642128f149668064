/* test_render.c: the shared renderers: nice chart ticks, wrapped chart titles, the Vega-Lite form, heat maps (text and
 * SVG: scales, colour bars, masks, axes, panels), the contrast of every text over a shade, JSON arrays. */
#include "lang_test.h"
#include "wl_utf8.h"
#include "wl_cmd.h"
#include "wl_test.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* m x 10^k with m in {1, 2, 5} */
static int is_nice(double step)
{
    double k = floor(log10(step) + 1e-9), m = step / pow(10, k);
    return fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6;
}

static void test_nice_ticks(void)
{
    static const double CASES[][2] = {{0, 11}, {1, 300}, {0.0825, 0.0845}, {0, 0.000138}, {1.4, 8.3}, {-2.04, 3.02}, {5, 5}, {0, 1e6}};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        for (int integer = 0; integer <= 1; integer++) {
            double lo = CASES[i][0], hi = CASES[i][1], t0, step;
            int n = wl_nice_ticks(lo, hi, 6, integer, &t0, &step);
            CHECK_MSG(is_nice(step), "[%g, %g]: step %g", lo, hi, step);
            CHECK_MSG(n >= 2 && n <= 11, "[%g, %g]: %d ticks", lo, hi, n);
            CHECK_MSG(t0 <= lo + 1e-12 && t0 + step * (n - 1) >= hi - 1e-12, "[%g, %g]: ticks %g + %d x %g", lo, hi, t0, n, step);
            CHECK_MSG(fabs(t0 / step - round(t0 / step)) < 1e-6, "[%g, %g]: first tick %g is not a multiple of %g", lo, hi, t0, step);
            if (integer) CHECK_MSG(step >= 1 && step == floor(step), "[%g, %g]: integer step %g", lo, hi, step);
        }
    double t0, step;
    wl_nice_ticks(0, 11, 8, 1, &t0, &step);
    CHECK(step == 2 && t0 == 0);
}

/* The text of every <text class="CLASS"> element of svg, in order. */
static int svg_texts(const char *svg, const char *cls, char out[][128], int max)
{
    char key[64];
    snprintf(key, sizeof key, "class=\"%s\"", cls);
    int n = 0;
    for (const char *p = svg; (p = strstr(p, key)) && n < max; p++) {
        const char *a = strchr(p, '>') + 1, *b = strchr(a, '<');
        snprintf(out[n++], 128, "%.*s", (int)(b - a), a);
    }
    return n;
}

static void test_chart_ticks_title_legend(void)
{
    double x[300], y[300], vx[1] = {150}, vy[1] = {2.5};
    for (int i = 0; i < 300; i++) x[i] = i + 1, y[i] = 3.0 - i * 0.001;
    wl_series s[2] = {{"validation", vx, vy, 1}, {"train (each step)", x, y, 300}};
    wl_chart c = {.title = "mean attention weight per step over the 180 held-out sequences: 2 heads, run 2, positions on",
                  .xlabel = "step", .ylabel = "loss", .s = s, .ns = 2, .x_integer = 1, .ref_y = NAN};
    char *svg = wl_chart_svg(&c);
    char t[64][128];
    int n = svg_texts(svg, "xtick", t, 64);
    CHECK(n >= 3);
    for (int i = 0; i < n; i++) CHECK_MSG(!strchr(t[i], '.') && atoi(t[i]) % 50 == 0, "x tick %s", t[i]);
    n = svg_texts(svg, "ytick", t, 64);
    for (int i = 1; i < n; i++) CHECK_MSG(is_nice(fabs(atof(t[i]) - atof(t[i - 1]))), "y ticks %s %s", t[i - 1], t[i]);
    /* the title wraps; nothing of it is lost */
    n = svg_texts(svg, "title", t, 64);
    CHECK(n == 2);
    CHECK(strstr(t[n - 1], "positions on") != NULL);
    for (int i = 0; i < n; i++) CHECK_MSG(strlen(t[i]) <= 62, "title line %s", t[i]);
    /* a word longer than a title line's 159 bytes is cut before the character that crosses them */
    char long_word[201] = "";
    for (int i = 0; i < 100; i++) strcat(long_word, "\xc3\xa9");
    wl_chart lw = c;
    lw.title = long_word;
    char *lsvg = wl_chart_svg(&lw), want[256];
    snprintf(want, sizeof want, ">%.158s</text>", long_word);
    CHECK(svg_texts(lsvg, "title", t, 64) == 1 && strstr(lsvg, want) != NULL);
    free(lsvg);
    /* a one-point series is drawn as a point, so its legend entry has something to point at */
    CHECK(strstr(svg, "<circle") != NULL);
    free(svg);
    double r = 1.0 / 12, wx[12], wy[12];
    for (int i = 0; i < 12; i++) wx[i] = i, wy[i] = 0.0825 + 0.0002 * (i % 2);
    wl_series w = {"head 1", wx, wy, 12};
    wl_chart u = {.title = "weights", .xlabel = "step", .ylabel = "weight", .s = &w, .ns = 1, .x_integer = 1, .y_from_zero = 1,
                  .ref_y = r, .ref_label = "uniform, 1/12"};
    svg = wl_chart_svg(&u);
    n = svg_texts(svg, "ytick", t, 64);
    CHECK(n >= 2 && atof(t[0]) == 0);
    CHECK(strstr(svg, "class=\"reference\"") && strstr(svg, "uniform, 1/12"));
    free(svg);
    char *vl = wl_chart_vegalite(&u);
    cJSON *j = cJSON_Parse(vl);
    CHECK(j != NULL);
    CHECK(cJSON_IsArray(cJSON_GetObjectItem(j, "layer")) && cJSON_GetArraySize(cJSON_GetObjectItem(j, "layer")) == 2);
    cJSON *y0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
                    cJSON_GetArrayItem(cJSON_GetObjectItem(j, "layer"), 0), "encoding"), "y"), "scale"), "domain"), 0);
    CHECK(y0 && y0->valuedouble == 0);
    cJSON_Delete(j);
    free(vl);
}

static int max_line_width(const char *s)
{
    int best = 0, w = 0;
    for (;; s++) {
        if (!*s || *s == '\n') {
            if (w > best) best = w;
            if (!*s) return best;
            w = 0;
        } else if (((unsigned char)*s & 0xC0) != 0x80) {
            w++;
        }
    }
}

static void test_heatmap_text(void)
{
    enum { R = 3, C = 40 };
    double v[R * C];
    const char *rows[R] = {"<BOS>", "a", "dog"}, *cols[C];
    char names[C][8];
    for (int i = 0; i < R * C; i++) v[i] = -2.04 + 5.06 * (double)(i % C) / (C - 1);
    for (int c = 0; c < C; c++) snprintf(names[c], sizeof names[c], "%d", c), cols[c] = names[c];
    wl_heatmap h = {.title = "E: -2.04 .. 3.02", .rows = R, .cols = C, .v = v, .row_labels = rows, .col_labels = cols,
                    .row_axis = "slot", .col_axis = "dimension", .scale = WL_SCALE_DIVERGING, .width = 60};
    char *t = wl_heatmap_text(&h);
    CHECK_MSG(max_line_width(t) <= 60, "%s", t);
    CHECK(strstr(t, "rows: slot · columns: dimension\n(40 columns, in ") != NULL);
    CHECK_MSG(strstr(t, "dimension 0–") && strstr(t, "of 0–39\n"), "%s", t);   /* the blocks named as the labels count */
    CHECK(strstr(t, "  9 10 11") != NULL);                  /* headers apart */
    /* signed values: the sign before each cell, the range with its 0 */
    CHECK_MSG(strstr(t, "│-▓▓-▓▓") && strstr(t, "+██│") && strstr(t, "│+░░+░░"), "%s", t);
    CHECK_MSG(strstr(t, "range: min -2.04 · 0 · max 3.02") && strstr(t, "█ up to 3.02"), "%s", t);
    CHECK(strstr(t, "╱") == NULL);
    free(t);
    char words[C][8];
    const char *wcols[C];
    for (int c = 0; c < C; c++) snprintf(words[c], sizeof words[c], "w%d", c), wcols[c] = words[c];
    h.col_labels = wcols;   /* labels that are not numbers: the blocks count columns from 1 */
    t = wl_heatmap_text(&h);
    CHECK_MSG(strstr(t, "\ncolumns 1–") && strstr(t, "of 40\n"), "%s", t);
    free(t);
    h.col_labels = cols;
    double neg[3] = {-3, -2, -1};   /* all below 0 (logits): the range line puts no 0 between its ends */
    wl_heatmap hn = {.rows = 1, .cols = 3, .v = neg, .row_labels = rows, .col_labels = cols, .scale = WL_SCALE_DIVERGING};
    t = wl_heatmap_text(&hn);
    CHECK_MSG(strstr(t, "range: min -3 · max -1"), "%s", t);
    free(t);
    h.width = 400;
    t = wl_heatmap_text(&h);
    CHECK(strstr(t, "blocks") == NULL && strstr(t, " 38 39\n") != NULL);
    free(t);
    /* token columns: numbered, with a key that names them; weights on the sequential scale; masked cells marked */
    const char *toks[R] = {"the", "cat", "sat"};
    double w[R * R] = {1, NAN, NAN, 0.5, 0.5, NAN, 0.2, 0.3, 0.5};
    wl_heatmap a = {.rows = R, .cols = R, .v = w, .row_labels = rows, .col_labels = toks, .row_axis = "query", .col_axis = "key",
                    .lo = 0, .hi = 1, .masked = "masked: a later key"};
    t = wl_heatmap_text(&a);
    CHECK_MSG(strstr(t, "key: 1=the 2=cat 3=sat") && strstr(t, "blank = 0 … █ up to 1\n") && strstr(t, "range: min 0.2 · max 1"),
              "%s", t);
    CHECK_MSG(strstr(t, "│███╱╱╱╱╱╱│") && strstr(t, "│▓▓▓▓▓▓╱╱╱│") && strstr(t, "│░░░▒▒▒▓▓▓│") && strstr(t, "\n╱ masked: a later key"),
              "%s", t);
    CHECK(strstr(t, "+") == NULL);
    free(t);
}

/* The fill of the SVG cell rect whose title ends with ": VALUE". */
static int cell_fill(const char *svg, const char *value, wl_rgb *out)
{
    char key[64];
    snprintf(key, sizeof key, ": %s</title>", value);
    const char *p = strstr(svg, key);
    if (!p) return 0;
    while (p > svg && strncmp(p, "<rect ", 6)) p--;
    const char *f = strstr(p, "fill=\"#");
    unsigned r, g, b;
    if (!f || sscanf(f, "fill=\"#%02x%02x%02x", &r, &g, &b) != 3) return 0;
    *out = (wl_rgb){(unsigned char)r, (unsigned char)g, (unsigned char)b};
    return 1;
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* The SVG: a diverging scale centred on 0 with its colour bar and range, hatched masked cells in the legend, the axes
 * named, wide maps in panels of readable cells, theme colours for everything that is not data. */
static void test_heatmap_svg(void)
{
    double v[4] = {-2, 0, 3, NAN};
    const char *rows[2] = {"<BOS>", "dog"}, *cols[2] = {"<BOS>", "dog"};
    wl_heatmap h = {.title = "scores head 1", .rows = 2, .cols = 2, .v = v, .row_labels = rows, .col_labels = cols,
                    .row_axis = "query", .col_axis = "key", .scale = WL_SCALE_DIVERGING, .masked = "masked: a later key"};
    char *svg = wl_heatmap_svg(&h);
    wl_rgb neg, zero, pos;
    CHECK(cell_fill(svg, "-2", &neg) && cell_fill(svg, "0", &zero) && cell_fill(svg, "3", &pos));
    CHECK_MSG(neg.b > neg.r + 60 && pos.r > pos.b + 60, "negative #%02x%02x%02x, positive #%02x%02x%02x", neg.r, neg.g, neg.b,
              pos.r, pos.g, pos.b);
    CHECK_MSG(zero.r > 240 && zero.g > 240 && zero.b > 240, "0 is #%02x%02x%02x", zero.r, zero.g, zero.b);
    /* centred: -2 is two thirds as far from 0 as 3, on the other side of the same scale */
    wl_rgb m2 = wl_scale_rgb(WL_SCALE_DIVERGING, -2.0 / 3);
    CHECK(neg.r == m2.r && neg.g == m2.g && neg.b == m2.b);
    CHECK(strstr(svg, "class=\"colourbar\"") && strstr(svg, ">min -2<") && strstr(svg, ">max 3<"));
    CHECK(strstr(svg, "class=\"tick\" x=") && strstr(svg, ">3</text>") && strstr(svg, ">0</text>") && strstr(svg, ">-3</text>"));
    CHECK_MSG(count(svg, "<g class=\"masked\"") == 2, "%d", count(svg, "<g class=\"masked\""));   /* the cell and its legend */
    /* the data keep their colours in a forced-colours mode; text and lines take the mode's */
    CHECK(strstr(svg, "<g class=\"cells\" style=\"stroke:" WL_CSS_PAGE ";forced-color-adjust:none\">") != NULL);
    const char *cells = strstr(svg, "<g class=\"cells\""), *bar = strstr(svg, "<g class=\"colourbar\">"), *text = strstr(cells, "<text");
    CHECK(cells && bar && text && cells < bar && text > bar);   /* no label inside the cells' group */
    CHECK(strstr(svg, ">masked: a later key</text>") != NULL);
    CHECK(strstr(svg, ">query ↓</text>") && strstr(svg, ">key →</text>"));
    CHECK(strstr(svg, "style=\"color:" WL_CSS_FG "\"") && strstr(svg, "style=\"fill:" WL_CSS_PAGE "\""));
    CHECK(strstr(svg, "fill=\"#fff\"") == NULL);
    char *html = wl_heatmap_svg_html(svg);
    CHECK(strstr(html, "overflow-x:auto") && strstr(html, svg));
    free(html);
    free(svg);
    /* 64 columns: two panels of 32, cells of 14 px, no wider than a notebook's page */
    enum { R = 2, C = 64 };
    double wv[R * C];
    const char *wr[R] = {"a", "b"}, *wc[C];
    char names[C][8];
    for (int i = 0; i < R * C; i++) wv[i] = i % 7 - 3;
    for (int c = 0; c < C; c++) snprintf(names[c], sizeof names[c], "%d", c), wc[c] = names[c];
    wl_heatmap w = {.rows = R, .cols = C, .v = wv, .row_labels = wr, .col_labels = wc, .row_axis = "slot",
                    .col_axis = "dimension", .scale = WL_SCALE_DIVERGING};
    svg = wl_heatmap_svg(&w);
    int width = 0;
    sscanf(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\"", &width);
    CHECK_MSG(width > 0 && width <= 800, "width %d", width);
    CHECK(strstr(svg, "dimension 0–31 of 0–63 →") && strstr(svg, "dimension 32–63 of 0–63 →"));
    CHECK(strstr(svg, "width=\"14\" height=\"14\" fill=\"#") != NULL);
    CHECK(strstr(svg, "masked") == NULL);
    free(svg);
    /* sequential: darker with the value */
    double prev = 2;
    for (int k = 0; k <= 16; k++) {
        double l = wl_rgb_luminance(wl_scale_rgb(WL_SCALE_SEQUENTIAL, k / 16.0));
        CHECK_MSG(l < prev, "step %d: luminance %g after %g", k, l, prev);
        prev = l;
    }
}

/* The heatmap value on a real forward pass: logits over their top words by name, the weights' masked cells (exactly
 * 0 only where masked), the SVG inside an HTML box that scrolls. */
static void test_heatmap_value(void)
{
    lt_run *r = lt_eval(NULL, "v = vocab [artifact vocab.json]\nm = model load [artifact multihead_seed11.npz] vocab=$v\n"
                              "ids = encode \"a little dog found a red hat\" vocab=$v\nd = details $m $ids\n"
                              "heatmap $d.logits_all last=1 cols=5", NULL);
    CHECK_MSG(r->rc == 0, "%s", r->err.evalue);
    const char *t = lt_text(r);
    CHECK_MSG(strstr(t, "logits_all (the top 5 of 4000 words)") && strstr(t, "columns: next word (the last slot's top 5)"), "%s", t);
    CHECK_MSG(strstr(t, "next word (the last slot's top 5): 1=\".\" 2=and"), "%s", t);   /* by name, the largest first; a mark quoted */
    CHECK(r->result.text_html && !strncmp(r->result.text_html, "<div class=\"wordlab-picture\"", 28) &&
          strstr(r->result.text_html, r->result.image_svg));
    lt_free(r);
    /* the logits of details and of forward are the last slot's row: labelled 63, as logits_all's last row is */
    r = lt_eval(NULL, "v = vocab [artifact vocab.json]\nm = model load [artifact multihead_seed11.npz] vocab=$v\n"
                      "d = details $m \"a little dog\"\nheatmap $d.logits_all last=1 cols=5\nheatmap $d.logits cols=5\n"
                      "heatmap [forward $m \"a little dog\"] cols=5", NULL);
    CHECK_MSG(r->rc == 0, "%s", r->err.evalue);
    CHECK_MSG(strstr(r->displays, "\n  1 63 \u2502") && !strstr(r->displays, "\n  1 0 \u2502"), "%s", r->displays);
    const char *logits = strstr(r->displays, "\nlogits (the top 5 of 4000 words)");   /* details' logits, after logits_all */
    CHECK_MSG(logits && strstr(logits, "\n  1 63 \u2502"), "%s", r->displays);
    CHECK_MSG(strstr(lt_text(r), "\n  1 63 \u2502") && !strstr(lt_text(r), "\n  1 0 \u2502"), "%s", lt_text(r));
    lt_free(r);
    r = lt_eval(NULL, "v = vocab [artifact vocab.json]\nm = model load [artifact multihead_seed11.npz] vocab=$v\n"
                      "d = details $m \"a little dog\"\nheatmap $d.weights head=2 last=6\nheatmap $d.scores last=4", NULL);
    CHECK_MSG(r->rc == 0, "%s", r->err.evalue);
    /* 4 real slots and 2 of padding: the real queries' padding keys and every later key are masked */
    CHECK_MSG(strstr(r->displays, "\n╱ masked: a later key or padding, weight exactly 0"), "%s", r->displays);
    CHECK_MSG(strstr(lt_text(r), "\n╱ masked: a later key or padding, -inf before the softmax"), "%s", lt_text(r));
    /* the real queries give the two padding keys nothing: masked, not a small weight */
    CHECK_MSG(strstr(r->displays, "  6 63 │╱╱╱╱╱╱") && !strstr(r->displays, "  6 63 │╱╱╱╱╱╱╱") &&
              strstr(r->displays, "  1 58 │░░░╱╱╱"), "%s", r->displays);
    lt_free(r);
    /* a slice of the weights or scores (one example's heads, one head) keeps the mask and the query and key axes */
    r = lt_eval(NULL, "v = vocab [artifact vocab.json]\nm = model load [artifact multihead_seed11.npz] vocab=$v\n"
                      "d = details $m \"a little dog\"\nheatmap $d.weights.0 last=6\nheatmap $d.weights.0.1 last=6\n"
                      "heatmap $d.scores.0.3 last=4", NULL);
    CHECK_MSG(r->rc == 0, "%s", r->err.evalue);
    const char *two = strstr(r->displays, "weights.0.1:");
    CHECK_MSG(two && strstr(r->displays, "rows: query · columns: key") && strstr(two, "rows: query · columns: key") &&
              strstr(r->displays, "\n╱ masked: a later key or padding, weight exactly 0") &&
              strstr(two, "\n╱ masked: a later key or padding, weight exactly 0") && strstr(r->displays, "  1 58 │░░░╱╱╱") &&
              strstr(r->displays, "  3 60 │╱╱╱╱╱╱███╱╱╱"), "%s", r->displays);
    CHECK_MSG(strstr(lt_text(r), "rows: query · columns: key") &&
              strstr(lt_text(r), "\n╱ masked: a later key or padding, -inf before the softmax"), "%s", lt_text(r));
    lt_free(r);
}

/* The count of non-overlapping occurrences of needle in s. */
static int count_of(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* heads query=N: the keys after the query are masked, drawn with the heat maps' mark (hatched in HTML), never as a
 * weight; the last query's row has none. */
static void test_heads_masked(void)
{
    lt_run *r = lt_eval(NULL, "v = vocab [artifact vocab.json]\nm = model load [artifact multihead_seed11.npz] vocab=$v\n"
                              "d = details $m \"the dog ran\"\nheads $d query=2", NULL);
    CHECK_MSG(r->rc == 0, "%s", r->err.evalue);
    const char *t = lt_text(r);
    CHECK_MSG(strstr(t, "weights of query 2 (the) over the real tokens, per head (\u2571 masked: a later key, hidden by the "
                        "causal mask):\nHead  <BOS>  the    dog    ran"), "%s", t);
    for (int k = 1; k <= 4; k++) {   /* each head: two weights, then dog and ran masked */
        char row[64];
        snprintf(row, sizeof row, "\n%d     0.", k);
        const char *at = strstr(t, row);
        const char *masked = "\u2571\u2571\u2571\u2571\u2571  \u2571\u2571\u2571\u2571\u2571";   /* at 1 + 6 + 7 + 7 */
        CHECK_MSG(at && !strncmp(at + 21, masked, strlen(masked)), "head %d: %s", k, t);
    }
    const char *html = r->result.text_html ? r->result.text_html : "";
    CHECK_MSG(count_of(html, "class=\"wordlab-masked\"") == 8 && !strstr(html, "\u2571") &&
              strstr(html, "per head (hatched grey = masked: a later key, hidden by the causal mask)"), "%s", html);
    lt_free(r);
    r = lt_eval(NULL, "v = vocab [artifact vocab.json]\nm = model load [artifact multihead_seed11.npz] vocab=$v\n"
                      "d = details $m \"the dog ran\"\nheads $d", NULL);
    CHECK_MSG(r->rc == 0 && !strstr(lt_text(r), "\u2571") && !strstr(lt_text(r), "masked") && r->result.text_html &&
              !strstr(r->result.text_html, "masked"), "%s", lt_text(r));
    lt_free(r);
}

/* heads on a long prompt: the text is split into blocks of columns that fit the width (80 by default), each with the
 * Head column, every token in one of them; the HTML keeps one table, which scrolls. */
static void test_heads_blocks(void)
{
    char code[2048] = "v = vocab [artifact vocab.json]\nm = model load [artifact multihead_seed11.npz] vocab=$v\nd = details $m \"";
    for (int i = 0; i < 15; i++) strcat(code, "the little dog found a ");   /* 75 tokens: the last 64 are read */
    strcat(code, "\"\nheads $d");
    lt_run *r = lt_eval(NULL, code, NULL);
    CHECK_MSG(r->rc == 0, "%s", r->err.evalue);
    const char *t = lt_text(r);
    CHECK_MSG(strstr(t, "\n(64 tokens, in ") && strstr(t, " blocks to fit 80 characters)\ntokens 1\u201310 of 64\nHead  little  dog"),
              "%s", t);
    int widest = 0, heads = 0;
    for (const char *line = t; *line;) {
        size_t n = strcspn(line, "\n");
        int w = (int)wl_utf8_cp_count(line, n);
        if (line != t && w > widest) widest = w;   /* the title line is prose */
        heads += !strncmp(line, "Head  ", 6);
        line += n + (line[n] == '\n');
    }
    CHECK_MSG(widest <= 80 && heads >= 7, "widest line %d, %d blocks: %s", widest, heads, t);
    CHECK_MSG(strstr(t, "tokens 61\u201364 of 64\nHead  little  dog    found  a\n"), "%s", t);   /* the last tokens too */
    const char *html = r->result.text_html ? r->result.text_html : "";
    CHECK(count_of(html, "<table") == 1 && count_of(html, "<th style=\"padding:4px 8px\">dog</th>") == 13);
    lt_free(r);
}

/* ---- contrast: every text over a shade that the renderers write, on a light and on a dark page ---- */

/* JupyterLab's light and dark pages (--jp-layout-color0) and their text (--jp-ui-font-color0). */
static const wl_rgb PAGES[2] = {{255, 255, 255}, {17, 17, 17}}, PAGE_TEXT[2] = {{0, 0, 0}, {255, 255, 255}};

/* The colour at s ("#rrggbb", "rgb(r,g,b)", "rgba(r,g,b,a)" or a var(...) of the theme) over page k. */
static int css_colour(const char *s, int k, int text, wl_rgb *out)
{
    unsigned r, g, b;
    double a = 1;
    if (!strncmp(s, "var(", 4)) {
        *out = text ? PAGE_TEXT[k] : PAGES[k];
        return 1;
    }
    if (sscanf(s, "#%02x%02x%02x", &r, &g, &b) == 3 || sscanf(s, "rgb(%u,%u,%u)", &r, &g, &b) == 3 ||
        sscanf(s, "rgba(%u,%u,%u,%lf)", &r, &g, &b, &a) == 4) {
        wl_rgb p = PAGES[k];
        *out = (wl_rgb){(unsigned char)lround(a * r + (1 - a) * p.r), (unsigned char)lround(a * g + (1 - a) * p.g),
                        (unsigned char)lround(a * b + (1 - a) * p.b)};
        return 1;
    }
    return 0;
}

/* Checks every style attribute of html that sets both a background and a text colour: contrast >= 4.5 on both pages.
 * Returns the number of such pairs (0 when the attribute is missing: the caller checks there were some), or -1 at the
 * first pair under 4.5 (reported as a failure when report is set). */
static int check_contrast(const char *html, const char *what, int report)
{
    int pairs = 0;
    for (const char *p = html; (p = strstr(p, "style=\"")); p++) {
        const char *end = strchr(p + 7, '"');
        char style[512];
        snprintf(style, sizeof style, "%.*s", (int)(end - p - 7), p + 7);
        const char *bg = strstr(style, "background:"), *fg = strstr(style, ";color:");
        if (!fg && !strncmp(style, "color:", 6)) fg = style - 1;
        if (!bg || !fg || !strncmp(bg + 11, "repeating", 9)) continue;
        for (int k = 0; k < 2; k++) {
            wl_rgb b, f;
            if (!css_colour(bg + 11, k, 0, &b) || !css_colour(fg + 7, k, 1, &f)) {
                if (report) CHECK_MSG(0, "%s: colours not understood in %s", what, style);
                return -1;
            }
            double c = wl_rgb_contrast(b, f);
            if (c < 4.5) {
                if (report) CHECK_MSG(0, "%s: %s on the %s page: contrast %.2f < 4.5", what, style, k ? "dark" : "light", c);
                return -1;
            }
        }
        pairs++;
    }
    return pairs;
}

static void test_contrast(void)
{
    /* the checker itself: the old story's translucent red with black text is unreadable on a dark page */
    CHECK(check_contrast("<span style=\"background:rgba(200,30,30,0.10);color:#000\">", "old", 0) == -1);
    CHECK(check_contrast("<span style=\"background:rgba(200,30,30,0.10);color:#000\">x</span>"
                         "<span style=\"background:#ffffff;color:#000000\">", "old", 0) == -1);
    CHECK(check_contrast("<span style=\"background:#ffffff;color:#000000\">", "plain", 0) == 1);
    /* every shade of every scale, as the renderers write it */
    wl_buf b = {0};
    for (int k = 0; k <= 512; k++) {
        static const wl_scale S[3] = {WL_SCALE_SEQUENTIAL, WL_SCALE_DIVERGING, WL_SCALE_LOSS};
        for (int s = 0; s < 3; s++) {
            wl_buf_puts(&b, "<span style=\"");
            wl_buf_shade_style(&b, S[s], S[s] == WL_SCALE_DIVERGING ? k / 256.0 - 1 : k / 512.0);
            wl_buf_puts(&b, "\">x</span>");
        }
    }
    char *spans = wl_buf_take(&b);
    CHECK(check_contrast(spans, "scales", 1) == 3 * 513);
    CHECK(count(spans, "forced-color-adjust:none") == 3 * 513);
    free(spans);
    /* a shaded table over the whole range */
    wl_table *t = wl_table_new(4);
    for (int k = 0; k <= 256; k++) wl_table_cellf(t, k / 256.0, "%.3f", k / 256.0);
    wl_table_cell(t, "", NAN);
    char *html = wl_table_html(t);
    CHECK(check_contrast(html, "table", 1) == 257);
    CHECK(count(html, "class=\"wordlab-masked\"") == 1);
    free(html);
    wl_table_free(t);
    /* the shaded story of the losses renderer, with losses from near 0 to past the darkest shade */
    lt_run *r = lt_eval(NULL, "m = model load [artifact attention_seed11.npz] vocab=[artifact vocab.json]\n"
                              "losses $m \"once upon a time there was a little dog . the dog was happy . zebra quantum\"", NULL);
    CHECK_MSG(r->rc == 0 && r->result.text_html, "%s", r->err.evalue);
    if (r->result.text_html) {
        int n = check_contrast(r->result.text_html, "losses", 1);
        CHECK_MSG(n >= 15, "%d shaded tokens", n);
        CHECK(strstr(r->result.text_html, "rgba(") == NULL);
    }
    lt_free(r);
}

/* JSON arrays of numbers and of strings (a list value), and the list value of the same numbers. */
static void test_json_arrays(void)
{
    const double x[] = {1, 0.5, -2.25e-7, NAN, 0.1};
    char *s[] = {"a", "say \"hi\"", "tab\there", "é"};
    wl_buf b = {0};
    wl_buf_json_nums(&b, x, 0);
    char *t = wl_buf_take(&b);
    CHECK_MSG(!strcmp(t, "[]"), "%s", t);
    free(t);
    wl_buf_json_nums(&b, x, 5);
    t = wl_buf_take(&b);
    CHECK_MSG(!strcmp(t, "[1,0.5,-2.25e-07,null,0.1]"), "%s", t);
    free(t);
    wl_value *strs = wl_list();   /* a list of strings: each JSON-escaped */
    for (int i = 0; i < 4; i++) wl_list_push(strs, wl_str(s[i]));
    wl_mime m = {0};
    wl_err err = {{0}};
    CHECK(wl_value_render(strs, &m, &err) == 0);
    wl_unref(strs);
    t = m.app_json;
    m.app_json = NULL;
    wl_mime_free(&m);
    CHECK_MSG(!strcmp(t, "[\"a\",\"say \\\"hi\\\"\",\"tab\\there\",\"é\"]"), "%s", t);
    cJSON *j = cJSON_Parse(t);
    CHECK(j && cJSON_GetArraySize(j) == 4 && !strcmp(cJSON_GetArrayItem(j, 1)->valuestring, s[1]));
    cJSON_Delete(j);
    free(t);
    wl_value *l = wl_list_nums(x, 3);
    CHECK(l->type == WL_V_LIST && l->n == 3 && l->items[2]->type == WL_V_NUM && l->items[2]->num == x[2]);
    wl_unref(l);
}

/* seq_weights in a terminal: one scale for the whole plot, at least 2 x uniform, so that the near-uniform weights of a
 * net without positions (0.082 to 0.084) are one moderate shade, not full blocks; a peak (0.209) is still darkest. */
static void test_seq_weights_text(void)
{
    lt_run *r = lt_eval(NULL, "seq_weights heads=2 run=2 positions=0", NULL);
    const char *t = lt_text(r);
    CHECK_MSG(r->rc == 0 && count_of(t, "\u2592\u2592\u2592\u2592\u2592") == 24 &&
              !strstr(t, "\u2588\u2588\u2588\u2588\u2588") && !strstr(t, "\u2593\u2593\u2593\u2593\u2593") &&
              !strstr(t, "\u2591\u2591\u2591\u2591\u2591"), "%s", t);
    CHECK_MSG(strstr(t, "shade: weight / 0.167 (the largest weight, at least 2 \u00d7 uniform)\n") &&
              strstr(t, "uniform: 1/12 = 0.083 (\u2592)"), "%s", t);
    lt_free(r);
    r = lt_eval(NULL, "seq_weights heads=2 run=2", NULL);
    t = lt_text(r);
    CHECK_MSG(r->rc == 0 && count_of(t, "\u2588\u2588\u2588\u2588\u2588") == 3 && strstr(t, "shade: weight / 0.209 "),
              "%s", t);
    lt_free(r);
}

void wl_test_main(void)
{
    test_seq_weights_text();
    test_json_arrays();
    test_heatmap_text();
    test_heatmap_svg();
    test_heatmap_value();
    test_heads_masked();
    test_heads_blocks();
    test_contrast();
    test_nice_ticks();
    test_chart_ticks_title_legend();
}

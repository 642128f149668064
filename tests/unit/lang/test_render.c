/* test_render.c: the shared renderers: nice chart ticks, wrapped chart titles, the Vega-Lite form, text heat maps,
 * JSON arrays. */
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
    for (int i = 0; i < R * C; i++) v[i] = (double)(i % C) / (C - 1);
    for (int c = 0; c < C; c++) snprintf(names[c], sizeof names[c], "%d", c), cols[c] = names[c];
    wl_heatmap h = {.title = "E: -2.04 .. 3.02", .rows = R, .cols = C, .v = v, .row_labels = rows, .col_labels = cols,
                    .row_axis = "slot", .col_axis = "dimension", .lo = -2.04, .hi = 3.02, .width = 60};
    char *t = wl_heatmap_text(&h);
    CHECK_MSG(max_line_width(t) <= 60, "%s", t);
    CHECK(strstr(t, "rows: slot · columns: dimension\n(40 columns, in ") != NULL);
    CHECK(strstr(t, "columns 1–") != NULL);
    CHECK(strstr(t, "  9 10 11") != NULL);                  /* headers apart */
    CHECK(strstr(t, "blank = -2.04 (smallest)") && strstr(t, "up to 3.02 (largest)"));
    CHECK(strstr(t, "keys:") == NULL);
    free(t);
    h.width = 400;
    t = wl_heatmap_text(&h);
    CHECK(strstr(t, "blocks") == NULL && strstr(t, " 38 39\n") != NULL);
    free(t);
    /* token columns: numbered, with a key that names them, and unit values as they are */
    const char *toks[R] = {"the", "cat", "sat"};
    double w[R * R] = {1, NAN, NAN, 0.5, 0.5, NAN, 0.2, 0.3, 0.5};
    wl_heatmap a = {.rows = R, .cols = R, .v = w, .row_labels = rows, .col_labels = toks, .row_axis = "query", .col_axis = "key"};
    t = wl_heatmap_text(&a);
    CHECK(strstr(t, "keys: 1=the 2=cat 3=sat") && strstr(t, "blank = 0 … █ up to 1\n") && strstr(t, "· masked"));
    free(t);
}

/* The JSON arrays that the value types write their fields with, and the list value of the same numbers. */
static void test_json_arrays(void)
{
    const double x[] = {1, 0.5, -2.25e-7, NAN, 0.1};
    char *s[] = {"a", "say \"hi\"", "tab\there", "é"};
    wl_buf b = {0};
    wl_buf_json_nums(&b, x, 0);
    wl_buf_json_strs(&b, s, 0);
    char *t = wl_buf_take(&b);
    CHECK_MSG(!strcmp(t, "[][]"), "%s", t);
    free(t);
    wl_buf_json_nums(&b, x, 5);
    t = wl_buf_take(&b);
    CHECK_MSG(!strcmp(t, "[1,0.5,-2.25e-07,null,0.1]"), "%s", t);
    free(t);
    wl_buf_json_strs(&b, s, 4);
    t = wl_buf_take(&b);
    CHECK_MSG(!strcmp(t, "[\"a\",\"say \\\"hi\\\"\",\"tab\\there\",\"é\"]"), "%s", t);
    cJSON *j = cJSON_Parse(t);
    CHECK(j && cJSON_GetArraySize(j) == 4 && !strcmp(cJSON_GetArrayItem(j, 1)->valuestring, s[1]));
    cJSON_Delete(j);
    free(t);
    wl_value *l = wl_list_nums(x, 3);
    CHECK(l->type == WL_V_LIST && l->n == 3 && l->items[2]->type == WL_V_NUM && l->items[2]->num == x[2]);
    wl_unref(l);
}

void wl_test_main(void)
{
    test_json_arrays();
    test_heatmap_text();
    test_nice_ticks();
    test_chart_ticks_title_legend();
}

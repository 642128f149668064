/* lang_comparison.c: the comparison value: a comparison.json read back, each model's mean ± sample std and steps. */
#include "lang_objs.h"

#include "wl_compare.h"
#include "wl_utf8.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct lang_results {
    cJSON *root;
    char *path;   /* malloc'd */
    const cJSON **kinds;   /* [nkinds] the members of "aggregate" */
    const cJSON **runs;    /* [nkinds] the member of "runs" with the same name (the first one), or NULL */
    size_t nkinds;
} lang_results;

static void results_free(void *p)
{
    lang_results *r = p;
    cJSON_Delete(r->root);
    free(r->path);
    free(r->kinds);
    free(r->runs);
}

static double stat(const cJSON *kind, const char *field, const char *which)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(kind, field);
    const cJSON *v = f ? cJSON_GetObjectItemCaseSensitive(f, which) : NULL;
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Object members ordered by name, the first of equal names first (they are sorted with their positions). */
typedef struct member {
    const cJSON *item;
    size_t pos;
} member;

static int by_name(const void *a, const void *b)
{
    const member *x = a, *y = b;
    int d = strcmp(x->item->string, y->item->string);
    return d ? d : (x->pos > y->pos) - (x->pos < y->pos);
}

static int by_name_only(const void *key, const void *m) { return strcmp(key, ((const member *)m)->item->string); }

/* Pairs every member of "aggregate" with its member of "runs": sorted and searched, n log n however many models
 * a file names (looking each one up in turn is quadratic). */
static int index_results(wl_call *c, lang_results *r, const cJSON *agg, const cJSON *runs)
{
    size_t na = 0, nr = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, agg) na++;
    cJSON_ArrayForEach(it, runs) nr++;
    member *sorted = malloc((nr ? nr : 1) * sizeof *sorted);
    r->kinds = malloc((na ? na : 1) * sizeof *r->kinds);
    r->runs = malloc((na ? na : 1) * sizeof *r->runs);
    if (!sorted || !r->kinds || !r->runs) {
        free(sorted);
        return wl_fail(c->err, "out of memory indexing the %zu models of %s", na, r->path);
    }
    nr = 0;
    cJSON_ArrayForEach(it, runs) sorted[nr] = (member){it, nr}, nr++;
    qsort(sorted, nr, sizeof *sorted, by_name);
    int rc = 0;
    cJSON_ArrayForEach(it, agg) {
        if (wl_sink_interrupted(c->sink)) {
            rc = wl_fail(c->err, "results: interrupted after %zu of %zu models", r->nkinds, na);
            break;
        }
        const member *m = bsearch(it->string, sorted, nr, sizeof *sorted, by_name_only);
        while (m && m > sorted && !strcmp(m[-1].item->string, it->string)) m--;   /* the first of equal names */
        r->kinds[r->nkinds] = it;
        r->runs[r->nkinds++] = m ? m->item : NULL;
    }
    free(sorted);
    return rc;
}

/* A table pads every cell of a column to its widest: one huge cell must not make every row huge. */
#define RESULTS_NAME_SHOWN 60
#define RESULTS_STEPS_SHOWN 12

/* Bytes of the first RESULTS_NAME_SHOWN code points of s. */
static int short_len(const char *s) { return (int)wl_utf8_byte_offset(s, strlen(s), RESULTS_NAME_SHOWN); }

static int results_render(const void *p, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_results *r = p;
    static const char *const fields[] = {"test_loss", "test_perplexity", "runtime_seconds"};
    wl_table *t = wl_table_new(6);
    wl_table_header_rows(t, 1);
    wl_table_header_cols(t, 1);
    wl_buf b = {0};
    wl_buf_printf(&b, "comparison %s (mean ± sample std over seeds)", r->path);
    char *title = wl_buf_take(&b);
    wl_table_title(t, title);
    free(title);
    const char *heads[] = {"model", "runs", "test loss", "test perplexity", "runtime s", "selected steps"};
    for (int i = 0; i < 6; i++) wl_table_cell(t, heads[i], -1);
    for (size_t k = 0; k < r->nkinds; k++) {
        const cJSON *kind = r->kinds[k], *arr = r->runs[k];
        wl_table_cellf(t, -1, "%.*s%s", short_len(kind->string), kind->string,
                       kind->string[short_len(kind->string)] ? "…" : "");
        wl_table_cellf(t, -1, "%d", cJSON_GetArraySize(arr));
        for (int f = 0; f < 3; f++) {
            double m = stat(kind, fields[f], "mean"), s = stat(kind, fields[f], "sample_std");
            if (isnan(m)) wl_table_cell(t, "-", -1);
            else if (isnan(s)) wl_table_cellf(t, -1, "%.4f", m);
            else wl_table_cellf(t, -1, "%.4f ± %.4f", m, s);
        }
        const cJSON *run;
        int shown = 0;
        cJSON_ArrayForEach(run, arr)
        {
            if (shown++ == RESULTS_STEPS_SHOWN) {
                wl_buf_printf(&b, " … (%d runs)", cJSON_GetArraySize(arr));
                break;
            }
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(run, "selected_step");
            wl_buf_printf(&b, "%s%d", b.len ? " " : "", cJSON_IsNumber(st) ? st->valueint : -1);
        }
        wl_table_cell(t, b.s ? b.s : "", -1);
        free(wl_buf_take(&b));
    }
    /* the machine the runtimes were measured on, as comparison.json records it */
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(r->root, "environment"), *e;
    wl_buf eb = {0};
    cJSON_ArrayForEach(e, env)
    {
        wl_buf_printf(&eb, "\n  %-14s ", e->string);
        if (cJSON_IsString(e)) wl_buf_puts(&eb, e->valuestring);
        else if (cJSON_IsBool(e)) wl_buf_puts(&eb, cJSON_IsTrue(e) ? "yes" : "no");
        else if (cJSON_IsNumber(e)) wl_buf_printf(&eb, "%g", e->valuedouble);
        else wl_buf_puts(&eb, "-");
    }
    char *tt = wl_table_text(t), *th = wl_table_html(t), *envs = wl_buf_take(&eb);
    wl_table_free(t);
    wl_buf_printf(&b, "%s%s%s", tt, envs ? "\n\nthe machine the runtimes were measured on:" : "", envs ? envs : "");
    out->text_plain = wl_buf_take(&b);
    wl_buf_puts(&b, th);
    if (envs) {
        wl_buf_puts(&b, "<pre>the machine the runtimes were measured on:");
        wl_buf_html(&b, envs);
        wl_buf_puts(&b, "</pre>");
    }
    out->text_html = wl_buf_take(&b);
    free(tt);
    free(th);
    free(envs);
    char *json = cJSON_PrintUnformatted(r->root);
    if (!json) return wl_fail(err, "out of memory");
    out->app_json = json;
    return 0;
}

static const wl_objtype RESULTS_T = {.name = "comparison", .free = results_free, .render = results_render};

int lang_comparison_load(wl_call *c, const char *where, int word, wl_value **out)
{
    wl_buf b = {0};
    size_t n = strlen(where);
    if (n > 5 && !strcmp(where + n - 5, ".json")) wl_buf_puts(&b, where);
    else wl_buf_printf(&b, "%s/comparison.json", where);
    char *path = wl_buf_take(&b), *text;
    size_t len;
    if (wl_read_file_max(path, WL_COMPARE_FILE_MAX, &text, &len, c->err)) {
        free(path);
        c->errword = word;
        return -1;
    }
    char why[WL_ERR_MAX / 2];
    cJSON *root = wl_corpus_json_parse(text, len, why, sizeof why);
    free(text);
    const cJSON *agg = cJSON_GetObjectItemCaseSensitive(root, "aggregate"), *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    if (!root || !cJSON_IsObject(agg) || !cJSON_IsObject(runs)) {
        if (root) wl_call_fail(c, "RuntimeError", word, "%s is not a comparison.json (it needs \"runs\" and \"aggregate\" objects)", path);
        else wl_call_fail(c, "RuntimeError", word, "%s is %s", path, why);
        cJSON_Delete(root);
        free(path);
        return -1;
    }
    lang_results *r = wl_xcalloc(1, sizeof *r);
    r->root = root;
    r->path = lang_path_shown(c->in, path);
    free(path);
    if (index_results(c, r, agg, runs)) {
        wl_obj_free(&RESULTS_T, r);
        return -1;
    }
    *out = wl_obj(&RESULTS_T, r);
    return 0;
}


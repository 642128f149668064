/* test_code.c: `code`: the regions embedded at build time are the source files' own lines between their markers, every
 * region the command and the lessons name is there, the HTML is highlighted and escaped, the text plain. */
#include "lang_objs.h"
#include "lang_test.h"
#include "wl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file at path (relative to the source tree: $WL_SOURCE_DIR, or where the tests run), malloc'd; NULL when it
 * cannot be read. */
static char *read_all(const char *path)
{
    char full[4096];
    const char *root = getenv("WL_SOURCE_DIR");
    snprintf(full, sizeof full, "%s%s%s", root ? root : "", root ? "/" : "", path);
    FILE *f = fopen(full, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (s) s[n] = 0;
    fclose(f);
    return s;
}

/* Line k (1-based) of s and its length. */
static const char *line_at(const char *s, int k, size_t *len)
{
    for (int i = 1; i < k && s; i++) s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL;
    if (!s) return NULL;
    *len = strchr(s, '\n') ? (size_t)(strchr(s, '\n') - s) : strlen(s);
    return s;
}

/* The regions are the sources on disk: the embedded copy is the file as it is now, and each region's text is the
 * file's lines between its two markers. */
static void test_regions_are_the_sources(void)
{
    int files = 0;
    for (const lang_source_file *f = lang_source_files; f->path; f++, files++) {
        char *disk = read_all(f->path);
        CHECK_MSG(disk != NULL, "cannot read %s", f->path);
        if (disk) CHECK_MSG(!strcmp(disk, f->text), "%s differs from the copy built into wordlab", f->path);
        free(disk);
    }
    CHECK(files == 2);
    lang_code_region r[32];
    int n = lang_code_regions(r, 32);
    /* every region that `code` offers (its subcommands) and that its kinds show */
    const wl_command *cmd = wl_command_find("code");
    CHECK(cmd && cmd->subcommands);
    char names[256];
    snprintf(names, sizeof names, " %s ", cmd ? cmd->subcommands : "");
    int offered = 0;
    for (const char *p = names; *p; p++) offered += *p == ' ' && p[1];
    CHECK_MSG(offered == n, "`code` offers %d regions, the sources mark %d", offered, n);
    for (int i = 0; i < n; i++) {
        char key[40];
        snprintf(key, sizeof key, " %s ", r[i].name);
        CHECK_MSG(strstr(names, key) != NULL, "region %s is not among `code`'s subcommands", r[i].name);
        char *disk = read_all(r[i].file);
        size_t len;
        const char *before = disk ? line_at(disk, r[i].first - 1, &len) : NULL;
        char marker[64];
        snprintf(marker, sizeof marker, "/* @code %s: ", r[i].name);
        CHECK_MSG(before && strstr(before, marker) && strstr(before, marker) < before + len, "%s: no start marker", r[i].name);
        const char *first = disk ? line_at(disk, r[i].first, &len) : NULL;
        CHECK_MSG(first && !strncmp(first, r[i].text, strlen(r[i].text)), "%s: the text is not lines %d.. of %s", r[i].name,
                  r[i].first, r[i].file);
        const char *after = disk ? line_at(disk, r[i].last + 1, &len) : NULL;
        snprintf(marker, sizeof marker, "/* @end %s */", r[i].name);
        CHECK_MSG(after && strstr(after, marker) && strstr(after, marker) < after + len, "%s: no end marker", r[i].name);
        free(disk);
    }
    /* what the lessons point at is in the regions: the embedding, Q/K/V, the split, the mask, the softmax, the head */
    static const struct {
        const char *region, *text;
    } WANT[] = {{"embedding", "pos + (r % (size_t)T) * D"}, {"details", "m->wq"}, {"details", "m->wk"}, {"details", "m->wv"},
                {"details", "m->wo"}, {"details", "m->head_w"}, {"attention", "split the heads"},
                {"attention", "-INFINITY"}, {"attention", "masked_softmax"}, {"softmax", "1.0f / hsum8"},
                {"forward", "WL_KIND_MLP"}, {"final_query", "W_K_h^T q_h"}};
    for (size_t k = 0; k < sizeof WANT / sizeof WANT[0]; k++) {
        int found = 0;
        for (int i = 0; i < n; i++) found |= !strcmp(r[i].name, WANT[k].region) && strstr(r[i].text, WANT[k].text);
        CHECK_MSG(found, "region %s does not hold %s", WANT[k].region, WANT[k].text);
    }
    lang_code_regions_free(r, n);
}

static void test_command(void)
{
    lt_run *r = lt_eval(NULL, "code attention", NULL);
    CHECK_MSG(r->rc == 0, "%s", r->err.evalue);
    const char *t = lt_text(r), *h = r->result.text_html ? r->result.text_html : "";
    CHECK_MSG(strstr(t, "runtime/nn/wl_layers.c, lines ") && strstr(t, " │ void wl_attention_full_forward("), "%s", t);
    CHECK(strstr(t, "<span") == NULL);
    CHECK(strstr(h, "<span class=\"k\"") && strstr(h, ">for</span>") && strstr(h, "<span class=\"c\"") &&
          strstr(h, "<span class=\"n\"") && strstr(h, ">1.0f</span>") && strstr(h, ">float</span>"));
    CHECK(strstr(h, "-&gt;") != NULL || strstr(h, "&lt;") != NULL);   /* escaped */
    CHECK(strstr(h, "var(--jp-mirror-editor-keyword-color,") && strstr(h, "var(--jp-cell-editor-background,"));
    lt_free(r);
    r = lt_eval(NULL, "c = code kind=multihead\nprint $c.names", NULL);
    CHECK_MSG(r->rc == 0 && strstr(r->out, "[\"details\", \"embedding\", \"linear\", \"attention\", \"softmax\", \"forward\", \"final_query\"]"), "%s", r->out);
    lt_free(r);
    r = lt_eval(NULL, "code kind=mlp", NULL);
    CHECK(r->rc == 0 && strstr(lt_text(r), ": forward (") && !strstr(lt_text(r), ": attention ("));
    lt_free(r);
    r = lt_eval(NULL, "code atention", NULL);
    CHECK_MSG(r->rc != 0 && strstr(r->err.evalue, "attention"), "%s", r->err.evalue);
    lt_free(r);
    r = lt_eval(NULL, "code kind=rnn", NULL);
    CHECK(r->rc != 0 && strstr(r->err.evalue, "mlp, attention or multihead"));
    lt_free(r);
    r = lt_eval(NULL, "code", NULL);
    CHECK(r->rc == 0 && strstr(lt_text(r), "final_query") && strstr(lt_text(r), "runtime/nn/wl_model.c:"));
    lt_free(r);
}

void wl_test_main(void)
{
    test_regions_are_the_sources();
    test_command();
}

/* cli_notebook.c: `wordlab notebook LESSON.wlab -o NOTEBOOK.ipynb`: runs a lesson and writes it as a Jupyter notebook with its outputs.
 *
 * The lesson format (.wlab) is a plain wordlab script, so `wordlab run LESSON.wlab` executes it:
 * the language ignores comments, and cells are marked by comment lines.
 *
 *     #%% markdown            starts a markdown cell; each of its lines is "# TEXT" (the cell
 *     # # A title             gets TEXT) or a lone "#" (an empty line)
 *     # Some *markdown* text.
 *     #
 *     #%%                     starts a command cell: the lines up to the next marker, as written
 *     stories = corpus profile=smoke
 *
 * Anything after "#%%" other than "markdown" is an error, and so is a markdown line that does not
 * start with '#', or anything but blank lines before the first marker. Blank lines at the start and
 * end of a cell are dropped. A lesson must have at least one cell.
 *
 * The notebook is nbformat 4.5 with the wordlab kernel spec and language_info, a deterministic
 * id per cell (a hash of its type and source; repeats get -2, -3, ...), and the outputs of running
 * every command cell in order in one interpreter, as the kernel would show them: stream text,
 * display_data (updates of a display replace it), the cell's value as execute_result with its
 * execution_count. A cell that fails stops the build with FILE:LINE and writes nothing, and so does an
 * output that does not end in .ipynb or is the lesson file itself. The file
 * is written atomically, in Jupyter's own layout (sorted keys, one-space indent), so that a notebook
 * rebuilt from an unchanged lesson differs only where outputs changed. */
#include "cli.h"
#include "kernel_json.h"
#include "wl_buf.h"
#include "wl_utf8.h"
#include "wl_lang.h"

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define NB_MARK "#%%"

typedef struct nb_cell {
    int markdown;
    int line;          /* 1-based line of the cell's first source line in the lesson */
    char *src;         /* the cell's source, without the trailing newline */
} nb_cell;

typedef struct nb_lesson {
    nb_cell *cells;
    int n;
} nb_lesson;

static volatile sig_atomic_t g_nb_interrupt;

static void nb_on_sigint(int sig)
{
    (void)sig;
    g_nb_interrupt = 1;
}

static void lesson_free(nb_lesson *l)
{
    for (int i = 0; i < l->n; i++) free(l->cells[i].src);
    free(l->cells);
}

/* Appends the lines [from, to) of a cell (already stripped of markdown prefixes) as one cell. */
static void add_cell(nb_lesson *l, int markdown, int marker_line, char **lines, int *lineno, int from, int to)
{
    while (from < to && !lines[from][0]) from++;
    while (to > from && !lines[to - 1][0]) to--;
    wl_buf src = {0};
    for (int i = from; i < to; i++) {
        wl_buf_puts(&src, lines[i]);
        if (i + 1 < to) wl_buf_put(&src, "\n", 1);
    }
    l->cells = wl_xrealloc(l->cells, (size_t)(l->n + 1) * sizeof *l->cells);
    l->cells[l->n++] = (nb_cell){.markdown = markdown, .line = from < to ? lineno[from] : marker_line + 1,
                                 .src = wl_buf_take(&src)};
}

/* Splits a lesson into cells. Returns 0, or -1 with a "PATH:LINE: ..." message in err. */
static int lesson_parse(const char *path, char *text, nb_lesson *l, char *err, size_t errcap)
{
    memset(l, 0, sizeof *l);
    int cap = 16, n = 0;
    char **lines = wl_xmalloc((size_t)cap * sizeof *lines);
    int *lineno = wl_xmalloc((size_t)cap * sizeof *lineno);
    int markdown = -1, start = 0, rc = 0;   /* markdown: -1 before the first marker */
    int ln = 0, marker = 0;   /* marker: the line of the current cell's marker */
    char *p = text;
    if (!strncmp(p, WL_UTF8_BOM, 3)) p += 3;   /* an editor's UTF-8 byte-order mark is not part of the lesson */
    for (; *p && !rc; ln++) {
        char *nl = strchr(p, '\n'), *line = p;
        if (nl) *nl = 0;
        p = nl ? nl + 1 : p + strlen(p);
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r') line[--len] = 0;
        if (!strncmp(line, NB_MARK, 3)) {
            const char *kind = line + 3;
            while (*kind == ' ') kind++;
            if (*kind && strcmp(kind, "markdown")) {
                snprintf(err, errcap, "%s:%d: unknown cell marker '%s' (use '#%%%%' or '#%%%% markdown')", path, ln + 1, line);
                rc = -1;
                break;
            }
            if (markdown >= 0) add_cell(l, markdown, marker, lines, lineno, start, n);
            markdown = *kind != 0;
            marker = ln + 1;
            start = n;
            continue;
        }
        if (markdown < 0) {
            if (strspn(line, " \t") == len) continue;
            snprintf(err, errcap, "%s:%d: a lesson starts with a cell marker ('#%%%% markdown' or '#%%%%')", path, ln + 1);
            rc = -1;
            break;
        }
        if (markdown) {
            if (line[0] != '#' || (line[1] && line[1] != ' ')) {
                snprintf(err, errcap, "%s:%d: a markdown line starts with '# ' (or is a lone '#')", path, ln + 1);
                rc = -1;
                break;
            }
            line += line[1] ? 2 : 1;
        }
        if (n == cap) {
            cap *= 2;
            lines = wl_xrealloc(lines, (size_t)cap * sizeof *lines);
            lineno = wl_xrealloc(lineno, (size_t)cap * sizeof *lineno);
        }
        lines[n] = line;
        lineno[n++] = ln + 1;
    }
    if (!rc && markdown < 0) {
        snprintf(err, errcap, "%s: no cells (a lesson starts with '#%%%% markdown' or '#%%%%')", path);
        rc = -1;
    }
    if (!rc) add_cell(l, markdown, marker, lines, lineno, start, n);
    free(lines);
    free(lineno);
    if (rc) lesson_free(l);
    return rc;
}

/* ---- nbformat pieces ---- */

/* A multiline string as Jupyter stores it: a list of lines, each but the last keeping its "\n". */
static cJSON *nb_lines(const char *s, size_t n)
{
    char *t = wl_utf8_clean(s, n);
    if (!t) abort();
    cJSON *a = cJSON_CreateArray();
    for (char *p = t; *p;) {
        char *nl = strchr(p, '\n');
        size_t k = nl ? (size_t)(nl - p) + 1 : strlen(p);
        char save = p[k];
        p[k] = 0;
        cJSON_AddItemToArray(a, cJSON_CreateString(p));
        p[k] = save;
        p += k;
    }
    free(t);
    return a;
}

/* A MIME bundle as a notebook stores it: the kernel's "data" object, each of its strings as a list of lines. */
static cJSON *nb_mime(const wl_mime *m)
{
    cJSON *d = wl_json_mime(m);
    for (cJSON *v = d->child, *next; v; v = next) {
        next = v->next;
        if (cJSON_IsString(v))
            cJSON_ReplaceItemInObjectCaseSensitive(d, v->string, nb_lines(v->valuestring, strlen(v->valuestring)));
    }
    return d;
}

/* ---- the sink that records one cell's outputs ---- */

typedef struct nb_out {
    cJSON *outputs;          /* the cell's "outputs" array */
    char **ids;              /* display_id of each output (NULL: none), parallel to outputs */
    int nids, capids;
    int clear_pending;       /* clear [wait=1]: clear when the next output arrives */
} nb_out;

static void out_clear(nb_out *o)
{
    while (cJSON_GetArraySize(o->outputs)) cJSON_DeleteItemFromArray(o->outputs, 0);
    for (int i = 0; i < o->nids; i++) free(o->ids[i]);
    o->nids = 0;
    o->clear_pending = 0;
}

static void out_push(nb_out *o, cJSON *item, const char *display_id)
{
    if (o->clear_pending) out_clear(o);
    cJSON_AddItemToArray(o->outputs, item);
    if (o->nids == o->capids) {
        o->capids = o->capids ? 2 * o->capids : 8;
        o->ids = wl_xrealloc(o->ids, (size_t)o->capids * sizeof *o->ids);
    }
    o->ids[o->nids++] = display_id ? wl_xstrdup(display_id) : NULL;
}

static void nb_write(void *ud, const char *stream, const char *raw, size_t n)
{
    nb_out *o = ud;
    if (!n) return;
    char *s = wl_utf8_visible(raw, n);   /* as the kernel streams it: JupyterLab reads ANSI codes in stream text */
    if (!s) abort();
    n = strlen(s);
    const char *name = stream && !strcmp(stream, "stderr") ? "stderr" : "stdout";
    int last = cJSON_GetArraySize(o->outputs) - 1;
    cJSON *prev = last >= 0 && !o->clear_pending ? cJSON_GetArrayItem(o->outputs, last) : NULL;
    if (prev && !strcmp(cJSON_GetObjectItem(prev, "output_type")->valuestring, "stream") &&
        !strcmp(cJSON_GetObjectItem(prev, "name")->valuestring, name)) {
        /* the same stream continues: join the text, then split it into lines again */
        wl_buf all = {0};
        for (cJSON *l = cJSON_GetObjectItem(prev, "text")->child; l; l = l->next) wl_buf_puts(&all, l->valuestring);
        wl_buf_put(&all, s, n);
        cJSON_ReplaceItemInObject(prev, "text", nb_lines(all.s, all.len));
        free(all.s);
        free(s);
        return;
    }
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "name", name);
    cJSON_AddStringToObject(item, "output_type", "stream");
    cJSON_AddItemToObject(item, "text", nb_lines(s, n));
    free(s);
    out_push(o, item, NULL);
}

static void nb_display(void *ud, const char *display_id, const wl_mime *m, int update)
{
    nb_out *o = ud;
    if (!m) return;
    if (update) {
        /* update_display_data: replaces the data of every output with that display id */
        if (!display_id) return;
        for (int i = 0; i < o->nids; i++)
            if (o->ids[i] && !strcmp(o->ids[i], display_id))
                cJSON_ReplaceItemInObject(cJSON_GetArrayItem(o->outputs, i), "data", nb_mime(m));
        return;
    }
    cJSON *item = cJSON_CreateObject();
    cJSON_AddItemToObject(item, "data", nb_mime(m));
    cJSON_AddObjectToObject(item, "metadata");
    cJSON_AddStringToObject(item, "output_type", "display_data");
    out_push(o, item, display_id);
}

static void nb_clear(void *ud, int wait)
{
    nb_out *o = ud;
    if (wait) o->clear_pending = 1;
    else out_clear(o);
}

/* ---- writing JSON as nbformat does (sorted keys, indent 1, UTF-8 kept) ---- */

static int key_cmp(const void *a, const void *b)
{
    return strcmp((*(cJSON *const *)a)->string, (*(cJSON *const *)b)->string);
}

static void json_put(FILE *f, const cJSON *j, int depth)
{
    int isobj = cJSON_IsObject(j);
    if (!isobj && !cJSON_IsArray(j)) {
        char *s = cJSON_PrintUnformatted(j);
        if (!s) abort();
        fputs(s, f);
        free(s);
        return;
    }
    int n = cJSON_GetArraySize(j);
    if (!n) {
        fputs(isobj ? "{}" : "[]", f);
        return;
    }
    cJSON **items = wl_xmalloc((size_t)n * sizeof *items);
    int k = 0;
    for (cJSON *c = j->child; c; c = c->next) items[k++] = c;
    if (isobj) qsort(items, (size_t)n, sizeof *items, key_cmp);
    fputs(isobj ? "{\n" : "[\n", f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%*s", depth + 1, "");
        if (isobj) {
            cJSON *key = cJSON_CreateString(items[i]->string);
            json_put(f, key, 0);
            cJSON_Delete(key);
            fputs(": ", f);
        }
        json_put(f, items[i], depth + 1);
        fputs(i + 1 < n ? ",\n" : "\n", f);
    }
    fprintf(f, "%*s%s", depth, "", isobj ? "}" : "]");
    free(items);
}

/* The cell's id: 12 hex digits of FNV-1a over its type and source, then -2, -3... for repeats. */
static void cell_id(const nb_cell *c, cJSON *seen, char out[32])
{
    uint64_t h = 1469598103934665603ULL;
    const char *t = c->markdown ? "markdown\n" : "code\n";
    for (int pass = 0; pass < 2; pass++)
        for (const unsigned char *p = (const unsigned char *)(pass ? c->src : t); *p; p++) h = (h ^ *p) * 1099511628211ULL;
    char base[20];
    snprintf(base, sizeof base, "%012llx", (unsigned long long)(h >> 16));
    snprintf(out, 32, "%s", base);
    for (int k = 2; cJSON_GetObjectItemCaseSensitive(seen, out); k++) snprintf(out, 32, "%s-%d", base, k);
    cJSON_AddTrueToObject(seen, out);
}

static cJSON *nb_metadata(const char *lesson_path)
{
    cJSON *md = cJSON_CreateObject();
    cJSON *ks = cJSON_AddObjectToObject(md, "kernelspec");
    cJSON_AddStringToObject(ks, "display_name", "wordlab");
    cJSON_AddStringToObject(ks, "language", "wordlab");
    cJSON_AddStringToObject(ks, "name", "wordlab");
    cJSON *li = cJSON_AddObjectToObject(md, "language_info");
    cJSON_AddStringToObject(li, "codemirror_mode", "wordlab"); /* the language of lab/src/language.ts */
    cJSON_AddStringToObject(li, "file_extension", ".wlab");
    cJSON_AddStringToObject(li, "mimetype", "text/x-wordlab");
    cJSON_AddStringToObject(li, "name", "wordlab");
    cJSON_AddStringToObject(li, "nbconvert_exporter", "script");
    cJSON_AddStringToObject(li, "pygments_lexer", "bash");
    cJSON_AddStringToObject(li, "version", WL_VERSION);
    const char *base = strrchr(lesson_path, '/');
    cJSON_AddStringToObject(cJSON_AddObjectToObject(md, "wordlab"), "lesson", base ? base + 1 : lesson_path);
    return md;
}

/* Runs the command cells and builds the notebook. Returns NULL after printing the failing cell's error. */
static cJSON *nb_build(const char *path, const nb_lesson *l)
{
    wl_interp_opts opts = cli_interp_opts();
    wl_interp *in = wl_interp_new(&opts);
    if (!in) {
        fprintf(stderr, "wordlab notebook: out of memory\n");
        return NULL;
    }
    cJSON *nb = cJSON_CreateObject(), *cells = cJSON_AddArrayToObject(nb, "cells"), *seen = cJSON_CreateObject();
    int count = 0, failed = 0;
    for (int i = 0; i < l->n && !failed; i++) {
        const nb_cell *c = &l->cells[i];
        cJSON *cell = cJSON_CreateObject();
        char id[32];
        cell_id(c, seen, id);
        cJSON_AddStringToObject(cell, "cell_type", c->markdown ? "markdown" : "code");
        cJSON_AddStringToObject(cell, "id", id);
        cJSON_AddObjectToObject(cell, "metadata");
        cJSON_AddItemToObject(cell, "source", nb_lines(c->src, strlen(c->src)));
        cJSON_AddItemToArray(cells, cell);
        if (c->markdown) continue;
        nb_out o = {.outputs = cJSON_AddArrayToObject(cell, "outputs")};
        wl_sink sink = {.ud = &o, .write = nb_write, .display = nb_display, .clear = nb_clear,
                        .interrupt = &g_nb_interrupt};
        wl_mime result = {0};
        wl_lang_error err = {0};
        cJSON_AddNumberToObject(cell, "execution_count", ++count);
        fprintf(stderr, "[%d] %s:%d\n", count, path, c->line);
        if (wl_interp_eval(in, c->src, path, c->line, &sink, &result, &err)) {
            fprintf(stderr, "wordlab notebook: the cell at %s:%d failed:\n", path, c->line);
            for (int k = 0; k < err.ntraceback; k++) fprintf(stderr, "%s\n", err.traceback[k]);
            wl_lang_error_clear(&err);
            failed = 1;
        } else if (result.text_plain) {
            cJSON *item = cJSON_CreateObject();
            cJSON_AddItemToObject(item, "data", nb_mime(&result));
            cJSON_AddNumberToObject(item, "execution_count", count);
            cJSON_AddObjectToObject(item, "metadata");
            cJSON_AddStringToObject(item, "output_type", "execute_result");
            out_push(&o, item, NULL);
        }
        if (o.clear_pending) out_clear(&o);
        wl_mime_free(&result);
        for (int k = 0; k < o.nids; k++) free(o.ids[k]);
        free(o.ids);
    }
    cJSON_Delete(seen);
    wl_interp_free(in);
    if (failed) {
        cJSON_Delete(nb);
        return NULL;
    }
    cJSON_AddItemToObject(nb, "metadata", nb_metadata(path));
    cJSON_AddNumberToObject(nb, "nbformat", 4);
    cJSON_AddNumberToObject(nb, "nbformat_minor", 5);
    return nb;
}

static int notebook_usage(void)
{
    fprintf(stderr, "usage: wordlab notebook LESSON.wlab -o NOTEBOOK.ipynb\n"
                    "  runs every command cell of the lesson and writes the notebook with its outputs\n");
    return 2;
}

/* Refuses an output that would overwrite the lesson: one whose name does not end in .ipynb (a slip of
 * tab completion to LESSON.wlab), or that is the lesson file itself under another name (same inode).
 * Returns 0, or 1 after saying why; nothing is written either way. */
static int notebook_check_output(const char *in_path, const char *out_path)
{
    const char *name = strrchr(out_path, '/') ? strrchr(out_path, '/') + 1 : out_path;
    size_t n = strlen(name);
    if (n <= strlen(".ipynb") || strcmp(name + n - strlen(".ipynb"), ".ipynb")) {
        fprintf(stderr, "wordlab notebook: the output %s does not end in .ipynb; nothing written "
                        "(the notebook goes to a file of its own, e.g. -o NAME.ipynb)\n", out_path);
        return 1;
    }
    struct stat in, out;
    if (!stat(in_path, &in) && !stat(out_path, &out) && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
        fprintf(stderr, "wordlab notebook: the output %s is the lesson %s itself; nothing written "
                        "(the notebook goes to a file of its own)\n", out_path, in_path);
        return 1;
    }
    return 0;
}

int cli_notebook(int argc, char **argv)
{
    const char *in_path = NULL, *out_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) out_path = argv[++i];
        else if (argv[i][0] != '-' && !in_path) in_path = argv[i];
        else return notebook_usage();
    }
    if (!in_path || !out_path) return notebook_usage();
    if (notebook_check_output(in_path, out_path)) return 1;
    char *text;
    size_t len;
    wl_err err;
    if (wl_read_file(in_path, &text, &len, &err)) {
        fprintf(stderr, "wordlab notebook: %s\n", err.msg);
        return 1;
    }
    nb_lesson l;
    char msg[1024];
    if (lesson_parse(in_path, text, &l, msg, sizeof msg)) {
        fprintf(stderr, "wordlab notebook: %s\n", msg);
        free(text);
        return 1;
    }
    struct sigaction sa = {.sa_handler = nb_on_sigint};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cJSON *nb = nb_build(in_path, &l);
    lesson_free(&l);
    free(text);
    if (!nb) return 1;
    char *doc = NULL;
    size_t doclen = 0;
    FILE *f = open_memstream(&doc, &doclen);
    if (!f) abort();
    json_put(f, nb, 0);
    fputc('\n', f);
    fclose(f);
    cJSON_Delete(nb);
    int rc = wl_write_atomic(out_path, doc, doclen, &err);
    free(doc);
    if (rc) {
        fprintf(stderr, "wordlab notebook: %s\n", err.msg);
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(stderr, "wordlab notebook: wrote %s (%.1f s)\n", out_path,
            (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    return 0;
}

/* lang_code.c: the code value: the marked regions of the model's own C sources (embedded at build time), highlighted. */
#include "lang_objs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of line s (up to its newline or the end). */
static size_t line_len(const char *s)
{
    const char *e = strchr(s, '\n');
    return e ? (size_t)(e - s) : strlen(s);
}

/* s without leading blanks, if it starts with prefix: what follows prefix, else NULL. */
static const char *after(const char *s, size_t n, const char *prefix)
{
    while (n && (*s == ' ' || *s == '\t')) s++, n--;
    size_t k = strlen(prefix);
    return n >= k && !strncmp(s, prefix, k) ? s + k : NULL;
}

/* Reads the region that starts at marker line m (line number at) of file f into r; 0, or -1 without its end marker. */
static int read_region(const lang_source_file *f, const char *m, int at, lang_code_region *r)
{
    size_t n = line_len(m);
    const char *p = after(m, n, "/* @code "), *colon = memchr(p, ':', n - (size_t)(p - m)), *close = strstr(p, " */");
    if (!colon || !close || close > m + n) return -1;
    memset(r, 0, sizeof *r);
    r->file = f->path;
    snprintf(r->name, sizeof r->name, "%.*s", (int)(colon - p), p);
    snprintf(r->title, sizeof r->title, "%.*s", (int)(close - colon - 2), colon + 2);
    char end[64];
    snprintf(end, sizeof end, "/* @end %s */", r->name);
    r->first = at + 1;
    const char *s = m + n + (m[n] == '\n');
    for (int line = at + 1; *s; line++) {
        size_t k = line_len(s);
        const char *e = after(s, k, end);
        if (e && (size_t)(e - s) == k) {
            r->last = line - 1;
            r->text = wl_xstrndup(m + n + 1, (size_t)(s - (m + n + 1)));
            return 0;
        }
        s += k + (s[k] == '\n');
    }
    return -1;
}

int lang_code_regions(lang_code_region *out, int max)
{
    int n = 0;
    for (const lang_source_file *f = lang_source_files; f->path; f++) {
        int line = 1;
        for (const char *s = f->text; *s && n < max; line++) {
            size_t k = line_len(s);
            if (after(s, k, "/* @code ") && !read_region(f, s, line, &out[n])) n++;
            s += k + (s[k] == '\n');
        }
    }
    return n;
}

void lang_code_regions_free(lang_code_region *r, int n)
{
    for (int i = 0; i < n; i++) free(r[i].text);
}

/* ---- the highlighter: C keywords, types, comments, strings, numbers ---- */

static const char *const KEYWORDS[] = {"if", "else", "for", "while", "do", "return", "break", "continue", "static",
                                       "inline", "const", "sizeof", "struct", "typedef", "switch", "case", NULL};
static const char *const TYPES[] = {"void", "int", "float", "double", "char", "size_t", "int32_t", "int64_t", "unsigned",
                                    "long", "v8", "v8i", "v16", "step", "wl_model", "wl_model_ws", "wl_par", NULL};

static int in_list(const char *const *l, const char *s, size_t n)
{
    for (; *l; l++)
        if (strlen(*l) == n && !strncmp(*l, s, n)) return 1;
    return 0;
}

static int ident_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

static void span(wl_buf *b, const char *cls, const char *style, const char *s, size_t n)
{
    char *t = wl_xstrndup(s, n);
    wl_buf_printf(b, "<span class=\"%s\" style=\"%s\">", cls, style);
    wl_buf_html(b, t);
    wl_buf_puts(b, "</span>");
    free(t);
}

#define CODE_COMMENT "color:var(--jp-mirror-editor-comment-color,#3d7a7a);font-style:italic"
#define CODE_KEYWORD "color:var(--jp-mirror-editor-keyword-color,#007000);font-weight:bold"
#define CODE_TYPE "color:var(--jp-mirror-editor-variable-3-color,#00755a)"
#define CODE_NUMBER "color:var(--jp-mirror-editor-number-color,#007000)"
#define CODE_STRING "color:var(--jp-mirror-editor-string-color,#ba2121)"

/* Appends line s [n] highlighted; *comment carries an open block comment from line to line. */
static void highlight_line(wl_buf *b, const char *s, size_t n, int *comment)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        if (*comment || (s[i] == '/' && i + 1 < n && s[i + 1] == '*')) {
            const char *e = NULL;
            for (size_t k = *comment ? i : i + 2; k + 1 < n && !e; k++)
                if (s[k] == '*' && s[k + 1] == '/') e = s + k + 2;
            j = e ? (size_t)(e - s) : n;
            *comment = !e;
            span(b, "c", CODE_COMMENT, s + i, j - i);
        } else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
            j = n;
            span(b, "c", CODE_COMMENT, s + i, j - i);
        } else if (s[i] == '"' || s[i] == '\'') {
            for (j = i + 1; j < n && s[j] != s[i]; j++)
                if (s[j] == '\\') j++;
            j = j < n ? j + 1 : n;
            span(b, "s", CODE_STRING, s + i, j - i);
        } else if (s[i] >= '0' && s[i] <= '9') {
            while (j < n && (ident_char(s[j]) || s[j] == '.')) j++;
            span(b, "n", CODE_NUMBER, s + i, j - i);
        } else if (ident_char(s[i])) {
            while (j < n && ident_char(s[j])) j++;
            if (in_list(KEYWORDS, s + i, j - i)) span(b, "k", CODE_KEYWORD, s + i, j - i);
            else if (in_list(TYPES, s + i, j - i)) span(b, "t", CODE_TYPE, s + i, j - i);
            else wl_buf_put(b, s + i, j - i);
        } else {
            j = i + 1;
            char one[2] = {s[i], 0};
            wl_buf_html(b, one);
        }
        i = j;
    }
}

/* The indentation every non-blank line of text shares. */
static size_t common_indent(const char *text)
{
    size_t best = (size_t)-1;
    for (const char *s = text; *s;) {
        size_t k = line_len(s), w = 0;
        while (w < k && s[w] == ' ') w++;
        if (w < k && w < best) best = w;
        s += k + (s[k] == '\n');
    }
    return best == (size_t)-1 ? 0 : best;
}

/* Appends region r: text (numbered lines) and HTML (highlighted, in a box of the theme's editor colours). */
static void render_region(const lang_code_region *r, wl_buf *t, wl_buf *h)
{
    wl_buf_printf(t, "%s, lines %d–%d: %s (%s)\n", r->file, r->first, r->last, r->name, r->title);
    wl_buf_puts(h, "<div class=\"wordlab-code\" style=\"margin:0 0 1em 0\"><div style=\"color:" WL_CSS_FG "\"><b>");
    wl_buf_html(h, r->name);
    wl_buf_puts(h, "</b>: ");
    wl_buf_html(h, r->title);
    wl_buf_printf(h, " <small>(%s, lines %d–%d)</small></div><pre style=\"margin:4px 0;padding:6px 8px;overflow-x:auto;white-space:pre;"
                     "background:var(--jp-cell-editor-background,#f5f5f5);color:var(--jp-content-font-color1,#000);"
                     "border:1px solid " WL_CSS_GRID ";line-height:1.35\">", r->file, r->first, r->last);
    size_t indent = common_indent(r->text);
    int comment = 0, line = r->first;
    for (const char *s = r->text; *s; line++) {
        size_t k = line_len(s), skip = k < indent ? k : indent;
        wl_buf_printf(t, "%5d │ %.*s\n", line, (int)(k - skip), s + skip);
        wl_buf_printf(h, "<span class=\"ln\" style=\"color:var(--jp-ui-font-color2,#6e6e6e);user-select:none\">%5d </span>", line);
        highlight_line(h, s + skip, k - skip, &comment);
        wl_buf_put(h, "\n", 1);
        s += k + (s[k] == '\n');
    }
    wl_buf_puts(h, "</pre></div>");
}

typedef struct lang_code {
    lang_code_region *r;
    int n;
    int listing;   /* the table of regions instead of their code */
} lang_code;

static void code_free(void *d)
{
    lang_code *c = d;
    lang_code_regions_free(c->r, c->n);
    free(c->r);
}

/* {"type":"code","regions":[{name, file, first_line, last_line, title, and text unless c is the listing}]} */
static char *code_json(const lang_code *c)
{
    wl_buf j = {0};
    wl_buf_puts(&j, "{\"type\":\"code\",\"regions\":[");
    for (int i = 0; i < c->n; i++) {
        wl_buf_puts(&j, i ? ",{\"name\":" : "{\"name\":");
        wl_buf_json_str(&j, c->r[i].name);
        wl_buf_puts(&j, ",\"file\":");
        wl_buf_json_str(&j, c->r[i].file);
        wl_buf_printf(&j, ",\"first_line\":%d,\"last_line\":%d,\"title\":", c->r[i].first, c->r[i].last);
        wl_buf_json_str(&j, c->r[i].title);
        if (!c->listing) {
            wl_buf_puts(&j, ",\"text\":");
            wl_buf_json_str(&j, c->r[i].text);
        }
        wl_buf_put(&j, "}", 1);
    }
    wl_buf_puts(&j, "]}");
    return wl_buf_take(&j);
}

static int code_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_code *c = d;
    out->app_json = code_json(c);
    if (c->listing) {
        wl_table *t = wl_table_new(3);
        wl_table_title(t, "the model's C sources that `code NAME` shows");
        wl_table_header_rows(t, 1);
        wl_table_cell(t, "name", -1);
        wl_table_cell(t, "where", -1);
        wl_table_cell(t, "what", -1);
        for (int i = 0; i < c->n; i++) {
            wl_table_cell(t, c->r[i].name, -1);
            wl_table_cellf(t, -1, "%s:%d–%d", c->r[i].file, c->r[i].first, c->r[i].last);
            wl_table_cell(t, c->r[i].title, -1);
        }
        out->text_plain = wl_table_text(t);
        out->text_html = wl_table_html(t);
        wl_table_free(t);
        return 0;
    }
    wl_buf t = {0}, h = {0};
    for (int i = 0; i < c->n; i++) {
        if (i) wl_buf_put(&t, "\n", 1);
        render_region(&c->r[i], &t, &h);
    }
    if (t.len && t.s[t.len - 1] == '\n') t.s[--t.len] = 0;
    out->text_plain = wl_buf_take(&t);
    out->text_html = wl_buf_take(&h);
    return 0;
}

static int code_one(const void *data) { return ((const lang_code *)data)->n == 1; }
static wl_value *code_text(wl_value *self, wl_err *err)
{
    (void)err;
    return wl_str(((const lang_code *)self->data)->r[0].text);
}
static wl_value *code_names(wl_value *self, wl_err *err)
{
    (void)err;
    const lang_code *c = self->data;
    wl_value *l = wl_list();
    for (int i = 0; i < c->n; i++) wl_list_push(l, wl_str(c->r[i].name));
    return l;
}

/* The JSON gives every region whole instead: its name, file, lines and text. */
static const wl_field CODE_FIELDS[] = {
    {.name = "names", .get = code_names, .about = "the regions shown", .no_json = 1},
    {.name = "text", .get = code_text, .has = code_one, .about = "the code of one region", .no_json = 1},
    {0},
};

const wl_objtype lang_code_type = {.name = "code", .fields = CODE_FIELDS, .free = code_free, .render = code_render,
                                   .json_only = "regions"};

wl_value *lang_code_value(lang_code_region *r, int n, int listing)
{
    lang_code *c = wl_xcalloc(1, sizeof *c);
    c->r = r;
    c->n = n;
    c->listing = listing;
    return wl_obj(&lang_code_type, c);
}

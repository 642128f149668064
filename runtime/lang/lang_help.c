/* lang_help.c: the help page value (text as written for a terminal; HTML that reflows to a notebook's width) and the
 * page of one command. */
#include "lang_int.h"
#include "lang_objs.h"

#include <stdlib.h>
#include <string.h>

typedef struct help_page {
    char *text;           /* malloc'd, owned */
    char *html;           /* malloc'd, owned */
} help_page;

static int help_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const help_page *h = d;
    out->text_plain = wl_xstrdup(h->text);
    out->text_html = wl_xstrdup(h->html);
    return 0;
}

static const wl_owned HELP_OWNS[] = {WL_OWNS(help_page, text), WL_OWNS(help_page, html), {0}};
static const wl_objtype HELP_T = {.name = "help page", .owns = HELP_OWNS, .render = help_render};

/* ---- text as HTML that reflows ---- */

/* s [n] HTML-escaped, with `quoted` spans as <code>. */
static void html_span(wl_buf *b, const char *s, size_t n)
{
    char *t = wl_xstrndup(s, n), *p = t;
    for (char *q; (q = strchr(p, '`')) && strchr(q + 1, '`');) {
        char *e = strchr(q + 1, '`');
        *q = *e = 0;
        wl_buf_html(b, p);
        wl_buf_puts(b, "<code>");
        wl_buf_html(b, q + 1);
        wl_buf_puts(b, "</code>");
        p = e + 1;
    }
    wl_buf_html(b, p);
    free(t);
}

static size_t indent_of(const char *line, size_t n)
{
    size_t k = 0;
    while (k < n && line[k] == ' ') k++;
    return k;
}

/* Where a gap of 3 or more spaces after text splits a line into a term and its description (0: none). */
static size_t gap_at(const char *line, size_t n)
{
    size_t k = indent_of(line, n);
    for (; k + 3 <= n; k++)
        if (!memcmp(line + k, "   ", 3)) return k;
    return 0;
}

typedef enum { IN_NONE, IN_PARA, IN_DEFS, IN_CODE } help_block;

static void close_block(wl_buf *b, help_block *in)
{
    static const char *const end[] = {"", "</p>", "</td></tr></table>", "</pre>"};
    wl_buf_puts(b, end[*in]);
    *in = IN_NONE;
}

/* Text laid out for a terminal as HTML that wraps to the page: lines of a paragraph are joined; a blank line ends it;
 * "Fields:" starts a paragraph of its own; a line with a gap of 3+ spaces is a term and its description (a table
 * row), and lines indented 4+ more than the text continue that description (a line they follow is a term, unless it
 * ends a sentence with . or :); other lines indented 4+ are code, kept as they are. */
static void help_html(wl_buf *b, const char *text)
{
    help_block in = IN_NONE;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *next = nl ? nl + 1 : p + n;
        size_t nn = strcspn(next, "\n");
        size_t ind = indent_of(p, n), gap = gap_at(p, n);
        int blank = ind == n, deeper = !blank && ind >= 4;
        int term_next = !blank && !deeper && !strchr(".:", p[n - 1]) && nn > indent_of(next, nn) &&
                        indent_of(next, nn) >= ind + 4;   /* a term whose description follows, indented */
        if (blank) {
            close_block(b, &in);
        } else if (deeper && in == IN_DEFS) {           /* the description of the term above goes on */
            if (b->s[b->len - 1] != '>') wl_buf_put(b, " ", 1);
            html_span(b, p + ind, n - ind);
        } else if (deeper) {
            if (in != IN_CODE) {
                close_block(b, &in);
                wl_buf_puts(b, "<pre class=\"wordlab-help-code\">");
                in = IN_CODE;
            } else {
                wl_buf_put(b, "\n", 1);
            }
            char *code = wl_xstrndup(p + 4, n - 4);
            wl_buf_html(b, code);
            free(code);
        } else if (gap || term_next) {
            if (in != IN_DEFS) {
                close_block(b, &in);
                wl_buf_puts(b, "<table class=\"wordlab-help-terms\"><tr><td><code>");
                in = IN_DEFS;
            } else {
                wl_buf_puts(b, "</td></tr><tr><td><code>");
            }
            size_t tend = gap ? gap : n, d = gap;
            while (d < n && p[d] == ' ') d++;
            char *term = wl_xstrndup(p + ind, tend - ind);
            wl_buf_html(b, term);
            free(term);
            wl_buf_puts(b, "</code></td><td>");
            if (gap) html_span(b, p + d, n - d);
        } else if (!strncmp(p + ind, "Fields:", 7) || in != IN_PARA) {
            close_block(b, &in);
            wl_buf_puts(b, "<p>");
            html_span(b, p + ind, n - ind);
            in = IN_PARA;
        } else {
            wl_buf_put(b, " ", 1);
            html_span(b, p + ind, n - ind);
        }
        p = next;
    }
    close_block(b, &in);
}

wl_value *lang_help_value(char *text)
{
    help_page *h = wl_xcalloc(1, sizeof *h);
    h->text = text;
    wl_buf b = {0};
    wl_buf_puts(&b, "<div class=\"wordlab-help\">");
    help_html(&b, text);
    wl_buf_puts(&b, "</div>");
    h->html = wl_buf_take(&b);
    return wl_obj(&HELP_T, h);
}

/* Appends each line of text after pad (empty lines stay empty), each ended by a newline. */
static void indent(wl_buf *b, const char *text, const char *pad)
{
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n) wl_buf_puts(b, pad);
        wl_buf_put(b, p, n);
        wl_buf_put(b, "\n", 1);
        p += n + (nl != NULL);
    }
}

/* The long help, then the fields of the command's value as its type's table lists them: malloc'd, or NULL. */
static char *help_text(const wl_command *cmd)
{
    wl_buf t = {0};
    if (cmd->help) wl_buf_puts(&t, cmd->help);
    if (cmd->result && cmd->result->fields) {
        if (t.len) wl_buf_put(&t, "\n", 1);
        wl_fields_help(&t, cmd->result, 90);
    }
    return wl_buf_take(&t);
}

wl_value *lang_help_command(const wl_command *cmd)
{
    wl_buf b = {0}, h = {0};
    wl_buf_printf(&b, "%s\n    %s\n\n", cmd->synopsis, cmd->summary);
    wl_buf_puts(&h, "<div class=\"wordlab-help\"><p><code>");
    wl_buf_html(&h, cmd->synopsis);
    wl_buf_puts(&h, "</code><br>");
    wl_buf_html(&h, cmd->summary);
    wl_buf_puts(&h, "</p>");
    char *help = help_text(cmd);
    if (help && help[0]) {
        indent(&b, help, "  ");
        wl_buf_put(&b, "\n", 1);
        help_html(&h, help);
    }
    free(help);
    if (cmd->options) {
        wl_buf_printf(&b, "options: %s\n", cmd->options);
        wl_buf_puts(&h, "<p>options: <code>");
        wl_buf_html(&h, cmd->options);
        wl_buf_puts(&h, "</code></p>");
    }
    if (cmd->subcommands) {
        wl_buf_printf(&b, "subcommands: %s\n", cmd->subcommands);
        wl_buf_puts(&h, "<p>subcommands: <code>");
        wl_buf_html(&h, cmd->subcommands);
        wl_buf_puts(&h, "</code></p>");
    }
    wl_buf_puts(&b, "example:\n");
    indent(&b, cmd->example, "    ");
    wl_buf_puts(&h, "<p>example:</p><pre class=\"wordlab-help-code\">");
    wl_buf_html(&h, cmd->example);
    wl_buf_puts(&h, "</pre></div>");
    help_page *page = wl_xcalloc(1, sizeof *page);
    page->text = wl_buf_take(&b);
    page->html = wl_buf_take(&h);
    return wl_obj(&HELP_T, page);
}

void wl_help_command(const wl_command *cmd, wl_mime *out)
{
    wl_value *v = lang_help_command(cmd);
    wl_err err;
    wl_value_render(v, out, &err);
    wl_unref(v);
}

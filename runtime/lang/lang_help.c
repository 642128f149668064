/* lang_help.c: the help page value (a page of text, shown as <pre> in a notebook) and the page of one command. */
#include "lang_int.h"
#include "lang_objs.h"

#include <stdlib.h>
#include <string.h>

typedef struct help_page {
    char *text;           /* malloc'd, owned */
} help_page;

static void help_free(void *d)
{
    help_page *h = d;
    free(h->text);
    free(h);
}

static int help_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const help_page *h = d;
    out->text_plain = wl_xstrdup(h->text);
    wl_buf b = {0};
    wl_buf_puts(&b, "<pre class=\"wordlab-help\">");
    wl_buf_html(&b, h->text);
    wl_buf_puts(&b, "</pre>");
    out->text_html = wl_buf_take(&b);
    return 0;
}

static const wl_objtype HELP_T = {.name = "help page", .fields = "", .free = help_free, .render = help_render};

wl_value *lang_help_value(char *text)
{
    help_page *h = wl_xcalloc(1, sizeof *h);
    h->text = text;
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

wl_value *lang_help_command(const wl_command *cmd)
{
    wl_buf b = {0};
    wl_buf_printf(&b, "%s\n    %s\n\n", cmd->synopsis, cmd->summary);
    if (cmd->help && cmd->help[0]) {
        indent(&b, cmd->help, "  ");
        wl_buf_put(&b, "\n", 1);
    }
    if (cmd->options) wl_buf_printf(&b, "options: %s\n", cmd->options);
    if (cmd->subcommands) wl_buf_printf(&b, "subcommands: %s\n", cmd->subcommands);
    wl_buf_puts(&b, "example:\n");
    indent(&b, cmd->example, "    ");
    return lang_help_value(wl_buf_take(&b));
}

void wl_help_command(const wl_command *cmd, wl_mime *out)
{
    wl_value *v = lang_help_command(cmd);
    wl_err err;
    wl_value_render(v, out, &err);
    wl_unref(v);
}

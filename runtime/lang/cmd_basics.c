/* cmd_basics.c: the basic commands: help (from the command table), print, time. */
#include "lang_int.h"
#include "lang_objs.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char SYNTAX_HELP[] =
    "The wordlab command language\n"
    "\n"
    "  One command per line: a name, then words separated by spaces.\n"
    "      tokenize \"a little dog found a red hat\"\n"
    "  Numbers are written plainly (3, 0.5, 1e-3); text with spaces goes in \"double quotes\"\n"
    "  with backslash escapes (\\n \\t \\\" \\\\ \\$ \\u{e9}).\n"
    "  Options are key=value words, in any order after the command: steps=300 lr=0.003\n"
    "  # starts a comment that runs to the end of the line.\n"
    "\n"
    "  name = COMMAND ...     keeps the command's value in a variable; the value is not shown\n"
    "                         (a command that reports as it runs still does: corpus, train)\n"
    "  name = 0.5             keeps a number (or \"text\", or $other) the same way\n"
    "  $name                  uses it; alone on a line it shows the value\n"
    "  $name.field            reaches a field: $d.weights, $p.perplexity (Tab lists them)\n"
    "  $list.0, $list.count   the first item and the number of items of a list\n"
    "  $list.-1               the last item (-2 the one before it)\n"
    "  ${name}                the same as $name, when letters follow: \"${n}th\"\n"
    "  [COMMAND ...]          runs a command and uses its value as one word: exp [mean 1 2]\n"
    "  \"loss is $x\"           a $name inside double quotes is replaced by its text\n"
    "  a ; b                  two commands on one line\n"
    "  x = 1 / 4              arithmetic: + - * / with spaces around them, * and / before + and -\n"
    "  [ln 0.5] * $losses     on numbers and lists, item by item (ln, exp, sum, softmax: commands)\n"
    "\n"
    "  A line that ends inside an open \" or [ (or with a backslash) continues on the next.\n"
    "  A command whose value is not kept shows it: a list of tokens, a table, a heat map.\n"
    "  Ctrl-C stops the running command; training keeps the best weights it reached.\n";

/* The topics in table order. */
static int topics(const char **out, int max)
{
    int n = 0;
    for (int i = 0; wl_command_at(i); i++) {
        const char *t = wl_command_at(i)->topic;
        int seen = 0;
        for (int k = 0; k < n; k++) seen |= !strcmp(out[k], t);
        if (!seen && n < max) out[n++] = t;
    }
    return n;
}

static void list_topic(wl_buf *b, const char *topic, int width)
{
    wl_buf_printf(b, "%s\n", topic);
    for (int i = 0; wl_command_at(i); i++) {
        const wl_command *c = wl_command_at(i);
        if (strcmp(c->topic, topic)) continue;
        int n = (int)strlen(c->synopsis);
        if (n > width) wl_buf_printf(b, "  %s\n  %*s  %s\n", c->synopsis, width, "", c->summary);
        else wl_buf_printf(b, "  %-*s  %s\n", width, c->synopsis, c->summary);
    }
}

/* `help exit`, `help quit`: they are no commands; the REPL (cli/repl.c) reads them alone on a line. */
#define LEAVE_HELP \
    "Ctrl-D, or exit or quit alone on a line, leaves the terminal REPL;\na script or notebook ends after its last line."

static int cmd_help(wl_call *c, wl_value **out)
{
    const char *ts[32];
    int nt = topics(ts, 32);
    wl_buf b = {0};
    if (c->argc == 0) {
        wl_buf_puts(&b, "wordlab: see how a word-level attention language model works, one command at a time.\n"
                        "Type `help NAME` for a command's usage and an example you can run, `help language` for the syntax.\n\n");
        for (int t = 0; t < nt; t++) {
            list_topic(&b, ts[t], 30);
            wl_buf_put(&b, "\n", 1);
        }
        wl_buf_puts(&b, "Keep a value with `name = COMMAND ...` and use it as $name; Tab completes names.");
        *out = lang_help_value(wl_buf_take(&b));
        return 0;
    }
    const char *name = wl_arg_str(c, 0);
    if (!name) return -1;
    if (!strcmp(name, "language") || !strcmp(name, "syntax")) {
        *out = lang_help_value(wl_xstrdup(SYNTAX_HELP));
        return 0;
    }
    if (wl_lang_is_leave_word(name)) {
        *out = lang_help_value(wl_xstrdup(LEAVE_HELP));
        return 0;
    }
    const wl_command *cmd = wl_command_find(name);
    if (cmd) {
        *out = lang_help_command(cmd);
        return 0;
    }
    for (int t = 0; t < nt; t++)
        if (!strcmp(ts[t], name)) {
            list_topic(&b, ts[t], 30);
            *out = lang_help_value(wl_buf_take(&b));
            return 0;
        }
    const char *names[512];
    int n = 0;
    for (; n < 512 && wl_command_at(n); n++) names[n] = wl_command_at(n)->name;
    wl_buf_printf(&b, "no command or topic `%s`", name);
    size_t before = b.len;
    wl_did_you_mean(&b, name, names, n, "");
    if (b.len == before) wl_buf_puts(&b, "; type `help` for the list");
    wl_call_fail(c, "ArgumentError", wl_call_argword(c, 0), "%s", b.s);
    free(b.s);
    return -1;
}

static int cmd_print(wl_call *c, wl_value **out)
{
    (void)out;
    return wl_call_write_args(c, "stdout");
}

static int cmd_time(wl_call *c, wl_value **out)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = wl_call_eval_rest(c, 1, out);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (rc == 0) {
        if (s < 1) wl_sink_printf(c->sink, "time: %.3f ms\n", s * 1e3);
        else wl_sink_printf(c->sink, "time: %.3f s\n", s);
    }
    return rc;
}

const wl_command wl_cmds_basics[] = {
    {.name = "help", .topic = "basics", .synopsis = "help [NAME]", .summary = "list every command, or explain one",
     .help = "Without a name: every command, grouped by topic, with a one-line summary.\n"
             "With a command's name: its usage, what it does, its options and an example.\n"
             "With a topic's name: that topic's commands. `help language` explains the syntax.",
     .example = "help\nhelp perplexity\nhelp language",
     .min_args = 0, .max_args = 1, .fn = cmd_help},
    {.name = "print", .topic = "basics", .synopsis = "print VALUE ...", .summary = "write values as text, separated by spaces",
     .help = "Text is written as is; numbers, lists and other values as they show themselves.\n"
             "A $name inside double quotes is replaced by the value's text. Every word is written, + - * /\n"
             "too: to print the result of arithmetic, put it in [ ] (print [0.1 + 0.2] writes 0.3).",
     .example = "print \"hello, world\"\nx = mean 1 2 3\nprint \"the mean is $x\"\nprint \"the sum:\" [0.1 + 0.2]",
     .min_args = 0, .max_args = -1, .fn = cmd_print},
    {.name = "time", .topic = "basics", .synopsis = "time COMMAND ...", .summary = "run a command and report how long it took",
     .help = "Runs the rest of the line as a command, writes the wall-clock time it took,\n"
             "and gives the command's value.",
     .example = "time perplexity 0.5 0.25 0.125",
     .min_args = 1, .max_args = -1, .flags = WL_CMD_RAW, .fn = cmd_time},
    {0},
};

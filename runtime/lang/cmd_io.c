/* cmd_io.c: commands that talk to the front end and the file system: warn (stderr), input, clear, sleep, artifact
 * (bundled files). */
#include "lang_int.h"
#include "lang_objs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLEEP_TICK_MS 10   /* how often sleep looks at the interrupt flag */

static int cmd_warn(wl_call *c, wl_value **out)
{
    (void)out;
    return wl_call_write_args(c, "stderr");
}

static int cmd_input(wl_call *c, wl_value **out)
{
    const char *prompt = c->argc ? wl_arg_str(c, 0) : "";
    if (!prompt) return -1;
    long long password;
    if (wl_opt_int(c, "password", 0, 0, 1, &password)) return -1;
    const char *dflt = wl_opt_has(c, "default") ? wl_opt_str(c, "default", "") : NULL;
    if (wl_opt_has(c, "default") && !dflt) return -1;
    enum { LINE_MAX_BYTES = 1 << 16 };
    char *line = wl_xmalloc(LINE_MAX_BYTES);
    int got = c->sink && c->sink->input ? c->sink->input(c->sink->ud, prompt, (int)password, line, LINE_MAX_BYTES) : -1;
    if (got == 0) *out = wl_str(line);
    free(line);
    if (got == 0) return 0;
    if (got == 1)
        return wl_call_fail(c, "InputError", 0, "the answer is longer than %d bytes, the most an input takes",
                            LINE_MAX_BYTES - 1);
    if (wl_sink_interrupted(c->sink))
        return wl_call_fail(c, "Interrupted", 0, "interrupted while waiting for input");
    if (dflt) {
        *out = wl_str(dflt);
        return 0;
    }
    return wl_call_fail(c, "InputError", 0, "this front end cannot ask for input here; give default=TEXT");
}

static int cmd_clear(wl_call *c, wl_value **out)
{
    (void)out;
    long long wait;
    if (wl_opt_int(c, "wait", 0, 0, 1, &wait)) return -1;
    if (c->sink && c->sink->clear) c->sink->clear(c->sink->ud, (int)wait);
    return 0;
}

static int cmd_sleep(wl_call *c, wl_value **out)
{
    (void)out;
    double s;
    if (wl_arg_num(c, 0, &s)) return -1;
    if (!(s >= 0 && s <= 86400)) return wl_call_fail(c, "ArgumentError", wl_call_argword(c, 0), "seconds must be between 0 and 86400");
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (wl_sink_interrupted(c->sink)) return wl_call_fail(c, "Interrupted", 0, "interrupted while sleeping");
        clock_gettime(CLOCK_MONOTONIC, &t);
        double left = s - ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec));
        if (left <= 0) return 0;
        double step = left < SLEEP_TICK_MS * 1e-3 ? left : SLEEP_TICK_MS * 1e-3;
        struct timespec ts = {0, (long)(step * 1e9)};
        nanosleep(&ts, NULL);
    }
}

/* The artifact name in the first directory that holds it, or the first readable directory (name NULL). */
static int find_artifact(wl_call *c, char *const *dirs, int n, wl_value **out)
{
    if (c->argc == 0) {
        for (int i = 0; i < n; i++)
            if (!access(dirs[i], R_OK | X_OK)) {
                char *real = realpath(dirs[i], NULL);
                *out = wl_str(real ? real : dirs[i]);
                free(real);
                return 0;
            }
        *out = wl_str(dirs[n - 1]);
        return 0;
    }
    const char *name = wl_arg_str(c, 0);
    if (!name) return -1;
    if (!*name || name[0] == '/' || strstr(name, ".."))
        return wl_call_fail(c, "ArgumentError", 1, "an artifact is named by a file name inside the artifact directory, such as vocab.json");
    for (int i = 0; i < n; i++) {
        wl_buf pb = {0};
        wl_buf_printf(&pb, "%s/%s", dirs[i], name);
        char *path = wl_buf_take(&pb);
        int found = !access(path, R_OK);
        char *real = found ? realpath(path, NULL) : NULL;   /* shown without the program's "/../" */
        if (found) *out = wl_str(real ? real : path);
        free(real);
        free(path);
        if (found) return 0;
    }
    wl_buf b = {0};
    for (int i = 0; i < n; i++) wl_buf_printf(&b, "%s%s", i ? ", " : "", dirs[i]);
    char *where = wl_buf_take(&b);
    wl_call_fail(c, "FileNotFoundError", 1, "no artifact %s in %s", name, where);
    free(where);
    return -1;
}

static int cmd_artifact(wl_call *c, wl_value **out)
{
    char *dirs[3];
    int n = lang_artifact_dirs(c->in, dirs);
    if (!n) return wl_call_fail(c, "RuntimeError", 0, "no artifact directory is known; set WORDLAB_ARTIFACTS");
    int rc = find_artifact(c, dirs, n, out);
    lang_artifact_dirs_free(dirs, n);
    return rc;
}

const wl_command wl_cmds_io[] = {
    {.name = "warn", .topic = "input and output", .synopsis = "warn VALUE ...",
     .summary = "write values as text to the error stream (stderr)",
     .help = "Like print, but the text goes to stderr: notebooks show it on a red background.",
     .example = "warn \"the learning rate looks high\"", .min_args = 0, .max_args = -1, .fn = cmd_warn},
    {.name = "input", .topic = "input and output", .synopsis = "input [PROMPT] [password=1] [default=TEXT]",
     .summary = "ask the user for a line of text",
     .help = "Shows PROMPT and gives the line the user typed as a string. password=1 hides what is typed.\n"
             "Where nobody can answer (a script without a terminal, a notebook run headless),\n"
             "it gives default=TEXT, or fails when there is no default. A line longer than 65,535 bytes is\n"
             "refused whole (an error says so), never cut.",
     .example = "name = input \"your name? \" default=\"world\"\nprint \"hello, $name\"",
     .min_args = 0, .max_args = 1, .options = "password default", .fn = cmd_input},
    {.name = "clear", .topic = "input and output", .synopsis = "clear [wait=1]",
     .summary = "clear the output of the current cell, or the terminal's screen",
     .help = "In a notebook, removes what this cell has shown so far; in the terminal REPL, clears the\n"
             "screen. wait=1 waits until the next output arrives (no flicker). A script's output that\n"
             "goes to a file or a pipe is kept whole.",
     .example = "print \"soon gone\"\nclear", .min_args = 0, .max_args = 0, .options = "wait", .fn = cmd_clear},
    {.name = "sleep", .topic = "input and output", .synopsis = "sleep SECONDS",
     .summary = "wait a number of seconds (Ctrl-C stops it)",
     .help = "Pauses, e.g. between steps of a demonstration. An interrupt ends the wait at once.",
     .example = "sleep 0.1", .min_args = 1, .max_args = 1, .fn = cmd_sleep},
    {.name = "artifact", .topic = "input and output", .synopsis = "artifact [NAME]",
     .summary = "the path of a bundled file: vocab.json, the seed-11 checkpoints, comparison.json",
     .help = "The lessons load the files that come with wordlab by name, wherever wordlab is installed:\n"
             "the first of $WORDLAB_ARTIFACTS, <the program's directory>/../share/artifacts and the\n"
             "source tree's share/artifacts that holds NAME. Without NAME: the directory itself.\n"
             "Gives a string to pass to `model load`, `vocab`, `results`.",
     .example = "artifact\nprint \"the bundled files live in\" [artifact]",
     .min_args = 0, .max_args = 1, .fn = cmd_artifact},
    {0},
};

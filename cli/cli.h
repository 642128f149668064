/* cli.h: the subcommands of the `wordlab` program; each returns the process exit status. */
#ifndef WL_CLI_H
#define WL_CLI_H

#include "wl_lang.h"

typedef struct cli_subcommand {
    const char *name;
    const char *synopsis;
    const char *summary;
    int (*run)(int argc, char **argv);   /* argv[0] is the subcommand name */
} cli_subcommand;

/* The interpreter settings every front end uses (files allowed; $WORDLAB_ARTIFACTS for `artifact`; the HTTP GET
 * of libcurl and the user's download cache, $XDG_CACHE_HOME/wordlab or ~/.cache/wordlab (none when neither is
 * set), for `corpus source=tinystories`). cli_http.c */
wl_interp_opts cli_interp_opts(void);

int cli_repl(int argc, char **argv);               /* repl.c: the REPL, or commands from a pipe; --json */
/* repl.c: the exit status of the program that would return rc: 1, with a message on stderr, when writing its
 * output (stdout, flushed here) failed. */
int cli_exit_status(int rc);
int cli_run(int argc, char **argv);                /* repl.c: wordlab run FILE.wlab */
int cli_code(int argc, char **argv);               /* repl.c: wordlab -c 'COMMANDS' */
int cli_tokenize(int argc, char **argv);           /* cli_tokenize.c: wordlab tokenize --jsonl */
int cli_notebook(int argc, char **argv);           /* cli_notebook.c: wordlab notebook LESSON.wlab -o NB.ipynb */

#endif

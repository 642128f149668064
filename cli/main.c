/* main.c: the `wordlab` program: dispatches to the REPL (default) and the subcommands. */
#include "cli.h"
#include "kernel.h"
#include "wl_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cli_help(int argc, char **argv);

/* The names of the language's commands, one a line (the JupyterLab extension's highlighting is built from them). */
static int cli_commands(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    for (int i = 0; wl_command_at(i); i++) printf("%s\n", wl_command_at(i)->name);
    return 0;
}

/* The Jupyter kernel, with the interpreter settings of every front end. */
static int cli_kernel(int argc, char **argv)
{
    wl_interp_opts opts = cli_interp_opts();
    return wl_kernel_main(argc, argv, &opts);
}

static const cli_subcommand SUBCOMMANDS[] = {
    {"help", "help", "this text", cli_help},
    {"kernel", "kernel -f FILE", "run the Jupyter kernel on a connection file", cli_kernel},
    {"run", "run FILE.wlab", "run a script; stops at the first error (FILE:LINE)", cli_run},
    {"-c", "-c 'COMMANDS'", "run the commands given on the command line", cli_code},
    {"--json", "--json [run|-c] ...", "show each command's value as one JSON line", cli_repl},
    {"tokenize", "tokenize --jsonl", "tokenize JSON lines with \"text\" from stdin", cli_tokenize},
    {"notebook", "notebook LESSON -o NB", "run a .wlab lesson, write an .ipynb with outputs", cli_notebook},
    {"commands", "commands", "list the language's commands, one a line", cli_commands},
    {"install-kernel", "install-kernel [--user|--prefix DIR]", "install the Jupyter kernel spec", wl_kernel_spec_install},
};

static void usage(FILE *out)
{
    fprintf(out,
            "wordlab %s: see how a word-level attention language model works.\n\n"
            "usage:\n"
            "  wordlab                       start the interactive REPL\n",
            WL_VERSION);
    for (size_t i = 0; i < sizeof SUBCOMMANDS / sizeof SUBCOMMANDS[0]; i++)
        fprintf(out, "  wordlab %-21s %s\n", SUBCOMMANDS[i].synopsis, SUBCOMMANDS[i].summary);
    fprintf(out,
            "  wordlab --help                this text\n"
            "  wordlab --version             the version\n");
}

static int cli_help(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    usage(stdout);
    return 0;
}

/* Runs what argv asks for; returns the exit status before the output is checked. */
static int dispatch(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "--version")) {
        printf("wordlab %s\n", WL_VERSION);
        return 0;
    }
    if (argc >= 2) {
        for (size_t i = 0; i < sizeof SUBCOMMANDS / sizeof SUBCOMMANDS[0]; i++)
            if (!strcmp(argv[1], SUBCOMMANDS[i].name)) return SUBCOMMANDS[i].run(argc - 1, argv + 1);
        fprintf(stderr, "wordlab: unknown subcommand '%s'\n\n", argv[1]);
        usage(stderr);
        return 2;
    }
    return cli_repl(argc, argv);
}

int main(int argc, char **argv)
{
    return cli_exit_status(dispatch(argc, argv));
}

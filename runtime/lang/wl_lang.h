/* wl_lang.h: the command language's public face, shared by the REPL, `wordlab run/-c` and the Jupyter kernel.
 *
 * The files of runtime/lang/:
 *   lang_parse.c     lexer and parser: words, "quotes" with escapes, $var.field, [commands], key=value, # comments
 *   lang_eval.c      evaluator: variables, dispatch through the command table, arity/option/type errors with a caret
 *   lang_args.c      the command API's argument and option helpers (wl_arg_, wl_opt_, wl_call_fail)
 *   lang_value.c     reference-counted values (number, string, list, object) and their text/JSON rendering
 *   lang_fields.c    the fields of a value from its type's table: $x.NAME, the list errors and help show, its JSON
 *   lang_render.c    shared renderers: aligned/shaded tables, heat maps (Unicode, SVG, HTML), line charts (SVG, Vega-Lite)
 *   lang_colour.c    the pictures' colour scales (sequential, diverging, loss) and text chosen by WCAG contrast
 *   lang_complete.c  is_complete, tab completion and inspect, all from the command table
 *   lang_tinystories.c  `corpus source=tinystories`: its options, the live page display, the messages of a fetch
 *   cmd_table.c      the one command table: the per-topic arrays, in `help` order
 *   cmd_<topic>.c    the commands of one `help` topic (basics, text, model, train, cross_entropy, ...), and nothing else
 *   lang_<type>.c    the value types the commands make (vocab, model, tensor, perplexity, seq...), declared in lang_objs.h;
 *                    each declares its fields once, in a wl_field table
 *
 * Adding commands: a topic file runtime/lang/cmd_<topic>.c defines `const wl_command wl_cmds_<topic>[]`
 * (name, topic, synopsis, summary, long help, a runnable example, arity, options, handler; NULL-name
 * terminated) and cmd_table.c lists that array. wl_cmd.h is the interface for writing one: values,
 * argument and option helpers, renderers. Dispatch, errors, `help`, completion, inspect and the doc tests
 * (tests/unit/lang/test_doc.c runs every example) follow from the entry.
 *
 * The anatomy of a command: `m = model new kind=multihead vocab=$s.vocab` is parsed into one statement
 * (binding m, words "model" "new" and two options); the evaluator finds `model` in the table, evaluates the
 * words ($s.vocab asks the corpus object for its field), checks the arity, the subcommand and the option
 * names, and calls the handler with a wl_call; the handler reads its arguments with wl_arg_/wl_opt_ helpers
 * and returns a value (here a model object), which is kept in m instead of being shown. */
#ifndef WL_LANG_H
#define WL_LANG_H

#include "wl_core.h"

typedef struct wl_interp wl_interp;

typedef struct wl_interp_opts {
    int allow_files;      /* 0 disables commands that read or write files (fuzzing) */
    int max_stories;      /* > 0: at most this many stories per corpus (fuzzing keeps inputs fast); 0: no cap */
    const char *artifacts_dir;   /* searched first by `artifact` (the front ends pass $WORDLAB_ARTIFACTS); NULL: none.
                                    Must outlive the interpreter. */
    const struct wl_http *http;  /* the front end's HTTP GET (wl_tinystories.h) for `corpus source=tinystories`;
                                    NULL: no network. Must outlive the interpreter. */
    const char *cache_dir;       /* the user's cache directory for downloads (the front ends pass $XDG_CACHE_HOME/wordlab
                                    or ~/.cache/wordlab); NULL: none. Must outlive the interpreter. */
    const char *shared_cache;    /* the machine's shared cache folder for computed corpora, windows and scores
                                    (wl_cache.h; the front ends pass $WORDLAB_CACHE, else $XDG_CACHE_HOME/wordlab/cache
                                    or ~/.cache/wordlab/cache; WORDLAB_CACHE=off: none); NULL: none. Must outlive the
                                    interpreter. */
    unsigned long long shared_cache_limit;   /* bytes the folder may hold; 0: wl_cache's default */
    int text_width;       /* columns that text/plain renderings are laid out for (a terminal's width); 0: 80 */
    int text_color;       /* 1: text/plain renderings may shade with ANSI colour (a terminal that shows colour) */
} wl_interp_opts;

/* A failed evaluation: what went wrong and where (1-based line and column in code points;
 * 0 when unknown). traceback lines are plain text: the source line and a caret line. */
typedef struct wl_lang_error {
    char ename[64];       /* e.g. "ParseError", "UnknownCommand", "ArgumentError", "Interrupted", "RuntimeError" */
    char evalue[WL_ERR_MAX];
    int line, col;
    char **traceback;     /* malloc'd array of malloc'd strings */
    int ntraceback;
} wl_lang_error;

void wl_lang_error_clear(wl_lang_error *e);

/* opts NULL: files allowed, nothing else set. NULL when memory runs out. */
wl_interp *wl_interp_new(const wl_interp_opts *opts);
void wl_interp_free(wl_interp *in);
/* The terminal has been resized: later text/plain renderings fit cols columns (0: 80). */
void wl_interp_set_text_width(wl_interp *in, int cols);

/* Runs every command of code in order. Output goes to sink; the value of the last
 * command that produced one (and was not bound with `name =`) is rendered into *result
 * (all fields NULL when there is none). origin names the source in error messages
 * ("cell", a file name); first_line is the line number of code's first line.
 * Returns 0, or -1 with *error filled (sink output produced before the error stays). */
int wl_interp_eval(wl_interp *in, const char *code, const char *origin, int first_line,
                   const wl_sink *sink, wl_mime *result, wl_lang_error *error);

/* The same for len bytes of code, which may hold NUL bytes: the first is a ParseError at its line and column.
 * A lone CR is a line break, as LF and CRLF are. Code longer than WL_LANG_MAX_CODE bytes is a LimitError. */
#define WL_LANG_MAX_CODE (1 << 20)
int wl_interp_eval_n(wl_interp *in, const char *code, size_t len, const char *origin, int first_line,
                     const wl_sink *sink, wl_mime *result, wl_lang_error *error);

/* "complete", "incomplete" (inside an open quote or bracket, or after a backslash) or "invalid". */
const char *wl_lang_is_complete(const char *code);

/* Completion at byte offset cursor: fills a malloc'd array of malloc'd strings and the
 * byte range [*start, *end) that a match replaces. Returns the number of matches. */
int wl_interp_complete(wl_interp *in, const char *code, size_t cursor, char ***matches,
                       size_t *start, size_t *end);

/* Help for the word at byte offset cursor (a command's synopsis, summary, help and example).
 * Returns 1 and fills *out when found, else 0. */
int wl_interp_inspect(wl_interp *in, const char *code, size_t cursor, wl_mime *out);

/* Whether code (spaces around it aside) is exactly `?NAME` or `NAME?`, a request for NAME's help.
 * Returns 1 with NAME in word (NUL-terminated), else 0. */
int wl_lang_help_request(const char *code, char *word, size_t cap);

/* Whether word is `exit` or `quit`: no command; the terminal REPL leaves on either alone on a line, and the
 * language says so when a script, a cell or `help` meets one. */
int wl_lang_is_leave_word(const char *word);

#endif

/* repl.c: the terminal front ends: the readline REPL, `wordlab run FILE`, `wordlab -c CODE` and `--json` output. */
#include "cli.h"
#include "wl_buf.h"
#include "wl_lang.h"
#include "wl_utf8.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <termios.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

static volatile sig_atomic_t g_interrupt;

static void on_sigint(int sig)
{
    (void)sig;
    g_interrupt = 1;
}

static void install_sigint(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);   /* no SA_RESTART: select() returns EINTR */
}

/* ---- output: the terminal sink ---- */

static int g_out_errno;   /* why writing stdout failed first (0: it has not) */

static void out_flush(void)
{
    if ((fflush(stdout) || ferror(stdout)) && !g_out_errno) g_out_errno = errno ? errno : EIO;
}

int cli_exit_status(int rc)
{
    out_flush();
    if (!g_out_errno) return rc;
    fprintf(stderr, "wordlab: cannot write the output: %s\n", strerror(g_out_errno));
    return 1;
}

typedef struct term {
    int json;          /* --json: one JSON document per value on stdout; text goes to stderr */
    int tty, color;    /* stdout is a terminal; colour allowed (tty, no NO_COLOR, TERM not dumb) */
    char live_id[128]; /* on a terminal: the display shown last, which updates redraw in place */
    char *live;        /* its text, NULL when there is none */
    char *held;        /* not a terminal: the latest state of a live display, printed when the display ends */
    int clear_pending; /* `clear wait=1`: clear the screen when the next output arrives */
} term;

/* The terminal's width in columns (80 when stdout is not a terminal). */
static int screen_cols(void)
{
    struct winsize ws;
    return ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

/* Terminal rows the text takes (long lines wrap; a code point takes a column). */
static int screen_rows(const char *s)
{
    int cols = screen_cols();
    int rows = 0;
    for (;; s++) {
        size_t n = strcspn(s, "\n");
        long w = wl_utf8_cp_count(s, n);
        rows += w ? (int)((w - 1) / cols + 1) : 1;
        s += n;
        if (!*s) return rows;
    }
}

static void live_erase(term *t)
{
    if (t->live) printf("\r\033[%dA\033[J", screen_rows(t->live));
}

static void live_end(term *t)
{
    free(t->live);
    t->live = NULL;
    t->live_id[0] = 0;
    if (t->held) {
        printf("%s\n", t->held);
        fflush(stdout);
        free(t->held);
        t->held = NULL;
    }
}

/* Clears the screen for a pending `clear wait=1`. */
static void clear_if_pending(term *t)
{
    if (!t->clear_pending) return;
    t->clear_pending = 0;
    live_end(t);
    printf("\033[H\033[2J");
}

static void term_clear(void *ud, int wait)
{
    term *t = ud;
    if (!t->tty || t->json) return;   /* a log or a pipe keeps everything */
    t->clear_pending = 1;
    if (!wait) clear_if_pending(t);
    fflush(stdout);
}

/* Text as a terminal shows it: control characters from data (ESC, CR, BEL...) written visibly as \u00XX. */
static char *visible(const char *s, size_t n)
{
    char *v = wl_utf8_visible(s, n);
    if (!v) abort();   /* out of memory, as wl_xmalloc */
    return v;
}

/* Writes text to f: byte for byte into a pipe or a file, as visible() shows it on a terminal. */
static void put_text(FILE *f, const char *s, size_t n)
{
    if (!isatty(fileno(f))) {
        fwrite(s, 1, n, f);
        return;
    }
    char *v = visible(s, n);
    fputs(v, f);
    free(v);
}

static void term_write(void *ud, const char *stream, const char *s, size_t n)
{
    term *t = ud;
    clear_if_pending(t);
    if (g_interrupt) live_end(t);   /* after Ctrl-C the live display keeps its last state; what follows goes below it */
    FILE *f = t->json || !strcmp(stream, "stderr") ? stderr : stdout;
    int keep = t->live && n && s[n - 1] == '\n';   /* text goes above a live display, which is redrawn */
    if (!t->tty) live_end(t);
    live_erase(t);
    out_flush();
    put_text(f, s, n);
    if (f == stdout) out_flush();
    else fflush(f);
    if (keep) printf("%s\n", t->live);
    else live_end(t);
    out_flush();
}

/* A JSON document on one line: raw newlines can only be whitespace between tokens. */
static void print_json_line(const char *json)
{
    for (const char *p = json; *p; p++) putchar(*p == '\n' || *p == '\r' ? ' ' : *p);
    putchar('\n');
    out_flush();
}

static void term_display(void *ud, const char *display_id, const wl_mime *m, int update)
{
    term *t = ud;
    if (!m->text_plain) return;
    if (t->json) {
        if (m->app_json) print_json_line(m->app_json);
        return;
    }
    if (display_id && !t->tty) {   /* a log keeps only the last state of a live display (a training run's: its summary) */
        if (!update) live_end(t);   /* a new display: the one held before has ended */
        free(t->held);
        t->held = wl_xstrdup(m->text_plain);
        return;
    }
    clear_if_pending(t);
    if (update && t->live && display_id && !strcmp(t->live_id, display_id)) live_erase(t);
    else live_end(t);
    /* on a terminal the runtime's own colour stays; any other control is shown */
    const char *text = m->text_plain;
    char *shown = t->tty && !m->text_plain_sgr ? visible(text, strlen(text)) : wl_xstrdup(text);
    printf("%s\n", shown);
    out_flush();
    free(t->live);
    t->live = NULL;
    if (t->tty && display_id) {
        t->live = shown;   /* redrawn as shown */
        snprintf(t->live_id, sizeof t->live_id, "%s", display_id);
    } else {
        free(shown);
    }
}

/* Asks for a line on the terminal (the REPL has handed it back: cooked mode, echo on unless password). */
static int term_input(void *ud, const char *prompt, int password, char *out, size_t cap)
{
    term *t = ud;
    live_end(t);
    put_text(stdout, prompt, strlen(prompt));
    out_flush();
    struct termios old;
    int quiet = password && isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &old) == 0;
    if (quiet) {
        struct termios noecho = old;
        noecho.c_lflag &= (tcflag_t)~ECHO;
        tcsetattr(STDIN_FILENO, TCSANOW, &noecho);
    }
    char *line = NULL;
    size_t n = 0, len;
    int k = wl_read_line(stdin, &line, &n, &len);   /* Ctrl-C: read fails with EINTR (no SA_RESTART) */
    int why = errno;
    if (quiet) {
        tcsetattr(STDIN_FILENO, TCSANOW, &old);
        putchar('\n');
    }
    int too_long = k < 0 && why == EFBIG;   /* past wl_read_line's limit: the rest of the line goes too */
    for (int ch; too_long && (ch = getchar()) != EOF && ch != '\n';) {}
    if (k <= 0 && !too_long) {   /* the end of the input, or an error, said here: the command learns only that */
        if (k < 0 && why != EINTR) fprintf(stderr, "wordlab: input: cannot read stdin: %s\n", wl_read_line_why(why));
        free(line);
        clearerr(stdin);
        return -1;
    }
    int fits = !too_long && len < cap;
    if (fits) memcpy(out, line, len + 1);
    free(line);
    return fits ? 0 : 1;
}

static void print_error(const term *t, const wl_lang_error *e)
{
    if (t->json) {
        cJSON *j = cJSON_CreateObject(), *err = cJSON_AddObjectToObject(j, "error");
        cJSON_AddStringToObject(err, "ename", e->ename);
        cJSON_AddStringToObject(err, "evalue", e->evalue);
        cJSON_AddNumberToObject(err, "line", e->line);
        cJSON_AddNumberToObject(err, "col", e->col);
        char *s = cJSON_PrintUnformatted(j);
        printf("%s\n", s);
        out_flush();
        free(s);
        cJSON_Delete(j);
    }
    int color = t->color && !t->json;
    for (int i = 0; i < e->ntraceback; i++) {
        const char *pre = "", *post = "";
        if (color) pre = i == 0 ? "\033[1;31m" : i == 2 ? "\033[31m" : "", post = i == 0 || i == 2 ? "\033[0m" : "";
        fputs(pre, stderr);
        put_text(stderr, e->traceback[i], strlen(e->traceback[i]));   /* the source line echoed is data too */
        fprintf(stderr, "%s\n", post);
    }
    fflush(stderr);
}

static void term_init(term *t, int json)
{
    memset(t, 0, sizeof *t);
    t->json = json;
    t->tty = isatty(STDOUT_FILENO);
    const char *nc = getenv("NO_COLOR"), *tm = getenv("TERM");
    t->color = t->tty && !(nc && nc[0]) && !(tm && !strcmp(tm, "dumb"));
}

/* Evaluates one piece of code and shows its result or error. Returns 0 / -1. */
static int run_code(wl_interp *in, term *t, const char *code, size_t len, const char *origin, int first_line)
{
    wl_sink sink = {.ud = t, .write = term_write, .display = term_display, .clear = term_clear, .input = term_input,
                    .interrupt = &g_interrupt};
    wl_mime result;
    wl_lang_error err;
    g_interrupt = 0;
    wl_interp_set_text_width(in, screen_cols());
    int rc = wl_interp_eval_n(in, code, len, origin, first_line, &sink, &result, &err);
    if (rc == 0 && result.text_plain) term_display(t, NULL, &result, 0);
    live_end(t);
    if (rc) print_error(t, &err);
    wl_mime_free(&result);
    wl_lang_error_clear(&err);
    g_interrupt = 0;
    return rc;
}

/* ---- the REPL ---- */

static wl_interp *g_in;
static char **g_matches;
static int g_nmatches;

static void free_matches(void)
{
    for (int i = 0; i < g_nmatches; i++) free(g_matches[i]);
    free(g_matches);
    g_matches = NULL;
    g_nmatches = 0;
}

static char *match_gen(const char *text, int state)
{
    static int i;
    (void)text;
    if (!state) i = 0;
    return i < g_nmatches ? wl_xstrdup(g_matches[i++]) : NULL;
}

/* Completes from the command table; the matches are made to replace readline's [start, end). */
static char **repl_complete(const char *text, int start, int end)
{
    rl_attempted_completion_over = 1;
    free_matches();
    size_t s, e;
    char **m;
    int n = wl_interp_complete(g_in, rl_line_buffer, (size_t)end, &m, &s, &e);
    for (int i = 0; i < n; i++) {
        char *adj;
        if (s < (size_t)start) adj = wl_xstrdup(strlen(m[i]) >= (size_t)start - s ? m[i] + ((size_t)start - s) : "");
        else {
            size_t k = s - (size_t)start, ml = strlen(m[i]);
            adj = wl_xmalloc(k + ml + 1);
            memcpy(adj, rl_line_buffer + start, k);
            memcpy(adj + k, m[i], ml + 1);
        }
        free(m[i]);
        m[i] = adj;
    }
    g_matches = m;
    g_nmatches = n;
    if (n == 0) return NULL;
    /* no space after an option's '=' or a variable (a .field may follow) */
    const char *m0 = g_matches[0];
    if (n == 1 && m0[0] && (m0[strlen(m0) - 1] == '=' || strchr(m0, '$'))) rl_completion_suppress_append = 1;
    return rl_completion_matches(text, match_gen);
}

/* The cell being gathered over continuation lines; lines are handled inside readline's callback so
 * that readline shows the right prompt after each one. */
typedef struct repl_state {
    wl_interp *in;
    term *t;
    char *hist;          /* the history file (NULL when there is no home directory) */
    wl_buf cell;
    int eof;             /* 1: Ctrl-D; 2: exit or quit */
} repl_state;

static repl_state g_rs;

static const char PROMPT[] = "wordlab> ", PROMPT2[] = "     ...> ";

static void append_cell(const char *line)
{
    if (g_rs.cell.len) wl_buf_put(&g_rs.cell, "\n", 1);
    wl_buf_puts(&g_rs.cell, line);
}

static void drop_cell(void)
{
    free(g_rs.cell.s);
    g_rs.cell = (wl_buf){0};
}

/* Whether the cell is `exit` or `quit` alone (blanks around it allowed): it leaves the REPL as Ctrl-D does. */
static int is_leave(const char *cell)
{
    char word[8];
    int end = 0;
    return sscanf(cell, " %7s %n", word, &end) == 1 && !cell[end] && wl_lang_is_leave_word(word);
}

static void on_line(char *line)
{
    if (!line) {
        g_rs.eof = 1;
        rl_callback_handler_remove();
        return;
    }
    append_cell(line);
    free(line);
    const char *cell = g_rs.cell.s;
    if (!strcmp(wl_lang_is_complete(cell), "incomplete")) {
        rl_set_prompt(PROMPT2);   /* readline shows it when this handler returns */
        return;
    }
    rl_callback_handler_remove();
    if (is_leave(cell)) {
        g_rs.eof = 2;   /* the line has ended already: no newline after it */
        return;
    }
    const char *p = cell;
    while (*p == ' ' || *p == '\t' || *p == '\n') p++;
    char word[256];
    wl_mime help = {0};
    if (*p) {
        add_history(cell);
        if (g_rs.hist) append_history(1, g_rs.hist);
        /* `?NAME` and `NAME?` show NAME's help, as the notebook's pager does */
        if (wl_lang_help_request(cell, word, sizeof word) && wl_interp_inspect(g_rs.in, word, strlen(word), &help))
            term_display(g_rs.t, NULL, &help, 0);
        else
            run_code(g_rs.in, g_rs.t, cell, g_rs.cell.len, "input", 1);
        wl_mime_free(&help);
    }
    drop_cell();
    rl_callback_handler_install(PROMPT, on_line);
}

/* $HOME/.wordlab_history (malloc'd), or NULL when there is no home directory. */
static char *history_path(void)
{
    const char *home = getenv("HOME");
    if (!home || !home[0]) return NULL;
    size_t cap = strlen(home) + sizeof "/.wordlab_history";
    char *p = malloc(cap);
    if (p) snprintf(p, cap, "%s/.wordlab_history", home);
    return p;
}

/* Reads commands from a pipe (stdin is not a terminal) and runs them as one script; more than the language runs at
 * once is not read. */
static int run_stdin(wl_interp *in, term *t)
{
    size_t cap = WL_LANG_MAX_CODE + 2, n = 0, r;
    char *buf = malloc(cap);
    if (!buf) {
        fprintf(stderr, "wordlab: <stdin>: out of memory\n");
        return 1;
    }
    while (n + 1 < cap && (r = fread(buf + n, 1, cap - 1 - n, stdin)) > 0) n += r;
    if (ferror(stdin)) {
        fprintf(stderr, "wordlab: <stdin>: cannot read: %s\n", strerror(errno));
        free(buf);
        return 1;
    }
    buf[n] = 0;
    int rc = run_code(in, t, buf, n, "<stdin>", 1);
    free(buf);
    return rc ? 1 : 0;
}

static int repl_loop(wl_interp *in, term *t)
{
    memset(&g_rs, 0, sizeof g_rs);
    g_rs.in = in;
    g_rs.t = t;
    g_rs.hist = history_path();
    using_history();
    stifle_history(2000);
    if (g_rs.hist && read_history(g_rs.hist) != 0) write_history(g_rs.hist);   /* created: append_history needs it */
    rl_readline_name = "wordlab";
    rl_attempted_completion_function = repl_complete;
    rl_completer_word_break_characters = " \t\n;[]\"";
    rl_catch_signals = 0;
    g_in = in;
    if (t->tty)
        printf("wordlab %s: type `help` to see every command, Tab to complete, Ctrl-C to stop, Ctrl-D or exit to quit.\n",
               WL_VERSION);
    rl_callback_handler_install(PROMPT, on_line);
    while (!g_rs.eof) {
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(STDIN_FILENO, &fds);
        int r = select(STDIN_FILENO + 1, &fds, NULL, NULL, NULL);
        if (g_interrupt) { /* Ctrl-C at the prompt: drop the line and any unfinished cell */
            g_interrupt = 0;
            drop_cell();
            rl_replace_line("", 0);
            rl_crlf();
            rl_set_prompt(PROMPT);
            rl_on_new_line();
            rl_redisplay();
            continue;
        }
        if (r < 0) {
            if (errno == EINTR) continue;
            break;
        }
        rl_callback_read_char();
    }
    if (t->tty && g_rs.eof == 1) printf("\n");
    if (g_rs.hist) history_truncate_file(g_rs.hist, 2000);
    free(g_rs.hist);
    drop_cell();
    free_matches();
    return 0;
}

/* ---- subcommands ---- */

static wl_interp *new_interp(int color)
{
    wl_interp_opts o = cli_interp_opts();
    o.text_color = color;
    wl_interp *in = wl_interp_new(&o);
    if (!in) fprintf(stderr, "wordlab: out of memory\n");
    return in;
}

/* Removes --json from argv[1..]; returns the new argc. */
static int take_json(int argc, char **argv, int *json)
{
    int k = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) *json = 1;
        else argv[k++] = argv[i];
    }
    return k;
}

/* The terminal, a fresh interpreter and the Ctrl-C handler of every front end (REPL, `run`, `-c`); NULL when
 * the interpreter cannot be made. */
static wl_interp *start_session(term *t, int json)
{
    term_init(t, json);
    wl_interp *in = new_interp(t->color);
    if (in) install_sigint();
    return in;
}

static int run_files(int argc, char **argv, int json)
{
    if (argc < 2) {
        fprintf(stderr, "usage: wordlab run [--json] FILE.wlab ...\n");
        return 2;
    }
    term t;
    wl_interp *in = start_session(&t, json);
    if (!in) return 1;
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        char *code;
        size_t len;
        wl_err err;
        if (wl_read_file_max(argv[i], WL_LANG_MAX_CODE, &code, &len, &err)) {
            fprintf(stderr, "wordlab: %s\n", err.msg);
            rc = 1;
            break;
        }
        rc = run_code(in, &t, code, len, argv[i], 1) ? 1 : 0;
        if (g_out_errno) rc = 1;
        free(code);
    }
    wl_interp_free(in);
    return rc;
}

static int run_arg(int argc, char **argv, int json)
{
    if (argc != 2) {
        fprintf(stderr, "usage: wordlab [--json] -c 'COMMANDS'\n");
        return 2;
    }
    term t;
    wl_interp *in = start_session(&t, json);
    if (!in) return 1;
    int rc = run_code(in, &t, argv[1], strlen(argv[1]), "-c", 1) ? 1 : 0;
    wl_interp_free(in);
    return rc;
}

int cli_run(int argc, char **argv)
{
    int json = 0;
    argc = take_json(argc, argv, &json);
    return run_files(argc, argv, json);
}

int cli_code(int argc, char **argv)
{
    int json = 0;
    argc = take_json(argc, argv, &json);
    return run_arg(argc, argv, json);
}

int cli_repl(int argc, char **argv)
{
    int json = !strcmp(argv[0], "--json");
    argc = take_json(argc, argv, &json);
    if (argc >= 2 && !strcmp(argv[1], "-c")) return run_arg(argc - 1, argv + 1, json);
    if (argc >= 2 && !strcmp(argv[1], "run")) return run_files(argc - 1, argv + 1, json);
    if (argc >= 2) {
        fprintf(stderr, "wordlab: unexpected argument '%s'; see wordlab --help\n", argv[1]);
        return 2;
    }
    term t;
    wl_interp *in = start_session(&t, json);
    if (!in) return 1;
    int rc = json || !isatty(STDIN_FILENO) ? run_stdin(in, &t) : repl_loop(in, &t);
    wl_interp_free(in);
    return rc;
}

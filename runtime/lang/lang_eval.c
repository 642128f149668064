/* lang_eval.c: the evaluator: variables, word values, dispatch through the command table, errors with a caret. */
#include "lang_int.h"
#include "wl_utf8.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct wl_var {
    char *name;
    wl_value *v;
} wl_var;

struct wl_interp {
    wl_interp_opts opts;
    wl_var *vars;
    int nvars, cap;
    int depth;
    /* the evaluation in progress */
    const wl_sink *sink;
    wl_lang_error *error;
    int failed;
    const wl_value *live_value;   /* the statement's value replaces the live display live_id (wl_call_replaces_display) */
    char live_id[64];
};

/* ---- errors ---- */

void wl_lang_error_clear(wl_lang_error *e)
{
    if (!e) return;
    for (int i = 0; i < e->ntraceback; i++) free(e->traceback[i]);
    free(e->traceback);
    memset(e, 0, sizeof *e);
}

int wl_lang_error_vset(wl_lang_error *e, int *failed, const char *ename, int line, int col, const char *fmt, va_list ap)
{
    if (*failed) return -1;
    *failed = 1;
    if (!e) return -1;
    snprintf(e->ename, sizeof e->ename, "%s", ename);
    vsnprintf(e->evalue, sizeof e->evalue, fmt, ap);
    e->line = line;
    e->col = col;
    return -1;
}

static int fail_at(wl_interp *in, const char *ename, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail_at(wl_interp *in, const char *ename, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wl_lang_error_vset(in->error, &in->failed, ename, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

static void tb_push(wl_lang_error *e, char *line)
{
    e->traceback = wl_xrealloc(e->traceback, sizeof(char *) * (size_t)(e->ntraceback + 1));
    e->traceback[e->ntraceback++] = line;
}

/* The start of line lineno (1-based) of code (len bytes), and its length without the newline in *n. */
static const char *line_of(const char *code, size_t len, int lineno, size_t *n)
{
    const char *p = code, *end = code + len;
    for (int l = 1; l < lineno && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    return p;
}

/* The traceback: "origin:line:col: ename: evalue", the source line with its control characters shown as \u00XX (an
 * ESC in it would act on a terminal), a caret under the column; an interrupt, which is no mistake in the code, only its
 * first line (a short notice under what the command reached). */
static void build_traceback(wl_lang_error *e, const char *code, size_t len, const char *origin, int first_line)
{
    wl_buf b = {0};
    int absline = e->line ? e->line + first_line - 1 : 0;
    if (absline) wl_buf_printf(&b, "%s:%d:%d: ", origin, absline, e->col);
    else wl_buf_printf(&b, "%s: ", origin);
    wl_buf_printf(&b, "%s: %s", e->ename, e->evalue);
    tb_push(e, wl_buf_take(&b));
    if (!e->line || !strcmp(e->ename, "Interrupted")) return;
    size_t n;
    const char *p = line_of(code, len, e->line, &n);
    if (n && p[n - 1] == '\r') n--;
    char *line = wl_xmalloc(n + 1);   /* a NUL byte in it included, shown as \u0000 */
    for (size_t i = 0; i < n; i++) line[i] = p[i] == '\t' ? ' ' : p[i];
    wl_buf_puts(&b, "    ");
    wl_buf_visible(&b, line, n);
    tb_push(e, wl_buf_take(&b));
    wl_buf before = {0};   /* the line up to the column, as shown */
    wl_buf_visible(&before, line, wl_utf8_byte_offset(line, n, e->col - 1));
    long caret = wl_utf8_cp_count(before.s, before.len);
    free(before.s);
    free(line);
    wl_buf_puts(&b, "    ");
    for (long i = 0; i < caret; i++) wl_buf_put(&b, " ", 1);
    wl_buf_put(&b, "^", 1);
    tb_push(e, wl_buf_take(&b));
}

/* Adds the typographic-quote hint to an error on a line of code that holds “ ” or ‘ (pasted from a slide). */
static void quote_hint(wl_lang_error *e, const char *code, size_t len)
{
    if (!e->line || !strcmp(e->ename, "Interrupted")) return;
    size_t n;
    const char *p = line_of(code, len, e->line, &n);
    const char *hint = wl_parse_quote_hint(p, n);
    size_t used = strlen(e->evalue);
    if (hint) snprintf(e->evalue + used, sizeof e->evalue - used, " (%s)", hint);
}

/* ---- did you mean ---- */

int wl_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return 99;
    int prev[65], cur[65];
    for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, sizeof(int) * (lb + 1));
    }
    return prev[lb];
}

void wl_did_you_mean(wl_buf *b, const char *word, const char *const *cands, int n, const char *prefix)
{
    int best[3] = {-1, -1, -1}, bestd[3] = {99, 99, 99};
    int limit = (int)strlen(word) / 3 + 1;
    if (limit > 3) limit = 3;
    for (int i = 0; i < n; i++) {
        int d = wl_edit_distance(word, cands[i]);
        size_t wl = strlen(word);
        if (wl >= 3 && strlen(cands[i]) > wl) { /* a mistyped start of a longer name: perplx, perplexity */
            char head[65];
            snprintf(head, sizeof head, "%.*s", (int)(wl < 64 ? wl : 64), cands[i]);
            int dh = wl_edit_distance(word, head) + 1;
            if (dh < d) d = dh;
        }
        if (d > limit) continue;
        for (int k = 0; k < 3; k++) {
            if (d < bestd[k]) {
                for (int m = 2; m > k; m--) best[m] = best[m - 1], bestd[m] = bestd[m - 1];
                best[k] = i;
                bestd[k] = d;
                break;
            }
        }
    }
    if (best[0] < 0) return;
    wl_buf_puts(b, "; did you mean ");
    for (int k = 0; k < 3 && best[k] >= 0; k++) {
        if (k) wl_buf_puts(b, k == 2 || best[k + 1 < 3 ? k + 1 : 2] < 0 ? " or " : ", ");
        wl_buf_printf(b, "%s%s", prefix, cands[best[k]]);
    }
    wl_buf_puts(b, "?");
}

int wl_split_words(const char *list, char *buf, size_t cap, const char **words, int max)
{
    snprintf(buf, cap, "%s", list ? list : "");
    int n = 0;
    for (char *tok = strtok(buf, " "); tok && n < max; tok = strtok(NULL, " ")) words[n++] = tok;
    return n;
}

/* ---- variables ---- */

static wl_var *find_var(const wl_interp *in, const char *name)
{
    for (int i = 0; i < in->nvars; i++)
        if (!strcmp(in->vars[i].name, name)) return &in->vars[i];
    return NULL;
}

wl_value *wl_interp_get(wl_interp *in, const char *name)
{
    wl_var *v = find_var(in, name);
    return v ? v->v : NULL;
}

const wl_interp_opts *wl_interp_options(const wl_interp *in) { return &in->opts; }
void wl_interp_set_text_width(wl_interp *in, int cols) { in->opts.text_width = cols; }
int wl_interp_nvars(const wl_interp *in) { return in->nvars; }
const char *wl_interp_var_name(const wl_interp *in, int i) { return in->vars[i].name; }

static int set_var(wl_interp *in, const char *name, wl_value *v, int line, int col)
{
    wl_var *var = find_var(in, name);
    if (var) {
        wl_unref(var->v);
        var->v = wl_ref(v);
        return 0;
    }
    if (in->nvars >= WL_LANG_MAX_VARS)
        return fail_at(in, "LimitError", line, col, "too many variables (at most %d)", WL_LANG_MAX_VARS);
    if (in->nvars == in->cap) {
        in->cap = in->cap ? in->cap * 2 : 16;
        in->vars = wl_xrealloc(in->vars, sizeof(wl_var) * (size_t)in->cap);
    }
    in->vars[in->nvars].name = wl_xstrdup(name);
    in->vars[in->nvars].v = wl_ref(v);
    in->nvars++;
    return 0;
}

/* ---- interpreter ---- */

wl_interp *wl_interp_new(const wl_interp_opts *opts)
{
    wl_interp *in = calloc(1, sizeof *in);
    if (!in) return NULL;
    if (opts) in->opts = *opts;
    else in->opts.allow_files = 1;
    return in;
}

void wl_interp_free(wl_interp *in)
{
    if (!in) return;
    for (int i = 0; i < in->nvars; i++) {
        free(in->vars[i].name);
        wl_unref(in->vars[i].v);
    }
    free(in->vars);
    free(in);
}

/* ---- evaluation ---- */

static int eval_script_value(wl_interp *in, const wl_script *s, wl_value **out);
static int eval_stmt(wl_interp *in, const wl_stmt *st, wl_value **out, const wl_command **cmd_out);

/* The item that index i (from wl_item_index(field)) names among n, counting from 0 or from -1 at the end as in
 * Python, in *at; else an IndexError. */
static int item_at(wl_interp *in, long i, const char *field, int n, const wl_part *pt, long *at)
{
    *at = i < 0 ? i + n : i;
    if (*at >= 0 && *at < n) return 0;
    return fail_at(in, "IndexError", pt->line, pt->col, "$%s has %d items; .%s is %s (items count from 0, or from -1 at the end)",
                   pt->text, n, field, i < 0 ? "before the start" : "past the end");
}

static int field_of(wl_interp *in, wl_value *v, const char *field, const wl_part *pt, wl_value **out)
{
    wl_err err = {{0}};
    long i, at;
    int index = wl_item_index(field, &i);
    if (v->type == WL_V_OBJ && v->otype->numbers && (index || !strcmp(field, "count"))) {
        const double *x;
        int n;
        v->otype->numbers(v->data, &x, &n);
        if (!strcmp(field, "count")) *out = wl_int(n);
        else if (item_at(in, i, field, n, pt, &at)) return -1;
        else *out = wl_num(x[at]);
        return 0;
    }
    if (v->type == WL_V_OBJ && (v->otype->fields || v->otype->item)) {
        *out = wl_value_field(v, field, &err);
        return *out ? 0 : fail_at(in, "NameError", pt->line, pt->col, "$%s: %s", pt->text, err.msg);
    }
    if (v->type == WL_V_LIST) {
        if (index) {
            if (item_at(in, i, field, v->n, pt, &at)) return -1;
            *out = wl_ref(v->items[at]);
            return 0;
        }
        if (!strcmp(field, "count")) {
            *out = wl_int(v->n);
            return 0;
        }
        return fail_at(in, "NameError", pt->line, pt->col, "a list has no field .%s; use .count or an index like .0", field);
    }
    return fail_at(in, "NameError", pt->line, pt->col, "$%s is %s, which has no fields (.%s)", pt->text, wl_value_kind(v), field);
}

static int eval_var(wl_interp *in, const wl_part *pt, wl_value **out)
{
    wl_var *var = find_var(in, pt->text);
    if (!var) {
        wl_buf b = {0};
        wl_buf_printf(&b, "no variable $%s", pt->text);
        const char **names = wl_xmalloc(sizeof(char *) * (size_t)(in->nvars + 1));
        for (int i = 0; i < in->nvars; i++) names[i] = in->vars[i].name;
        size_t before = b.len;
        wl_did_you_mean(&b, pt->text, names, in->nvars, "$");
        free(names);
        if (b.len == before) wl_buf_printf(&b, "; give it a value first with `%s = COMMAND ...`", pt->text);
        fail_at(in, "NameError", pt->line, pt->col, "%s", b.s);
        free(b.s);
        return -1;
    }
    wl_value *v = wl_ref(var->v);
    for (int i = 0; i < pt->nfields; i++) {
        wl_value *f;
        int rc = field_of(in, v, pt->fields[i], pt, &f);
        wl_unref(v);
        if (rc) return -1;
        v = f;
    }
    *out = v;
    return 0;
}

static int eval_part(wl_interp *in, const wl_part *pt, int bare, wl_value **out)
{
    switch (pt->kind) {
    case WL_P_LIT: {
        double x;
        int is_int;
        if (bare && wl_parse_number(pt->text, &x, &is_int)) {
            *out = is_int ? wl_int((long long)x) : wl_num(x);
            (*out)->str = wl_xstrdup(pt->text);
            (*out)->len = pt->len;
        } else {
            *out = wl_strn(pt->text, pt->len);
        }
        return 0;
    }
    case WL_P_VAR:
        return eval_var(in, pt, out);
    case WL_P_SUBST:
        if (eval_script_value(in, pt->sub, out)) return -1;
        if (!*out) return fail_at(in, "ArgumentError", pt->line, pt->col, "the command in [ ] gave no value");
        return 0;
    }
    return -1;
}

/* Text of a value when pasted into a longer word ("loss=$x"). */
static void append_text(wl_buf *b, const wl_value *v)
{
    char nb[64];
    if (v->type == WL_V_STR) wl_buf_put(b, v->str, v->len);
    else if (v->type == WL_V_NUM) wl_buf_puts(b, v->str ? v->str : wl_fmt_num(v->num, v->is_int, nb));
    else {
        wl_mime m = {0};
        wl_err err;
        if (!wl_value_render(v, &m, &err)) wl_buf_puts(b, m.text_plain);
        wl_mime_free(&m);
    }
}

static int eval_word(wl_interp *in, const wl_word *w, wl_value **out)
{
    *out = NULL;
    if (w->nparts == 0) {
        *out = wl_str("");
        return 0;
    }
    if (w->nparts == 1) return eval_part(in, &w->parts[0], w->bare, out);
    wl_buf b = {0};
    for (int i = 0; i < w->nparts; i++) {
        wl_value *v;
        if (eval_part(in, &w->parts[i], 0, &v)) {
            free(b.s);
            return -1;
        }
        append_text(&b, v);
        wl_unref(v);
        if (b.len > WL_LANG_MAX_STR) {
            free(b.s);
            return fail_at(in, "LimitError", w->line, w->col, "a string longer than %d bytes", WL_LANG_MAX_STR);
        }
    }
    size_t n = b.len;
    char *s = wl_buf_take(&b);
    *out = wl_strn(s, n);
    free(s);
    return 0;
}

/* Evaluates a script and returns the value of its last command (NULL if it gave none). */
static int eval_script_value(wl_interp *in, const wl_script *s, wl_value **out)
{
    *out = NULL;
    for (int i = 0; i < s->n; i++) {
        wl_value *v = NULL;
        if (eval_stmt(in, &s->stmts[i], &v, NULL)) {
            wl_unref(*out);
            *out = NULL;
            return -1;
        }
        if (s->stmts[i].bind && set_var(in, s->stmts[i].bind, v, s->stmts[i].line, s->stmts[i].col)) {
            wl_unref(v);
            return -1;
        }
        wl_unref(*out);
        *out = v;
    }
    return 0;
}

static void command_names(const char **names, int *n, int max)
{
    *n = 0;
    for (const wl_command *c; *n < max && (c = wl_command_at(*n));) names[(*n)++] = c->name;
}

static int unknown_command(wl_interp *in, const wl_word *w, const char *name)
{
    const char *names[512];
    int n;
    command_names(names, &n, 512);
    wl_buf b = {0};
    wl_buf_printf(&b, "no command `%s`", name);
    size_t before = b.len;
    if (find_var(in, name)) wl_buf_printf(&b, "; to use the variable write $%s", name);
    else if (wl_lang_is_leave_word(name))
        wl_buf_puts(&b, ": there is nothing to leave here (a script or notebook ends after its last line; the terminal "
                        "REPL leaves on exit or Ctrl-D)");
    else wl_did_you_mean(&b, name, names, n, "");
    if (b.len == before) wl_buf_puts(&b, "; type `help` for the list of commands");
    fail_at(in, "UnknownCommand", w->line, w->col, "%s", b.s);
    free(b.s);
    return -1;
}

static int word_pos_fail(wl_interp *in, const wl_stmt *st, int word, const char *ename, const char *msg)
{
    if (word >= 0 && word < st->nwords) return fail_at(in, ename, st->words[word].line, st->words[word].col, "%s", msg);
    if (word >= st->nwords) { /* just past the end of the line */
        const wl_word *w = &st->words[st->nwords - 1];
        return fail_at(in, ename, w->line, w->col + (int)(w->end - w->off) + 1, "%s", msg);
    }
    return fail_at(in, ename, st->line, st->col, "%s", msg);
}

static int check_call(wl_interp *in, const wl_stmt *st, wl_call *c)
{
    const wl_command *cmd = c->cmd;
    char buf[512];
    const char *words[64];
    wl_buf b = {0};
    int rc = 0;
    if (c->argc < cmd->min_args) {
        wl_buf_printf(&b, "`%s` needs %s%d argument%s, got %d; usage: %s", cmd->name,
                      cmd->max_args == cmd->min_args ? "" : "at least ", cmd->min_args, cmd->min_args == 1 ? "" : "s",
                      c->argc, cmd->synopsis);
        rc = word_pos_fail(in, st, st->nwords, "ArgumentError", b.s);
    } else if (cmd->max_args >= 0 && c->argc > cmd->max_args) {
        wl_buf_printf(&b, "`%s` takes %s%d argument%s, got %d; usage: %s", cmd->name,
                      cmd->max_args == cmd->min_args ? "" : "at most ", cmd->max_args, cmd->max_args == 1 ? "" : "s",
                      c->argc, cmd->synopsis);
        for (int i = 1; i < st->nwords; i++)
            if (wl_word_op(&st->words[i])) {
                wl_buf_printf(&b, "; to compute with its value put the command in [ ]: [%s ...] %c ...", cmd->name,
                              wl_word_op(&st->words[i]));
                break;
            }
        rc = word_pos_fail(in, st, c->argword[cmd->max_args], "ArgumentError", b.s);
    } else if (cmd->subcommands && c->argc > 0) {
        int n = wl_split_words(cmd->subcommands, buf, sizeof buf, words, 64), ok = 0;
        const char *sub = c->argv[0]->type == WL_V_STR ? c->argv[0]->str : "";
        for (int i = 0; i < n; i++) ok |= !strcmp(sub, words[i]);
        if (!ok) {
            wl_buf_printf(&b, "`%s` has no subcommand `%s`", cmd->name, sub);
            size_t before = b.len;
            wl_did_you_mean(&b, sub, words, n, "");
            if (b.len == before) wl_buf_printf(&b, "; it has: %s", cmd->subcommands);
            rc = word_pos_fail(in, st, c->argword[0], "ArgumentError", b.s);
        }
    }
    for (int i = 0; !rc && i < c->nopts; i++) {
        int n = wl_split_words(cmd->options, buf, sizeof buf, words, 64), ok = 0;
        for (int k = 0; k < n; k++) ok |= !strcmp(c->optk[i], words[k]);
        for (int k = 0; k < i; k++)
            if (!strcmp(c->optk[i], c->optk[k])) {
                wl_buf_printf(&b, "option %s= is given twice", c->optk[i]);
                rc = word_pos_fail(in, st, c->optword[i], "ArgumentError", b.s);
            }
        if (!ok && !rc) {
            wl_buf_printf(&b, "`%s` has no option %s=", cmd->name, c->optk[i]);
            size_t before = b.len;
            wl_did_you_mean(&b, c->optk[i], words, n, "");
            if (b.len == before)
                wl_buf_printf(&b, n ? "; its options are: %s" : "; it takes no options%s", n ? cmd->options : "");
            rc = word_pos_fail(in, st, c->optword[i], "ArgumentError", b.s);
        }
    }
    if (!rc && (cmd->flags & WL_CMD_FILES) && !in->opts.allow_files) {
        wl_buf_printf(&b, "`%s` reads or writes files, which is disabled here", cmd->name);
        rc = word_pos_fail(in, st, 0, "PermissionError", b.s);
    }
    free(b.s);
    return rc;
}

static void free_call(wl_call *c)
{
    for (int i = 0; i < c->argc; i++) wl_unref(c->argv[i]);
    for (int i = 0; i < c->nopts; i++) wl_unref(c->optv[i]);
    free(c->argv);
    free(c->optk);
    free(c->optv);
    free(c->argword);
    free(c->optword);
}

/* ---- arithmetic: a statement that starts with a value and goes on with + - * / ---- */

/* Whether a bare word is arithmetic written without spaces (1/4, 2*3, 0.5+1): digits and points around operators. */
static int unspaced_arith(const char *t)
{
    int digits = 0, ops = 0;
    for (const char *p = t; *p; p++) {
        if ((*p >= '0' && *p <= '9') || *p == '.') digits++;
        else if (strchr("+-*/", *p) && p > t && p[1]) ops++;
        else if (!(strchr("+-", *p) && p == t)) return 0;
    }
    return digits && ops;
}

/* A bare word written as a number too large for a double (1e999): an error at it that says so, rather than text. */
static int literal_overflows(wl_interp *in, const wl_word *w)
{
    const char *t = wl_word_bare(w);
    double x;
    int is_int;
    if (!t || wl_parse_number(t, &x, &is_int) || !isinf(x)) return 0;
    return fail_at(in, "ArithmeticError", w->line, w->col, "%.40s%s overflows a double: a number's magnitude is at most %.17g",
                   t, strlen(t) > 40 ? "..." : "", DBL_MAX);
}

/* Whether a bare word opens or closes a ( ) group: (1 or 2), as someone writes who groups arithmetic with them. */
static int grouped_in_parens(const wl_word *w)
{
    const char *t = wl_word_bare(w);
    return t && *t && (t[0] == '(' || t[strlen(t) - 1] == ')');
}

/* The numbers of word i of st (evaluated), with unary minuses *neg times before it. */
static int expr_operand(wl_interp *in, const wl_stmt *st, int i, int neg, lang_nums *out)
{
    const wl_word *w = &st->words[i];
    wl_value *v;
    if (literal_overflows(in, w) || eval_word(in, w, &v)) return -1;
    int bad, rc = lang_nums_read(v, out, &bad);
    if (rc == -1 && bad >= 0)
        fail_at(in, "TypeError", w->line, w->col, "arithmetic takes numbers and lists of numbers; item %d of this list is %s",
                bad, wl_value_kind(v->items[bad]));
    else if (rc == -1 && grouped_in_parens(w))
        fail_at(in, "TypeError", w->line, w->col, "arithmetic takes numbers and lists of numbers, not the text \"%s\": ( ) do "
                "not group arithmetic; [ ] do: [1 + 2] * 3", wl_word_bare(w));
    else if (rc == -1)
        fail_at(in, "TypeError", w->line, w->col, "arithmetic takes numbers and lists of numbers, not %s%s", wl_value_kind(v),
                v->type == WL_V_STR ? " (a number in \"quotes\" is text)" : "");
    else if (rc == -2)
        fail_at(in, "RuntimeError", w->line, w->col, "out of memory for the numbers of %s", wl_value_kind(v));
    wl_unref(v);
    for (int k = 0; !rc && neg && k < out->n; k++) out->x[k] = -out->x[k];
    return rc ? -1 : 0;
}

/* Folds vals[k] ops[k] vals[k+1] for the operators in which (e.g. "* /"), left to right; n: values (updated). */
/* Applies the operators in which, left to right, in one pass: vals[0..n) with ops[k] between vals[k] and vals[k + 1]
 * become the values and operators that are left (n shrinks; linear in n). On an error the values not yet consumed are
 * moved down so that vals[0..n) still holds every live value for the caller to free. */
static int expr_fold(wl_interp *in, const wl_stmt *st, lang_nums *vals, int *valw, char *ops, int *opw, int *n,
                     const char *which)
{
    int w = 0;   /* vals[0..w] and ops[0..w) are what is left so far */
    for (int k = 1; k < *n; k++) {
        if (!strchr(which, ops[k - 1])) {
            ops[w] = ops[k - 1];
            opw[w] = opw[k - 1];
            w++;
            vals[w] = vals[k];
            valw[w] = valw[k];
            continue;
        }
        lang_nums r;
        wl_buf msg = {0};
        int blame;
        if (lang_nums_op(ops[k - 1], &vals[w], &vals[k], &r, &msg, &blame)) {
            const wl_word *wd = &st->words[blame == 0 ? opw[k - 1] : blame == 1 ? valw[w] : valw[k]];
            fail_at(in, "ArithmeticError", wd->line, wd->col, "%s", msg.s);
            free(msg.s);
            memmove(vals + w + 1, vals + k, sizeof *vals * (size_t)(*n - k));
            *n = w + 1 + (*n - k);
            return -1;
        }
        lang_nums_free(&vals[w]);
        lang_nums_free(&vals[k]);
        vals[w] = r;
    }
    *n = w + 1;
    return 0;
}

/* value (op value)*, * and / before + and -, each value a word with any number of unary minuses before it. */
static int eval_expr(wl_interp *in, const wl_stmt *st, wl_value **out)
{
    int nw = st->nwords, n = 0, rc = 0;
    lang_nums *vals = wl_xcalloc((size_t)nw, sizeof *vals);
    int *valw = wl_xcalloc((size_t)nw, sizeof(int)), *opw = wl_xcalloc((size_t)nw, sizeof(int));
    char *ops = wl_xcalloc((size_t)nw, 1);
    for (int i = 0; i < nw && !rc;) {
        int neg = 0;
        while (i < nw && wl_word_op(&st->words[i]) == '-') neg ^= 1, i++;
        if (i == nw) {
            rc = word_pos_fail(in, st, nw, "ArgumentError", "a value is missing at the end: write a number, $name or [command] "
                                                             "after the operator");
            break;
        }
        if (wl_word_op(&st->words[i])) {
            rc = fail_at(in, "ArgumentError", st->words[i].line, st->words[i].col,
                         "expected a value (a number, $name or [command]) here, not the operator %c",
                         wl_word_op(&st->words[i]));
            break;
        }
        if (st->words[i].optkey) {
            rc = fail_at(in, "ArgumentError", st->words[i].line, st->words[i].col,
                         "an option like %s= belongs to a command; arithmetic takes values and + - * /", st->words[i].optkey);
            break;
        }
        valw[n] = i;
        if ((rc = expr_operand(in, st, i, neg, &vals[n]))) break;
        n++;
        if (++i == nw) break;
        if (!wl_word_op(&st->words[i])) {
            rc = fail_at(in, "ArgumentError", st->words[i].line, st->words[i].col,
                         "expected an operator (+ - * /) or the end of the line after a value; a line that runs a "
                         "command starts with its name (type `help` for the list)");
            break;
        }
        ops[n - 1] = wl_word_op(&st->words[i]);
        opw[n - 1] = i++;
        if (i == nw) rc = word_pos_fail(in, st, nw, "ArgumentError", "a value is missing at the end: write a number, $name "
                                                                    "or [command] after the operator");
    }
    if (!rc) rc = expr_fold(in, st, vals, valw, ops, opw, &n, "*/");
    if (!rc) rc = expr_fold(in, st, vals, valw, ops, opw, &n, "+-");
    if (!rc) *out = lang_nums_value(&vals[0]);
    for (int k = 0; k < n; k++) lang_nums_free(&vals[k]);
    free(vals);
    free(valw);
    free(opw);
    free(ops);
    return rc;
}

static int eval_stmt(wl_interp *in, const wl_stmt *st, wl_value **out, const wl_command **cmd_out)
{
    *out = NULL;
    if (cmd_out) *cmd_out = NULL;
    if (wl_sink_interrupted(in->sink)) return fail_at(in, "Interrupted", st->line, st->col, "interrupted before this command");
    const wl_word *w0 = &st->words[0];
    const char *name = wl_word_bare(w0);
    if (!name || !wl_is_ident(name)) {
        if (st->nwords > 1 || wl_word_op(w0)) return eval_expr(in, st, out);
        if (name && unspaced_arith(name))
            return fail_at(in, "ArgumentError", w0->line, w0->col,
                           "arithmetic needs spaces around its operators: write %s as values and + - * / separated by spaces "
                           "(1 / 4)", name);
        return literal_overflows(in, w0) ? -1 : eval_word(in, w0, out);
    }
    const wl_command *cmd = wl_command_find(name);
    if (!cmd) return unknown_command(in, w0, name);
    if (cmd_out) *cmd_out = cmd;
    if (in->depth >= WL_LANG_MAX_DEPTH)
        return fail_at(in, "LimitError", w0->line, w0->col, "commands nested deeper than %d levels", WL_LANG_MAX_DEPTH);

    wl_err err = {{0}};
    wl_call c = {.in = in, .cmd = cmd, .sink = in->sink, .err = &err, .errword = -1,
                 .allow_files = in->opts.allow_files, .stmt = st};
    int nw = st->nwords - 1;
    c.argv = wl_xcalloc((size_t)nw + 1, sizeof(wl_value *));
    c.argword = wl_xcalloc((size_t)nw + 1, sizeof(int));
    c.optk = wl_xcalloc((size_t)nw + 1, sizeof(char *));
    c.optv = wl_xcalloc((size_t)nw + 1, sizeof(wl_value *));
    c.optword = wl_xcalloc((size_t)nw + 1, sizeof(int));
    int rc = 0;
    in->depth++;
    for (int i = 1; i < st->nwords && !rc; i++) {
        const wl_word *w = &st->words[i];
        if (cmd->flags & WL_CMD_RAW) {
            c.argword[c.argc++] = i;
            continue;
        }
        wl_value *v;
        rc = eval_word(in, w, &v);
        if (rc) break;
        if (w->optkey) {
            c.optk[c.nopts] = w->optkey;
            c.optword[c.nopts] = i;
            c.optv[c.nopts++] = v;
        } else {
            c.argword[c.argc] = i;
            c.argv[c.argc++] = v;
        }
    }
    if (!rc) rc = check_call(in, st, &c);
    if (!rc) {
        rc = cmd->fn(&c, out);
        if (rc && !in->failed) {
            const char *ename = c.ename ? c.ename : wl_sink_interrupted(in->sink) ? "Interrupted" : "RuntimeError";
            word_pos_fail(in, st, c.errword, ename, err.msg[0] ? err.msg : "the command failed");
        }
        if (rc) {
            wl_unref(*out);
            *out = NULL;
        }
    }
    in->depth--;
    free_call(&c);
    return rc;
}

/* ---- the evaluator's side of a call ---- */

void wl_call_replaces_display(wl_call *c, const wl_value *v, const char *display_id)
{
    if (c->in->depth != 1) return;   /* a nested command's value is not the statement's */
    c->in->live_value = v;
    snprintf(c->in->live_id, sizeof c->in->live_id, "%s", display_id);
}

int wl_call_eval_rest(wl_call *c, int from, wl_value **out)
{
    const wl_stmt *st = c->stmt;
    wl_stmt sub = *st;
    sub.words = st->words + from;
    sub.nwords = st->nwords - from;
    sub.bind = NULL;
    sub.line = sub.words[0].line;
    sub.col = sub.words[0].col;
    return eval_stmt(c->in, &sub, out, NULL);   /* a failure is already recorded with its own position */
}

/* ---- the entry point ---- */

/* The line and column of the first NUL byte of code (0, 0 when there is none). */
static void nul_place(const char *code, size_t len, int *line, int *col)
{
    const char *nul = memchr(code, 0, len);
    *line = *col = 0;
    if (!nul) return;
    const char *line_start = code;
    *line = 1;
    for (const char *p = code; p < nul; p++)
        if (*p == '\n' || (*p == '\r' && p[1] != '\n')) *line += 1, line_start = p + 1;
    *col = 1 + (int)wl_utf8_cp_count(line_start, (size_t)(nul - line_start));
}

int wl_interp_eval(wl_interp *in, const char *code, const char *origin, int first_line, const wl_sink *sink,
                   wl_mime *result, wl_lang_error *error)
{
    return wl_interp_eval_n(in, code, strlen(code), origin, first_line, sink, result, error);
}

int wl_interp_eval_n(wl_interp *in, const char *given, size_t len, const char *origin, int first_line,
                     const wl_sink *sink, wl_mime *result, wl_lang_error *error)
{
    if (result) memset(result, 0, sizeof *result);
    if (error) memset(error, 0, sizeof *error);
    if (!origin) origin = "cell";
    if (first_line < 1) first_line = 1;
    in->sink = sink;
    in->error = error;
    in->failed = 0;
    in->depth = 0;
    wl_script *s = NULL;
    int nul_line, nul_col;
    nul_place(given, len, &nul_line, &nul_col);
    char *code = nul_line || len > WL_LANG_MAX_CODE ? NULL : wl_parse_line_breaks(given, len);
    if (nul_line) {
        fail_at(in, "ParseError", nul_line, nul_col, "a NUL byte (\\0) cannot be part of code");
    } else if (!code) {
        fail_at(in, "LimitError", 0, 0, "the code is %zu bytes; at most %d are run at once", len, WL_LANG_MAX_CODE);
    } else {
        wl_parse_error pe;
        s = wl_parse(code, len, &pe);
        if (!s) fail_at(in, pe.e.ename, pe.e.line, pe.e.col, "%s", pe.e.evalue);
    }
    for (int i = 0; s && i < s->n && !in->failed; i++) {
        const wl_stmt *st = &s->stmts[i];
        const wl_command *cmd;
        wl_value *v = NULL;
        in->live_value = NULL;
        if (eval_stmt(in, st, &v, &cmd)) break;
        if (st->bind && set_var(in, st->bind, v, st->line, st->col)) {
            wl_unref(v);
            break;
        }
        int show = v && (!st->bind || (cmd && (cmd->flags & WL_CMD_SHOW_BOUND)));
        int interrupted = wl_sink_interrupted(sink);   /* an error follows: what was reached is displayed */
        if (show) {
            wl_mime m = {0};
            wl_err err = {{0}};
            if (wl_value_render(v, &m, &err)) {
                fail_at(in, "RuntimeError", st->line, st->col, "cannot show the value: %s", err.msg);
            } else if (v == in->live_value && sink && sink->display) {
                sink->display(sink->ud, in->live_id, &m, 1);
            } else if (i == s->n - 1 && result && !interrupted) {
                *result = m;
                memset(&m, 0, sizeof m);
            } else if (sink && sink->display) {
                sink->display(sink->ud, NULL, &m, 0);
            }
            wl_mime_free(&m);
        }
        wl_unref(v);
        if (!in->failed && interrupted)
            fail_at(in, "Interrupted", st->line, st->col, "stopped by an interrupt (Ctrl-C); what the command reached is kept");
    }
    wl_script_free(s);
    int failed = in->failed;
    if (failed && error) {
        quote_hint(error, code ? code : given, code || nul_line ? len : 0);
        build_traceback(error, code ? code : given, code || nul_line ? len : 0, origin, first_line);
    }
    free(code);
    if (failed && result) wl_mime_free(result);
    in->sink = NULL;
    in->error = NULL;
    return failed ? -1 : 0;
}

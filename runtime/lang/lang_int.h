/* lang_int.h: the language's internals, shared by the parser, evaluator, helpers, completion and help (commands use wl_cmd.h). */
#ifndef WL_LANG_INT_H
#define WL_LANG_INT_H

#include <stdarg.h>
#include <stddef.h>

#include "wl_cmd.h"

#define WL_LANG_MAX_DEPTH 32            /* nested [ ] and nested command evaluation */
#define WL_LANG_MAX_VARS 4096
#define WL_LANG_MAX_STR (16 << 20)      /* bytes in one string value */

typedef enum wl_part_kind { WL_P_LIT, WL_P_VAR, WL_P_SUBST } wl_part_kind;

typedef struct wl_script wl_script;

typedef struct wl_part {
    wl_part_kind kind;
    char *text;              /* LIT: bytes; VAR: the name */
    size_t len;
    char **fields;           /* VAR: the .field chain */
    int nfields;
    wl_script *sub;          /* SUBST: the bracketed commands */
    int line, col;
} wl_part;

typedef struct wl_word {
    wl_part *parts;
    int nparts;
    int bare;                /* unquoted plain text only: command names, numbers, `=` */
    char *optkey;            /* key of key=value (parts hold the value), else NULL */
    int line, col;           /* 1-based; col counts code points */
    size_t off, end;         /* byte range in the source */
} wl_word;

typedef struct wl_stmt {
    wl_word *words;
    int nwords;
    char *bind;              /* `name = ...`: the name, else NULL */
    int line, col;
    size_t off, end;
} wl_stmt;

struct wl_script {
    wl_stmt *stmts;
    int n;
};

typedef struct wl_parse_error {
    wl_lang_error e;         /* a ParseError: the message and where (no traceback) */
    int incomplete;          /* the code ends inside a quote or bracket or after a backslash */
} wl_parse_error;

/* The one way the parser and the evaluator record an error: the first only (*failed is set, later calls change
 * nothing), its name, message and place (1-based line and column); e NULL keeps nothing but *failed. Returns -1. */
int wl_lang_error_vset(wl_lang_error *e, int *failed, const char *ename, int line, int col, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));

/* code with every lone CR (old Mac line ends) made a LF, as the evaluator and is_complete both read it
 * (malloc'd, NUL-terminated). */
char *wl_parse_line_breaks(const char *code, size_t len);
/* Parses code (len bytes). Returns NULL with *pe filled on error. Lines count from 1. A UTF-8 byte-order mark
 * (WL_UTF8_BOM) at the very start is skipped, as if it were not there. */
wl_script *wl_parse(const char *code, size_t len, wl_parse_error *pe);
/* The hint for an error on a line (len bytes) that holds typographic quotes (“ ” ‘), which the language reads as
 * text, not as quotes: a static string, or NULL when the line has none. */
const char *wl_parse_quote_hint(const char *line, size_t len);
void wl_script_free(wl_script *s);

/* The word's text when it is a bare literal (command names), else NULL. */
const char *wl_word_bare(const wl_word *w);
/* The operator a word is (+ - * /, bare and alone), or 0. */
char wl_word_op(const wl_word *w);
/* Whether name is an item index: a whole number written with digits, or - and digits (from the end), in *i.
 * lang_fields.c */
int wl_item_index(const char *name, long *i);
int wl_is_ident(const char *s);
/* Whether the word s reads as a finite decimal number, [+-]digits[.digits][e[+-]digits] or [+-].digits: its value in
 * *x, and in *is_int whether it is written without a point or an exponent and is below 2^53 in magnitude. A word
 * written as a number too large for a double (1e309) is none: 0, with *x infinite (else 0) to tell it apart. */
int wl_parse_number(const char *s, double *x, int *is_int);

/* Levenshtein distance (99 when either word is longer than 64 bytes). */
int wl_edit_distance(const char *a, const char *b);
/* Appends up to 3 candidates close to word, each after prefix, as "; did you mean X, Y or Z?" (nothing when none). */
void wl_did_you_mean(wl_buf *b, const char *word, const char *const *cands, int n, const char *prefix);

/* Splits a space-separated list (NULL: none) into up to max words: pointers into its copy in buf (cap bytes). */
int wl_split_words(const char *list, char *buf, size_t cap, const char **words, int max);

/* The interpreter's variables, for completion. */
int wl_interp_nvars(const wl_interp *in);
const char *wl_interp_var_name(const wl_interp *in, int i);

/* ---- numbers and lists of numbers (lang_arith.c) ---- */

typedef struct lang_nums {
    double *x;               /* [n] malloc'd */
    int n;
    int list;                /* a list (even of one item), not a single number */
    int ints;                /* every item is a whole number written without a point */
} lang_nums;

/* The numbers of v: a number (or a string that reads as one), a list of them, or a value that stands for numbers.
 * Returns 0; -1 when v holds something else (*bad: the index of the list item that is not a number, else -1);
 * -2 when memory runs out. */
int lang_nums_read(const wl_value *v, lang_nums *out, int *bad);
void lang_nums_free(lang_nums *a);
/* a as a value: a number, or a list when a->list. */
wl_value *lang_nums_value(const lang_nums *a);
/* out = a op b (op one of + - * /), item by item; a single number meets every item of a list. Returns 0, or -1 with
 * the reason in msg and *blame: 0 the operator, 1 the left side, 2 the right side. */
int lang_nums_op(char op, const lang_nums *a, const lang_nums *b, lang_nums *out, wl_buf *msg, int *blame);

/* ---- the fields of a value, from its type's table (lang_fields.c) ---- */

/* The names of the fields that data (NULL: any value) of type t has, at most max: how many. */
int wl_fields_names(const wl_objtype *t, const void *data, const char **names, int max);
/* Appends help's "Fields: .a (about) .b ..." for every field of type t, in lines of at most width columns. */
void wl_fields_help(wl_buf *b, const wl_objtype *t, int width);
/* $v.name of object v: a new reference, or NULL with err (what fields it has, and the closest names). */
wl_value *wl_value_field(wl_value *v, const char *name, wl_err *err);
/* Appends v's JSON from its fields: {"type": its type's name, then every field it has, by name}. */
void wl_fields_json(wl_buf *b, wl_value *v, wl_err *err);
/* Appends any value's JSON (objects: their app_json, or null when they cannot be shown). */
void wl_value_json(wl_buf *b, const wl_value *v, wl_err *err);

/* A command's help page: synopsis, summary, long help, options, example (lang_help.c). */
void wl_help_command(const wl_command *cmd, wl_mime *out);

#endif

/* wl_cmd.h: how to write a command: values, the declarative command table, argument helpers, renderers.
 *
 * Adding a topic: create runtime/lang/cmd_<topic>.c defining
 *
 *     const wl_command wl_cmds_<topic>[] = {
 *         {.name = "mycmd", .topic = "<topic>", .synopsis = "mycmd X [opt=N]",
 *          .summary = "one line", .help = "paragraphs", .example = "mycmd 1 opt=2",
 *          .min_args = 1, .max_args = 1, .options = "opt", .fn = cmd_mycmd,
 *          .result = &lang_mything_type},   // its value's type: help lists that type's fields
 *         {0}   // terminator
 *     };
 *
 * and add its name to the two lists in cmd_table.c. Dispatch, arity and option errors, `help`,
 * tab completion, Jupyter inspect and the doc tests (every example is executed) all come
 * from that entry; a handler only reads its arguments through the wl_arg_ / wl_opt_ helpers
 * (which produce TypeError / ArgumentError with a caret under the offending word) and
 * returns a value.
 *
 * Values are reference counted: a handler owns what it creates and returns one reference in *out
 * (or leaves *out NULL: "no value"). Arguments are borrowed. Objects (models, corpora,
 * tensors, tables...) are a wl_objtype (name, fields, the members its data owns, render) plus a data pointer. */
#ifndef WL_CMD_H
#define WL_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "wl_buf.h"
#include "wl_core.h"
#include "wl_lang.h"

/* ---- values ---- */

typedef enum wl_vtype { WL_V_NUM, WL_V_STR, WL_V_LIST, WL_V_OBJ } wl_vtype;

typedef struct wl_value wl_value;

/* The C types a member of a value's data may have, to be read as a field (WL_FIELD_MEMBER) or freed with the value
 * (WL_OWNS). */
typedef enum wl_member {
    WL_MEMBER_NONE,
    WL_MEMBER_INT,           /* int */
    WL_MEMBER_LONG,          /* long (int64_t on 64-bit Linux) */
    WL_MEMBER_LLONG,         /* long long (int64_t elsewhere: WebAssembly) */
    WL_MEMBER_ULONG,         /* unsigned long (size_t, and uint64_t on 64-bit Linux) */
    WL_MEMBER_ULLONG,        /* unsigned long long (uint64_t elsewhere) */
    WL_MEMBER_DOUBLE,        /* double */
    WL_MEMBER_STR,           /* char * or const char *: a NUL-terminated string; owned: freed with free */
    WL_MEMBER_CHARS,         /* char [N]: a NUL-terminated string in the data (WL_FIELD_CHARS) */
    WL_MEMBER_VALUE,         /* wl_value *: a value; owned: freed with wl_unref */
    WL_MEMBER_MEMORY,        /* owned only: any other pointer to memory from malloc, freed with free */
} wl_member;

/* The wl_member of a field's lvalue (WL_MEMBER_OF) or of an owned one (WL_OWNED_OF); a type not listed fails to
 * compile. */
#define WL_MEMBER_OF(lvalue)                                                                                           \
    _Generic(&(lvalue), int *: WL_MEMBER_INT, long *: WL_MEMBER_LONG, long long *: WL_MEMBER_LLONG,                   \
             unsigned long *: WL_MEMBER_ULONG, unsigned long long *: WL_MEMBER_ULLONG, double *: WL_MEMBER_DOUBLE,      \
             char **: WL_MEMBER_STR, const char **: WL_MEMBER_STR, wl_value **: WL_MEMBER_VALUE)
#define WL_OWNED_OF(lvalue)                                                                                            \
    _Generic(&(lvalue), char **: WL_MEMBER_STR, wl_value **: WL_MEMBER_VALUE, double **: WL_MEMBER_MEMORY,            \
             float **: WL_MEMBER_MEMORY, int **: WL_MEMBER_MEMORY, char ***: WL_MEMBER_MEMORY)

/* The designators of a field that is member `member_` of the data (a `type`) as it is, in braces with any others:
 * {WL_FIELD_MEMBER("count", lang_gen, n_new)}. Whole numbers and doubles are numbers, strings strings, a
 * wl_value * a new reference to the value. */
#define WL_FIELD_MEMBER(name_, type, member_)                                                                          \
    .name = (name_), .member = WL_MEMBER_OF(((type *)0)->member_), .at = offsetof(type, member_)

/* The same for a member that is a char array holding a NUL-terminated string. */
#define WL_FIELD_CHARS(name_, type, member_)                                                                           \
    .name = (name_), .member = _Generic(&(((type *)0)->member_)[0], char *: WL_MEMBER_CHARS),                         \
    .at = offsetof(type, member_)

/* One field of a value type, $x.NAME. A type's table of them is the one place its fields are declared: it drives
 * field access, the list that errors, completion and help show, and the value's JSON (lang_fields.c). */
typedef struct wl_field {
    const char *name;
    /* A new reference to the field of self, or NULL with err filled (it cannot be had: too large, no vocabulary).
     * NULL: the field is the member of self's data that `member` and `at` name (WL_FIELD_MEMBER). */
    wl_value *(*get)(wl_value *self, wl_err *err);
    wl_member member;        /* with get NULL: the member's type */
    size_t at;               /* with get NULL: the member's offset in the data */
    /* Whether self has the field (an mlp's forward_details has no .Q); NULL: every value of the type has it. */
    int (*has)(const void *data);
    const char *about;       /* what help adds after .NAME ("document counts"), or NULL */
    const char *when;        /* which values have it, for the error on one that lacks it ("with target="), or NULL */
    int no_json;             /* left out of the JSON: too long to send with every display (.all: every word's p) */
} wl_field;

/* A member of a type's data that the value owns and frees with it: a string or memory (free) or a value (wl_unref). */
typedef struct wl_owned {
    wl_member member;        /* WL_MEMBER_STR, WL_MEMBER_MEMORY or WL_MEMBER_VALUE; WL_MEMBER_NONE ends a list */
    size_t at;               /* the member's offset in the data */
} wl_owned;
#define WL_OWNS(type, member_) {.member = WL_OWNED_OF(((type *)0)->member_), .at = offsetof(type, member_)}

typedef struct wl_objtype {
    const char *name;        /* "model", "tensor" ...: used in type errors and `help` */
    const wl_field *fields;  /* its fields, ending with {0}; NULL: none */
    /* The data is freed (wl_obj_free) by free, when there is one (what the members below cannot say: a model, labels),
     * then each member in owns (ending with {0}), then the data itself. */
    void (*free)(void *data);
    const wl_owned *owns;
    /* Fills out->text_plain (required) and any of text_html, image_svg, app_json. Without app_json, the JSON is
     * {"type": name, then every field the value has, by name}. Returns 0 / -1. */
    int (*render)(const void *data, wl_mime *out, wl_err *err);
    /* The members render's own JSON has besides "type" and the fields (what no field holds: "shapes"), or NULL. */
    const char *json_only;
    /* $x.I (I a whole number): item I of the value's first axis, or NULL with err filled. NULL: no items. */
    wl_value *(*item)(wl_value *self, long i, wl_err *err);
    /* The numbers the value stands for where numbers are expected (arithmetic, mean, $x.0, $x.count): *x [*n],
     * owned by data. NULL: the type stands for no numbers. */
    void (*numbers)(const void *data, const double **x, int *n);
} wl_objtype;

struct wl_value {
    int refs;
    wl_vtype type;
    int is_int;              /* NUM: an integer, shown without decimals */
    double num;              /* NUM */
    char *str;               /* STR: NUL-terminated UTF-8 (len bytes); NUM: source text or NULL */
    size_t len;
    wl_value **items;        /* LIST */
    int n, cap;
    const wl_objtype *otype; /* OBJ */
    void *data;
};

/* Constructors return a new reference; a value is bookkeeping memory (wl_buf.h): running out of it aborts. */
wl_value *wl_num(double x);
wl_value *wl_int(long long x);
wl_value *wl_str(const char *s);
wl_value *wl_strn(const char *s, size_t n);
wl_value *wl_list(void);
void wl_list_push(wl_value *list, wl_value *item);   /* takes the reference to item */
wl_value *wl_list_nums(const double *x, int n);     /* a list of the numbers x [n] */
wl_value *wl_list_strs(char *const *s, size_t n);   /* a list of the strings s [n] */
wl_value *wl_obj(const wl_objtype *t, void *data);   /* takes ownership of data */
wl_value *wl_ref(wl_value *v);
void wl_unref(wl_value *v);
/* Frees data of type t (the type's free, its owned members, the data): what wl_unref does for an object's last
 * reference, and what a constructor does with data it made but gives no value. */
void wl_obj_free(const wl_objtype *t, void *data);
/* The object's data if v is an object of type t, else NULL. */
void *wl_obj_data(const wl_value *v, const wl_objtype *t);

/* "a number", "a string", "a list", "a model"...: for messages. */
const char *wl_value_kind(const wl_value *v);
/* Renders any value into a MIME bundle (text/plain always). Returns 0 / -1. */
int wl_value_render(const wl_value *v, wl_mime *out, wl_err *err);
/* Formats a number as the language shows it: integers plain, reals rounded to 4 decimals
 * with trailing zeros dropped but one kept (4.0, 1.3863). buf of at least 64 bytes. */
const char *wl_fmt_num(double x, int is_int, char *buf);
/* A count as every output writes it, with commas between groups of three digits (139,046); buf of at least 32 bytes. */
const char *wl_fmt_count(size_t n, char *buf);

/* ---- the command table ---- */

typedef struct wl_call wl_call;
typedef int (*wl_cmd_fn)(wl_call *c, wl_value **out);

enum {
    WL_CMD_FILES = 1,       /* reads or writes files: refused when the interp has allow_files = 0 */
    WL_CMD_RAW = 2,         /* receives its words unevaluated (see wl_call_eval_rest) */
    WL_CMD_SHOW_BOUND = 4,  /* its value is displayed even when bound with `name =` */
};

typedef struct wl_command {
    const char *name;
    const char *topic;       /* help groups commands by topic */
    const char *synopsis;    /* "perplexity P [P ...]" */
    const char *summary;     /* one line */
    const char *help;        /* the long help: what it does, its options (its value's fields come from result) */
    const char *example;     /* runnable lines; every example is executed by the tests */
    int min_args, max_args;  /* positional arguments; max_args -1: any number */
    const char *options;     /* space-separated allowed option keys, NULL: none */
    const char *subcommands; /* space-separated words allowed as the first argument, NULL: none */
    const char *choices;     /* "key=a|b key2=c": the values of options that take one of a few words (Tab completes
                              * them; the help names each), NULL: none */
    unsigned flags;
    wl_cmd_fn fn;
    const wl_objtype *result; /* the type of its value, whose fields help lists; NULL: none to list */
} wl_command;

/* The command called name, or NULL when there is none (cmd_table.c holds the table). */
const wl_command *wl_command_find(const char *name);
/* Iterates all commands in table order (`help` order): call with i = 0, 1, ... until NULL. */
const wl_command *wl_command_at(int i);

/* ---- calling convention ---- */

struct wl_call {
    wl_interp *in;
    const wl_command *cmd;
    int argc;                /* positional arguments (options excluded) */
    wl_value **argv;
    int nopts;
    const char **optk;
    wl_value **optv;
    const wl_sink *sink;
    wl_err *err;             /* the handler's message on failure */
    const char *ename;       /* set by helpers or handlers: "TypeError", "ArgumentError"...; default RuntimeError */
    int errword;             /* word index (0 = command name, 1.. = words) for the caret; -1: the statement's start */
    int allow_files;
    /* private to the evaluator and the helpers */
    const void *stmt;
    int *argword, *optword;
};

/* The helpers (lang_args.c). Positional argument i (0-based) as a number, integer in [lo,hi], string (numbers give
 * their text), or object of type t. On mismatch: -1 / NULL with a TypeError naming the argument (an ArgumentError
 * when it is missing or a whole number out of range). */
int wl_arg_num(wl_call *c, int i, double *out);
int wl_arg_int(wl_call *c, int i, long long lo, long long hi, long long *out);
const char *wl_arg_str(wl_call *c, int i);
void *wl_arg_obj(wl_call *c, int i, const wl_objtype *t);
/* Flattens positional arguments from..argc-1 (numbers, lists of numbers and values that stand for numbers) into a
 * malloc'd array (an error, not an abort, when the numbers do not fit in memory). */
int wl_args_nums(wl_call *c, int from, double **out, int *n);
/* Whether v is a number written with digits other than 0 that a double holds as 0 (1e-400 underflows). */
int wl_value_underflowed(const wl_value *v);

/* Options: when absent, *out = dflt and 0 is returned; a number must be finite. */
int wl_opt_num(wl_call *c, const char *key, double dflt, double *out);
int wl_opt_int(wl_call *c, const char *key, long long dflt, long long lo, long long hi, long long *out);
const char *wl_opt_str(wl_call *c, const char *key, const char *dflt);   /* NULL + error on a non-string */
wl_value *wl_opt_val(wl_call *c, const char *key);                         /* borrowed; NULL when absent */
int wl_opt_has(wl_call *c, const char *key);

/* Fails with ename (e.g. "ArgumentError") pointing at word (0 command, k = k-th word after it; past the last word: just
 * after it; -1: the statement's start). */
int wl_call_fail(wl_call *c, const char *ename, int word, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Position of positional argument i / option key as a word index for wl_call_fail. */
int wl_call_argword(const wl_call *c, int i);
int wl_call_optword(const wl_call *c, const char *key);
/* The value v (the one returned in *out) is the final state of the live display display_id that the handler
 * showed: when the statement's value is shown, it replaces that display instead of appearing a second time. */
void wl_call_replaces_display(wl_call *c, const wl_value *v, const char *display_id);
/* WL_CMD_RAW commands: evaluates words from..end of the statement as a command (nested).
 * Returns 0 / -1 (the nested error is kept and reported as is). */
int wl_call_eval_rest(wl_call *c, int from, wl_value **out);
/* Writes the arguments as text (strings as they are, other values as their text/plain), separated by
 * spaces and ended by a newline, to the sink's stream "stdout" or "stderr" (print and warn). */
int wl_call_write_args(wl_call *c, const char *stream);
/* A note or a warning (printf-style, one line of at most 510 characters; the newline is added) on the sink's stderr. */
void wl_call_note(wl_call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The options the interpreter was made with. */
const wl_interp_opts *wl_interp_options(const wl_interp *in);
/* A variable of the interpreter (borrowed) or NULL. */
wl_value *wl_interp_get(wl_interp *in, const char *name);

/* ---- renderers shared by the value types ---- */

/* HTML and JSON text: wl_buf_html, wl_buf_json_str ... (wl_buf.h). */

/* Colour scales (lang_colour.c): sequential for probabilities and weights (t in [0,1], light to dark blue),
 * diverging for signed values (t in [-1,1]: blue negative, near-white 0, red positive), loss (t in [0,1], light to
 * dark red). Text over a shade is black or white, whichever contrasts more (WCAG 2 relative luminance): at least
 * 4.58:1 over every colour. */
typedef enum wl_scale { WL_SCALE_SEQUENTIAL, WL_SCALE_DIVERGING, WL_SCALE_LOSS } wl_scale;
typedef struct wl_rgb {
    unsigned char r, g, b;
} wl_rgb;
wl_rgb wl_scale_rgb(wl_scale scale, double t);
double wl_rgb_luminance(wl_rgb c);
double wl_rgb_contrast(wl_rgb a, wl_rgb b);
wl_rgb wl_rgb_text_on(wl_rgb bg);
/* Appends "background:#rrggbb;color:#rrggbb;forced-color-adjust:none" for the shade t of scale: an opaque background
 * with readable text, kept as it is in a forced-colours (high-contrast) mode, where it still carries the value. Text
 * and lines outside the shades take the theme's colours (WL_CSS_*), which such a mode replaces. */
void wl_buf_shade_style(wl_buf *b, wl_scale scale, double t);
/* The front end's theme colours (JupyterLab's and Notebook 7's CSS variables) with the light theme's as fallbacks:
 * text, the page, lines, faint grid lines. Outside such a page (an SVG shown as an image) the fallbacks apply. */
#define WL_CSS_FG "var(--jp-ui-font-color0,#000)"
#define WL_CSS_FG2 "var(--jp-ui-font-color1,#222)"
#define WL_CSS_PAGE "var(--jp-layout-color0,#fff)"
#define WL_CSS_LINE "var(--jp-border-color1,#bdbdbd)"
#define WL_CSS_GRID "var(--jp-border-color2,#e0e0e0)"

/* An aligned table: text/plain with padded columns (numbers right-aligned), text/html with
 * optional shaded cells. Cell strings are copied. shade in [0,1] tints the cell (the sequential scale, its text
 * black or white by contrast); < 0 none; NAN: a masked cell (hatched grey). */
typedef struct wl_table wl_table;
wl_table *wl_table_new(int ncols);
void wl_table_free(wl_table *t);
void wl_table_title(wl_table *t, const char *title);
void wl_table_cell(wl_table *t, const char *text, double shade);  /* fills rows left to right */
void wl_table_cellf(wl_table *t, double shade, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void wl_table_header_rows(wl_table *t, int n);   /* the first n rows are headers */
void wl_table_header_cols(wl_table *t, int n);   /* the first n columns are row headers */
char *wl_table_text(const wl_table *t);
char *wl_table_html(const wl_table *t);

/* A heat map of rows x cols values (NAN: masked) with labels: Unicode shades for text, SVG with a colour bar,
 * HTML (the SVG in a box that scrolls, or a table of the numbers). Signed values take the diverging scale centred
 * on 0 (over plus and minus the largest magnitude: the text form writes the sign before each cell's shade);
 * others the sequential scale over [lo, hi]. Both forms name their axes, write the range (min, 0, max) and mark
 * masked cells (hatched grey; ╱ in text) with a legend entry. The text form numbers its columns (with a key when
 * their labels are not numbers) and folds into blocks of columns that fit width; the SVG splits wide maps into
 * panels of at most WL_HEATMAP_PANEL columns, its cells never under 14 px. title may be NULL. */
enum { WL_HEATMAP_PANEL = 32 };
typedef struct wl_heatmap {
    const char *title;
    int rows, cols;
    const double *v;              /* [rows, cols] the values; NAN: masked */
    const char *const *row_labels;
    const char *const *col_labels;
    const char *row_axis, *col_axis;   /* what a row and a column are ("query", "key", "dimension"); NULL: row, column */
    wl_scale scale;               /* WL_SCALE_DIVERGING for signed values; else sequential */
    double lo, hi;                /* the sequential range (lo == hi: the values' own min and max) */
    const char *masked;           /* what a masked cell is, for the legend; NULL: "masked" */
    int width;                    /* text columns to fit; 0: 80 */
} wl_heatmap;
char *wl_heatmap_text(const wl_heatmap *h);
char *wl_heatmap_svg(const wl_heatmap *h);
char *wl_heatmap_html(const wl_heatmap *h);        /* the numbers as a shaded table */
char *wl_heatmap_svg_html(const char *svg);        /* an SVG in a box that scrolls sideways when it is wider than the page */

/* Line chart of up to 4 series over x. NAN points are skipped. */
typedef struct wl_series {
    const char *name;
    const double *x, *y;
    int n;
} wl_series;
typedef struct wl_chart {
    const char *title, *xlabel, *ylabel;
    const wl_series *s;
    int ns;
    int x_integer;          /* x counts whole things (steps): ticks at whole numbers only */
    int y_from_zero;        /* the y axis starts at 0, so that small differences look small */
    double ref_y;           /* a dashed horizontal reference line at this y (e.g. 1/n, uniform weights); NAN: none */
    const char *ref_label;  /* its legend entry */
} wl_chart;
/* Ticks at 1, 2 or 5 x 10^k (whole numbers when integer), at most about max_ticks of them, covering
 * [lo, hi]: the first tick *t0, the step *step, the count (returned); *t0 <= lo and the last tick >= hi. */
int wl_nice_ticks(double lo, double hi, int max_ticks, int integer, double *t0, double *step);
char *wl_chart_svg(const wl_chart *c);
/* The same chart as a Vega-Lite v5 specification (application/vnd.vegalite.v5+json). */
char *wl_chart_vegalite(const wl_chart *c);

#endif

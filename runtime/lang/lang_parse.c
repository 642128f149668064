/* lang_parse.c: the lexer and parser: words, quoted strings, $variables, [commands], options, bindings, comments. */
#include "lang_int.h"
#include "wl_utf8.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *s;
    size_t len, pos;
    int line, col;
    int depth;
    wl_parse_error *pe;
    int failed;
} parser;

static int perr(parser *p, int line, int col, int incomplete, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int perr(parser *p, int line, int col, int incomplete, const char *fmt, ...)
{
    if (!p->failed) p->pe->incomplete = incomplete;
    va_list ap;
    va_start(ap, fmt);
    wl_lang_error_vset(&p->pe->e, &p->failed, "ParseError", line, col, fmt, ap);
    va_end(ap);
    return -1;
}

static int peek(const parser *p) { return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1; }
static int peek_at(const parser *p, size_t k) { return p->pos + k < p->len ? (unsigned char)p->s[p->pos + k] : -1; }

/* Advances one byte, keeping line and column (in code points) up to date. */
static void adv(parser *p)
{
    const char *c = p->s + p->pos++;
    if (*c == '\n') {
        p->line++;
        p->col = 1;
    } else {
        p->col += (int)wl_utf8_cp_count(c, 1);   /* 1 for a byte that starts a code point */
    }
}

static int is_id_start(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_id_char(int c) { return is_id_start(c) || (c >= '0' && c <= '9'); }

int wl_is_ident(const char *s)
{
    if (!is_id_start((unsigned char)*s)) return 0;
    for (s++; *s; s++)
        if (!is_id_char((unsigned char)*s)) return 0;
    return 1;
}

int wl_parse_number(const char *s, double *x, int *is_int)
{
    const char *p = s;
    int digits = 0, frac = 0;
    *x = 0;
    if (*p == '+' || *p == '-') p++;
    while (*p >= '0' && *p <= '9') p++, digits++;
    if (*p == '.') {
        p++;
        frac = 1;
        while (*p >= '0' && *p <= '9') p++, digits++;
    }
    if (!digits) return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        frac = 1;
        if (*p == '+' || *p == '-') p++;
        if (!(*p >= '0' && *p <= '9')) return 0;
        while (*p >= '0' && *p <= '9') p++;
    }
    if (*p) return 0;
    *x = strtod(s, NULL);
    *is_int = !frac && fabs(*x) < 9007199254740992.0;
    return isfinite(*x);
}

/* ---- building words ---- */

typedef struct wbuild {
    wl_word w;
    wl_buf lit;              /* the literal being accumulated */
    int lit_line, lit_col;
    int quoted;              /* anything quoted, escaped or substituted so far */
    size_t bare_prefix;      /* bytes of the leading run of unquoted text */
    int prefix_open;         /* still in that leading run */
} wbuild;

static void flush_lit(wbuild *b)
{
    if (!b->lit.len) return;
    b->w.parts = wl_xrealloc(b->w.parts, sizeof(wl_part) * (size_t)(b->w.nparts + 1));
    wl_part *pt = &b->w.parts[b->w.nparts++];
    memset(pt, 0, sizeof *pt);
    pt->kind = WL_P_LIT;
    pt->len = b->lit.len;
    pt->text = wl_buf_take(&b->lit);
    pt->line = b->lit_line;
    pt->col = b->lit_col;
}

static void lit_byte(wbuild *b, parser *p, char c, int bare)
{
    if (!b->lit.len) {
        b->lit_line = p->line;
        b->lit_col = p->col;
    }
    wl_buf_put(&b->lit, &c, 1);
    if (bare && b->prefix_open) b->bare_prefix++;
    if (!bare) {
        b->prefix_open = 0;
        b->quoted = 1;
    }
}

static wl_part *new_part(wbuild *b, wl_part_kind kind, int line, int col)
{
    flush_lit(b);
    b->prefix_open = 0;
    b->quoted = 1;
    b->w.parts = wl_xrealloc(b->w.parts, sizeof(wl_part) * (size_t)(b->w.nparts + 1));
    wl_part *pt = &b->w.parts[b->w.nparts++];
    memset(pt, 0, sizeof *pt);
    pt->kind = kind;
    pt->line = line;
    pt->col = col;
    return pt;
}

static void free_word(wl_word *w)
{
    for (int i = 0; i < w->nparts; i++) {
        wl_part *pt = &w->parts[i];
        free(pt->text);
        for (int k = 0; k < pt->nfields; k++) free(pt->fields[k]);
        free(pt->fields);
        wl_script_free(pt->sub);
    }
    free(w->parts);
    free(w->optkey);
    memset(w, 0, sizeof *w);
}

static void free_stmt(wl_stmt *st)
{
    for (int i = 0; i < st->nwords; i++) free_word(&st->words[i]);
    free(st->words);
    free(st->bind);
}

void wl_script_free(wl_script *s)
{
    if (!s) return;
    for (int i = 0; i < s->n; i++) free_stmt(&s->stmts[i]);
    free(s->stmts);
    free(s);
}

static wl_script *parse_script(parser *p, int in_bracket);

/* $name, ${name}, $name.field.field; a $ not followed by a name is a literal $. */
static int parse_var(parser *p, wbuild *b, int bare)
{
    int line = p->line, col = p->col;
    if (peek_at(p, 1) == '{') {
        adv(p);
        adv(p);
        size_t start = p->pos;
        while (peek(p) >= 0 && is_id_char(peek(p))) adv(p);
        if (peek(p) != '}' || p->pos == start || !is_id_start((unsigned char)p->s[start]))
            return perr(p, line, col, peek(p) < 0, "expected ${name} with a name of letters, digits and _");
        wl_part *pt = new_part(b, WL_P_VAR, line, col);
        pt->len = p->pos - start;
        pt->text = wl_xstrndup(p->s + start, pt->len);
        adv(p);
        return 0;
    }
    if (!is_id_start(peek_at(p, 1))) {
        lit_byte(b, p, '$', bare);
        adv(p);
        return 0;
    }
    adv(p);
    size_t start = p->pos;
    while (peek(p) >= 0 && is_id_char(peek(p))) adv(p);
    wl_part *pt = new_part(b, WL_P_VAR, line, col);
    pt->len = p->pos - start;
    pt->text = wl_xstrndup(p->s + start, pt->len);
    /* .name, .3, and .-1 (an index from the end) */
    while (peek(p) == '.' &&
           (is_id_char(peek_at(p, 1)) || (peek_at(p, 1) == '-' && peek_at(p, 2) >= '0' && peek_at(p, 2) <= '9'))) {
        adv(p);
        size_t fs = p->pos;
        if (peek(p) == '-') adv(p);
        while (peek(p) >= 0 && is_id_char(peek(p))) adv(p);
        pt->fields = wl_xrealloc(pt->fields, sizeof(char *) * (size_t)(pt->nfields + 1));
        pt->fields[pt->nfields++] = wl_xstrndup(p->s + fs, p->pos - fs);
    }
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A backslash escape: \n \t \r \\ \" \' \$ \[ \] \# \; \= \ (space), \uXXXX, \u{X...}. */
static int parse_escape(parser *p, wbuild *b)
{
    int line = p->line, col = p->col;
    adv(p);
    int c = peek(p);
    if (c < 0) return perr(p, line, col, 1, "a backslash at the end of the code");
    char out = 0;
    switch (c) {
    case 'n': out = '\n'; break;
    case 't': out = '\t'; break;
    case 'r': out = '\r'; break;
    case '\\': case '"': case '$': case '[': case ']': case '#': case ';': case '=': case ' ': case '\'':
        out = (char)c;
        break;
    case 'u': {
        adv(p);
        unsigned long cp = 0;
        int braced = peek(p) == '{', nd = 0;
        if (braced) adv(p);
        while (nd < (braced ? 6 : 4) && hexval(peek(p)) >= 0) {
            cp = cp * 16 + (unsigned long)hexval(peek(p));
            adv(p);
            nd++;
        }
        if (braced) {
            if (peek(p) != '}') return perr(p, line, col, 0, "\\u{...} needs 1 to 6 hex digits and a closing }");
            adv(p);
        }
        if (nd == 0 || (!braced && nd != 4) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0)
            return perr(p, line, col, 0, "bad \\u escape: write \\u00e9 or \\u{1F600} (a code point, not 0 or a surrogate)");
        char u[4];
        size_t n = wl_utf8_put((uint32_t)cp, u);
        for (size_t i = 0; i < n; i++) lit_byte(b, p, u[i], 0);
        return 0;
    }
    default:
        return perr(p, line, col, 0, "unknown escape \\%c: use \\n \\t \\\\ \\\" \\$ or \\u{...} (a backslash is written \\\\)",
                    c >= 32 && c < 127 ? c : '?');
    }
    lit_byte(b, p, out, 0);
    adv(p);
    return 0;
}

static int parse_quoted(parser *p, wbuild *b)
{
    int line = p->line, col = p->col;
    adv(p);
    b->prefix_open = 0;
    b->quoted = 1;
    if (!b->lit.len) {
        b->lit_line = p->line;
        b->lit_col = p->col;
    }
    for (;;) {
        int c = peek(p);
        if (c < 0) return perr(p, line, col, 1, "unterminated string: this \" has no closing \"");
        if (c == '"') {
            adv(p);
            return 0;
        }
        if (c == '\\') {
            if (parse_escape(p, b)) return -1;
        } else if (c == '$') {
            if (parse_var(p, b, 0)) return -1;
        } else {
            lit_byte(b, p, (char)c, 0);
            adv(p);
        }
    }
}

static int parse_bracket(parser *p, wbuild *b)
{
    int line = p->line, col = p->col;
    if (p->depth >= WL_LANG_MAX_DEPTH)
        return perr(p, line, col, 0, "brackets nested deeper than %d levels", WL_LANG_MAX_DEPTH);
    adv(p);
    p->depth++;
    wl_script *sub = parse_script(p, 1);
    p->depth--;
    if (!sub) return -1;
    wl_part *pt = new_part(b, WL_P_SUBST, line, col);
    pt->sub = sub;
    if (peek(p) != ']') return perr(p, line, col, 1, "unclosed [: this [ has no matching ]");
    adv(p);
    if (sub->n == 0) return perr(p, line, col, 0, "empty [ ]: put a command inside, e.g. [mean 1 2]");
    return 0;
}

static int word_end(const parser *p, int in_bracket)
{
    int c = peek(p);
    return c < 0 || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || (c == ']' && in_bracket) ||
           (c == '\\' && peek_at(p, 1) == '\n');
}

static int parse_word(parser *p, wl_word *out, int in_bracket)
{
    wbuild b;
    memset(&b, 0, sizeof b);
    b.prefix_open = 1;
    b.w.line = p->line;
    b.w.col = p->col;
    b.w.off = p->pos;
    while (!word_end(p, in_bracket)) {
        int c = peek(p);
        int rc = 0;
        if (c == '"') rc = parse_quoted(p, &b);
        else if (c == '[') rc = parse_bracket(p, &b);
        else if (c == '$') rc = parse_var(p, &b, 1);
        else if (c == '\\') rc = parse_escape(p, &b);
        else if (c == ']') rc = perr(p, p->line, p->col, 0, "unexpected ]: there is no [ open");
        else {
            lit_byte(&b, p, (char)c, 1);
            adv(p);
        }
        if (rc) {
            flush_lit(&b);
            free_word(&b.w);
            free(b.lit.s);
            return -1;
        }
    }
    flush_lit(&b);
    b.w.end = p->pos;
    b.w.bare = !b.quoted;
    /* key=value: an identifier in the leading unquoted text, then '=' (not "=" alone). */
    if (b.w.nparts && b.w.parts[0].kind == WL_P_LIT) {
        wl_part *pt = &b.w.parts[0];
        size_t k = 0;
        while (k < b.bare_prefix && k < pt->len && is_id_char((unsigned char)pt->text[k])) k++;
        if (k > 0 && k < b.bare_prefix && pt->text[k] == '=' && is_id_start((unsigned char)pt->text[0])) {
            b.w.optkey = wl_xstrndup(pt->text, k);
            size_t rest = pt->len - k - 1;
            memmove(pt->text, pt->text + k + 1, rest + 1);
            pt->len = rest;
            pt->col += (int)k + 1;
            if (!rest && b.w.nparts > 1) {
                free(pt->text);
                memmove(b.w.parts, b.w.parts + 1, sizeof(wl_part) * (size_t)(b.w.nparts - 1));
                b.w.nparts--;
            }
        }
    }
    *out = b.w;
    return 0;
}

/* Skips blanks, comments and backslash-newlines; newlines too when nl is set. */
static void skip_space(parser *p, int nl)
{
    for (;;) {
        int c = peek(p);
        if (c == ' ' || c == '\t' || c == '\r' || (nl && c == '\n')) adv(p);
        else if (c == '\\' && peek_at(p, 1) == '\n') { adv(p); adv(p); }
        else if (c == '\\' && peek_at(p, 1) == '\r' && peek_at(p, 2) == '\n') { adv(p); adv(p); adv(p); }
        else if (c == '#') { while (peek(p) >= 0 && peek(p) != '\n') adv(p); }
        else return;
    }
}

static int finish_stmt(parser *p, wl_stmt *st)
{
    if (st->nwords >= 2 && st->words[1].bare && st->words[1].nparts == 1 && !st->words[1].optkey &&
        !strcmp(st->words[1].parts[0].text, "=")) {
        const char *name = wl_word_bare(&st->words[0]);
        if (!name || !wl_is_ident(name))
            return perr(p, st->words[0].line, st->words[0].col, 0,
                        "only a name (letters, digits, _) can be given a value with =");
        if (st->nwords == 2)
            return perr(p, st->words[1].line, st->words[1].col + 1, 0, "expected a command or value after `%s =`", name);
        st->bind = wl_xstrdup(name);
        free_word(&st->words[0]);
        free_word(&st->words[1]);
        memmove(st->words, st->words + 2, sizeof(wl_word) * (size_t)(st->nwords - 2));
        st->nwords -= 2;
        st->line = st->words[0].line;
        st->col = st->words[0].col;
    }
    if (st->words[0].optkey)
        return perr(p, st->words[0].line, st->words[0].col, 0,
                    "a line starts with a command, not an option; to keep a value write `%s = ...` with spaces",
                    st->words[0].optkey);
    return 0;
}

static wl_script *parse_script(parser *p, int in_bracket)
{
    wl_script *s = wl_xcalloc(1, sizeof *s);
    wl_stmt cur;
    memset(&cur, 0, sizeof cur);
    for (;;) {
        skip_space(p, in_bracket);
        int c = peek(p);
        int end = c < 0 || (in_bracket && c == ']');
        if (end || c == '\n' || c == ';') {
            if (cur.nwords) {
                cur.end = cur.words[cur.nwords - 1].end;
                if (finish_stmt(p, &cur)) break;
                s->stmts = wl_xrealloc(s->stmts, sizeof(wl_stmt) * (size_t)(s->n + 1));
                s->stmts[s->n++] = cur;
                memset(&cur, 0, sizeof cur);
            }
            if (end) return s;
            adv(p);
            continue;
        }
        if (!cur.nwords) {
            cur.line = p->line;
            cur.col = p->col;
            cur.off = p->pos;
        }
        wl_word w;
        if (parse_word(p, &w, in_bracket)) break;
        cur.words = wl_xrealloc(cur.words, sizeof(wl_word) * (size_t)(cur.nwords + 1));
        cur.words[cur.nwords++] = w;
    }
    free_stmt(&cur);
    wl_script_free(s);
    return NULL;
}

char *wl_parse_line_breaks(const char *code, size_t len)
{
    char *s = wl_xmalloc(len + 1);
    for (size_t i = 0; i < len; i++) s[i] = code[i] == '\r' && (i + 1 == len || code[i + 1] != '\n') ? '\n' : code[i];
    s[len] = 0;
    return s;
}

wl_script *wl_parse(const char *code, size_t len, wl_parse_error *pe)
{
    parser p = {.s = code, .len = len, .line = 1, .col = 1, .pe = pe};
    memset(pe, 0, sizeof *pe);
    if (len >= 3 && !memcmp(code, WL_UTF8_BOM, 3)) p.pos = 3;   /* an editor's byte-order mark: not code, no column */
    for (size_t i = 0; i < len;) {
        size_t k = code[i] ? wl_utf8_next(code + i, len - i, NULL) : 0;
        if (!k) {
            while (p.pos < i) adv(&p);
            perr(&p, p.line, p.col, 0, code[i] ? "invalid UTF-8 at byte %zu" : "a NUL byte at byte %zu", i);
            return NULL;
        }
        i += k;
    }
    return parse_script(&p, 0);
}

const char *wl_word_bare(const wl_word *w)
{
    if (!w->bare || w->optkey || w->nparts != 1 || w->parts[0].kind != WL_P_LIT) return NULL;
    return w->parts[0].text;
}

char wl_word_op(const wl_word *w)
{
    const char *t = wl_word_bare(w);
    return t && t[0] && !t[1] && strchr("+-*/", t[0]) ? t[0] : 0;
}

const char *wl_parse_quote_hint(const char *line, size_t len)
{
    static const char *const QUOTES[] = {"\u201C", "\u201D", "\u2018"};   /* “ ” ‘ (’ is also an apostrophe) */
    for (size_t q = 0; q < sizeof QUOTES / sizeof *QUOTES; q++)
        if (memmem(line, len, QUOTES[q], strlen(QUOTES[q])))
            return q < 2 ? "\u201C \u201D are typographic quotes; type \" instead"
                         : "\u2018 \u2019 are typographic quotes; type \" instead";
    return NULL;
}

/* wl_text.c: normalize (NFKC, str.lower(), whitespace), tokenize and detokenize with Python's Unicode rules. */
#include "wl_text.h"
#include "wl_utf8.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

const char *const wl_text_specials[WL_TEXT_NSPECIALS] = {"<PAD>", "<BOS>", "<EOS>", "<UNK>"};

void wl_tokens_free(wl_tokens *t)
{
    if (!t) return;
    free(t->tok);
    free(t->buf);
    t->tok = NULL;
    t->buf = NULL;
    t->n = 0;
    t->dropped = 0;
    t->first_dropped[0] = 0;
}

int wl_text_utf8_check(const char *s, size_t n, size_t *bad_offset)
{
    size_t i = 0, k;
    while (i < n && (k = (unsigned char)s[i] < 0x80 ? 1 : wl_utf8_next(s + i, n - i, NULL))) i += k;   /* ASCII inline */
    if (i == n) return 0;
    if (bad_offset) *bad_offset = i;
    return -1;
}

/* The code point at p in valid UTF-8 (n bytes left); *len gets its byte length. */
static int32_t utf8_decode(const unsigned char *p, size_t n, size_t *len)
{
    uint32_t cp = p[0];
    *len = cp < 0x80 ? 1 : wl_utf8_next((const char *)p, n, &cp);   /* ASCII inline */
    return (int32_t)cp;
}

int wl_text_is_space(int32_t c)
{
    if (c < 0x80) return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
    return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
           c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

int wl_text_is_word(int32_t c)
{
    if (c < 0x80)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    utf8proc_category_t cat = utf8proc_category(c);
    return (cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO) ||
           (cat >= UTF8PROC_CATEGORY_ND && cat <= UTF8PROC_CATEGORY_NO);
}

typedef struct { int32_t lo, hi; } cp_range;

static int in_ranges(int32_t c, const cp_range *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (c >= r[i].lo && c <= r[i].hi) return 1;
    return 0;
}

/* Other_Lowercase and Other_Uppercase (PropList.txt): cased although not Lu, Ll or Lt. */
static const cp_range OTHER_CASED[] = {
    {0xAA, 0xAA}, {0xBA, 0xBA}, {0x2B0, 0x2B8}, {0x2C0, 0x2C1}, {0x2E0, 0x2E4}, {0x345, 0x345},
    {0x37A, 0x37A}, {0x10FC, 0x10FC}, {0x1D2C, 0x1D6A}, {0x1D78, 0x1D78}, {0x1D9B, 0x1DBF},
    {0x2071, 0x2071}, {0x207F, 0x207F}, {0x2090, 0x209C}, {0x2160, 0x217F}, {0x24B6, 0x24E9},
    {0x2C7C, 0x2C7D}, {0xA69C, 0xA69D}, {0xA770, 0xA770}, {0xA7F8, 0xA7F9}, {0xAB5C, 0xAB5F},
    {0x10780, 0x10780}, {0x10783, 0x10785}, {0x10787, 0x107B0}, {0x107B2, 0x107BA},
    {0x1F130, 0x1F149}, {0x1F150, 0x1F169}, {0x1F170, 0x1F189},
};

/* Word_Break MidLetter, MidNumLet and Single_Quote: case-ignorable whatever their category. */
static const cp_range MID_WORD[] = {
    {0x27, 0x27}, {0x2E, 0x2E}, {0x3A, 0x3A}, {0xB7, 0xB7}, {0x387, 0x387}, {0x55F, 0x55F},
    {0x5F4, 0x5F4}, {0x2018, 0x2019}, {0x2024, 0x2024}, {0x2027, 0x2027}, {0xFE13, 0xFE13},
    {0xFE52, 0xFE52}, {0xFE55, 0xFE55}, {0xFF07, 0xFF07}, {0xFF0E, 0xFF0E}, {0xFF1A, 0xFF1A},
};

static int is_cased(int32_t c)
{
    utf8proc_category_t cat = utf8proc_category(c);
    return (cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LT) ||
           in_ranges(c, OTHER_CASED, sizeof OTHER_CASED / sizeof OTHER_CASED[0]);
}

static int is_case_ignorable(int32_t c)
{
    utf8proc_category_t cat = utf8proc_category(c);
    return cat == UTF8PROC_CATEGORY_MN || cat == UTF8PROC_CATEGORY_ME || cat == UTF8PROC_CATEGORY_CF ||
           cat == UTF8PROC_CATEGORY_LM || cat == UTF8PROC_CATEGORY_SK ||
           in_ranges(c, MID_WORD, sizeof MID_WORD / sizeof MID_WORD[0]);
}

/* str.lower()'s Final_Sigma test for the capital sigma at cp[i]:
 * cased, case-ignorable*, SIGMA, and no case-ignorable* cased after it. */
static int final_sigma(const int32_t *cp, size_t n, size_t i)
{
    size_t j = i;
    while (j > 0 && is_case_ignorable(cp[j - 1])) j--;
    if (j == 0 || !is_cased(cp[j - 1])) return 0;
    for (j = i + 1; j < n && is_case_ignorable(cp[j]); j++) {}
    return j == n || !is_cased(cp[j]);
}

/* Makes room for need code points in *buf (of capacity *cap). */
static int reserve(int32_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    int32_t *nb = realloc(*buf, need * sizeof *nb);
    if (!nb) return -1;
    *buf = nb;
    *cap = need;
    return 0;
}

/* NFKC of valid UTF-8 as code points: *cps is malloc'd, *ncp its length.
 * An ASCII character is a starter that nothing before it composes with, so NFKC(a b) =
 * NFKC(a) NFKC(b) whenever b starts with ASCII: ASCII is copied as is, and only each run of
 * non-ASCII characters, with the ASCII character just before it, goes through utf8proc. */
static int nfkc(const char *s, size_t n, int32_t **cps, size_t *ncp, wl_err *err)
{
    const utf8proc_option_t opts = UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
    const unsigned char *p = (const unsigned char *)s;
    int32_t *buf = NULL;
    size_t cap = 0, m = 0, i = 0;
    utf8proc_ssize_t r = 0;
    while (i < n && r >= 0) {
        size_t j = i, k;
        while (j < n && p[j] < 0x80) j++;
        size_t start = j < n && j > i ? j - 1 : j;   /* the ASCII character before a non-ASCII run */
        if (reserve(&buf, &cap, m + (n - i) + 16)) break;
        while (i < start) buf[m++] = p[i++];
        for (k = j; k < n && p[k] >= 0x80; k++) {}
        if (start == k) continue;
        for (;;) {
            r = utf8proc_decompose(p + start, (utf8proc_ssize_t)(k - start), buf + m, (utf8proc_ssize_t)(cap - m), opts);
            if (r <= (utf8proc_ssize_t)(cap - m) || reserve(&buf, &cap, m + (size_t)r + (n - k) + 16)) break;
        }
        if (r > (utf8proc_ssize_t)(cap - m)) break;
        if (r >= 0) r = utf8proc_normalize_utf32(buf + m, r, opts);
        if (r >= 0) m += (size_t)r;
        i = k;
    }
    if (r < 0 || i < n) {
        free(buf);
        if (r < 0) return wl_fail(err, "cannot normalize text: %s", utf8proc_errmsg(r));
        return wl_fail(err, "out of memory normalizing %zu bytes of text", n);
    }
    *cps = buf;
    *ncp = m;
    return 0;
}

static size_t put_cp(char *o, int32_t c)
{
    return wl_utf8_put((uint32_t)c, o);
}

int wl_text_normalize(const char *s, size_t n, char **out, size_t *out_len, wl_err *err)
{
    size_t bad;
    if (wl_text_utf8_check(s, n, &bad)) return wl_fail(err, "invalid UTF-8 at byte offset %zu", bad);
    int32_t *cp = NULL;
    size_t m = 0;
    if (nfkc(s, n, &cp, &m, err)) return -1;
    /* At most 4 bytes per code point: U+0130 becomes 3 bytes (i, U+0307). */
    char *o = malloc(4 * m + 1);
    if (!o) {
        free(cp);
        return wl_fail(err, "out of memory normalizing %zu bytes of text", n);
    }
    size_t k = 0;
    int space = 0;
    for (size_t i = 0; i < m; i++) {
        int32_t c = cp[i];
        if (wl_text_is_space(c)) {
            space = k > 0;
            continue;
        }
        if (space) o[k++] = ' ', space = 0;
        if (c == 0x130) {                      /* the one unconditional full lower-case mapping */
            o[k++] = 'i';
            k += put_cp(o + k, 0x307);
        } else if (c == 0x3A3) {
            k += put_cp(o + k, final_sigma(cp, m, i) ? 0x3C2 : 0x3C3);
        } else {
            k += put_cp(o + k, c < 0x80 ? (c >= 'A' && c <= 'Z' ? c + 32 : c) : utf8proc_tolower(c));
        }
    }
    o[k] = '\0';
    free(cp);
    *out = o;
    if (out_len) *out_len = k;
    return 0;
}

/* [a-z] under IGNORECASE: the simple lower case of c is a..z, or U+0131 / U+017F, which
 * Python's re treats as case-equal to 'i' and 's'. */
static int is_letter(int32_t c)
{
    if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    int32_t l = utf8proc_tolower(c);
    return (l >= 'a' && l <= 'z') || l == 0x131 || l == 0x17F;
}

/* End of the run of letters starting at byte i. */
static size_t letter_run(const unsigned char *p, size_t n, size_t i)
{
    size_t len;
    while (i < n && is_letter(utf8_decode(p + i, n - i, &len))) i += len;
    return i;
}

int wl_text_tokenize_normalized(const char *norm, size_t n, wl_tokens *out, wl_err *err)
{
    size_t bad;
    out->n = 0;
    out->tok = NULL;
    out->buf = NULL;
    out->dropped = 0;
    out->first_dropped[0] = 0;
    if (wl_text_utf8_check(norm, n, &bad)) return wl_fail(err, "invalid UTF-8 at byte offset %zu", bad);
    /* Every token has at least one byte, and each gets a NUL: 2n + 1 bytes suffice. */
    out->buf = malloc(2 * n + 1);
    out->tok = malloc((n + 1) * sizeof *out->tok);
    if (!out->buf || !out->tok) {
        wl_tokens_free(out);
        return wl_fail(err, "out of memory tokenizing %zu bytes of text", n);
    }
    const unsigned char *p = (const unsigned char *)norm;
    size_t i = 0, b = 0, len;
    while (i < n) {
        int32_t c = utf8_decode(p + i, n - i, &len);
        size_t end;
        if (is_letter(c)) {
            end = letter_run(p, n, i);
            if (end + 1 < n && p[end] == '\'' && is_letter(utf8_decode(p + end + 1, n - end - 1, &len)))
                end = letter_run(p, n, end + 1);
        } else if (c >= '0' && c <= '9') {
            for (end = i + 1; end < n && p[end] >= '0' && p[end] <= '9'; end++) {}
        } else if (!wl_text_is_word(c) && !wl_text_is_space(c)) {
            end = i + len;
        } else {
            if (!wl_text_is_space(c) && !out->dropped++) memcpy(out->first_dropped, p + i, len), out->first_dropped[len] = 0;
            i += len;
            continue;
        }
        out->tok[out->n++] = out->buf + b;
        memcpy(out->buf + b, p + i, end - i);
        b += end - i;
        out->buf[b++] = '\0';
        i = end;
    }
    char **shrunk = realloc(out->tok, (out->n ? out->n : 1) * sizeof *out->tok);
    if (shrunk) out->tok = shrunk;
    return 0;
}

int wl_text_tokenize(const char *s, size_t n, wl_tokens *out, wl_err *err)
{
    char *norm;
    size_t len;
    out->n = 0;
    out->tok = NULL;
    out->buf = NULL;
    if (wl_text_normalize(s, n, &norm, &len, err)) return -1;
    int rc = wl_text_tokenize_normalized(norm, len, out, err);
    free(norm);
    return rc;
}

/* Detokenizing rules: a rule removes a run of spaces when the character just before it
 * (before != 0) or just after it (before == 0) is in its set. */
typedef struct {
    int before;
    const char *ascii;   /* single-byte members */
    const char *utf8;    /* one multi-byte member, or NULL */
} squeeze_rule;

static const squeeze_rule RULES[] = {
    {0, ".,!?;:%)]}", NULL},
    {1, "([{", NULL},
    {1, "\"", "\xE2\x80\x9C"},   /* “ */
    {0, "\"", "\xE2\x80\x9D"},   /* ” */
};

static int rule_matches(const squeeze_rule *r, const char *s, size_t len, int at_end)
{
    if (len == 0) return 0;
    char c = at_end ? s[len - 1] : s[0];
    if (c && strchr(r->ascii, c)) return 1;
    size_t ul = r->utf8 ? strlen(r->utf8) : 0;
    return ul && len >= ul && !memcmp(at_end ? s + len - ul : s, r->utf8, ul);
}

/* What stays of the run of spaces s[i..e): the caller's output so far is s[0..*w); at_run writes what stays after
 * it, advances *w and returns where the pass goes on. r is the pass's rule (NULL for the apostrophes). */
typedef size_t (*squeeze_run_fn)(char *s, size_t n, size_t *w, size_t i, size_t e, const squeeze_rule *r);

/* One pass in place: every byte other than a space stays, every run of spaces goes to at_run; returns the new length. */
static size_t squeeze_pass(char *s, size_t n, squeeze_run_fn at_run, const squeeze_rule *r)
{
    size_t w = 0, i = 0;
    while (i < n) {
        if (s[i] != ' ') {
            s[w++] = s[i++];
            continue;
        }
        size_t e = i;
        while (e < n && s[e] == ' ') e++;
        i = at_run(s, n, &w, i, e, r);
    }
    return w;
}

static size_t keep_run(char *s, size_t *w, size_t i, size_t e)
{
    memmove(s + *w, s + i, e - i);
    *w += e - i;
    return e;
}

/* One rule: the run goes when the character just before it (the last one written) or just after it matches. */
static size_t rule_run(char *s, size_t n, size_t *w, size_t i, size_t e, const squeeze_rule *r)
{
    int drop = r->before ? rule_matches(r, s, *w, 1) : rule_matches(r, s + e, n - e, 0);
    return drop ? e : keep_run(s, w, i, e);
}

/* A run of spaces, an apostrophe and any spaces after it become a bare apostrophe (left to right, no overlap: the
 * regex \s+'\s*). */
static size_t apostrophe_run(char *s, size_t n, size_t *w, size_t i, size_t e, const squeeze_rule *r)
{
    (void)r;
    if (e < n && s[e] == '\'') {
        s[(*w)++] = '\'';
        for (i = e + 1; i < n && s[i] == ' '; i++) {}
        return i;
    }
    return keep_run(s, w, i, e);
}

static int is_special(const char *t)
{
    for (int i = 0; i < WL_TEXT_NSPECIALS; i++)
        if (!strcmp(t, wl_text_specials[i])) return 1;
    return 0;
}

int wl_text_detokenize(const char *const *tokens, size_t n, char **out, wl_err *err)
{
    size_t total = 1;
    for (size_t i = 0; i < n; i++) total += strlen(tokens[i]) + 1;
    char *s = malloc(total);
    if (!s) return wl_fail(err, "out of memory detokenizing %zu tokens", n);
    size_t len = 0, kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (is_special(tokens[i])) continue;
        if (kept++) s[len++] = ' ';
        size_t tl = strlen(tokens[i]);
        memcpy(s + len, tokens[i], tl);
        len += tl;
    }
    for (size_t r = 0; r < sizeof RULES / sizeof RULES[0]; r++) len = squeeze_pass(s, len, rule_run, &RULES[r]);
    len = squeeze_pass(s, len, apostrophe_run, NULL);
    size_t a = 0;
    while (a < len && s[a] == ' ') a++;
    while (len > a && s[len - 1] == ' ') len--;
    memmove(s, s + a, len - a);
    s[len - a] = '\0';
    *out = s;
    return 0;
}

/* ---- readable text ---- */

typedef enum { RD_WORD, RD_CLOSE, RD_OPEN, RD_JOIN } rd_class;   /* what a token does to the spaces around it */

#define LQUOTE "\xE2\x80\x9C"   /* “ */
#define RQUOTE "\xE2\x80\x9D"   /* ” */
#define LSINGLE "\xE2\x80\x98"  /* ‘ */
#define RSINGLE "\xE2\x80\x99"  /* ’ */

static int is_letters(const char *t)
{
    if (!*t) return 0;
    for (; *t; t++)
        if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || *t == '\'')) return 0;
    return 1;
}

static int is_contraction_end(const char *t)
{
    static const char *const ends[] = {"s", "t", "d", "m", "ll", "re", "ve"};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++)
        if (!strcmp(t, ends[i])) return 1;
    return 0;
}

static int is_single(const char *t) { return !strcmp(t, "'") || !strcmp(t, RSINGLE); }

/* The kept token after index i (specials skipped), or NULL. */
static const char *next_kept(const char *const *tokens, size_t n, size_t i)
{
    for (size_t k = i + 1; k < n; k++)
        if (!is_special(tokens[k])) return tokens[k];
    return NULL;
}

/* Whether another single quote follows tokens[i] before the sentence ends (. ! ? or a straight double quote). */
static int single_follows(const char *const *tokens, size_t n, size_t i)
{
    for (size_t k = i + 1; k < n; k++) {
        const char *t = tokens[k];
        if (is_single(t)) return 1;
        if (!strcmp(t, ".") || !strcmp(t, "!") || !strcmp(t, "?") || !strcmp(t, "\"")) return 0;
    }
    return 0;
}

/* The class of tokens[i] after prev (the kept token before it, or NULL); dq and sq: a straight double or single quote
 * is open (updated). */
static rd_class readable_class(const char *const *tokens, size_t n, size_t i, const char *prev, int *dq, int *sq)
{
    const char *t = tokens[i];
    if (t[0] && !t[1] && strchr(".,!?;:%)]}", t[0])) return RD_CLOSE;
    if (t[0] && !t[1] && strchr("([{", t[0])) return RD_OPEN;
    if (!strcmp(t, "\"")) return (*dq = !*dq) ? RD_OPEN : RD_CLOSE;
    if (!strcmp(t, LQUOTE) || !strcmp(t, LSINGLE)) return RD_OPEN;
    if (!strcmp(t, RQUOTE)) return RD_CLOSE;
    if (!is_single(t)) return RD_WORD;
    const char *next = next_kept(tokens, n, i);
    int after_word = prev && is_letters(prev);
    if (after_word && next && is_contraction_end(next)) return RD_JOIN;
    if (*sq) {
        *sq = 0;
        return RD_CLOSE;
    }
    if (after_word && (t[0] != '\'' || (prev[strlen(prev) - 1] == 's' && !single_follows(tokens, n, i))))
        return RD_CLOSE;   /* the dogs' bone; a ’ that closes no quote */
    *sq = 1;
    return RD_OPEN;
}

int wl_text_readable(const char *const *tokens, size_t n, size_t from, char **out, wl_err *err)
{
    size_t total = 1;
    for (size_t i = from; i < n; i++) total += strlen(tokens[i]) + 1;
    char *s = malloc(total);
    if (!s) return wl_fail(err, "out of memory laying out %zu tokens", n);
    size_t len = 0;
    int dq = 0, sq = 0, glue = 1;   /* glue: no space before the next token (the start, or after an opening mark) */
    const char *prev = NULL;
    for (size_t i = 0; i < n; i++) {
        if (is_special(tokens[i])) continue;
        rd_class c = readable_class(tokens, n, i, prev, &dq, &sq);
        prev = tokens[i];
        if (i < from) {
            glue = c == RD_OPEN || c == RD_JOIN;
            continue;
        }
        if (!glue && len && c != RD_CLOSE && c != RD_JOIN) s[len++] = ' ';
        size_t tl = strlen(tokens[i]);
        memcpy(s + len, tokens[i], tl);
        len += tl;
        glue = c == RD_OPEN || c == RD_JOIN;
    }
    s[len] = '\0';
    *out = s;
    return 0;
}

/* lang_complete.c: is_complete for continuation lines, tab completion and inspect, all from the command table. */
#include "lang_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *wl_lang_is_complete(const char *code)
{
    size_t len = strlen(code);
    if (len > WL_LANG_MAX_CODE) return "invalid";
    wl_parse_error pe;
    char *lf = wl_parse_line_breaks(code, len);
    wl_script *s = wl_parse(lf, len, &pe);
    free(lf);
    if (s) {
        wl_script_free(s);
        return "complete";
    }
    return pe.incomplete ? "incomplete" : "invalid";
}

static int is_sep(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '[' || c == ']'; }

/* The words of the current statement before the word at start (split on blanks; quotes are not tracked). */
static int words_before(const char *code, size_t start, char *buf, size_t cap, const char **words, int max)
{
    size_t s = start;
    while (s > 0 && code[s - 1] != '\n' && code[s - 1] != ';' && code[s - 1] != '[') s--;
    size_t n = start - s < cap - 1 ? start - s : cap - 1;
    memcpy(buf, code + s, n);
    buf[n] = 0;
    int k = 0;
    for (char *tok = strtok(buf, " \t\r"); tok && k < max; tok = strtok(NULL, " \t\r")) words[k++] = tok;
    return k;
}

typedef struct matches {
    char **v;
    int n, cap;
} matches;

static void add_match(matches *m, const char *s, size_t n)
{
    for (int i = 0; i < m->n; i++)
        if (strlen(m->v[i]) == n && !strncmp(m->v[i], s, n)) return;
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 16;
        m->v = wl_xrealloc(m->v, sizeof(char *) * (size_t)m->cap);
    }
    m->v[m->n++] = wl_xstrndup(s, n);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void add_prefixed(matches *m, const char *list, const char *prefix, const char *suffix)
{
    char buf[1024];
    const char *w[128];
    int n = wl_split_words(list, buf, sizeof buf, w, 128);
    size_t pl = strlen(prefix);
    for (int i = 0; i < n; i++) {
        if (strncmp(w[i], prefix, pl)) continue;
        char tmp[256];
        int k = snprintf(tmp, sizeof tmp, "%s%s", w[i], suffix);
        add_match(m, tmp, (size_t)k);
    }
}

/* key=prefix: the values the command's table lists for key (`kind=mul` completes to `kind=multihead`). */
static void complete_choice(matches *m, const char *choices, const char *word)
{
    char buf[1024];
    const char *w[64];
    const char *eq = strchr(word, '=');
    size_t kl = (size_t)(eq - word);
    int n = wl_split_words(choices, buf, sizeof buf, w, 64);
    for (int i = 0; i < n; i++) {
        if (strncmp(w[i], word, kl + 1)) continue;
        char *vals = (char *)w[i] + kl + 1, *save;
        for (char *v = strtok_r(vals, "|", &save); v; v = strtok_r(NULL, "|", &save)) {
            if (strncmp(v, eq + 1, strlen(eq + 1))) continue;
            char tmp[256];
            int k = snprintf(tmp, sizeof tmp, "%.*s%s", (int)kl + 1, word, v);
            add_match(m, tmp, (size_t)k);
        }
    }
}

static void complete_commands(matches *m, const char *prefix)
{
    size_t pl = strlen(prefix);
    for (int i = 0; wl_command_at(i); i++)
        if (!strncmp(wl_command_at(i)->name, prefix, pl)) add_match(m, wl_command_at(i)->name, strlen(wl_command_at(i)->name));
}

/* $name or $name.field...: variables, then the fields of the value reached so far. */
static void complete_var(wl_interp *in, matches *m, const char *word)
{
    const char *dot = strrchr(word, '.');
    if (!dot) {
        size_t pl = strlen(word + 1);
        for (int i = 0; i < wl_interp_nvars(in); i++) {
            const char *nm = wl_interp_var_name(in, i);
            if (strncmp(nm, word + 1, pl)) continue;
            char tmp[256];
            int k = snprintf(tmp, sizeof tmp, "$%s", nm);
            add_match(m, tmp, (size_t)k);
        }
        return;
    }
    char path[256];
    snprintf(path, sizeof path, "%.*s", (int)(dot - word - 1), word + 1);
    char *save, *name = strtok_r(path, ".", &save);
    wl_value *v = name ? wl_ref(wl_interp_get(in, name)) : NULL;
    for (char *f = strtok_r(NULL, ".", &save); v && f; f = strtok_r(NULL, ".", &save)) {
        wl_err err;
        wl_value *next = v->type == WL_V_OBJ ? wl_value_field(v, f, &err) : NULL;
        wl_unref(v);
        v = next;
    }
    if (v && (v->type == WL_V_OBJ || v->type == WL_V_LIST)) {
        char prefix[256];
        snprintf(prefix, sizeof prefix, "%.*s", (int)(dot - word + 1), word);
        matches fm = {0};
        const char *names[64] = {"count"};
        int n = v->type == WL_V_LIST ? 1 : wl_fields_names(v->otype, v->data, names, 64);
        for (int i = 0; i < n; i++)
            if (!strncmp(names[i], dot + 1, strlen(dot + 1))) add_match(&fm, names[i], strlen(names[i]));
        for (int i = 0; i < fm.n; i++) {
            char tmp[512];
            int k = snprintf(tmp, sizeof tmp, "%s%s", prefix, fm.v[i]);
            add_match(m, tmp, (size_t)k);
            free(fm.v[i]);
        }
        free(fm.v);
    }
    wl_unref(v);
}

int wl_interp_complete(wl_interp *in, const char *code, size_t cursor, char ***out, size_t *start, size_t *end)
{
    size_t len = strlen(code);
    if (cursor > len) cursor = len;
    size_t s = cursor;
    while (s > 0 && !is_sep(code[s - 1]) && code[s - 1] != '"') s--;
    *start = s;
    *end = cursor;
    char word[256];
    snprintf(word, sizeof word, "%.*s", (int)(cursor - s), code + s);
    char buf[1024];
    const char *w[32];
    int nw = words_before(code, s, buf, sizeof buf, w, 32);
    int first = 0;
    if (nw >= 2 && !strcmp(w[1], "=")) first = 2;
    matches m = {0};
    if (word[0] == '$') {
        complete_var(in, &m, word);
    } else if (nw == first) {
        complete_commands(&m, word);
    } else if (strchr(word, '=')) {
        const wl_command *cmd = wl_command_find(w[first]);
        if (cmd && cmd->choices) complete_choice(&m, cmd->choices, word);
    } else {
        const wl_command *cmd = wl_command_find(w[first]);
        if (cmd && !strcmp(cmd->name, "help")) {
            complete_commands(&m, word);
            add_prefixed(&m, "language", word, "");
        }
        if (cmd && cmd->subcommands && nw == first + 1) add_prefixed(&m, cmd->subcommands, word, "");
        if (cmd && cmd->options) add_prefixed(&m, cmd->options, word, "=");
    }
    if (m.n) qsort(m.v, (size_t)m.n, sizeof(char *), cmp_str);
    *out = m.v;
    return m.n;
}

int wl_interp_inspect(wl_interp *in, const char *code, size_t cursor, wl_mime *out)
{
    memset(out, 0, sizeof *out);
    size_t len = strlen(code);
    if (cursor > len) cursor = len;
    size_t s = cursor, e = cursor;
    while (s > 0 && !is_sep(code[s - 1]) && code[s - 1] != '"') s--;
    while (e < len && !is_sep(code[e]) && code[e] != '"' && code[e] != '=') e++;
    char word[256];
    snprintf(word, sizeof word, "%.*s", (int)(e - s), code + s);
    if (word[0] == '$' && wl_is_ident(word + 1)) {
        wl_value *v = wl_interp_get(in, word + 1);
        wl_err err;
        if (!v || wl_value_render(v, out, &err)) return 0;
        return 1;
    }
    const wl_command *cmd = wl_command_find(word);
    if (!cmd) { /* an argument: the statement's command */
        char buf[1024];
        const char *w[32];
        int nw = words_before(code, s, buf, sizeof buf, w, 32);
        int first = nw >= 2 && !strcmp(w[1], "=") ? 2 : 0;
        if (nw > first) cmd = wl_command_find(w[first]);
    }
    if (!cmd) return 0;
    wl_help_command(cmd, out);
    return 1;
}

int wl_lang_is_leave_word(const char *word) { return !strcmp(word, "exit") || !strcmp(word, "quit"); }

int wl_lang_help_request(const char *code, char *word, size_t cap)
{
    while (isspace((unsigned char)*code)) code++;
    size_t n = strlen(code);
    while (n && isspace((unsigned char)code[n - 1])) n--;
    if (n < 2 || (code[0] != '?' && code[n - 1] != '?')) return 0;
    const char *name = code[0] == '?' ? code + 1 : code;
    size_t len = n - 1;
    if (len >= cap) return 0;
    for (size_t i = 0; i < len; i++)
        if (isspace((unsigned char)name[i]) || name[i] == '?') return 0;
    memcpy(word, name, len);
    word[len] = 0;
    return 1;
}

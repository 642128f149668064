/* lang_ids.c: the ids value: a context of T token ids as encode makes it (cropped from the left, left-padded); what
 * the commands that read text or ids share: the history a model reads, the notes on dropped characters and cropped ids. */
#include "lang_objs.h"

#include "wl_context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ids_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_ids *li = d;
    const wl_vocab *v = li->vocab ? lang_vocab_get(li->vocab) : NULL;
    int npad = li->T - li->nreal;
    wl_buf b = {0}, h = {0};
    wl_buf_printf(&b, "ids [1,%d]: ", li->T);
    if (npad) wl_buf_printf(&b, "%d × <PAD>=0, then ", npad);
    for (int i = npad; i < li->T; i++) wl_buf_printf(&b, "%s%d", i > npad ? " " : "", li->ids[i]);
    if (li->cropped) wl_buf_printf(&b, "\n(cropped: the first %d ids did not fit)", li->cropped);
    wl_buf_puts(&h, "<p>");   /* the HTML: the same lines, then the slots as a table */
    wl_buf_html_lines(&h, b.s);
    wl_buf_puts(&h, "</p>");
    if (v) {
        wl_buf_puts(&b, "\ntokens:");
        for (int i = npad; i < li->T; i++) wl_buf_printf(&b, " %s", lang_token(v, li->ids[i]));
    }
    out->text_plain = wl_buf_take(&b);
    wl_table *t = wl_table_new(li->nreal + 1);
    wl_table_header_cols(t, 1);
    wl_table_title(t, "");
    wl_table_cellf(t, -1, "slot (of %d; %d padding)", li->T, npad);
    for (int i = npad; i < li->T; i++) wl_table_cellf(t, -1, "%d", i);
    wl_table_cell(t, "id", -1);
    for (int i = npad; i < li->T; i++) wl_table_cellf(t, -1, "%d", li->ids[i]);
    if (v) {
        wl_table_cell(t, "tokens", -1);
        for (int i = npad; i < li->T; i++) wl_table_cell(t, lang_token(v, li->ids[i]), -1);
    }
    char *html = wl_table_html(t);
    wl_table_free(t);
    wl_buf_puts(&h, html);
    free(html);
    out->text_html = wl_buf_take(&h);
    return 0;
}

static const lang_ids *I(const wl_value *v) { return v->data; }
static int ids_have_vocab(const void *d) { return ((const lang_ids *)d)->vocab != NULL; }
/* The ids of slots from .. T-1 as a list. */
static wl_value *ids_list(const lang_ids *li, int from)
{
    wl_value *l = wl_list();
    for (int i = from; i < li->T; i++) wl_list_push(l, wl_int(li->ids[i]));
    return l;
}
static wl_value *ids_ids(wl_value *v, wl_err *err) { (void)err; return ids_list(I(v), 0); }
static wl_value *ids_real(wl_value *v, wl_err *err) { (void)err; return ids_list(I(v), I(v)->T - I(v)->nreal); }
static wl_value *ids_tokens(wl_value *v, wl_err *err)
{
    (void)err;
    const lang_ids *li = I(v);
    wl_value *l = wl_list();
    for (int i = li->T - li->nreal; i < li->T; i++) wl_list_push(l, wl_str(lang_token(lang_vocab_get(li->vocab), li->ids[i])));
    return l;
}
static wl_value *ids_shape(wl_value *v, wl_err *err)
{
    (void)err;
    wl_value *l = wl_list();
    wl_list_push(l, wl_int(1));
    wl_list_push(l, wl_int(I(v)->T));
    return l;
}
static wl_value *ids_padding(wl_value *v, wl_err *err) { (void)err; return wl_int(I(v)->T - I(v)->nreal); }

static const wl_field IDS_FIELDS[] = {
    {.name = "ids", .get = ids_ids, .about = "all slots"},
    {.name = "real", .get = ids_real, .about = "after the padding"},
    {.name = "tokens", .get = ids_tokens, .has = ids_have_vocab},
    {WL_FIELD_MEMBER("count", lang_ids, nreal)},
    {.name = "shape", .get = ids_shape},
    {.name = "padding", .get = ids_padding},
    {WL_FIELD_MEMBER("cropped", lang_ids, cropped)},
    {0},
};

static const wl_owned IDS_OWNS[] = {WL_OWNS(lang_ids, ids), WL_OWNS(lang_ids, vocab), {0}};
const wl_objtype lang_ids_type = {.name = "ids", .fields = IDS_FIELDS, .owns = IDS_OWNS, .render = ids_render};

wl_value *lang_ids_value(const int32_t *history, int nhistory, int T, wl_value *vocab)
{
    lang_ids *li = wl_xcalloc(1, sizeof *li);
    li->ids = wl_xmalloc(sizeof(int32_t) * (size_t)T);   /* T is at most encode's context=4096 */
    li->T = T;
    li->cropped = (int)wl_context_window(history, (size_t)nhistory, li->ids, (size_t)T);
    li->nreal = nhistory - li->cropped;
    li->vocab = wl_ref(vocab);
    return wl_obj(&lang_ids_type, li);
}

void lang_note_dropped(wl_call *c, const wl_tokens *t)
{
    if (!t->dropped) return;
    wl_call_note(c, "note: the tokenizer dropped %zu character%s that %s part of a word but not a-z or 0-9 (the first: %s); "
                 "as the course's, it reads words of a-z only, so such a letter ends or splits a word (café gives caf, "
                 "naïve gives na and ve), while other symbols (an emoji, a curly quote) become tokens of their own",
              t->dropped, t->dropped == 1 ? "" : "s", t->dropped == 1 ? "is" : "are", t->first_dropped);
}

int lang_tokens_arg(wl_call *c, int i, wl_tokens *t)
{
    memset(t, 0, sizeof *t);
    wl_value *v = c->argv[i];
    if (v->type == WL_V_LIST) {
        size_t total = 0;
        for (int k = 0; k < v->n; k++) {
            if (v->items[k]->type != WL_V_STR)
                return wl_call_fail(c, "TypeError", wl_call_argword(c, i), "a token list holds strings; item %d is %s", k,
                                    wl_value_kind(v->items[k]));
            total += v->items[k]->len + 1;
        }
        t->n = (size_t)v->n;
        t->tok = calloc(t->n + 1, sizeof(char *));
        t->buf = malloc(total + 1);
        if (!t->tok || !t->buf) {
            wl_tokens_free(t);
            return wl_fail(c->err, "out of memory copying a list of %d tokens", v->n);
        }
        char *p = t->buf;
        for (int k = 0; k < v->n; k++) {
            memcpy(p, v->items[k]->str, v->items[k]->len + 1);
            t->tok[k] = p;
            p += v->items[k]->len + 1;
        }
        return 0;
    }
    const char *s = wl_arg_str(c, i);
    if (!s) return -1;
    if (wl_text_tokenize(s, strlen(s), t, c->err)) {
        c->errword = wl_call_argword(c, i);
        return -1;
    }
    lang_note_dropped(c, t);
    return 0;
}

int lang_ids_check(wl_call *c, const lang_ids *li, const lang_model *lm, const wl_value *vocab, int word)
{
    for (int i = 0; i < li->T; i++)
        if (li->ids[i] < 0 || li->ids[i] >= lm->m.V)
            return wl_call_fail(c, "ArgumentError", word, "id %d in slot %d is outside this model's vocabulary of %d",
                                li->ids[i], i, lm->m.V);
    if (li->vocab && vocab)   /* ids encoded with another vocabulary would be read as other words */
        return lang_vocab_check(c, lang_vocab_get(vocab), lang_vocab_get(li->vocab), word, "these ids' vocabulary");
    return 0;
}

int lang_history(wl_call *c, const lang_model *lm, const wl_value *vocab, wl_tokens *toks, int32_t **hist)
{
    wl_value *a = c->argv[1];
    int word = wl_call_argword(c, 1);
    const lang_ids *li = wl_obj_data(a, &lang_ids_type);
    memset(toks, 0, sizeof *toks);
    *hist = NULL;
    if (!li && a->type != WL_V_STR && a->type != WL_V_NUM && a->type != WL_V_LIST)
        return wl_call_fail(c, "TypeError", word, "the second argument of `%s` must be text, a token list (from `tokenize`) "
                            "or ids (from `encode`), not %s", c->cmd->name, wl_value_kind(a));
    if (!li) {   /* text (a number is read as its text) or a token list */
        if (lang_tokens_arg(c, 1, toks)) return -1;
        if (wl_context_ids(lang_vocab_get(vocab), (const char *const *)toks->tok, toks->n, hist, c->err)) {
            wl_tokens_free(toks);
            return -1;
        }
        return 0;
    }
    if (lang_ids_check(c, li, lm, vocab, word)) return -1;
    if (li->cropped)
        wl_call_note(c, "note: `encode` cropped these ids (the first %d did not fit): <BOS> goes back before the %d kept, "
                     "so their first token is read as a text's first; give the text itself to score it whole",
                  li->cropped, li->nreal);
    const int32_t *real = li->ids + (li->T - li->nreal);   /* [nreal] after the padding */
    int bos = li->nreal > 0 && real[0] == WL_BOS;
    size_t n = (size_t)(li->nreal - bos);
    *hist = malloc(sizeof(int32_t) * (n + 2));
    toks->tok = malloc(sizeof(char *) * (n + 1));
    if (!*hist || !toks->tok) {
        free(*hist);
        *hist = NULL;
        free(toks->tok);
        toks->tok = NULL;
        return wl_fail(c->err, "out of memory for the ids of %zu tokens", n);
    }
    (*hist)[0] = WL_BOS;
    memcpy(*hist + 1, real + bos, sizeof(int32_t) * n);
    for (size_t k = 0; k < n; k++) toks->tok[k] = (char *)lang_token(lang_vocab_get(vocab), real[bos + k]);
    toks->n = n;
    return 0;
}

void lang_note_cropped(wl_call *c, size_t ntokens)
{
    if (ntokens + 1 <= WL_CONTEXT) return;
    size_t lost = ntokens - WL_CONTEXT;   /* tokens cropped besides <BOS> */
    if (!lost)
        wl_call_note(c, "note: the model reads the last %d ids: <BOS> did not fit before the %zu tokens", WL_CONTEXT, ntokens);
    else
        wl_call_note(c, "note: the model reads the last %d ids: <BOS> and the first %zu of the %zu tokens did not fit",
                     WL_CONTEXT, lost, ntokens);
}

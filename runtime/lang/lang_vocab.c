/* lang_vocab.c: the vocab value (its own vocabulary, or one a corpus holds) and where a command finds one: vocab, corpus, model or path. */
#include "lang_objs.h"

#include <stdlib.h>
#include <string.h>

const char *lang_token(const wl_vocab *v, int32_t id)
{
    return v && id >= 0 && (size_t)id < v->n ? v->itos[id] : "?";
}

static void vocab_free(void *d)
{
    lang_vocab *lv = d;
    if (lv->owner) wl_unref(lv->owner);
    else wl_vocab_free(&lv->own);
}

#define VOCAB_SHOW 48

static int vocab_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const wl_vocab *v = ((const lang_vocab *)d)->v;
    wl_buf b = {0}, h = {0};
    char g[2][32];
    wl_buf_printf(&b, "vocabulary: %s tokens", wl_fmt_count(v->n, g[0]));
    if (v->profile[0])
        wl_buf_printf(&b, " (profile %s, min_freq %zu, max_vocab %s)", v->profile, v->min_freq, wl_fmt_count(v->max_vocab, g[1]));
    wl_buf_puts(&b, "\nid  token\n");
    wl_buf_puts(&h, "<p>");
    wl_buf_html(&h, b.s);
    wl_buf_puts(&h, "</p><p style=\"font-family:monospace\">");
    size_t show = v->n < VOCAB_SHOW ? v->n : VOCAB_SHOW;
    for (size_t i = 0; i < show; i++) {
        int eol = i % 6 == 5 || i + 1 == show;
        wl_buf_printf(&b, eol ? "%4zu %s\n" : "%4zu %-12s ", i, v->itos[i]);
        wl_buf_printf(&h, "%zu&nbsp;<b>", i);
        wl_buf_html(&h, v->itos[i]);
        wl_buf_puts(&h, "</b> &nbsp; ");
    }
    if (show < v->n) {
        wl_buf_printf(&b, "... and %s more (the last is %zu %s)", wl_fmt_count(v->n - show, g[0]), v->n - 1, v->itos[v->n - 1]);
        wl_buf_printf(&h, "... and %s more (the last is %zu <b>", g[0], v->n - 1);
        wl_buf_html(&h, v->itos[v->n - 1]);
        wl_buf_puts(&h, "</b>)");
    }
    while (b.len && b.s[b.len - 1] == '\n') b.s[--b.len] = 0;
    wl_buf_puts(&h, "</p>");
    out->text_plain = wl_buf_take(&b);
    out->text_html = wl_buf_take(&h);
    return 0;
}

static wl_value *vocab_size(wl_value *self, wl_err *err) { (void)err; return wl_int((long long)lang_vocab_get(self)->n); }
static wl_value *vocab_profile(wl_value *self, wl_err *err) { (void)err; return wl_str(lang_vocab_get(self)->profile); }
static wl_value *vocab_itos(wl_value *self, wl_err *err)
{
    (void)err;
    return wl_list_strs(lang_vocab_get(self)->itos, lang_vocab_get(self)->n);
}

static const wl_field VOCAB_FIELDS[] = {{.name = "size", .get = vocab_size}, {.name = "profile", .get = vocab_profile}, {.name = "itos", .get = vocab_itos}, {0}};

const wl_objtype lang_vocab_type = {.name = "vocab", .fields = VOCAB_FIELDS, .free = vocab_free, .render = vocab_render};

wl_value *lang_vocab_value(wl_value *owner, const wl_vocab *v)
{
    lang_vocab *lv = wl_xcalloc(1, sizeof *lv);
    lv->owner = wl_ref(owner);
    lv->v = v;
    return wl_obj(&lang_vocab_type, lv);
}

wl_value *lang_vocab_value_own(wl_vocab *own)
{
    lang_vocab *lv = wl_xcalloc(1, sizeof *lv);
    lv->own = *own;
    memset(own, 0, sizeof *own);
    lv->v = &lv->own;
    return wl_obj(&lang_vocab_type, lv);
}

const wl_vocab *lang_vocab_get(const wl_value *vv) { return ((const lang_vocab *)vv->data)->v; }

int lang_vocab_check(wl_call *c, const wl_vocab *a, const wl_vocab *b, int word, const char *b_name)
{
    if (a == b) return 0;
    if (a->n != b->n)
        return wl_call_fail(c, "ArgumentError", word, "the model's vocabulary has %zu tokens, %s %zu; the ids would not match",
                            a->n, b_name, b->n);
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->itos[i], b->itos[i]))
            return wl_call_fail(c, "ArgumentError", word,
                                "the model's vocabulary is not %s, though both have %zu tokens: id %zu is \"%s\" in the "
                                "model's and \"%s\" in %s, so the ids would mean other words",
                                b_name, a->n, i, a->itos[i], b->itos[i], b_name);
    return 0;
}

wl_value *lang_vocab_from(wl_call *c, wl_value *v, int word)
{
    if (wl_obj_data(v, &lang_vocab_type)) return wl_ref(v);
    lang_corpus *lc = wl_obj_data(v, &lang_corpus_type);
    if (lc) return lang_vocab_value(v, &lc->c.vocab);
    lang_model *lm = wl_obj_data(v, &lang_model_type);
    if (lm && lm->vocab) return wl_ref(lm->vocab);
    if (lm) {
        wl_call_fail(c, "ArgumentError", word, LANG_NO_VOCAB);
        return NULL;
    }
    if (v->type == WL_V_STR) {
        if (!c->allow_files) {
            wl_call_fail(c, "PermissionError", word, "reading files is disabled here");
            return NULL;
        }
        wl_vocab voc;
        if (wl_vocab_load(v->str, &voc, c->err)) {
            c->errword = word;
            return NULL;
        }
        return lang_vocab_value_own(&voc);
    }
    wl_call_fail(c, "TypeError", word, "expected a vocabulary (a vocab, a corpus, a model with one, or a vocab.json path), not %s",
                 wl_value_kind(v));
    return NULL;
}

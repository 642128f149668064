/* lang_corpus.c: the corpus value: stories, split, vocabulary and audit, the windows of each split made once; split= and story=. */
#include "lang_objs.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static void corpus_free(void *d)
{
    lang_corpus *lc = d;
    wl_corpus_free(&lc->c);
    for (int s = 0; s < WL_NSPLITS; s++)
        if (lc->have_win[s] && !lc->cache_name) wl_windows_free(&lc->win[s]);
        else wl_cache_release(&lc->win_entry[s]);
    wl_cache_release(&lc->entry);
    free(lc->cache_name);
}

static int corpus_render(const void *d, wl_mime *out, wl_err *err)
{
    const lang_corpus *lc = d;
    char *audit = wl_corpus_audit_text(&lc->c);
    char *json = wl_corpus_audit_json(&lc->c);
    if (!audit || !json) {
        free(audit);
        free(json);
        return wl_fail(err, "out of memory rendering the corpus audit");
    }
    wl_buf b = {0};
    if (lc->brief) {
        char g[5][32];
        size_t total = lc->c.n[WL_TRAIN] + lc->c.n[WL_VALIDATION] + lc->c.n[WL_TEST];
        wl_buf_printf(&b, "corpus: %s stor%s from %s, profile %s: %s train, %s validation, %s test; vocabulary %s; "
                          "its audit table: .audit",
                      wl_fmt_count(total, g[0]), total == 1 ? "y" : "ies", lc->c.source, lc->c.profile.name, wl_fmt_count(lc->c.n[WL_TRAIN], g[1]),
                      wl_fmt_count(lc->c.n[WL_VALIDATION], g[2]), wl_fmt_count(lc->c.n[WL_TEST], g[3]),
                      wl_fmt_count(lc->c.vocab.n, g[4]));
        out->text_plain = wl_buf_take(&b);
        wl_buf_puts(&b, "<p class=\"wordlab-audit\">");
        wl_buf_html(&b, out->text_plain);
        wl_buf_puts(&b, "</p>");
    } else {
        wl_buf_puts(&b, audit);
        while (b.len && b.s[b.len - 1] == '\n') b.s[--b.len] = 0;
        out->text_plain = wl_buf_take(&b);
        wl_buf_puts(&b, "<pre class=\"wordlab-audit\">");
        wl_buf_html(&b, out->text_plain);
        wl_buf_puts(&b, "</pre>");
    }
    out->text_html = wl_buf_take(&b);
    wl_buf_puts(&b, "{\"type\":\"corpus\",\"source\":");
    wl_buf_json_str(&b, lc->c.source);
    wl_buf_puts(&b, ",\"profile\":");
    wl_buf_json_str(&b, lc->c.profile.name);
    wl_buf_printf(&b, ",\"train\":%zu,\"validation\":%zu,\"test\":%zu,\"audit\":%s}", lc->c.n[WL_TRAIN],
                  lc->c.n[WL_VALIDATION], lc->c.n[WL_TEST], json);
    out->app_json = wl_buf_take(&b);
    free(audit);
    free(json);
    return 0;
}

static const lang_corpus *C(const wl_value *v) { return v->data; }
static wl_value *corpus_vocab(wl_value *v, wl_err *err) { (void)err; return lang_vocab_value(v, &C(v)->c.vocab); }
static wl_value *corpus_audit(wl_value *v, wl_err *err)
{
    char *a = wl_corpus_audit_text(&C(v)->c);
    if (!a) {
        wl_fail(err, "out of memory");
        return NULL;
    }
    wl_value *s = wl_str(a);
    free(a);
    return s;
}
static wl_value *corpus_story(wl_value *v, wl_err *err)
{
    if (C(v)->c.n[WL_TRAIN]) return wl_str(C(v)->c.stories[WL_TRAIN][0].text);
    wl_fail(err, "the corpus has no training story");
    return NULL;
}

/* The JSON gives the audit as its table's numbers, and leaves out the vocabulary and the story. */
static const wl_field CORPUS_FIELDS[] = {
    {.name = "vocab", .get = corpus_vocab, .no_json = 1},
    {WL_FIELD_MEMBER("train", lang_corpus, c.n[WL_TRAIN])},
    {WL_FIELD_MEMBER("validation", lang_corpus, c.n[WL_VALIDATION])},
    {WL_FIELD_MEMBER("test", lang_corpus, c.n[WL_TEST]), .about = "document counts"},
    {.name = "audit", .get = corpus_audit},
    {.name = "story", .get = corpus_story, .no_json = 1},
    {WL_FIELD_MEMBER("source", lang_corpus, c.source)},
    {WL_FIELD_MEMBER("profile", lang_corpus, c.profile.name)},
    {0},
};

const wl_objtype lang_corpus_type = {.name = "corpus", .fields = CORPUS_FIELDS, .free = corpus_free, .render = corpus_render};

int lang_opt_split(wl_call *c, const char *def, wl_split *s)
{
    const char *name = wl_opt_str(c, "split", def);
    if (!name) return -1;
    for (int k = 0; k < WL_NSPLITS; k++)
        if (!strcmp(name, wl_split_name((wl_split)k))) {
            *s = (wl_split)k;
            return 0;
        }
    return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "split"), "split is train, validation or test, not %s", name);
}

const wl_story *lang_corpus_story(wl_call *c, const lang_corpus *lc, wl_split *split)
{
    long long story;
    if (lang_opt_split(c, "test", split) || wl_opt_int(c, "story", 1, 1, LLONG_MAX, &story)) return NULL;
    if ((size_t)story > lc->c.n[*split]) {
        wl_call_fail(c, "ArgumentError", wl_call_optword(c, "story"), "the %s split has %zu %s", wl_split_name(*split),
                     lc->c.n[*split], lc->c.n[*split] == 1 ? "story" : "stories");
        return NULL;
    }
    return &lc->c.stories[*split][story - 1];
}


int lang_corpus_windows(wl_call *c, lang_corpus *lc, wl_split s, wl_window_set *out)
{
    if (!lc->have_win[s]) {
        if (lc->cache_name ? lang_cache_windows(c, lc, s) : wl_corpus_windows(&lc->c, s, lang_interrupt(c), &lc->win[s], c->err))
            return -1;
        lc->have_win[s] = 1;
    }
    *out = (wl_window_set){lc->win[s].ctx, lc->win[s].tgt, lc->win[s].n};
    return 0;
}

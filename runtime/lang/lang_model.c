/* lang_model.c: the model value: a wl_model with its seed, training state, vocabulary and source; the model card. */
#include "lang_objs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void model_free(void *d)
{
    lang_model *lm = d;
    wl_model_free(&lm->m);
    wl_cache_release(&lm->params);   /* after the model that points into it */
}

static int model_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_model *lm = d;
    const wl_model *m = &lm->m;
    char g[32];
    wl_buf b = {0};
    wl_buf_printf(&b, "model %s", m->kind_name);
    if (m->kind == WL_KIND_ATTENTION)
        wl_buf_printf(&b, ": %d head%s of width %d", m->H, m->H == 1 ? "" : "s", WL_D / m->H);
    char gv[32];
    wl_buf_printf(&b, ", vocabulary %s, %s parameters\n", wl_fmt_count((size_t)m->V, gv), wl_fmt_count(m->nparams, g));
    wl_buf_printf(&b, "seed %llu; ", (unsigned long long)lm->seed);
    if (lm->steps_trained) wl_buf_printf(&b, "trained %ld steps here, ", lm->steps_trained);
    if (lm->selected_step) wl_buf_printf(&b, "selected step %d", lm->selected_step);
    else wl_buf_puts(&b, lm->steps_trained ? "initial weights kept" : "untrained");
    if (isfinite(lm->test_loss)) wl_buf_printf(&b, ", test loss %.4f", lm->test_loss);
    wl_buf_printf(&b, "; from %s\n", lm->source);
    if (lm->vocab) wl_buf_printf(&b, "vocabulary attached (%s)\n", lm->vocab_from[0] ? lm->vocab_from : "given with vocab=");
    else wl_buf_puts(&b, "no vocabulary attached (only its size): give one with model load PATH vocab=V\n");
    wl_table *t = wl_table_new(3);
    wl_table_header_rows(t, 1);
    wl_table_cell(t, "parameter", -1);
    wl_table_cell(t, "shape", -1);
    wl_table_cell(t, "count", -1);
    for (int i = 0; i < m->nviews; i++) {
        const wl_param_view *v = &m->views[i];
        wl_table_cell(t, v->name, -1);
        if (v->ndim == 2) wl_table_cellf(t, -1, "[%d, %d]", v->shape[0], v->shape[1]);
        else wl_table_cellf(t, -1, "[%d]", v->shape[0]);
        wl_table_cell(t, wl_fmt_count(v->size, g), -1);
    }
    char *tt = wl_table_text(t), *th = wl_table_html(t);
    wl_table_free(t);
    size_t head_len = b.len;
    wl_buf_puts(&b, tt);
    out->text_plain = wl_buf_take(&b);
    wl_buf_puts(&b, "<p>");
    char *head = wl_xstrndup(out->text_plain, head_len);
    wl_buf_html_lines(&b, head);
    free(head);
    wl_buf_printf(&b, "</p>%s", th);
    out->text_html = wl_buf_take(&b);
    free(tt);
    free(th);
    wl_buf_printf(&b, "{\"type\":\"model\",\"kind\":\"%s\",\"heads\":%d,\"vocab_size\":%d,\"parameters\":%zu,\"seed\":%llu,"
                      "\"selected_step\":%d,\"test_loss\":",
                  m->kind_name, m->H, m->V, m->nparams, (unsigned long long)lm->seed, lm->selected_step);
    wl_buf_json_num(&b, lm->test_loss);
    wl_buf_puts(&b, ",\"shapes\":{");
    for (int i = 0; i < m->nviews; i++) {
        const wl_param_view *v = &m->views[i];
        wl_buf_printf(&b, "%s\"%s\":", i ? "," : "", v->name);
        lang_shape_text(&b, v->shape, v->ndim);
    }
    wl_buf_puts(&b, "}}");
    out->app_json = wl_buf_take(&b);
    return 0;
}

static const lang_model *M(const wl_value *v) { return v->data; }
static wl_value *model_vocab(wl_value *v, wl_err *err)
{
    if (M(v)->vocab) return wl_ref(M(v)->vocab);
    wl_fail(err, LANG_NO_VOCAB);
    return NULL;
}

static const wl_field MODEL_FIELDS[] = {
    {WL_FIELD_CHARS("kind", lang_model, m.kind_name)},
    {WL_FIELD_MEMBER("heads", lang_model, m.H)},
    {WL_FIELD_MEMBER("vocab_size", lang_model, m.V)},
    {WL_FIELD_MEMBER("parameters", lang_model, m.nparams)},
    {WL_FIELD_MEMBER("seed", lang_model, seed)},
    {WL_FIELD_MEMBER("selected_step", lang_model, selected_step)},
    {WL_FIELD_MEMBER("test_loss", lang_model, test_loss)},
    {.name = "vocab", .get = model_vocab, .no_json = 1},
    {0},
};

static const wl_owned MODEL_OWNS[] = {WL_OWNS(lang_model, vocab), WL_OWNS(lang_model, source), {0}};

const wl_objtype lang_model_type = {.name = "model", .fields = MODEL_FIELDS, .free = model_free, .owns = MODEL_OWNS,
                                    .render = model_render, .json_only = "shapes"};

lang_model *lang_model_new(void)
{
    lang_model *lm = wl_xcalloc(1, sizeof *lm);
    lm->test_loss = NAN;
    return lm;
}

wl_value *lang_model_vocab(wl_call *c, const lang_model *lm)
{
    if (!wl_opt_has(c, "vocab")) {
        if (!lm->vocab) wl_call_fail(c, "ArgumentError", c->argc + 1, LANG_NO_VOCAB " or to this command with vocab=V");
        return lm->vocab ? wl_ref(lm->vocab) : NULL;
    }
    int word = wl_call_optword(c, "vocab");
    wl_value *vv = lang_vocab_from(c, wl_opt_val(c, "vocab"), word);
    if (vv && lm->vocab && lang_vocab_check(c, lang_vocab_get(lm->vocab), lang_vocab_get(vv), word, "this vocab=")) {
        wl_unref(vv);
        return NULL;
    }
    if (vv && lang_vocab_get(vv)->n != (size_t)lm->m.V) {
        wl_call_fail(c, "ArgumentError", word, "the model has a vocabulary of %d tokens, this vocab %zu", lm->m.V,
                     lang_vocab_get(vv)->n);
        wl_unref(vv);
        return NULL;
    }
    return vv;
}

int lang_model_and_corpus(wl_call *c, lang_model **lm, lang_corpus **lc)
{
    if (!(*lm = wl_arg_obj(c, 0, &lang_model_type)) || !(*lc = wl_arg_obj(c, 1, &lang_corpus_type))) return -1;
    if ((*lm)->vocab) return lang_vocab_check(c, lang_vocab_get((*lm)->vocab), &(*lc)->c.vocab, wl_call_argword(c, 1), "this corpus's");
    if ((size_t)(*lm)->m.V != (*lc)->c.vocab.n)
        return wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1),
                            "the model has a vocabulary of %d but the corpus %zu; make the model with vocab=$corpus.vocab",
                            (*lm)->m.V, (*lc)->c.vocab.n);
    return 0;
}

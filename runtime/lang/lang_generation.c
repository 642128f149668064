/* lang_generation.c: the generation value: prompt, continuation, its tokens, why it stopped and the time per model call. */
#include "lang_objs.h"

#include <stdlib.h>

typedef struct lang_gen {
    char *prompt, *continuation;
    wl_value *tokens;      /* list of the new tokens */
    int n_new, calls;
    const char *stop;      /* why it stopped: wl_gen_stop_name's static string */
    double seconds, ms_per_call, warmup_ms;
} lang_gen;

static int gen_render(const void *p, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_gen *g = p;
    wl_buf b = {0};
    wl_buf_printf(&b, "%d new token%s, %d model call%s, stopped by %s, %.3f s (%.2f ms per call); "
                  "warm-up call before them %.2f ms, not counted", g->n_new, g->n_new == 1 ? "" : "s", g->calls,
                  g->calls == 1 ? "" : "s", g->stop, g->seconds, g->ms_per_call, g->warmup_ms);
    char *summary = wl_buf_take(&b);
    wl_buf_printf(&b, "%s ⟶ %s\n%s", g->prompt, g->continuation, summary);
    out->text_plain = wl_buf_take(&b);
    wl_buf_puts(&b, "<p>");
    wl_buf_html(&b, g->prompt);
    wl_buf_puts(&b, " <b>");
    wl_buf_html(&b, g->continuation);
    wl_buf_puts(&b, "</b></p><p><small>");
    wl_buf_html(&b, summary);
    wl_buf_puts(&b, "</small></p>");
    out->text_html = wl_buf_take(&b);
    free(summary);
    return 0;
}

static const wl_field GEN_FIELDS[] = {
    {WL_FIELD_MEMBER("prompt", lang_gen, prompt)},
    {WL_FIELD_MEMBER("text", lang_gen, continuation)},
    {WL_FIELD_MEMBER("tokens", lang_gen, tokens)},
    {WL_FIELD_MEMBER("count", lang_gen, n_new)},
    {WL_FIELD_MEMBER("calls", lang_gen, calls)},
    {WL_FIELD_MEMBER("stop", lang_gen, stop)},
    {WL_FIELD_MEMBER("seconds", lang_gen, seconds)},
    {WL_FIELD_MEMBER("ms_per_call", lang_gen, ms_per_call)},
    {WL_FIELD_MEMBER("warmup_ms", lang_gen, warmup_ms)},
    {0},
};
static const wl_owned GEN_OWNS[] = {WL_OWNS(lang_gen, prompt), WL_OWNS(lang_gen, continuation), WL_OWNS(lang_gen, tokens), {0}};

const wl_objtype lang_generation_type = {.name = "generation", .fields = GEN_FIELDS, .owns = GEN_OWNS, .render = gen_render};

wl_value *lang_generation_value(const wl_vocab *v, const wl_tokens *prompt, const wl_gen_result *res, wl_err *err)
{
    lang_gen *g = wl_xcalloc(1, sizeof *g);
    /* [prompt->n + n_new] the prompt's tokens, then the new ones: the continuation closes the prompt's quotes */
    const char **words = malloc(sizeof(char *) * (prompt->n + (size_t)res->n_new + 1));
    if (!words) {
        wl_obj_free(&lang_generation_type, g);
        wl_fail(err, "out of memory for the text of %zu tokens", prompt->n + (size_t)res->n_new);
        return NULL;
    }
    for (size_t i = 0; i < prompt->n; i++) words[i] = prompt->tok[i];
    g->tokens = wl_list();
    for (int i = 0; i < res->n_new; i++) {
        words[prompt->n + (size_t)i] = lang_token(v, res->ids[i]);
        wl_list_push(g->tokens, wl_str(words[prompt->n + (size_t)i]));
    }
    int rc = wl_text_readable(words, prompt->n, 0, &g->prompt, err) ||
             wl_text_readable(words, prompt->n + (size_t)res->n_new, prompt->n, &g->continuation, err);
    free(words);
    if (rc) {
        wl_obj_free(&lang_generation_type, g);
        return NULL;
    }
    g->n_new = res->n_new;
    g->calls = res->calls;
    g->stop = wl_gen_stop_name(res->stop);
    g->seconds = res->seconds;
    g->ms_per_call = res->ms_per_call;
    g->warmup_ms = res->warmup_ms;
    return wl_obj(&lang_generation_type, g);
}

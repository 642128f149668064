/* lang_generation.c: the generation value: prompt, continuation, its tokens, why it stopped and the time per model call. */
#include "lang_objs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lang_gen {
    char *prompt, *continuation;
    wl_value *tokens;      /* list of the new tokens */
    int n_new, calls;
    char stop[16];
    double seconds, ms_per_call, warmup_ms;
} lang_gen;

static void gen_free(void *p)
{
    lang_gen *g = p;
    free(g->prompt);
    free(g->continuation);
    wl_unref(g->tokens);
    free(g);
}

static int gen_render(const void *p, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_gen *g = p;
    wl_buf b = {0};
    wl_buf_printf(&b, "%s ⟶ %s\n%d new tokens, %d model calls, stopped by %s, %.3f s (%.2f ms per call); "
                  "warm-up call before them %.2f ms, not counted", g->prompt, g->continuation, g->n_new, g->calls, g->stop,
                  g->seconds, g->ms_per_call, g->warmup_ms);
    out->text_plain = wl_buf_take(&b);
    wl_buf_puts(&b, "<p>");
    wl_buf_html(&b, g->prompt);
    wl_buf_puts(&b, " <b>");
    wl_buf_html(&b, g->continuation);
    wl_buf_printf(&b, "</b></p><p><small>%d new tokens, %d model calls, stopped by %s, %.3f s (%.2f ms per call); "
                  "warm-up call before them %.2f ms, not counted</small></p>",
                  g->n_new, g->calls, g->stop, g->seconds, g->ms_per_call, g->warmup_ms);
    out->text_html = wl_buf_take(&b);
    return 0;
}

static const lang_gen *G(const wl_value *v) { return v->data; }
static wl_value *gen_prompt(wl_value *v, wl_err *err) { (void)err; return wl_str(G(v)->prompt); }
static wl_value *gen_text(wl_value *v, wl_err *err) { (void)err; return wl_str(G(v)->continuation); }
static wl_value *gen_tokens(wl_value *v, wl_err *err) { (void)err; return wl_ref(G(v)->tokens); }
static wl_value *gen_count(wl_value *v, wl_err *err) { (void)err; return wl_int(G(v)->n_new); }
static wl_value *gen_calls(wl_value *v, wl_err *err) { (void)err; return wl_int(G(v)->calls); }
static wl_value *gen_stop(wl_value *v, wl_err *err) { (void)err; return wl_str(G(v)->stop); }
static wl_value *gen_seconds(wl_value *v, wl_err *err) { (void)err; return wl_num(G(v)->seconds); }
static wl_value *gen_ms_per_call(wl_value *v, wl_err *err) { (void)err; return wl_num(G(v)->ms_per_call); }
static wl_value *gen_warmup_ms(wl_value *v, wl_err *err) { (void)err; return wl_num(G(v)->warmup_ms); }

static const wl_field GEN_FIELDS[] = {
    {.name = "prompt", .get = gen_prompt},
    {.name = "text", .get = gen_text},
    {.name = "tokens", .get = gen_tokens},
    {.name = "count", .get = gen_count},
    {.name = "calls", .get = gen_calls},
    {.name = "stop", .get = gen_stop},
    {.name = "seconds", .get = gen_seconds},
    {.name = "ms_per_call", .get = gen_ms_per_call},
    {.name = "warmup_ms", .get = gen_warmup_ms},
    {0},
};

const wl_objtype lang_generation_type = {.name = "generation", .fields = GEN_FIELDS, .free = gen_free, .render = gen_render};

wl_value *lang_generation_value(const wl_vocab *v, const wl_tokens *prompt, const wl_gen_result *res, wl_err *err)
{
    lang_gen *g = wl_xcalloc(1, sizeof *g);
    /* [prompt->n + n_new] the prompt's tokens, then the new ones: the continuation closes the prompt's quotes */
    const char **words = malloc(sizeof(char *) * (prompt->n + (size_t)res->n_new + 1));
    if (!words) {
        gen_free(g);
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
        gen_free(g);
        return NULL;
    }
    g->n_new = res->n_new;
    g->calls = res->calls;
    snprintf(g->stop, sizeof g->stop, "%s", wl_gen_stop_name(res->stop));
    g->seconds = res->seconds;
    g->ms_per_call = res->ms_per_call;
    g->warmup_ms = res->warmup_ms;
    return wl_obj(&lang_generation_type, g);
}

/* lang_losses.c: the losses value: every target of one story with its probability and its loss under a model. */
#include "lang_objs.h"

#include "wl_context.h"
#include "wl_layers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lang_losses {
    int n;             /* targets: the story's tokens, then <EOS> unless no_eos */
    int no_eos;        /* the final <EOS> was not scored (eos=0) */
    char **tokens;     /* [n] the target as written (<EOS> last) */
    int *unknown;      /* [n] 1 when the target was scored as <UNK> */
    double *p, *loss;  /* [n] */
    double mean, ppl;
    char title[160];
    int color;         /* the text form shades each token's background (a terminal with colour) */
} lang_losses;

static void losses_free(void *d)
{
    lang_losses *l = d;
    for (int i = 0; i < l->n; i++) free(l->tokens[i]);
}

#define LOSS_TOP 8.0   /* the loss that gets the darkest shade (p = 0.00034) */

static int losses_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_losses *l = d;
    char a[64], b2[64];
    wl_buf t = {0}, h = {0};
    if (l->color) wl_buf_visible(&t, l->title, strlen(l->title));
    else wl_buf_puts(&t, l->title);
    wl_buf_puts(&t, "\n");
    if (l->color) wl_buf_puts(&t, "background: the token's loss, light 0 to dark red >= 8 nats; the loss follows in ( )\n");
    int col = 0;
    for (int i = 0; i < l->n; i++) {
        char word[256];
        int w = snprintf(word, sizeof word, "%s%s(%.2f)", l->tokens[i], l->unknown[i] ? "*" : "", l->loss[i]);
        if (col && col + 1 + w > 88) {
            wl_buf_puts(&t, "\n");
            col = 0;
        }
        if (col) wl_buf_puts(&t, " ");
        if (l->color) { /* the same shade and text colour as the notebook's; the token's own controls shown */
            wl_rgb bg = wl_scale_rgb(WL_SCALE_LOSS, l->loss[i] / LOSS_TOP), fg = wl_rgb_text_on(bg);
            wl_buf_printf(&t, "\033[48;2;%d;%d;%dm\033[38;2;%d;%d;%dm", bg.r, bg.g, bg.b, fg.r, fg.g, fg.b);
            wl_buf_visible(&t, l->tokens[i], strlen(l->tokens[i]));
            wl_buf_printf(&t, "%s\033[0m(%.2f)", l->unknown[i] ? "*" : "", l->loss[i]);
        } else {
            wl_buf_puts(&t, word);
        }
        col += (col ? 1 : 0) + w;
    }
    char g[32];
    const char *targets = l->n == 1 ? "target" : "targets";
    const char *no_eos = l->no_eos ? "; <EOS> not scored" : "";
    wl_buf_printf(&t, "\n%s %s: mean loss %s nats per token, perplexity %s%s", wl_fmt_count((size_t)l->n, g), targets,
                  wl_fmt_num(l->mean, 0, a), wl_fmt_num(l->ppl, 0, b2), no_eos);
    out->text_plain = wl_buf_take(&t);
    out->text_plain_sgr = l->color;

    wl_buf_puts(&h, "<div class=\"wordlab-losses\" style=\"max-width:56em;line-height:2.1;color:" WL_CSS_FG "\"><p><b>");
    wl_buf_html(&h, l->title);
    wl_buf_puts(&h, "</b><br><small>each token is shaded by its loss −ln p (light 0, dark red ≥ 8 nats); "
                    "hover for p and the loss; * scored as &lt;UNK&gt;</small></p><p>");
    for (int i = 0; i < l->n; i++) {
        wl_buf_printf(&h, "<span class=\"wordlab-token\" title=\"p = %.4g, loss %.3f\" style=\"", l->p[i], l->loss[i]);
        wl_buf_shade_style(&h, WL_SCALE_LOSS, l->loss[i] / LOSS_TOP);
        wl_buf_puts(&h, ";padding:2px 3px;margin:1px;border-radius:3px\">");
        wl_buf_html(&h, l->tokens[i]);
        if (l->unknown[i]) wl_buf_puts(&h, "*");
        wl_buf_puts(&h, "</span> ");
    }
    wl_buf_printf(&h, "</p><p>%s %s: mean loss <b>%s</b> nats per token, perplexity <b>%s</b>", g, targets, a, b2);
    wl_buf_html(&h, no_eos);
    wl_buf_puts(&h, "</p></div>");
    out->text_html = wl_buf_take(&h);

    return 0;
}

static const lang_losses *L(const wl_value *v) { return v->data; }
static wl_value *losses_tokens(wl_value *v, wl_err *err) { (void)err; return wl_list_strs(L(v)->tokens, (size_t)L(v)->n); }
static wl_value *losses_p(wl_value *v, wl_err *err) { (void)err; return wl_list_nums(L(v)->p, L(v)->n); }
static wl_value *losses_losses(wl_value *v, wl_err *err) { (void)err; return wl_list_nums(L(v)->loss, L(v)->n); }

static const wl_field LOSSES_FIELDS[] = {
    {.name = "tokens", .get = losses_tokens}, {.name = "probabilities", .get = losses_p}, {.name = "losses", .get = losses_losses},
    {WL_FIELD_MEMBER("loss", lang_losses, mean)}, {WL_FIELD_MEMBER("perplexity", lang_losses, ppl)},
    {WL_FIELD_MEMBER("count", lang_losses, n)}, {0},
};
static const wl_owned LOSSES_OWNS[] = {WL_OWNS(lang_losses, tokens), WL_OWNS(lang_losses, unknown), WL_OWNS(lang_losses, p),
                                       WL_OWNS(lang_losses, loss), {0}};

const wl_objtype lang_losses_type = {.name = "losses", .fields = LOSSES_FIELDS, .free = losses_free, .owns = LOSSES_OWNS,
                                     .render = losses_render};

/* Scores the targets hist[1..n] into l: target k from the last WL_CONTEXT of the k ids before it, one at a time: a
 * forward pass of one context, as `next` runs it, so that both give a target the same probability to the last bit
 * (a batch of several contexts may round differently). */
static int score_story(wl_call *c, const lang_model *lm, const int32_t *hist, int n, lang_losses *l)
{
    enum { CHUNK = 1 };
    wl_model_ws *ws = wl_model_ws_new(&lm->m, CHUNK);
    int32_t *ctx = malloc(sizeof(int32_t) * CHUNK * WL_CONTEXT);        /* [CHUNK, WL_CONTEXT] */
    float *logits = malloc(sizeof(float) * CHUNK * (size_t)lm->m.V);    /* [CHUNK, V] */
    int rc = ws && ctx && logits ? 0 : wl_fail(c->err, "out of memory scoring with the %s model", lm->m.kind_name);
    double sum = 0;
    for (int from = 0; from < n && !rc; from += CHUNK) {
        if (wl_sink_interrupted(c->sink)) {
            rc = wl_call_fail(c, "Interrupted", -1, "interrupted after %d of %d targets", from, n);
            break;
        }
        int B = n - from < CHUNK ? n - from : CHUNK;
        for (int b = 0; b < B; b++) wl_context_window(hist, (size_t)(from + b + 1), ctx + (size_t)b * WL_CONTEXT, WL_CONTEXT);
        rc = wl_model_forward(&lm->m, ws, ctx, B, logits, c->err);
        if (rc) break;
        wl_layers_token_losses(l->loss + from, logits, hist + from + 1, B, lm->m.V);
        for (int b = 0; b < B; b++) {
            l->p[from + b] = exp(-l->loss[from + b]);
            sum += l->loss[from + b];
        }
    }
    if (!rc) {
        l->mean = sum / n;
        l->ppl = exp(l->mean);
    }
    wl_model_ws_free(ws);
    free(ctx);
    free(logits);
    return rc;
}

int lang_losses_score(wl_call *c, const lang_model *lm, const int32_t *hist, int ntokens, int eos, char *const *tokens,
                      const wl_vocab *v, const char *title, wl_value **out)
{
    lang_losses *l = wl_xcalloc(1, sizeof *l);
    int n = ntokens + (eos ? 1 : 0);
    l->n = n;
    l->no_eos = !eos;
    l->tokens = calloc((size_t)n, sizeof(char *));
    l->unknown = calloc((size_t)n, sizeof(int));
    l->p = malloc(sizeof(double) * (size_t)n);
    l->loss = malloc(sizeof(double) * (size_t)n);
    int rc = 0;
    if (!l->tokens || !l->unknown || !l->p || !l->loss) {
        l->n = 0;
        rc = wl_fail(c->err, "out of memory for the losses of %d targets", n);
    }
    for (int i = 0; !rc && i < ntokens; i++) {
        if (!(l->tokens[i] = strdup(tokens[i]))) rc = wl_fail(c->err, "out of memory for the losses of %d targets", n);
        l->unknown[i] = hist[i + 1] == WL_UNK;
    }
    if (!rc) {
        if (eos) l->tokens[n - 1] = wl_xstrdup(lang_token(v, WL_EOS));
        snprintf(l->title, sizeof l->title, "%s", title);
        l->color = wl_interp_options(c->in)->text_color;
        rc = score_story(c, lm, hist, n, l);
    }
    if (rc) {
        wl_obj_free(&lang_losses_type, l);
        return -1;
    }
    *out = wl_obj(&lang_losses_type, l);
    return 0;
}

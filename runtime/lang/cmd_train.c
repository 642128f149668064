/* cmd_train.c: learning and measuring: train (live progress, interruptible), evaluate, generate, compare, results. */
#include "lang_objs.h"

#include "wl_compare.h"
#include "wl_generate.h"
#include "wl_train.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The windows of one split of a corpus value, made on first use and kept. */
static int corpus_windows(wl_call *c, lang_corpus *lc, wl_split s, wl_window_set *out)
{
    if (!lc->have_win[s]) {
        if (wl_corpus_windows(&lc->c, s, lang_interrupt(c), &lc->win[s], c->err)) return -1;
        lc->have_win[s] = 1;
    }
    *out = (wl_window_set){lc->win[s].ctx, lc->win[s].tgt, lc->win[s].n};
    return 0;
}

/* The model and the corpus arguments, checked to agree on the vocabulary size. */
static int model_and_corpus(wl_call *c, lang_model **lm, lang_corpus **lc)
{
    if (!(*lm = wl_arg_obj(c, 0, &lang_model_type)) || !(*lc = wl_arg_obj(c, 1, &lang_corpus_type))) return -1;
    if ((size_t)(*lm)->m.V != (*lc)->c.vocab.n)
        return wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1),
                            "the model has a vocabulary of %d but the corpus %zu; make the model with vocab=$corpus.vocab",
                            (*lm)->m.V, (*lc)->c.vocab.n);
    return 0;
}

/* ---- the training result ---- */

typedef struct lang_run {
    wl_train_result r;
    char kind[16];
    int steps, batch;
    double lr, wd;
} lang_run;

static void run_free(void *p)
{
    lang_run *run = p;
    wl_train_result_free(&run->r);
    free(run);
}

/* The loss chart as SVG; with vegalite non-NULL, also as Vega-Lite in *vegalite. */
static char *trace_chart(const wl_trace_row *rows, int n, const double *xs, const double *ys, int nlive, char **vegalite)
{
    double *x = malloc(sizeof(double) * (size_t)(n + 1)), *tl = malloc(sizeof(double) * (size_t)(n + 1)),
           *vl = malloc(sizeof(double) * (size_t)(n + 1));
    if (!x || !tl || !vl) abort();
    for (int i = 0; i < n; i++) {
        x[i] = rows[i].step;
        tl[i] = rows[i].train_batch_loss;
        vl[i] = rows[i].validation_loss;
    }
    wl_series s[3] = {{"validation", x, vl, n}, {"train batch", x, tl, n}, {"train (each step)", xs, ys, nlive}};
    wl_chart c = {.title = "loss (nats per token)", .xlabel = "step", .ylabel = "loss", .s = s, .ns = nlive ? 3 : 2,
                  .x_integer = 1, .ref_y = NAN};
    char *svg = wl_chart_svg(&c);
    if (vegalite) *vegalite = wl_chart_vegalite(&c);
    free(x);
    free(tl);
    free(vl);
    return svg;
}

static int run_render(const void *p, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_run *run = p;
    const wl_train_result *r = &run->r;
    wl_table *t = wl_table_new(5);
    wl_table_header_rows(t, 1);
    wl_table_cell(t, "step", -1);
    wl_table_cell(t, "tokens seen", -1);
    wl_table_cell(t, "train batch loss", -1);
    wl_table_cell(t, "validation loss", -1);
    wl_table_cell(t, "", -1);
    for (int i = 0; i < r->ntrace; i++) {
        const wl_trace_row *row = &r->trace[i];
        wl_table_cellf(t, -1, "%d", row->step);
        wl_table_cellf(t, -1, "%ld", row->tokens_seen);
        wl_table_cellf(t, -1, "%.4f", row->train_batch_loss);
        wl_table_cellf(t, -1, "%.4f", row->validation_loss);
        wl_table_cell(t, row->step == r->selected_step ? "← kept" : "", -1);
    }
    char *tt = wl_table_text(t), *th = wl_table_html(t);
    wl_table_free(t);
    wl_buf b = {0};
    wl_buf_printf(&b, "trained %s for %d of %d steps (batch %d, lr %g, wd %g) in %.1f s%s\n", run->kind, r->steps_done,
                  run->steps, run->batch, run->lr, run->wd, r->runtime_seconds, r->interrupted ? ", interrupted" : "");
    if (r->selected_step) wl_buf_printf(&b, "kept the weights of step %d (selection loss %.4f)\n", r->selected_step, r->selection_loss);
    else wl_buf_puts(&b, "kept the initial weights (no validation ran)\n");
    if (isfinite(r->validation_loss))
        wl_buf_printf(&b, "validation loss %.4f, perplexity %.2f", r->validation_loss, r->validation_perplexity);
    if (isfinite(r->test_loss)) wl_buf_printf(&b, "; test loss %.4f, perplexity %.2f", r->test_loss, r->test_perplexity);
    size_t summary = b.len;
    wl_buf_printf(&b, "\n%s", tt);
    out->text_plain = wl_buf_take(&b);
    char *head = strndup(out->text_plain, summary);
    char *svg = trace_chart(r->trace, r->ntrace, NULL, NULL, 0, &out->vegalite);
    wl_buf_puts(&b, "<pre>");
    wl_buf_html(&b, head);
    wl_buf_printf(&b, "</pre>%s%s", svg, th);
    out->text_html = wl_buf_take(&b);
    out->image_svg = svg;
    free(head);
    free(tt);
    free(th);
    wl_buf_printf(&b, "{\"type\":\"training\",\"kind\":\"%s\",\"steps\":%d,\"steps_done\":%d,\"batch_size\":%d,\"learning_rate\":",
                  run->kind, run->steps, r->steps_done, run->batch);
    wl_buf_json_num(&b, run->lr);
    wl_buf_puts(&b, ",\"weight_decay\":");
    wl_buf_json_num(&b, run->wd);
    wl_buf_printf(&b, ",\"selected_step\":%d,\"interrupted\":%s,\"validation_loss\":", r->selected_step,
                  r->interrupted ? "true" : "false");
    wl_buf_json_num(&b, r->validation_loss);
    wl_buf_puts(&b, ",\"validation_perplexity\":");
    wl_buf_json_num(&b, r->validation_perplexity);
    wl_buf_puts(&b, ",\"test_loss\":");
    wl_buf_json_num(&b, r->test_loss);
    wl_buf_puts(&b, ",\"test_perplexity\":");
    wl_buf_json_num(&b, r->test_perplexity);
    wl_buf_puts(&b, ",\"runtime_seconds\":");
    wl_buf_json_num(&b, r->runtime_seconds);
    wl_buf_puts(&b, ",\"trace\":[");
    for (int i = 0; i < r->ntrace; i++) {
        wl_buf_printf(&b, "%s{\"step\":%d,\"tokens_seen\":%ld,\"train_batch_loss\":", i ? "," : "", r->trace[i].step,
                      r->trace[i].tokens_seen);
        wl_buf_json_num(&b, r->trace[i].train_batch_loss);
        wl_buf_puts(&b, ",\"validation_loss\":");
        wl_buf_json_num(&b, r->trace[i].validation_loss);
        wl_buf_puts(&b, "}");
    }
    wl_buf_puts(&b, "]}");
    out->app_json = wl_buf_take(&b);
    return 0;
}

static wl_value *run_field(wl_value *self, const char *name, wl_err *err)
{
    const wl_train_result *r = &((const lang_run *)self->data)->r;
    if (!strcmp(name, "selected_step")) return wl_int(r->selected_step);
    if (!strcmp(name, "validation_loss")) return wl_num(r->validation_loss);
    if (!strcmp(name, "validation_perplexity")) return wl_num(r->validation_perplexity);
    if (!strcmp(name, "test_loss")) return wl_num(r->test_loss);
    if (!strcmp(name, "test_perplexity")) return wl_num(r->test_perplexity);
    if (!strcmp(name, "seconds")) return wl_num(r->runtime_seconds);
    if (!strcmp(name, "steps")) return wl_int(r->steps_done);
    wl_fail(err, "a training result has no field .%s; its fields are selected_step validation_loss "
                 "validation_perplexity test_loss test_perplexity seconds steps", name);
    return NULL;
}

static const wl_objtype RUN_T = {.name = "training result",
                                 .fields = "selected_step validation_loss validation_perplexity test_loss test_perplexity seconds steps",
                                 .free = run_free, .render = run_render, .field = run_field};

/* ---- live progress ---- */

typedef struct progress_ui {
    wl_call *c;
    char id[48];
    double last;
    int best_step;
    double best;
    int shown;             /* the live display exists */
    double *xs, *ys;       /* every step's batch loss, for the live curve */
    int n, cap;
    wl_trace_row trace[64];
    int ntrace;
} progress_ui;

static int ui_counter;

static void bar(wl_buf *b, int step, int steps)
{
    int fill = steps > 0 ? (int)(16.0 * step / steps) : 0;
    for (int i = 0; i < 16; i++) wl_buf_puts(b, i < fill ? "█" : "░");
}

static void show_progress(progress_ui *ui, const wl_train_progress *p, int update)
{
    wl_buf b = {0};
    wl_buf_printf(&b, "step %d/%d ", p->step, p->steps);
    bar(&b, p->step, p->steps);
    wl_buf_printf(&b, " loss %.4f", p->loss);
    if (ui->best_step) wl_buf_printf(&b, " | best val %.4f @%d", ui->best, ui->best_step);
    wl_buf_printf(&b, " | %.0f/s | %.0f s left", p->examples_per_s, p->eta_s);
    wl_mime m = {0};
    m.text_plain = wl_buf_take(&b);
    m.image_svg = trace_chart(ui->trace, ui->ntrace, ui->xs, ui->ys, ui->n, NULL);
    wl_buf_puts(&b, "<pre>");
    wl_buf_html(&b, m.text_plain);
    wl_buf_printf(&b, "</pre>%s", m.image_svg);
    m.text_html = wl_buf_take(&b);
    if (ui->c->sink && ui->c->sink->display) ui->c->sink->display(ui->c->sink->ud, ui->id, &m, update);
    wl_mime_free(&m);
}

static void on_train_step(void *ud, const wl_train_progress *p)
{
    progress_ui *ui = ud;
    if (ui->n == ui->cap) {
        ui->cap = ui->cap ? ui->cap * 2 : 256;
        ui->xs = realloc(ui->xs, sizeof(double) * (size_t)ui->cap);
        ui->ys = realloc(ui->ys, sizeof(double) * (size_t)ui->cap);
        if (!ui->xs || !ui->ys) abort();
    }
    ui->xs[ui->n] = p->step;
    ui->ys[ui->n++] = p->loss;
    int validated = !isnan(p->validation_loss);
    if (validated) {
        if (!ui->best_step || p->validation_loss < ui->best) {
            ui->best = p->validation_loss;
            ui->best_step = p->step;
        }
        if (ui->ntrace < 64) ui->trace[ui->ntrace++] = (wl_trace_row){p->step, 0, p->loss, p->validation_loss};
    }
    double t = now_s();
    if (validated || p->step == p->steps || t - ui->last > 0.25) {
        show_progress(ui, p, ui->shown);
        ui->shown = 1;
        ui->last = t;
    }
}

static int cmd_train(wl_call *c, wl_value **out)
{
    lang_model *lm;
    lang_corpus *lc;
    if (model_and_corpus(c, &lm, &lc)) return -1;
    int mlp = lm->m.kind == WL_KIND_MLP;
    long long steps, batch, seed, every;
    double lr, wd;
    if (wl_opt_int(c, "steps", 300, 1, 10000000, &steps) || wl_opt_int(c, "batch", 512, 1, 65536, &batch) ||
        wl_opt_int(c, "seed", (long long)lm->seed, 0, (1LL << 53), &seed) ||
        wl_opt_int(c, "eval_every", steps / 8 > 0 ? steps / 8 : 1, 1, 10000000, &every) ||
        wl_opt_num(c, "lr", mlp ? 1e-3 : 3e-3, &lr) || wl_opt_num(c, "wd", mlp ? 1e-4 : 1e-3, &wd))
        return -1;
    if ((double)batch * lm->m.V > 5e7)
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "batch"),
                            "batch %lld x vocabulary %d is over 50 million logits per step; use a smaller batch", batch, lm->m.V);
    if (!(lr > 0)) return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "lr"), "lr must be greater than 0");
    if (wd < 0) return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "wd"), "wd must be 0 or more");
    wl_window_set tr, va, te;
    if (corpus_windows(c, lc, WL_TRAIN, &tr) || corpus_windows(c, lc, WL_VALIDATION, &va) ||
        corpus_windows(c, lc, WL_TEST, &te))
        return -1;
    wl_train_config cfg;
    wl_train_config_default(&cfg);
    cfg.steps = (int)steps;
    cfg.batch_size = (int)batch;
    cfg.eval_every = (int)every;
    cfg.lr = lr;
    cfg.weight_decay = wd;
    cfg.seed = (uint64_t)seed;
    progress_ui ui = {.c = c};
    snprintf(ui.id, sizeof ui.id, "wordlab-train-%d-%d", (int)time(NULL) % 100000, ++ui_counter);
    lang_run *run = calloc(1, sizeof *run);
    if (!run) abort();
    int rc = wl_train(&lm->m, &cfg, &tr, &va, &te, on_train_step, &ui, lang_interrupt(c), &run->r, c->err);
    free(ui.xs);
    free(ui.ys);
    if (rc) {
        free(run);
        return -1;
    }
    snprintf(run->kind, sizeof run->kind, "%s", lm->m.kind_name);
    run->steps = (int)steps;
    run->batch = (int)batch;
    run->lr = lr;
    run->wd = wd;
    lm->steps_trained += run->r.steps_done;
    lm->selected_step = run->r.selected_step;
    lm->test_loss = run->r.test_loss;
    if (!lm->vocab) lm->vocab = lang_vocab_value(c->argv[1], &lc->c.vocab);
    *out = wl_obj(&RUN_T, run);
    if (ui.shown) wl_call_replaces_display(c, *out, ui.id);   /* the live display ends as the summary */
    return 0;
}

/* ---- evaluate ---- */

typedef struct lang_eval {
    char split[16];
    size_t targets;
    double loss, ppl;
} lang_eval;

static int eval_render(const void *p, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_eval *e = p;
    wl_buf b = {0};
    wl_buf_printf(&b, "%s: cross-entropy %.4f nats per token, perplexity %.2f, over %zu targets", e->split, e->loss, e->ppl,
                  e->targets);
    out->text_plain = wl_buf_take(&b);
    wl_buf_printf(&b, "{\"type\":\"evaluation\",\"split\":\"%s\",\"targets\":%zu,\"loss\":", e->split, e->targets);
    wl_buf_json_num(&b, e->loss);
    wl_buf_puts(&b, ",\"perplexity\":");
    wl_buf_json_num(&b, e->ppl);
    wl_buf_puts(&b, "}");
    out->app_json = wl_buf_take(&b);
    return 0;
}

static wl_value *eval_field(wl_value *self, const char *name, wl_err *err)
{
    const lang_eval *e = self->data;
    if (!strcmp(name, "loss")) return wl_num(e->loss);
    if (!strcmp(name, "perplexity")) return wl_num(e->ppl);
    if (!strcmp(name, "targets")) return wl_int((long long)e->targets);
    wl_fail(err, "an evaluation has no field .%s; its fields are loss perplexity targets", name);
    return NULL;
}

static const wl_objtype EVAL_T = {.name = "evaluation", .fields = "loss perplexity targets", .free = free,
                                  .render = eval_render, .field = eval_field};

static int cmd_evaluate(wl_call *c, wl_value **out)
{
    lang_model *lm;
    lang_corpus *lc;
    if (model_and_corpus(c, &lm, &lc)) return -1;
    wl_split s;
    if (lang_opt_split(c, "validation", &s)) return -1;
    wl_window_set w;
    if (corpus_windows(c, lc, s, &w)) return -1;
    if (!w.n) return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "split"), "the %s split of this corpus is empty", wl_split_name(s));
    lang_eval *e = calloc(1, sizeof *e);
    if (!e) abort();
    if (wl_evaluate(&lm->m, NULL, &w, 512, lang_interrupt(c), &e->loss, &e->ppl, c->err)) {
        free(e);
        return -1;
    }
    snprintf(e->split, sizeof e->split, "%s", wl_split_name(s));
    e->targets = w.n;
    *out = wl_obj(&EVAL_T, e);
    return 0;
}

/* ---- generate ---- */

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
    wl_buf_puts(&b, "{\"type\":\"generation\",\"prompt\":");
    wl_buf_json_str(&b, g->prompt);
    wl_buf_puts(&b, ",\"continuation\":");
    wl_buf_json_str(&b, g->continuation);
    wl_buf_printf(&b, ",\"new_tokens\":%d,\"calls\":%d,\"stop\":\"%s\",\"seconds\":", g->n_new, g->calls, g->stop);
    wl_buf_json_num(&b, g->seconds);
    wl_buf_puts(&b, ",\"ms_per_call\":");
    wl_buf_json_num(&b, g->ms_per_call);
    wl_buf_puts(&b, ",\"warmup_ms\":");
    wl_buf_json_num(&b, g->warmup_ms);
    wl_buf_puts(&b, "}");
    out->app_json = wl_buf_take(&b);
    return 0;
}

static wl_value *gen_field(wl_value *self, const char *name, wl_err *err)
{
    const lang_gen *g = self->data;
    if (!strcmp(name, "text")) return wl_str(g->continuation);
    if (!strcmp(name, "tokens")) return wl_ref(g->tokens);
    if (!strcmp(name, "count")) return wl_int(g->n_new);
    if (!strcmp(name, "stop")) return wl_str(g->stop);
    if (!strcmp(name, "seconds")) return wl_num(g->seconds);
    wl_fail(err, "a generation has no field .%s; its fields are text tokens count stop seconds", name);
    return NULL;
}

static const wl_objtype GEN_T = {.name = "generation", .fields = "text tokens count stop seconds", .free = gen_free,
                                 .render = gen_render, .field = gen_field};

static int cmd_generate(wl_call *c, wl_value **out)
{
    lang_model *lm = wl_arg_obj(c, 0, &lang_model_type);
    const char *prompt = lm ? wl_arg_str(c, 1) : NULL;
    long long ntok, seed;
    double temp;
    if (!prompt || wl_opt_int(c, "tokens", 30, 0, 10000, &ntok) || wl_opt_int(c, "seed", 1, 0, (1LL << 53), &seed) ||
        wl_opt_num(c, "temperature", 1.0, &temp))
        return -1;
    if (!(temp > 0)) return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "temperature"), "temperature must be greater than 0");
    wl_value *vv = lang_model_vocab(c, lm);
    if (!vv) return -1;
    const wl_vocab *v = lang_vocab_get(vv);
    wl_tokens toks;
    if (wl_text_tokenize(prompt, strlen(prompt), &toks, c->err)) {
        wl_unref(vv);
        c->errword = wl_call_argword(c, 1);
        return -1;
    }
    int32_t *ids = malloc(sizeof(int32_t) * (toks.n + 1));
    if (!ids) abort();
    wl_vocab_encode(v, (const char *const *)toks.tok, toks.n, ids);
    wl_gen_config cfg = {.max_new_tokens = (int)ntok, .temperature = temp, .greedy = !wl_opt_has(c, "temperature"),
                         .seed = (uint64_t)seed};
    wl_gen_result res;
    int rc = wl_generate(&lm->m, ids, (int)toks.n, &cfg, lang_interrupt(c), &res, c->err);
    if (rc == 0) {
        lang_gen *g = calloc(1, sizeof *g);
        const char **words = calloc((size_t)res.n_new + 1, sizeof(char *));
        if (!g || !words) abort();
        g->tokens = wl_list();
        for (int i = 0; i < res.n_new; i++) {
            words[i] = lang_token(v, res.ids[i]);
            wl_list_push(g->tokens, wl_str(words[i]));
        }
        if (wl_text_detokenize((const char *const *)toks.tok, toks.n, &g->prompt, c->err) ||
            wl_text_detokenize(words, (size_t)res.n_new, &g->continuation, c->err)) {
            gen_free(g);
            rc = -1;
        } else {
            g->n_new = res.n_new;
            g->calls = res.calls;
            snprintf(g->stop, sizeof g->stop, "%s", wl_gen_stop_name(res.stop));
            g->seconds = res.seconds;
            g->ms_per_call = res.ms_per_call;
            g->warmup_ms = res.warmup_ms;
            *out = wl_obj(&GEN_T, g);
        }
        free(words);
        wl_gen_result_free(&res);
    }
    free(ids);
    wl_tokens_free(&toks);
    wl_unref(vv);
    return rc;
}

/* ---- compare and results ---- */

typedef struct lang_results {
    cJSON *root;
    char *path;   /* malloc'd */
    const cJSON **kinds;   /* [nkinds] the members of "aggregate" */
    const cJSON **runs;    /* [nkinds] the member of "runs" with the same name (the first one), or NULL */
    size_t nkinds;
} lang_results;

static void results_free(void *p)
{
    lang_results *r = p;
    cJSON_Delete(r->root);
    free(r->path);
    free(r->kinds);
    free(r->runs);
    free(r);
}

static double stat(const cJSON *kind, const char *field, const char *which)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(kind, field);
    const cJSON *v = f ? cJSON_GetObjectItemCaseSensitive(f, which) : NULL;
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Object members ordered by name, the first of equal names first (they are sorted with their positions). */
typedef struct member {
    const cJSON *item;
    size_t pos;
} member;

static int by_name(const void *a, const void *b)
{
    const member *x = a, *y = b;
    int d = strcmp(x->item->string, y->item->string);
    return d ? d : (x->pos > y->pos) - (x->pos < y->pos);
}

static int by_name_only(const void *key, const void *m) { return strcmp(key, ((const member *)m)->item->string); }

/* Pairs every member of "aggregate" with its member of "runs": sorted and searched, n log n however many models
 * a file names (looking each one up in turn is quadratic). */
static int index_results(wl_call *c, lang_results *r, const cJSON *agg, const cJSON *runs)
{
    size_t na = 0, nr = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, agg) na++;
    cJSON_ArrayForEach(it, runs) nr++;
    member *sorted = malloc((nr ? nr : 1) * sizeof *sorted);
    r->kinds = malloc((na ? na : 1) * sizeof *r->kinds);
    r->runs = malloc((na ? na : 1) * sizeof *r->runs);
    if (!sorted || !r->kinds || !r->runs) abort();
    nr = 0;
    cJSON_ArrayForEach(it, runs) sorted[nr] = (member){it, nr}, nr++;
    qsort(sorted, nr, sizeof *sorted, by_name);
    int rc = 0;
    cJSON_ArrayForEach(it, agg) {
        if (wl_sink_interrupted(c->sink)) {
            rc = wl_fail(c->err, "results: interrupted after %zu of %zu models", r->nkinds, na);
            break;
        }
        const member *m = bsearch(it->string, sorted, nr, sizeof *sorted, by_name_only);
        while (m && m > sorted && !strcmp(m[-1].item->string, it->string)) m--;   /* the first of equal names */
        r->kinds[r->nkinds] = it;
        r->runs[r->nkinds++] = m ? m->item : NULL;
    }
    free(sorted);
    return rc;
}

/* A table pads every cell of a column to its widest: one huge cell must not make every row huge. */
#define RESULTS_NAME_SHOWN 60
#define RESULTS_STEPS_SHOWN 12

/* Bytes of the first RESULTS_NAME_SHOWN code points of s. */
static int short_len(const char *s)
{
    int n = 0, cps = 0;
    for (; s[n]; n++)
        if (((unsigned char)s[n] & 0xC0) != 0x80 && cps++ == RESULTS_NAME_SHOWN) break;
    return n;
}

static int results_render(const void *p, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_results *r = p;
    static const char *const fields[] = {"test_loss", "test_perplexity", "runtime_seconds"};
    wl_table *t = wl_table_new(6);
    wl_table_header_rows(t, 1);
    wl_table_header_cols(t, 1);
    wl_buf b = {0};
    wl_buf_printf(&b, "comparison %s (mean ± sample std over seeds)", r->path);
    char *title = wl_buf_take(&b);
    wl_table_title(t, title);
    free(title);
    const char *heads[] = {"model", "runs", "test loss", "test perplexity", "runtime s", "selected steps"};
    for (int i = 0; i < 6; i++) wl_table_cell(t, heads[i], -1);
    for (size_t k = 0; k < r->nkinds; k++) {
        const cJSON *kind = r->kinds[k], *arr = r->runs[k];
        wl_table_cellf(t, -1, "%.*s%s", short_len(kind->string), kind->string,
                       kind->string[short_len(kind->string)] ? "…" : "");
        wl_table_cellf(t, -1, "%d", cJSON_GetArraySize(arr));
        for (int f = 0; f < 3; f++) {
            double m = stat(kind, fields[f], "mean"), s = stat(kind, fields[f], "sample_std");
            if (isnan(m)) wl_table_cell(t, "-", -1);
            else if (isnan(s)) wl_table_cellf(t, -1, "%.4f", m);
            else wl_table_cellf(t, -1, "%.4f ± %.4f", m, s);
        }
        const cJSON *run;
        int shown = 0;
        cJSON_ArrayForEach(run, arr)
        {
            if (shown++ == RESULTS_STEPS_SHOWN) {
                wl_buf_printf(&b, " … (%d runs)", cJSON_GetArraySize(arr));
                break;
            }
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(run, "selected_step");
            wl_buf_printf(&b, "%s%d", b.len ? " " : "", cJSON_IsNumber(st) ? st->valueint : -1);
        }
        wl_table_cell(t, b.s ? b.s : "", -1);
        free(wl_buf_take(&b));
    }
    /* the machine the runtimes were measured on, as comparison.json records it */
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(r->root, "environment"), *e;
    wl_buf eb = {0};
    cJSON_ArrayForEach(e, env)
    {
        wl_buf_printf(&eb, "\n  %-14s ", e->string);
        if (cJSON_IsString(e)) wl_buf_puts(&eb, e->valuestring);
        else if (cJSON_IsBool(e)) wl_buf_puts(&eb, cJSON_IsTrue(e) ? "yes" : "no");
        else if (cJSON_IsNumber(e)) wl_buf_printf(&eb, "%g", e->valuedouble);
        else wl_buf_puts(&eb, "-");
    }
    char *tt = wl_table_text(t), *th = wl_table_html(t), *envs = wl_buf_take(&eb);
    wl_table_free(t);
    wl_buf_printf(&b, "%s%s%s", tt, envs ? "\n\nthe machine the runtimes were measured on:" : "", envs ? envs : "");
    out->text_plain = wl_buf_take(&b);
    wl_buf_puts(&b, th);
    if (envs) {
        wl_buf_puts(&b, "<pre>the machine the runtimes were measured on:");
        wl_buf_html(&b, envs);
        wl_buf_puts(&b, "</pre>");
    }
    out->text_html = wl_buf_take(&b);
    free(tt);
    free(th);
    free(envs);
    char *json = cJSON_PrintUnformatted(r->root);
    if (!json) return wl_fail(err, "out of memory");
    out->app_json = json;
    return 0;
}

static const wl_objtype RESULTS_T = {.name = "comparison", .fields = "", .free = results_free, .render = results_render};

/* comparison.json from a directory (or the file itself). */
static int load_results(wl_call *c, const char *where, int word, wl_value **out)
{
    wl_buf b = {0};
    size_t n = strlen(where);
    if (n > 5 && !strcmp(where + n - 5, ".json")) wl_buf_puts(&b, where);
    else wl_buf_printf(&b, "%s/comparison.json", where);
    char *path = wl_buf_take(&b), *text;
    size_t len;
    if (wl_read_file(path, &text, &len, c->err)) {
        free(path);
        c->errword = word;
        return -1;
    }
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    const cJSON *agg = cJSON_GetObjectItemCaseSensitive(root, "aggregate"), *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    if (!root || !cJSON_IsObject(agg) || !cJSON_IsObject(runs)) {
        cJSON_Delete(root);
        wl_call_fail(c, "RuntimeError", word, "%s is not a comparison.json (it needs \"runs\" and \"aggregate\" objects)", path);
        free(path);
        return -1;
    }
    lang_results *r = calloc(1, sizeof *r);
    if (!r) abort();
    r->root = root;
    r->path = lang_path_shown(c->in, path);
    free(path);
    if (!r->path) abort();
    if (index_results(c, r, agg, runs)) {
        results_free(r);
        return -1;
    }
    *out = wl_obj(&RESULTS_T, r);
    return 0;
}

static int cmd_results(wl_call *c, wl_value **out)
{
    const char *where = wl_arg_str(c, 0);
    if (!where) return -1;
    if (!c->allow_files) return wl_call_fail(c, "PermissionError", wl_call_argword(c, 0), "reading files is disabled here");
    return load_results(c, where, wl_call_argword(c, 0), out);
}

typedef struct compare_ui {
    wl_call *c;
    progress_ui step;
} compare_ui;

static void on_compare(void *ud, const wl_compare_progress *p)
{
    compare_ui *ui = ud;
    switch (p->event) {
    case WL_COMPARE_KEPT:
        wl_sink_printf(ui->c->sink, "run %d/%d %s seed %llu: already done, kept\n", p->run + 1, p->nruns, p->kind,
                       (unsigned long long)p->seed);
        break;
    case WL_COMPARE_START:
        wl_sink_printf(ui->c->sink, "run %d/%d %s seed %llu: training\n", p->run + 1, p->nruns, p->kind,
                       (unsigned long long)p->seed);
        free(ui->step.xs);
        free(ui->step.ys);
        ui->step = (progress_ui){.c = ui->c};
        snprintf(ui->step.id, sizeof ui->step.id, "wordlab-compare-%d-%d", p->run, ++ui_counter);
        break;
    case WL_COMPARE_STEP:
        on_train_step(&ui->step, p->step);
        break;
    case WL_COMPARE_DONE:
        wl_sink_printf(ui->c->sink, "run %d/%d %s seed %llu: test loss %.4f, perplexity %.2f, selected step %d (saved)\n",
                       p->run + 1, p->nruns, p->kind, (unsigned long long)p->seed, p->result->test_loss,
                       p->result->test_perplexity, p->result->selected_step);
        break;
    }
}

/* seeds=: a number, a list of numbers, or text like "11,29,47". */
static int read_seeds(wl_call *c, wl_compare_config *cfg)
{
    wl_value *v = wl_opt_val(c, "seeds");
    if (!v) return 0;
    int word = wl_call_optword(c, "seeds");
    cfg->nseeds = 0;
    if (v->type == WL_V_STR || v->type == WL_V_NUM) {
        const char *s = v->str;
        char nb[64];
        if (!s) s = wl_fmt_num(v->num, v->is_int, nb);
        while (*s) {
            char *end;
            unsigned long long x = strtoull(s, &end, 10);
            if (end == s || cfg->nseeds == WL_COMPARE_MAX_SEEDS)
                return wl_call_fail(c, "ArgumentError", word, "seeds= is up to %d whole numbers like 11,29,47", WL_COMPARE_MAX_SEEDS);
            cfg->seeds[cfg->nseeds++] = x;
            s = end;
            while (*s == ',' || *s == ' ') s++;
        }
    } else if (v->type == WL_V_LIST) {
        for (int i = 0; i < v->n; i++) {
            if (v->items[i]->type != WL_V_NUM || !v->items[i]->is_int || v->items[i]->num < 0 || i == WL_COMPARE_MAX_SEEDS)
                return wl_call_fail(c, "ArgumentError", word, "seeds= is up to %d whole numbers like 11,29,47", WL_COMPARE_MAX_SEEDS);
            cfg->seeds[cfg->nseeds++] = (uint64_t)v->items[i]->num;
        }
    }
    if (!cfg->nseeds) return wl_call_fail(c, "ArgumentError", word, "seeds= needs at least one seed");
    cfg->checkpoint_seed = cfg->seeds[0];
    return 0;
}

static int cmd_compare(wl_call *c, wl_value **out)
{
    lang_corpus *lc = wl_arg_obj(c, 0, &lang_corpus_type);
    const char *dir = lc ? wl_opt_str(c, "dir", NULL) : NULL;
    if (!lc || (wl_opt_has(c, "dir") && !dir)) return -1;
    if (!dir) return wl_call_fail(c, "ArgumentError", c->argc + 1, "`compare` needs dir=PATH, where results are saved and resumed");
    wl_compare_config cfg;
    wl_compare_config_default(&cfg);
    long long steps, batch, every;
    if (wl_opt_int(c, "steps", cfg.steps, 1, 10000000, &steps) || wl_opt_int(c, "batch", cfg.batch_size, 1, 65536, &batch) ||
        wl_opt_int(c, "eval_every", steps / 8 > 0 ? steps / 8 : 1, 1, 10000000, &every) || read_seeds(c, &cfg))
        return -1;
    cfg.steps = (int)steps;
    cfg.batch_size = (int)batch;
    cfg.eval_every = (int)every;
    compare_ui ui = {.c = c};
    wl_compare_status st;
    int rc = wl_compare_run(&lc->c, dir, &cfg, on_compare, &ui, lang_interrupt(c), &st, c->err);
    free(ui.step.xs);
    free(ui.step.ys);
    if (rc) return -1;
    wl_sink_printf(c->sink, "%d of %d runs done (%d kept from before)%s in %.1f s\n", st.done, st.nruns, st.kept,
                   st.interrupted ? "; interrupted: run the same command again to resume" : "", st.seconds);
    return load_results(c, dir, wl_call_optword(c, "dir"), out);
}

const wl_command wl_cmds_train[] = {
    {.name = "train", .topic = "training",
     .synopsis = "train MODEL CORPUS [steps=300] [batch=512] [lr=] [wd=] [seed=] [eval_every=]",
     .summary = "train a model on a corpus with AdamW, keeping the best validation step",
     .help = "Each step draws `batch` training windows at random (seeded), computes the loss and its\n"
             "gradients, clips them to norm 1 and takes an AdamW step. At step 1, every eval_every\n"
             "steps (default steps/8) and at the end it measures the validation loss; the model ends\n"
             "with the weights of the best one. Defaults: lr 0.003 and wd 0.001 for attention models,\n"
             "0.001 and 0.0001 for mlp; seed is the model's. Ctrl-C stops early: the weights reached are\n"
             "validated too, and the best of every validation is kept (a second Ctrl-C skips that pass).\n"
             "One live display shows the progress and ends as the summary: the curve, validation and test\n"
             "scores and the trace.\n"
             "Fields: .selected_step .validation_loss .validation_perplexity .test_loss .test_perplexity .seconds .steps",
     .example = "stories = corpus profile=smoke stories=60\nm = model new kind=multihead heads=4 vocab=$stories.vocab seed=11\n"
                "train $m $stories steps=20 batch=32 eval_every=10",
     .min_args = 2, .max_args = 2, .options = "steps batch lr wd seed eval_every", .flags = WL_CMD_SHOW_BOUND,
     .fn = cmd_train},
    {.name = "evaluate", .topic = "training", .synopsis = "evaluate MODEL CORPUS [split=validation]",
     .summary = "cross-entropy and perplexity over every window of a split",
     .help = "The mean loss -ln p(target) over all windows of the split (train, validation or test),\n"
             "and its exp, the perplexity. Fields: .loss .perplexity .targets",
     .example = "stories = corpus profile=smoke stories=60\nm = model new kind=attention vocab=$stories.vocab seed=11\n"
                "evaluate $m $stories split=test",
     .min_args = 2, .max_args = 2, .options = "split", .fn = cmd_evaluate},
    {.name = "generate", .topic = "training", .synopsis = "generate MODEL PROMPT [tokens=30] [temperature=T] [seed=1]",
     .summary = "continue a prompt one token per model call",
     .help = "Feeds <BOS> + the prompt's ids (the last 64, left-padded) to the model and appends the\n"
             "chosen token, until <EOS> or `tokens` new tokens. Greedy (the most likely token) unless\n"
             "temperature= is given: then it samples from softmax(logits / T) with the seed. <PAD>,\n"
             "<BOS> and <UNK> are never chosen. Shows the time per model call.\n"
             "Fields: .text .tokens .count .stop .seconds",
     .example = "stories = corpus profile=smoke\nm = model new kind=multihead vocab=$stories.vocab seed=11\n"
                "generate $m \"once upon a time\" tokens=10\ngenerate $m \"the dog\" tokens=5 temperature=0.8 seed=3",
     .min_args = 2, .max_args = 2, .options = "tokens temperature seed vocab", .fn = cmd_generate},
    {.name = "compare", .topic = "training",
     .synopsis = "compare CORPUS dir=PATH [steps=6000] [batch=512] [eval_every=] [seeds=11,29,47]",
     .summary = "the course's protocol: mlp, attention and multihead over several seeds (resumable)",
     .help = "Trains mlp (lr 1e-3, wd 1e-4), attention and multihead with 4 heads (lr 3e-3, wd 1e-3)\n"
             "once per seed, restoring each run's best validation step before scoring the test set.\n"
             "dir= receives vocab.json, comparison.json (rewritten after every finished run) and the\n"
             "checkpoints of the first seed. Run the same command again to resume after Ctrl-C.\n"
             "Shows mean ± sample standard deviation per model (see `results`).",
     .example = "stories = corpus profile=smoke stories=60\ncompare $stories dir=demo-comparison steps=4 batch=16 seeds=11",
     .min_args = 1, .max_args = 1, .options = "dir steps batch eval_every seeds", .flags = WL_CMD_FILES, .fn = cmd_compare},
    {.name = "results", .topic = "training", .synopsis = "results DIR|FILE", .summary = "show a saved comparison.json",
     .help = "Reads comparison.json (from `compare`, or the course's artifacts) and shows each model's\n"
             "test loss, test perplexity and runtime as mean ± sample std, and each run's selected step.",
     .example = "results [artifact comparison.json]", .min_args = 1, .max_args = 1, .flags = WL_CMD_FILES, .fn = cmd_results},
    {0},
};

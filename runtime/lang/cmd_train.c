/* cmd_train.c: training and what a trained model does: train (AdamW on a corpus with a live display, keeping the best
 * validation step; Ctrl-C stops early), generate (continue a prompt), compare (the course's protocol over models and
 * seeds, resumable) and results (a saved comparison.json); evaluate: cmd_evaluate.c. */
#include "lang_objs.h"

#include "wl_compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int cmd_train(wl_call *c, wl_value **out)
{
    lang_model *lm;
    lang_corpus *lc;
    if (lang_model_and_corpus(c, &lm, &lc)) return -1;
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
    if (lang_corpus_windows(c, lc, WL_TRAIN, &tr) || lang_corpus_windows(c, lc, WL_VALIDATION, &va) ||
        lang_corpus_windows(c, lc, WL_TEST, &te))
        return -1;
    wl_train_config cfg;
    wl_train_config_default(&cfg);
    cfg.steps = (int)steps;
    cfg.batch_size = (int)batch;
    cfg.eval_every = (int)every;
    cfg.early_evals = wl_opt_has(c, "eval_every") ? 0 : 3;   /* the default schedule is denser early on */
    cfg.lr = lr;
    cfg.weight_decay = wd;
    cfg.seed = (uint64_t)seed;
    lang_progress ui;
    if (lang_progress_init(&ui, c, (int)steps)) return -1;
    lang_progress_start(&ui, "train", (int)time(NULL) % 100000);
    wl_train_result r;
    lm->checkpoint_sha[0] = 0;   /* its weights are no longer the file's, even when the run fails half-way */
    int rc = wl_train(&lm->m, &cfg, &tr, &va, &te, lang_progress_step, &ui, lang_interrupt(c), &r, c->err);
    lang_progress_free(&ui);
    if (rc) return -1;
    lm->steps_trained += r.steps_done;
    lm->selected_step = r.selected_step;
    lm->test_loss = r.test_loss;
    if (!lm->vocab) lm->vocab = lang_vocab_value(c->argv[1], &lc->c.vocab);
    *out = lang_run_value(&lm->m, (int)steps, (int)batch, lr, wd, &r);
    if (ui.shown) wl_call_replaces_display(c, *out, ui.id);   /* the live display ends as the summary */
    return 0;
}

static int cmd_generate(wl_call *c, wl_value **out)
{
    lang_model *lm = wl_arg_obj(c, 0, &lang_model_type);
    long long ntok, seed;
    double temp;
    if (!lm || wl_opt_int(c, "tokens", 30, 0, 10000, &ntok) || wl_opt_int(c, "seed", 1, 0, (1LL << 53), &seed) ||
        wl_opt_num(c, "temperature", 1.0, &temp))
        return -1;
    if (!(temp > 0)) return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "temperature"), "temperature must be greater than 0");
    wl_value *vv = lang_model_vocab(c, lm);
    wl_tokens toks;
    int32_t *hist;   /* <BOS> and the prompt's ids: wl_generate puts the <BOS> in front itself */
    if (!vv || lang_history(c, lm, vv, &toks, &hist)) {
        wl_unref(vv);
        return -1;
    }
    const wl_vocab *v = lang_vocab_get(vv);
    lang_note_cropped(c, toks.n);
    if (wl_opt_has(c, "seed") && !wl_opt_has(c, "temperature"))
        wl_call_note(c, "note: seed= has no effect without temperature=: greedy decoding always takes the most likely token");
    wl_gen_config cfg = {.max_new_tokens = (int)ntok, .temperature = temp, .greedy = !wl_opt_has(c, "temperature"),
                         .seed = (uint64_t)seed};
    wl_gen_result res;
    int rc = wl_generate(&lm->m, hist + 1, (int)toks.n, &cfg, lang_interrupt(c), &res, c->err);
    if (rc == 0) {
        *out = lang_generation_value(v, &toks, &res, c->err);
        if (!*out) rc = -1;
        wl_gen_result_free(&res);
    }
    free(hist);
    wl_tokens_free(&toks);
    wl_unref(vv);
    return rc;
}

static int cmd_results(wl_call *c, wl_value **out)
{
    const char *where = wl_arg_str(c, 0);
    if (!where) return -1;
    if (!c->allow_files) return wl_call_fail(c, "PermissionError", wl_call_argword(c, 0), "reading files is disabled here");
    return lang_comparison_load(c, where, wl_call_argword(c, 0), out);
}

/* What compare's progress reports to: the live display, and the seed whose runs are saved as checkpoints. */
typedef struct compare_ui {
    lang_progress progress;
    uint64_t checkpoint_seed;
} compare_ui;

static void on_compare(void *ud, const wl_compare_progress *p)
{
    compare_ui *cu = ud;
    lang_progress *ui = &cu->progress;
    switch (p->event) {
    case WL_COMPARE_KEPT:
        wl_sink_printf(ui->c->sink, "run %d/%d %s seed %llu: already done, kept\n", p->run + 1, p->nruns, p->kind,
                       (unsigned long long)p->seed);
        break;
    case WL_COMPARE_START:
        wl_sink_printf(ui->c->sink, "run %d/%d %s seed %llu: training\n", p->run + 1, p->nruns, p->kind,
                       (unsigned long long)p->seed);
        lang_progress_start(ui, "compare", p->run);
        break;
    case WL_COMPARE_STEP:
        lang_progress_step(ui, p->step);
        break;
    case WL_COMPARE_DONE: { /* every run goes into comparison.json; the checkpoint seed's also into <kind>_seed<N>.npz */
        char saved[64] = "";
        if (p->seed == cu->checkpoint_seed)
            snprintf(saved, sizeof saved, " (saved as %s_seed%llu.npz)", p->kind, (unsigned long long)p->seed);
        wl_sink_printf(ui->c->sink, "run %d/%d %s seed %llu: test loss %.4f, perplexity %.2f, selected step %d%s\n",
                       p->run + 1, p->nruns, p->kind, (unsigned long long)p->seed, p->result->test_loss,
                       p->result->test_perplexity, p->result->selected_step, saved);
        break;
    }
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
    compare_ui ui = {.checkpoint_seed = cfg.checkpoint_seed};
    if (lang_progress_init(&ui.progress, c, cfg.steps)) return -1;
    wl_compare_status st;
    int rc = wl_compare_run(&lc->c, dir, &cfg, on_compare, &ui, lang_interrupt(c), &st, c->err);
    lang_progress_free(&ui.progress);
    if (rc) return -1;
    wl_sink_printf(c->sink, "%d of %d runs done (%d kept from before)%s in %.1f s\n", st.done, st.nruns, st.kept,
                   st.interrupted ? "; interrupted: run the same command again to resume" : "", st.seconds);
    return lang_comparison_load(c, dir, wl_call_optword(c, "dir"), out);
}

const wl_command wl_cmds_train[] = {
    {.name = "train", .topic = "training",
     .synopsis = "train MODEL CORPUS [steps=300] [batch=512] [lr=] [wd=] [seed=] [eval_every=]",
     .summary = "train a model on a corpus with AdamW, keeping the best validation step",
     .help = "Each step draws `batch` training windows at random (seeded), computes the loss and its\n"
             "gradients, clips them to norm 1 and takes an AdamW step. At step 1, every eval_every\n"
             "steps and at the end it measures the validation loss; the model ends with the weights of\n"
             "the best one. Without eval_every= it is steps/8, with three more validations early on, at\n"
             "steps/16, /32 and /64, where the loss falls fastest (a run stopped early has a curve too).\n"
             "Defaults: lr 0.003 and wd 0.001 for attention models, 0.001 and 0.0001 for mlp; seed is\n"
             "the model's. Ctrl-C stops early: the weights reached are validated too, and the best of\n"
             "every validation is kept (a second Ctrl-C skips that pass).\n"
             "One live display shows the progress and ends as the summary: the curve, validation and test\n"
             "scores and the trace.",
     .example = LANG_EX_MODEL_ON(LANG_EX_FEW_STORIES, "multihead heads=4")
                "train $m $stories steps=20 batch=32 eval_every=10",
     .min_args = 2, .max_args = 2, .options = "steps batch lr wd seed eval_every", .flags = WL_CMD_SHOW_BOUND,
     .fn = cmd_train, .result = &lang_run_type},
    {.name = "generate", .topic = "training", .synopsis = "generate MODEL PROMPT|IDS [tokens=30] [temperature=T] [seed=1]",
     .summary = "continue a prompt one token per model call",
     .help = "Feeds <BOS> + the prompt's ids (the last 64, left-padded; IDS from `encode` are read as the\n"
             "text they encode) to the model and appends the chosen token, until <EOS> or `tokens` new\n"
             "tokens. Greedy (the most likely token) unless temperature= is given: then it samples from\n"
             "softmax(logits / T) with the seed. <PAD>, <BOS> and <UNK> are never chosen. Shows the time\n"
             "per model call.",
     .example = LANG_EX_MODEL("multihead")
                "generate $m \"once upon a time\" tokens=10\ngenerate $m \"the dog\" tokens=5 temperature=0.8 seed=3",
     .min_args = 2, .max_args = 2, .options = "tokens temperature seed vocab", .fn = cmd_generate,
     .result = &lang_generation_type},
    {.name = "compare", .topic = "training",
     .synopsis = "compare CORPUS dir=PATH [steps=6000] [batch=512] [eval_every=] [seeds=11,29,47]",
     .summary = "the course's protocol: mlp, attention and multihead over several seeds (resumable)",
     .help = "Trains mlp (lr 1e-3, wd 1e-4), attention and multihead with 4 heads (lr 3e-3, wd 1e-3)\n"
             "once per seed, restoring each run's best validation step before scoring the test set.\n"
             "dir= receives vocab.json, comparison.json (rewritten after every finished run) and the\n"
             "checkpoints of the first seed. Run the same command again to resume after Ctrl-C.\n"
             "A dir= without comparison.json that holds files of those names is refused.\n"
             "Shows mean ± sample standard deviation per model (see `results`).",
     .example = LANG_EX_FEW_STORIES "compare $stories dir=demo-comparison steps=4 batch=16 seeds=11",
     .min_args = 1, .max_args = 1, .options = "dir steps batch eval_every seeds", .flags = WL_CMD_FILES, .fn = cmd_compare},
    {.name = "results", .topic = "training", .synopsis = "results DIR|FILE", .summary = "show a saved comparison.json",
     .help = "Reads comparison.json (from `compare`, or the course's artifacts) and shows each model's\n"
             "test loss, test perplexity and runtime as mean ± sample std, and each run's selected step.",
     .example = "results [artifact comparison.json]", .min_args = 1, .max_args = 1, .flags = WL_CMD_FILES, .fn = cmd_results},
    {0},
};

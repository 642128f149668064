/* cmd_train.c: train: AdamW on a corpus with a live display, keeping the best validation step (Ctrl-C stops early). */
#include "lang_objs.h"

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
    int rc = wl_train(&lm->m, &cfg, &tr, &va, &te, lang_progress_step, &ui, lang_interrupt(c), &r, c->err);
    lang_progress_free(&ui);
    if (rc) return -1;
    lm->steps_trained += r.steps_done;
    lm->selected_step = r.selected_step;
    lm->test_loss = r.test_loss;
    if (!lm->vocab) lm->vocab = lang_vocab_value(c->argv[1], &lc->c.vocab);
    *out = lang_run_value(lm->m.kind_name, (int)steps, (int)batch, lr, wd, &r);
    if (ui.shown) wl_call_replaces_display(c, *out, ui.id);   /* the live display ends as the summary */
    return 0;
}

const wl_command wl_cmds_train[] = {
    {.name = "train", .topic = "training",
     .synopsis = "train MODEL CORPUS [steps=300] [batch=512] [lr=] [wd=] [seed=] [eval_every=]",
     .summary = "train a model on a corpus with AdamW, keeping the best validation step",
     .help = "Each step draws `batch` training windows at random (seeded), computes the loss and its\n"
             "gradients, clips them to norm 1 and takes an AdamW step. At step 1, every eval_every\n"
             "steps and at the end it measures the validation loss; the model ends with the weights of\n"
             "the best one. Without eval_every= it is steps/8, with three more validations early on, at\n"
             "steps/16, /32 and /64, where the loss falls fastest (a run stopped early has a curve too). Defaults: lr 0.003 and wd 0.001 for attention models,\n"
             "0.001 and 0.0001 for mlp; seed is the model's. Ctrl-C stops early: the weights reached are\n"
             "validated too, and the best of every validation is kept (a second Ctrl-C skips that pass).\n"
             "One live display shows the progress and ends as the summary: the curve, validation and test\n"
             "scores and the trace.",
     .example = "stories = corpus profile=smoke stories=60\nm = model new kind=multihead heads=4 vocab=$stories.vocab seed=11\n"
                "train $m $stories steps=20 batch=32 eval_every=10",
     .min_args = 2, .max_args = 2, .options = "steps batch lr wd seed eval_every", .flags = WL_CMD_SHOW_BOUND,
     .fn = cmd_train, .result = &lang_run_type},
    {0},
};

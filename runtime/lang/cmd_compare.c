/* cmd_compare.c: compare (the course's protocol over models and seeds, resumable) and results (a saved comparison.json). */
#include "lang_objs.h"

#include "wl_compare.h"

#include <stdlib.h>

static int cmd_results(wl_call *c, wl_value **out)
{
    const char *where = wl_arg_str(c, 0);
    if (!where) return -1;
    if (!c->allow_files) return wl_call_fail(c, "PermissionError", wl_call_argword(c, 0), "reading files is disabled here");
    return lang_comparison_load(c, where, wl_call_argword(c, 0), out);
}

static void on_compare(void *ud, const wl_compare_progress *p)
{
    lang_progress *ui = ud;
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
    lang_progress ui;
    if (lang_progress_init(&ui, c, cfg.steps)) return -1;
    wl_compare_status st;
    int rc = wl_compare_run(&lc->c, dir, &cfg, on_compare, &ui, lang_interrupt(c), &st, c->err);
    lang_progress_free(&ui);
    if (rc) return -1;
    wl_sink_printf(c->sink, "%d of %d runs done (%d kept from before)%s in %.1f s\n", st.done, st.nruns, st.kept,
                   st.interrupted ? "; interrupted: run the same command again to resume" : "", st.seconds);
    return lang_comparison_load(c, dir, wl_call_optword(c, "dir"), out);
}

const wl_command wl_cmds_compare[] = {
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

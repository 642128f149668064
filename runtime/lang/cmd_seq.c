/* cmd_seq.c: the sequence lesson's commands: data summary, one net, the head, centers and order tables, weight plots. */
#include "lang_objs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The runtime's failure as the command's error: an interrupt or a RuntimeError. */
static int seq_failed(wl_call *c)
{
    if (wl_sink_interrupted(c->sink)) c->ename = "Interrupted";
    return -1;
}

/* ---- options shared by the commands (each lists the ones it takes) ---- */

/* heads=1,2,4 (text) or heads=2 or heads=[...] (a list): head counts, each 1, 2 or 4. */
static int opt_heads_list(wl_call *c, wl_seq_opts *o)
{
    wl_value *v = wl_opt_val(c, "heads");
    if (!v) return 0;
    int word = wl_call_optword(c, "heads");
    double x[WL_SEQ_MAX_HEADS_LIST];
    int n = 0;
    if (v->type == WL_V_NUM) {
        x[n++] = v->num;
    } else if (v->type == WL_V_LIST) {
        for (int i = 0; i < v->n; i++) {
            if (v->items[i]->type != WL_V_NUM || n == WL_SEQ_MAX_HEADS_LIST)
                return wl_call_fail(c, "ArgumentError", word, "heads= takes up to %d head counts, e.g. heads=1,2,4",
                                    WL_SEQ_MAX_HEADS_LIST);
            x[n++] = v->items[i]->num;
        }
    } else {
        const char *s = wl_opt_str(c, "heads", NULL);
        if (!s) return -1;
        while (*s) {
            char *end;
            if (n == WL_SEQ_MAX_HEADS_LIST) break;
            x[n++] = strtod(s, &end);
            if (end == s || (*end && *end != ',')) {
                n = WL_SEQ_MAX_HEADS_LIST + 1;
                break;
            }
            s = *end ? end + 1 : end;
        }
        if (n > WL_SEQ_MAX_HEADS_LIST || *s)
            return wl_call_fail(c, "ArgumentError", word, "heads= takes up to %d head counts separated by commas, "
                                "e.g. heads=1,2,4", WL_SEQ_MAX_HEADS_LIST);
    }
    if (n == 0) return wl_call_fail(c, "ArgumentError", word, "heads= needs at least one head count, e.g. heads=1,2,4");
    for (int i = 0; i < n; i++) {
        if (x[i] != 1 && x[i] != 2 && x[i] != 4)
            return wl_call_fail(c, "ArgumentError", word, "%g heads do not divide the inner width 4: use 1, 2 or 4", x[i]);
        o->heads[i] = (int)x[i];
    }
    o->nheads = n;
    return 0;
}

static int opt_one_heads(wl_call *c, const char *key, int dflt, int *out)
{
    long long h;
    if (wl_opt_int(c, key, dflt, 1, 4, &h)) return -1;
    if (h == 3) return wl_call_fail(c, "ArgumentError", wl_call_optword(c, key), "3 heads do not divide the inner width 4: use 1, 2 or 4");
    *out = (int)h;
    return 0;
}

/* The data and training settings, each defaulting to the lesson's value. */
static int opt_settings(wl_call *c, wl_seq_opts *o)
{
    wl_seq_opts_default(o);
    long long seed, n, ntrain, ntest, epochs, runs;
    if (wl_opt_int(c, "seed", o->seed, -(1LL << 53), 1LL << 53, &seed) || wl_opt_int(c, "n", o->n, 2, 1000000, &n) ||
        wl_opt_int(c, "train", o->ntrain, 1, 1000000, &ntrain) || wl_opt_int(c, "test", o->ntest, 1, 1000000, &ntest) ||
        wl_opt_int(c, "epochs", o->train.epochs, 0, 100000, &epochs) ||
        wl_opt_int(c, "runs", o->runs, 1, WL_SEQ_MAX_RUNS, &runs) || wl_opt_num(c, "lr", o->train.lr, &o->train.lr) ||
        wl_opt_num(c, "momentum", o->train.momentum, &o->train.momentum))
        return -1;
    o->seed = seed;
    o->n = (int)n;
    o->ntrain = (int)ntrain;
    o->ntest = (int)ntest;
    o->train.epochs = (int)epochs;
    o->runs = (int)runs;
    if (o->ntrain + o->ntest > o->n)
        return wl_call_fail(c, "ArgumentError",
                            wl_call_optword(c, wl_opt_has(c, "test") ? "test" : wl_opt_has(c, "train") ? "train" : "n"),
                            "train=%d and test=%d sequences do not fit, without overlap, in n=%d", o->ntrain, o->ntest, o->n);
    if (!(o->train.lr > 0) || !isfinite(o->train.lr))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "lr"), "lr must be a number greater than 0");
    if (!(o->train.momentum >= 0 && o->train.momentum < 1))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "momentum"), "momentum must be from 0 up to (not including) 1");
    return 0;
}

/* ---- the lesson's tables ---- */

/* order_key: the option naming the order test's heads ("heads" for seq_order, where heads= is not a
 * list of head counts), or NULL when the command has no order test. */
static int run_tables(wl_call *c, unsigned parts, lang_seq_show show, const char *order_key, wl_value **out)
{
    wl_seq_opts o;
    if (opt_settings(c, &o)) return -1;
    if (order_key && opt_one_heads(c, order_key, 2, &o.order_heads)) return -1;
    if ((!order_key || strcmp(order_key, "heads")) && opt_heads_list(c, &o)) return -1;
    wl_seq_lesson l;
    if (wl_seq_lesson_run(&l, &o, parts, lang_interrupt(c), c->err)) return seq_failed(c);
    *out = lang_seq_tables_value(&l, show);
    return 0;
}

static int cmd_seq_data(wl_call *c, wl_value **out)
{
    return run_tables(c, 0, LANG_SEQ_DATA, NULL, out);
}

static int cmd_seq_heads(wl_call *c, wl_value **out)
{
    return run_tables(c, WL_SEQ_PART_HEADS, LANG_SEQ_HEADS, NULL, out);
}

static int cmd_seq_centers(wl_call *c, wl_value **out)
{
    return run_tables(c, WL_SEQ_PART_HEADS, LANG_SEQ_CENTERS, NULL, out);
}

static int cmd_seq_order(wl_call *c, wl_value **out)
{
    return run_tables(c, WL_SEQ_PART_ORDER, LANG_SEQ_ORDER, "heads", out);
}

static int cmd_seq_lesson(wl_call *c, wl_value **out)
{
    return run_tables(c, WL_SEQ_PART_ALL, LANG_SEQ_ALL, "order_heads", out);
}

/* ---- one trained net, and its weight plot and parameters ---- */

/* Trains the net the options describe and measures it on the held-out sequences. */
static lang_seq_net *train_net(wl_call *c)
{
    lang_seq_net *n = wl_xcalloc(1, sizeof *n);
    long long run, positions;
    if (opt_settings(c, &n->o) || opt_one_heads(c, "heads", 2, &n->r.H) || wl_opt_int(c, "run", 1, 1, 1000000, &run) ||
        wl_opt_int(c, "positions", 1, 0, 1, &positions)) {
        free(n);
        return NULL;
    }
    n->r.run = (int)run;
    n->r.positions = (int)positions;
    n->ntest = n->o.ntest;
    wl_seq_data data;
    wl_seq_set tr = {0}, te = {0};
    int rc = wl_seq_data_build(&data, n->o.seed, n->o.n, c->err);
    if (rc == 0)
        rc = wl_seq_set_build(&tr, &data, 0, n->o.ntrain, n->r.positions, c->err) ||
             wl_seq_set_build(&te, &data, n->o.n - n->o.ntest, n->o.ntest, n->r.positions, c->err) ||
             wl_seq_train(&n->r.net, &tr, n->o.seed + n->r.run, n->r.H, &n->o.train, lang_interrupt(c), c->err);
    if (rc == 0) {
        n->r.acc = wl_seq_accuracy(&n->r.net, &te);
        for (int h = 0; h < n->r.H; h++) n->r.center[h] = wl_seq_center(&n->r.net, &te, h);
        n->r.separation = wl_seq_separation(&n->r.net, &te);
        wl_seq_mean_weights(&n->r.net, &te, n->mw);
    }
    wl_seq_set_free(&tr);
    wl_seq_set_free(&te);
    wl_seq_data_free(&data);
    if (rc) {
        free(n);
        seq_failed(c);
        return NULL;
    }
    return n;
}

static int cmd_seq_train(wl_call *c, wl_value **out)
{
    lang_seq_net *n = train_net(c);
    if (!n) return -1;
    *out = lang_seq_net_value(n);
    return 0;
}

/* The net a command shows: a copy of its argument (from seq_train), or one trained from its options. */
static lang_seq_net *net_from_args(wl_call *c)
{
    if (c->argc == 0) return train_net(c);
    const lang_seq_net *src = wl_arg_obj(c, 0, &lang_seq_net_type);
    if (!src) return NULL;
    if (c->nopts) {
        wl_call_fail(c, "ArgumentError", wl_call_optword(c, c->optk[0]), "give either a sequence net or the options that train one, not both");
        return NULL;
    }
    lang_seq_net *n = wl_xmalloc(sizeof *n);
    *n = *src;
    return n;
}

static int cmd_seq_weights(wl_call *c, wl_value **out)
{
    lang_seq_net *n = net_from_args(c);
    if (!n) return -1;
    *out = lang_seq_weights_value(n);
    return 0;
}

static int cmd_seq_params(wl_call *c, wl_value **out)
{
    lang_seq_net *n = net_from_args(c);
    if (!n) return -1;
    *out = lang_seq_params_value(n);
    return 0;
}

/* ---- the table ---- */

#define SEQ_SETTINGS "seed n train test epochs lr momentum"
#define SEQ_SETTINGS_HELP                                                                                              \
    "Settings (the lesson's values by default): seed=20260218 (data seed; run k starts from seed+k),\n"                \
    "n=720 sequences, train=200 (the first ones), test=180 (the last ones), epochs=150, lr=0.15,\n"                  \
    "momentum=0.8"
/* The rest of a command that makes the lesson's tables from runs= nets per head count, and of one that shows a net
 * (given, or trained from the options). */
#define SEQ_TABLES(f) \
    .min_args = 0, .max_args = 0, .options = "heads runs " SEQ_SETTINGS, .fn = f, .result = &lang_seq_tables_type
#define SEQ_ON_NET(f, type) \
    .min_args = 0, .max_args = 1, .options = "heads run positions " SEQ_SETTINGS, .fn = f, .result = &type

const wl_command wl_cmds_seq[] = {
    {.name = "seq_data", .topic = "sequences", .synopsis = "seq_data [seed=S] [n=N] [train=N] [test=N]",
     .summary = "the fictional sequences of the sequence lesson: sizes, rise-label rates, baseline",
     .help = "Regenerates the lesson's fictional sequences: n sequences of 12 readings (step 0 is 0.0,\n"
             "each later step (r+r+r-1.5)*1.9 rounded to 3 decimals, r drawn from the lesson's hash\n"
             "generator). The rise label is 1 when the mean of steps 7-11 exceeds the mean of steps 1-5\n"
             "by more than 0.30. Shows the label rate on the training and held-out sequences, the\n"
             "baseline (always answering the most frequent class) and the first sequence.",
     .example = "seq_data\nseq_data seed=7 n=400", .min_args = 0, .max_args = 0, .options = "seed n train test",
     .fn = cmd_seq_data,
     .result = &lang_seq_tables_type},
    {.name = "seq_train", .topic = "sequences",
     .synopsis = "seq_train [heads=2] [run=1] [positions=1] [seed=S] [epochs=E] [lr=X] [momentum=X] ...",
     .summary = "trains one 33-parameter attention net on the rise label and measures it",
     .help = "The net: total inner width 4 split over heads=1, 2 or 4 heads; each head folds its query\n"
             "into its keys, weighs the 12 steps with a softmax and projects the weighted input; the\n"
             "heads' outputs are concatenated and read by one logistic output. Every setup has 33\n"
             "parameters. Each step's input is (reading, sin(pi t/11), cos(pi t/11)), or (reading, 0, 0)\n"
             "with positions=0. Full-batch descent with momentum from the initialisation seed+run.\n"
             "Shows held-out accuracy, each head's weight center (mean step it looks at), the\n"
             "separation between heads (half the L1 distance of their weights, 0..1) and each head's\n"
             "mean weight per step.\n" SEQ_SETTINGS_HELP ".",
     .example = "net = seq_train heads=2 run=2\nprint $net.centers\nseq_train heads=4 positions=0 epochs=50",
     .min_args = 0, .max_args = 0, .options = "heads run positions " SEQ_SETTINGS, .fn = cmd_seq_train,
     .result = &lang_seq_net_type},
    {.name = "seq_heads", .topic = "sequences", .synopsis = "seq_heads [heads=1,2,4] [runs=2] [seed=S] [epochs=E] ...",
     .summary = "the lesson's table: held-out accuracy for 1, 2 and 4 heads at the same 33 parameters",
     .help = "Trains runs= nets (initialisation seeds seed+1, seed+2, ...) for each head count in heads=\n"
             "and prints the lesson's table: head size, parameters, each run's held-out accuracy, their\n"
             "mean and the difference between the best and the worst run.\n" SEQ_SETTINGS_HELP ".",
     .example = "seq_heads\nseq_heads heads=2,4 runs=3 epochs=60", SEQ_TABLES(cmd_seq_heads)},
    {.name = "seq_centers", .topic = "sequences", .synopsis = "seq_centers [heads=1,2,4] [runs=2] [seed=S] ...",
     .summary = "the lesson's table: each head's weight center and the separation between heads",
     .help = "For the same nets as seq_heads: each head's weight center (the mean step its weights fall\n"
             "on over the held-out sequences) and the separation (half the L1 distance between two\n"
             "heads' weight distributions, averaged over pairs and sequences: 0 same, 1 disjoint).\n"
             "The task wants the regions of steps 1-5 and 7-11.\n" SEQ_SETTINGS_HELP ".",
     .example = "seq_centers\nseq_centers heads=2 runs=4 epochs=80", SEQ_TABLES(cmd_seq_centers)},
    {.name = "seq_order", .topic = "sequences", .synopsis = "seq_order [heads=2] [runs=2] [seed=S] ...",
     .summary = "the lesson's order test: shuffle the readings, with and without positional encoding",
     .help = "Trains runs= nets of heads= heads with the position channels and runs= without, shows\n"
             "their held-out accuracies, then shuffles the readings of every held-out sequence (the\n"
             "position channels stay in place; shuffle seed seed+4000+i) and measures how far the\n"
             "last run's output probability moves: mean and largest |change|. Without positions the\n"
             "layer sees a set, so the output does not move (beyond rounding).\n" SEQ_SETTINGS_HELP ".",
     .example = "seq_order\nseq_order heads=4 epochs=60", SEQ_TABLES(cmd_seq_order)},
    {.name = "seq_weights", .topic = "sequences", .synopsis = "seq_weights [NET] [heads=2] [run=1] [positions=1] ...",
     .summary = "a plot of each head's mean attention weight over the 12 steps",
     .help = "Plots, for a net from seq_train (or one trained here from the same options), each head's\n"
             "attention weight at each step averaged over the held-out sequences: a line per head in\n"
             "the notebook, shaded cells with the values in the terminal. A head that found one of\n"
             "the task's regions rises over steps 1-5 or 7-11.\n" SEQ_SETTINGS_HELP ".",
     .example = "seq_weights heads=2 run=2\nnet = seq_train heads=4 run=2 epochs=40\nseq_weights $net",
     SEQ_ON_NET(cmd_seq_weights, lang_seq_weights_type)},
    {.name = "seq_params", .topic = "sequences", .synopsis = "seq_params [NET] [heads=2] [run=1] [positions=1] ...",
     .summary = "the net's 33 parameters, part by part, and the formulas that use them",
     .help = "For a net from seq_train (or one trained here from the same options): the parameter count\n"
             "of each part (W_k, W_v, q, w, b), the computation of one head (the query folded into the\n"
             "keys, u = q^T W_k; scores u . x_t scaled by 1/sqrt(d); softmax; the value projection) and\n"
             "the sigmoid output, with this net's folded queries u and output weights.\n" SEQ_SETTINGS_HELP ".",
     .example = "seq_params heads=2 run=2\nnet = seq_train heads=4 run=1 epochs=20\nseq_params $net",
     SEQ_ON_NET(cmd_seq_params, lang_seq_params_type)},
    {.name = "seq_lesson", .topic = "sequences",
     .synopsis = "seq_lesson [heads=1,2,4] [runs=2] [order_heads=2] [seed=S] ...",
     .summary = "everything the sequence lesson prints, in its order",
     .help = "The data summary, the head-count table, the centers and separation table and the order\n"
             "test, exactly as the lesson's own code prints them (same digits).\n" SEQ_SETTINGS_HELP ".",
     .example = "seq_lesson\nseq_lesson seed=12345 epochs=40", .min_args = 0, .max_args = 0,
     .options = "heads runs order_heads " SEQ_SETTINGS, .fn = cmd_seq_lesson,
     .result = &lang_seq_tables_type},
    {0},
};

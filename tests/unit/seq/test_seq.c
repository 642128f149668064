/* test_seq.c: the sequence lesson prints every number of seed 002 with the same digits; rounding, repr, exp and errors. */
/* Before the includes: the vector helpers of wl_seq_exp.h return vectors, but are always inlined (see there). */
#pragma GCC diagnostic ignored "-Wpsabi"
#include "wl_seq.h"
#include "wl_seq_exp.h"
#include "wl_seq_gen.h"
#include "wl_seq_pyfloat.h"
#include "wl_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The lesson's printed output (seeds/002), section by section. */
static const char SEED_SUMMARY[] =
    "sequences 720, length 12, training 200, held-out 180\n"
    "rise label rate train 0.3150, held-out 0.3389\n"
    "baseline (most frequent class) 0.6611\n"
    "example sequence [0.0, 0.893, -0.222, -0.542, -0.404, -1.114, 0.234, -1.03, -1.493, 0.534, -1.807, 0.05]\n";

static const char SEED_HEADS[] =
    "total inner dimension 4, epochs 150, training examples 200, baseline 0.6611\n"
    " heads   head size parameters     run 1     run 2      mean  run difference\n"
    "     1           4         33    0.8889    0.8556    0.8722          0.0333\n"
    "     2           2         33    0.8778    0.8833    0.8806          0.0056\n"
    "     4           1         33    0.8722    0.9222    0.8972          0.0500\n";

static const char SEED_CENTERS[] =
    "the two regions the task wants: steps 1-5 and 7-11\n"
    "                                      weight centers  separation  held-out\n"
    "1 head, run 1                                   5.51      0.0000    0.8889\n"
    "1 head, run 2                                   6.02      0.0000    0.8556\n"
    "2 heads, run 1                            5.57, 6.30      0.4096    0.8778\n"
    "2 heads, run 2                            3.30, 8.55      0.7264    0.8833\n"
    "4 heads, run 1                5.84, 5.48, 5.79, 5.61      0.4782    0.8722\n"
    "4 heads, run 2                3.24, 5.81, 8.37, 4.59      0.4291    0.9222\n";

static const char SEED_ORDER[] =
    "baseline (most frequent class) 0.6611\n"
    "                                run 1    run 2  mean |change|   largest\n"
    "positional encoding present    0.8778   0.8833         0.3173    0.9753\n"
    "positional encoding absent     0.6611   0.6611         0.0000    0.0000\n";

/* Compares line by line so that a failure names the first differing line. */
static void check_text(const char *what, const char *got, const char *want)
{
    CHECK_MSG(got != NULL, "%s: no text", what);
    if (!got) return;
    const char *g = got, *w = want;
    int line = 1;
    while (*g || *w) {
        size_t gl = strcspn(g, "\n"), wl = strcspn(w, "\n");
        CHECK_MSG(gl == wl && memcmp(g, w, gl) == 0, "%s line %d:\n  got  '%.*s'\n  want '%.*s'", what, line, (int)gl,
                  g, (int)wl, w);
        if (!(gl == wl && memcmp(g, w, gl) == 0)) return;
        g += gl + (g[gl] == '\n');
        w += wl + (w[wl] == '\n');
        line++;
    }
}

static wl_seq_lesson lesson;   /* the default lesson, computed once */

static void test_lesson_tables(void)
{
    char *t = wl_seq_summary_text(&lesson);
    check_text("summary", t, SEED_SUMMARY);
    free(t);
    t = wl_seq_heads_table_text(&lesson);
    check_text("heads table", t, SEED_HEADS);
    free(t);
    t = wl_seq_centers_table_text(&lesson);
    check_text("centers table", t, SEED_CENTERS);
    free(t);
    t = wl_seq_order_table_text(&lesson);
    check_text("order table", t, SEED_ORDER);
    free(t);
    size_t n = strlen(SEED_SUMMARY) + strlen(SEED_HEADS) + strlen(SEED_CENTERS) + strlen(SEED_ORDER);
    char *all = malloc(n + 1);
    strcpy(all, SEED_SUMMARY);
    strcat(all, SEED_HEADS);
    strcat(all, SEED_CENTERS);
    strcat(all, SEED_ORDER);
    t = wl_seq_lesson_text(&lesson);
    check_text("whole lesson", t, all);
    free(t);
    free(all);
}

/* The structured results agree with the text: accuracies are counts over 180; without positions
 * the order test moves the output only by rounding (sums over the steps in another order:
 * about 1e-18 on average, in the lesson's own code too), and both runs sit at the baseline. */
static void test_lesson_structure(void)
{
    const wl_seq_lesson *l = &lesson;
    CHECK(l->summary.n == 720 && l->summary.ntrain == 200 && l->summary.ntest == 180);
    CHECK(l->summary.baseline == 1 - l->summary.test_rate);
    for (int i = 0; i < 6; i++) {
        double k = l->heads[i].acc * 180;
        CHECK_MSG(fabs(k - nearbyint(k)) < 1e-9, "accuracy %d is %.17g", i, l->heads[i].acc);
        static const int heads[3] = {1, 2, 4};
        CHECK(l->heads[i].H == heads[i / 2] && l->heads[i].run == i % 2 + 1);
    }
    CHECK(l->order_mean[1] < 1e-15 && l->order_max[1] < 1e-15);
    CHECK(l->order_nopos[0].acc == l->summary.baseline && l->order_nopos[1].acc == l->summary.baseline);
    CHECK(memcmp(&l->order_pos[1].net, &l->heads[3].net, sizeof(wl_seq_net)) == 0);
    CHECK(l->order_mean[0] > 0.3 && l->order_max[0] <= 1.0);
}

/* The same lesson on one thread and on three gives the same bits. */
static void test_threads_agree(void)
{
    wl_seq_opts o;
    wl_seq_opts_default(&o);
    o.n = 61;
    o.ntrain = 31;   /* not a multiple of the 4 vector lanes: the last group is partly filled */
    o.ntest = 25;
    o.train.epochs = 12;
    wl_seq_lesson a, b;
    wl_err err;
    o.threads = 1;
    CHECK(wl_seq_lesson_run(&a, &o, WL_SEQ_PART_ALL, NULL, &err) == 0);
    o.threads = 3;
    CHECK(wl_seq_lesson_run(&b, &o, WL_SEQ_PART_ALL, NULL, &err) == 0);
    for (int i = 0; i < 6; i++) {
        CHECK(memcmp(a.heads[i].net.p, b.heads[i].net.p, sizeof a.heads[i].net.p) == 0);
        CHECK(a.heads[i].acc == b.heads[i].acc && a.heads[i].separation == b.heads[i].separation);
    }
    CHECK(a.order_mean[0] == b.order_mean[0] && a.order_max[0] == b.order_max[0]);
    /* A single training agrees with the lesson's: run 1 of 2 heads is seeded with seed + 1. */
    wl_seq_data d;
    wl_seq_set tr, te;
    wl_seq_net net;
    CHECK(wl_seq_data_build(&d, o.seed, o.n, &err) == 0);
    CHECK(wl_seq_set_build(&tr, &d, 0, o.ntrain, 1, &err) == 0);
    CHECK(wl_seq_set_build(&te, &d, o.n - o.ntest, o.ntest, 1, &err) == 0);
    CHECK(wl_seq_train(&net, &tr, o.seed + 1, 2, &o.train, NULL, &err) == 0);
    CHECK(memcmp(net.p, a.heads[2].net.p, sizeof net.p) == 0);
    CHECK(wl_seq_accuracy(&net, &te) == a.heads[2].acc);
    CHECK(wl_seq_center(&net, &te, 1) == a.heads[2].center[1]);
    /* Mean weights: each head's row is a distribution over the steps. */
    double mw[2 * WL_SEQ_T];
    wl_seq_mean_weights(&net, &te, mw);
    for (int h = 0; h < 2; h++) {
        double s = 0;
        for (int t = 0; t < WL_SEQ_T; t++) s += mw[h * WL_SEQ_T + t];
        CHECK(fabs(s - 1) < 1e-12);
    }
    wl_seq_set_free(&tr);
    wl_seq_set_free(&te);
    wl_seq_data_free(&d);
    wl_seq_lesson_free(&a);
    wl_seq_lesson_free(&b);
}

/* round(x, 3) against printf's exact decimal rounding read back by strtod. */
static double round3_by_text(double x)
{
    char buf[400];
    snprintf(buf, sizeof buf, "%.3f", x);
    return strtod(buf, NULL);
}

static void test_round3(void)
{
    /* Values whose answers Python gives: 2.675 is below the tie in binary; k/16 are exact ties (to even). */
    CHECK(wl_seq_round3(2.675) == 2.675);
    CHECK(wl_seq_round3(0.0625) == 0.062);
    CHECK(wl_seq_round3(0.1875) == 0.188);
    CHECK(wl_seq_round3(-0.0625) == -0.062);
    CHECK(wl_seq_round3(1.0005) == 1.0);
    CHECK(wl_seq_round3(2.0005) == 2.001);
    CHECK(wl_seq_round3(1e20) == 1e20);
    double z = wl_seq_round3(-0.0004);
    CHECK(z == 0 && signbit(z));
    z = wl_seq_round3(0.0004);
    CHECK(z == 0 && !signbit(z));
    CHECK(isinf(wl_seq_round3(INFINITY)) && isnan(wl_seq_round3(NAN)));
    /* Many values: the lesson's own range, wider magnitudes and every exact tie k/16. */
    wl_seq_gen g;
    wl_seq_gen_init(&g, 12345);
    int bad = 0;
    for (int i = 0; i < 300000; i++) {
        double u = wl_seq_gen_next(&g), v = wl_seq_gen_next(&g);
        double x = (u - 0.5) * 6.0;
        if (i % 3 == 1) x = ldexp(u - 0.5, (int)(v * 80) - 30);
        if (i % 3 == 2) x = (double)((int64_t)(u * 2e6) - 1000000) / 16.0;
        if (wl_seq_round3(x) != round3_by_text(x) && bad++ < 5)
            CHECK_MSG(0, "round3(%a) = %a, want %a", x, wl_seq_round3(x), round3_by_text(x));
    }
    CHECK(bad == 0);
}

static void test_float_repr(void)
{
    static const struct {
        double x;
        const char *want;
    } cases[] = {
        {0.0, "0.0"}, {-0.0, "-0.0"}, {0.05, "0.05"}, {-1.03, "-1.03"}, {1e-05, "1e-05"}, {1e16, "1e+16"},
        {123456789012345.6, "123456789012345.6"}, {0.30000000000000004, "0.30000000000000004"},
        {1e-4, "0.0001"}, {2.5e-7, "2.5e-07"}, {1234.0, "1234.0"}, {1e15, "1000000000000000.0"},
        {5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
        {9999999999999998.0, "9999999999999998.0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[32];
        wl_seq_float_repr(cases[i].x, buf);
        CHECK_MSG(strcmp(buf, cases[i].want) == 0, "repr(%a) = %s, want %s", cases[i].x, buf, cases[i].want);
    }
}

/* The four-lane exp gives libm's exp bit for bit (through its table path when this libm allows it). */
static void test_exp_matches_libm(void)
{
    wl_seq_exp_init();
    wl_seq_gen g;
    wl_seq_gen_init(&g, 99);
    int bad = 0;
    for (int i = 0; i < 1000000; i += WL_SEQ_LANES) {
        wl_seq_vd x;
        for (int l = 0; l < WL_SEQ_LANES; l++) {
            double u = wl_seq_gen_next(&g);
            switch ((i / WL_SEQ_LANES) % 5) {
            case 0: x[l] = (u - 0.8) * 80; break;                                  /* the lesson's arguments */
            case 1: x[l] = (u - 0.5) * 1500; break;                                /* beyond the table range too */
            case 2: x[l] = ldexp(u - 0.5, (int)(wl_seq_gen_next(&g) * 70) - 60); break;   /* tiny to moderate */
            case 3: x[l] = (double)(int64_t)(u * 20000 - 10000) * M_LN2 / 128; break;     /* near table points */
            default: x[l] = u < 0.3 ? 0.0 : (u - 0.5) * 10; break;                /* with exact zeros */
            }
        }
        wl_seq_vd a = wl_seq_exp(x);
        for (int l = 0; l < WL_SEQ_LANES; l++) {
            double got = a[l], b = exp(x[l]);
            if (memcmp(&got, &b, sizeof b) != 0 && bad++ < 5) CHECK_MSG(0, "exp(%a): %a, libm %a", x[l], got, b);
        }
    }
    CHECK(bad == 0);
    wl_seq_vd s = {-0.0, INFINITY, -745.2, NAN}, a = wl_seq_exp(s);
    CHECK(a[0] == 1.0 && isinf(a[1]) && a[2] == exp(-745.2) && isnan(a[3]));
}

/* Arguments gathered four at a time for the table path; each lane is compared with libm's exp. */
typedef struct exp_batch {
    const wl_seq_expdata *e;
    double x[WL_SEQ_LANES];
    int n, bad, total;
} exp_batch;

static void exp_try(exp_batch *b, double x)
{
    b->x[b->n++] = x;
    if (b->n < WL_SEQ_LANES) return;
    wl_seq_vd v = {b->x[0], b->x[1], b->x[2], b->x[3]}, a = wl_seq_exp_table(b->e, v);
    for (int l = 0; l < WL_SEQ_LANES; l++) {
        double got = a[l], want = exp(b->x[l]);
        if (memcmp(&got, &want, sizeof want) != 0 && b->bad++ < 5)
            CHECK_MSG(0, "table path exp(%a) = %a, libm %a", b->x[l], got, want);
    }
    b->total += WL_SEQ_LANES;
    b->n = 0;
}

/* The table path, with the table computed at start-up, against libm's exp over the whole domain it serves,
 * 2^-54 <= |x| < 512: every binade of both signs with its mantissas spread evenly, every table index at
 * every scale from 2^-30 to 2^30, the points where the rounding of k changes, both ends of the domain, and
 * the lesson's own arguments (scores minus their maximum, clamped logits) densely. A table tail T[k] off in
 * its last bits changes no result here: test_seq_reference.py checks every word of the table exactly. */
static void test_exp_table_whole_domain(void)
{
    wl_seq_exp_init();
    const wl_seq_expdata *e = wl_seq_exp_fast;
#if defined(__GLIBC__) && defined(__x86_64__)
    if (__builtin_cpu_supports("fma"))
        CHECK_MSG(e != NULL, "glibc on a CPU with FMA: the computed table must give its exp bit for bit");
#endif
    if (!e) {
        fprintf(stderr, "note: the table path does not match this libm's exp; every lane uses libm's exp\n");
        return;
    }
    for (int k = 0; k < WL_SEQ_EXP_N; k++) {   /* H is 2^(k/128) rounded, T a correction below H's last bit */
        uint64_t hb = e->tab[2 * k + 1] + ((uint64_t)k << 45);
        double h, t;
        memcpy(&h, &hb, sizeof h);
        memcpy(&t, &e->tab[2 * k], sizeof t);
        CHECK_MSG(h == exp2(k / 128.0) && fabs(h * t) <= 0x1p-53, "2^(%d/128): %a (1 + %a)", k, h, t);
    }
    wl_seq_gen g;
    wl_seq_gen_init(&g, 2026);
    exp_batch b = {.e = e};
    for (int p = -54; p <= 8; p++)
        for (int j = 0; j < 4096; j++) {
            double m = ldexp(1.0 + (j + wl_seq_gen_next(&g)) / 4096, p);
            exp_try(&b, m);
            exp_try(&b, -m);
        }
    for (int s = -30; s <= 30; s++)
        for (int k = 0; k < WL_SEQ_EXP_N; k++)
            for (int j = 0; j < 8; j++) {
                double v = ldexp((k + wl_seq_gen_next(&g)) * M_LN2 / 128, s);
                if (v >= 0x1p-54 && v < 512) {
                    exp_try(&b, v);
                    exp_try(&b, -v);
                }
            }
    for (int k = -65536; k < 65536; k += 7) {   /* around (k + 1/2) ln2/128, where x * 128/ln2 rounds to k or k + 1 */
        double v = (k + 0.5) * M_LN2 / 128;
        exp_try(&b, nextafter(v, -INFINITY));
        exp_try(&b, v);
        exp_try(&b, nextafter(v, INFINITY));
        exp_try(&b, k * M_LN2 / 128 + 0x1p-40);
    }
    exp_try(&b, 0x1p-54);
    exp_try(&b, -0x1p-54);
    exp_try(&b, nextafter(512, 0));
    exp_try(&b, -nextafter(512, 0));
    for (int j = 0; j < 400000; j++) {
        double u = wl_seq_gen_next(&g);
        exp_try(&b, j % 2 ? (u - 1) * 60 : (u - 0.5) * 60);
    }
    CHECK_MSG(b.bad == 0, "%d of %d arguments differ", b.bad, b.total);
}

static void test_shuffle(void)
{
    double x[WL_SEQ_T][WL_SEQ_C], y[WL_SEQ_T][WL_SEQ_C];
    for (int t = 0; t < WL_SEQ_T; t++) {
        x[t][0] = t;
        x[t][1] = 100 + t;
        x[t][2] = 200 + t;
    }
    wl_seq_shuffle_readings((const double (*)[WL_SEQ_C])x, 20260218 + 4000, y);
    int seen[WL_SEQ_T] = {0}, moved = 0;
    for (int t = 0; t < WL_SEQ_T; t++) {
        int k = (int)y[t][0];
        CHECK(k >= 0 && k < WL_SEQ_T && !seen[k]);
        if (k >= 0 && k < WL_SEQ_T) seen[k] = 1;
        moved += k != t;
        CHECK(y[t][1] == 100 + t && y[t][2] == 200 + t);
    }
    CHECK(moved > 0);
}

static void test_errors(void)
{
    wl_err err;
    wl_seq_net net;
    CHECK(wl_seq_net_init(&net, 1, 3, &err) == -1);
    CHECK(strstr(err.msg, "3 heads") != NULL);
    wl_seq_opts o;
    wl_seq_opts_default(&o);
    wl_seq_lesson l;
    o.n = 300;
    CHECK(wl_seq_lesson_run(&l, &o, WL_SEQ_PART_ALL, NULL, &err) == -1);
    CHECK(strstr(err.msg, "300 sequences") != NULL);
    wl_seq_opts_default(&o);
    o.heads[1] = 5;
    CHECK(wl_seq_lesson_run(&l, &o, WL_SEQ_PART_ALL, NULL, &err) == -1);
    CHECK(strstr(err.msg, "5 heads") != NULL);
    wl_seq_opts_default(&o);
    o.runs = 0;
    CHECK(wl_seq_lesson_run(&l, &o, WL_SEQ_PART_ALL, NULL, &err) == -1);
    CHECK(strstr(err.msg, "runs") != NULL);
    wl_seq_opts_default(&o);
    o.train.lr = NAN;
    CHECK(wl_seq_lesson_run(&l, &o, WL_SEQ_PART_ALL, NULL, &err) == -1);
    /* A learning rate that blows the parameters up stops the training with the epoch, not with NaN accuracies. */
    wl_seq_opts_default(&o);
    o.train.lr = 100;
    CHECK(wl_seq_lesson_run(&l, &o, WL_SEQ_PART_ALL, NULL, &err) == -1);
    CHECK_MSG(strstr(err.msg, "sequence training diverged at epoch ") && strstr(err.msg, "of 150") &&
              strstr(err.msg, "try a smaller lr"), "%s", err.msg);
    /* One run has no difference between runs: the column shows a dash. */
    wl_seq_opts_default(&o);
    o.runs = 1;
    o.nheads = 1;
    o.train.epochs = 2;
    CHECK(wl_seq_lesson_run(&l, &o, WL_SEQ_PART_HEADS, NULL, &err) == 0);
    char *heads = wl_seq_heads_table_text(&l);
    const char *row = heads ? strstr(heads, "run 1      mean  run difference\n") : NULL;
    row = row ? strchr(row, '\n') + 1 : NULL;   /* the one row: heads, head size, parameters, run 1, mean, a dash */
    CHECK_MSG(row && strlen(row) == 6 + 12 + 11 + 10 + 10 + 15 + strlen("\u2013\n") &&
              !strcmp(row + 49, "               \u2013\n"), "%s", heads);
    free(heads);
    wl_seq_lesson_free(&l);
    /* An interrupt stops the trainings with a message, and nothing leaks. */
    wl_seq_opts_default(&o);
    volatile sig_atomic_t stop = 1;
    CHECK(wl_seq_lesson_run(&l, &o, WL_SEQ_PART_ALL, &stop, &err) == -1);
    CHECK(strstr(err.msg, "interrupted") != NULL);
    /* The summary alone needs no training; missing parts render as NULL. */
    wl_seq_opts_default(&o);
    CHECK(wl_seq_lesson_run(&l, &o, 0, NULL, &err) == 0);
    char *t = wl_seq_summary_text(&l);
    check_text("summary only", t, SEED_SUMMARY);
    free(t);
    CHECK(wl_seq_heads_table_text(&l) == NULL && wl_seq_order_table_text(&l) == NULL);
    wl_seq_lesson_free(&l);
    wl_seq_data d;
    wl_seq_set s;
    CHECK(wl_seq_data_build(&d, 1, 10, &err) == 0);
    CHECK(wl_seq_set_build(&s, &d, 5, 6, 1, &err) == -1);
    CHECK(strstr(err.msg, "outside") != NULL);
    wl_seq_data_free(&d);
}

/* The order test alone (order_heads not among the compared heads) trains its own nets. */
static void test_order_only(void)
{
    wl_seq_opts o;
    wl_seq_opts_default(&o);
    wl_seq_lesson l;
    wl_err err;
    CHECK(wl_seq_lesson_run(&l, &o, WL_SEQ_PART_ORDER, NULL, &err) == 0);
    char *t = wl_seq_order_table_text(&l);
    check_text("order only", t, SEED_ORDER);
    free(t);
    CHECK(l.heads == NULL);
    wl_seq_lesson_free(&l);
}

void wl_test_main(void)
{
    wl_seq_opts o;
    wl_err err;
    wl_seq_opts_default(&o);
    int rc = wl_seq_lesson_run(&lesson, &o, WL_SEQ_PART_ALL, NULL, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc == 0) {
        test_lesson_tables();
        test_lesson_structure();
        wl_seq_lesson_free(&lesson);
    }
    test_threads_agree();
    test_round3();
    test_float_repr();
    test_exp_matches_libm();
    test_exp_table_whole_domain();
    test_shuffle();
    test_errors();
    test_order_only();
}

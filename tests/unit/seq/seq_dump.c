/* seq_dump.c: runs the sequence lesson with settings from the command line and prints every number as JSON
 * (or the lesson's text with --text, Python's round(x, 3) of hex floats read from stdin with --round, or the
 * four-lane exp's computed table with --exptab). */
#include "wl_seq.h"
#include "wl_seq_exptab.h"
#include "wl_seq_pyfloat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    fprintf(stderr,
            "usage: seq_dump [--seed S] [--n N] [--train N] [--test N] [--epochs E] [--lr X] [--momentum X]\n"
            "                [--heads 1,2,4] [--runs R] [--order-heads H] [--threads T] [--repeat K] [--text]\n"
            "       seq_dump --round   (reads one %%a float per line, prints round(x,3) as %%a and its repr)\n"
            "       seq_dump --exptab  (prints k and the table's two words for 2^(k/128) in hex, one k per line)\n");
    exit(2);
}

static void nums(const double *v, int n)
{
    putchar('[');
    for (int i = 0; i < n; i++) printf("%s%.17g%s", i ? ", " : "", v[i], v[i] == 0 && signbit(v[i]) ? ".0" : "");
    putchar(']');
}

static void json_nums(const char *key, const double *v, int n, const char *after)
{
    printf("\"%s\": ", key);
    nums(v, n);
    fputs(after, stdout);
}

static void json_run(const wl_seq_run *r, const wl_seq_set *te)
{
    double mw[WL_SEQ_D * WL_SEQ_T];
    wl_seq_mean_weights(&r->net, te, mw);
    printf("{\"H\": %d, \"run\": %d, \"positions\": %d, \"acc\": %.17g, \"separation\": %.17g, ", r->H, r->run,
           r->positions, r->acc, r->separation);
    json_nums("centers", r->center, r->H, ", ");
    json_nums("mean_weights", mw, r->H * WL_SEQ_T, ", ");
    json_nums("params", r->net.p, WL_SEQ_NPARAMS, "}");
}

static int round_mode(void)
{
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        double x = strtod(line, NULL), r = wl_seq_round3(x);
        char repr[32];
        printf("%a %s\n", r, wl_seq_float_repr(r, repr));
    }
    return 0;
}

static int exptab_mode(void)
{
    uint64_t tab[2 * WL_SEQ_EXP_N];
    wl_seq_exptab_build(tab);
    for (int k = 0; k < WL_SEQ_EXP_N; k++)
        printf("%d %016llx %016llx\n", k, (unsigned long long)tab[2 * k], (unsigned long long)tab[2 * k + 1]);
    return 0;
}

int main(int argc, char **argv)
{
    wl_seq_opts o;
    wl_seq_opts_default(&o);
    int text = 0, repeat = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--text")) { text = 1; continue; }
        if (!strcmp(a, "--round")) return round_mode();
        if (!strcmp(a, "--exptab")) return exptab_mode();
        if (!v) usage();
        i++;
        if (!strcmp(a, "--seed")) o.seed = strtoll(v, NULL, 10);
        else if (!strcmp(a, "--n")) o.n = atoi(v);
        else if (!strcmp(a, "--train")) o.ntrain = atoi(v);
        else if (!strcmp(a, "--test")) o.ntest = atoi(v);
        else if (!strcmp(a, "--epochs")) o.train.epochs = atoi(v);
        else if (!strcmp(a, "--lr")) o.train.lr = strtod(v, NULL);
        else if (!strcmp(a, "--momentum")) o.train.momentum = strtod(v, NULL);
        else if (!strcmp(a, "--runs")) o.runs = atoi(v);
        else if (!strcmp(a, "--order-heads")) o.order_heads = atoi(v);
        else if (!strcmp(a, "--threads")) o.threads = atoi(v);
        else if (!strcmp(a, "--repeat")) repeat = atoi(v);
        else if (!strcmp(a, "--heads")) {
            o.nheads = 0;
            for (char *p = (char *)v; *p && o.nheads < WL_SEQ_MAX_HEADS_LIST; p += *p == ',')
                o.heads[o.nheads++] = (int)strtol(p, &p, 10);
        } else usage();
    }
    wl_err err;
    wl_seq_lesson l;
    for (int k = 0; k < repeat; k++) {   /* --repeat: for timing, the lesson is recomputed from scratch */
        if (k) wl_seq_lesson_free(&l);
        if (wl_seq_lesson_run(&l, &o, WL_SEQ_PART_ALL, NULL, &err)) {
            fprintf(stderr, "seq_dump: %s\n", err.msg);
            return 1;
        }
    }
    char *t = wl_seq_lesson_text(&l);
    if (!t) {
        fprintf(stderr, "seq_dump: out of memory\n");
        return 1;
    }
    if (text) {
        fputs(t, stdout);
        free(t);
        wl_seq_lesson_free(&l);
        return 0;
    }
    wl_seq_data d;
    wl_seq_set te[2];
    if (wl_seq_data_build(&d, o.seed, o.n, &err) ||
        wl_seq_set_build(&te[0], &d, o.n - o.ntest, o.ntest, 1, &err) ||
        wl_seq_set_build(&te[1], &d, o.n - o.ntest, o.ntest, 0, &err)) {
        fprintf(stderr, "seq_dump: %s\n", err.msg);
        return 1;
    }
    printf("{\"readings\": [");
    for (int i = 0; i < d.n; i++) {
        if (i) printf(", ");
        nums(d.reading[i], WL_SEQ_T);
    }
    printf("],\n\"labels\": [");
    for (int i = 0; i < d.n; i++) printf("%s%d", i ? ", " : "", d.y[i]);
    const wl_seq_summary *s = &l.summary;
    printf("],\n\"train_rate\": %.17g, \"test_rate\": %.17g, \"baseline\": %.17g,\n\"heads\": [", s->train_rate,
           s->test_rate, s->baseline);
    for (int i = 0; i < o.nheads * o.runs; i++) {
        printf("%s\n", i ? "," : "");
        json_run(&l.heads[i], &te[0]);
    }
    printf("],\n\"order_pos\": [");
    for (int k = 0; k < o.runs; k++) {
        printf("%s\n", k ? "," : "");
        json_run(&l.order_pos[k], &te[0]);
    }
    printf("],\n\"order_nopos\": [");
    for (int k = 0; k < o.runs; k++) {
        printf("%s\n", k ? "," : "");
        json_run(&l.order_nopos[k], &te[1]);
    }
    printf("],\n");
    json_nums("order_mean", l.order_mean, 2, ",\n");
    json_nums("order_max", l.order_max, 2, ",\n\"text\": \"");
    for (const char *p = t; *p; p++) {
        if (*p == '\n') printf("\\n");
        else if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else putchar(*p);
    }
    printf("\"}\n");
    free(t);
    wl_seq_set_free(&te[0]);
    wl_seq_set_free(&te[1]);
    wl_seq_data_free(&d);
    wl_seq_lesson_free(&l);
    return 0;
}

/* test_compare.c: a tiny comparison protocol: its files, resuming after an interrupt, a deleted checkpoint and a kill -9. */
#include <cJSON.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl_compare.h"
#include "wl_checkpoint.h"
#include "wl_test.h"

static char root[] = "/tmp/wl_test_compare_XXXXXX";

/* 90 short distinct stories over a small vocabulary. */
static void make_corpus(wl_corpus *c)
{
    static const char *words[] = {"the", "cat", "dog", "sat", "ran", "on", "a", "mat", "hat", "red",
                                  "big", "little", "saw", "and", "happy", "sun"};
    enum { N = 90 };
    char *texts[N];
    uint32_t s = 7;
    for (int i = 0; i < N; i++) {
        char buf[512];
        size_t len = (size_t)snprintf(buf, sizeof buf, "story %d :", i);
        int n = 8 + i % 13;
        for (int k = 0; k < n; k++) {
            s = s * 1664525u + 1013904223u;
            len += (size_t)snprintf(buf + len, sizeof buf - len, " %s", words[(s >> 16) % 16]);
        }
        snprintf(buf + len, sizeof buf - len, " .");
        texts[i] = strdup(buf);
    }
    wl_profile p;
    wl_err err;
    CHECK(wl_profile_get("smoke", &p, &err) == 0);
    CHECK_MSG(wl_corpus_build_texts((const char *const *)texts, N, &p, c, &err) == 0, "%s", err.msg);
    for (int i = 0; i < N; i++) free(texts[i]);
}

static void tiny_config(wl_compare_config *cfg)
{
    wl_compare_config_default(cfg);
    cfg->steps = 3;
    cfg->batch_size = 8;
    cfg->eval_every = 2;
    cfg->eval_batch = 64;
    cfg->selection_windows = 50;
    cfg->nseeds = 2;   /* 11, 29 */
}

/* The tiny protocol in cfg and the directory of its run, root/NAME, in dir [DIR_MAX]. */
enum { DIR_MAX = 512 };
static void tiny_run(wl_compare_config *cfg, char *dir, const char *name)
{
    tiny_config(cfg);
    snprintf(dir, DIR_MAX, "%s/%s", root, name);
}

static const char *path_in(const char *dir, const char *name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s/%s", root, dir, name);
    return buf;
}

static cJSON *read_json(const char *dir)
{
    char *text;
    size_t len;
    wl_err err;
    if (wl_read_file(path_in(dir, "comparison.json"), &text, &len, &err) < 0) return NULL;
    cJSON *j = cJSON_Parse(text);
    free(text);
    return j;
}

static int nruns(const cJSON *j, const char *kind)
{
    return cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "runs"), kind));
}

static double run_field(const cJSON *j, const char *kind, int i, const char *field)
{
    const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "runs"), kind), i);
    const cJSON *v = cJSON_GetObjectItem(r, field);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

typedef struct counter {
    int steps, kept, started, done;
    int stop_run, stop_step;          /* set the flag at this run's step (stop_run < 0: never) */
    int kill_run;                     /* SIGKILL this process at that run's second step (-1: never) */
    volatile sig_atomic_t *flag;
} counter;

static void on_progress(void *ud, const wl_compare_progress *p)
{
    counter *c = ud;
    switch (p->event) {
    case WL_COMPARE_KEPT: c->kept++; break;
    case WL_COMPARE_START: c->started++; break;
    case WL_COMPARE_DONE: c->done++; break;
    case WL_COMPARE_STEP:
        c->steps++;
        if (p->run == c->stop_run && p->step->step == c->stop_step) *c->flag = 1;
        if (p->run == c->kill_run && p->step->step == 2) raise(SIGKILL);
        break;
    }
}

/* Runs the comparison in DIR to its end, counting what it keeps and starts. */
static counter run_to_end(const wl_corpus *c, const char *dir, const wl_compare_config *cfg,
                          volatile sig_atomic_t *flag, wl_compare_status *st)
{
    counter cnt = {.stop_run = -1, .kill_run = -1};
    wl_err err = {{0}};
    CHECK_MSG(wl_compare_run(c, dir, cfg, on_progress, &cnt, flag, st, &err) == 0, "%s", err.msg);
    return cnt;
}

static void test_full_run(const wl_corpus *c, cJSON **reference)
{
    wl_compare_config cfg;
    char dir[DIR_MAX];
    tiny_run(&cfg, dir, "full");
    wl_compare_status st;
    wl_err err = {{0}};
    counter cnt = run_to_end(c, dir, &cfg, NULL, &st);
    CHECK(st.nruns == 6 && st.done == 6 && st.kept == 0 && !st.interrupted);
    CHECK(cnt.started == 6 && cnt.done == 6 && cnt.steps == 18);

    cJSON *j = read_json("full");
    CHECK(j != NULL);
    const char *kinds[] = {"mlp", "attention", "multihead"};
    for (int k = 0; k < 3; k++) {
        CHECK(nruns(j, kinds[k]) == 2);
        CHECK(run_field(j, kinds[k], 0, "seed") == 11 && run_field(j, kinds[k], 1, "seed") == 29);
        double a = run_field(j, kinds[k], 0, "test_loss"), b = run_field(j, kinds[k], 1, "test_loss");
        CHECK(isfinite(a) && isfinite(b) && a != b);
        CHECK(fabs(run_field(j, kinds[k], 0, "test_perplexity") - exp(a)) < 1e-9 * exp(a));
        const cJSON *agg = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "aggregate"), kinds[k]);
        const cJSON *tl = cJSON_GetObjectItem(agg, "test_loss");
        CHECK(fabs(cJSON_GetObjectItem(tl, "mean")->valuedouble - (a + b) / 2) < 1e-12);
        CHECK(fabs(cJSON_GetObjectItem(tl, "sample_std")->valuedouble - fabs(a - b) / sqrt(2.0)) < 1e-12);
        CHECK(cJSON_IsObject(cJSON_GetObjectItem(agg, "runtime_seconds")));
        const cJSON *r0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "runs"), kinds[k]), 0);
        CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(r0, "trace")) == 3);   /* steps 1, 2, 3 */
        CHECK(cJSON_IsObject(cJSON_GetObjectItem(r0, "train_config")));

        /* Each model's seed-11 checkpoint loads, with the recorded selected step and test loss. */
        char name[64];
        snprintf(name, sizeof name, "%s_seed11.npz", kinds[k]);
        wl_model m;
        wl_ckpt_meta meta;
        CHECK_MSG(wl_checkpoint_load(path_in("full", name), (int)c->vocab.n, NULL, &m, &meta, &err) == 0, "%s", err.msg);
        CHECK(meta.selected_step == (int)run_field(j, kinds[k], 0, "selected_step"));
        CHECK(meta.test_loss == a);
        CHECK(strcmp(m.kind_name, kinds[k]) == 0);
        wl_ckpt_meta_free(&meta);
        wl_model_free(&m);
    }
    CHECK(cJSON_IsObject(cJSON_GetObjectItem(j, "protocol")) && cJSON_IsObject(cJSON_GetObjectItem(j, "environment")) &&
          cJSON_IsObject(cJSON_GetObjectItem(j, "audit")));
    CHECK(access(path_in("full", "vocab.json"), F_OK) == 0);
    CHECK(access(path_in("full", "mlp_seed29.npz"), F_OK) != 0);   /* only seed 11 is saved */

    /* Running it again keeps everything and trains nothing. */
    counter again = {.stop_run = -1, .kill_run = -1};
    CHECK(wl_compare_run(c, dir, &cfg, on_progress, &again, NULL, &st, &err) == 0);
    CHECK(st.kept == 6 && st.done == 6 && again.kept == 6 && again.steps == 0);
    *reference = j;
}

/* Every run of got equals the reference run (bit for bit: same seeds, same thread count). */
static void check_same_results(const cJSON *got, const cJSON *ref)
{
    const char *kinds[] = {"mlp", "attention", "multihead"};
    for (int k = 0; k < 3; k++) {
        CHECK(nruns(got, kinds[k]) == 2);
        for (int i = 0; i < 2; i++) {
            CHECK_MSG(run_field(got, kinds[k], i, "test_loss") == run_field(ref, kinds[k], i, "test_loss"),
                      "%s run %d differs after resuming", kinds[k], i);
            CHECK(run_field(got, kinds[k], i, "selected_step") == run_field(ref, kinds[k], i, "selected_step"));
        }
        /* The aggregate too, to the last bit (kept runs come back from the file). */
        const char *stats[] = {"mean", "sample_std"};
        for (int i = 0; i < 2; i++) {
            const cJSON *a = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
                                 cJSON_GetObjectItem(got, "aggregate"), kinds[k]), "test_loss"), stats[i]);
            const cJSON *b = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
                                 cJSON_GetObjectItem(ref, "aggregate"), kinds[k]), "test_loss"), stats[i]);
            CHECK_MSG(cJSON_IsNumber(a) && cJSON_IsNumber(b) && a->valuedouble == b->valuedouble,
                      "%s aggregate test_loss %s differs after resuming", kinds[k], stats[i]);
        }
    }
}

/* The results in DIR/interrupted are those of the uninterrupted reference run. */
static void check_interrupted_same(const cJSON *ref)
{
    cJSON *j = read_json("interrupted");
    check_same_results(j, ref);
    cJSON_Delete(j);
}

static void test_resume_after_interrupt(const wl_corpus *c, const cJSON *ref)
{
    wl_compare_config cfg;
    char dir[DIR_MAX];
    tiny_run(&cfg, dir, "interrupted");
    wl_compare_status st;
    wl_err err = {{0}};
    volatile sig_atomic_t flag = 0;
    counter cnt = {.stop_run = 4, .stop_step = 2, .kill_run = -1, .flag = &flag};   /* attention, seed 29 */
    CHECK(wl_compare_run(c, dir, &cfg, on_progress, &cnt, &flag, &st, &err) == 0);
    CHECK(st.interrupted && st.done == 4 && cnt.done == 4);
    cJSON *j = read_json("interrupted");
    CHECK(j && nruns(j, "mlp") == 2 && nruns(j, "attention") == 1 && nruns(j, "multihead") == 1);
    cJSON_Delete(j);

    flag = 0;
    counter again = run_to_end(c, dir, &cfg, &flag, &st);
    CHECK(st.kept == 4 && st.done == 6 && !st.interrupted && again.kept == 4 && again.started == 2);
    check_interrupted_same(ref);

    /* A deleted checkpoint: that run is redone, the others kept. */
    CHECK(unlink(path_in("interrupted", "attention_seed11.npz")) == 0);
    counter third = run_to_end(c, dir, &cfg, NULL, &st);
    CHECK(st.kept == 5 && third.started == 1 && access(path_in("interrupted", "attention_seed11.npz"), F_OK) == 0);
    check_interrupted_same(ref);

    /* A deleted comparison.json: the files left are no comparison's, so they are refused and kept; once they are
     * gone too, everything is run again. */
    CHECK(unlink(path_in("interrupted", "comparison.json")) == 0);
    CHECK_MSG(wl_compare_run(c, dir, &cfg, NULL, NULL, NULL, &st, &err) == -1 &&
              strstr(err.msg, "interrupted/vocab.json is already there, and no comparison.json beside it"), "%s", err.msg);
    CHECK(access(path_in("interrupted", "comparison.json"), F_OK) != 0);
    CHECK(unlink(path_in("interrupted", "vocab.json")) == 0);
    CHECK_MSG(wl_compare_run(c, dir, &cfg, NULL, NULL, NULL, &st, &err) == -1 &&
              strstr(err.msg, "interrupted/mlp_seed11.npz is already there"), "%s", err.msg);
    const char *kinds[] = {"mlp_seed11.npz", "attention_seed11.npz", "multihead_seed11.npz"};
    for (int k = 0; k < 3; k++) CHECK(unlink(path_in("interrupted", kinds[k])) == 0);
    counter fourth = run_to_end(c, dir, &cfg, NULL, &st);
    CHECK(st.kept == 0 && fourth.started == 6);

    /* A different protocol in the same directory is refused, and the file is left alone. */
    cfg.steps = 4;
    CHECK_MSG(wl_compare_run(c, dir, &cfg, NULL, NULL, NULL, &st, &err) == -1 &&
              strstr(err.msg, "was made with a different protocol: steps is 3 in the file, 4 now; remove it"), "%s", err.msg);
    j = read_json("interrupted");
    CHECK(j && nruns(j, "multihead") == 2);
    cJSON_Delete(j);

    /* Bad settings are refused before anything is written. */
    char fresh[600];
    snprintf(fresh, sizeof fresh, "%s/never", root);
    wl_compare_config bad;
    tiny_config(&bad);
    bad.models[2].heads = 5;
    CHECK(wl_compare_run(c, fresh, &bad, NULL, NULL, NULL, &st, &err) == -1 && strstr(err.msg, "multihead") &&
          strstr(err.msg, "heads=5"));
    tiny_config(&bad);
    bad.models[0].lr = 0;
    CHECK(wl_compare_run(c, fresh, &bad, NULL, NULL, NULL, &st, &err) == -1 && strstr(err.msg, "lr"));
    tiny_config(&bad);
    bad.eval_every = 0;
    CHECK(wl_compare_run(c, fresh, &bad, NULL, NULL, NULL, &st, &err) == -1 && strstr(err.msg, "eval_every"));
    tiny_config(&bad);
    bad.seeds[1] = 11;
    CHECK(wl_compare_run(c, fresh, &bad, NULL, NULL, NULL, &st, &err) == -1 && strstr(err.msg, "twice"));
    CHECK(access(fresh, F_OK) != 0);

    /* A damaged comparison.json is an error, not a silent restart. */
    cfg.steps = 3;
    CHECK(wl_write_atomic(path_in("interrupted", "comparison.json"), "{\"protocol\": [", 14, &err) == 0);
    CHECK(wl_compare_run(c, dir, &cfg, NULL, NULL, NULL, &st, &err) == -1 && strstr(err.msg, "comparison.json"));
    CHECK_MSG(strstr(err.msg, "is not valid JSON: at byte 14: the text ends inside the JSON value"), "%s", err.msg);
}

/* kill -9 in the middle of a run: the files stay valid, and the next call finishes the protocol. */
static void test_kill9(const wl_corpus *c, const cJSON *ref)
{
    wl_compare_config cfg;
    char dir[DIR_MAX];
    tiny_run(&cfg, dir, "killed");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        counter cnt = {.stop_run = -1, .kill_run = 4};   /* attention, seed 29 */
        wl_compare_status st;
        wl_err err;
        wl_compare_run(c, dir, &cfg, on_progress, &cnt, NULL, &st, &err);
        _exit(3);   /* not reached: the run kills itself */
    }
    int ws = 0;
    CHECK(pid > 0 && waitpid(pid, &ws, 0) == pid);
    CHECK_MSG(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL, "child status %d", ws);
    cJSON *j = read_json("killed");
    CHECK(j && nruns(j, "mlp") == 2 && nruns(j, "attention") == 1 && nruns(j, "multihead") == 1);
    cJSON_Delete(j);

    wl_compare_status st;
    wl_err err = {{0}};
    counter again = {.stop_run = -1, .kill_run = -1};
    CHECK_MSG(wl_compare_run(c, dir, &cfg, on_progress, &again, NULL, &st, &err) == 0, "%s", err.msg);
    CHECK(st.kept == 4 && st.done == 6 && again.started == 2);
    j = read_json("killed");
    check_same_results(j, ref);
    cJSON_Delete(j);
}

void wl_test_main(void)
{
    if (!mkdtemp(root)) {
        CHECK(!"cannot make a temporary directory");
        return;
    }
    wl_corpus c;
    memset(&c, 0, sizeof c);
    make_corpus(&c);
    cJSON *ref = NULL;
    test_full_run(&c, &ref);
    if (ref) {
        test_resume_after_interrupt(&c, ref);
        test_kill9(&c, ref);
    }
    cJSON_Delete(ref);
    wl_corpus_free(&c);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

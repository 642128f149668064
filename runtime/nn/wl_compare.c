/* wl_compare.c: the comparison protocol: every model x seed trained and scored, comparison.json rewritten after each run, resumable. */
#include "wl_compare.h"

#include <cJSON.h>
#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "wl_checkpoint.h"

void wl_compare_config_default(wl_compare_config *c)
{
    memset(c, 0, sizeof *c);
    c->steps = 6000;
    c->batch_size = 512;
    c->eval_every = 750;
    c->eval_batch = 512;
    c->selection_windows = 20000;
    c->nmodels = 3;
    c->models[0] = (wl_compare_model){"mlp", 1, 1e-3, 1e-4};
    c->models[1] = (wl_compare_model){"attention", 1, 3e-3, 1e-3};
    c->models[2] = (wl_compare_model){"multihead", 4, 3e-3, 1e-3};
    c->nseeds = 3;
    c->seeds[0] = 11;
    c->seeds[1] = 29;
    c->seeds[2] = 47;
    c->checkpoint_seed = 11;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the JSON pieces ---- */

static void add_num(cJSON *o, const char *k, double x)
{
    if (isfinite(x)) cJSON_AddNumberToObject(o, k, x);
    else cJSON_AddNullToObject(o, k);
}

/* Everything that must be equal for an earlier comparison.json to be resumed. */
static cJSON *protocol_json(const wl_compare_config *cfg, const wl_corpus *c)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "steps", cfg->steps);
    cJSON_AddNumberToObject(p, "batch_size", cfg->batch_size);
    cJSON_AddNumberToObject(p, "context", WL_T);
    cJSON_AddNumberToObject(p, "eval_every", cfg->eval_every);
    cJSON_AddNumberToObject(p, "selection_windows", (double)cfg->selection_windows);
    cJSON_AddNumberToObject(p, "clip", 1.0);
    cJSON *opt = cJSON_AddObjectToObject(p, "optimizer");
    cJSON_AddStringToObject(opt, "name", "AdamW");
    cJSON_AddNumberToObject(opt, "beta1", 0.9);
    cJSON_AddNumberToObject(opt, "beta2", 0.999);
    cJSON_AddNumberToObject(opt, "eps", 1e-8);
    cJSON *seeds = cJSON_AddArrayToObject(p, "seeds");
    for (int s = 0; s < cfg->nseeds; s++) cJSON_AddItemToArray(seeds, cJSON_CreateNumber((double)cfg->seeds[s]));
    cJSON_AddNumberToObject(p, "checkpoint_seed", (double)cfg->checkpoint_seed);
    cJSON *models = cJSON_AddArrayToObject(p, "models");
    for (int m = 0; m < cfg->nmodels; m++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", cfg->models[m].kind);
        cJSON_AddNumberToObject(o, "heads", cfg->models[m].heads);
        cJSON_AddNumberToObject(o, "learning_rate", cfg->models[m].lr);
        cJSON_AddNumberToObject(o, "weight_decay", cfg->models[m].weight_decay);
        cJSON_AddItemToArray(models, o);
    }
    cJSON_AddStringToObject(p, "profile", c->profile.name ? c->profile.name : "");
    cJSON_AddNumberToObject(p, "vocab_size", (double)c->vocab.n);
    return p;
}

static cJSON *environment_json(void)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "runtime", "wordlab C runtime (float32, OpenBLAS)");
    struct utsname u;
    if (uname(&u) == 0) {
        char plat[200];
        snprintf(plat, sizeof plat, "%s %s %s", u.sysname, u.release, u.machine);
        cJSON_AddStringToObject(e, "platform", plat);
    }
    char cpu[256] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            char *colon = strchr(line, ':');
            if (strncmp(line, "model name", 10) == 0 && colon) {
                snprintf(cpu, sizeof cpu, "%s", colon + 2);
                cpu[strcspn(cpu, "\n")] = 0;
                break;
            }
        }
        fclose(f);
    }
    cJSON_AddStringToObject(e, "cpu", cpu);
    cJSON_AddNumberToObject(e, "cpus_online", (double)sysconf(_SC_NPROCESSORS_ONLN));
    cJSON_AddStringToObject(e, "blas", openblas_get_config());
    cJSON_AddNumberToObject(e, "blas_threads", openblas_get_num_threads());
    cJSON_AddStringToObject(e, "compiler", "gcc " __VERSION__);
    cJSON_AddBoolToObject(e, "cuda_available", 0);
    return e;
}

static cJSON *run_json(const wl_compare_model *mm, uint64_t seed, const wl_compare_config *cfg,
                       const wl_train_result *r, const char *checkpoint)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "seed", (double)seed);
    cJSON_AddStringToObject(o, "kind", mm->kind);
    cJSON_AddNumberToObject(o, "heads", mm->heads);
    cJSON *tc = cJSON_AddObjectToObject(o, "train_config");
    cJSON_AddNumberToObject(tc, "steps", cfg->steps);
    cJSON_AddNumberToObject(tc, "batch_size", cfg->batch_size);
    cJSON_AddNumberToObject(tc, "learning_rate", mm->lr);
    cJSON_AddNumberToObject(tc, "weight_decay", mm->weight_decay);
    cJSON_AddNumberToObject(tc, "seed", (double)seed);
    cJSON_AddNumberToObject(tc, "eval_every", cfg->eval_every);
    cJSON *trace = cJSON_AddArrayToObject(o, "trace");
    for (int i = 0; i < r->ntrace; i++) {
        cJSON *row = cJSON_CreateObject();
        cJSON_AddNumberToObject(row, "step", r->trace[i].step);
        cJSON_AddNumberToObject(row, "tokens_seen", (double)r->trace[i].tokens_seen);
        add_num(row, "train_batch_loss", r->trace[i].train_batch_loss);
        add_num(row, "validation_loss", r->trace[i].validation_loss);
        cJSON_AddItemToArray(trace, row);
    }
    cJSON_AddNumberToObject(o, "selected_step", r->selected_step);
    add_num(o, "selection_loss", r->selection_loss);
    add_num(o, "validation_loss", r->validation_loss);
    add_num(o, "validation_perplexity", r->validation_perplexity);
    add_num(o, "test_loss", r->test_loss);
    add_num(o, "test_perplexity", r->test_perplexity);
    add_num(o, "runtime_seconds", r->runtime_seconds);
    cJSON_AddNumberToObject(o, "parameters", (double)r->nparams);
    if (checkpoint) cJSON_AddStringToObject(o, "checkpoint", checkpoint);
    return o;
}

/* o as comparison.json will give it back: cJSON prints a double with 15 digits when they read back within an
 * ulp, so the aggregate is computed from the numbers as written, the same in a fresh and a resumed run. */
static cJSON *as_written(cJSON *o)
{
    char *text = cJSON_PrintUnformatted(o);
    cJSON *back = text ? cJSON_Parse(text) : NULL;
    free(text);
    cJSON_Delete(o);
    return back;
}

/* mean and sample_std (null below two values) of one field over the finished runs of a model. */
static cJSON *stat_json(cJSON *const *runs, int n, const char *field)
{
    double x[WL_COMPARE_MAX_SEEDS];
    int k = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *v = runs[i] ? cJSON_GetObjectItemCaseSensitive(runs[i], field) : NULL;
        if (cJSON_IsNumber(v)) x[k++] = v->valuedouble;
    }
    cJSON *o = cJSON_CreateObject();
    double mean = k ? wl_mean(x, (size_t)k) : NAN;
    add_num(o, "mean", mean);
    add_num(o, "sample_std", k >= 2 ? wl_sample_std(x, (size_t)k, mean) : NAN);
    cJSON_AddNumberToObject(o, "n", k);
    return o;
}

typedef struct state {
    const wl_compare_config *cfg;
    char *path;                      /* outdir/comparison.json (malloc'd) */
    cJSON *protocol, *environment, *audit;
    cJSON *runs[WL_COMPARE_MAX_MODELS][WL_COMPARE_MAX_SEEDS];   /* finished runs, NULL where not yet */
} state;

static int write_results(const state *st, wl_err *err)
{
    const wl_compare_config *cfg = st->cfg;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "protocol", cJSON_Duplicate(st->protocol, 1));
    cJSON_AddItemToObject(root, "environment", cJSON_Duplicate(st->environment, 1));
    cJSON_AddItemToObject(root, "audit", cJSON_Duplicate(st->audit, 1));
    cJSON *runs = cJSON_AddObjectToObject(root, "runs");
    cJSON *agg = cJSON_AddObjectToObject(root, "aggregate");
    for (int m = 0; m < cfg->nmodels; m++) {
        cJSON *arr = cJSON_AddArrayToObject(runs, cfg->models[m].kind);
        for (int s = 0; s < cfg->nseeds; s++)
            if (st->runs[m][s]) cJSON_AddItemToArray(arr, cJSON_Duplicate(st->runs[m][s], 1));
        cJSON *a = cJSON_AddObjectToObject(agg, cfg->models[m].kind);
        const char *fields[] = {"test_loss", "test_perplexity", "runtime_seconds"};
        for (int f = 0; f < 3; f++) cJSON_AddItemToObject(a, fields[f], stat_json(st->runs[m], cfg->nseeds, fields[f]));
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return wl_fail(err, "%s: out of memory while writing the results", st->path);
    int rc = wl_write_atomic(st->path, text, strlen(text), err);
    free(text);
    return rc;
}

static void checkpoint_name(char *buf, size_t cap, const char *kind, uint64_t seed)
{
    snprintf(buf, cap, "%s_seed%llu.npz", kind, (unsigned long long)seed);
}

/* dir/name, malloc'd; NULL when memory runs out. */
static char *path_in(const char *dir, const char *name)
{
    size_t cap = strlen(dir) + strlen(name) + 2;
    char *p = malloc(cap);
    if (p) snprintf(p, cap, "%s/%s", dir, name);
    return p;
}

/* Writes into buf what differs between the protocol saved in a file and the one wanted now: the first field of want
 * that saved lacks or holds otherwise, with both values ("steps is 6 in the file, 4 now"), or a field only saved has. */
static void protocol_difference(const cJSON *saved, const cJSON *want, char *buf, size_t cap)
{
    if (!cJSON_IsObject(saved)) {
        snprintf(buf, cap, "the file has no protocol object");
        return;
    }
    const cJSON *w, *s;
    cJSON_ArrayForEach(w, want) {
        s = cJSON_GetObjectItemCaseSensitive(saved, w->string);
        if (s && cJSON_Compare(s, w, 1)) continue;
        char *a = s ? cJSON_PrintUnformatted(s) : NULL, *b = cJSON_PrintUnformatted(w);
        if (!a) snprintf(buf, cap, "%s is not in the file, %.80s%s now", w->string, b ? b : "?", b && strlen(b) > 80 ? "..." : "");
        else snprintf(buf, cap, "%s is %.80s%s in the file, %.80s%s now", w->string, a, strlen(a) > 80 ? "..." : "",
                      b ? b : "?", b && strlen(b) > 80 ? "..." : "");
        free(a);
        free(b);
        return;
    }
    cJSON_ArrayForEach(s, saved) if (!cJSON_GetObjectItemCaseSensitive(want, s->string)) {
        snprintf(buf, cap, "the file has %s, which the protocol now has not", s->string);
        return;
    }
    snprintf(buf, cap, "the fields are the same in another order");
}

/* Without a comparison.json, no file a comparison writes may be in outdir already: one there is the user's, not a
 * comparison's (a comparison writes its comparison.json before the others), and is not replaced. */
static int check_none_there(const state *st, const char *outdir, wl_err *err)
{
    const wl_compare_config *cfg = st->cfg;
    int ckpt = 0;
    for (int s = 0; s < cfg->nseeds; s++) ckpt = ckpt || cfg->seeds[s] == cfg->checkpoint_seed;
    for (int m = -1; m < (ckpt ? cfg->nmodels : 0); m++) {
        char name[64] = "vocab.json";
        if (m >= 0) checkpoint_name(name, sizeof name, cfg->models[m].kind, cfg->checkpoint_seed);
        char *path = path_in(outdir, name);
        struct stat sb;
        int there = path && lstat(path, &sb) == 0;
        if (there) wl_fail(err, "%s is already there, and no comparison.json beside it says that a comparison wrote it; "
                           "compare does not replace it: move it away or choose another output directory", path);
        free(path);
        if (!path) return wl_fail(err, "compare: out of memory");
        if (there) return -1;
    }
    return 0;
}

/* Takes the finished runs of an earlier comparison.json in outdir, if there is one. */
static int load_existing(state *st, const char *outdir, int *kept, wl_err *err)
{
    char *text;
    size_t len;
    if (access(st->path, F_OK) != 0) return check_none_there(st, outdir, err);
    if (wl_read_file_max(st->path, WL_COMPARE_FILE_MAX, &text, &len, err) < 0) return -1;
    char why[WL_ERR_MAX / 2];
    cJSON *root = wl_corpus_json_parse(text, len, why, sizeof why);
    free(text);
    int rc = 0;
    if (!cJSON_IsObject(root)) {
        rc = wl_fail(err, "%s is %s; remove it or choose another output directory", st->path,
                     root ? "not a JSON object" : why);
        goto done;
    }
    const cJSON *saved = cJSON_GetObjectItemCaseSensitive(root, "protocol");
    if (!cJSON_Compare(saved, st->protocol, 1)) {
        char what[WL_ERR_MAX / 2];
        protocol_difference(saved, st->protocol, what, sizeof what);
        rc = wl_fail(err, "%s was made with a different protocol: %s; remove it or choose another output directory",
                     st->path, what);
        goto done;
    }
    if (!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(root, "audit"), st->audit, 1)) {
        rc = wl_fail(err, "%s was made on a different corpus (its audit differs); "
                          "remove it or choose another output directory", st->path);
        goto done;
    }
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
    const wl_compare_config *cfg = st->cfg;
    for (int m = 0; m < cfg->nmodels; m++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(runs, cfg->models[m].kind);
        const cJSON *it;
        cJSON_ArrayForEach(it, arr) {
            const cJSON *seed = cJSON_GetObjectItemCaseSensitive(it, "seed");
            if (!cJSON_IsNumber(seed)) continue;
            for (int s = 0; s < cfg->nseeds; s++) {
                if (st->runs[m][s] || (double)cfg->seeds[s] != seed->valuedouble) continue;
                if (cfg->seeds[s] == cfg->checkpoint_seed) {
                    /* A run whose checkpoint is gone is run again. */
                    char name[64];
                    checkpoint_name(name, sizeof name, cfg->models[m].kind, cfg->seeds[s]);
                    char *path = path_in(outdir, name);
                    if (!path) {
                        rc = wl_fail(err, "compare: out of memory");
                        goto done;
                    }
                    int gone = access(path, F_OK) != 0;
                    free(path);
                    if (gone) break;
                }
                st->runs[m][s] = cJSON_Duplicate(it, 1);
                (*kept)++;
            }
        }
    }
done:
    cJSON_Delete(root);
    return rc;
}

/* The training settings of one model x seed. */
static void run_config(const wl_compare_config *cfg, const wl_compare_model *mm, uint64_t seed, wl_train_config *tc)
{
    wl_train_config_default(tc);
    tc->steps = cfg->steps;
    tc->batch_size = cfg->batch_size;
    tc->eval_every = cfg->eval_every;
    tc->early_evals = 0;   /* the course's schedule: step 1, every eval_every and the last step, nothing more */
    tc->eval_batch = cfg->eval_batch;
    tc->selection_windows = cfg->selection_windows;
    tc->lr = mm->lr;
    tc->weight_decay = mm->weight_decay;
    tc->seed = seed;
}

/* Everything is checked before any file is written: counts, duplicates, each model's settings, and that each
 * model can be built on this vocabulary. */
static int check_config(const wl_compare_config *cfg, int V, wl_err *err)
{
    if (cfg->nmodels < 1 || cfg->nmodels > WL_COMPARE_MAX_MODELS)
        return wl_fail(err, "compare: between 1 and %d models, got %d", WL_COMPARE_MAX_MODELS, cfg->nmodels);
    if (cfg->nseeds < 1 || cfg->nseeds > WL_COMPARE_MAX_SEEDS)
        return wl_fail(err, "compare: between 1 and %d seeds, got %d", WL_COMPARE_MAX_SEEDS, cfg->nseeds);
    for (int m = 0; m < cfg->nmodels; m++)
        for (int k = 0; k < m; k++)
            if (strcmp(cfg->models[m].kind, cfg->models[k].kind) == 0)
                return wl_fail(err, "compare: model '%s' is listed twice", cfg->models[m].kind);
    for (int s = 0; s < cfg->nseeds; s++)
        for (int k = 0; k < s; k++)
            if (cfg->seeds[s] == cfg->seeds[k])
                return wl_fail(err, "compare: seed %llu is listed twice", (unsigned long long)cfg->seeds[s]);
    for (int m = 0; m < cfg->nmodels; m++) {
        const wl_compare_model *mm = &cfg->models[m];
        wl_train_config tc;
        run_config(cfg, mm, cfg->seeds[0], &tc);
        wl_err why;
        wl_model probe;
        if (wl_train_config_check(&tc, &why) < 0 || wl_model_init(&probe, mm->kind, V, mm->heads, 0, &why) < 0)
            return wl_fail(err, "compare: model '%s': %s", mm->kind, why.msg);
        wl_model_free(&probe);
    }
    return 0;
}

typedef struct relay {
    wl_compare_progress_fn fn;
    void *ud;
    wl_compare_progress p;
} relay;

static void on_step(void *ud, const wl_train_progress *tp)
{
    relay *r = ud;
    r->p.event = WL_COMPARE_STEP;
    r->p.step = tp;
    r->fn(r->ud, &r->p);
    r->p.step = NULL;
}

static void tell(relay *r, wl_compare_event ev, const wl_train_result *res)
{
    if (!r->fn) return;
    r->p.event = ev;
    r->p.result = res;
    r->fn(r->ud, &r->p);
    r->p.result = NULL;
}

/* Trains one model x seed and records it (checkpoint first, then comparison.json). */
static int one_run(state *st, const wl_corpus *c, const char *outdir, int m, int s, const wl_window_set sets[3],
                   relay *rl, volatile sig_atomic_t *interrupt, int *interrupted, wl_err *err)
{
    const wl_compare_config *cfg = st->cfg;
    const wl_compare_model *mm = &cfg->models[m];
    uint64_t seed = cfg->seeds[s];
    wl_train_config tc;
    run_config(cfg, mm, seed, &tc);
    tc.validate_on_interrupt = 0;   /* an interrupted run is redone from the start: nothing to keep */

    wl_model model;
    if (wl_model_init(&model, mm->kind, (int)c->vocab.n, mm->heads, seed, err) < 0) return -1;
    wl_train_result res;
    int rc = wl_train(&model, &tc, &sets[0], &sets[1], &sets[2], rl->fn ? on_step : NULL, rl, interrupt, &res, err);
    if (rc < 0) {
        wl_model_free(&model);
        return -1;
    }
    char name[64] = "";
    if (res.interrupted) {
        *interrupted = 1;
        goto done;
    }
    if (seed == cfg->checkpoint_seed) {
        char extra[512];
        checkpoint_name(name, sizeof name, mm->kind, seed);
        char *path = path_in(outdir, name);
        if (!path) {
            rc = wl_fail(err, "compare: out of memory");
            goto done;
        }
        snprintf(extra, sizeof extra,
                 "{\"learning_rate\": %.17g, \"weight_decay\": %.17g, \"steps\": %d, \"batch_size\": %d, "
                 "\"profile\": \"%s\"}",
                 mm->lr, mm->weight_decay, cfg->steps, cfg->batch_size, c->profile.name ? c->profile.name : "");
        rc = wl_checkpoint_save(path, &model, seed, res.selected_step, res.test_loss, extra, err);
        free(path);
        if (rc < 0) goto done;
    }
    st->runs[m][s] = as_written(run_json(mm, seed, cfg, &res, name[0] ? name : NULL));
    rc = st->runs[m][s] ? write_results(st, err) : wl_fail(err, "compare: out of memory while recording a run");
    if (rc == 0) tell(rl, WL_COMPARE_DONE, &res);
done:
    wl_train_result_free(&res);
    wl_model_free(&model);
    return rc;
}

int wl_compare_run(const wl_corpus *c, const char *outdir, const wl_compare_config *cfg,
                   wl_compare_progress_fn progress, void *ud, volatile sig_atomic_t *interrupt,
                   wl_compare_status *status, wl_err *err)
{
    double t0 = now_s();
    memset(status, 0, sizeof *status);
    if (check_config(cfg, (int)c->vocab.n, err) < 0) return -1;
    status->nruns = cfg->nmodels * cfg->nseeds;
    if (mkdir(outdir, 0755) != 0 && errno != EEXIST)
        return wl_fail(err, "%s: cannot create the output directory: %s", outdir, strerror(errno));

    state st;
    memset(&st, 0, sizeof st);
    st.cfg = cfg;
    st.path = path_in(outdir, "comparison.json");
    char *audit = wl_corpus_audit_json(c);
    st.audit = audit ? cJSON_Parse(audit) : NULL;
    free(audit);
    st.protocol = protocol_json(cfg, c);
    st.environment = environment_json();
    wl_windows w[3];
    memset(w, 0, sizeof w);
    int rc = -1;
    if (!st.path || !st.audit || !st.protocol || !st.environment) {
        wl_fail(err, "compare: out of memory");
        goto done;
    }
    if (load_existing(&st, outdir, &status->kept, err) < 0) goto done;
    status->done = status->kept;

    if (write_results(&st, err) < 0) goto done;   /* first: from now on the folder's files are this comparison's */
    char *vpath = path_in(outdir, "vocab.json");
    int saved = vpath ? wl_vocab_save(&c->vocab, vpath, err) : wl_fail(err, "compare: out of memory");
    free(vpath);
    if (saved < 0) goto done;

    const wl_split splits[3] = {WL_TRAIN, WL_VALIDATION, WL_TEST};
    wl_window_set sets[3] = {{0}};
    if (status->kept < status->nruns)
        for (int k = 0; k < 3; k++) {
            if (wl_corpus_windows(c, splits[k], interrupt, &w[k], err) < 0) {
                if (!(interrupt && *interrupt)) goto done;
                status->interrupted = 1;
                break;
            }
            sets[k] = (wl_window_set){w[k].ctx, w[k].tgt, w[k].n};
        }

    relay rl = {progress, ud, {.nruns = status->nruns}};
    /* Seed-major: after the first nmodels runs every model has one finished run and its checkpoint. */
    for (int s = 0; s < cfg->nseeds && !status->interrupted; s++) {
        for (int m = 0; m < cfg->nmodels; m++) {
            rl.p.run = s * cfg->nmodels + m;
            rl.p.kind = cfg->models[m].kind;
            rl.p.seed = cfg->seeds[s];
            if (st.runs[m][s]) {
                tell(&rl, WL_COMPARE_KEPT, NULL);
                continue;
            }
            if (interrupt && *interrupt) {
                status->interrupted = 1;
                break;
            }
            tell(&rl, WL_COMPARE_START, NULL);
            if (one_run(&st, c, outdir, m, s, sets, &rl, interrupt, &status->interrupted, err) < 0) goto done;
            if (status->interrupted) break;
            status->done++;
        }
    }
    rc = 0;
done:
    for (int k = 0; k < 3; k++) wl_windows_free(&w[k]);
    for (int m = 0; m < WL_COMPARE_MAX_MODELS; m++)
        for (int s = 0; s < WL_COMPARE_MAX_SEEDS; s++) cJSON_Delete(st.runs[m][s]);
    cJSON_Delete(st.protocol);
    cJSON_Delete(st.environment);
    cJSON_Delete(st.audit);
    free(st.path);
    status->seconds = now_s() - t0;
    return rc;
}

/* test_checkpoint.c: checkpoint round trips for the three models and a clear error, naming the array or offset, for every bad file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wl_checkpoint.h"
#include "wl_npz.h"
#include "wl_test.h"
#include "io/zipcraft.h"

enum { V = 37 };

static char dir[] = "/tmp/wl_test_checkpoint_XXXXXX";

static const char *path_in(const char *name)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

static void test_round_trip(const char *kind, int heads)
{
    wl_err err = {{0}};
    wl_model m, back;
    CHECK(wl_model_init(&m, kind, V, heads, 13, &err) == 0);
    const char *p = path_in("round.npz");
    CHECK_MSG(wl_checkpoint_save(p, &m, 29, 5250, 3.25, "{\"lr\": 0.003, \"kind\": \"ignored\"}", &err) == 0, "%s",
              err.msg);
    wl_ckpt_meta meta;
    CHECK_MSG(wl_checkpoint_load(p, V, NULL, &back, &meta, &err) == 0, "%s", err.msg);
    CHECK(back.nparams == m.nparams && back.V == V && back.H == m.H && strcmp(back.kind_name, kind) == 0);
    CHECK(memcmp(back.params, m.params, m.nparams * sizeof(float)) == 0);
    CHECK(strcmp(meta.kind, kind) == 0 && meta.heads == m.H && meta.seed == 29 && meta.selected_step == 5250);
    CHECK(meta.test_loss == 3.25 && meta.vocab_size == V);
    CHECK(meta.json && strstr(meta.json, "\"lr\":0.003") && !strstr(meta.json, "ignored"));
    wl_ckpt_meta_free(&meta);
    wl_model_free(&back);

    /* The file is an ordinary npz: state__ arrays in view order, then the metadata string. */
    wl_npz z;
    CHECK(wl_npz_read(p, &z, &err) == 0);
    CHECK(z.n == (size_t)m.nviews + 1);
    for (int i = 0; i < m.nviews && (size_t)i < z.n; i++) {
        char want[96];
        snprintf(want, sizeof want, "state__%s", m.views[i].name);
        CHECK(strcmp(z.arrays[i].name, want) == 0 && strcmp(z.arrays[i].dtype, "<f4") == 0);
    }
    CHECK(z.n > 0 && strcmp(z.arrays[z.n - 1].name, "metadata_json") == 0);
    wl_npz_free(&z);

    /* A run without a test score stores null and reads back NaN; meta may be NULL. */
    CHECK(wl_checkpoint_save(p, &m, 11, 0, NAN, NULL, &err) == 0);
    CHECK(wl_checkpoint_load(p, 0, NULL, &back, &meta, &err) == 0);
    CHECK(isnan(meta.test_loss) && strstr(meta.json, "\"test_loss\":null"));
    wl_ckpt_meta_free(&meta);
    wl_model_free(&back);
    CHECK(wl_checkpoint_load(p, 0, NULL, &back, NULL, &err) == 0);
    wl_model_free(&back);
    wl_model_free(&m);
}

/* Writes the arrays of a valid attention checkpoint with one change made by edit, then expects the load
 * to fail with a message that contains every one of the given strings. */
typedef void (*edit_fn)(wl_npz *z);

static void expect_error(const char *label, edit_fn edit, int expect_vocab, const char *s1, const char *s2)
{
    wl_err err = {{0}};
    wl_model m, back;
    CHECK(wl_model_init(&m, "attention", V, 1, 5, &err) == 0);
    const char *good = path_in("good.npz");
    CHECK(wl_checkpoint_save(good, &m, 5, 1, 4.0, NULL, &err) == 0);
    wl_npz z;
    CHECK(wl_npz_read(good, &z, &err) == 0);
    if (edit) edit(&z);
    char bad[256];
    snprintf(bad, sizeof bad, "%s", path_in("bad.npz"));
    CHECK(wl_npz_write(bad, z.arrays, z.n, 1, &err) == 0);
    wl_npz_free(&z);
    memset(&err, 0, sizeof err);
    int rc = wl_checkpoint_load(bad, expect_vocab, NULL, &back, NULL, &err);
    CHECK_MSG(rc == -1, "%s: loaded", label);
    if (rc == 0) wl_model_free(&back);
    CHECK_MSG(strstr(err.msg, "bad.npz") != NULL, "%s: no file name in: %s", label, err.msg);
    CHECK_MSG(strstr(err.msg, s1) != NULL, "%s: no '%s' in: %s", label, s1, err.msg);
    CHECK_MSG(!s2 || strstr(err.msg, s2) != NULL, "%s: no '%s' in: %s", label, s2, err.msg);
    wl_model_free(&m);
}

static wl_npy *find(wl_npz *z, const char *name)
{
    for (size_t i = 0; i < z->n; i++)
        if (strcmp(z->arrays[i].name, name) == 0) return &z->arrays[i];
    return NULL;
}

static void drop_wq(wl_npz *z)
{
    wl_npy *a = find(z, "state__W_Q.weight");
    wl_npy_free(a);
    *a = z->arrays[--z->n];
}

static void rename_wq(wl_npz *z)
{
    wl_npy *a = find(z, "state__W_Q.weight");
    free(a->name);
    a->name = strdup("state__W_Q.bias");
}

/* Adds a copy of the hidden bias under a name the model does not have. */
static void add_copy(wl_npz *z, const char *name)
{
    wl_npy *src = find(z, "state__hidden_layer.bias");
    wl_npy extra = *src;
    extra.name = strdup(name);
    extra.data = malloc(src->nbytes);
    memcpy(extra.data, src->data, src->nbytes);
    z->arrays = realloc(z->arrays, (z->n + 1) * sizeof(wl_npy));
    z->arrays[z->n++] = extra;
}

static void add_extra(wl_npz *z)
{
    add_copy(z, "state__W_Q.bias");
}

static void add_stray(wl_npz *z)
{
    add_copy(z, "optimizer_m");
}

static void reshape_hidden(wl_npz *z)
{
    wl_npy *a = find(z, "state__hidden_layer.weight");   /* [256,64] -> [64,256] */
    a->shape[0] = 64;
    a->shape[1] = 256;
}

static void flatten_wo(wl_npz *z)
{
    wl_npy *a = find(z, "state__W_O.weight");   /* [64,64] -> [4096] */
    a->ndim = 1;
    a->shape[0] = 4096;
}

static void double_pos(wl_npz *z)
{
    wl_npy *a = find(z, "state__position_embedding.weight");
    size_t n = a->nbytes / 4;
    double *d = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) d[i] = ((float *)a->data)[i];
    free(a->data);
    a->data = d;
    a->nbytes = n * sizeof(double);
    strcpy(a->dtype, "<f8");
}

static void set_meta(wl_npz *z, const char *json)
{
    wl_npy *a = find(z, "metadata_json");
    wl_npy_free(a);
    wl_err err;
    CHECK(wl_npy_set_string(a, "metadata_json", json, &err) == 0);
}

static void drop_meta(wl_npz *z)
{
    wl_npy *a = find(z, "metadata_json");
    wl_npy_free(a);
    *a = z->arrays[--z->n];
}

static void meta_bad_kind(wl_npz *z)
{
    set_meta(z, "{\"kind\": \"rnn\", \"heads\": 1}");
}

static void meta_bad_heads(wl_npz *z)
{
    set_meta(z, "{\"kind\": \"multihead\", \"heads\": 3}");
}

static void meta_not_json(wl_npz *z)
{
    set_meta(z, "kind=attention");
}

static void meta_wrong_vocab(wl_npz *z)
{
    set_meta(z, "{\"kind\": \"attention\", \"heads\": 1, \"vocab_size\": 4000}");
}

static void meta_as_float(wl_npz *z)
{
    wl_npy *a = find(z, "metadata_json");
    wl_npy_free(a);
    a->name = strdup("metadata_json");
    strcpy(a->dtype, "<f4");
    a->ndim = 0;
    a->data = calloc(1, 4);
    a->nbytes = 4;
}

static void meta_huge_seed(wl_npz *z)
{
    set_meta(z, "{\"kind\": \"attention\", \"heads\": 1, \"seed\": 1e300}");
}

static void nan_in_wq(wl_npz *z)
{
    float *w = find(z, "state__W_Q.weight")->data;
    w[64 * 2 + 5] = NAN;   /* [D, D]: row 2, column 5 */
    w[64 * 3] = NAN;
}

static void inf_in_bias(wl_npz *z)
{
    ((float *)find(z, "state__vocab_head.bias")->data)[7] = -INFINITY;
}

static void test_errors(void)
{
    static const struct {
        const char *what;
        edit_fn edit;
        int vocab;
        const char *want, *want2;
    } cases[] = {
        {"meta seed", meta_huge_seed, 0, "metadata_json", "\"seed\" must be a whole number"},
        {"nan", nan_in_wq, 0, "array 'state__W_Q.weight' holds NaN at index [2, 5]", "finite"},
        {"inf", inf_in_bias, 0, "array 'state__vocab_head.bias' holds infinity at index [7]", NULL},
        {"missing", drop_wq, 0, "state__W_Q.weight", "missing"},
        {"renamed", rename_wq, 0, "state__W_Q.bias", "unexpected"},
        {"extra", add_extra, 0, "state__W_Q.bias", "unexpected"},
        {"stray", add_stray, 0, "optimizer_m", "unexpected"},
        {"shape", reshape_hidden, 0, "state__hidden_layer.weight", "shape"},
        {"ndim", flatten_wo, 0, "state__W_O.weight", "shape"},
        {"dtype", double_pos, 0, "state__position_embedding.weight", "<f8"},
        {"vocab", NULL, 4000, "state__token_embedding.weight", "4000"},
        {"meta vocab", meta_wrong_vocab, 0, "state__token_embedding.weight", "vocab_size 4000"},
        {"no meta", drop_meta, 0, "metadata_json", NULL},
        {"meta kind", meta_bad_kind, 0, "metadata_json", "kind"},
        {"meta heads", meta_bad_heads, 0, "metadata_json", "heads=3"},
        {"meta text", meta_not_json, 0, "metadata_json", "JSON"},
        {"meta dtype", meta_as_float, 0, "metadata_json", "<f4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_error(cases[i].what, cases[i].edit, cases[i].vocab, cases[i].want, cases[i].want2);
}

/* Damaged files: the reader's message (with the byte offset where it has one) comes through. */
static void test_damaged_files(void)
{
    wl_err err = {{0}};
    wl_model m, back;
    CHECK(wl_model_init(&m, "mlp", V, 1, 5, &err) == 0);
    const char *p = path_in("whole.npz");
    CHECK(wl_checkpoint_save(p, &m, 5, 1, 4.0, NULL, &err) == 0);
    char *data;
    size_t len;
    CHECK(wl_read_file(p, &data, &len, &err) == 0);

    /* Truncated at several points. */
    size_t cuts[] = {0, 10, len / 3, len / 2, len - 30, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        const char *t = path_in("cut.npz");
        CHECK(wl_write_atomic(t, data, cuts[i], &err) == 0);
        int rc = wl_checkpoint_load(t, 0, NULL, &back, NULL, &err);
        CHECK_MSG(rc == -1 && strstr(err.msg, "cut.npz"), "cut at %zu: %s", cuts[i], err.msg);
        if (rc == 0) wl_model_free(&back);
    }

    /* A flipped byte inside the first member's data: the CRC check names the member and its offset. */
    data[200] ^= 0x5a;
    const char *c = path_in("corrupt.npz");
    CHECK(wl_write_atomic(c, data, len, &err) == 0);
    int rc = wl_checkpoint_load(c, 0, NULL, &back, NULL, &err);
    CHECK_MSG(rc == -1 && strstr(err.msg, "state__token_embedding.weight") && strstr(err.msg, "offset"), "%s",
              err.msg);
    if (rc == 0) wl_model_free(&back);

    /* Not a ZIP at all. */
    const char *txt = path_in("notes.npz");
    const char *words = "these are some notes, not a checkpoint; long enough to hold an end record.\n";
    CHECK(wl_write_atomic(txt, words, strlen(words), &err) == 0);
    CHECK(wl_checkpoint_load(txt, 0, NULL, &back, NULL, &err) == -1 && strstr(err.msg, "notes.npz") &&
          strstr(err.msg, "ZIP"));

    /* No file. */
    CHECK(wl_checkpoint_load(path_in("absent.npz"), 0, NULL, &back, NULL, &err) == -1 && strstr(err.msg, "absent.npz"));
    free(data);
    wl_model_free(&m);
}

/* A checkpoint whose arrays declare far more than a model of its vocabulary holds is refused before inflating. */
static void test_declared_bound(void)
{
    const zc_member m[2] = {{"state__token_embedding.weight.npy", "<f4", "(37, 64)", 37 * 64 * 4},
                            {"state__vocab_head.weight.npy", "<f4", "(37, 10000000)", (size_t)37 * 10000000 * 4}};
    size_t len;
    unsigned char *buf = zc_build(m, 2, &len);
    const char *p = path_in("declared.npz");
    wl_err err = {{0}};
    CHECK(wl_write_atomic(p, buf, len, &err) == 0);
    free(buf);
    wl_model back;
    CHECK(wl_checkpoint_load(p, 0, NULL, &back, NULL, &err) == -1);
    CHECK_MSG(strstr(err.msg, "declared.npz: its arrays declare 1480009472 bytes, more than the") &&
              strstr(err.msg, "that a checkpoint with a vocabulary of 37 tokens holds"), "%s", err.msg);
    unlink(p);
    /* a vocabulary past what `model new` makes: a few MB of zeros would declare, and inflate to, gigabytes */
    const zc_member big[1] = {{"state__token_embedding.weight.npy", "<f4", "(1000000, 64)", (size_t)1000000 * 64 * 4}};
    buf = zc_build(big, 1, &len);
    CHECK(wl_write_atomic(p, buf, len, &err) == 0);
    free(buf);
    CHECK(wl_checkpoint_load(p, 0, NULL, &back, NULL, &err) == -1);
    CHECK_MSG(strstr(err.msg, "must have shape [V, 64] with V from 4 to 100000") && strstr(err.msg, "[1000000, ...]"),
              "%s", err.msg);
    unlink(p);
}

void wl_test_main(void)
{
    if (!mkdtemp(dir)) {
        CHECK(!"cannot make a temporary directory");
        return;
    }
    test_round_trip("mlp", 1);
    test_round_trip("attention", 1);
    test_round_trip("multihead", 4);
    test_errors();
    test_damaged_files();
    test_declared_bound();
    const char *names[] = {"round.npz", "good.npz", "bad.npz", "whole.npz", "cut.npz", "corrupt.npz", "notes.npz"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(path_in(names[i]));
    rmdir(dir);
}

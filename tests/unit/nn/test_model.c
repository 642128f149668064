/* test_model.c: the models: parameter layout and init, errors, details invariants, forward = details, gradients. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wl_model.h"
#include "wl_rng.h"
#include "wl_test.h"

/* B contexts with left padding of varying length (context b has b*9 PAD slots, at most 60), ids in 1..V-1. */
static void make_batch(int32_t *ctx, int32_t *tgt, int B, int V, uint64_t seed)
{
    wl_rng r;
    wl_rng_seed(&r, seed);
    for (int b = 0; b < B; b++) {
        int pads = (b * 9) % 61;
        for (int t = 0; t < WL_T; t++)
            ctx[b * WL_T + t] = t < pads ? WL_PAD : 1 + (int32_t)(wl_rng_next(&r) % (uint64_t)(V - 1));
        if (tgt) tgt[b] = (int32_t)(wl_rng_next(&r) % (uint64_t)V);
    }
}

static double max_abs_diff(const float *a, const float *b, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs((double)a[i] - b[i]));
    return m;
}

static void test_layout_and_init(void)
{
    static const char *kinds[] = {"mlp", "attention", "multihead"};
    static const size_t counts[] = {2332832, 1321120, 1321120};
    static const char *attn_names[] = {"token_embedding.weight", "position_embedding.weight", "W_Q.weight",
                                       "W_K.weight", "W_V.weight", "W_O.weight", "hidden_layer.weight",
                                       "hidden_layer.bias", "vocab_head.weight", "vocab_head.bias"};
    for (int k = 0; k < 3; k++) {
        wl_model m;
        wl_err err = {""};
        CHECK_MSG(wl_model_init(&m, kinds[k], 4000, 0, 11, &err) == 0, "%s", err.msg);
        CHECK_MSG(m.nparams == counts[k], "%s has %zu parameters", kinds[k], m.nparams);
        CHECK(m.H == (k == 2 ? 4 : 1));
        size_t sum = 0;
        for (int i = 0; i < m.nviews; i++) {
            CHECK(m.views[i].offset == sum);
            sum += m.views[i].size;
        }
        CHECK(sum == m.nparams);
        if (k == 0) {
            CHECK(m.nviews == 5);
            CHECK(wl_model_view(&m, "W_Q.weight") == NULL && m.wq == NULL && m.pos_emb == NULL);
            const wl_param_view *h = wl_model_view(&m, "hidden_layer.weight");
            CHECK(h && h->shape[0] == 256 && h->shape[1] == 4096);
        } else {
            CHECK(m.nviews == 10);
            for (int i = 0; i < 10; i++) CHECK(strcmp(m.views[i].name, attn_names[i]) == 0);
            CHECK(m.wk == m.params + wl_model_view(&m, "W_K.weight")->offset);
        }
        /* PAD row zero; embeddings look N(0,1); Linear weights lie within +-1/sqrt(fan_in) and reach near it */
        for (int i = 0; i < WL_D; i++) CHECK(m.tok_emb[i] == 0.0f);
        double s = 0, s2 = 0;
        size_t n = (size_t)(m.V - 1) * WL_D;
        for (size_t i = 0; i < n; i++) {
            s += m.tok_emb[WL_D + i];
            s2 += (double)m.tok_emb[WL_D + i] * m.tok_emb[WL_D + i];
        }
        CHECK_MSG(fabs(s / n) < 0.01 && fabs(s2 / n - 1.0) < 0.02, "embedding mean %g var %g", s / n, s2 / n);
        const wl_param_view *hw = wl_model_view(&m, "hidden_layer.weight");
        double bound = 1.0 / sqrt(hw->shape[1]), mx = 0;
        for (size_t i = 0; i < hw->size; i++) mx = fmax(mx, fabs(m.hid_w[i]));
        CHECK_MSG(mx <= bound && mx > 0.99 * bound, "max |hidden weight| %g, bound %g", mx, bound);
        double bb = 0;
        for (int i = 0; i < m.V; i++) bb = fmax(bb, fabs(m.head_b[i]));
        CHECK(bb <= 1.0 / 16.0 && bb > 0.9 / 16.0);
        /* same seed, same parameters; another seed, others */
        wl_model m2, m3;
        CHECK(wl_model_init(&m2, kinds[k], 4000, 0, 11, &err) == 0);
        CHECK(wl_model_init(&m3, kinds[k], 4000, 0, 12, &err) == 0);
        CHECK(memcmp(m.params, m2.params, sizeof(float) * m.nparams) == 0);
        CHECK(memcmp(m.params, m3.params, sizeof(float) * m.nparams) != 0);
        wl_model_free(&m);
        wl_model_free(&m2);
        wl_model_free(&m3);
    }
}

static void test_errors(void)
{
    wl_model m;
    wl_err err = {""};
    CHECK(wl_model_init(&m, "multihead", 50, 5, 1, &err) == -1);
    CHECK_MSG(strstr(err.msg, "heads=5 does not divide the width 64") != NULL, "%s", err.msg);
    CHECK(wl_model_init(&m, "multihead", 50, -2, 1, &err) == -1);
    CHECK(wl_model_init(&m, "attention", 50, 4, 1, &err) == -1 && strstr(err.msg, "multihead"));
    CHECK(wl_model_init(&m, "transformer", 50, 1, 1, &err) == -1 && strstr(err.msg, "unknown model kind"));
    CHECK(wl_model_init(&m, "mlp", 3, 1, 1, &err) == -1 && strstr(err.msg, "vocabulary size 3"));
    for (int H = 1; H <= 64; H *= 2) {
        CHECK(wl_model_init(&m, "multihead", 50, H, 1, &err) == 0 && m.H == H);
        wl_model_free(&m);
    }

    CHECK(wl_model_init(&m, "attention", 50, 1, 1, &err) == 0);
    CHECK(wl_model_ws_new(&m, 0) == NULL);
    wl_model_ws *ws = wl_model_ws_new(&m, 4);
    int32_t ctx[5 * WL_T], tgt[5];
    float logits[5 * 50];
    double loss;
    make_batch(ctx, tgt, 5, 50, 3);
    CHECK(wl_model_forward(&m, ws, ctx, 5, logits, &err) == -1 && strstr(err.msg, "batch size 5 is outside 1..4"));
    ctx[WL_T + 7] = 50;
    CHECK(wl_model_forward(&m, ws, ctx, 2, logits, &err) == -1);
    CHECK_MSG(strstr(err.msg, "context id 50 at [1, 7] is outside the vocabulary 0..49"), "%s", err.msg);
    ctx[WL_T + 7] = 4;
    tgt[1] = -1;
    CHECK(wl_model_loss(&m, ws, ctx, tgt, 2, &loss, NULL, &err) == -1 && strstr(err.msg, "target id -1 at [1, 0]"));
    wl_model other;
    CHECK(wl_model_init(&other, "attention", 51, 1, 1, &err) == 0);
    CHECK(wl_model_forward(&other, ws, ctx, 2, logits, &err) == -1 && strstr(err.msg, "different model"));
    wl_details d;
    CHECK(wl_model_details(&m, NULL, ctx, 0, &d, &err) == -1);
    CHECK(wl_model_details(&other, ws, ctx, 2, &d, &err) == -1 && strstr(err.msg, "different model"));
    wl_model_free(&other);
    wl_model_ws_free(ws);
    wl_model_free(&m);
}

/* forward = last row of details; the SPEC §3 invariants of the weights; the last id only changes the last row. */
static void test_details(const char *kind, int H)
{
    enum { B = 7, V = 60 };
    wl_model m;
    wl_err err = {""};
    CHECK(wl_model_init(&m, kind, V, H, 5, &err) == 0);
    int32_t ctx[B * WL_T];
    make_batch(ctx, NULL, B, V, 17);
    ctx[5 * WL_T + 20] = WL_PAD;   /* a PAD slot inside real text, then a context that ends in PAD */
    ctx[6 * WL_T + WL_T - 1] = WL_PAD;
    wl_details d;
    CHECK_MSG(wl_model_details(&m, NULL, ctx, B, &d, &err) == 0, "%s", err.msg);
    wl_model_ws *ws = wl_model_ws_new(&m, B);
    float logits[B * V];
    CHECK(wl_model_forward(&m, ws, ctx, B, logits, &err) == 0);
    double diff = max_abs_diff(logits, d.logits, (size_t)B * V);
    CHECK_MSG(diff < 2e-5, "%s H=%d: forward differs from the details' last row by %g", kind, H, diff);
    if (m.kind == WL_KIND_MLP) {
        CHECK(d.E == NULL && d.weights == NULL && d.logits_all == NULL);
        wl_details_free(&d);
        wl_model_ws_free(ws);
        wl_model_free(&m);
        return;
    }
    CHECK(d.H == H && d.d == 64 / H && d.T == WL_T && d.V == V);
    wl_details dw;   /* a workspace's threads (of a smaller batch size) give the bits of the call's own threads */
    wl_model_ws *one = wl_model_ws_new(&m, 1);
    CHECK(wl_model_details(&m, one, ctx, B, &dw, &err) == 0);
    CHECK(memcmp(d.logits_all, dw.logits_all, sizeof(float) * (size_t)B * WL_T * V) == 0);
    CHECK(memcmp(d.weights, dw.weights, sizeof(float) * (size_t)B * H * WL_T * WL_T) == 0);
    wl_details_free(&dw);
    wl_model_ws_free(one);
    int above = 0, pad = 0, sum = 0, padq_finite = 1;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int t = 0; t < WL_T; t++) {
                const float *w = d.weights + (((size_t)b * H + h) * WL_T + t) * WL_T;
                const float *s = d.scores + (((size_t)b * H + h) * WL_T + t) * WL_T;
                int real_q = ctx[b * WL_T + t] != WL_PAD;
                double total = 0;
                for (int j = 0; j < WL_T; j++) {
                    total += w[j];
                    if (j > t && (w[j] != 0.0f || s[j] != -INFINITY)) above++;
                    if (real_q && ctx[b * WL_T + j] == WL_PAD && (w[j] != 0.0f || s[j] != -INFINITY)) pad++;
                    if (!real_q && j <= t && !(w[j] > 0.0f)) padq_finite = 0;
                }
                if (fabs(total - 1.0) > 1e-5) sum++;
            }
    CHECK_MSG(above == 0, "%d weights above the diagonal are not exactly 0", above);
    CHECK_MSG(pad == 0, "%d PAD-key weights of real queries are not exactly 0", pad);
    CHECK_MSG(sum == 0, "%d weight rows do not sum to 1", sum);
    CHECK(padq_finite);
    /* the logits' last row is part of logits_all */
    for (int b = 0; b < B; b++)
        CHECK(memcmp(d.logits + (size_t)b * V, d.logits_all + ((size_t)b * WL_T + WL_T - 1) * V, sizeof(float) * V) == 0);
    /* change every last id: every earlier row of every output stays bit-identical */
    int32_t ctx2[B * WL_T];
    memcpy(ctx2, ctx, sizeof ctx);
    for (int b = 0; b < B; b++) ctx2[b * WL_T + WL_T - 1] = (ctx[b * WL_T + WL_T - 1] + 7) % V;
    wl_details d2;
    CHECK(wl_model_details(&m, ws, ctx2, B, &d2, &err) == 0);
    int changed = 0, last_changed = 0;
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < WL_T; t++) {
            size_t row = (size_t)b * WL_T + t;
            int same = memcmp(d.messages + row * WL_D, d2.messages + row * WL_D, sizeof(float) * WL_D) == 0 &&
                       memcmp(d.contextual + row * WL_D, d2.contextual + row * WL_D, sizeof(float) * WL_D) == 0 &&
                       memcmp(d.logits_all + row * V, d2.logits_all + row * V, sizeof(float) * V) == 0 &&
                       memcmp(d.Q + ((size_t)b * H * WL_T + t) * d.d, d2.Q + ((size_t)b * H * WL_T + t) * d.d,
                              sizeof(float) * d.d) == 0;
            for (int h = 0; h < H; h++) {
                size_t wrow = (((size_t)b * H + h) * WL_T + t) * WL_T;
                same = same && memcmp(d.weights + wrow, d2.weights + wrow, sizeof(float) * WL_T) == 0;
            }
            if (t < WL_T - 1 && !same) changed++;
            if (t == WL_T - 1 && !same) last_changed++;
        }
    }
    CHECK_MSG(changed == 0, "%d earlier rows changed with the last id", changed);
    CHECK(last_changed == B);   /* the test can fail: the last rows do change */
    /* E is the embedding sum; Q is E W_Q^T split by head */
    double qerr = 0;
    for (int t = 0; t < WL_T; t += 9)
        for (int o = 0; o < WL_D; o++) {
            double acc = 0;
            for (int i = 0; i < WL_D; i++) acc += (double)d.E[t * WL_D + i] * m.wq[o * WL_D + i];
            int h = o / d.d, j = o % d.d;
            qerr = fmax(qerr, fabs(acc - d.Q[((size_t)h * WL_T + t) * d.d + j]));
        }
    CHECK_MSG(qerr < 1e-4, "Q differs from E W_Q^T by %g", qerr);
    CHECK(d.E[5] == m.tok_emb[ctx[0] * WL_D + 5] + m.pos_emb[5]);
    wl_details_free(&d2);
    wl_details_free(&d);
    wl_model_ws_free(ws);
    wl_model_free(&m);
}

static void test_one_head_equals_attention(void)
{
    enum { B = 5, V = 40 };
    wl_model a, mh;
    wl_err err = {""};
    CHECK(wl_model_init(&a, "attention", V, 1, 9, &err) == 0);
    CHECK(wl_model_init(&mh, "multihead", V, 1, 9, &err) == 0);
    CHECK(a.nparams == mh.nparams && memcmp(a.params, mh.params, sizeof(float) * a.nparams) == 0);
    int32_t ctx[B * WL_T], tgt[B];
    make_batch(ctx, tgt, B, V, 4);
    wl_model_ws *wa = wl_model_ws_new(&a, B), *wm = wl_model_ws_new(&mh, B);
    float *ga = malloc(sizeof(float) * a.nparams), *gm = malloc(sizeof(float) * a.nparams);
    double la, lm;
    CHECK(wl_model_loss(&a, wa, ctx, tgt, B, &la, ga, &err) == 0);
    CHECK(wl_model_loss(&mh, wm, ctx, tgt, B, &lm, gm, &err) == 0);
    CHECK(la == lm && memcmp(ga, gm, sizeof(float) * a.nparams) == 0);
    free(ga);
    free(gm);
    wl_model_ws_free(wa);
    wl_model_ws_free(wm);
    wl_model_free(&a);
    wl_model_free(&mh);
}

/* Finite differences of the mean loss against the hand-written backward, a few coordinates of every tensor:
 * the coordinate with the largest gradient and three drawn ones. Also: the PAD row gets exactly zero, a repeated
 * call gives bit-identical gradients, and the loss without gradients is the same number. */
static void test_gradients(const char *kind, int H)
{
    enum { B = 3, V = 11 };
    wl_model m;
    wl_err err = {""};
    CHECK(wl_model_init(&m, kind, V, H, 21, &err) == 0);
    int32_t ctx[B * WL_T], tgt[B];
    make_batch(ctx, tgt, B, V, 8);
    wl_model_ws *ws = wl_model_ws_new(&m, B);
    float *g = malloc(sizeof(float) * m.nparams), *g2 = malloc(sizeof(float) * m.nparams);
    double loss, loss2, lp, lm;
    CHECK(wl_model_loss(&m, ws, ctx, tgt, B, &loss, g, &err) == 0);
    CHECK(wl_model_loss(&m, ws, ctx, tgt, B, &loss2, g2, &err) == 0);
    CHECK(loss == loss2 && memcmp(g, g2, sizeof(float) * m.nparams) == 0);
    CHECK(wl_model_loss(&m, ws, ctx, tgt, B, &loss2, NULL, &err) == 0 && loss == loss2);
    for (int i = 0; i < WL_D; i++) CHECK(g[i] == 0.0f);
    wl_rng r;
    wl_rng_seed(&r, 77);
    for (int v = 0; v < m.nviews; v++) {
        const wl_param_view *pv = &m.views[v];
        size_t imax = 0;
        double gmax = 0;
        for (size_t i = 0; i < pv->size; i++)
            if (fabs(g[pv->offset + i]) > gmax) gmax = fabs(g[pv->offset + i]), imax = i;
        CHECK_MSG(gmax > 0, "%s %s has an all-zero gradient", kind, pv->name);
        for (int k = 0; k < 4; k++) {
            size_t i = k == 0 ? imax : (size_t)(wl_rng_next(&r) % pv->size);
            float *p = m.params + pv->offset + i, keep = *p;
            float eps = 1e-2f;
            *p = keep + eps;
            CHECK(wl_model_loss(&m, ws, ctx, tgt, B, &lp, NULL, &err) == 0);
            *p = keep - eps;
            CHECK(wl_model_loss(&m, ws, ctx, tgt, B, &lm, NULL, &err) == 0);
            *p = keep;
            double fd = (lp - lm) / (2.0 * (double)eps), an = g[pv->offset + i];
            double tol = 5e-5 + 1e-3 * fabs(an);
            CHECK_MSG(fabs(fd - an) <= tol, "%s H=%d %s[%zu]: finite difference %.6g, backward %.6g", kind, H,
                      pv->name, i, fd, an);
        }
    }
    free(g);
    free(g2);
    wl_model_ws_free(ws);
    wl_model_free(&m);
}

/* Two workspaces give the same bits; the batched forward's rows equal one-context forwards (the generation
 * call); the loss is the same number with or without gradients, at a batch with whole 16-column groups. */
static void test_batches(const char *kind, int H)
{
    enum { B = 40, V = 300 };
    wl_model m;
    wl_err err = {""};
    CHECK(wl_model_init(&m, kind, V, H, 3, &err) == 0);
    int32_t ctx[B * WL_T], tgt[B];
    make_batch(ctx, tgt, B, V, 99);
    wl_model_ws *w1 = wl_model_ws_new(&m, B), *w2 = wl_model_ws_new(&m, B), *one = wl_model_ws_new(&m, 1);
    float *g1 = malloc(sizeof(float) * m.nparams), *g2 = malloc(sizeof(float) * m.nparams);
    float *logits = malloc(sizeof(float) * B * V), row[V];
    double l1, l2, l3;
    CHECK(wl_model_loss(&m, w1, ctx, tgt, B, &l1, g1, &err) == 0);
    CHECK(wl_model_loss(&m, w2, ctx, tgt, B, &l2, g2, &err) == 0);
    CHECK(wl_model_loss(&m, w2, ctx, tgt, B, &l3, NULL, &err) == 0);
    CHECK(l1 == l2 && l2 == l3 && memcmp(g1, g2, sizeof(float) * m.nparams) == 0);
    CHECK(wl_model_forward(&m, w1, ctx, B, logits, &err) == 0);
    double diff = 0, lsum = 0;
    for (int b = 0; b < B; b++) {
        CHECK(wl_model_forward(&m, one, ctx + b * WL_T, 1, row, &err) == 0);
        diff = fmax(diff, max_abs_diff(row, logits + (size_t)b * V, V));
        double mx = -INFINITY, z = 0;
        for (int v = 0; v < V; v++) mx = fmax(mx, row[v]);
        for (int v = 0; v < V; v++) z += exp(row[v] - mx);
        lsum += log(z) + mx - row[tgt[b]];
    }
    CHECK_MSG(diff < 1e-5, "%s: batched and one-context forward differ by %g", kind, diff);
    CHECK_MSG(fabs(lsum / B - l1) < 1e-5, "%s: loss %.8f, from the logits %.8f", kind, l1, lsum / B);
    free(g1);
    free(g2);
    free(logits);
    wl_model_ws_free(w1);
    wl_model_ws_free(w2);
    wl_model_ws_free(one);
    wl_model_free(&m);
}

void wl_test_main(void)
{
    test_layout_and_init();
    test_errors();
    test_details("mlp", 1);
    test_details("attention", 1);
    test_details("multihead", 4);
    test_details("multihead", 64);
    test_one_head_equals_attention();
    test_batches("mlp", 1);
    test_batches("attention", 1);
    test_batches("multihead", 4);
    test_gradients("mlp", 1);
    test_gradients("attention", 1);
    test_gradients("multihead", 4);
    test_gradients("multihead", 16);
}

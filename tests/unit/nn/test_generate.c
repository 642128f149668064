/* test_generate.c: generation: greedy equals a hand-fed argmax loop, banned ids, EOS and limit stops, seeded sampling, one call at a time. */
#include <math.h>
#include <string.h>

#include "wl_generate.h"
#include "wl_test.h"

enum { V = 30 };

/* Greedy generation fed by hand: the context is built here independently of wl_generate. */
static void test_greedy_matches_manual(const char *kind, int heads)
{
    wl_err err = {{0}};
    wl_model m;
    CHECK(wl_model_init(&m, kind, V, heads, 21, &err) == 0);
    m.head_b[WL_EOS] = -1e4f;   /* never stop early */
    int32_t prompt[70];
    for (int i = 0; i < 70; i++) prompt[i] = 4 + (i * 5) % (V - 4);

    for (int np = 0; np <= 70; np += 35) {
        wl_gen_config cfg = {.max_new_tokens = 6, .greedy = 1, .temperature = 1.0};
        wl_gen_result r;
        CHECK_MSG(wl_generate(&m, prompt, np, &cfg, NULL, &r, &err) == 0, "%s", err.msg);
        CHECK(r.n_new == 6 && r.calls == 6 && r.stop == WL_GEN_LIMIT);
        CHECK(strcmp(wl_gen_stop_name(r.stop), "limit") == 0);
        CHECK(r.seconds >= 0 && r.ms_per_call >= 0);
        CHECK(r.warmup_ms > 0);   /* one call before the timed ones, not among the 6 counted */

        int32_t hist[80];
        int nh = 0;
        hist[nh++] = WL_BOS;
        for (int i = 0; i < np; i++) hist[nh++] = prompt[i];
        wl_model_ws *ws = wl_model_ws_new(&m, 1);
        float logits[V];
        for (int k = 0; k < 6; k++) {
            int32_t ctx[WL_T];
            for (int t = 0; t < WL_T; t++) {
                int src = nh - WL_T + t;
                ctx[t] = src >= 0 ? hist[src] : WL_PAD;
            }
            CHECK(wl_model_forward(&m, ws, ctx, 1, logits, &err) == 0);
            int best = -1;
            for (int j = 0; j < V; j++) {
                if (j == WL_PAD || j == WL_BOS || j == WL_UNK) continue;
                if (best < 0 || logits[j] > logits[best]) best = j;
            }
            CHECK_MSG(r.ids[k] == best, "%s prompt %d token %d: %d vs %d", kind, np, k, r.ids[k], best);
            hist[nh++] = best;
        }
        wl_model_ws_free(ws);
        wl_gen_result_free(&r);
    }
    wl_gen_config none = {.max_new_tokens = 0, .greedy = 1, .temperature = 1.0};
    wl_gen_result r;
    CHECK(wl_generate(&m, prompt, 3, &none, NULL, &r, &err) == 0);
    CHECK(r.calls == 0 && r.n_new == 0 && r.warmup_ms == 0);   /* no call, no warm-up */
    wl_gen_result_free(&r);
    wl_model_free(&m);
}

static void test_stops_and_bans(void)
{
    wl_err err = {{0}};
    wl_model m;
    CHECK(wl_model_init(&m, "attention", V, 1, 4, &err) == 0);
    int32_t prompt[3] = {5, 6, 7};
    wl_gen_config cfg = {.max_new_tokens = 10, .greedy = 1, .temperature = 1.0};
    wl_gen_result r;

    /* PAD, BOS and UNK can never be chosen, however large their logits. */
    m.head_b[WL_PAD] = m.head_b[WL_BOS] = m.head_b[WL_UNK] = 1e4f;
    m.head_b[WL_EOS] = -1e4f;
    CHECK(wl_generate(&m, prompt, 3, &cfg, NULL, &r, &err) == 0);
    CHECK(r.n_new == 10);
    for (int i = 0; i < r.n_new; i++) CHECK(r.ids[i] > WL_UNK);
    wl_gen_result_free(&r);

    /* Sampling too. */
    cfg.greedy = 0;
    cfg.temperature = 5.0;
    CHECK(wl_generate(&m, prompt, 3, &cfg, NULL, &r, &err) == 0);
    for (int i = 0; i < r.n_new; i++) CHECK(r.ids[i] > WL_UNK);
    wl_gen_result_free(&r);

    /* EOS: a model call that adds no token. */
    m.head_b[WL_EOS] = 1e4f;
    cfg.greedy = 1;
    CHECK(wl_generate(&m, prompt, 3, &cfg, NULL, &r, &err) == 0);
    CHECK(r.n_new == 0 && r.calls == 1 && r.stop == WL_GEN_EOS);
    CHECK(strcmp(wl_gen_stop_name(r.stop), "eos") == 0);
    wl_gen_result_free(&r);

    /* An interrupt stops before the next call. */
    volatile sig_atomic_t flag = 1;
    CHECK(wl_generate(&m, prompt, 3, &cfg, &flag, &r, &err) == 0);
    CHECK(r.calls == 0 && r.stop == WL_GEN_INTERRUPTED);
    wl_gen_result_free(&r);

    /* Bad input. */
    int32_t bad[2] = {5, V};
    CHECK(wl_generate(&m, bad, 2, &cfg, NULL, &r, &err) == -1 && strstr(err.msg, "position 1"));
    cfg.greedy = 0;
    cfg.temperature = 0;
    CHECK(wl_generate(&m, prompt, 3, &cfg, NULL, &r, &err) == -1 && strstr(err.msg, "temperature"));
    cfg.max_new_tokens = -1;
    CHECK(wl_generate(&m, prompt, 3, &cfg, NULL, &r, &err) == -1 && strstr(err.msg, "limit"));
    wl_model_free(&m);
}

static void test_sampling(void)
{
    wl_err err = {{0}};
    wl_model m;
    CHECK(wl_model_init(&m, "multihead", V, 4, 9, &err) == 0);
    m.head_b[WL_EOS] = -1e4f;
    int32_t prompt[2] = {8, 9};
    wl_gen_config cfg = {.max_new_tokens = 20, .greedy = 0, .temperature = 3.0, .seed = 1};
    wl_gen_result a, b, c, g;
    CHECK(wl_generate(&m, prompt, 2, &cfg, NULL, &a, &err) == 0);
    CHECK(wl_generate(&m, prompt, 2, &cfg, NULL, &b, &err) == 0);
    CHECK(a.n_new == 20 && b.n_new == 20 && memcmp(a.ids, b.ids, 20 * sizeof(int32_t)) == 0);
    cfg.seed = 2;
    CHECK(wl_generate(&m, prompt, 2, &cfg, NULL, &c, &err) == 0);
    CHECK(memcmp(a.ids, c.ids, 20 * sizeof(int32_t)) != 0);

    /* A very low temperature is greedy. */
    cfg.temperature = 1e-6;
    wl_gen_result l;
    CHECK(wl_generate(&m, prompt, 2, &cfg, NULL, &l, &err) == 0);
    cfg.greedy = 1;
    CHECK(wl_generate(&m, prompt, 2, &cfg, NULL, &g, &err) == 0);
    CHECK(memcmp(l.ids, g.ids, 20 * sizeof(int32_t)) == 0);
    wl_gen_result_free(&a);
    wl_gen_result_free(&b);
    wl_gen_result_free(&c);
    wl_gen_result_free(&g);
    wl_gen_result_free(&l);
    wl_model_free(&m);
}

/* One call at a time: the same ids as wl_generate, the context of each call, an EOS stop, an interrupt. */
static void test_steps(void)
{
    wl_err err = {{0}};
    wl_model m;
    CHECK(wl_model_init(&m, "multihead", V, 4, 13, &err) == 0);
    int32_t prompt[70];
    for (int i = 0; i < 70; i++) prompt[i] = 4 + (i * 7) % (V - 4);
    wl_gen_config cfg = {.max_new_tokens = 12, .greedy = 0, .temperature = 1.5, .seed = 5};
    wl_gen_result r;
    CHECK(wl_generate(&m, prompt, 60, &cfg, NULL, &r, &err) == 0);
    wl_gen *g;
    CHECK_MSG(wl_gen_start(&m, prompt, 60, &cfg, &g, &err) == 0, "%s", err.msg);
    int steps = 0;
    while (!wl_gen_finished(g)) {
        const int32_t *ctx = wl_gen_context(g);   /* BOS + prompt + ids so far, the last 64 */
        int n = wl_gen_progress(g)->n_new;
        CHECK(ctx[WL_T - 1] == (n ? wl_gen_progress(g)->ids[n - 1] : prompt[59]));
        CHECK(ctx[0] == (n < 3 ? WL_PAD : n == 3 ? WL_BOS : prompt[n - 4]));   /* 61 + n ids of history */
        CHECK_MSG(wl_gen_step(g, &err) == 0, "%s", err.msg);
        steps++;
    }
    const wl_gen_result *p = wl_gen_progress(g);
    CHECK(p->n_new == r.n_new && p->calls == r.calls && p->stop == r.stop && steps == r.calls);
    CHECK(memcmp(p->ids, r.ids, sizeof(int32_t) * (size_t)r.n_new) == 0);
    CHECK(p->seconds >= 0 && fabs(p->ms_per_call - 1000.0 * p->seconds / p->calls) < 1e-9);
    CHECK(wl_gen_step(g, &err) == -1 && strstr(err.msg, "finished"));
    wl_gen_free(g);
    wl_gen_result_free(&r);

    /* EOS always wins: one call, no token; an interrupt before the first call: none. */
    m.head_b[WL_EOS] = 1e4f;
    CHECK(wl_gen_start(&m, prompt, 3, &cfg, &g, &err) == 0);
    CHECK(wl_gen_step(g, &err) == 0 && wl_gen_finished(g));
    CHECK(wl_gen_progress(g)->stop == WL_GEN_EOS && wl_gen_progress(g)->calls == 1 && wl_gen_progress(g)->n_new == 0);
    wl_gen_free(g);
    CHECK(wl_gen_start(&m, prompt, 3, &cfg, &g, &err) == 0);
    wl_gen_interrupt(g);
    CHECK(wl_gen_finished(g) && wl_gen_progress(g)->stop == WL_GEN_INTERRUPTED && wl_gen_progress(g)->calls == 0);
    wl_gen_free(g);
    cfg.max_new_tokens = 0;   /* finished at once, stopped by the limit */
    CHECK(wl_gen_start(&m, prompt, 3, &cfg, &g, &err) == 0);
    CHECK(wl_gen_finished(g) && wl_gen_progress(g)->stop == WL_GEN_LIMIT);
    wl_gen_free(g);
    cfg.temperature = 0;
    CHECK(wl_gen_start(&m, prompt, 3, &cfg, &g, &err) == -1 && g == NULL && strstr(err.msg, "temperature"));
    wl_model_free(&m);
}

void wl_test_main(void)
{
    test_steps();
    test_greedy_matches_manual("mlp", 1);
    test_greedy_matches_manual("attention", 1);
    test_greedy_matches_manual("multihead", 4);
    test_stops_and_bans();
    test_sampling();
}

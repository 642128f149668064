/* nn_bench.c: times the models (training step, one-context forward, forward_details, evaluation) and prints JSON.
 *
 * Usage: nn_bench [V] [B]   (defaults 4000 and 512). Each figure is the fastest of repeated runs after a warm-up
 * (other load on the machine only ever adds time), on windows like the corpus's (left padding of random length, a
 * real last token). Evaluation is the mean loss of a batch without gradients. Used by tests/bench/bench_nn.py.
 *
 * nn_bench sgemm [V] [B]: OpenBLAS's cblas_sgemm (its own thread count) on the six products of the mlp's training
 * step, with the transpositions the step uses: the machine's matrix-multiply rate on the training shapes. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wl_model.h"
#include "wl_rng.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void make_windows(int32_t *ctx, int32_t *tgt, int B, int V, wl_rng *r)
{
    for (int b = 0; b < B; b++) {
        int pads = (int)(wl_rng_next(r) % WL_T);
        for (int t = 0; t < WL_T; t++)
            ctx[b * WL_T + t] = t < pads ? WL_PAD : 1 + (int32_t)(wl_rng_next(r) % (uint64_t)(V - 1));
        tgt[b] = (int32_t)(wl_rng_next(r) % (uint64_t)V);
    }
}

enum { TRAIN, FORWARD1, DETAILS1, EVAL };

/* Fastest seconds of one call of the given kind of work. */
static double time_it(int what, const wl_model *m, wl_model_ws *ws, const int32_t *ctx, const int32_t *tgt, int B,
                      float *grads, float *logits, int reps, wl_err *err)
{
    double t[1000];
    double loss;
    for (int i = -3; i < reps; i++) {
        double t0 = now();
        int rc = 0;
        wl_details d;
        switch (what) {
        case TRAIN: rc = wl_model_loss(m, ws, ctx, tgt, B, &loss, grads, err); break;
        case FORWARD1: rc = wl_model_forward(m, ws, ctx, 1, logits, err); break;
        case DETAILS1:
            rc = wl_model_details(m, ws, ctx, 1, &d, err);
            wl_details_free(&d);
            break;
        case EVAL: rc = wl_model_loss(m, ws, ctx, tgt, B, &loss, NULL, err); break;
        }
        if (rc) return -1;
        if (i >= 0) t[i] = now() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    return t[0];
}

/* One product C[M,N] = op(A) op(B) of the mlp's training step (row-major; ta/tb: A/B stored transposed). */
typedef struct shape {
    const char *what;
    int M, N, K, ta, tb;
} shape;

static int sgemm_rates(int V, int B)
{
    const int C = WL_T * WL_D, F = WL_F;
    const shape shapes[] = {
        {"hidden forward X W^T", B, F, C, 0, 1},     {"head forward W hid^T", V, B, F, 0, 1},
        {"head dW = dlogits hid", V, F, B, 0, 0},     {"head dhid = dlogits^T W", B, F, V, 1, 0},
        {"hidden dW = dhid^T X", F, C, B, 1, 0},      {"hidden dX = dhid W", B, C, F, 0, 0},
    };
    enum { NS = sizeof shapes / sizeof shapes[0], REPS = 30 };
    size_t big = (size_t)(V > C ? V : C) * (size_t)(B > F ? B : F);
    float *a = malloc(sizeof(float) * big), *b = malloc(sizeof(float) * big), *c = malloc(sizeof(float) * big);
    if (!a || !b || !c) return 1;
    wl_rng r;
    wl_rng_seed(&r, 7);
    for (size_t i = 0; i < big; i++) a[i] = (float)wl_rng_uniform(&r) - 0.5f, b[i] = (float)wl_rng_uniform(&r) - 0.5f;
    double total_s = 0, total_flops = 0;
    printf("{\"threads\": %d, \"openblas\": \"%s, core %s\", \"shapes\": [", openblas_get_num_threads(),
           openblas_get_config(), openblas_get_corename());
    for (int k = 0; k < NS; k++) {
        const shape *sh = &shapes[k];
        double best = 1e30;
        for (int i = -3; i < REPS; i++) {
            double t0 = now();
            cblas_sgemm(CblasRowMajor, sh->ta ? CblasTrans : CblasNoTrans, sh->tb ? CblasTrans : CblasNoTrans, sh->M, sh->N,
                        sh->K, 1.0f, a, sh->ta ? sh->M : sh->K, b, sh->tb ? sh->K : sh->N, 0.0f, c, sh->N);
            double t = now() - t0;
            if (i >= 0 && t < best) best = t;
        }
        double flops = 2.0 * sh->M * sh->N * sh->K;
        total_s += best;
        total_flops += flops;
        printf("%s{\"what\": \"%s\", \"M\": %d, \"N\": %d, \"K\": %d, \"ms\": %.5f, \"gflops\": %.2f}", k ? ", " : "",
               sh->what, sh->M, sh->N, sh->K, best * 1e3, flops / best * 1e-9);
    }
    printf("], \"step_ms\": %.5f, \"gflops\": %.2f}\n", total_s * 1e3, total_flops / total_s * 1e-9);
    free(a);
    free(b);
    free(c);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "sgemm"))
        return sgemm_rates(argc > 2 ? atoi(argv[2]) : 4000, argc > 3 ? atoi(argv[3]) : 512);
    int V = argc > 1 ? atoi(argv[1]) : 4000, B = argc > 2 ? atoi(argv[2]) : 512;
    static const char *kinds[] = {"mlp", "attention", "multihead"};
    static const char *labels[] = {"train_step_ms", "forward_one_ms", "details_one_ms", "eval_batch_ms"};
    static const int reps[] = {40, 1000, 400, 40};
    if (V < 4 || B < 1) {
        fprintf(stderr, "usage: nn_bench [V>=4] [B>=1]\n");
        return 2;
    }
    int32_t *ctx = malloc(sizeof(int32_t) * B * WL_T), *tgt = malloc(sizeof(int32_t) * B);
    float *logits = malloc(sizeof(float) * B * V);
    wl_rng r;
    wl_rng_seed(&r, 2024);
    make_windows(ctx, tgt, B, V, &r);
    printf("{\"V\": %d, \"B\": %d", V, B);
    for (int k = 0; k < 3; k++) {
        wl_model m;
        wl_err err = {""};
        if (wl_model_init(&m, kinds[k], V, 0, 11, &err)) {
            fprintf(stderr, "nn_bench: %s\n", err.msg);
            return 1;
        }
        wl_model_ws *ws = wl_model_ws_new(&m, B);
        float *grads = malloc(sizeof(float) * m.nparams);
        printf(", \"%s\": {", kinds[k]);
        for (int w = TRAIN; w <= EVAL; w++) {
            double s = time_it(w, &m, ws, ctx, tgt, B, grads, logits, reps[w], &err);
            if (s < 0) {
                fprintf(stderr, "nn_bench: %s\n", err.msg);
                return 1;
            }
            printf("%s\"%s\": %.5f", w ? ", " : "", labels[w], s * 1e3);
        }
        printf("}");
        fflush(stdout);
        free(grads);
        wl_model_ws_free(ws);
        wl_model_free(&m);
    }
    printf("}\n");
    free(ctx);
    free(tgt);
    free(logits);
    return 0;
}

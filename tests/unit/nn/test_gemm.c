/* test_gemm.c: the models' matrix product against a double-precision loop, in every layout, split or not; with the
 * AVX-512 kernel, bit for bit against one fmaf chain per element over k in increasing order (the arithmetic of the
 * browser's kernel too), single rows and columns included. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wl_gemm.h"
#include "wl_rng.h"
#include "wl_test.h"

/* A fake parallel-for: runs the parts one after another, last part first. (gemm splits only products of
 * at least 2^21 multiply-adds: {100, 64, 513} splits by rows, {50, 200, 300} by panels; {560, 200, 20} by panels
 * with two chunks of rows, 528 and 32, over kept packed panels; a single row or column from 2^18: {1, 600, 500}
 * and {700, 1, 400}.) */
static void run_backwards(void *ctx, void (*body)(void *, int, int), void *arg)
{
    int n = *(int *)ctx;
    for (int p = n - 1; p >= 0; p--) body(arg, p, n);
}

static void fill(float *x, size_t n, wl_rng *r)
{
    for (size_t i = 0; i < n; i++) x[i] = (float)(wl_rng_uniform(r) * 2.0 - 1.0);
}

static void check_case(int M, int N, int K, int a_rows, int tb, int ct, int accumulate, int bias)
{
    wl_rng r;
    wl_rng_seed(&r, (uint64_t)(M * 131 + N * 7 + K));
    size_t rsa = a_rows ? (size_t)K + 3 : 1, csa = a_rows ? 1 : (size_t)M + 5;   /* padded leading dimensions */
    int ldb = (tb ? K : N) + 2, ldc = (ct ? M : N) + 1;
    size_t bsize = (size_t)(tb ? N : K) * ldb;
    size_t asize = a_rows ? (size_t)M * rsa : (size_t)K * csa, csize = (size_t)(ct ? N : M) * ldc;
    float *A = malloc(sizeof(float) * asize), *B = malloc(sizeof(float) * bsize), *rb = malloc(sizeof(float) * M);
    float *C0 = malloc(sizeof(float) * csize), *C1 = malloc(sizeof(float) * csize), *C3 = malloc(sizeof(float) * csize);
    float *Cf = malloc(sizeof(float) * csize);
    fill(A, asize, &r);
    fill(B, bsize, &r);
    fill(rb, M, &r);
    fill(C0, csize, &r);
    memcpy(C1, C0, sizeof(float) * csize);
    memcpy(C3, C0, sizeof(float) * csize);
    memcpy(Cf, C0, sizeof(float) * csize);
    int three = 3;
    wl_par par = {&three, 3, run_backwards};
    wl_gemm_op op = {.m = M, .n = N, .k = K, .out = C1, .ld_out = ldc, .out_t = ct, .a = A,
                     .ld_a = (int)(a_rows ? rsa : csa), .a_t = !a_rows, .b = B, .ld_b = ldb, .b_t = tb,
                     .row_bias = bias ? rb : NULL, .accumulate = accumulate};
    wl_gemm(NULL, &op);
    op.out = C3;
    wl_gemm(&par, &op);
    double worst = 0, untouched = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            size_t at = ct ? (size_t)j * ldc + i : (size_t)i * ldc + j;
            double start = accumulate ? C0[at] : bias ? rb[i] : 0.0, sum = 0.0;
            float chain = accumulate ? C0[at] : bias ? rb[i] : 0.0f;
            for (int k = 0; k < K; k++) {
                float a = A[i * rsa + k * csa], b = B[tb ? (size_t)j * ldb + k : (size_t)k * ldb + j];
                sum += (double)a * b;
                chain = fmaf(a, b, chain);
            }
            double want = start + sum;
            worst = fmax(worst, fabs(want - C1[at]) / (1.0 + fabs(want)));
            Cf[at] = chain;
            C0[at] = C1[at];
        }
    for (size_t i = 0; i < csize; i++) untouched += C0[i] != C1[i];   /* padding stays as it was */
    CHECK_MSG(worst < 1e-5, "M=%d N=%d K=%d a_rows=%d tb=%d ct=%d acc=%d bias=%d: relative error %g", M, N, K, a_rows,
              tb, ct, accumulate, bias, worst);
    CHECK_MSG(untouched == 0, "gemm wrote outside C");
    CHECK_MSG(memcmp(C1, C3, sizeof(float) * csize) == 0, "M=%d N=%d K=%d: a 3-part split changed the result", M, N, K);
    if (wl_gemm_has_kernel())   /* Cf's padding is C0's, which C1 kept */
        CHECK_MSG(memcmp(C1, Cf, sizeof(float) * csize) == 0,
                  "M=%d N=%d K=%d a_rows=%d tb=%d ct=%d acc=%d bias=%d: not the fmaf chain's bits", M, N, K, a_rows, tb,
                  ct, accumulate, bias);
    free(A);
    free(B);
    free(rb);
    free(C0);
    free(C1);
    free(C3);
    free(Cf);
}

void wl_test_main(void)
{
    static const int shapes[][3] = {{1, 1, 1}, {5, 1, 7}, {1, 37, 70}, {40, 1, 300}, {1, 16, 5}, {12, 32, 16},
                                    {13, 33, 300}, {40, 70, 257}, {100, 64, 513}, {50, 200, 300}, {560, 200, 20},
                                    {7, 200, 3}, {1, 600, 500}, {700, 1, 400}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int mode = 0; mode < 32; mode++) {
            int a_rows = mode & 1, ct = (mode >> 1) & 1, acc = (mode >> 2) & 1, bias = (mode >> 3) & 1;
            int tb = (mode >> 4) & 1;
            if (acc && bias) continue;
            check_case(shapes[s][0], shapes[s][1], shapes[s][2], a_rows, tb, ct, acc, bias);
        }
}

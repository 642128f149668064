/* portable_blas.c: the portable CBLAS subset (runtime/nn/portable, the WebAssembly build's) against a
 * double-precision loop: sgemm and sgemv, every transpose, leading dimensions and strides, alpha and beta, and
 * wl_gemm()'s BLAS fallback on top of it. Built natively without OpenBLAS and without wl_gemm's kernel
 * (CMakeLists.txt). */
#include <math.h>
#include <stdlib.h>

#include "cblas.h"
#include "wl_gemm.h"
#include "wl_test.h"

static float rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (float)((*s >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

static float *filled(size_t n, unsigned *s)
{
    float *p = malloc(n * sizeof *p);
    CHECK(p != NULL);
    for (size_t i = 0; i < n; i++) p[i] = rnd(s);
    return p;
}

/* max |got - want| / max |want| over C [M, ldc] (columns < N). */
static double rel_err(const float *got, const double *want, int M, int N, int ldc)
{
    double d = 0, scale = 1e-30;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            d = fmax(d, fabs(got[(size_t)i * ldc + j] - want[(size_t)i * ldc + j]));
            scale = fmax(scale, fabs(want[(size_t)i * ldc + j]));
        }
    return d / scale;
}

static void test_sgemm(void)
{
    unsigned s = 7;
    const int shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {17, 33, 300}, {64, 64, 64}, {2, 600, 513}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int b = 0; b < 3; b++) {
                    int M = shapes[t][0], N = shapes[t][1], K = shapes[t][2];
                    int lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 2, ldc = N + 1;
                    float alpha = 0.75f, beta = b == 0 ? 0.0f : b == 1 ? 1.0f : -0.5f;
                    float *A = filled((size_t)(ta ? K : M) * lda, &s), *B = filled((size_t)(tb ? N : K) * ldb, &s);
                    float *C = filled((size_t)M * ldc, &s);
                    double *W = malloc(sizeof(double) * (size_t)M * ldc);
                    CHECK(W != NULL);
                    for (int i = 0; i < M; i++)
                        for (int j = 0; j < N; j++) {
                            double acc = 0;
                            for (int k = 0; k < K; k++)
                                acc += (double)(ta ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k]) *
                                       (tb ? B[(size_t)j * ldb + k] : B[(size_t)k * ldb + j]);
                            /* beta 0: C is not read (NaN there must not leak) */
                            W[(size_t)i * ldc + j] = alpha * acc + (beta == 0.0f ? 0.0 : beta * C[(size_t)i * ldc + j]);
                            if (beta == 0.0f) C[(size_t)i * ldc + j] = NAN;
                        }
                    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N,
                                K, alpha, A, lda, B, ldb, beta, C, ldc);
                    double e = rel_err(C, W, M, N, ldc);
                    CHECK_MSG(e < 1e-5, "sgemm %dx%dx%d ta %d tb %d beta %g: relative error %g", M, N, K, ta, tb,
                              beta, e);
                    free(A);
                    free(B);
                    free(C);
                    free(W);
                }
}

static void test_sgemv(void)
{
    unsigned s = 11;
    const int shapes[][2] = {{1, 1}, {5, 3}, {300, 257}, {3, 700}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
        for (int tr = 0; tr < 2; tr++)
            for (int inc = 1; inc <= 3; inc += 2) {
                int M = shapes[t][0], N = shapes[t][1], lda = N + 4;
                int nx = tr ? M : N, ny = tr ? N : M;
                float *A = filled((size_t)M * lda, &s), *x = filled((size_t)nx * inc, &s);
                float *y = filled((size_t)ny * inc, &s);
                double *W = calloc((size_t)ny * inc, sizeof(double));
                CHECK(W != NULL);
                for (int i = 0; i < ny; i++) {
                    double acc = 0;
                    for (int k = 0; k < nx; k++)
                        acc += (double)(tr ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k]) * x[(size_t)k * inc];
                    W[(size_t)i * inc] = -2.0 * acc + 0.5 * y[(size_t)i * inc];
                }
                cblas_sgemv(CblasRowMajor, tr ? CblasTrans : CblasNoTrans, M, N, -2.0f, A, lda, x, inc, 0.5f, y, inc);
                double e = rel_err(y, W, ny, 1, inc);
                CHECK_MSG(e < 1e-5, "sgemv %dx%d trans %d inc %d: relative error %g", M, N, tr, inc, e);
                free(A);
                free(x);
                free(y);
                free(W);
            }
    CHECK(openblas_get_num_threads() == 1);
}

/* wl_gemm() of one row goes to the portable sgemv: A read with a stride, B stored transposed, C stored transposed
 * (a strided y), a row bias. */
static void test_gemm_row(void)
{
    unsigned s = 3;
    const int N = 13, K = 70, ldc = 3;
    float *A = filled((size_t)2 * K, &s), *B = filled((size_t)N * K, &s), bias = 0.25f;
    float C[13 * 3];
    double W[13 * 3] = {0};
    for (int j = 0; j < N; j++) {
        double acc = bias;
        for (int k = 0; k < K; k++) acc += (double)A[2 * k] * B[(size_t)j * K + k];
        W[j * ldc] = acc;
    }
    wl_gemm(NULL, &(wl_gemm_op){.m = 1, .n = N, .k = K, .out = C, .ld_out = ldc, .out_t = 1, .a = A, .ld_a = 2, .a_t = 1,
                                .b = B, .ld_b = K, .b_t = 1, .row_bias = &bias});
    double e = rel_err(C, W, N, 1, ldc);
    CHECK_MSG(e < 1e-5, "gemm of one row over the portable sgemv: relative error %g", e);
    free(A);
    free(B);
}

void wl_test_main(void)
{
    test_sgemm();
    test_sgemv();
    test_gemm_row();
}

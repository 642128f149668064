/* wl_cblas.c: the CBLAS subset of cblas.h in plain C with 4-wide vector types, which the compiler maps to SIMD
 * (WebAssembly SIMD128 under emscripten), for builds without OpenBLAS. Rows of op(A) and x are packed PB elements
 * at a time; every result is one fixed-order sum, so the same inputs give the same bits. */
#include "cblas.h"

#include <stddef.h>
#include <string.h>

#define PB 256
typedef float pv4 __attribute__((vector_size(16)));

static inline pv4 pld(const float *p)
{
    pv4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* a[n] . b[n]: four 4-wide partial sums, added in a fixed order, then the tail. */
static float pdot(const float *a, const float *b, int n)
{
    pv4 s0 = {0, 0, 0, 0}, s1 = s0, s2 = s0, s3 = s0;
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        s0 += pld(a + i) * pld(b + i);
        s1 += pld(a + i + 4) * pld(b + i + 4);
        s2 += pld(a + i + 8) * pld(b + i + 8);
        s3 += pld(a + i + 12) * pld(b + i + 12);
    }
    for (; i + 4 <= n; i += 4) s0 += pld(a + i) * pld(b + i);
    pv4 s = (s0 + s1) + (s2 + s3);
    float r = (s[0] + s[1]) + (s[2] + s[3]);
    for (; i < n; i++) r += a[i] * b[i];
    return r;
}

/* y[n] += a x[n] */
static void paxpy(float *y, float a, const float *x, int n)
{
    pv4 va = {a, a, a, a};
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        pv4 v = pld(y + i) + va * pld(x + i);
        memcpy(y + i, &v, sizeof v);
    }
    for (; i < n; i++) y[i] += a * x[i];
}

/* y[i*inc] *= beta for i < n (beta 0 writes zeros, whatever y held). */
static void pscale(float *y, int inc, float beta, int n)
{
    if (beta == 1.0f) return;
    for (int i = 0; i < n; i++) y[(size_t)i * inc] = beta == 0.0f ? 0.0f : beta * y[(size_t)i * inc];
}

void cblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int M, int N, int K,
                 float alpha, const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    (void)order;   /* row-major: the only order the runtime uses */
    float a[PB];   /* alpha op(A)(i, k0 .. k0+kb) */
    for (int i = 0; i < M; i++) {
        float *c = C + (size_t)i * ldc;
        pscale(c, 1, beta, N);
        for (int k0 = 0; k0 < K; k0 += PB) {
            int kb = K - k0 < PB ? K - k0 : PB;
            for (int k = 0; k < kb; k++)
                a[k] = alpha * (ta == CblasTrans ? A[(size_t)(k0 + k) * lda + i] : A[(size_t)i * lda + k0 + k]);
            if (tb == CblasTrans)   /* B(k,j) = B[j*ldb + k]: a dot product per column */
                for (int j = 0; j < N; j++) c[j] += pdot(a, B + (size_t)j * ldb + k0, kb);
            else                    /* rows of B scaled and added */
                for (int k = 0; k < kb; k++) paxpy(c, a[k], B + (size_t)(k0 + k) * ldb, N);
        }
    }
}

void cblas_sgemv(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE t, int M, int N, float alpha, const float *A, int lda,
                 const float *x, int incx, float beta, float *y, int incy)
{
    (void)order;
    float buf[PB];
    if (t == CblasNoTrans) {   /* y[i] += alpha A(i,:) . x, x packed PB at a time */
        pscale(y, incy, beta, M);
        for (int k0 = 0; k0 < N; k0 += PB) {
            int kb = N - k0 < PB ? N - k0 : PB;
            for (int k = 0; k < kb; k++) buf[k] = alpha * x[(size_t)(k0 + k) * incx];
            for (int i = 0; i < M; i++) y[(size_t)i * incy] += pdot(A + (size_t)i * lda + k0, buf, kb);
        }
        return;
    }
    pscale(y, incy, beta, N);   /* y += alpha A^T x: the rows of A scaled and added, PB columns at a time */
    for (int j0 = 0; j0 < N; j0 += PB) {
        int jb = N - j0 < PB ? N - j0 : PB;
        for (int j = 0; j < jb; j++) buf[j] = y[(size_t)(j0 + j) * incy];
        for (int i = 0; i < M; i++) paxpy(buf, alpha * x[(size_t)i * incx], A + (size_t)i * lda + j0, jb);
        for (int j = 0; j < jb; j++) y[(size_t)(j0 + j) * incy] = buf[j];
    }
}

int openblas_get_num_threads(void)
{
    return 1;
}

const char *openblas_get_config(void)
{
    return "wordlab portable CBLAS";
}

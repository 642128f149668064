/* wl_gemm.h: the models' matrix products, out (+)= a b: an AVX-512 kernel split over the caller's threads, the
 * browser's kernel with the same arithmetic, or OpenBLAS.
 *
 * A product is a wl_gemm_op with named fields. Each operand is a row-major matrix with its leading dimension, or is
 * stored transposed (its _t flag): a(i,k) = a[i*ld_a + k], or a[k*ld_a + i] when a_t; b(k,j) = b[k*ld_b + j], or
 * b[j*ld_b + k] when b_t; out(i,j) = out[i*ld_out + j], or out[j*ld_out + i] when out_t.
 * With a kernel (AVX-512 natively, relaxed SIMD's fused multiply-add in the browser) every element of out is one
 * chain of fused multiply-adds over k in increasing order, starting at 0, its row bias or out: the same bits on
 * either kernel, whatever the thread count or shape (a single row or column included). Without one (CPUs without
 * AVX-512, browsers whose multiply-add is not fused) results follow OpenBLAS or the portable CBLAS subset. */
#ifndef WL_GEMM_H
#define WL_GEMM_H

#include <stddef.h>

#include "wl_pool.h"

typedef struct wl_gemm_op {
    int m, n, k;              /* out [m,n] = a [m,k] b [k,n]; k >= 1 */
    float *out;
    int ld_out, out_t;
    const float *a;
    int ld_a, a_t;
    const float *b;
    int ld_b, b_t;
    const float *row_bias;    /* [m] or NULL: out(i,j) starts at row_bias[i] instead of 0 */
    int accumulate;           /* out += a b instead (row_bias unused) */
} wl_gemm_op;

/* The product: on the AVX-512 kernel (split over par's threads when it is big enough; par may be NULL), on the
 * WebAssembly kernel, or on OpenBLAS (sgemv for a single row or column). */
void wl_gemm(const wl_par *par, const wl_gemm_op *op);

/* 1 when the AVX-512 kernel is in use (the CPU has AVX-512F). */
int wl_gemm_has_kernel(void);

#endif

/* wl_gemm.h: the models' matrix products, out (+)= a b: an AVX-512 kernel split over the caller's threads, or OpenBLAS.
 *
 * A product is a wl_gemm_op with named fields. Each operand is a row-major matrix with its leading dimension, or is
 * stored transposed (its _t flag): a(i,k) = a[i*ld_a + k], or a[k*ld_a + i] when a_t; b(k,j) = b[k*ld_b + j], or
 * b[j*ld_b + k] when b_t; out(i,j) = out[i*ld_out + j], or out[j*ld_out + i] when out_t.
 * With the AVX-512 kernel every element of out is one fixed-order sum whatever the thread count; with OpenBLAS
 * (CPUs without AVX-512, a single row or column, wl_gemm_blas) results follow OpenBLAS. Either way the same inputs
 * give the same bits. */
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

/* The product on the AVX-512 kernel (split over par's threads; par may be NULL), else wl_gemm_blas(op, 1,
 * WL_GEMV_ROW | WL_GEMV_COL). A single row or column (m = 1 or n = 1) always goes to OpenBLAS sgemv. */
void wl_gemm(const wl_par *par, const wl_gemm_op *op);

/* Which products of one row (m = 1) or one column (n = 1) wl_gemm_blas computes with sgemv instead of sgemm: the two
 * round differently, so each caller keeps the choice its results were made with. */
enum { WL_GEMV_ROW = 1, WL_GEMV_COL = 2 };

/* The product on OpenBLAS alone, scaled: out = scale a b (+ row_bias, or + out with accumulate). */
void wl_gemm_blas(const wl_gemm_op *op, float scale, int gemv);

/* 1 when the AVX-512 kernel is in use (the CPU has AVX-512F). */
int wl_gemm_has_kernel(void);

#endif

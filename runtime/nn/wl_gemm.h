/* wl_gemm.h: the models' big matrix products: an AVX-512 kernel split over the caller's threads, else OpenBLAS.
 *
 * C (+)= A B with A read through strides, A(i,k) = A[i*rsa + k*csa] (one of rsa, csa is 1), B row-major
 * B(k,j) = B[k*ldb + j] or, when tb, stored transposed B(k,j) = B[j*ldb + k], and C row-major C(i,j) = C[i*ldc + j] or, when ct, stored transposed C[j*ldc + i].
 * With the AVX-512 kernel every element of C is one fixed-order sum whatever the thread count; with the OpenBLAS
 * fallback (CPUs without AVX-512) results follow OpenBLAS. Either way the same inputs give the same bits. */
#ifndef WL_GEMM_H
#define WL_GEMM_H

#include <stddef.h>

#include "wl_pool.h"

/* C[M,N] = rbias + A B (accumulate 0; rbias [M] may be NULL: C(i,j) starts at rbias[i] or 0) or C += A B.
 * K >= 1. A single row or column (M = 1 or N = 1) goes to OpenBLAS sgemv. */
void wl_gemm(const wl_par *par, float *C, int ldc, int ct, const float *A, size_t rsa, size_t csa, const float *B,
             int ldb, int tb, const float *rbias, int accumulate, int M, int N, int K);

/* 1 when the AVX-512 kernel is in use (the CPU has AVX-512F). */
int wl_gemm_has_kernel(void);

#endif

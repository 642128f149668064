/* cblas.h (portable build): the part of OpenBLAS's CBLAS interface that the runtime calls, for builds without
 * OpenBLAS (WebAssembly), implemented by wl_cblas.c beside it. With this directory first on the include path, the
 * runtime's own files (wl_gemm.c, wl_layers.c, wl_model.c) build unchanged. Row-major only. */
#ifndef WL_PORTABLE_CBLAS_H
#define WL_PORTABLE_CBLAS_H

enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112 };

/* C[M,N] = alpha op(A)[M,K] op(B)[K,N] + beta C (beta 0: C is not read). */
void cblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int M, int N, int K,
                 float alpha, const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);

/* y = alpha op(A) x + beta y, A [M,N] (beta 0: y is not read). */
void cblas_sgemv(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE t, int M, int N, float alpha, const float *A, int lda,
                 const float *x, int incx, float beta, float *y, int incy);

/* 1: the portable code runs on the calling thread. */
int openblas_get_num_threads(void);
/* What computes the products here (wl_compare records it as OpenBLAS's configuration). */
const char *openblas_get_config(void);

#endif

/* wl_gemm.c: C (+)= A B for the models' products: a 12x32 AVX-512 kernel over packed panels of B (a 16-wide one for a
 * single row or column), the WebAssembly kernel with the same arithmetic, or OpenBLAS where neither runs.
 *
 * Work is split by panels of 32 columns of C (or, when there are few, by rows): each part packs its panels of B
 * (KC rows at a time, 32 KiB; B may be stored transposed, the packing reads it either way) and sweeps its rows of
 * A over them, in chunks of MCB blocks of 12 rows, with 24 accumulators in registers.
 * Each C element is the sum over k in increasing order (one fused multiply-add chain per K block, blocks
 * added in order), so the split does not change the result. */
#include "wl_gemm.h"
#include "wl_relaxed.h"

#include <cblas.h>
#include <stdlib.h>

#define MR 12    /* rows of C per kernel call */
#define NR 32    /* columns per panel: two 16-float vectors */
#define KC 256   /* rows of B per packed block */
#define MCB 44   /* row blocks per chunk: A's chunk [528, KC] is 528 KiB, within a 1 MiB L2 */

/* WL_GEMM_NO_KERNEL: OpenBLAS alone (the portable CBLAS's native test builds this file so) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(WL_GEMM_NO_KERNEL)
#include <immintrin.h>
#define WL_HAVE_AVX512_KERNEL 1
#endif

/* The kernel's view of a product: the op, with a(i,k) = a[i*rsa + k*csa]. */
typedef struct gemm_args {
    wl_gemm_op op;
    size_t rsa, csa;
} gemm_args;

#if defined(WL_HAVE_AVX512_KERNEL) || defined(__wasm_relaxed_simd__)
/* A product of one row or one column as J sums over k in increasing order, each one fused multiply-add chain:
 * out[j*so] = init_j + sum_k x[k*sx] y[k*syk + j*syj], init_j = out[j*so] (accumulate), bias[j*sbias] or 0. */
typedef struct thin_args {
    int J, K;
    float *out;
    size_t so;
    const float *x, *y, *bias;
    size_t sx, syk, syj, sbias;
    int accumulate;
} thin_args;

/* The op with m = 1 (j runs over out's columns) or n = 1 (over its rows) as a thin_args. */
static thin_args thin_of(const wl_gemm_op *op)
{
    const size_t la = (size_t)op->ld_a, lb = (size_t)op->ld_b, lo = (size_t)op->ld_out;
    const float *bias = op->accumulate ? NULL : op->row_bias;
    if (op->m == 1)   /* x = a(0,:), y(k,j) = b(k,j) */
        return (thin_args){op->n, op->k, op->out, op->out_t ? lo : 1, op->a, op->b, bias, op->a_t ? la : 1,
                           op->b_t ? 1 : lb, op->b_t ? lb : 1, 0, op->accumulate};
    /* x = b(:,0), y(k,j) = a(j,k): a(i,k) b(k,0) and b(k,0) a(i,k) round alike in a fused multiply-add */
    return (thin_args){op->m, op->k, op->out, op->out_t ? 1 : lo, op->b, op->a, bias, op->b_t ? 1 : lb,
                       op->a_t ? la : 1, op->a_t ? 1 : la, 1, op->accumulate};
}
#endif

#ifdef WL_HAVE_AVX512_KERNEL

/* Rows [i0, i0+mr) of panel columns [j0, j0+nr) over packed B block bp [kc][NR] and A at k = k0. */
__attribute__((target("avx512f"))) static void kernel(const gemm_args *g, const float *bp, int i0, int mr, int j0,
                                                        int nr, int k0, int kc)
{
    __m512 c[MR][2];
    const int first = k0 == 0 && !g->op.accumulate;
    const __mmask16 m0 = nr >= 16 ? 0xFFFF : (__mmask16)((1u << nr) - 1);
    const __mmask16 m1 = nr >= 32 ? 0xFFFF : nr <= 16 ? 0 : (__mmask16)((1u << (nr - 16)) - 1);
    /* transposed C: element (i, j0+l) lives at C[(j0+l)*ldc + i] */
    const __m512i step = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                            _mm512_set1_epi32(g->op.ld_out));
    for (int r = 0; r < mr; r++) {
        int i = i0 + r;
        if (first) {
            c[r][0] = c[r][1] = _mm512_set1_ps(g->op.row_bias ? g->op.row_bias[i] : 0.0f);
        } else if (!g->op.out_t) {
            const float *cr = g->op.out + (size_t)i * g->op.ld_out + j0;
            c[r][0] = _mm512_maskz_loadu_ps(m0, cr);
            c[r][1] = _mm512_maskz_loadu_ps(m1, cr + 16);
        } else {
            const float *cc = g->op.out + (size_t)j0 * g->op.ld_out + i;
            c[r][0] = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m0, step, cc, 4);
            c[r][1] = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m1, step, cc + (size_t)16 * g->op.ld_out, 4);
        }
    }
    const float *a = g->op.a + (size_t)i0 * g->rsa + (size_t)k0 * g->csa;
    const size_t rsa = g->rsa, csa = g->csa;
    if (mr == MR) {
        for (int k = 0; k < kc; k++) {
            __m512 b0 = _mm512_loadu_ps(bp + (size_t)k * NR), b1 = _mm512_loadu_ps(bp + (size_t)k * NR + 16);
            const float *ak = a + k * csa;
#define WL_ROW(r)                                                                                                    \
    {                                                                                                                \
        __m512 ar = _mm512_set1_ps(ak[(r) * rsa]);                                                                   \
        c[r][0] = _mm512_fmadd_ps(ar, b0, c[r][0]);                                                                  \
        c[r][1] = _mm512_fmadd_ps(ar, b1, c[r][1]);                                                                  \
    }
            WL_ROW(0) WL_ROW(1) WL_ROW(2) WL_ROW(3) WL_ROW(4) WL_ROW(5)
            WL_ROW(6) WL_ROW(7) WL_ROW(8) WL_ROW(9) WL_ROW(10) WL_ROW(11)
#undef WL_ROW
        }
    } else {
        for (int k = 0; k < kc; k++) {
            __m512 b0 = _mm512_loadu_ps(bp + (size_t)k * NR), b1 = _mm512_loadu_ps(bp + (size_t)k * NR + 16);
            const float *ak = a + k * csa;
            for (int r = 0; r < mr; r++) {
                __m512 ar = _mm512_set1_ps(ak[r * rsa]);
                c[r][0] = _mm512_fmadd_ps(ar, b0, c[r][0]);
                c[r][1] = _mm512_fmadd_ps(ar, b1, c[r][1]);
            }
        }
    }
    for (int r = 0; r < mr; r++) {
        int i = i0 + r;
        if (!g->op.out_t) {
            float *cr = g->op.out + (size_t)i * g->op.ld_out + j0;
            _mm512_mask_storeu_ps(cr, m0, c[r][0]);
            _mm512_mask_storeu_ps(cr + 16, m1, c[r][1]);
        } else {
            float *cc = g->op.out + (size_t)j0 * g->op.ld_out + i;
            _mm512_mask_i32scatter_ps(cc, m0, step, c[r][0], 4);
            _mm512_mask_i32scatter_ps(cc + (size_t)16 * g->op.ld_out, m1, step, c[r][1], 4);
        }
    }
}

/* Packs B(k0+k, j0+j) for k < kc, j < nr into bp[k][j], zero-padded to NR columns. */
__attribute__((target("avx512f"))) static void pack(const gemm_args *g, float *bp, int k0, int kc, int j0, int nr)
{
    const __mmask16 m0 = nr >= 16 ? 0xFFFF : (__mmask16)((1u << nr) - 1);
    const __mmask16 m1 = nr >= 32 ? 0xFFFF : nr <= 16 ? 0 : (__mmask16)((1u << (nr - 16)) - 1);
    if (g->op.b_t) {   /* B(k,j) = B[j*ldb + k]: read along each row j */
        for (int j = nr; j < NR; j++)
            for (int k = 0; k < kc; k++) bp[(size_t)k * NR + j] = 0.0f;
        for (int j = 0; j < nr; j++) {
            const float *src = g->op.b + (size_t)(j0 + j) * g->op.ld_b + k0;
            for (int k = 0; k < kc; k++) bp[(size_t)k * NR + j] = src[k];
        }
        return;
    }
    for (int k = 0; k < kc; k++) {
        const float *src = g->op.b + (size_t)(k0 + k) * g->op.ld_b + j0;
        _mm512_store_ps(bp + (size_t)k * NR, _mm512_maskz_loadu_ps(m0, src));
        _mm512_store_ps(bp + (size_t)k * NR + 16, _mm512_maskz_loadu_ps(m1, src + 16));
    }
}

/* Prefetches into L2 rows k0..k1-1 of B's panel at column j0, B read by rows (its one or two lines per row). */
static void prefetch_rows(const gemm_args *g, int k0, int k1, int j0)
{
    int two = g->op.n - j0 > 16;
    for (int k = k0; k < k1; k++) {
        const float *src = g->op.b + (size_t)k * g->op.ld_b + j0;
        __builtin_prefetch(src, 0, 2);
        if (two) __builtin_prefetch(src + 16, 0, 2);
    }
}

/* One part's share: with few panels, a range of 12-row blocks over every panel; otherwise every row over panels
 * p = part, part + nparts, ... (interleaved so that parts get equal work). K blocks are outermost, then chunks of
 * MCB row blocks, so that A's chunk [MCB*MR, KC] stays in L2; each packed panel stays in L1 while the chunk's
 * row blocks sweep over it. With more than one chunk the part's packed panels of the K block are kept (on the
 * heap; packed again per chunk if that allocation fails). */
__attribute__((target("avx512f"))) static void gemm_part(void *arg, int part, int nparts)
{
    const gemm_args *g = arg;
    float bp[KC * NR] __attribute__((aligned(64)));
    int npanels = (g->op.n + NR - 1) / NR, by_rows = npanels < 2 * nparts;
    int nblocks = (g->op.m + MR - 1) / MR;
    int b0 = by_rows ? (int)((long)nblocks * part / nparts) : 0;
    int b1 = by_rows ? (int)((long)nblocks * (part + 1) / nparts) : nblocks;
    int p0 = by_rows ? 0 : part, dp = by_rows ? 1 : nparts, mine = (npanels - p0 + dp - 1) / dp;
    float *kept = NULL;
    if (b1 - b0 > MCB && mine > 1) kept = aligned_alloc(64, sizeof(float) * KC * NR * (size_t)mine);
    for (int k0 = 0; k0 < g->op.k; k0 += KC) {
        int kc = g->op.k - k0 < KC ? g->op.k - k0 : KC;
        for (int c0 = b0; c0 < b1; c0 += MCB) {
            int c1 = b1 - c0 < MCB ? b1 : c0 + MCB;
            for (int q = 0; q < mine; q++) {
                int j0 = (p0 + q * dp) * NR, nr = g->op.n - j0 < NR ? g->op.n - j0 : NR;
                float *panel = kept ? kept + (size_t)q * KC * NR : bp;
                int packs = !kept || c0 == b0;
                if (packs) pack(g, panel, k0, kc, j0, nr);
                /* the next panel's rows of B, when it is packed next and read by rows: in L2 by then */
                int jn = j0 + dp * NR, pf = packs && !g->op.b_t && q + 1 < mine;
                for (int blk = c0; blk < c1; blk++) {
                    int i0 = blk * MR;
                    if (pf) prefetch_rows(g, k0 + (int)((long)kc * (blk - c0) / (c1 - c0)),
                                          k0 + (int)((long)kc * (blk - c0 + 1) / (c1 - c0)), jn);
                    kernel(g, panel, i0, g->op.m - i0 < MR ? g->op.m - i0 : MR, j0, nr, k0, kc);
                }
            }
        }
    }
    free(kept);
}

/* r [16][16] transposed in place: r[k] lane l becomes r[l] lane k. */
__attribute__((target("avx512f"))) static inline void transpose16(__m512 r[16])
{
    __m512 t[16];
    for (int i = 0; i < 16; i += 2) {   /* pairs of rows interleaved */
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {   /* 4x4 blocks within each 128-bit lane */
        r[i] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
        r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
        r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
        r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int h = 0; h < 16; h += 8)   /* then the 128-bit lanes themselves, in two steps */
        for (int i = 0; i < 4; i++) {
            t[h + i] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0x88);
            t[h + i + 4] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0xdd);
        }
    for (int i = 0; i < 8; i++) {
        r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
        r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
    }
}

/* One part's share of a single row or column, 16 sums at a time: y read by rows of k (syj = 1) or, where each sum's
 * y is a row (syk = 1, as thin_of gives whenever syj > 1), 16 of those rows 16 k at a time, transposed in registers;
 * the next 16 rows are prefetched meanwhile. */
__attribute__((target("avx512f"))) static void thin_part(void *arg, int part, int nparts)
{
    const thin_args *t = arg;
    const __m512i oi = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                          _mm512_set1_epi32((int)t->so));
    const int nblocks = (t->J + 15) / 16;   /* this part's share: blocks [b0, b1) of 16 sums */
    const int b0 = (int)((long)nblocks * part / nparts), b1 = (int)((long)nblocks * (part + 1) / nparts);
    for (int j0 = b0 * 16; j0 < b1 * 16; j0 += 16) {
        const int nr = t->J - j0 < 16 ? t->J - j0 : 16;
        const __mmask16 m = nr == 16 ? 0xFFFF : (__mmask16)((1u << nr) - 1);
        float *out = t->out + (size_t)j0 * t->so;
        const float *y = t->y + (size_t)j0 * t->syj;
        __m512 c = _mm512_setzero_ps();
        if (t->accumulate)
            c = t->so == 1 ? _mm512_maskz_loadu_ps(m, out) : _mm512_mask_i32gather_ps(c, m, oi, out, 4);
        else if (t->bias)
            c = t->sbias ? _mm512_maskz_loadu_ps(m, t->bias + j0) : _mm512_set1_ps(t->bias[0]);
        if (t->syj == 1) {
            for (int k = 0; k < t->K; k++)
                c = _mm512_fmadd_ps(_mm512_set1_ps(t->x[(size_t)k * t->sx]),
                                    _mm512_maskz_loadu_ps(m, y + (size_t)k * t->syk), c);
        } else {
            for (int k0 = 0; k0 < t->K; k0 += 16) {
                const int kr = t->K - k0 < 16 ? t->K - k0 : 16;
                const __mmask16 mk = kr == 16 ? 0xFFFF : (__mmask16)((1u << kr) - 1);
                __m512 r[16];
                for (int l = 0; l < 16; l++) {
                    r[l] = l < nr ? _mm512_maskz_loadu_ps(mk, y + (size_t)l * t->syj + k0) : _mm512_setzero_ps();
                    if (j0 + 16 + l < t->J) __builtin_prefetch(y + (size_t)(16 + l) * t->syj + k0, 0, 3);
                }
                transpose16(r);
                for (int k = 0; k < kr; k++)
                    c = _mm512_fmadd_ps(_mm512_set1_ps(t->x[(size_t)(k0 + k) * t->sx]), r[k], c);
            }
        }
        if (t->so == 1)
            _mm512_mask_storeu_ps(out, m, c);
        else
            _mm512_mask_i32scatter_ps(out, m, oi, c, 4);
    }
}

int wl_gemm_has_kernel(void)
{
    return __builtin_cpu_supports("avx512f") ? 1 : 0;
}

#elif defined(__wasm_relaxed_simd__)

/* WebAssembly with relaxed SIMD: the browser kernel's build for engines whose f32x4.relaxed_madd is fused (its
 * worker checks that before it loads this build; lite/relaxed-simd.mjs gives the instruction its standard
 * encoding, a*b + c of the operands in the builtin's order). The AVX-512 kernel's arithmetic, so the same bits as
 * the native kernel: C(i,j) starts at the row bias, 0 or C and takes one fused multiply-add per k in increasing
 * order. Panels of WC columns of B are packed [K][WC] (zero-padded); each sweeps the rows WR at a time. */
#include <string.h>

#define WR 4   /* rows of C per step */
#define WC 8   /* columns per panel: two 4-float vectors */
typedef float wl_v4 __attribute__((vector_size(16)));

static inline wl_v4 ld4(const float *p)
{
    wl_v4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline float *at(const gemm_args *g, int i, int j)
{
    return g->op.out_t ? g->op.out + (size_t)j * g->op.ld_out + i : g->op.out + (size_t)i * g->op.ld_out + j;
}

/* Columns [j0, j0+nr) of C over B packed bp [K][WC]: rows WR at a time, their 2 WR accumulators in registers. */
static void panel(const gemm_args *g, const float *bp, int j0, int nr)
{
    for (int i0 = 0; i0 < g->op.m; i0 += WR) {
        int mr = g->op.m - i0 < WR ? g->op.m - i0 : WR;
        float init[WR][WC];   /* rows past M repeat the last one (computed, not stored) */
        const float *a[WR];
        for (int r = 0; r < WR; r++) {
            int i = i0 + (r < mr ? r : mr - 1);
            a[r] = g->op.a + (size_t)i * g->rsa;
            for (int l = 0; l < WC; l++)
                init[r][l] = l >= nr ? 0.0f : g->op.accumulate ? *at(g, i, j0 + l) : g->op.row_bias ? g->op.row_bias[i] : 0.0f;
        }
        wl_v4 c00 = ld4(init[0]), c01 = ld4(init[0] + 4), c10 = ld4(init[1]), c11 = ld4(init[1] + 4);
        wl_v4 c20 = ld4(init[2]), c21 = ld4(init[2] + 4), c30 = ld4(init[3]), c31 = ld4(init[3] + 4);
        const float *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3];
        const size_t csa = g->csa;
        for (int k = 0; k < g->op.k; k++) {
            wl_v4 b0 = ld4(bp + (size_t)k * WC), b1 = ld4(bp + (size_t)k * WC + 4);
            size_t o = (size_t)k * csa;
            wl_v4 x0 = {a0[o], a0[o], a0[o], a0[o]}, x1 = {a1[o], a1[o], a1[o], a1[o]};
            wl_v4 x2 = {a2[o], a2[o], a2[o], a2[o]}, x3 = {a3[o], a3[o], a3[o], a3[o]};
            c00 = wl_wasm_madd_f32x4(x0, b0, c00);
            c01 = wl_wasm_madd_f32x4(x0, b1, c01);
            c10 = wl_wasm_madd_f32x4(x1, b0, c10);
            c11 = wl_wasm_madd_f32x4(x1, b1, c11);
            c20 = wl_wasm_madd_f32x4(x2, b0, c20);
            c21 = wl_wasm_madd_f32x4(x2, b1, c21);
            c30 = wl_wasm_madd_f32x4(x3, b0, c30);
            c31 = wl_wasm_madd_f32x4(x3, b1, c31);
        }
        wl_v4 out[WR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}};
        memcpy(init, out, sizeof init);
        for (int r = 0; r < mr; r++)
            for (int l = 0; l < nr; l++) *at(g, i0 + r, j0 + l) = init[r][l];
    }
}

/* A single row or column, 4 sums at a time: y read by rows of k (syj = 1) or, where each sum's y is a row (syk = 1,
 * as thin_of gives whenever syj > 1), 4 of those rows 4 k at a time, transposed in registers. */
static void thin(const thin_args *t)
{
    for (int j0 = 0; j0 < t->J; j0 += 4) {
        const int nr = t->J - j0 < 4 ? t->J - j0 : 4;
        float init[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int l = 0; l < nr; l++)
            init[l] = t->accumulate ? t->out[(size_t)(j0 + l) * t->so]
                      : t->bias     ? t->bias[(size_t)(j0 + l) * t->sbias]
                                    : 0.0f;
        wl_v4 c = ld4(init);
        const float *y = t->y + (size_t)j0 * t->syj;
        size_t o[4];   /* a short last step repeats its last sum (computed, not stored) */
        for (int l = 0; l < 4; l++) o[l] = (size_t)(l < nr ? l : nr - 1) * t->syj;
        const int rows = t->syj == 1 && nr == 4;   /* y(k, j0..j0+3) is one vector */
        int k = 0;
        if (t->syj != 1)
            for (; k + 4 <= t->K; k += 4) {
                wl_v4 r0 = ld4(y + o[0] + k), r1 = ld4(y + o[1] + k), r2 = ld4(y + o[2] + k), r3 = ld4(y + o[3] + k);
                wl_v4 t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5);   /* rows 0 and 1 interleaved, k0 and k1 */
                wl_v4 t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
                wl_v4 t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5);
                wl_v4 t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
                wl_v4 y0 = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);   /* y(k, j0..j0+3) */
                wl_v4 y1 = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
                wl_v4 y2 = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
                wl_v4 y3 = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
                const float *xk = t->x + (size_t)k * t->sx;
                const float x0 = xk[0], x1 = xk[t->sx], x2 = xk[2 * t->sx], x3 = xk[3 * t->sx];
                c = wl_wasm_madd_f32x4((wl_v4){x0, x0, x0, x0}, y0, c);
                c = wl_wasm_madd_f32x4((wl_v4){x1, x1, x1, x1}, y1, c);
                c = wl_wasm_madd_f32x4((wl_v4){x2, x2, x2, x2}, y2, c);
                c = wl_wasm_madd_f32x4((wl_v4){x3, x3, x3, x3}, y3, c);
            }
        for (; k < t->K; k++) {
            const float *yk = y + (size_t)k * t->syk, xk = t->x[(size_t)k * t->sx];
            wl_v4 yv = rows ? ld4(yk) : (wl_v4){yk[o[0]], yk[o[1]], yk[o[2]], yk[o[3]]}, xv = {xk, xk, xk, xk};
            c = wl_wasm_madd_f32x4(xv, yv, c);
        }
        memcpy(init, &c, sizeof init);
        for (int l = 0; l < nr; l++) t->out[(size_t)(j0 + l) * t->so] = init[l];
    }
}

/* Every panel of C, B packed into bp [K][WC]. */
static void gemm_wasm(const gemm_args *g, float *bp)
{
    for (int j0 = 0; j0 < g->op.n; j0 += WC) {
        int nr = g->op.n - j0 < WC ? g->op.n - j0 : WC;
        for (int k = 0; k < g->op.k; k++)
            for (int l = 0; l < WC; l++)
                bp[(size_t)k * WC + l] = l >= nr  ? 0.0f
                                         : g->op.b_t ? g->op.b[(size_t)(j0 + l) * g->op.ld_b + k]
                                                 : g->op.b[(size_t)k * g->op.ld_b + j0 + l];
        panel(g, bp, j0, nr);
    }
}

int wl_gemm_has_kernel(void)
{
    return 1;
}

#else

int wl_gemm_has_kernel(void)
{
    return 0;
}

#endif

/* The product on OpenBLAS (the portable CBLAS subset in the browser's build without relaxed SIMD): sgemv for a
 * single row or column, else sgemm. */
static void gemm_blas(const wl_gemm_op *op)
{
    const int M = op->m, N = op->n, K = op->k, lda = op->ld_a, ldb = op->ld_b, ldc = op->ld_out;
    const int ta = op->a_t, tb = op->b_t, ct = op->out_t;
    float *C = op->out;
    float beta = op->accumulate ? 1.0f : 0.0f;
    if (!op->accumulate && op->row_bias) {   /* out starts at the row bias */
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) C[ct ? (size_t)j * ldc + i : (size_t)i * ldc + j] = op->row_bias[i];
        beta = 1.0f;
    }
    if (M == 1)   /* one row: out = op(b)^T a */
        cblas_sgemv(CblasRowMajor, tb ? CblasNoTrans : CblasTrans, tb ? N : K, tb ? K : N, 1.0f, op->b, ldb, op->a,
                    ta ? lda : 1, beta, C, ct ? ldc : 1);
    else if (N == 1)   /* one column: out = op(a) b */
        cblas_sgemv(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, ta ? K : M, ta ? M : K, 1.0f, op->a, lda, op->b,
                    tb ? 1 : ldb, beta, C, ct ? 1 : ldc);
    else if (!ct)   /* out = a b */
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, 1.0f,
                    op->a, lda, op->b, ldb, beta, C, ldc);
    else   /* out^T = b^T a^T */
        cblas_sgemm(CblasRowMajor, tb ? CblasNoTrans : CblasTrans, ta ? CblasNoTrans : CblasTrans, N, M, K, 1.0f,
                    op->b, ldb, op->a, lda, beta, C, ldc);
}

void wl_gemm(const wl_par *par, const wl_gemm_op *op)
{
    if (op->m <= 0 || op->n <= 0) return;
#ifdef WL_HAVE_AVX512_KERNEL
    if (wl_gemm_has_kernel()) {
        gemm_args g = {*op, op->a_t ? 1 : (size_t)op->ld_a, op->a_t ? (size_t)op->ld_a : 1};
        if (op->m == 1 || op->n == 1) {
            thin_args t = thin_of(op);
            /* a single row or column reads each element of its matrix once: threads from 2^18 multiply-adds */
            if (par && par->nparts > 1 && t.J > 16 && (double)t.J * t.K >= (double)(1 << 18))
                par->run(par->ctx, thin_part, &t);
            else
                thin_part(&t, 0, 1);
        } else if (par && par->nparts > 1 && (op->n > NR || op->m > MR) &&
                   (double)op->m * op->n * op->k >= (double)(1 << 21))
            /* threads only for work worth waking them for (about 2 M multiply-adds, tens of microseconds) */
            par->run(par->ctx, gemm_part, &g);
        else
            gemm_part(&g, 0, 1);
        return;
    }
#elif defined(__wasm_relaxed_simd__)
    (void)par;   /* one thread in the browser */
    if (op->m == 1 || op->n == 1) {
        thin_args t = thin_of(op);
        thin(&t);
        return;
    }
    float *bp = malloc(sizeof(float) * WC * (size_t)op->k);
    if (bp) {
        gemm_args g = {*op, op->a_t ? 1 : (size_t)op->ld_a, op->a_t ? (size_t)op->ld_a : 1};
        gemm_wasm(&g, bp);
        free(bp);
        return;
    }
#else
    (void)par;   /* only the AVX-512 kernel splits work over threads */
#endif
    gemm_blas(op);
}

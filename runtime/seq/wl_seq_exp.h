/* wl_seq_exp.h: exp of four doubles at once, bit for bit as this process's libm computes exp (the lesson's numbers must match Python's).
 *
 * glibc (2.28 on) computes exp with a 128-entry table of 2^(k/128) and a degree-5 polynomial; on
 * CPUs with FMA and AVX2 it runs a build whose multiply-adds are fused. wl_seq_exp_init() computes
 * that table (wl_seq_exptab.c), takes the algorithm's constants, then checks the table path below
 * against libm's exp on thousands of arguments; only when every one agrees bit for bit is it used,
 * otherwise (another libm, another build) every lane goes to libm's exp. Lanes outside the table
 * path's range (|x| < 2^-54 or >= 512, inf, nan) go to libm too; exp(0) is exactly 1.
 *
 * The helpers take and return 32-byte vectors: a file that calls them outside an AVX build gets GCC's
 * -Wpsabi warning that such a call's ABI differs without AVX. They are always inlined, so no such call
 * exists; each calling file turns that warning off for itself. */
#ifndef WL_SEQ_EXP_H
#define WL_SEQ_EXP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "wl_relaxed.h"
#include "wl_seq_exptab.h"

/* Four lanes of doubles (and of 64-bit masks): each lane does exactly the scalar operations. Aligned to
 * their 32 bytes explicitly: without AVX enabled for the whole file GCC gives such types only 16-byte
 * alignment, while the x86-64-v3 clones load them with aligned 32-byte instructions. */
#define WL_SEQ_LANES 4
typedef double wl_seq_vd __attribute__((vector_size(8 * WL_SEQ_LANES), aligned(8 * WL_SEQ_LANES)));
typedef long long wl_seq_vm __attribute__((vector_size(8 * WL_SEQ_LANES), aligned(8 * WL_SEQ_LANES)));

/* Always inlined: their 32-byte vector arguments never cross a call. */
#define WL_SEQ_HOT static inline __attribute__((always_inline))

typedef struct wl_seq_expdata {
    double invln2n, negln2hin, negln2lon;   /* 128/ln2, -ln2/128 split in a high and a low part */
    double c2, c3, c4, c5;                  /* polynomial coefficients of exp(r) - 1 - r */
    double shift;                           /* 0x1.8p52: rounds to an integer */
    uint64_t tab[2 * WL_SEQ_EXP_N];         /* 2^(k/128) ~ asdouble(tab[2k+1] + (k << 45)) * (1 + asdouble(tab[2k])) */
} wl_seq_expdata;

/* NULL until wl_seq_exp_init() has verified the table path (and if it could not); pthread_once publishes it. */
extern const wl_seq_expdata *wl_seq_exp_fast;

/* Thread-safe, runs once; call before computing. */
void wl_seq_exp_init(void);

WL_SEQ_HOT wl_seq_vd wl_seq_splat(double v)
{
    wl_seq_vd r;
    for (int l = 0; l < WL_SEQ_LANES; l++) r[l] = v;
    return r;
}

#if defined(__wasm_relaxed_simd__)
/* WebAssembly with relaxed SIMD (the browser kernel's build for engines whose f64x2.relaxed_madd is fused, see
 * runtime/nn/wl_gemm.c): two fused multiply-adds of two lanes each (a*b + c in the builtin's operand order). */
typedef double wl_seq_v2 __attribute__((vector_size(16)));

WL_SEQ_HOT wl_seq_vd wl_seq_fma(wl_seq_vd a, wl_seq_vd b, wl_seq_vd c)
{
    wl_seq_v2 lo = wl_wasm_madd_f64x2(__builtin_shufflevector(a, a, 0, 1), __builtin_shufflevector(b, b, 0, 1),
                                      __builtin_shufflevector(c, c, 0, 1));
    wl_seq_v2 hi = wl_wasm_madd_f64x2(__builtin_shufflevector(a, a, 2, 3), __builtin_shufflevector(b, b, 2, 3),
                                      __builtin_shufflevector(c, c, 2, 3));
    return __builtin_shufflevector(lo, hi, 0, 1, 2, 3);
}
#else
#ifdef __wasm__
/* WebAssembly has no fused multiply-add and libm's fma() is integer code with calls; this gives the same bits
 * (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd",
 * IEEE Trans. Computers 57(4), 2008): a*b exactly as uh + ul (Veltkamp and Dekker), c + uh exactly as th + tl,
 * v = tl + ul rounded to odd, then th + v rounded to nearest. Exact while nothing overflows or underflows: an operand
 * outside [2^-300, 2^300] (other than 0) goes to libm. */
WL_SEQ_HOT int wl_seq_fma_tame(double x)
{
    double m = fabs(x);
    return (m >= 0x1p-300 && m <= 0x1p300) || x == 0;
}

WL_SEQ_HOT double wl_seq_fma1(double a, double b, double c)
{
    if (!(wl_seq_fma_tame(a) && wl_seq_fma_tame(b) && wl_seq_fma_tame(c))) return fma(a, b, c);
    double ga = 134217729.0 * a, gb = 134217729.0 * b;   /* 2^27 + 1 */
    double ah = ga - (ga - a), al = a - ah, bh = gb - (gb - b), bl = b - bh;
    double uh = a * b, ul = ((ah * bh - uh) + ah * bl + al * bh) + al * bl;
    double th = c + uh, tb = th - c, tl = (c - (th - tb)) + (uh - tb);
    double v = tl + ul, vb = v - tl, ve = (tl - (v - vb)) + (ul - vb);
    uint64_t vi;
    memcpy(&vi, &v, sizeof v);
    if (ve != 0 && !(vi & 1)) {   /* inexact and even: the odd neighbour towards the exact sum */
        vi += (ve > 0) == (v > 0) ? 1 : UINT64_MAX;
        memcpy(&v, &vi, sizeof v);
    }
    return th + v;
}
#endif

/* a*b + c rounded once, per lane (one instruction per vector where the CPU has FMA). */
WL_SEQ_HOT wl_seq_vd wl_seq_fma(wl_seq_vd a, wl_seq_vd b, wl_seq_vd c)
{
    wl_seq_vd r;
#ifdef __wasm__
    for (int l = 0; l < WL_SEQ_LANES; l++) r[l] = wl_seq_fma1(a[l], b[l], c[l]);
#else
    for (int l = 0; l < WL_SEQ_LANES; l++) r[l] = fma(a[l], b[l], c[l]);
#endif
    return r;
}
#endif

/* The table path, operation for operation as libm's FMA build: x = k ln2/128 + r, exp(x) = 2^(k/128) exp(r). */
WL_SEQ_HOT wl_seq_vd wl_seq_exp_table(const wl_seq_expdata *e, wl_seq_vd x)
{
    wl_seq_vd kd = wl_seq_fma(x, wl_seq_splat(e->invln2n), wl_seq_splat(e->shift));
    wl_seq_vm ki = (wl_seq_vm)kd, tail, scale;
    kd -= wl_seq_splat(e->shift);
    wl_seq_vd r = wl_seq_fma(kd, wl_seq_splat(e->negln2hin), x);
    r = wl_seq_fma(kd, wl_seq_splat(e->negln2lon), r);
    for (int l = 0; l < WL_SEQ_LANES; l++) {
        uint64_t idx = 2 * ((uint64_t)ki[l] % WL_SEQ_EXP_N);
        tail[l] = (long long)e->tab[idx];
        scale[l] = (long long)(e->tab[idx + 1] + ((uint64_t)ki[l] << 45));
    }
    wl_seq_vd r2 = r * r;
    wl_seq_vd tmp = wl_seq_fma(wl_seq_fma(r, wl_seq_splat(e->c3), wl_seq_splat(e->c2)), r2, r + (wl_seq_vd)tail);
    tmp = wl_seq_fma(r2 * r2, wl_seq_fma(r, wl_seq_splat(e->c5), wl_seq_splat(e->c4)), tmp);
    return wl_seq_fma((wl_seq_vd)scale, tmp, (wl_seq_vd)scale);
}

/* Lanes that are 0 or in the table path's range 2^-54 <= |x| < 512 (exponent field 969..1031). */
WL_SEQ_HOT wl_seq_vm wl_seq_exp_tableable(wl_seq_vd x)
{
    wl_seq_vm top = ((wl_seq_vm)x >> 52) & 0x7ff;
    return ((top >= 969) & (top < 1032)) | (wl_seq_vm)(x == wl_seq_splat(0.0));
}

/* exp of every lane, as libm's exp gives it. */
WL_SEQ_HOT wl_seq_vd wl_seq_exp(wl_seq_vd x)
{
    const wl_seq_expdata *e = wl_seq_exp_fast;
    wl_seq_vm ok = wl_seq_exp_tableable(x), zero = (wl_seq_vm)(x == wl_seq_splat(0.0));
    if (e && (ok[0] & ok[1] & ok[2] & ok[3])) {
        wl_seq_vd out = wl_seq_exp_table(e, x);
        return (wl_seq_vd)((zero & (wl_seq_vm)wl_seq_splat(1.0)) | (~zero & (wl_seq_vm)out));
    }
    /* Assembled from scalars in registers: storing lanes one by one would stall the vector load after. */
    double e0 = exp(x[0]), e1 = exp(x[1]), e2 = exp(x[2]), e3 = exp(x[3]);
    return (wl_seq_vd){e0, e1, e2, e3};
}

#endif

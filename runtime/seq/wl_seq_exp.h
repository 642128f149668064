/* wl_seq_exp.h: exp(x) inline and bit for bit as this process's libm computes it (the lesson's numbers must match Python's).
 *
 * glibc (2.28 on) computes exp with a 128-entry table of 2^(k/128) and a degree-5 polynomial; on
 * CPUs with FMA and AVX2 it runs a build whose multiply-adds are fused. wl_seq_exp_init() finds
 * that table and its constants in libm's read-only memory, then checks wl_seq_exp() against
 * libm's exp on thousands of arguments; only when every one agrees bit for bit is the inline
 * path used, otherwise (another libm, another build) every call goes to libm's exp. Arguments
 * outside the table path's range (|x| < 2^-54 or >= 512, inf, nan) always go to libm. */
#ifndef WL_SEQ_EXP_H
#define WL_SEQ_EXP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct wl_seq_expdata {
    double invln2n, negln2hin, negln2lon;   /* 128/ln2, -ln2/128 split in a high and a low part */
    double c2, c3, c4, c5;                  /* polynomial coefficients of exp(r) - 1 - r */
    double shift;                           /* 0x1.8p52: rounds to an integer */
    const uint64_t *tab;                    /* [2*128]: 2^(k/128) ~ asdouble(tab[2k+1] + (k << 45)) * (1 + asdouble(tab[2k])) */
} wl_seq_expdata;

/* NULL until wl_seq_exp_init() has verified the inline path (and if it could not); pthread_once publishes it. */
extern const wl_seq_expdata *wl_seq_exp_fast;

/* Thread-safe, runs once; call before computing. */
void wl_seq_exp_init(void);

static inline double wl_seq_exp_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* The table path, operation for operation as libm's FMA build: x = k ln2/128 + r, exp(x) = 2^(k/128) exp(r). */
static inline double wl_seq_exp_table(const wl_seq_expdata *e, double x)
{
    double kd = fma(x, e->invln2n, e->shift);
    uint64_t ki;
    memcpy(&ki, &kd, sizeof ki);
    kd -= e->shift;
    double r = fma(kd, e->negln2hin, x);
    r = fma(kd, e->negln2lon, r);
    uint64_t idx = 2 * (ki % 128);
    double tail = wl_seq_exp_bits(e->tab[idx]);
    double scale = wl_seq_exp_bits(e->tab[idx + 1] + (ki << 45));
    double r2 = r * r;
    double tmp = fma(fma(r, e->c3, e->c2), r2, r + tail);
    tmp = fma(r2 * r2, fma(r, e->c5, e->c4), tmp);
    return fma(scale, tmp, scale);
}

static inline int wl_seq_exp_in_table_range(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return ((u >> 52) & 0x7ff) - 969u < 63u;   /* 2^-54 <= |x| < 512 */
}

static inline double wl_seq_exp(double x)
{
    const wl_seq_expdata *e = wl_seq_exp_fast;
    if (e && wl_seq_exp_in_table_range(x)) return wl_seq_exp_table(e, x);
    return exp(x);
}

#endif

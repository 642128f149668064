/* wl_seq_exptab.c: the table of glibc's exp, 2^(k/128) as a double and a correction, computed exactly in fixed point. */
#include "wl_seq_exptab.h"

#include <math.h>
#include <string.h>

/* An unsigned fixed-point number: w[3] is the integer part, w[2], w[1], w[0] the 192 bits of the fraction
 * (w[2] the highest). Every operation truncates, losing at most 2^-192 each: ln 2 and 2^(1/128) come out
 * right to about 2^-184, its 127 powers to about 2^-176, where the table needs about 2^-110 (T[k] is below
 * 2^-53 and is rounded to 53 bits of its own). */
#define FX_WORDS 4
#define FX_FRAC 192
typedef struct fx {
    uint64_t w[FX_WORDS];
} fx;
typedef unsigned __int128 fx_wide;

static fx fx_add(fx a, const fx *b)
{
    fx_wide carry = 0;
    for (int i = 0; i < FX_WORDS; i++) {
        fx_wide t = (fx_wide)a.w[i] + b->w[i] + carry;
        a.w[i] = (uint64_t)t;
        carry = t >> 64;
    }
    return a;
}

/* a - b for a >= b. */
static fx fx_sub(fx a, const fx *b)
{
    uint64_t borrow = 0;
    for (int i = 0; i < FX_WORDS; i++) {
        fx_wide t = (fx_wide)a.w[i] - b->w[i] - borrow;
        a.w[i] = (uint64_t)t;
        borrow = (uint64_t)(t >> 64) & 1;
    }
    return a;
}

static int fx_cmp(const fx *a, const fx *b)
{
    for (int i = FX_WORDS - 1; i >= 0; i--)
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

static int fx_is_zero(const fx *a)
{
    static const fx zero;
    return fx_cmp(a, &zero) == 0;
}

/* a * b, the product's fraction truncated to 192 bits (its integer part must fit in 64). */
static fx fx_mul(const fx *a, const fx *b)
{
    uint64_t p[2 * FX_WORDS] = {0};
    for (int i = 0; i < FX_WORDS; i++) {
        fx_wide carry = 0;
        for (int j = 0; j < FX_WORDS; j++) {
            fx_wide t = (fx_wide)a->w[i] * b->w[j] + p[i + j] + carry;
            p[i + j] = (uint64_t)t;
            carry = t >> 64;
        }
        p[i + FX_WORDS] = (uint64_t)carry;
    }
    fx r;
    memcpy(r.w, p + FX_FRAC / 64, sizeof r.w);
    return r;
}

static fx fx_mul_small(fx a, uint64_t m)
{
    fx_wide carry = 0;
    for (int i = 0; i < FX_WORDS; i++) {
        fx_wide t = (fx_wide)a.w[i] * m + carry;
        a.w[i] = (uint64_t)t;
        carry = t >> 64;
    }
    return a;
}

/* a / d truncated; *rem (when not NULL) is whether anything was left over. */
static fx fx_div_small(fx a, uint64_t d, int *rem)
{
    fx_wide r = 0;
    for (int i = FX_WORDS - 1; i >= 0; i--) {
        fx_wide t = (r << 64) | a.w[i];
        a.w[i] = (uint64_t)(t / d);
        r = t % d;
    }
    if (rem) *rem = r != 0;
    return a;
}

/* 2^-n for 0 <= n <= 192. */
static fx fx_pow2_neg(int n)
{
    fx r = {{0}};
    int bit = FX_FRAC - n;
    r.w[bit / 64] = (uint64_t)1 << (bit % 64);
    return r;
}

/* a rounded to the nearest double, ties to even; sticky: a nonzero part below a's last bit was cut off. */
static double fx_to_double(const fx *a, int sticky)
{
    int top = -1;
    for (int i = FX_WORDS - 1; i >= 0 && top < 0; i--)
        if (a->w[i]) top = i * 64 + 63 - __builtin_clzll(a->w[i]);
    if (top < 0) return 0.0;
    /* The 62 bits from the highest set one down, with everything below folded into the lowest: a 62-bit integer
     * converts to double with round to nearest even, and the folded bit sits below its rounding position. */
    int lo = top - 61;
    uint64_t v = 0;
    for (int b = 61; b >= 0; b--) {
        int bit = lo + b;
        if (bit >= 0) v |= ((a->w[bit / 64] >> (bit % 64)) & 1) << b;
    }
    for (int bit = 0; bit < lo; bit++) sticky |= (a->w[bit / 64] >> (bit % 64)) & 1;
    return ldexp((double)(int64_t)(v | (uint64_t)(sticky != 0)), lo - FX_FRAC);
}

/* ln 2 = sum over n >= 1 of 2^-n / n. */
static fx fx_ln2(void)
{
    fx s = {{0}};
    for (int n = 1; n <= FX_FRAC; n++) {
        fx t = fx_div_small(fx_pow2_neg(n), (uint64_t)n, NULL);
        s = fx_add(s, &t);
    }
    return s;
}

/* e^x = sum over n of x^n / n! for 0 <= x < 1. */
static fx fx_exp(const fx *x)
{
    fx sum = {{0, 0, 0, 1}}, term = sum;
    for (uint64_t n = 1; !fx_is_zero(&term); n++) {
        term = fx_div_small(fx_mul(&term, x), n, NULL);
        sum = fx_add(sum, &term);
    }
    return sum;
}

void wl_seq_exptab_build(uint64_t tab[2 * WL_SEQ_EXP_N])
{
    const fx ln2 = fx_ln2(), x = fx_div_small(ln2, WL_SEQ_EXP_N, NULL), step = fx_exp(&x);   /* 2^(1/128) */
    fx y = {{0, 0, 0, 1}};   /* 2^(k/128), in [1, 2) */
    for (int k = 0; k < WL_SEQ_EXP_N; k++, y = fx_mul(&y, &step)) {
        /* H: y to 53 bits, the 52 after the point rounded on the next one (no tie: y is irrational for k > 0,
         * exactly 1 for k = 0; and no carry into 2, y < 2^(127/128)). */
        uint64_t m = ((uint64_t)1 << 52) + (y.w[2] >> 12) + ((y.w[2] >> 11) & 1);
        fx h = {{0, 0, (m << 12), m >> 52}};
        /* T = (y - H) / H = |y - H| * 2^52 / m with the sign of y - H; |y - H| < 2^-53 leaves room for the shift. */
        int neg = fx_cmp(&y, &h) < 0;
        fx diff = neg ? fx_sub(h, &y) : fx_sub(y, &h);
        int rem;
        fx q = fx_div_small(fx_mul_small(diff, (uint64_t)1 << 52), m, &rem);
        double H = ldexp((double)m, -52), T = fx_to_double(&q, rem);
        if (neg) T = -T;
        uint64_t hbits, tbits;
        memcpy(&hbits, &H, sizeof hbits);
        memcpy(&tbits, &T, sizeof tbits);
        tab[2 * k] = tbits;
        tab[2 * k + 1] = hbits - ((uint64_t)k << 45);
    }
}

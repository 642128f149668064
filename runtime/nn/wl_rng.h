/* wl_rng.h: the runtime's seeded generator (SplitMix64) and the draws made from it: uniform, normal, below n. */
#ifndef WL_RNG_H
#define WL_RNG_H

#include <stdint.h>

/* SplitMix64: state += 0x9E3779B97F4A7C15, then the mix. */
typedef struct wl_rng {
    uint64_t state;
} wl_rng;
void wl_rng_seed(wl_rng *r, uint64_t seed);
uint64_t wl_rng_next(wl_rng *r);
/* Uniform in [0, 1) with 53 random bits: (next >> 11) * 2^-53. */
double wl_rng_uniform(wl_rng *r);
/* Standard normal by Box-Muller from two uniforms: u1 = 1 - uniform (so u1 > 0), then u2 = uniform;
 * returns sqrt(-2 ln u1) cos(2 pi u2) (the sine branch is not used). */
double wl_rng_normal(wl_rng *r);
/* Uniform in [0, n) without modulo bias (draws in the top partial block of n values are rejected); n > 0. */
uint64_t wl_rng_below(wl_rng *r, uint64_t n);

#endif

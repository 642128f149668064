/* wl_rng.c: the runtime's seeded generator (SplitMix64) and the draws made from it. */
#include "wl_rng.h"

#include <math.h>

void wl_rng_seed(wl_rng *r, uint64_t seed)
{
    r->state = seed;
}

uint64_t wl_rng_next(wl_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double wl_rng_uniform(wl_rng *r)
{
    return (double)(wl_rng_next(r) >> 11) * 0x1.0p-53;
}

double wl_rng_normal(wl_rng *r)
{
    double u1 = 1.0 - wl_rng_uniform(r);
    double u2 = wl_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

uint64_t wl_rng_below(wl_rng *r, uint64_t n)
{
    /* Reject the top partial block so every residue is equally likely. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = wl_rng_next(r); while (x >= limit);
    return x % n;
}

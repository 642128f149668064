/* wl_pyrand.h: CPython's random.Random in C (MT19937 seeded as random.seed(int) does, getrandbits,
 * _randbelow and sample over range(n)), so page offsets come out as the course's Python computes them. */
#ifndef WL_PYRAND_H
#define WL_PYRAND_H

#include "wl_core.h"

#include <stddef.h>
#include <stdint.h>

typedef struct wl_pyrand {
    uint32_t mt[624];
    int index;
} wl_pyrand;

/* random.Random(seed) for a non-negative integer seed (its 32-bit words, least significant first,
 * are the key of init_by_array). */
void wl_pyrand_seed(wl_pyrand *r, uint64_t seed);

/* The next 32-bit output of the generator (genrand_uint32). */
uint32_t wl_pyrand_u32(wl_pyrand *r);

/* random.getrandbits(k), k in 0..64. */
uint64_t wl_pyrand_getrandbits(wl_pyrand *r, int k);

/* random._randbelow(n) for n > 0: getrandbits(n.bit_length()) until it is below n. */
uint64_t wl_pyrand_below(wl_pyrand *r, uint64_t n);

/* random.sample(range(n), k) into out[k], in selection order (the same draws as CPython 3.11: the pool
 * method when n is at most the set-size estimate, else rejection of repeats). Fails when k > n. */
int wl_pyrand_sample(wl_pyrand *r, uint64_t n, size_t k, uint64_t *out, wl_err *err);

#endif

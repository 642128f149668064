/* wl_pyrand.c: CPython's Mersenne Twister (Modules/_randommodule.c) and random.sample (Lib/random.py). */
#include "wl_pyrand.h"

#include <math.h>
#include <stdlib.h>

#define MT_N 624
#define MT_M 397

static void init_genrand(wl_pyrand *r, uint32_t s)
{
    r->mt[0] = s;
    for (int i = 1; i < MT_N; i++) r->mt[i] = 1812433253U * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i;
    r->index = MT_N;
}

static void init_by_array(wl_pyrand *r, const uint32_t *key, size_t klen)
{
    uint32_t *mt = r->mt;
    init_genrand(r, 19650218U);
    size_t i = 1, j = 0;
    for (size_t k = MT_N > klen ? MT_N : klen; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++, j++;
        if (i >= MT_N) mt[0] = mt[MT_N - 1], i = 1;
        if (j >= klen) j = 0;
    }
    for (size_t k = MT_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_N) mt[0] = mt[MT_N - 1], i = 1;
    }
    mt[0] = 0x80000000U;
}

void wl_pyrand_seed(wl_pyrand *r, uint64_t seed)
{
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    init_by_array(r, key, key[1] ? 2 : 1);
}

uint32_t wl_pyrand_u32(wl_pyrand *r)
{
    static const uint32_t mag01[2] = {0, 0x9908b0dfU};
    uint32_t *mt = r->mt, y;
    if (r->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 1];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 1];
        }
        y = (mt[MT_N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 1];
        r->index = 0;
    }
    y = mt[r->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
}

uint64_t wl_pyrand_getrandbits(wl_pyrand *r, int k)
{
    if (k <= 0) return 0;
    if (k <= 32) return wl_pyrand_u32(r) >> (32 - k);
    uint64_t lo = wl_pyrand_u32(r);   /* the least significant word comes first */
    return lo | (uint64_t)(wl_pyrand_u32(r) >> (64 - (k > 64 ? 64 : k))) << 32;
}

uint64_t wl_pyrand_below(wl_pyrand *r, uint64_t n)
{
    int k = 0;
    while (k < 64 && n >> k) k++;   /* n.bit_length() */
    uint64_t x = wl_pyrand_getrandbits(r, k);
    while (x >= n) x = wl_pyrand_getrandbits(r, k);
    return x;
}

/* An open-addressing set of indices below n (stored as index + 1; 0 marks an empty slot). */
static int set_insert(uint64_t *slots, size_t mask, uint64_t v)
{
    size_t j = (size_t)((v * 0x9E3779B97F4A7C15ULL) >> 17) & mask;
    for (; slots[j]; j = (j + 1) & mask)
        if (slots[j] == v + 1) return 0;
    slots[j] = v + 1;
    return 1;
}

int wl_pyrand_sample(wl_pyrand *r, uint64_t n, size_t k, uint64_t *out, wl_err *err)
{
    if (k > n) return wl_fail(err, "a sample of %zu from %llu items is larger than the population", k, (unsigned long long)n);
    double setsize = 21;   /* size of a small set minus size of an empty list, as Lib/random.py estimates */
    if (k > 5) setsize += pow(4, ceil(log((double)(k * 3)) / log(4.0)));
    if ((double)n <= setsize) {
        uint64_t *pool = malloc((size_t)n * sizeof *pool + 1);
        if (!pool) return wl_fail(err, "out of memory sampling %zu of %llu", k, (unsigned long long)n);
        for (uint64_t i = 0; i < n; i++) pool[i] = i;
        for (size_t i = 0; i < k; i++) {
            uint64_t j = wl_pyrand_below(r, n - i);
            out[i] = pool[j];
            pool[j] = pool[n - i - 1];
        }
        free(pool);
        return 0;
    }
    size_t cap = 16;
    while (cap < 2 * k) cap *= 2;
    uint64_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return wl_fail(err, "out of memory sampling %zu of %llu", k, (unsigned long long)n);
    for (size_t i = 0; i < k; i++) {
        uint64_t j = wl_pyrand_below(r, n);
        while (!set_insert(slots, cap - 1, j)) j = wl_pyrand_below(r, n);
        out[i] = j;
    }
    free(slots);
    return 0;
}

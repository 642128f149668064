/* test_rng.c: the seeded generator: SplitMix64's published outputs, determinism, and its uniform, normal and below draws. */
#include <math.h>
#include <stdlib.h>

#include "wl_rng.h"
#include "wl_test.h"

/* The first outputs of SplitMix64 seeded with 0 (the reference implementation's). */
static void test_splitmix64(void)
{
    static const uint64_t want[] = {0xE220A8397B1DCDAFull, 0x6E789E6AA1B965F4ull, 0x06C45D188009454Full};
    wl_rng r;
    wl_rng_seed(&r, 0);
    for (int i = 0; i < 3; i++) {
        uint64_t got = wl_rng_next(&r);
        CHECK_MSG(got == want[i], "output %d: %016llx, want %016llx", i, (unsigned long long)got,
                  (unsigned long long)want[i]);
    }
}

static void test_draws(void)
{
    wl_rng a, b;
    wl_rng_seed(&a, 11);
    wl_rng_seed(&b, 11);
    int same = 1;
    for (int i = 0; i < 100; i++) same &= wl_rng_next(&a) == wl_rng_next(&b);
    CHECK(same);
    wl_rng_seed(&b, 12);
    CHECK(wl_rng_next(&a) != wl_rng_next(&b));

    /* Every value of a small range appears about equally often. */
    int counts[7] = {0};
    for (int i = 0; i < 70000; i++) {
        uint64_t k = wl_rng_below(&a, 7);
        CHECK(k < 7);
        if (k < 7) counts[k]++;
    }
    for (int k = 0; k < 7; k++) CHECK_MSG(abs(counts[k] - 10000) < 500, "value %d drawn %d times", k, counts[k]);

    double lo = 1, hi = 0, sum = 0;
    for (int i = 0; i < 10000; i++) {
        double u = wl_rng_uniform(&a);
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
        sum += u;
    }
    CHECK(lo >= 0 && hi < 1 && fabs(sum / 10000 - 0.5) < 0.02);

    /* uniform is the top 53 bits of next */
    wl_rng_seed(&a, 5);
    wl_rng_seed(&b, 5);
    CHECK(wl_rng_uniform(&a) == (double)(wl_rng_next(&b) >> 11) * 0x1.0p-53);

    double s1 = 0, s2 = 0;
    for (int i = 0; i < 20000; i++) {
        double z = wl_rng_normal(&a);
        s1 += z;
        s2 += z * z;
    }
    CHECK_MSG(fabs(s1 / 20000) < 0.03 && fabs(s2 / 20000 - 1) < 0.05, "normal: mean %g, mean square %g", s1 / 20000,
              s2 / 20000);
}

void wl_test_main(void)
{
    test_splitmix64();
    test_draws();
}

/* wl_seq_gen.c: the sequence lesson's integer hash generator, draw for draw as the lesson's Python. */
#include "wl_seq_gen.h"

void wl_seq_gen_init(wl_seq_gen *g, int64_t t)
{
    /* t ^ (t >> 16) with an arithmetic shift, as on an unbounded integer; only the low 32 bits matter. */
    uint64_t ut = (uint64_t)t;
    uint64_t sh = t < 0 ? ~(~ut >> 16) : ut >> 16;
    uint32_t x = (uint32_t)(ut ^ sh) * 2246822507u;
    x = (x ^ (x >> 13)) * 3266489909u;
    g->s = x ^ (x >> 16);
}

double wl_seq_gen_next(wl_seq_gen *g)
{
    g->s = g->s * 1664525u + 1013904223u;
    return g->s / 4294967296.0;
}

/* wl_seq_gen.h: the sequence lesson's integer hash generator, draw for draw as the lesson's Python. */
#ifndef WL_SEQ_GEN_H
#define WL_SEQ_GEN_H

#include <stdint.h>

/* Seeded by a 32-bit hash of t; each draw advances a 32-bit LCG and returns state / 2^32 in [0,1). */
typedef struct wl_seq_gen {
    uint32_t s;
} wl_seq_gen;

void wl_seq_gen_init(wl_seq_gen *g, int64_t t);
double wl_seq_gen_next(wl_seq_gen *g);

#endif

/* wl_seq_exp.c: the four-lane exp's constants and table, checked against this process's libm before they are used. */
/* Before the includes: the vector helpers of wl_seq_exp.h return vectors, but are always inlined (see there). */
#pragma GCC diagnostic ignored "-Wpsabi"
#include "wl_seq_exp.h"
#include "wl_seq_gen.h"

#include <pthread.h>
#include <string.h>

const wl_seq_expdata *wl_seq_exp_fast;

/* The constants of glibc's exp (sysdeps/ieee754/dbl-64/e_exp_data.c, from Arm's optimized-routines): 128/ln2
 * rounded; ln2/128 split in a high part of 37 bits and the rest; the polynomial, a
 * minimax fit that only its published digits give. The table is computed at start-up. */
static wl_seq_expdata table = {
    .invln2n = 0x1.71547652b82fep0 * WL_SEQ_EXP_N,
    .negln2hin = -0x1.62e42fefa0000p-8,
    .negln2lon = -0x1.cf79abc9e3b3ap-47,
    .c2 = 0x1.ffffffffffdbdp-2,
    .c3 = 0x1.555555555543cp-3,
    .c4 = 0x1.55555cf172b91p-5,
    .c5 = 0x1.1111167a4d017p-7,
    .shift = 0x1.8p52,
};
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The table path against libm on every table index and a spread of the lesson's arguments. */
static int agrees_with_libm(const wl_seq_expdata *e)
{
    wl_seq_gen g;
    wl_seq_gen_init(&g, 1);
    for (int i = 0; i < 4096; i += WL_SEQ_LANES) {
        wl_seq_vd x;
        for (int l = 0; l < WL_SEQ_LANES; l++) {
            double u = wl_seq_gen_next(&g);
            int k = i + l;
            double v = k < 1024   ? (u - 0.9) * 60                                 /* scores minus their maximum, logits */
                       : k < 2048 ? (u - 0.5) * 1000                               /* the whole table range and beyond */
                       : k < 3072 ? (u - 0.5) * 0x1p-20                            /* small arguments */
                                  : ((k % 128) + u) * M_LN2 / 128 - 20 * M_LN2;    /* every table index */
            x[l] = v != 0 && wl_seq_exp_tableable(wl_seq_splat(v))[0] ? v : 1.0;   /* the path's own range only */
        }
        wl_seq_vd a = wl_seq_exp_table(e, x);
        for (int l = 0; l < WL_SEQ_LANES; l++) {
            double got = a[l], b = exp(x[l]);   /* a copy: clang takes no address of a vector lane */
            if (memcmp(&got, &b, sizeof b) != 0) return 0;
        }
    }
    return 1;
}

static void init_once(void)
{
    wl_seq_exptab_build(table.tab);
    if (agrees_with_libm(&table)) wl_seq_exp_fast = &table;
}

void wl_seq_exp_init(void)
{
    pthread_once(&once, init_once);
}

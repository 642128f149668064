/* wl_seq_exptab.h: the table of glibc's exp, 2^(k/128) as a double and a correction, computed exactly in fixed point. */
#ifndef WL_SEQ_EXPTAB_H
#define WL_SEQ_EXPTAB_H

#include <stdint.h>

#define WL_SEQ_EXP_N 128     /* table points per octave */

/* For k = 0..127, with H[k] the double nearest 2^(k/128) and T[k] the double nearest 2^(k/128) / H[k] - 1:
 * tab[2k] = the bits of T[k], tab[2k+1] = the bits of H[k] minus k << 45 (the exponent the index adds back).
 * Each value is the one glibc's exp holds (its e_exp_data.c from Arm's optimized-routines). */
void wl_seq_exptab_build(uint64_t tab[2 * WL_SEQ_EXP_N]);

#endif

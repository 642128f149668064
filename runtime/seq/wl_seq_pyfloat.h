/* wl_seq_pyfloat.h: Python's round(x, 3) and repr() of a float, digit for digit, for the sequence lesson's numbers. */
#ifndef WL_SEQ_PYFLOAT_H
#define WL_SEQ_PYFLOAT_H

/* Python's round(x, 3): the exact binary value of x rounded to 3 decimals (ties to even),
 * returned as the double nearest to that decimal. */
double wl_seq_round3(double x);

/* Python's repr() of a float (shortest text that reads back to x), e.g. "0.0", "-1.03", "1e-05".
 * buf needs 32 bytes. Returns buf. */
char *wl_seq_float_repr(double x, char *buf);

#endif

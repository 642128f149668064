/* wl_seq_pyfloat.c: Python's round(x, 3) and repr() of a float, digit for digit, for the sequence lesson's numbers. */
#include "wl_seq_pyfloat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double wl_seq_round3(double x)
{
    if (!(fabs(x) < 0x1p40)) {
        /* Huge or not finite: printf rounds the exact binary value (ties to even), strtod reads it back. */
        char buf[400];
        snprintf(buf, sizeof buf, "%.3f", x);
        return strtod(buf, NULL);
    }
    /* r: the integer nearest to x*1000 rounded; the exact product is within 0.5 + tiny of it.
     * fma gives the sign of (exact product - (r +- 0.5)) exactly, which settles r, ties to even. */
    double r = nearbyint(x * 1000.0);
    double hi = fma(x, 1000.0, -(r + 0.5));
    if (hi > 0 || (hi == 0 && fmod(r, 2.0) != 0)) {
        r += 1;
    } else {
        double lo = fma(x, 1000.0, -(r - 0.5));
        if (lo < 0 || (lo == 0 && fmod(r, 2.0) != 0)) r -= 1;
    }
    if (r == 0) return copysign(0.0, x);
    return r / 1000.0;   /* correctly rounded, as strtod of the decimal r * 10^-3 */
}

char *wl_seq_float_repr(double x, char *buf)
{
    if (isnan(x)) return strcpy(buf, "nan");
    if (isinf(x)) return strcpy(buf, x < 0 ? "-inf" : "inf");
    if (x == 0) return strcpy(buf, signbit(x) ? "-0.0" : "0.0");
    /* The shortest correctly rounded digit string that reads back to x. */
    char e[40];
    for (int prec = 0; prec <= 16; prec++) {
        snprintf(e, sizeof e, "%.*e", prec, x);
        if (strtod(e, NULL) == x) break;
    }
    /* e is [-]D[.DDD]e[+-]XX: split into sign, digits and decimal exponent. */
    const char *p = e;
    int neg = *p == '-';
    if (neg) p++;
    char digits[24];
    int nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p != '.') digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    digits[nd] = '\0';
    int exp10 = atoi(p + 1);
    char *o = buf;
    if (neg) *o++ = '-';
    if (exp10 < -4 || exp10 >= 16) {
        /* Python's scientific form: 1e-05, 1.5e+16. */
        *o++ = digits[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        sprintf(o, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
        return buf;
    }
    if (exp10 < 0) {
        *o++ = '0';
        *o++ = '.';
        for (int k = 0; k < -exp10 - 1; k++) *o++ = '0';
        memcpy(o, digits, (size_t)nd);
        o += nd;
    } else {
        for (int k = 0; k <= exp10; k++) *o++ = k < nd ? digits[k] : '0';
        *o++ = '.';
        if (nd > exp10 + 1) {
            memcpy(o, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
            o += nd - exp10 - 1;
        } else {
            *o++ = '0';
        }
    }
    *o = '\0';
    return buf;
}

/* wl_seq_exp.c: finds libm's exp table in memory and verifies the inline exp against libm before it is used. */
#include "wl_seq_exp.h"
#include "wl_seq.h"

#include <link.h>
#include <pthread.h>
#include <string.h>

const wl_seq_expdata *wl_seq_exp_fast;

static wl_seq_expdata found;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static double read_double(const unsigned char *p)
{
    double d;
    memcpy(&d, p, sizeof d);
    return d;
}

static int near(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fabs(b);
}

/* Does glibc's exp data (8 doubles, 6 more for exp2, then the table) start at p? */
static int looks_like_exp_data(const unsigned char *p)
{
    if (read_double(p + 56) != 0x1.8p52) return 0;   /* shift: the cheap first test */
    if (!near(read_double(p), 128 / M_LN2, 1e-12) || !near(read_double(p + 8) + read_double(p + 16), -M_LN2 / 128, 1e-15) ||
        !(fabs(read_double(p + 16)) < 1e-12) || !near(read_double(p + 24), 1 / 2.0, 1e-6) ||
        !near(read_double(p + 32), 1 / 6.0, 1e-6) || !near(read_double(p + 40), 1 / 24.0, 1e-5) ||
        !near(read_double(p + 48), 1 / 120.0, 1e-4))
        return 0;
    const unsigned char *tab = p + 112;
    for (uint64_t k = 0; k < 128; k++) {
        uint64_t hi, lo;
        memcpy(&lo, tab + 16 * k, sizeof lo);
        memcpy(&hi, tab + 16 * k + 8, sizeof hi);
        double h, t;
        hi += k << 45;
        memcpy(&h, &hi, sizeof h);
        memcpy(&t, &lo, sizeof t);
        if (!near(h, exp2((double)k / 128), 1e-15) || !(fabs(t) < 1e-15))
            return 0;
    }
    return 1;
}

/* dl_iterate_phdr callback: scans libm's read-only segments. */
static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    const unsigned char **at = arg;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "/libm.so")) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || (ph->p_flags & PF_W)) continue;
        const unsigned char *seg = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        size_t len = ph->p_filesz;
        for (size_t off = (8 - (uintptr_t)seg % 8) % 8; off + 112 + 256 * 8 <= len; off += 8)
            if (looks_like_exp_data(seg + off)) {
                *at = seg + off;
                return 1;
            }
    }
    return 0;
}

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
    const unsigned char *p = NULL;
    dl_iterate_phdr(scan_object, &p);
    if (!p) return;
    found = (wl_seq_expdata){.invln2n = read_double(p), .negln2hin = read_double(p + 8), .negln2lon = read_double(p + 16),
                             .c2 = read_double(p + 24), .c3 = read_double(p + 32), .c4 = read_double(p + 40),
                             .c5 = read_double(p + 48), .shift = read_double(p + 56), .tab = (const uint64_t *)(p + 112)};
    if (agrees_with_libm(&found)) wl_seq_exp_fast = &found;
}

void wl_seq_exp_init(void)
{
    pthread_once(&once, init_once);
}

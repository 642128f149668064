/* wl_seq_measure.h: the sequence lesson's measures of a net: accuracy, weight centers, separation, the order test. */
#ifndef WL_SEQ_MEASURE_H
#define WL_SEQ_MEASURE_H

#include <stdint.h>

#include "wl_seq_data.h"
#include "wl_seq_net.h"

double wl_seq_accuracy(const wl_seq_net *net, const wl_seq_set *s);
/* Mean over the set of sum_t t * a_t for head h. */
double wl_seq_center(const wl_seq_net *net, const wl_seq_set *s, int h);
/* Mean half L1 distance between the weight distributions of every pair of heads (0 for one head). */
double wl_seq_separation(const wl_seq_net *net, const wl_seq_set *s);
/* Each head's weight at each step, averaged over the set: out[H*T] (row h is head h). */
void wl_seq_mean_weights(const wl_seq_net *net, const wl_seq_set *s, double *out);
/* The readings of x permuted by a Fisher-Yates shuffle drawn from the generator seeded by seed;
 * the position channels stay in place. */
void wl_seq_shuffle_readings(const double (*x)[WL_SEQ_C], int64_t seed, double (*out)[WL_SEQ_C]);
/* Mean and largest |p(shuffled) - p(original)| over the set; sequence i is shuffled with seed0 + i. */
void wl_seq_order_test(const wl_seq_net *net, const wl_seq_set *s, int64_t seed0, double *mean, double *largest);

#endif

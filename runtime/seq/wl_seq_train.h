/* wl_seq_train.h: the sequence net's full-batch training with momentum, four sequences per vector operation. */
#ifndef WL_SEQ_TRAIN_H
#define WL_SEQ_TRAIN_H

#include <signal.h>
#include <stdint.h>

#include "wl_core.h"
#include "wl_seq_data.h"
#include "wl_seq_net.h"

typedef struct wl_seq_train_opts {
    int epochs;                    /* 150 */
    double lr;                     /* 0.15 */
    double momentum;               /* 0.8 */
} wl_seq_train_opts;

void wl_seq_train_opts_default(wl_seq_train_opts *o);

/* Full-batch gradient descent with momentum from wl_seq_net_init(seed, H). interrupt may be
 * NULL; when it becomes non-zero training stops with an error. A parameter that becomes infinite
 * or NaN (a learning rate far too large) stops it with an error naming the epoch. */
int wl_seq_train(wl_seq_net *net, const wl_seq_set *tr, int64_t seed, int H, const wl_seq_train_opts *o,
                 volatile sig_atomic_t *interrupt, wl_err *err);

#endif

/* kernel_zmq.h: the core's transport over libzmq: a channel's ROUTER, its way into IOPub, stdin. */
#ifndef WL_KERNEL_ZMQ_H
#define WL_KERNEL_ZMQ_H

#include "kernel_core.h"
#include "kernel_wire.h"

/* One channel's sockets. A zchan is used by the thread that serves its channel (and by the flush timer, which
 * publishes while the output layer holds its lock). */
typedef struct wl_zchan {
    wl_transport t;            /* its callbacks, with ud pointing here */
    wl_port req;
    wl_port iopub;             /* a PUSH into the IOPub forwarder, owned by this thread */
    wl_port *stdin_port;       /* NULL on control */
    atomic_int *subscribers;   /* counted by the IOPub thread */
    atomic_int *stdin_dropped; /* input_requests the gate could not deliver, counted by its thread */
} wl_zchan;

/* Fills z->t; the ports are set up by the caller. */
void wl_zchan_init(wl_zchan *z, const char *name, wl_port *stdin_port, atomic_int *subscribers,
                   atomic_int *stdin_dropped);
/* The core's view of a received message (which must outlive it). */
void wl_zmq_request(const wl_msg *m, wl_request *req);

#endif

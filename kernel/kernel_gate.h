/* kernel_gate.h: the public side of shell, control and stdin: tells every client connection apart, whatever routing
 * id it claims, and relays its messages to and from the kernel's in-process ROUTERs. */
#ifndef WL_KERNEL_GATE_H
#define WL_KERNEL_GATE_H

#include <pthread.h>

/* Why: a ZMQ_ROUTER knows a client by the routing id the client chose. With ZMQ_ROUTER_HANDOVER a second connection
 * that claims a routing id in use takes it (and the first connection is closed), so any local peer that reads a
 * client's session id on IOPub, without the key, can take that client's replies; without handover the second
 * connection is ignored, so a client that reconnects before the kernel has seen its old connection close loses its
 * replies. (ZAP sees no peer routing id; ZMQ_ROUTER_NOTIFY is a draft API that Debian's libzmq 4.3.4 leaves out.)
 *
 * So the gate speaks ZMTP 3 itself (kernel_zmtp.h) on ZMQ_STREAM sockets, which number every connection. A client's
 * message reaches the kernel's ROUTER with one routing id more in front: a token of the gate's connection number and
 * the routing id the client claimed; the kernel copies it onto its reply as it copies every routing id. A reply goes
 * back to the connection that sent the request, and only to it, while that connection is open; once it has closed,
 * to every open connection that claims the same routing id (a client that connected again). stdin has no request of
 * its own: an input_request goes to every open stdin connection that claims the shell request's routing id. */

enum { WL_GATE_SHELL, WL_GATE_CONTROL, WL_GATE_STDIN, WL_GATE_NCH };

typedef struct wl_gate_chan wl_gate_chan;

typedef struct wl_gate {
    void *inner[WL_GATE_NCH];      /* the kernel's ROUTERs (in-process), used by its threads in place of the ports */
    wl_gate_chan *chan[WL_GATE_NCH];
    pthread_t thread;
    int started;
} wl_gate;

/* Takes the bound ZMQ_STREAM sockets pub[] (the ports clients connect to; the gate's thread closes them when the
 * context is shut down), makes inner[] and starts the thread. Returns 0, or -1 (errno set; pub[] stay the caller's). */
int wl_gate_start(wl_gate *g, void *ctx, void *const pub[WL_GATE_NCH]);
/* After zmq_ctx_shutdown (the thread ends on ETERM): waits for the thread and frees what it held. The caller closes
 * inner[] once the threads that use them are done. */
void wl_gate_join(wl_gate *g);

#endif

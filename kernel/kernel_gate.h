/* kernel_gate.h: the kernel's five ports: ZMTP 3 per client connection, relayed to and from the kernel's threads,
 * with every connection told apart, timed out and bounded in memory. */
#ifndef WL_KERNEL_GATE_H
#define WL_KERNEL_GATE_H

#include <pthread.h>
#include <stdatomic.h>

#include "kernel_wire.h"

/* Why not libzmq's own ROUTER, PUB and heartbeat sockets (README, "The kernel's ports"): libzmq keeps every frame
 * of a multipart message until its last one arrives, whatever ZMQ_MAXMSGSIZE (a bound per frame) and the high-water
 * marks (counted in whole messages) say, so one peer that never ends a message holds memory without bound; its PUB
 * keeps every topic a peer subscribes to, ZMQ_XPUB_MANUAL included; it sets no limit on connections; and a ROUTER
 * knows a peer only by the routing id the peer claims (with ZMQ_ROUTER_HANDOVER any local peer that reads a
 * client's session id on IOPub takes the client's replies).
 *
 * So the gate speaks ZMTP 3 itself (kernel_zmtp.h) on ZMQ_STREAM sockets, which number every connection:
 * - shell, control, stdin: a client's message reaches the kernel's ROUTER behind the gate with one routing id more
 *   in front, a token of the connection's number and the routing id it claims; the kernel copies it onto its reply
 *   as it copies every routing id, and the gate sends the reply to that connection only (dropped when it has
 *   closed). An input_request carries the shell request's token: it goes to one stdin connection, the one that
 *   claims the same routing id and connected closest in time to the request's shell connection (a client opens
 *   its channels together; a peer that reads the routing id on IOPub connects later). While the shell connection
 *   is younger than WL_GATE_STDIN_WAIT_MS, the input_request waits when no claimant connected within
 *   WL_GATE_STDIN_NEAR_MS of it or a connection still in its handshake connected closer (a client's execute can
 *   arrive before its stdin handshake is done).
 * - iopub: a PUB to SUB/XSUB peers; a peer's subscriptions are counted, not kept: a subscribed peer gets every
 *   message (its SUB socket drops the topics it did not ask for).
 * - heartbeat: every message is sent back to its connection.
 * Bounds: at most WL_GATE_CONNS_MAX connections per port. A connection is vouched for when it has sent a message
 * signed with the key (not a copy of one of the kernel's own, which IOPub shows everyone), or when it is the
 * connection of its port (control, stdin, iopub, heartbeat) that came closest in time to a shell connection that
 * did, within WL_GATE_STDIN_NEAR_MS of it (a client connects its channels together). When a port is
 * full, a new connection takes the place of the oldest one that is not vouched for, so peers without the key cannot
 * hold every place (a client's first request comes at once, and vouches for its channels, long before as many
 * newer connections have come as the port holds); only when every connection is vouched for is the new one refused. A connection is closed without its handshake after
 * WL_GATE_HANDSHAKE_MS; when it was never sent a message, silent for WL_GATE_SILENT_MS (PINGed after
 * WL_GATE_PING_MS; one that was sent messages may be busy with them, and TCP keepalive finds it if it vanished); with a
 * message unfinished for WL_GATE_MESSAGE_MS; or with a message over the limits of kernel_wire.h. What shell, control and
 * stdin each hold of their clients' messages (being read, or not yet freed by the kernel) is at most WL_GATE_IN_MAX:
 * a message that does not fit closes its connection (its client sees the connection close rather than wait for a
 * reply). What waits to be written to one connection on IOPub or the heartbeat, and the gate's own ZMTP commands, is
 * at most WL_GATE_OUT_MAX bytes (or one message, when nothing else waits): a message that does not fit is dropped for
 * that connection. A reply or an input_request is not dropped so (its client sent a signed request, and may read
 * slowly). What waits for all the connections of one port is at most WL_GATE_PORT_OUT_MAX and one message: a message
 * that would pass it closes the connections that hold the most (clients that do not read). Each port reads at most WL_GATE_BURST chunks before the others get a turn. */
#define WL_GATE_CONNS_MAX 32
#define WL_GATE_HANDSHAKE_MS 30000
#define WL_GATE_PING_MS 10000
#define WL_GATE_SILENT_MS 60000
#define WL_GATE_MESSAGE_MS 120000
#define WL_GATE_STDIN_NEAR_MS 1000
#define WL_GATE_STDIN_WAIT_MS 5000
#define WL_GATE_IN_MAX (48 << 20)
#define WL_GATE_OUT_MAX (48 << 20)
#define WL_GATE_PORT_OUT_MAX (64 << 20)
#define WL_GATE_BURST 64
#define WL_GATE_IOPUB_ENDPOINT "inproc://wordlab-iopub"   /* the kernel's threads PUSH what they publish here */

enum { WL_GATE_SHELL, WL_GATE_CONTROL, WL_GATE_STDIN, WL_GATE_IOPUB, WL_GATE_HB, WL_GATE_NCH };
#define WL_GATE_RELAYED 3   /* shell, control and stdin have a ROUTER in the kernel */

typedef struct wl_gate_chan wl_gate_chan;

typedef struct wl_gate {
    void *inner[WL_GATE_RELAYED];   /* the kernel's ROUTERs (in-process), used by its threads in place of the ports */
    atomic_int subscribers;         /* IOPub connections with a subscription */
    atomic_int stdin_dropped;       /* input_requests dropped because their client has no stdin connection */
    wl_port sig;                    /* the gate thread's signature check (wl_port_signed), no socket */
    wl_gate_chan *chan[WL_GATE_NCH];
    void *stop_tx, *stop_rx;        /* wl_gate_stop tells the gate's thread to end */
    pthread_t thread;
    int started;
} wl_gate;

/* A port for the gate: a ZMQ_STREAM with its options (they hold for connections accepted after a bind, so they are
 * set before it), linger_ms of linger. NULL on failure (errno set). */
void *wl_gate_port(void *ctx, int linger_ms);
/* Takes the bound ports pub[] (made by wl_gate_port, in WL_GATE_* order), makes inner[] and the PULL at
 * WL_GATE_IOPUB_ENDPOINT, and starts the thread; wire (its key and session) tells who is vouched for. Returns 0, or
 * -1 (errno set; pub[] stay the caller's). */
int wl_gate_start(wl_gate *g, void *ctx, void *const pub[WL_GATE_NCH], wl_wire *wire);
/* Before zmq_ctx_shutdown: relays everything the kernel has sent and published so far, closes the ports (they linger
 * until it is written) and ends the thread. The caller closes inner[] once the threads that use them are done. */
void wl_gate_stop(wl_gate *g);

#endif

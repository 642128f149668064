/* kernel_wire.h: Jupyter wire framing: signed multipart messages over ZeroMQ (HMAC-SHA256 by libsodium, cJSON). */
#ifndef WL_KERNEL_WIRE_H
#define WL_KERNEL_WIRE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>
#include <sodium.h>
#include <zmq.h>

#include "kernel_log.h"

/* What one message may hold: the gate (kernel_gate.h) closes the connection of a peer that sends a bigger frame, or
 * a message whose frames together pass WL_WIRE_MESSAGE_MAX (the peer's socket connects again by itself). */
#define WL_WIRE_FRAME_MAX (16 << 20)
#define WL_WIRE_MESSAGE_MAX (32 << 20)
/* IOPub receives only subscriptions (topic prefixes): the gate keeps none of their bytes. */
#define WL_WIRE_SUBSCRIPTION_MAX 4096
/* A replayed message is dropped while its signature is among the last WL_WIRE_REPLAY_WINDOW to
 * 2 * WL_WIRE_REPLAY_WINDOW signed messages received (two generations of remembered signatures). */
#define WL_WIRE_REPLAY_WINDOW 65536

/* What every socket of one kernel process shares: the signing key, the session id and the
 * recently seen signatures (a replayed message is dropped). Read-only after wl_wire_init
 * except the seen set, which has its own lock. */
typedef struct wl_wire {
    unsigned char *key;
    size_t keylen;             /* 0: messages are neither signed nor checked */
    char session[37];          /* a UUID4, one per process */
    pthread_mutex_t seen_lock;
    uint64_t *seen[2];         /* two generations of open-addressed sets of signature prefixes */
    size_t seen_cap[2];        /* their slots (powers of two) */
    size_t seen_n;             /* entries in seen[0] */
} wl_wire;

/* One socket with the per-thread state needed to sign and check messages on it. A port is used by one thread
 * at a time: the thread that serves its channel, or the flush timer while the output layer holds its lock. */
typedef struct wl_port {
    void *sock;
    const char *name;          /* "shell", "control", "stdin", "iopub": for log lines */
    wl_wire *wire;
    crypto_auth_hmacsha256_state mac;   /* keyed HMAC-SHA256, copied for each message; unused without a key */
    wl_log_limit log;                   /* its log lines about peers (dropped messages) */
} wl_port;

/* A received message. frames[0..delim) are the routing ids; the four JSON parts are
 * parsed from frames delim+2 .. delim+5, which stay available as raw bytes. */
typedef struct wl_msg {
    zmq_msg_t *frames;
    int nframes, delim;
    cJSON *header, *parent, *metadata, *content;   /* objects, never NULL after a successful receive */
    const char *type;                              /* header.msg_type */
} wl_msg;

int wl_wire_init(wl_wire *w, const char *key, size_t keylen);
void wl_wire_free(wl_wire *w);

int wl_port_init(wl_port *p, wl_wire *w, void *sock, const char *name);
void wl_port_free(wl_port *p);

/* Receives one message (flags: 0 or ZMQ_DONTWAIT). Returns 1 with *m filled (free it with wl_msg_free); 0 when a
 * message arrived but was dropped, and logged on stderr: over WL_WIRE_MESSAGE_MAX, no delimiter or too few frames,
 * a bad, missing or replayed signature, a header that is not a JSON object with msg_type and msg_id strings, or no
 * memory (a parent_header, metadata or content that is not a JSON object is logged and read as {}); -1 when none
 * was received (errno: EAGAIN with ZMQ_DONTWAIT or after the socket's receive timeout, EINTR, ETERM). */
int wl_wire_recv(wl_port *p, wl_msg *m, int flags);
/* Whether sig[0..siglen) is the HMAC of the four parts (always 1 without a key). */
int wl_port_signed(wl_port *p, const void *sig, size_t siglen, const void *const part[4], const size_t len[4]);
void wl_msg_free(wl_msg *m);

/* Sends a message of msg_type with the given content (JSON text) and metadata "{}".
 * parent (may be NULL) gives the parent_header (its exact received bytes) and, when route
 * is non-zero, the routing ids; without route a topic frame "kernel.<session>.<type>" is
 * sent first (IOPub). Returns 0, or -1 on a socket error. */
int wl_wire_send(wl_port *p, const wl_msg *parent, int route, const char *msg_type,
                 const char *content, size_t content_len);
/* The same with a cJSON content, which is deleted. */
int wl_wire_send_json(wl_port *p, const wl_msg *parent, int route, const char *msg_type, cJSON *content);

/* Fills out[37] with a random UUID4 (lowercase hex). */
void wl_uuid4(char out[37]);
/* Fills out with the current UTC time as YYYY-MM-DDTHH:MM:SS.ffffffZ (28 bytes with the NUL). */
void wl_iso_date(char out[32]);

#endif

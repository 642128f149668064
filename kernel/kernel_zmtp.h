/* kernel_zmtp.h: ZMTP 3 as the kernel's gate speaks it with one client (greeting, NULL handshake, frames); no I/O. */
#ifndef WL_KERNEL_ZMTP_H
#define WL_KERNEL_ZMTP_H

#include <stddef.h>
#include <stdint.h>

#define WL_ZMTP_GREETING 64        /* bytes of a greeting, each side sends one first */
#define WL_ZMTP_READY_MAX 64       /* bytes of the gate's READY command frame */
#define WL_ZMTP_PONG_MAX 32        /* bytes of a PONG command frame (a PING's context is at most 16 bytes) */
#define WL_ZMTP_HEADER_MAX 9       /* a frame's flags and size */
#define WL_ZMTP_ID_MAX 255         /* bytes of a routing id (libzmq's limit) */
#define WL_ZMTP_COMMAND_MAX 65536  /* bytes of one command frame the decoder accepts (READY with its metadata) */
#define WL_ZMTP_FRAMES_MAX 65536   /* frames of one message (empty frames cost no bytes but a slot each) */

/* One frame of a received message: len bytes at data (malloc'd, NULL when len is 0). */
typedef struct wl_zmtp_frame {
    unsigned char *data;
    size_t len;
} wl_zmtp_frame;

/* What the decoder reports, in the order the bytes came. */
typedef struct wl_zmtp_sink {
    void *ud;
    /* The peer's READY, with the routing id it claims (len 0: none): the handshake is done once the gate sends its
     * own READY (wl_zmtp_ready), which it does only now, so that a client whose handshake succeeded is known. */
    void (*ready)(void *ud, const unsigned char *id, size_t len);
    /* A PING: answer with wl_zmtp_pong(context). */
    void (*ping)(void *ud, const unsigned char *context, size_t len);
    /* A whole message: frames[0..n) with n >= 1; the callee owns each frame's data (free it with free). */
    void (*message)(void *ud, wl_zmtp_frame *frames, int n);
    /* A SUBSCRIBE (on 1) or CANCEL (on 0) command, as a PUB's peer sends them in ZMTP 3.1 (NULL: ignored). */
    void (*subscribe)(void *ud, int on);
    /* Before a frame of a message is kept: 1 when the caller can hold need more bytes, 0 when it cannot (the
     * connection must close; NULL: always 1). */
    int (*room)(void *ud, uint64_t need);
} wl_zmtp_sink;

/* The decoder's state for one connection. */
typedef struct wl_zmtp {
    size_t frame_max, message_max;    /* a bigger frame, or a bigger message, closes the connection */
    int pub;                          /* the gate is a PUB to this peer (a SUB or XSUB), else a ROUTER */
    int step, open;                   /* what the next bytes are; open once the peer's READY came */
    int minor;                        /* the peer's ZMTP minor version (1: it answers PING) */
    unsigned char head[WL_ZMTP_GREETING];
    size_t have, want;                /* bytes of head[] read and needed (greeting, frame size) */
    unsigned char flags;              /* of the frame being read */
    uint64_t size;
    unsigned char *body;              /* the frame's bytes: a command, or a frame of the message */
    size_t fill;
    wl_zmtp_frame *frames;            /* the message so far */
    int nframes, cap;
    uint64_t bytes;                   /* of the message so far */
    long long count;                  /* its frames so far */
    long long done;                   /* whole messages so far */
    char why[128];                    /* why the connection must close (after wl_zmtp_feed returned -1) */
} wl_zmtp;

void wl_zmtp_init(wl_zmtp *z, int pub, size_t frame_max, size_t message_max);
void wl_zmtp_free(wl_zmtp *z);

/* Decodes n received bytes, calling the sink as things complete. Returns 0, or -1 when the connection must close
 * (not ZMTP 3 with the NULL mechanism, a peer that is not a DEALER/REQ/ROUTER (SUB/XSUB when pub), a frame over
 * frame_max, a message over message_max or WL_ZMTP_FRAMES_MAX frames, no room for it, a protocol error, out of
 * memory): z->why says what. */
int wl_zmtp_feed(wl_zmtp *z, const unsigned char *p, size_t n, const wl_zmtp_sink *sink);

/* What the gate sends: its greeting (ZMTP 3.1, NULL), its READY as a ROUTER or (pub) a PUB, a PING without TTL or
 * context, a PONG; returns bytes written. */
void wl_zmtp_greeting(unsigned char out[WL_ZMTP_GREETING]);
size_t wl_zmtp_ready(unsigned char out[WL_ZMTP_READY_MAX], int pub);
#define WL_ZMTP_PING_LEN 9
void wl_zmtp_ping(unsigned char out[WL_ZMTP_PING_LEN]);
size_t wl_zmtp_pong(unsigned char out[WL_ZMTP_PONG_MAX], const unsigned char *context, size_t len);
/* The flags and size that go before a message frame of len bytes (more: another frame follows). */
size_t wl_zmtp_header(unsigned char out[WL_ZMTP_HEADER_MAX], uint64_t len, int more);

#endif

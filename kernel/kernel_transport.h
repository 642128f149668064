/* kernel_transport.h: what the protocol core asks of a transport: a received request, replies, IOPub, stdin. */
#ifndef WL_KERNEL_TRANSPORT_H
#define WL_KERNEL_TRANSPORT_H

#include <stddef.h>

#include <cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One received request as the core sees it; the transport keeps the message itself behind msg. */
typedef struct wl_request {
    const char *type;            /* header.msg_type */
    const cJSON *content;        /* an object */
    const char *raw_content;     /* the content's received bytes (a NUL inside "code" is found there) */
    size_t raw_content_len;
    void *msg;                   /* the transport's own message */
} wl_request;

/* What the core asks of a transport (kernel_zmq.c over libzmq; xeus's publishing in kernel/xeus, for the output
 * layer; a mock in tests/unit/kernel). One transport serves one channel (shell or control) and is used by one
 * thread, the flush timer's publishing aside (the output layer serializes it). Every cJSON content passed in is
 * deleted. Each returns 0, or -1 on a socket error (which the transport logs). */
typedef struct wl_transport {
    void *ud;
    const char *name;                   /* "shell", "control": for error messages */
    /* The reply to req on its own channel, to its sender. */
    int (*reply)(void *ud, const wl_request *req, const char *type, cJSON *content);
    /* A message on IOPub with parent req (NULL: none). */
    int (*publish)(void *ud, const wl_request *parent, const char *type, cJSON *content);
    /* Shell only (NULL on control): sends input_request content on stdin to req's sender and waits for its
     * input_reply, asking stop(arg) between waits; 0 with the value in out[cap], 1 when the value has cap bytes or
     * more (out left empty), -1 when stopped or failed. */
    int (*input)(void *ud, const wl_request *req, cJSON *content, int (*stop)(void *arg), void *arg, char *out,
                 size_t cap);
    /* A request already queued on this channel, without waiting: 1 with *out filled (give it back with
     * release), 0 when there is none. */
    int (*next_queued)(void *ud, wl_request *out);
    void (*release)(void *ud, wl_request *req);
    /* Waits, a bounded time, until someone listens on IOPub (NULL: does not wait). */
    void (*await_listener)(void *ud);
} wl_transport;

#ifdef __cplusplus
}
#endif

#endif

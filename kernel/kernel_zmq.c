/* kernel_zmq.c: the core's transport over libzmq: a channel's ROUTER, its way into IOPub, stdin. */
#include "kernel_zmq.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INPUT_POLL_MS 100
#define SUBSCRIBER_WAIT_MS 1000
#define SUBSCRIBER_TICK_MS 2

void wl_zmq_request(const wl_msg *m, wl_request *req)
{
    const zmq_msg_t *content = &m->frames[m->delim + 5];
    *req = (wl_request){.type = m->type,
                        .content = m->content,
                        .raw_content = zmq_msg_data((zmq_msg_t *)content),
                        .raw_content_len = zmq_msg_size((zmq_msg_t *)content),
                        .msg = (void *)m};
}

static int send_logged(wl_port *p, const wl_request *parent, int route, const char *type, cJSON *content)
{
    if (!wl_wire_send_json(p, parent ? parent->msg : NULL, route, type, content)) return 0;
    fprintf(stderr, "wordlab kernel: cannot send %.200s on %s: %s\n", type, p->name, zmq_strerror(errno));
    return -1;
}

static int reply(void *ud, const wl_request *req, const char *type, cJSON *content)
{
    return send_logged(&((wl_zchan *)ud)->req, req, 1, type, content);
}

static int publish(void *ud, const wl_request *parent, const char *type, cJSON *content)
{
    return send_logged(&((wl_zchan *)ud)->iopub, parent, 0, type, content);
}

/* input_request on stdin with the shell request's routing ids, then waits for input_reply; -1 at once when the gate
 * drops the request (its client connected no stdin channel: nobody could answer). */
static int input(void *ud, const wl_request *req, cJSON *content, int (*stop)(void *arg), void *arg, char *out,
                 size_t cap)
{
    wl_zchan *z = ud;
    wl_port *p = z->stdin_port;
    int dropped = atomic_load(z->stdin_dropped);
    if (send_logged(p, req, 1, "input_request", content)) return -1;
    for (;;) {
        if (stop(arg) || atomic_load(z->stdin_dropped) != dropped) return -1;
        zmq_pollitem_t it = {p->sock, 0, ZMQ_POLLIN, 0};
        int r = zmq_poll(&it, 1, INPUT_POLL_MS);
        if (r < 0 && errno != EINTR) return -1;
        if (r <= 0) continue;
        wl_msg m;
        if (wl_wire_recv(p, &m, ZMQ_DONTWAIT) != 1) continue;
        int ok = !strcmp(m.type, "input_reply");
        const char *value = wl_json_str(m.content, "value");
        size_t len = value ? strlen(value) : 0;
        if (ok && len < cap) memcpy(out, value ? value : "", len + 1);
        wl_msg_free(&m);
        if (ok) return len < cap ? 0 : 1;
    }
}

static int next_queued(void *ud, wl_request *out)
{
    wl_zchan *z = ud;
    wl_msg *m = malloc(sizeof *m);
    if (!m) return 0;
    for (;;) {
        int r = wl_wire_recv(&z->req, m, ZMQ_DONTWAIT);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) break;   /* EAGAIN: nothing else was queued */
        if (r == 0) continue;
        wl_zmq_request(m, out);
        return 1;
    }
    free(m);
    return 0;
}

static void release(void *ud, wl_request *req)
{
    (void)ud;
    wl_msg_free(req->msg);
    free(req->msg);
}

static void await_listener(void *ud)
{
    wl_zchan *z = ud;
    struct timespec tick = {0, SUBSCRIBER_TICK_MS * 1000000L};
    for (int waited = 0; waited < SUBSCRIBER_WAIT_MS && atomic_load(z->subscribers) <= 0;
         waited += SUBSCRIBER_TICK_MS)
        nanosleep(&tick, NULL);
}

void wl_zchan_init(wl_zchan *z, const char *name, wl_port *stdin_port, atomic_int *subscribers,
                   atomic_int *stdin_dropped)
{
    z->stdin_port = stdin_port;
    z->subscribers = subscribers;
    z->stdin_dropped = stdin_dropped;
    z->t = (wl_transport){.ud = z,
                          .name = name,
                          .reply = reply,
                          .publish = publish,
                          .input = stdin_port ? input : NULL,
                          .next_queued = next_queued,
                          .release = release,
                          .await_listener = await_listener};
}

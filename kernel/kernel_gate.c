/* kernel_gate.c: the public side of shell, control and stdin: ZMTP per connection over ZMQ_STREAM, relayed to and
 * from the kernel's in-process ROUTERs (see kernel_gate.h for why). */
#include "kernel_gate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "kernel_wire.h"
#include "kernel_zmtp.h"
#include "wl_buf.h"

#define CONN_ID 5                     /* a ZMQ_STREAM connection's routing id: 0 and a 32-bit counter */
#define GATE_ID "wordlab-gate"        /* the routing id of the gate's DEALERs on the kernel's ROUTERs */
#define INNER_LINGER_MS 1000          /* a reply sent just before the kernel closes its ROUTER still reaches the gate */

static const char *const NAMES[WL_GATE_NCH] = {"shell", "control", "stdin"};

typedef struct wl_gate_conn {
    wl_gate_chan *ch;
    unsigned char id[CONN_ID];
    unsigned char claim[WL_ZMTP_ID_MAX];   /* the routing id the client claims in its READY */
    size_t claim_len;
    int open;                             /* its handshake is done */
    int closing;                          /* the gate could not close it yet: its bytes are ignored */
    int gone;                             /* closed: forgotten by reap() once the event at hand is done */
    wl_zmtp z;
} wl_gate_conn;

/* A client's message on its way to the kernel: the token, then the client's frames. */
typedef struct wl_gate_msg {
    struct wl_gate_msg *next;
    int n;
    zmq_msg_t frames[];
} wl_gate_msg;

struct wl_gate_chan {
    const char *name;
    int is_stdin;
    void *pub;                            /* ZMQ_STREAM: the port clients connect to */
    void *dealer;                         /* to the kernel's ROUTER for this channel */
    wl_gate_conn **conns;
    size_t nconns, cap;
    wl_gate_msg *head, **tail;               /* messages waiting for room on the dealer; none read meanwhile */
};

static wl_gate_conn *find(wl_gate_chan *ch, const void *id)
{
    for (size_t i = 0; i < ch->nconns; i++)
        if (!memcmp(ch->conns[i]->id, id, CONN_ID)) return ch->conns[i];
    return NULL;
}

static void forget(wl_gate_conn *c)
{
    wl_gate_chan *ch = c->ch;
    for (size_t i = 0; i < ch->nconns; i++)
        if (ch->conns[i] == c) ch->conns[i] = ch->conns[--ch->nconns];
    wl_zmtp_free(&c->z);
    free(c);
}

/* Forgets the connections that closed while an event was handled (not during it: the decoder may be running). */
static void reap(wl_gate_chan *ch)
{
    for (size_t i = ch->nconns; i-- > 0;)
        if (ch->conns[i]->gone) forget(ch->conns[i]);
}

/* Sends data to one connection. Returns 0, or -1 with errno: EAGAIN when the client does not read (its queue is
 * full), EHOSTUNREACH when the connection is gone (it is then marked gone). */
static int send_to(wl_gate_conn *c, zmq_msg_t *data)
{
    if (zmq_send(c->ch->pub, c->id, CONN_ID, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0) {
        c->gone = errno == EHOSTUNREACH;
        return -1;
    }
    return zmq_msg_send(data, c->ch->pub, ZMQ_DONTWAIT) < 0 ? -1 : 0;
}

static int send_bytes(wl_gate_conn *c, const void *p, size_t n)
{
    zmq_msg_t m;
    if (zmq_msg_init_size(&m, n)) return -1;
    memcpy(zmq_msg_data(&m), p, n);
    int rc = send_to(c, &m);
    zmq_msg_close(&m);
    return rc;
}

/* Closes a connection (an empty message on a ZMQ_STREAM); when the client's queue is full the gate ignores its
 * bytes until it closes by itself. */
static void shut(wl_gate_conn *c, const char *why)
{
    fprintf(stderr, "wordlab kernel: closed a connection on %s: %s\n", c->ch->name, why);
    zmq_msg_t m;
    zmq_msg_init(&m);
    if (send_to(c, &m) == 0) c->gone = 1;
    else if (!c->gone) c->closing = 1;
    zmq_msg_close(&m);
}

static void on_ready(void *ud, const unsigned char *id, size_t len)
{
    wl_gate_conn *c = ud;
    if (len) memcpy(c->claim, id, len);
    c->claim_len = len;
    c->open = 1;
    unsigned char r[WL_ZMTP_READY_MAX];
    send_bytes(c, r, wl_zmtp_ready(r));
}

static void on_ping(void *ud, const unsigned char *context, size_t len)
{
    unsigned char r[WL_ZMTP_PONG_MAX];
    send_bytes(ud, r, wl_zmtp_pong(r, context, len));
}

static void free_data(void *data, void *hint)
{
    (void)hint;
    free(data);
}

/* A whole message from a client: the token (the connection's number and its claimed routing id), then its frames,
 * queued for the kernel. */
static void on_message(void *ud, wl_zmtp_frame *frames, int n)
{
    wl_gate_conn *c = ud;
    wl_gate_msg *m = wl_xmalloc(sizeof *m + (size_t)(n + 1) * sizeof(zmq_msg_t));
    m->next = NULL;
    int made = !zmq_msg_init_size(&m->frames[0], CONN_ID + c->claim_len);
    if (made) {
        memcpy(zmq_msg_data(&m->frames[0]), c->id, CONN_ID);
        memcpy((unsigned char *)zmq_msg_data(&m->frames[0]) + CONN_ID, c->claim, c->claim_len);
    }
    for (int i = 0; i < n; i++) {
        int ok = made == i + 1 && (frames[i].len ? !zmq_msg_init_data(&m->frames[i + 1], frames[i].data,
                                                                     frames[i].len, free_data, NULL)
                                                 : !zmq_msg_init(&m->frames[i + 1]));
        if (ok) made++;
        else free(frames[i].data);
    }
    if (made < n + 1) {
        for (int i = 0; i < made; i++) zmq_msg_close(&m->frames[i]);
        free(m);
        fprintf(stderr, "wordlab kernel: dropped a message on %s: out of memory\n", c->ch->name);
        return;
    }
    m->n = n + 1;
    *c->ch->tail = m;
    c->ch->tail = &m->next;
}

static void on_dropped(void *ud, const char *why)
{
    fprintf(stderr, "wordlab kernel: dropped a message on %s: %s\n", ((wl_gate_conn *)ud)->ch->name, why);
}

/* One event of a ZMQ_STREAM: a connection (empty data, new id), a disconnection (empty data, known id), or bytes. */
static void from_client(wl_gate_chan *ch, zmq_msg_t *id, zmq_msg_t *data)
{
    if (zmq_msg_size(id) != CONN_ID) return;
    wl_gate_conn *c = find(ch, zmq_msg_data(id));
    size_t n = zmq_msg_size(data);
    if (!n && c) {
        forget(c);
    } else if (!n) {
        c = wl_xcalloc(1, sizeof *c);
        c->ch = ch;
        memcpy(c->id, zmq_msg_data(id), CONN_ID);
        wl_zmtp_init(&c->z, WL_WIRE_FRAME_MAX, WL_WIRE_MESSAGE_MAX);
        if (ch->nconns == ch->cap) {
            ch->cap = ch->cap ? 2 * ch->cap : 16;
            ch->conns = wl_xrealloc(ch->conns, ch->cap * sizeof *ch->conns);
        }
        ch->conns[ch->nconns++] = c;
        unsigned char g[WL_ZMTP_GREETING];
        wl_zmtp_greeting(g);
        send_bytes(c, g, sizeof g);
    } else if (c && !c->closing) {
        wl_zmtp_sink sink = {c, on_ready, on_ping, on_message, on_dropped};
        if (wl_zmtp_feed(&c->z, zmq_msg_data(data), n, &sink) && !c->gone) shut(c, c->z.why);
    }
    reap(ch);
}

/* Reads what clients sent until nothing is left or a message waits for the kernel. Returns -1 on ETERM. */
static int read_clients(wl_gate_chan *ch)
{
    while (!ch->head) {
        zmq_msg_t id, data;
        zmq_msg_init(&id);
        zmq_msg_init(&data);
        int rc = zmq_msg_recv(&id, ch->pub, ZMQ_DONTWAIT);
        if (rc >= 0)
            while ((rc = zmq_msg_recv(&data, ch->pub, 0)) < 0 && errno == EINTR) {}
        int e = errno;
        if (rc >= 0) from_client(ch, &id, &data);
        zmq_msg_close(&id);
        zmq_msg_close(&data);
        if (rc < 0) return e == EAGAIN || e == EINTR ? 0 : -1;
    }
    return 0;
}

/* Hands queued messages to the kernel while its ROUTER takes them. Returns -1 on ETERM. */
static int to_kernel(wl_gate_chan *ch)
{
    while (ch->head) {
        wl_gate_msg *m = ch->head;
        if (zmq_msg_send(&m->frames[0], ch->dealer, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -1;
        /* the rest of a message that has begun always fits */
        for (int i = 1; i < m->n; i++)
            while (zmq_msg_send(&m->frames[i], ch->dealer, i + 1 < m->n ? ZMQ_SNDMORE : 0) < 0)
                if (errno != EINTR) return -1;
        ch->head = m->next;
        if (!ch->head) ch->tail = &ch->head;
        free(m);
    }
    return 0;
}

static int usable(const wl_gate_conn *c)
{
    return c->open && !c->closing && !c->gone;
}

/* Sends a copy of out to c: 1 when it went, 0 when the connection is gone, -1 when its client does not read. */
static int deliver(wl_gate_conn *c, zmq_msg_t *out)
{
    zmq_msg_t copy;
    zmq_msg_init(&copy);
    zmq_msg_copy(&copy, out);
    int rc = send_to(c, &copy) == 0 ? 1 : errno == EAGAIN ? -1 : 0;
    zmq_msg_close(&copy);
    return rc;
}

/* One message from the kernel, [token, frames...]: to the connection the token names while it is open, else (and
 * always on stdin) to every open connection that claims the token's routing id. */
static void to_clients(wl_gate_chan *ch, zmq_msg_t *f, int n)
{
    size_t tlen = zmq_msg_size(&f[0]);
    const unsigned char *token = zmq_msg_data(&f[0]);
    if (n < 2 || tlen < CONN_ID) {
        fprintf(stderr, "wordlab kernel: a message for %s without the gate's token: dropped\n", ch->name);
        return;
    }
    size_t total = 0;
    unsigned char head[WL_ZMTP_HEADER_MAX];
    for (int i = 1; i < n; i++) total += wl_zmtp_header(head, zmq_msg_size(&f[i]), 0) + zmq_msg_size(&f[i]);
    zmq_msg_t out;
    if (zmq_msg_init_size(&out, total)) {
        fprintf(stderr, "wordlab kernel: out of memory for a message of %zu bytes on %s: dropped\n", total, ch->name);
        return;
    }
    unsigned char *p = zmq_msg_data(&out);
    for (int i = 1; i < n; i++) {
        p += wl_zmtp_header(p, zmq_msg_size(&f[i]), i + 1 < n);
        memcpy(p, zmq_msg_data(&f[i]), zmq_msg_size(&f[i]));
        p += zmq_msg_size(&f[i]);
    }
    wl_gate_conn *c = ch->is_stdin ? NULL : find(ch, token);
    int r = c && usable(c) ? deliver(c, &out) : 0;
    int sent = r > 0, full = r < 0;
    const unsigned char *claim = token + CONN_ID;
    size_t claim_len = tlen - CONN_ID;
    for (size_t i = 0; !r && claim_len && i < ch->nconns; i++) {
        wl_gate_conn *o = ch->conns[i];
        if (!usable(o) || o->claim_len != claim_len || memcmp(o->claim, claim, claim_len)) continue;
        int k = deliver(o, &out);
        sent += k > 0;
        full += k < 0;
    }
    if (full) fprintf(stderr, "wordlab kernel: dropped a message on %s for a client that does not read\n", ch->name);
    else if (!sent && ch->is_stdin)
        fprintf(stderr, "wordlab kernel: no stdin connection claims the routing id of the request that asks for "
                        "input: nobody is asked\n");
    zmq_msg_close(&out);
    reap(ch);
}

/* Relays everything the kernel has sent on this channel. Returns -1 on ETERM. */
static int read_kernel(wl_gate_chan *ch)
{
    for (;;) {
        zmq_msg_t *f = NULL;
        int n = 0, cap = 0, more = 1, rc = 0;
        while (more) {
            if (n == cap) {
                cap = cap ? 2 * cap : 8;
                f = wl_xrealloc(f, (size_t)cap * sizeof *f);
            }
            zmq_msg_init(&f[n]);
            while ((rc = zmq_msg_recv(&f[n], ch->dealer, n ? 0 : ZMQ_DONTWAIT)) < 0 && errno == EINTR && n) {}
            if (rc < 0) break;
            more = zmq_msg_more(&f[n++]);
        }
        int e = errno;
        if (rc >= 0) to_clients(ch, f, n);
        for (int i = 0; i < n + (rc < 0); i++) zmq_msg_close(&f[i]);   /* with the one that failed */
        free(f);
        if (rc < 0) return e == EAGAIN || e == EINTR ? 0 : -1;
    }
}

static void *gate_thread(void *arg)
{
    wl_gate *g = arg;
    for (int live = 1; live;) {
        zmq_pollitem_t it[2 * WL_GATE_NCH];
        for (int i = 0; i < WL_GATE_NCH; i++) {
            wl_gate_chan *ch = g->chan[i];
            it[2 * i] = (zmq_pollitem_t){ch->pub, 0, (short)(ch->head ? 0 : ZMQ_POLLIN), 0};
            it[2 * i + 1] = (zmq_pollitem_t){ch->dealer, 0, (short)(ZMQ_POLLIN | (ch->head ? ZMQ_POLLOUT : 0)), 0};
        }
        if (zmq_poll(it, 2 * WL_GATE_NCH, -1) < 0) {
            live = errno == EINTR;
            continue;
        }
        for (int i = 0; live && i < WL_GATE_NCH; i++) {
            wl_gate_chan *ch = g->chan[i];
            if (it[2 * i + 1].revents & ZMQ_POLLIN) live = !read_kernel(ch);
            if (live && ch->head) live = !to_kernel(ch);
            if (live && (it[2 * i].revents & ZMQ_POLLIN)) live = !read_clients(ch);
            if (live && ch->head) live = !to_kernel(ch);
        }
    }
    /* ETERM: the kernel is closing. What was handed to the ports still goes out (they linger). */
    for (int i = 0; i < WL_GATE_NCH; i++) {
        wl_gate_chan *ch = g->chan[i];
        zmq_close(ch->pub);
        zmq_close(ch->dealer);
        while (ch->nconns) forget(ch->conns[0]);
        for (wl_gate_msg *m = ch->head, *next; m; m = next) {
            next = m->next;
            for (int k = 0; k < m->n; k++) zmq_msg_close(&m->frames[k]);
            free(m);
        }
        ch->head = NULL;
    }
    return NULL;
}

static void free_chans(wl_gate *g)
{
    for (int i = 0; i < WL_GATE_NCH; i++) {
        if (g->chan[i]) free(g->chan[i]->conns);
        free(g->chan[i]);
        g->chan[i] = NULL;
    }
}

int wl_gate_start(wl_gate *g, void *ctx, void *const pub[WL_GATE_NCH])
{
    memset(g, 0, sizeof *g);
    int ok = 1, linger = INNER_LINGER_MS, zero = 0;
    for (int i = 0; ok && i < WL_GATE_NCH; i++) {
        char endpoint[64];
        snprintf(endpoint, sizeof endpoint, "inproc://wordlab-gate-%s", NAMES[i]);
        wl_gate_chan *ch = g->chan[i] = wl_xcalloc(1, sizeof *ch);
        ch->name = NAMES[i];
        ch->is_stdin = i == WL_GATE_STDIN;
        ch->pub = pub[i];
        ch->tail = &ch->head;
        g->inner[i] = zmq_socket(ctx, ZMQ_ROUTER);
        ch->dealer = zmq_socket(ctx, ZMQ_DEALER);
        /* kernel to gate: no high-water mark, the gate reads at once and decides what a slow client loses */
        ok = g->inner[i] && ch->dealer && !zmq_setsockopt(g->inner[i], ZMQ_LINGER, &linger, sizeof linger) &&
             !zmq_setsockopt(g->inner[i], ZMQ_SNDHWM, &zero, sizeof zero) && !zmq_bind(g->inner[i], endpoint) &&
             !zmq_setsockopt(ch->dealer, ZMQ_LINGER, &zero, sizeof zero) &&
             !zmq_setsockopt(ch->dealer, ZMQ_RCVHWM, &zero, sizeof zero) &&
             !zmq_setsockopt(ch->dealer, ZMQ_ROUTING_ID, GATE_ID, strlen(GATE_ID)) &&
             !zmq_connect(ch->dealer, endpoint);
    }
    ok = ok && !pthread_create(&g->thread, NULL, gate_thread, g);
    if (ok) {
        g->started = 1;
        return 0;
    }
    int e = errno;
    for (int i = 0; i < WL_GATE_NCH; i++) {
        if (g->inner[i]) zmq_close(g->inner[i]);
        if (g->chan[i] && g->chan[i]->dealer) zmq_close(g->chan[i]->dealer);
    }
    free_chans(g);
    memset(g, 0, sizeof *g);
    errno = e;
    return -1;
}

void wl_gate_join(wl_gate *g)
{
    if (!g->started) return;
    pthread_join(g->thread, NULL);
    free_chans(g);
    g->started = 0;
}

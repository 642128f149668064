/* kernel_gate.c: the kernel's five ports: ZMTP per connection over ZMQ_STREAM, relayed to and from the kernel's
 * threads, with timeouts and bounded memory (see kernel_gate.h for why). */
#include "kernel_gate.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zmq.h>

#include "kernel_wire.h"
#include "kernel_zmtp.h"
#include "wl_buf.h"

#define CONN_ID 5                     /* a ZMQ_STREAM connection's routing id: 0 and a 32-bit counter */
#define GATE_ID "wordlab-gate"        /* the routing id of the gate's DEALERs on the kernel's ROUTERs */
#define STOP_ENDPOINT "inproc://wordlab-gate-stop"
#define INNER_LINGER_MS 1000          /* a reply sent just before the kernel closes its ROUTER still reaches the gate */
#define TICK_MS 250                   /* how often the gate looks at its clocks */
#define FRAME_COST 64                 /* bookkeeping counted for each frame held, on top of its bytes */
#define STREAM_RCVHWM 64              /* chunks (of at most 8 KiB) libzmq reads ahead for one connection */
#define STREAM_SNDHWM 100000          /* messages libzmq queues for one connection; the gate keeps one free */
#define KEEPALIVE_IDLE_S 60           /* TCP keepalive: a peer whose machine is gone is found within 90 s */
#define KEEPALIVE_INTVL_S 10
#define KEEPALIVE_CNT 3
#define HB_MAX 4096                   /* bytes of a heartbeat (jupyter_client sends "ping") */

static const char *const NAMES[WL_GATE_NCH] = {"shell", "control", "stdin", "iopub", "heartbeat"};

/* What waits to be written to one connection: bytes and messages, shared with libzmq's threads, which free what
 * they have written. The connection holds one reference, and each message not yet written one. */
typedef struct wl_gate_held {
    atomic_size_t bytes;
    atomic_int refs;
} wl_gate_held;

typedef struct wl_gate_conn {
    wl_gate_chan *ch;
    unsigned char id[CONN_ID];
    unsigned char claim[WL_ZMTP_ID_MAX];   /* the routing id the client claims in its READY */
    size_t claim_len;
    int open;                             /* its handshake is done */
    int closing;                          /* the gate could not close it yet: its bytes are ignored */
    int gone;                             /* closed: forgotten by reap() once the event at hand is done */
    int subscribed;                       /* IOPub: subscriptions less cancellations */
    int lagging;                          /* a message was dropped for it (logged once until one goes again) */
    long long opened_us;                  /* µs: connected (stdin_of tells connections a millisecond apart) */
    long long heard, pinged;              /* ms: bytes last received, PING sent since (0: none) */
    int spoken;                           /* a message was handed to it: its silence means nothing (it may read late) */
    int vouched;                          /* it sent a message signed with the key (kernel_gate.h) */
    long long mark, mark_at;              /* z.done when a message was first seen unfinished, and when (0: none) */
    wl_gate_held *held;
    wl_zmtp z;
} wl_gate_conn;

/* A client's message on its way to the kernel: the token, then the client's frames. */
typedef struct wl_gate_msg {
    struct wl_gate_msg *next;
    int n;
    zmq_msg_t frames[];
} wl_gate_msg;

/* The token's bytes, with what the message costs: freed by whichever thread frees the message last. */
typedef struct wl_gate_token {
    atomic_size_t *in_flight;
    size_t cost;
    unsigned char bytes[];
} wl_gate_token;

/* One encoded message for one or more connections, and one connection's reference to it. */
typedef struct wl_gate_out {
    atomic_int refs;
    size_t len;
    unsigned char data[];
} wl_gate_out;

typedef struct wl_gate_ticket {
    wl_gate_out *out;
    wl_gate_held *held;
} wl_gate_ticket;

/* An input_request that waits for its client's stdin connection (stdin_route): the message and the token. */
typedef struct wl_gate_wait {
    struct wl_gate_wait *next;
    wl_gate_out *out;
    size_t tlen;
    unsigned char token[];
} wl_gate_wait;

struct wl_gate_chan {
    const char *name;
    int kind;                             /* WL_GATE_* */
    wl_gate *g;
    void *pub;                            /* ZMQ_STREAM: the port clients connect to */
    void *inner;                          /* relayed: a DEALER on the kernel's ROUTER; iopub: the PULL; hb: NULL */
    atomic_size_t in_flight;              /* bytes of messages handed to the kernel and not yet freed */
    wl_gate_conn **conns;
    size_t nconns;
    wl_gate_msg *head, **tail;            /* messages waiting for room on the dealer; none read meanwhile */
    wl_gate_wait *waiting;                /* stdin: input_requests waiting for their connection, oldest first */
    wl_log_limit log;                     /* its log lines about peers */
};

static long long now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static long long now_ms(void) { return now_us() / 1000; }

static wl_gate_conn *find(wl_gate_chan *ch, const void *id)
{
    for (size_t i = 0; i < ch->nconns; i++)
        if (!memcmp(ch->conns[i]->id, id, CONN_ID)) return ch->conns[i];
    return NULL;
}

static void held_unref(wl_gate_held *h)
{
    if (atomic_fetch_sub(&h->refs, 1) == 1) free(h);
}

static void out_unref(wl_gate_out *o)
{
    if (atomic_fetch_sub(&o->refs, 1) == 1) free(o);
}

static void subscribe(wl_gate_conn *c, int on)
{
    int was = c->subscribed > 0;
    if (on && c->subscribed < INT_MAX) c->subscribed++;
    if (!on && c->subscribed > 0) c->subscribed--;
    if ((c->subscribed > 0) != was) atomic_fetch_add(&c->ch->g->subscribers, was ? -1 : 1);
}

static void forget(wl_gate_conn *c)
{
    wl_gate_chan *ch = c->ch;
    for (size_t i = 0; i < ch->nconns; i++)
        if (ch->conns[i] == c) ch->conns[i] = ch->conns[--ch->nconns];
    if (c->subscribed > 0) atomic_fetch_sub(&ch->g->subscribers, 1);
    held_unref(c->held);
    wl_zmtp_free(&c->z);
    free(c);
}

/* Forgets the connections that closed while an event was handled (not during it: the decoder may be running). */
static void reap(wl_gate_chan *ch)
{
    for (size_t i = ch->nconns; i-- > 0;)
        if (ch->conns[i]->gone) forget(ch->conns[i]);
}

/* Sends one message to the connection with routing id id. Returns 0, or -1 with errno: EAGAIN when its queue is
 * full, EHOSTUNREACH when the connection is gone. */
static int send_id(void *pub, const unsigned char *id, zmq_msg_t *data)
{
    if (zmq_send(pub, id, CONN_ID, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0) return -1;
    return zmq_msg_send(data, pub, ZMQ_DONTWAIT) < 0 ? -1 : 0;
}

static void free_ticket(void *data, void *hint)
{
    wl_gate_ticket *t = hint;
    (void)data;
    atomic_fetch_sub(&t->held->bytes, t->out->len + FRAME_COST);
    held_unref(t->held);
    out_unref(t->out);
    free(t);
}

/* Closes a connection (an empty message on a ZMQ_STREAM, which drops what still waits for it); when that cannot be
 * sent yet, the gate ignores its bytes and tries again at its next tick. */
static void shut(wl_gate_conn *c, const char *why)
{
    if (!c->closing) wl_log_peer(&c->ch->log, why, "closed a connection on %s: %s", c->ch->name, why);
    zmq_msg_t m;
    zmq_msg_init(&m);
    if (send_id(c->ch->pub, c->id, &m) == 0 || errno == EHOSTUNREACH) c->gone = 1;
    else c->closing = 1;
    zmq_msg_close(&m);
}

/* Room for len more bytes waiting on this port: closes the connections that hold the most while the port's total
 * would pass WL_GATE_PORT_OUT_MAX. */
static void make_room(wl_gate_chan *ch, size_t len)
{
    for (;;) {
        size_t total = len;
        wl_gate_conn *most = NULL;
        for (size_t i = 0; i < ch->nconns; i++) {
            wl_gate_conn *c = ch->conns[i];
            size_t held = c->gone || c->closing ? 0 : atomic_load(&c->held->bytes);
            total += held;
            if (held && (!most || held > atomic_load(&most->held->bytes))) most = c;
        }
        if (total <= WL_GATE_PORT_OUT_MAX || !most) return;
        char why[120];
        snprintf(why, sizeof why, "a client that does not read (%zu bytes wait for it)", atomic_load(&most->held->bytes));
        shut(most, why);   /* gone, or closing: counted out from now on */
    }
}

/* Hands o to c's connection, unless what waits for the connection is at its bound: STREAM_SNDHWM - 1 messages (one
 * stays free for closing it), and with bounded, WL_GATE_OUT_MAX bytes (a reply is not bounded so: it goes to a client
 * that sent a signed request, which may read slowly); the port makes room for it (make_room). Returns 1 when it
 * went, 0 when it was dropped. */
static int deliver(wl_gate_conn *c, wl_gate_out *o, int bounded)
{
    size_t held = atomic_load(&c->held->bytes);
    if ((bounded && held && held + o->len > WL_GATE_OUT_MAX) || atomic_load(&c->held->refs) >= STREAM_SNDHWM) {
        if (!c->lagging)
            wl_log_peer(&c->ch->log, NULL, "a client on %s does not read: messages for it are dropped",
                    c->ch->name);
        c->lagging = 1;
        return 0;
    }
    make_room(c->ch, o->len);
    if (c->gone || c->closing) return 0;   /* it held the most */
    wl_gate_ticket *t = wl_xmalloc(sizeof *t);
    *t = (wl_gate_ticket){o, c->held};
    atomic_fetch_add(&o->refs, 1);
    atomic_fetch_add(&c->held->refs, 1);
    atomic_fetch_add(&c->held->bytes, o->len + FRAME_COST);
    zmq_msg_t m;
    if (zmq_msg_init_data(&m, o->data, o->len, free_ticket, t)) {
        free_ticket(NULL, t);
        return 0;
    }
    int rc = send_id(c->ch->pub, c->id, &m);
    int e = errno;
    zmq_msg_close(&m);   /* after a send: nothing; else frees the ticket */
    if (rc == 0) c->lagging = 0;
    else if (e == EHOSTUNREACH) c->gone = 1;
    else if (!c->lagging++)
        wl_log_peer(&c->ch->log, NULL, "a message on %s could not be queued: %s", c->ch->name, zmq_strerror(e));
    return rc == 0;
}

static wl_gate_out *out_new(size_t len)
{
    wl_gate_out *o = wl_xmalloc(sizeof *o + len);
    atomic_init(&o->refs, 1);
    o->len = len;
    return o;
}

static void send_bytes(wl_gate_conn *c, const void *p, size_t n)
{
    wl_gate_out *o = out_new(n);
    memcpy(o->data, p, n);
    deliver(c, o, 1);
    out_unref(o);
}

/* ---- what the decoder reports ---- */

static void on_ready(void *ud, const unsigned char *id, size_t len)
{
    wl_gate_conn *c = ud;
    if (len) memcpy(c->claim, id, len);
    c->claim_len = len;
    c->open = 1;
    unsigned char r[WL_ZMTP_READY_MAX];
    send_bytes(c, r, wl_zmtp_ready(r, c->ch->kind == WL_GATE_IOPUB));
}

static void on_ping(void *ud, const unsigned char *context, size_t len)
{
    unsigned char r[WL_ZMTP_PONG_MAX];
    send_bytes(ud, r, wl_zmtp_pong(r, context, len));
}

static void on_subscribe(void *ud, int on)
{
    wl_gate_conn *c = ud;
    if (c->ch->kind == WL_GATE_IOPUB) subscribe(c, on);
}

/* Room for need more bytes of a message on this port: what its connections are reading and what the kernel has not
 * freed yet stay within WL_GATE_IN_MAX. */
static int room(void *ud, uint64_t need)
{
    wl_gate_chan *ch = ((wl_gate_conn *)ud)->ch;
    uint64_t held = atomic_load(&ch->in_flight) + need + FRAME_COST;
    for (size_t i = 0; i < ch->nconns; i++) {
        const wl_zmtp *z = &ch->conns[i]->z;
        held += z->bytes + (uint64_t)z->count * FRAME_COST;
    }
    return held <= WL_GATE_IN_MAX;
}

static void free_data(void *data, void *hint)
{
    (void)hint;
    free(data);
}

static void free_token(void *data, void *hint)
{
    wl_gate_token *t = hint;
    (void)data;
    atomic_fetch_sub(t->in_flight, t->cost);
    free(t);
}

/* The frames encoded as ZMTP message frames, for one or more connections. */
static wl_gate_out *encode(const void *const *data, const size_t *len, int n)
{
    size_t total = 0;
    unsigned char head[WL_ZMTP_HEADER_MAX];
    for (int i = 0; i < n; i++) total += wl_zmtp_header(head, len[i], 0) + len[i];
    wl_gate_out *o = out_new(total);
    unsigned char *p = o->data;
    for (int i = 0; i < n; i++) {
        p += wl_zmtp_header(p, len[i], i + 1 < n);
        if (len[i]) memcpy(p, data[i], len[i]);
        p += len[i];
    }
    return o;
}

/* The heartbeat: the message back to its connection. */
static void echo(wl_gate_conn *c, wl_zmtp_frame *frames, int n)
{
    const void **data = wl_xmalloc((size_t)n * sizeof *data);
    size_t *len = wl_xmalloc((size_t)n * sizeof *len);
    for (int i = 0; i < n; i++) {
        data[i] = frames[i].data;
        len[i] = frames[i].len;
    }
    wl_gate_out *o = encode(data, len, n);
    if (deliver(c, o, 1)) c->spoken = 1;
    out_unref(o);
    for (int i = 0; i < n; i++) free(frames[i].data);
    free(data);
    free(len);
}

/* Whether the frames are a message signed with the key that is not a copy of one the kernel signed (its header
 * names the kernel's session: IOPub shows those to every subscriber). */
static int signed_by_client(wl_gate *g, const wl_zmtp_frame *frames, int n)
{
    static const char delim[] = "<IDS|MSG>";
    int d = 0;
    while (d < n && !(frames[d].len == sizeof delim - 1 && !memcmp(frames[d].data, delim, sizeof delim - 1))) d++;
    if (n < d + 6) return 0;
    const void *part[4];
    size_t len[4];
    for (int i = 0; i < 4; i++) {
        part[i] = frames[d + 2 + i].data;
        len[i] = frames[d + 2 + i].len;
    }
    const char *session = g->sig.wire->session;
    return wl_port_signed(&g->sig, frames[d + 1].data, frames[d + 1].len, part, len) &&
           !memmem(part[0], len[0], session, strlen(session));
}

/* A whole message from a client: on a relayed port, the token (the connection's number and its claimed routing id),
 * then its frames, queued for the kernel; on IOPub a subscription ([1 or 0, topic]), on heartbeat an echo. */
static void on_message(void *ud, wl_zmtp_frame *frames, int n)
{
    wl_gate_conn *c = ud;
    wl_gate_chan *ch = c->ch;
    if (c->gone || c->closing) {   /* closed earlier in the same bytes */
        for (int i = 0; i < n; i++) free(frames[i].data);
        return;
    }
    if (ch->kind == WL_GATE_HB) {
        echo(c, frames, n);
        return;
    }
    if (ch->kind == WL_GATE_IOPUB) {
        if (n == 1 && frames[0].len && frames[0].data[0] <= 1) subscribe(c, frames[0].data[0]);
        for (int i = 0; i < n; i++) free(frames[i].data);
        return;
    }
    if (!c->vouched) c->vouched = signed_by_client(ch->g, frames, n);
    wl_gate_msg *m = wl_xmalloc(sizeof *m + (size_t)(n + 1) * sizeof(zmq_msg_t));
    m->next = NULL;
    size_t tlen = CONN_ID + c->claim_len, cost = tlen + (size_t)(n + 1) * FRAME_COST;
    for (int i = 0; i < n; i++) cost += frames[i].len;
    wl_gate_token *t = wl_xmalloc(sizeof *t + tlen);
    *t = (wl_gate_token){&ch->in_flight, cost};
    memcpy(t->bytes, c->id, CONN_ID);
    memcpy(t->bytes + CONN_ID, c->claim, c->claim_len);
    atomic_fetch_add(&ch->in_flight, cost);
    int made = !zmq_msg_init_data(&m->frames[0], t->bytes, tlen, free_token, t);
    if (!made) free_token(NULL, t);
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
        wl_log_peer(&ch->log, NULL, "dropped a message on %s: out of memory", ch->name);
        return;
    }
    m->n = n + 1;
    *ch->tail = m;
    ch->tail = &m->next;
}

/* ---- the clients' side ---- */

/* Whether c is vouched for: it sent a client's signed message, or (off shell) it is the connection of its port that
 * came closest in time to a shell connection that did, within WL_GATE_STDIN_NEAR_MS of it. */
static int vouched(const wl_gate_conn *c)
{
    if (c->vouched) return 1;
    const wl_gate_chan *shell = c->ch->g->chan[WL_GATE_SHELL];
    if (c->ch == shell) return 0;
    for (size_t i = 0; i < shell->nconns; i++) {
        const wl_gate_conn *s = shell->conns[i];
        long long gap = llabs(s->opened_us - c->opened_us);
        if (!s->vouched || s->gone || gap > 1000LL * WL_GATE_STDIN_NEAR_MS) continue;
        int closest = 1;
        for (size_t j = 0; closest && j < c->ch->nconns; j++) {
            const wl_gate_conn *o = c->ch->conns[j];
            closest = o == c || o->gone || llabs(s->opened_us - o->opened_us) >= gap;
        }
        if (closest) return 1;
    }
    return 0;
}

/* On a full port: closes the oldest connection that is not vouched for (its place is free once it is gone: at once,
 * unless its close has to wait for room). */
static void evict(wl_gate_chan *ch)
{
    wl_gate_conn *oldest = NULL;
    for (size_t i = 0; i < ch->nconns; i++) {
        wl_gate_conn *c = ch->conns[i];
        if (c->gone || c->closing || vouched(c)) continue;
        if (!oldest || c->opened_us < oldest->opened_us) oldest = c;
    }
    if (!oldest) return;
    shut(oldest, "the port is full and it is not vouched for (no signed message): its place goes to a new one");
    reap(ch);
}

static void accept_conn(wl_gate_chan *ch, const unsigned char *id)
{
    if (ch->nconns >= WL_GATE_CONNS_MAX) evict(ch);
    if (ch->nconns >= WL_GATE_CONNS_MAX) {
        wl_log_peer(&ch->log, NULL, "refused a connection on %s: it has %d already", ch->name,
                WL_GATE_CONNS_MAX);
        zmq_msg_t m;
        zmq_msg_init(&m);
        send_id(ch->pub, id, &m);
        zmq_msg_close(&m);
        return;
    }
    wl_gate_conn *c = wl_xcalloc(1, sizeof *c);
    c->ch = ch;
    memcpy(c->id, id, CONN_ID);
    c->opened_us = now_us();
    c->heard = c->opened_us / 1000;
    c->held = wl_xmalloc(sizeof *c->held);
    atomic_init(&c->held->bytes, 0);
    atomic_init(&c->held->refs, 1);
    int small = ch->kind == WL_GATE_IOPUB ? WL_WIRE_SUBSCRIPTION_MAX : HB_MAX;
    if (ch->kind < WL_GATE_RELAYED) wl_zmtp_init(&c->z, 0, WL_WIRE_FRAME_MAX, WL_WIRE_MESSAGE_MAX);
    else wl_zmtp_init(&c->z, ch->kind == WL_GATE_IOPUB, (size_t)small, (size_t)small);
    ch->conns[ch->nconns++] = c;
    unsigned char g[WL_ZMTP_GREETING];
    wl_zmtp_greeting(g);
    send_bytes(c, g, sizeof g);
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
        accept_conn(ch, zmq_msg_data(id));
    } else if (c && !c->closing) {
        c->heard = now_ms();
        c->pinged = 0;
        wl_zmtp_sink sink = {c, on_ready, on_ping, on_message, on_subscribe, room};
        if (wl_zmtp_feed(&c->z, zmq_msg_data(data), n, &sink) && !c->gone) shut(c, c->z.why);
    }
    reap(ch);
}

/* Reads what clients sent, at most WL_GATE_BURST chunks, until nothing is left or a message waits for the kernel.
 * Returns -1 on ETERM. */
static int read_clients(wl_gate_chan *ch)
{
    for (int k = 0; k < WL_GATE_BURST && !ch->head; k++) {
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
        if (zmq_msg_send(&m->frames[0], ch->inner, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -1;
        /* the rest of a message that has begun always fits */
        for (int i = 1; i < m->n; i++)
            while (zmq_msg_send(&m->frames[i], ch->inner, i + 1 < m->n ? ZMQ_SNDMORE : 0) < 0)
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

/* Whether the connection o claims the routing id id[0..n). */
static int claims(const wl_gate_conn *o, const unsigned char *id, size_t n)
{
    return o->claim_len == n && !memcmp(o->claim, id, n);
}

/* Whether shell is, of the open shell connections that claim what the stdin connection o claims, the one that
 * connected closest in time to o: o is then that client's (a client that reconnects fast has an old stdin connection
 * a few ms from its new shell connection, but closer still to its old one while that is open). */
static int pairs_with(const wl_gate_conn *o, const wl_gate_conn *shell)
{
    const wl_gate_chan *sh = shell->ch;
    long long d = llabs(o->opened_us - shell->opened_us);
    for (size_t i = 0; i < sh->nconns; i++) {
        const wl_gate_conn *s = sh->conns[i];
        if (s != shell && usable(s) && claims(s, o->claim, o->claim_len) && llabs(o->opened_us - s->opened_us) < d)
            return 0;
    }
    return 1;
}

/* stdin: the connection that claims the routing id in token and connected closest in time to the shell connection
 * that token names, in *gap the µs between them (NULL when that one has closed, or none claims it); *shell that
 * shell connection. paired: only a connection that pairs with that shell connection (pairs_with). */
static wl_gate_conn *stdin_of(wl_gate_chan *ch, const unsigned char *token, size_t tlen, int paired,
                              wl_gate_conn **shell, long long *gap)
{
    wl_gate_conn *best = NULL;
    *shell = find(ch->g->chan[WL_GATE_SHELL], token);
    for (size_t i = 0; *shell && i < ch->nconns; i++) {
        wl_gate_conn *o = ch->conns[i];
        if (!usable(o) || !claims(o, token + CONN_ID, tlen - CONN_ID) || (paired && !pairs_with(o, *shell))) continue;
        long long d = llabs(o->opened_us - (*shell)->opened_us);
        if (!best || d < *gap) {
            best = o;
            *gap = d;
        }
    }
    return best;
}

/* Whether a stdin connection whose handshake is not done yet (its claim unknown) connected closer in time to shell
 * than gap µs. */
static int stdin_closer_pending(wl_gate_chan *ch, const wl_gate_conn *shell, long long gap)
{
    for (size_t i = 0; i < ch->nconns; i++) {
        const wl_gate_conn *o = ch->conns[i];
        if (!o->open && !o->closing && !o->gone && llabs(o->opened_us - shell->opened_us) < gap) return 1;
    }
    return 0;
}

/* Whether an input_request for the client of token waits before until (NULL: anywhere): a later one for it waits
 * too, so that the client gets them in order. */
static int stdin_client_waits(const wl_gate_chan *ch, const wl_gate_wait *until, const unsigned char *token,
                              size_t tlen)
{
    for (const wl_gate_wait *e = ch->waiting; e && e != until; e = e->next)
        if (e->tlen == tlen && !memcmp(e->token, token, tlen)) return 1;
    return 0;
}

/* Sends an input_request to its stdin connection (stdin_of), or says it must wait (returns 1): while the request's
 * shell connection is younger than WL_GATE_STDIN_WAIT_MS, it waits when no claimant connected within
 * WL_GATE_STDIN_NEAR_MS of it, or when a connection still in its handshake connected closer to it than the claimant
 * found: the client's own stdin connection may still be on its way (a client connects its channels together, and
 * its execute can reach the kernel before its stdin handshake is done). Returns 0 when it was sent or dropped. */
static int stdin_route(wl_gate_chan *ch, wl_gate_out *o, const unsigned char *token, size_t tlen, long long now)
{
    wl_gate_conn *shell = NULL;
    long long gap = 0;
    wl_gate_conn *c = stdin_of(ch, token, tlen, 1, &shell, &gap);
    if (shell && now - shell->opened_us / 1000 < WL_GATE_STDIN_WAIT_MS &&
        (!c || gap > 1000LL * WL_GATE_STDIN_NEAR_MS || stdin_closer_pending(ch, shell, gap)))
        return 1;
    if (!c) c = stdin_of(ch, token, tlen, 0, &shell, &gap);   /* its time is over: the closest claimant, if any */
    if (c && deliver(c, o, 0)) {
        c->spoken = 1;
    } else {
        wl_log_peer(&ch->log, NULL, "an input_request for a client without a stdin connection: dropped");
        atomic_fetch_add(&ch->g->stdin_dropped, 1);   /* the kernel's wait for its reply ends (kernel_zmq.c) */
    }
    return 0;
}

/* Sends or drops the waiting input_requests whose time has come, oldest first (stdin_client_waits). */
static void stdin_release(wl_gate_chan *ch, long long now)
{
    for (wl_gate_wait **p = &ch->waiting; *p;) {
        wl_gate_wait *w = *p;
        if (stdin_client_waits(ch, w, w->token, w->tlen) || stdin_route(ch, w->out, w->token, w->tlen, now)) {
            p = &w->next;
            continue;
        }
        *p = w->next;
        out_unref(w->out);
        free(w);
    }
    reap(ch);
}

/* One message from the kernel. Relayed ports: [token, frames...] to the connection the token names (stdin: see
 * stdin_of); iopub: [topic, frames...] to every subscribed connection. */
static void to_clients(wl_gate_chan *ch, zmq_msg_t *f, int n)
{
    int relayed = ch->kind != WL_GATE_IOPUB, skip = relayed;
    size_t tlen = zmq_msg_size(&f[0]);
    const unsigned char *token = zmq_msg_data(&f[0]);
    if (relayed && (n < 2 || tlen < CONN_ID)) {
        wl_log_peer(&ch->log, NULL, "a message for %s without the gate's token: dropped", ch->name);
        return;
    }
    const void **data = wl_xmalloc((size_t)n * sizeof *data);
    size_t *len = wl_xmalloc((size_t)n * sizeof *len);
    for (int i = skip; i < n; i++) {
        data[i - skip] = zmq_msg_data(&f[i]);
        len[i - skip] = zmq_msg_size(&f[i]);
    }
    wl_gate_out *o = encode(data, len, n - skip);
    free(data);
    free(len);
    if (!relayed) {
        for (size_t i = 0; i < ch->nconns; i++)
            if (usable(ch->conns[i]) && ch->conns[i]->subscribed > 0 && deliver(ch->conns[i], o, 1))
                ch->conns[i]->spoken = 1;
    } else if (ch->kind == WL_GATE_STDIN) {
        /* what stdin connections have done by now (a client's connect, its handshake) is known before the route is
         * chosen: a gate thread kept from running for seconds finds them queued behind the request */
        if (!ch->head) read_clients(ch);
        if (stdin_client_waits(ch, NULL, token, tlen) || stdin_route(ch, o, token, tlen, now_ms())) {
            wl_gate_wait *w = wl_xmalloc(sizeof *w + tlen), **end = &ch->waiting;
            while (*end) end = &(*end)->next;
            *w = (wl_gate_wait){.out = o, .tlen = tlen};
            memcpy(w->token, token, tlen);
            atomic_fetch_add(&o->refs, 1);
            *end = w;
        }
    } else {
        wl_gate_conn *c = find(ch, token);
        if (c && usable(c) && deliver(c, o, 0)) c->spoken = 1;
        else wl_log_peer(&ch->log, NULL, "a message on %s for a connection that is gone: dropped", ch->name);
    }
    out_unref(o);
    reap(ch);
}

/* Relays everything the kernel has sent on this port. Returns -1 on ETERM. */
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
            while ((rc = zmq_msg_recv(&f[n], ch->inner, n ? 0 : ZMQ_DONTWAIT)) < 0 && errno == EINTR && n) {}
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

/* The clocks of every connection: handshake, silence of one that was never sent a message (a PING first; TCP
 * keepalive finds a vanished peer of the others), a message that does not finish. */
static void sweep(wl_gate_chan *ch, long long now)
{
    for (size_t i = 0; i < ch->nconns; i++) {
        wl_gate_conn *c = ch->conns[i];
        if (c->gone) continue;
        if (c->closing) {
            shut(c, "");
        } else if (!c->open) {
            if (now - c->opened_us / 1000 > WL_GATE_HANDSHAKE_MS) shut(c, "no ZMTP handshake within its time");
        } else if (!c->spoken && now - c->heard > WL_GATE_SILENT_MS) {
            shut(c, "silent for too long, PING unanswered");
        } else if (c->z.count && c->mark_at && c->mark == c->z.done && now - c->mark_at > WL_GATE_MESSAGE_MS) {
            shut(c, "a message unfinished for too long");
        } else {
            if (!c->z.count || c->mark != c->z.done || !c->mark_at) {
                c->mark = c->z.done;
                c->mark_at = c->z.count ? now : 0;
            }
            if (!c->spoken && now - c->heard > WL_GATE_PING_MS && !c->pinged && c->z.minor) {
                unsigned char p[WL_ZMTP_PING_LEN];
                wl_zmtp_ping(p);
                send_bytes(c, p, sizeof p);
                c->pinged = now;
            }
        }
    }
    reap(ch);
}

static void *gate_thread(void *arg)
{
    wl_gate *g = arg;
    long long swept = now_ms();
    for (int live = 1, stop = 0; live && !stop;) {
        zmq_pollitem_t it[2 * WL_GATE_NCH + 1];
        int at[WL_GATE_NCH], n = 0;
        for (int i = 0; i < WL_GATE_NCH; i++) {
            wl_gate_chan *ch = g->chan[i];
            it[n++] = (zmq_pollitem_t){ch->pub, 0, (short)(ch->head ? 0 : ZMQ_POLLIN), 0};
            at[i] = ch->inner ? n : -1;
            if (ch->inner)
                it[n++] = (zmq_pollitem_t){ch->inner, 0, (short)(ZMQ_POLLIN | (ch->head ? ZMQ_POLLOUT : 0)), 0};
        }
        it[n++] = (zmq_pollitem_t){g->stop_rx, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(it, n, TICK_MS) < 0) {
            live = errno == EINTR;
            continue;
        }
        stop = it[n - 1].revents & ZMQ_POLLIN;
        for (int i = 0, k = 0; live && i < WL_GATE_NCH; i++, k++) {
            wl_gate_chan *ch = g->chan[i];
            short from_clients = it[k].revents;
            if (at[i] >= 0 && (it[++k].revents & ZMQ_POLLIN)) live = !read_kernel(ch);
            if (live && ch->head) live = !to_kernel(ch);
            if (live && (from_clients & ZMQ_POLLIN)) live = !read_clients(ch);
            if (live && ch->head) live = !to_kernel(ch);
        }
        long long now = now_ms();
        if (live && g->chan[WL_GATE_STDIN]->waiting) stdin_release(g->chan[WL_GATE_STDIN], now);
        if (live && now - swept >= TICK_MS) {
            for (int i = 0; i < WL_GATE_NCH; i++) sweep(g->chan[i], now);
            swept = now;
        }
    }
    /* Stopped: what the kernel has sent and published so far still goes out (the ports linger). */
    for (int i = 0; i < WL_GATE_NCH; i++)
        if (g->chan[i]->inner) read_kernel(g->chan[i]);
    for (int i = 0; i < WL_GATE_NCH; i++) {
        wl_gate_chan *ch = g->chan[i];
        zmq_close(ch->pub);
        if (ch->inner) zmq_close(ch->inner);
        for (wl_gate_wait *w = ch->waiting, *next; w; w = next) {
            next = w->next;
            out_unref(w->out);
            free(w);
        }
        ch->waiting = NULL;
        while (ch->nconns) forget(ch->conns[0]);
        for (wl_gate_msg *m = ch->head, *next; m; m = next) {
            next = m->next;
            for (int k = 0; k < m->n; k++) zmq_msg_close(&m->frames[k]);
            free(m);
        }
        ch->head = NULL;
    }
    zmq_close(g->stop_rx);
    return NULL;
}

static void free_chans(wl_gate *g)
{
    for (int i = 0; i < WL_GATE_NCH; i++) {
        if (g->chan[i]) free(g->chan[i]->conns);
        free(g->chan[i]);
        g->chan[i] = NULL;
    }
    wl_port_free(&g->sig);
}

/* The kernel's side of a relayed port: its ROUTER, bound in-process, and the gate's DEALER on it. */
static int relay(wl_gate *g, void *ctx, int i)
{
    char endpoint[64];
    int linger = INNER_LINGER_MS, zero = 0;
    snprintf(endpoint, sizeof endpoint, "inproc://wordlab-gate-%s", NAMES[i]);
    g->inner[i] = zmq_socket(ctx, ZMQ_ROUTER);
    void *dealer = g->chan[i]->inner = zmq_socket(ctx, ZMQ_DEALER);
    /* No high-water marks in between: the gate reads at once, and bounds what it holds itself. */
    return g->inner[i] && dealer && !zmq_setsockopt(g->inner[i], ZMQ_LINGER, &linger, sizeof linger) &&
           !zmq_setsockopt(g->inner[i], ZMQ_SNDHWM, &zero, sizeof zero) &&
           !zmq_setsockopt(g->inner[i], ZMQ_RCVHWM, &zero, sizeof zero) && !zmq_bind(g->inner[i], endpoint) &&
           !zmq_setsockopt(dealer, ZMQ_LINGER, &zero, sizeof zero) &&
           !zmq_setsockopt(dealer, ZMQ_RCVHWM, &zero, sizeof zero) &&
           !zmq_setsockopt(dealer, ZMQ_SNDHWM, &zero, sizeof zero) &&
           !zmq_setsockopt(dealer, ZMQ_ROUTING_ID, GATE_ID, strlen(GATE_ID)) && !zmq_connect(dealer, endpoint);
}

void *wl_gate_port(void *ctx, int linger_ms)
{
    void *s = zmq_socket(ctx, ZMQ_STREAM);
    int rcvhwm = STREAM_RCVHWM, sndhwm = STREAM_SNDHWM, on = 1, idle = KEEPALIVE_IDLE_S, intvl = KEEPALIVE_INTVL_S,
        cnt = KEEPALIVE_CNT;
    if (s && (zmq_setsockopt(s, ZMQ_LINGER, &linger_ms, sizeof linger_ms) ||
              zmq_setsockopt(s, ZMQ_TCP_KEEPALIVE, &on, sizeof on) ||
              zmq_setsockopt(s, ZMQ_TCP_KEEPALIVE_IDLE, &idle, sizeof idle) ||
              zmq_setsockopt(s, ZMQ_TCP_KEEPALIVE_INTVL, &intvl, sizeof intvl) ||
              zmq_setsockopt(s, ZMQ_TCP_KEEPALIVE_CNT, &cnt, sizeof cnt) ||
              zmq_setsockopt(s, ZMQ_RCVHWM, &rcvhwm, sizeof rcvhwm) ||
              zmq_setsockopt(s, ZMQ_SNDHWM, &sndhwm, sizeof sndhwm))) {
        zmq_close(s);
        return NULL;
    }
    return s;
}

int wl_gate_start(wl_gate *g, void *ctx, void *const pub[WL_GATE_NCH], wl_wire *wire)
{
    memset(g, 0, sizeof *g);
    wl_port_init(&g->sig, wire, NULL, "gate");
    atomic_init(&g->subscribers, 0);
    atomic_init(&g->stdin_dropped, 0);
    int ok = 1, zero = 0;
    for (int i = 0; ok && i < WL_GATE_NCH; i++) {
        wl_gate_chan *ch = g->chan[i] = wl_xcalloc(1, sizeof *ch);
        ch->name = NAMES[i];
        ch->kind = i;
        ch->g = g;
        ch->pub = pub[i];
        ch->tail = &ch->head;
        ch->conns = wl_xmalloc(WL_GATE_CONNS_MAX * sizeof *ch->conns);
        atomic_init(&ch->in_flight, 0);
        if (i < WL_GATE_RELAYED) ok = relay(g, ctx, i);
        if (ok && i == WL_GATE_IOPUB) {
            ch->inner = zmq_socket(ctx, ZMQ_PULL);
            ok = ch->inner && !zmq_setsockopt(ch->inner, ZMQ_LINGER, &zero, sizeof zero) &&
                 !zmq_bind(ch->inner, WL_GATE_IOPUB_ENDPOINT);
        }
    }
    g->stop_tx = ok ? zmq_socket(ctx, ZMQ_PAIR) : NULL;
    g->stop_rx = ok ? zmq_socket(ctx, ZMQ_PAIR) : NULL;
    ok = ok && g->stop_tx && g->stop_rx && !zmq_bind(g->stop_rx, STOP_ENDPOINT) && !zmq_connect(g->stop_tx, STOP_ENDPOINT);
    ok = ok && !pthread_create(&g->thread, NULL, gate_thread, g);
    if (ok) {
        g->started = 1;
        return 0;
    }
    int e = errno;
    for (int i = 0; i < WL_GATE_RELAYED; i++)
        if (g->inner[i]) zmq_close(g->inner[i]);
    for (int i = 0; i < WL_GATE_NCH; i++)
        if (g->chan[i] && g->chan[i]->inner) zmq_close(g->chan[i]->inner);
    if (g->stop_tx) zmq_close(g->stop_tx);
    if (g->stop_rx) zmq_close(g->stop_rx);
    free_chans(g);
    memset(g, 0, sizeof *g);
    errno = e;
    return -1;
}

void wl_gate_stop(wl_gate *g)
{
    if (!g->started) return;
    while (zmq_send(g->stop_tx, "", 0, 0) < 0 && errno == EINTR) {}
    pthread_join(g->thread, NULL);
    zmq_close(g->stop_tx);
    free_chans(g);
    g->started = 0;
}

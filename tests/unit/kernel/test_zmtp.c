/* test_zmtp.c: the gate's ZMTP 3 decoder and encoders on hand-made byte streams: a libzmq client's greeting, READY
 * and messages (whole and byte by byte), every refusal, messages over the limits or without room, PING, a
 * subscriber's handshake and subscriptions. */
#include "kernel_zmtp.h"
#include "wl_test.h"

#include <stdlib.h>
#include <string.h>

#define FRAME_MAX 1000
#define MESSAGE_MAX 3000

/* ---- a sink that records what the decoder reports ---- */

typedef struct rec {
    int readies, pings, messages, subs, cancels;
    uint64_t room_left;           /* what room() grants (UINT64_MAX: all) */
    unsigned char id[WL_ZMTP_ID_MAX];
    size_t id_len;
    unsigned char ping[32];
    size_t ping_len;
    int nframes;                 /* of the last message */
    size_t len[8];
    unsigned char first[8];      /* first byte of each frame (0 when empty) */
} rec;

static void on_ready(void *ud, const unsigned char *id, size_t len)
{
    rec *r = ud;
    r->readies++;
    if (len) memcpy(r->id, id, len);
    r->id_len = len;
}

static void on_ping(void *ud, const unsigned char *context, size_t len)
{
    rec *r = ud;
    r->pings++;
    memcpy(r->ping, context, len);
    r->ping_len = len;
}

static void on_message(void *ud, wl_zmtp_frame *frames, int n)
{
    rec *r = ud;
    r->messages++;
    r->nframes = n;
    for (int i = 0; i < n; i++) {
        if (i < 8) {
            r->len[i] = frames[i].len;
            r->first[i] = frames[i].len ? frames[i].data[0] : 0;
        }
        free(frames[i].data);
    }
}

static void on_subscribe(void *ud, int on)
{
    rec *r = ud;
    if (on) r->subs++;
    else r->cancels++;
}

static int on_room(void *ud, uint64_t need)
{
    rec *r = ud;
    if (need > r->room_left) return 0;
    r->room_left -= need;
    return 1;
}

/* ---- byte streams ---- */

typedef struct stream {
    unsigned char b[1 << 18];   /* room for 65,538 empty frames */
    size_t n;
} stream;

static void put(stream *s, const void *p, size_t n)
{
    memcpy(s->b + s->n, p, n);
    s->n += n;
}

static void put_byte(stream *s, unsigned char c)
{
    put(s, &c, 1);
}

/* What libzmq 4.3 sends first: signature, version 3.1, NULL, as-server 0, filler. */
static void greeting(stream *s, int major, const char *mechanism)
{
    unsigned char g[WL_ZMTP_GREETING] = {0xFF, 0, 0, 0, 0, 0, 0, 0, 1, 0x7F};
    g[10] = (unsigned char)major;
    g[11] = 1;
    memcpy(g + 12, mechanism, strlen(mechanism));
    put(s, g, sizeof g);
}

static void property(stream *s, const char *name, const void *value, size_t len)
{
    put_byte(s, (unsigned char)strlen(name));
    put(s, name, strlen(name));
    unsigned char l[4] = {(unsigned char)(len >> 24), (unsigned char)(len >> 16), (unsigned char)(len >> 8),
                          (unsigned char)len};
    put(s, l, 4);
    put(s, value, len);
}

/* A command frame: name and data, short or long. */
static void command(stream *s, const char *name, const void *data, size_t len)
{
    size_t n = 1 + strlen(name) + len;
    unsigned char h[WL_ZMTP_HEADER_MAX];
    size_t hn = wl_zmtp_header(h, n, 0);
    h[0] |= 4;
    put(s, h, hn);
    put_byte(s, (unsigned char)strlen(name));
    put(s, name, strlen(name));
    put(s, data, len);
}

static void ready(stream *s, const char *type, const char *id)
{
    static stream props;
    props.n = 0;
    if (type) property(&props, "Socket-Type", type, strlen(type));
    if (id) property(&props, "Identity", id, strlen(id));
    command(s, "READY", props.b, props.n);
}

static void frame(stream *s, unsigned char fill, size_t len, int more)
{
    unsigned char h[WL_ZMTP_HEADER_MAX];
    put(s, h, wl_zmtp_header(h, len, more));
    for (size_t i = 0; i < len; i++) put_byte(s, fill);
}

static int feed(wl_zmtp *z, rec *r, const stream *s, int bytewise)
{
    wl_zmtp_sink sink = {r, on_ready, on_ping, on_message, on_subscribe, on_room};
    if (!bytewise) return wl_zmtp_feed(z, s->b, s->n, &sink);
    for (size_t i = 0; i < s->n; i++)
        if (wl_zmtp_feed(z, s->b + i, 1, &sink)) return -1;
    return 0;
}

/* A client's handshake followed by extra; returns feed's result. */
static int session(wl_zmtp *z, rec *r, const stream *extra, int bytewise)
{
    static stream s;
    s.n = 0;
    greeting(&s, 3, "NULL");
    ready(&s, "DEALER", "client-1");
    if (extra) put(&s, extra->b, extra->n);
    memset(r, 0, sizeof *r);
    r->room_left = UINT64_MAX;
    wl_zmtp_init(z, 0, FRAME_MAX, MESSAGE_MAX);
    return feed(z, r, &s, bytewise);
}

static void test_a_client_handshake_and_messages(void)
{
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        static stream m;
        m.n = 0;
        frame(&m, 'a', 300, 1);   /* a long frame (more than 255 bytes) */
        frame(&m, 0, 0, 1);       /* an empty one */
        frame(&m, 'c', 3, 0);
        frame(&m, 'd', 1, 0);     /* a second message */
        wl_zmtp z;
        rec r;
        CHECK(session(&z, &r, &m, bytewise) == 0);
        CHECK(z.open && r.readies == 1 && r.id_len == 8 && !memcmp(r.id, "client-1", 8));
        CHECK(r.messages == 2 && r.nframes == 1 && r.len[0] == 1 && r.first[0] == 'd');
        wl_zmtp_free(&z);
        rec first;
        m.n = 0;
        frame(&m, 'a', 300, 1);
        frame(&m, 0, 0, 1);
        frame(&m, 'c', 3, 0);
        CHECK(session(&z, &first, &m, bytewise) == 0);
        CHECK(first.messages == 1 && first.nframes == 3);
        CHECK(first.len[0] == 300 && first.first[0] == 'a' && first.len[1] == 0 && first.len[2] == 3 &&
              first.first[2] == 'c');
        wl_zmtp_free(&z);
    }
}

static void test_a_client_without_a_routing_id(void)
{
    static stream s;
    s.n = 0;
    greeting(&s, 3, "NULL");
    ready(&s, "REQ", NULL);
    wl_zmtp z;
    rec r = {.room_left = UINT64_MAX};
    wl_zmtp_init(&z, 0, FRAME_MAX, MESSAGE_MAX);
    CHECK(feed(&z, &r, &s, 0) == 0 && r.readies == 1 && r.id_len == 0);
    wl_zmtp_free(&z);
}

/* A stream that must be refused with a reason that contains want. */
static void refused(const stream *s, const char *want)
{
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        wl_zmtp z;
        rec r = {.room_left = UINT64_MAX};
        wl_zmtp_init(&z, 0, FRAME_MAX, MESSAGE_MAX);
        CHECK_MSG(feed(&z, &r, s, bytewise) == -1 && strstr(z.why, want), "want \"%s\", got \"%s\"", want, z.why);
        wl_zmtp_free(&z);
    }
}

static void test_refusals(void)
{
    static stream s;
    s.n = 0;
    put(&s, "GET / HTTP/1.1\r\n\r\n", 18);
    refused(&s, "not a ZMTP greeting");
    s.n = 0;
    greeting(&s, 1, "NULL");   /* ZMTP 2.0: refused at its 11th byte, before a greeting it would never finish */
    s.n = 11;
    refused(&s, "ZMTP 2");
    s.n = 0;
    greeting(&s, 3, "CURVE");
    refused(&s, "other than NULL");
    s.n = 0;
    greeting(&s, 3, "NULL");
    frame(&s, 'x', 2, 0);
    refused(&s, "a message before the handshake");
    s.n = 0;
    greeting(&s, 3, "NULL");
    ready(&s, "PUB", "x");
    refused(&s, "not a DEALER, REQ or ROUTER");
    s.n = 0;
    greeting(&s, 3, "NULL");
    ready(&s, NULL, "x");
    refused(&s, "without a Socket-Type");
    s.n = 0;
    greeting(&s, 3, "NULL");
    char long_id[WL_ZMTP_ID_MAX + 2];
    memset(long_id, 'i', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = 0;
    ready(&s, "DEALER", long_id);
    refused(&s, "a routing id of 256 bytes");
    s.n = 0;
    greeting(&s, 3, "NULL");
    unsigned char bad[] = {11, 'S', 'o', 'c', 'k', 'e', 't', '-', 'T', 'y', 'p', 'e', 0, 0, 0, 9, 'D'};
    command(&s, "READY", bad, sizeof bad);   /* a value longer than what is left */
    refused(&s, "malformed READY");
    s.n = 0;
    greeting(&s, 3, "NULL");
    command(&s, "ERROR", "\003400", 4);
    refused(&s, "ERROR");
    s.n = 0;
    greeting(&s, 3, "NULL");
    command(&s, "PING", "\0\1", 2);
    refused(&s, "other than READY before the handshake");

    static stream m;
    m.n = 0;
    ready(&m, "DEALER", "again");
    wl_zmtp z;
    rec r;
    CHECK(session(&z, &r, &m, 0) == -1 && strstr(z.why, "a second READY"));
    wl_zmtp_free(&z);
    m.n = 0;
    put_byte(&m, 0x08);   /* a reserved flag bit */
    put_byte(&m, 0);
    CHECK(session(&z, &r, &m, 0) == -1 && strstr(z.why, "frame flags 0x08"));
    wl_zmtp_free(&z);
    m.n = 0;
    put_byte(&m, 4 | 1);  /* a command marked as followed by more */
    put_byte(&m, 5);
    CHECK(session(&z, &r, &m, 0) == -1 && strstr(z.why, "followed by more"));
    wl_zmtp_free(&z);
    m.n = 0;
    frame(&m, 'a', 2, 1);
    command(&m, "PING", "\0\1", 2);
    CHECK(session(&z, &r, &m, 0) == -1 && strstr(z.why, "a command inside a message"));
    wl_zmtp_free(&z);
    m.n = 0;
    put_byte(&m, 4);      /* an empty command */
    put_byte(&m, 0);
    CHECK(session(&z, &r, &m, 0) == -1 && strstr(z.why, "without a name"));
    wl_zmtp_free(&z);
}

/* A frame over the limit is refused from its header alone, before any of its bytes are kept. */
static void test_a_frame_over_the_limit_closes_at_its_header(void)
{
    static stream m;
    m.n = 0;
    unsigned char h[WL_ZMTP_HEADER_MAX];
    put(&m, h, wl_zmtp_header(h, (uint64_t)1 << 62, 0));
    wl_zmtp z;
    rec r;
    CHECK(session(&z, &r, &m, 0) == -1 && strstr(z.why, "more than the 1000 bytes a frame may have"));
    wl_zmtp_free(&z);
    m.n = 0;
    put(&m, h, wl_zmtp_header(h, FRAME_MAX + 1, 0));
    CHECK(session(&z, &r, &m, 0) == -1 && strstr(z.why, "a frame of 1001 bytes"));
    wl_zmtp_free(&z);
    m.n = 0;
    h[0] = 4 | 2;   /* a command over WL_ZMTP_COMMAND_MAX */
    uint64_t big = WL_ZMTP_COMMAND_MAX + 1;
    for (int i = 0; i < 8; i++) h[1 + i] = (unsigned char)(big >> (8 * (7 - i)));
    put(&m, h, 9);
    CHECK(session(&z, &r, &m, 0) == -1 && strstr(z.why, "a command of 65537 bytes"));
    wl_zmtp_free(&z);
}

/* A message over the limits, or one the caller has no room for, closes the connection at the frame that passes. */
static void test_messages_over_the_limits_or_without_room_close_the_connection(void)
{
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        static stream m;
        m.n = 0;
        for (int i = 0; i < 4; i++) frame(&m, 'b', FRAME_MAX, 1);   /* each fits, together 4000 > 3000 */
        frame(&m, 'b', 5, 0);
        wl_zmtp z;
        rec r;
        CHECK(session(&z, &r, &m, bytewise) == -1);
        CHECK_MSG(strstr(z.why, "4000 bytes so far, more than the 3000 bytes a message may have"), "%s", z.why);
        CHECK(r.messages == 0 && z.nframes == 3);
        wl_zmtp_free(&z);
    }
    static stream many;
    many.n = 0;
    for (int i = 0; i <= WL_ZMTP_FRAMES_MAX; i++) frame(&many, 0, 0, 1);
    frame(&many, 0, 0, 0);
    wl_zmtp z;
    rec r;
    CHECK(session(&z, &r, &many, 0) == -1);
    CHECK_MSG(strstr(z.why, "more than the 65536 frames"), "%s", z.why);
    wl_zmtp_free(&z);

    static stream s, m;
    s.n = m.n = 0;
    greeting(&s, 3, "NULL");
    ready(&s, "DEALER", "c");
    frame(&m, 'a', 100, 1);
    frame(&m, 'b', 100, 0);
    memset(&r, 0, sizeof r);
    r.room_left = 150;   /* the first frame fits, the second does not */
    wl_zmtp_init(&z, 0, FRAME_MAX, MESSAGE_MAX);
    CHECK(feed(&z, &r, &s, 0) == 0 && feed(&z, &r, &m, 0) == -1 && strstr(z.why, "no room"));
    CHECK(r.messages == 0 && r.room_left == 50);
    wl_zmtp_free(&z);
}

/* As a PUB: a SUB or XSUB is accepted, a DEALER refused; SUBSCRIBE and CANCEL commands are reported, and
 * old-style subscriptions arrive as messages. */
static void test_a_subscriber(void)
{
    static const char *const types[] = {"SUB", "XSUB", "DEALER"};
    for (int t = 0; t < 3; t++) {
        static stream s;
        s.n = 0;
        greeting(&s, 3, "NULL");
        ready(&s, types[t], NULL);
        command(&s, "SUBSCRIBE", "topic", 5);
        command(&s, "CANCEL", "topic", 5);
        frame(&s, 1, 1, 0);
        wl_zmtp z;
        rec r = {.room_left = UINT64_MAX};
        wl_zmtp_init(&z, 1, FRAME_MAX, MESSAGE_MAX);
        int rc = feed(&z, &r, &s, t == 1);
        if (t < 2)
            CHECK(rc == 0 && r.readies == 1 && r.subs == 1 && r.cancels == 1 && r.messages == 1 && r.first[0] == 1);
        else
            CHECK(rc == -1 && strstr(z.why, "not a SUB or XSUB"));
        wl_zmtp_free(&z);
    }
    unsigned char rd[WL_ZMTP_READY_MAX];
    size_t n = wl_zmtp_ready(rd, 1);
    CHECK(n <= WL_ZMTP_READY_MAX && memmem(rd, n, "\x0bSocket-Type\0\0\0\3PUB", 19));
}

static void test_ping_and_what_is_ignored(void)
{
    static stream m;
    m.n = 0;
    command(&m, "PING", "\0\12context", 9);
    command(&m, "PONG", "", 0);
    command(&m, "SUBSCRIBE", "t", 1);
    frame(&m, 'z', 1, 0);
    wl_zmtp z;
    rec r;
    CHECK(session(&z, &r, &m, 1) == 0);
    CHECK(r.pings == 1 && r.ping_len == 7 && !memcmp(r.ping, "context", 7) && r.messages == 1);
    unsigned char pong[WL_ZMTP_PONG_MAX];
    size_t n = wl_zmtp_pong(pong, (const unsigned char *)"context", 7);
    CHECK(n == 14 && pong[0] == 4 && pong[1] == 12 && !memcmp(pong + 2, "\4PONGcontext", 12));
    wl_zmtp_free(&z);
    CHECK(z.minor == 0);
    static stream p;   /* the gate's PING, read back by the decoder as a peer's: a PING with an empty context */
    p.n = 0;
    unsigned char ping[WL_ZMTP_PING_LEN];
    wl_zmtp_ping(ping);
    put(&p, ping, sizeof ping);
    CHECK(session(&z, &r, &p, 0) == 0 && r.pings == 1 && r.ping_len == 0 && z.minor == 1);
    wl_zmtp_free(&z);
}

/* A message cut off inside a frame: freeing the decoder frees what it holds (ASan checks). */
static void test_free_in_the_middle_of_a_message(void)
{
    static stream m;
    m.n = 0;
    frame(&m, 'a', 10, 1);
    frame(&m, 'b', 500, 0);
    m.n -= 100;
    wl_zmtp z;
    rec r;
    CHECK(session(&z, &r, &m, 0) == 0 && r.messages == 0);
    wl_zmtp_free(&z);
}

/* What the gate sends, read back: its greeting and READY pass the decoder (as a ROUTER's). */
static void test_the_gates_own_bytes(void)
{
    static stream s;
    s.n = 0;
    unsigned char g[WL_ZMTP_GREETING], rd[WL_ZMTP_READY_MAX];
    wl_zmtp_greeting(g);
    CHECK(g[0] == 0xFF && g[9] == 0x7F && g[10] == 3 && g[11] == 1 && !memcmp(g + 12, "NULL\0", 5) && !g[32]);
    put(&s, g, sizeof g);
    size_t n = wl_zmtp_ready(rd, 0);
    CHECK(memmem(rd, n, "\x0bSocket-Type\0\0\0\6ROUTER", 22) != NULL);
    CHECK(n <= WL_ZMTP_READY_MAX && rd[0] == 4 && rd[1] == n - 2 && !memcmp(rd + 2, "\5READY", 6));
    put(&s, rd, n);
    wl_zmtp z;
    rec r = {.room_left = UINT64_MAX};
    wl_zmtp_init(&z, 0, FRAME_MAX, MESSAGE_MAX);
    CHECK(feed(&z, &r, &s, 0) == 0 && r.readies == 1 && r.id_len == 0);
    wl_zmtp_free(&z);
    unsigned char h[WL_ZMTP_HEADER_MAX];
    CHECK(wl_zmtp_header(h, 255, 1) == 2 && h[0] == 1 && h[1] == 255);
    CHECK(wl_zmtp_header(h, 256, 0) == 9 && h[0] == 2 && h[7] == 1 && h[8] == 0);
}

void wl_test_main(void)
{
    test_a_client_handshake_and_messages();
    test_a_client_without_a_routing_id();
    test_refusals();
    test_a_frame_over_the_limit_closes_at_its_header();
    test_messages_over_the_limits_or_without_room_close_the_connection();
    test_a_subscriber();
    test_ping_and_what_is_ignored();
    test_free_in_the_middle_of_a_message();
    test_the_gates_own_bytes();
}

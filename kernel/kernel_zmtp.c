/* kernel_zmtp.c: ZMTP 3 as the kernel's gate speaks it with one client (greeting, NULL handshake, frames); no I/O. */
#include "kernel_zmtp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ZMTP 3.0 / 3.1 (rfc.zeromq.org 23 and 37): a greeting of 64 bytes (signature 0xFF, 8 bytes of padding, 0x7F; the
 * version 3.x; the mechanism's name in 20 bytes; as-server; filler), then frames: a flags byte, a size of 1 byte
 * (or 8, big-endian, with FLAG_LONG), the bytes. Commands (FLAG_COMMAND) are a name of 1 + n bytes and data. */
enum { STEP_SIGNATURE, STEP_GREETING, STEP_FLAGS, STEP_SIZE, STEP_COMMAND, STEP_BODY };
#define FLAG_MORE 1
#define FLAG_LONG 2
#define FLAG_COMMAND 4
#define SIGNATURE_LEN 11        /* the signature and the major version: enough to refuse an older peer at once */
#define MECHANISM_AT 12
#define MECHANISM_LEN 20
#define PING_CONTEXT_MAX 16

void wl_zmtp_init(wl_zmtp *z, int pub, size_t frame_max, size_t message_max)
{
    memset(z, 0, sizeof *z);
    z->pub = pub;
    z->frame_max = frame_max;
    z->message_max = message_max;
    z->step = STEP_SIGNATURE;
    z->want = SIGNATURE_LEN;
}

static void drop_frames(wl_zmtp *z)
{
    for (int i = 0; i < z->nframes; i++) free(z->frames[i].data);
    z->nframes = 0;
}

void wl_zmtp_free(wl_zmtp *z)
{
    drop_frames(z);
    free(z->frames);
    free(z->body);
    memset(z, 0, sizeof *z);
}

__attribute__((format(printf, 2, 3))) static int fail(wl_zmtp *z, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(z->why, sizeof z->why, fmt, ap);
    va_end(ap);
    return -1;
}

static int is(const unsigned char *p, size_t n, const char *word)
{
    return n == strlen(word) && !memcmp(p, word, n);
}

static uint64_t get_be(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}

/* READY's metadata: properties of a 1-byte name length, the name, a 4-byte value length, the value. */
static int ready(wl_zmtp *z, const unsigned char *p, size_t n, const wl_zmtp_sink *s)
{
    const unsigned char *id = NULL;
    size_t id_len = 0;
    int typed = 0;
    while (n > 0) {
        size_t name_len = p[0];
        if (n < 1 + name_len + 4) return fail(z, "a malformed READY command");
        const unsigned char *name = p + 1;
        uint64_t value_len = get_be(p + 1 + name_len, 4);
        size_t rest = n - 1 - name_len - 4;
        if (value_len > rest) return fail(z, "a malformed READY command");
        const unsigned char *value = p + 1 + name_len + 4;
        if (is(name, name_len, "Socket-Type")) {
            if (z->pub && !is(value, value_len, "SUB") && !is(value, value_len, "XSUB"))
                return fail(z, "a subscriber socket that is not a SUB or XSUB");
            if (!z->pub && !is(value, value_len, "DEALER") && !is(value, value_len, "REQ") &&
                !is(value, value_len, "ROUTER"))
                return fail(z, "a client socket that is not a DEALER, REQ or ROUTER");
            typed = 1;
        } else if (is(name, name_len, "Identity")) {
            if (value_len > WL_ZMTP_ID_MAX)
                return fail(z, "a routing id of %llu bytes, more than %d", (unsigned long long)value_len,
                            WL_ZMTP_ID_MAX);
            id = value;
            id_len = value_len;
        }
        p = value + value_len;
        n = rest - value_len;
    }
    if (!typed) return fail(z, "a READY command without a Socket-Type");
    z->open = 1;
    s->ready(s->ud, id, id_len);
    return 0;
}

static int command(wl_zmtp *z, const wl_zmtp_sink *s)
{
    const unsigned char *b = z->body;
    size_t n = z->size;
    if (n < 1 || (size_t)b[0] + 1 > n) return fail(z, "a command without a name");
    const unsigned char *name = b + 1, *data = b + 1 + b[0];
    size_t name_len = b[0], data_len = n - 1 - name_len;
    if (is(name, name_len, "ERROR")) return fail(z, "the client sent an ERROR command");
    if (!z->open) {
        if (!is(name, name_len, "READY")) return fail(z, "a command other than READY before the handshake");
        return ready(z, data, data_len, s);
    }
    if (is(name, name_len, "READY")) return fail(z, "a second READY command");
    if (is(name, name_len, "PING")) {   /* a 2-byte TTL, then up to 16 bytes of context that PONG returns */
        if (data_len < 2) return fail(z, "a PING command without its TTL");
        size_t ctx_len = data_len - 2 < PING_CONTEXT_MAX ? data_len - 2 : PING_CONTEXT_MAX;
        s->ping(s->ud, data + 2, ctx_len);
    }
    int sub = is(name, name_len, "SUBSCRIBE");
    if ((sub || is(name, name_len, "CANCEL")) && s->subscribe) s->subscribe(s->ud, sub);
    return 0;   /* other commands (PONG, ...) mean nothing here */
}

static void next_frame(wl_zmtp *z)
{
    z->step = STEP_FLAGS;
    z->have = 0;
    z->want = 1;
}

/* A message frame's size is known: keep its bytes, unless the message passes a limit or the caller has no room. */
static int frame_start(wl_zmtp *z, const wl_zmtp_sink *s)
{
    if (!z->open) return fail(z, "a message before the handshake");
    if (z->size > z->frame_max)
        return fail(z, "a frame of %llu bytes, more than the %zu bytes a frame may have", (unsigned long long)z->size,
                    z->frame_max);
    if (++z->count > WL_ZMTP_FRAMES_MAX)
        return fail(z, "a message of more than the %d frames a message may have", WL_ZMTP_FRAMES_MAX);
    if (z->bytes + z->size > z->message_max)
        return fail(z, "a message of %llu bytes so far, more than the %zu bytes a message may have",
                    (unsigned long long)(z->bytes + z->size), z->message_max);
    if (s->room && !s->room(s->ud, z->size))
        return fail(z, "a message the kernel has no room for: it holds as much of its clients' messages as it may");
    z->bytes += z->size;
    z->fill = 0;
    z->body = z->size ? malloc(z->size) : NULL;
    if (z->size && !z->body) return fail(z, "out of memory for a frame of %llu bytes", (unsigned long long)z->size);
    z->step = STEP_BODY;
    return 0;
}

static int frame_end(wl_zmtp *z, const wl_zmtp_sink *s)
{
    if (z->nframes == z->cap) {
        int cap = z->cap ? 2 * z->cap : 8;
        wl_zmtp_frame *f = realloc(z->frames, (size_t)cap * sizeof *f);
        if (!f) return fail(z, "out of memory for a message of %d frames", cap);
        z->frames = f;
        z->cap = cap;
    }
    z->frames[z->nframes++] = (wl_zmtp_frame){z->body, z->size};
    z->body = NULL;
    if (!(z->flags & FLAG_MORE)) {
        s->message(s->ud, z->frames, z->nframes);   /* the frames' data is the sink's now */
        z->nframes = 0;
        z->bytes = 0;
        z->count = 0;
        z->done++;
    }
    next_frame(z);
    return 0;
}

/* The step that just completed; sets up the next one. */
static int step(wl_zmtp *z, const wl_zmtp_sink *s)
{
    static const unsigned char null_mechanism[MECHANISM_LEN] = "NULL";
    switch (z->step) {
    case STEP_SIGNATURE:
        if (z->head[0] != 0xFF || !(z->head[9] & 1)) return fail(z, "not a ZMTP greeting");
        if (z->head[10] < 3) return fail(z, "ZMTP %d; the kernel speaks ZMTP 3", z->head[10] + 1);
        z->step = STEP_GREETING;
        z->want = WL_ZMTP_GREETING;
        return 0;
    case STEP_GREETING:
        if (memcmp(z->head + MECHANISM_AT, null_mechanism, MECHANISM_LEN))
            return fail(z, "a security mechanism other than NULL");
        z->minor = z->head[10] > 3 || z->head[11] >= 1;
        next_frame(z);
        return 0;
    case STEP_FLAGS:
        z->flags = z->head[0];
        if (z->flags & ~(FLAG_MORE | FLAG_LONG | FLAG_COMMAND)) return fail(z, "frame flags 0x%02x", z->flags);
        z->step = STEP_SIZE;
        z->have = 0;
        z->want = z->flags & FLAG_LONG ? 8 : 1;
        return 0;
    case STEP_SIZE:
        z->size = get_be(z->head, (int)z->want);
        if (!(z->flags & FLAG_COMMAND)) return frame_start(z, s);
        if (z->flags & FLAG_MORE) return fail(z, "a command frame marked as followed by more frames");
        if (z->count) return fail(z, "a command inside a message");
        if (z->size > WL_ZMTP_COMMAND_MAX)
            return fail(z, "a command of %llu bytes, more than the %d bytes a command may have",
                        (unsigned long long)z->size, WL_ZMTP_COMMAND_MAX);
        z->body = malloc(z->size ? z->size : 1);
        if (!z->body) return fail(z, "out of memory for a command");
        z->fill = 0;
        z->step = STEP_COMMAND;
        return 0;
    case STEP_COMMAND: {
        int rc = command(z, s);
        free(z->body);
        z->body = NULL;
        next_frame(z);
        return rc;
    }
    default:   /* STEP_BODY */
        return frame_end(z, s);
    }
}

static int step_complete(const wl_zmtp *z)
{
    if (z->step == STEP_COMMAND || z->step == STEP_BODY) return z->fill == z->size;
    return z->have == z->want;
}

int wl_zmtp_feed(wl_zmtp *z, const unsigned char *p, size_t n, const wl_zmtp_sink *s)
{
    while (n > 0) {
        size_t k;
        if (z->step == STEP_COMMAND || z->step == STEP_BODY) {
            k = z->size - z->fill < n ? (size_t)(z->size - z->fill) : n;
            memcpy(z->body + z->fill, p, k);
            z->fill += k;
        } else {
            k = z->want - z->have < n ? z->want - z->have : n;
            memcpy(z->head + z->have, p, k);
            z->have += k;
        }
        p += k;
        n -= k;
        while (step_complete(z))   /* a frame of 0 bytes completes with no byte of its own */
            if (step(z, s)) return -1;
    }
    return 0;
}

void wl_zmtp_greeting(unsigned char out[WL_ZMTP_GREETING])
{
    memset(out, 0, WL_ZMTP_GREETING);
    out[0] = 0xFF;
    out[8] = 1;   /* libzmq's padding: what ZMTP 1.0 read as the length of an empty routing id */
    out[9] = 0x7F;
    out[10] = 3;
    out[11] = 1;
    memcpy(out + MECHANISM_AT, "NULL", 4);
}

static size_t put_property(unsigned char *out, const char *name, const char *value)
{
    size_t nl = strlen(name), vl = strlen(value);
    out[0] = (unsigned char)nl;
    memcpy(out + 1, name, nl);
    for (int i = 0; i < 4; i++) out[1 + nl + i] = (unsigned char)(vl >> (8 * (3 - i)));
    memcpy(out + 1 + nl + 4, value, vl);
    return 1 + nl + 4 + vl;
}

size_t wl_zmtp_ready(unsigned char out[WL_ZMTP_READY_MAX], int pub)
{
    size_t n = 2;
    memcpy(out + n, "\5READY", 6);
    n += 6;
    n += put_property(out + n, "Socket-Type", pub ? "PUB" : "ROUTER");
    n += put_property(out + n, "Identity", "");
    out[0] = FLAG_COMMAND;
    out[1] = (unsigned char)(n - 2);
    return n;
}

void wl_zmtp_ping(unsigned char out[WL_ZMTP_PING_LEN])
{
    memcpy(out, "\4\7\4PING\0\0", WL_ZMTP_PING_LEN);   /* a TTL of 0: the peer keeps no timer of its own */
}

size_t wl_zmtp_pong(unsigned char out[WL_ZMTP_PONG_MAX], const unsigned char *context, size_t len)
{
    if (len > PING_CONTEXT_MAX) len = PING_CONTEXT_MAX;
    out[0] = FLAG_COMMAND;
    out[1] = (unsigned char)(5 + len);
    memcpy(out + 2, "\4PONG", 5);
    if (len) memcpy(out + 7, context, len);
    return 7 + len;
}

size_t wl_zmtp_header(unsigned char out[WL_ZMTP_HEADER_MAX], uint64_t len, int more)
{
    out[0] = more ? FLAG_MORE : 0;
    if (len <= 255) {
        out[1] = (unsigned char)len;
        return 2;
    }
    out[0] |= FLAG_LONG;
    for (int i = 0; i < 8; i++) out[1 + i] = (unsigned char)(len >> (8 * (7 - i)));
    return 9;
}

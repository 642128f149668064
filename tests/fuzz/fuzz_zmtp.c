/* fuzz_zmtp.c: libFuzzer target for the transport's ZMTP 3 decoder (kernel_zmtp.c), the first code that reads the
 * bytes a peer sends to any of the kernel's ports. Built by the fuzz build (WL_FUZZ). Seeds: tests/fuzz/corpus/zmtp.
 * Input: one byte of settings (bit 0: the decoder is a PUB, as on IOPub; bits 1-3: the room the sink grants, in
 * steps of 64 bytes, 0 for all), one byte for the size of the pieces the rest is fed in (0: whole), then the bytes.
 * Checks: every message keeps the limits (frames, bytes, frame count), a READY's routing id is at most 255 bytes and
 * comes once, a PING's context at most 16 bytes, nothing is reported before the handshake; and fed whole or in
 * pieces, the decoder reports the same events and the same outcome. */
#include "kernel_zmtp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FRAME_MAX 4096
#define MESSAGE_MAX 8192

typedef struct run {
    uint64_t hash;        /* of every event, in order */
    uint64_t room;        /* what room() still grants; UINT64_MAX: all */
    int readies;
} run;

static void mix(run *r, uint64_t v)
{
    r->hash = (r->hash ^ v) * 0x100000001b3ULL;
}

static void mix_bytes(run *r, const unsigned char *p, size_t n)
{
    mix(r, n);
    for (size_t i = 0; i < n; i++) mix(r, p[i]);
}

static void on_ready(void *ud, const unsigned char *id, size_t len)
{
    run *r = ud;
    if (len > WL_ZMTP_ID_MAX || ++r->readies > 1) abort();
    mix(r, 1);
    mix_bytes(r, id, len);
}

static void on_ping(void *ud, const unsigned char *context, size_t len)
{
    run *r = ud;
    if (len > 16 || !r->readies) abort();
    mix(r, 2);
    mix_bytes(r, context, len);
}

static void on_message(void *ud, wl_zmtp_frame *frames, int n)
{
    run *r = ud;
    if (n < 1 || n > WL_ZMTP_FRAMES_MAX || !r->readies) abort();
    size_t total = 0;
    mix(r, 3);
    for (int i = 0; i < n; i++) {
        if (frames[i].len > FRAME_MAX || (frames[i].len && !frames[i].data)) abort();
        total += frames[i].len;
        mix_bytes(r, frames[i].data, frames[i].len);
        free(frames[i].data);
    }
    if (total > MESSAGE_MAX) abort();
}

static void on_subscribe(void *ud, int on)
{
    run *r = ud;
    if (!r->readies) abort();
    mix(r, 4 + (uint64_t)on);
}

static int on_room(void *ud, uint64_t need)
{
    run *r = ud;
    if (need > FRAME_MAX) abort();
    if (r->room != UINT64_MAX) {
        if (need > r->room) return 0;
        r->room -= need;
    }
    return 1;
}

/* Feeds p[0..n) in pieces of step bytes (0: whole); returns the decoder's outcome and fills *r. */
static int decode(int pub, uint64_t room, const unsigned char *p, size_t n, size_t step, run *r, char why[128])
{
    memset(r, 0, sizeof *r);
    r->hash = 0xcbf29ce484222325ULL;
    r->room = room;
    wl_zmtp z;
    wl_zmtp_init(&z, pub, FRAME_MAX, MESSAGE_MAX);
    wl_zmtp_sink sink = {r, on_ready, on_ping, on_message, on_subscribe, on_room};
    int rc = 0;
    for (size_t at = 0; at < n && !rc; at += step ? step : n) {
        size_t k = step && step < n - at ? step : n - at;
        rc = wl_zmtp_feed(&z, p + at, k, &sink);
    }
    if (rc && !z.why[0]) abort();   /* a refusal always says why */
    memcpy(why, z.why, 128);
    wl_zmtp_free(&z);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    int pub = data[0] & 1;
    uint64_t room = (data[0] >> 1) & 7 ? (uint64_t)((data[0] >> 1) & 7) * 64 : UINT64_MAX;
    size_t step = data[1];
    run whole, pieces;
    char why_whole[128], why_pieces[128];
    int a = decode(pub, room, data + 2, size - 2, 0, &whole, why_whole);
    int b = decode(pub, room, data + 2, size - 2, step, &pieces, why_pieces);
    if (a != b || whole.hash != pieces.hash || (a && strcmp(why_whole, why_pieces))) abort();
    return 0;
}

/* fuzz_wire.c: libFuzzer target for the kernel's message decoder (frames, HMAC check, replay check, JSON parts)
 * and its signed replies, over a real in-process ZeroMQ ROUTER as the kernel's shell socket has.
 * Built by CMake (WL_FUZZ). Seeds: tests/fuzz/corpus/wire.
 * Input: one flag byte, then frames separated by "\n--\n". Flags: bit 0 signs the message correctly with
 * the key (the frame after "<IDS|MSG>" is replaced by the right HMAC, so the fuzzer gets past the check),
 * bit 1 runs without a key, bit 2 sends the message a second time (a replay).
 * Checks: a message is accepted only with a right signature (or no key), has object parts and a msg_type;
 * a replay is dropped when there is a key; the reply to an accepted message is routed back to the sender,
 * signed, and carries the request's header bytes as its parent_header; wl_utf8_clean gives valid UTF-8. */
#include "kernel_json.h"
#include "kernel_wire.h"
#include "wl_text.h"
#include "wl_utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/hmac.h>

#define SEP "\n--\n"
#define KEY "fuzz-key-0123456789"
#define MAXF 64

static void *ctx, *router, *dealer;
static wl_wire wires[2];   /* without and with the key */
static wl_port ports[2];

static void setup(void)
{
    int zero = 0;
    ctx = zmq_ctx_new();
    router = zmq_socket(ctx, ZMQ_ROUTER);
    dealer = zmq_socket(ctx, ZMQ_DEALER);
    zmq_setsockopt(router, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(dealer, ZMQ_LINGER, &zero, sizeof zero);
    if (!ctx || !router || !dealer || zmq_bind(router, "inproc://fuzz-shell") || zmq_connect(dealer, "inproc://fuzz-shell"))
        abort();
    for (int k = 0; k < 2; k++)
        if (wl_wire_init(&wires[k], KEY, k ? strlen(KEY) : 0) || wl_port_init(&ports[k], &wires[k], router, "shell"))
            abort();
}

/* Forgets the signatures seen so far, so that each input starts afresh (as a new kernel would). */
static void forget_seen(wl_wire *w)
{
    for (int g = 0; g < 2; g++) memset(w->seen[g], 0, w->seen_cap[g] * sizeof *w->seen[g]);
    w->seen_n = 0;
}

/* Receives one whole multipart message (blocking) into frames; returns the frame count. */
static int recv_all(void *sock, zmq_msg_t *frames, int cap)
{
    int n = 0, more = 1;
    while (more) {
        if (n == cap) abort();
        zmq_msg_init(&frames[n]);
        if (zmq_msg_recv(&frames[n], sock, 0) < 0) abort();
        more = zmq_msg_more(&frames[n]);
        n++;
    }
    return n;
}

static void hmac_hex(const unsigned char *key, size_t keylen, const void *const part[4], const size_t len[4], char out[65])
{
    size_t total = 0, o = 0;
    for (int i = 0; i < 4; i++) total += len[i];
    unsigned char *buf = malloc(total + 1), md[32];
    unsigned int mdlen = 0;
    if (!buf) abort();
    for (int i = 0; i < 4; i++) {
        if (len[i]) memcpy(buf + o, part[i], len[i]);
        o += len[i];
    }
    if (!HMAC(EVP_sha256(), key, (int)keylen, buf, total, md, &mdlen) || mdlen != 32) abort();
    free(buf);
    for (int i = 0; i < 32; i++) {
        out[2 * i] = "0123456789abcdef"[md[i] >> 4];
        out[2 * i + 1] = "0123456789abcdef"[md[i] & 15];
    }
    out[64] = 0;
}

static void send_frames(const void *const *f, const size_t *len, int n)
{
    for (int i = 0; i < n; i++)
        if (zmq_send(dealer, f[i], len[i], i < n - 1 ? ZMQ_SNDMORE : 0) < 0) abort();
}

/* The kernel's reply to an accepted message m, read back on the client side and checked. */
static void check_reply(wl_port *p, const wl_msg *m, const char *content)
{
    if (wl_wire_send(p, m, 1, "fuzz_reply", content, strlen(content))) abort();
    zmq_msg_t f[MAXF + 1];
    int n = recv_all(dealer, f, MAXF + 1);
    /* The DEALER gets the request's ids after the ROUTER's own (which the ROUTER takes off), then the
     * delimiter, signature, header, parent, metadata and content. */
    int d = m->delim - 1;
    if (n != d + 6 || zmq_msg_size(&f[d]) != 9 || memcmp(zmq_msg_data(&f[d]), "<IDS|MSG>", 9)) abort();
    for (int i = 0; i < d; i++)
        if (zmq_msg_size(&f[i]) != zmq_msg_size((zmq_msg_t *)&m->frames[i + 1]) ||
            memcmp(zmq_msg_data(&f[i]), zmq_msg_data((zmq_msg_t *)&m->frames[i + 1]), zmq_msg_size(&f[i])))
            abort();
    const void *part[4];
    size_t len[4];
    for (int i = 0; i < 4; i++) {
        part[i] = zmq_msg_data(&f[d + 2 + i]);
        len[i] = zmq_msg_size(&f[d + 2 + i]);
    }
    if (p->wire->keylen) {
        char want[65];
        hmac_hex(p->wire->key, p->wire->keylen, part, len, want);
        if (zmq_msg_size(&f[d + 1]) != 64 || memcmp(zmq_msg_data(&f[d + 1]), want, 64)) abort();
    } else if (zmq_msg_size(&f[d + 1]) != 0) {
        abort();
    }
    const zmq_msg_t *hdr = &m->frames[m->delim + 2];
    if (len[1] != zmq_msg_size((zmq_msg_t *)hdr) || memcmp(part[1], zmq_msg_data((zmq_msg_t *)hdr), len[1])) abort();
    cJSON *h = cJSON_ParseWithLength(part[0], len[0]);
    const char *type = wl_json_str(h, "msg_type");
    if (!type || strcmp(type, "fuzz_reply")) abort();
    cJSON_Delete(h);
    for (int i = 0; i < n; i++) zmq_msg_close(&f[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ctx) setup();
    if (size < 1) return 0;
    int flags = data[0];
    const char *s = (const char *)data + 1, *end = (const char *)data + size;
    const void *frame[MAXF];
    size_t len[MAXF];
    int n = 0;
    for (;;) {
        const char *cut = memmem(s, (size_t)(end - s), SEP, strlen(SEP));
        if (n == MAXF) return 0;
        frame[n] = s;
        len[n++] = (size_t)((cut ? cut : end) - s);
        if (!cut) break;
        s = cut + strlen(SEP);
    }
    int keyed = !(flags & 2);
    char sig[65];
    int delim = -1;
    for (int i = 0; i < n && delim < 0; i++)
        if (len[i] == 9 && !memcmp(frame[i], "<IDS|MSG>", 9)) delim = i;
    int signed_ok = 0;
    if ((flags & 1) && keyed && delim >= 0 && n >= delim + 6) {
        hmac_hex((const unsigned char *)KEY, strlen(KEY), &frame[delim + 2], &len[delim + 2], sig);
        frame[delim + 1] = sig;
        len[delim + 1] = 64;
        signed_ok = 1;
    }

    wl_port *p = &ports[keyed];
    forget_seen(&wires[keyed]);
    for (int round = 0; round < ((flags & 4) ? 2 : 1); round++) {
        send_frames(frame, len, n);
        wl_msg m;
        int r = wl_wire_recv(p, &m, 0);
        if (r < 0) abort();
        if (r == 0) continue;
        if (keyed && (!signed_ok || round == 1)) abort();   /* a wrong signature or a replay got through */
        if (!cJSON_IsObject(m.header) || !cJSON_IsObject(m.parent) || !cJSON_IsObject(m.metadata) ||
            !cJSON_IsObject(m.content) || !m.type || m.delim != 1 + delim)
            abort();
        const zmq_msg_t *c = &m.frames[m.delim + 5];
        char *clean = wl_utf8_clean(zmq_msg_data((zmq_msg_t *)c), zmq_msg_size((zmq_msg_t *)c));
        size_t bad, clen = strlen(clean);
        if (wl_text_utf8_check(clean, clen, &bad)) abort();
        long cps = wl_utf8_cp_count(clean, clen);
        if (wl_utf8_byte_offset(clean, clen, cps) != clen || wl_utf8_byte_offset(clean, clen, cps + 5) != clen) abort();
        free(clean);
        check_reply(p, &m, "{\"status\":\"ok\"}");
        wl_msg_free(&m);
    }
    return 0;
}

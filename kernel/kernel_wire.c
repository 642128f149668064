/* kernel_wire.c: Jupyter wire framing: receives, checks (HMAC before parsing) and sends signed multipart messages. */
#include "kernel_wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <sodium.h>

#include "kernel_json.h"
#include "wl_buf.h"
#include "wl_utf8.h"

#define DELIM "<IDS|MSG>"
#define SIG_HEX 64              /* HMAC-SHA256 as lowercase hex */
#define SEEN_CAP WL_WIRE_REPLAY_WINDOW   /* signatures per generation; a set has at least twice as many slots */
#define SEEN_START 1024                  /* slots of a new set: it doubles as it fills (an idle kernel stays small) */

int wl_wire_init(wl_wire *w, const char *key, size_t keylen)
{
    memset(w, 0, sizeof *w);
    if (sodium_init() < 0) return -1;
    w->key = malloc(keylen ? keylen : 1);
    w->seen[0] = calloc(SEEN_START, sizeof(uint64_t));
    w->seen[1] = calloc(SEEN_START, sizeof(uint64_t));
    w->seen_cap[0] = w->seen_cap[1] = SEEN_START;
    if (!w->key || !w->seen[0] || !w->seen[1]) {
        wl_wire_free(w);
        return -1;
    }
    memcpy(w->key, key, keylen);
    w->keylen = keylen;
    wl_uuid4(w->session);
    pthread_mutex_init(&w->seen_lock, NULL);
    return 0;
}

void wl_wire_free(wl_wire *w)
{
    if (w->seen[0] && w->seen[1]) pthread_mutex_destroy(&w->seen_lock);
    free(w->key);
    free(w->seen[0]);
    free(w->seen[1]);
    memset(w, 0, sizeof *w);
}

int wl_port_init(wl_port *p, wl_wire *w, void *sock, const char *name)
{
    memset(p, 0, sizeof *p);
    p->sock = sock;
    p->name = name;
    p->wire = w;
    if (w->keylen) crypto_auth_hmacsha256_init(&p->mac, w->key, w->keylen);
    return 0;
}

void wl_port_free(wl_port *p)
{
    sodium_memzero(&p->mac, sizeof p->mac);
}

/* HMAC-SHA256 of the four parts as lowercase hex into hex[65]. */
static void sign_parts(wl_port *p, const void *const part[4], const size_t len[4], char hex[SIG_HEX + 1])
{
    unsigned char md[crypto_auth_hmacsha256_BYTES];
    crypto_auth_hmacsha256_state c = p->mac;
    for (int i = 0; i < 4; i++) crypto_auth_hmacsha256_update(&c, part[i], len[i]);
    crypto_auth_hmacsha256_final(&c, md);
    sodium_memzero(&c, sizeof c);
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof md; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[SIG_HEX] = 0;
}

static int set_has(const uint64_t *set, size_t cap, uint64_t h)
{
    for (size_t i = h & (cap - 1);; i = (i + 1) & (cap - 1)) {
        if (set[i] == h) return 1;
        if (!set[i]) return 0;
    }
}

static void set_put(uint64_t *set, size_t cap, uint64_t h)
{
    size_t i = h & (cap - 1);
    while (set[i]) i = (i + 1) & (cap - 1);
    set[i] = h;
}

/* Records a signature; returns 1 when it was seen before (a replay). */
static int seen_before(wl_wire *w, const char *sig)
{
    uint64_t h = 0;
    for (int i = 0; i < 16; i++) h = h << 4 | (uint64_t)(sig[i] <= '9' ? sig[i] - '0' : sig[i] - 'a' + 10);
    if (!h) h = 1;   /* 0 marks an empty slot */
    pthread_mutex_lock(&w->seen_lock);
    int dup = set_has(w->seen[0], w->seen_cap[0], h) || set_has(w->seen[1], w->seen_cap[1], h);
    if (!dup) {
        if (w->seen_n == SEEN_CAP) {   /* drop the older generation */
            free(w->seen[1]);
            w->seen[1] = w->seen[0];
            w->seen_cap[1] = w->seen_cap[0];
            w->seen[0] = wl_xcalloc(SEEN_START, sizeof(uint64_t));
            w->seen_cap[0] = SEEN_START;
            w->seen_n = 0;
        }
        if (2 * (w->seen_n + 1) > w->seen_cap[0]) {   /* at most half full */
            size_t cap = 2 * w->seen_cap[0];
            uint64_t *grown = wl_xcalloc(cap, sizeof(uint64_t));
            for (size_t i = 0; i < w->seen_cap[0]; i++)
                if (w->seen[0][i]) set_put(grown, cap, w->seen[0][i]);
            free(w->seen[0]);
            w->seen[0] = grown;
            w->seen_cap[0] = cap;
        }
        set_put(w->seen[0], w->seen_cap[0], h);
        w->seen_n++;
    }
    pthread_mutex_unlock(&w->seen_lock);
    return dup;
}

static void drop(wl_port *p, const char *why)
{
    wl_log_peer(&p->log, why, "dropped a message on %s: %s", p->name, why);
}

void wl_msg_free(wl_msg *m)
{
    for (int i = 0; i < m->nframes; i++) zmq_msg_close(&m->frames[i]);
    free(m->frames);
    cJSON_Delete(m->header);
    cJSON_Delete(m->parent);
    cJSON_Delete(m->metadata);
    cJSON_Delete(m->content);
    memset(m, 0, sizeof *m);
}

int wl_port_signed(wl_port *p, const void *sig, size_t siglen, const void *const part[4], const size_t len[4])
{
    if (!p->wire->keylen) return 1;
    char want[SIG_HEX + 1];
    if (siglen != SIG_HEX) return 0;
    sign_parts(p, part, len, want);
    return sodium_memcmp(want, sig, SIG_HEX) == 0;
}

/* Checks the frames and the signature, then parses; returns 1, or 0 after logging why it dropped the message. */
static int check_and_parse(wl_port *p, wl_msg *m)
{
    int d = 0;
    while (d < m->nframes && !(zmq_msg_size(&m->frames[d]) == strlen(DELIM) &&
                               !memcmp(zmq_msg_data(&m->frames[d]), DELIM, strlen(DELIM))))
        d++;
    if (d == m->nframes) return drop(p, "no <IDS|MSG> delimiter frame"), 0;
    if (m->nframes < d + 6) return drop(p, "fewer than the 5 frames after the delimiter"), 0;
    m->delim = d;
    const void *part[4];
    size_t len[4];
    for (int i = 0; i < 4; i++) {
        part[i] = zmq_msg_data(&m->frames[d + 2 + i]);
        len[i] = zmq_msg_size(&m->frames[d + 2 + i]);
    }
    if (p->wire->keylen) {
        const char *got = zmq_msg_data(&m->frames[d + 1]);
        if (zmq_msg_size(&m->frames[d + 1]) != SIG_HEX) return drop(p, "signature of the wrong length"), 0;
        if (!wl_port_signed(p, got, SIG_HEX, part, len)) return drop(p, "bad signature"), 0;
        if (seen_before(p->wire, got)) return drop(p, "duplicate signature (a replayed message)"), 0;
    }
    cJSON **out[4] = {&m->header, &m->parent, &m->metadata, &m->content};
    static const char *names[4] = {"header", "parent_header", "metadata", "content"};
    for (int i = 0; i < 4; i++) {
        *out[i] = cJSON_ParseWithLength(part[i], len[i]);
        if (!*out[i] || !cJSON_IsObject(*out[i])) {
            char why[96];
            snprintf(why, sizeof why, "%s is not a JSON object", names[i]);
            /* A malformed header makes the message unanswerable; other parts are replaced by {}. */
            if (i == 0) return drop(p, why), 0;
            wl_log_peer(&p->log, NULL, "on %s: %s; using {}", p->name, why);   /* why is a buffer here */
            cJSON_Delete(*out[i]);
            *out[i] = cJSON_CreateObject();
        }
    }
    m->type = wl_json_str(m->header, "msg_type");
    if (!m->type || !wl_json_str(m->header, "msg_id")) return drop(p, "header without a msg_type or msg_id string"), 0;
    return 1;
}

/* Receives and closes the rest of a message that is being dropped; returns the bytes of its frames. */
static size_t drain(wl_port *p, int more)
{
    size_t bytes = 0;
    zmq_msg_t skip;
    zmq_msg_init(&skip);
    while (more && zmq_msg_recv(&skip, p->sock, 0) >= 0) {
        bytes += zmq_msg_size(&skip);
        more = zmq_msg_more(&skip);
    }
    zmq_msg_close(&skip);
    return bytes;
}

int wl_wire_recv(wl_port *p, wl_msg *m, int flags)
{
    memset(m, 0, sizeof *m);
    int cap = 0, more = 1;
    size_t bytes = 0;
    while (more) {
        if (bytes > WL_WIRE_MESSAGE_MAX) {   /* the frames so far pass the limit: the rest is not kept */
            bytes += drain(p, more);
            break;
        }
        if (m->nframes == cap) {
            cap = cap ? 2 * cap : 8;
            zmq_msg_t *f = realloc(m->frames, (size_t)cap * sizeof *f);
            if (!f) {   /* out of memory: drain the rest of the message and drop it */
                drain(p, more);
                wl_msg_free(m);
                return drop(p, "out of memory"), 0;
            }
            m->frames = f;
        }
        zmq_msg_init(&m->frames[m->nframes]);
        /* Only the first frame may wait; the others of a multipart message are already here. */
        if (zmq_msg_recv(&m->frames[m->nframes], p->sock, m->nframes ? 0 : flags) < 0) {
            int e = errno;
            zmq_msg_close(&m->frames[m->nframes]);
            wl_msg_free(m);
            errno = e;
            return -1;
        }
        more = zmq_msg_more(&m->frames[m->nframes]);
        bytes += zmq_msg_size(&m->frames[m->nframes]);
        m->nframes++;
    }
    if (bytes > WL_WIRE_MESSAGE_MAX) {
        wl_msg_free(m);
        char why[128];
        snprintf(why, sizeof why, "%zu bytes, more than the %d bytes a message may have", bytes, WL_WIRE_MESSAGE_MAX);
        return drop(p, why), 0;
    }
    if (check_and_parse(p, m)) return 1;
    wl_msg_free(m);
    return 0;
}

static int send_frame(void *sock, const void *data, size_t len, int more)
{
    while (zmq_send(sock, data, len, more ? ZMQ_SNDMORE : 0) < 0)
        if (errno != EINTR) return -1;
    return 0;
}

/* msg_type as a JSON string (quotes included, escaped, valid UTF-8): it may come from a client's request.
 * Free it with cJSON_free. */
static char *json_string(const char *s)
{
    size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz_");
    if (!s[n]) {   /* the kernel's own types: nothing to escape */
        char *t = cJSON_malloc(n + 3);
        if (t) snprintf(t, n + 3, "\"%s\"", s);
        return t;
    }
    char *clean = wl_utf8_clean(s, strlen(s));
    cJSON *j = clean ? cJSON_CreateString(clean) : NULL;
    free(clean);
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    return text;
}

/* The frames of a message whose header is made: routing ids or a topic, the delimiter, the signature, the parts. */
static int send_parts(wl_port *p, const wl_msg *parent, int route, const char *msg_type, const char *header,
                      size_t hlen, const char *content, size_t content_len)
{
    const void *part[4] = {header, "{}", "{}", content};
    size_t len[4] = {hlen, 2, 2, content_len};
    if (parent) {
        part[1] = zmq_msg_data((zmq_msg_t *)&parent->frames[parent->delim + 2]);
        len[1] = zmq_msg_size((zmq_msg_t *)&parent->frames[parent->delim + 2]);
    }
    char sig[SIG_HEX + 1] = "";
    if (p->wire->keylen) sign_parts(p, part, len, sig);
    if (route && parent) {
        for (int i = 0; i < parent->delim; i++)
            if (send_frame(p->sock, zmq_msg_data((zmq_msg_t *)&parent->frames[i]),
                           zmq_msg_size((zmq_msg_t *)&parent->frames[i]), 1))
                return -1;
    } else if (!route) {
        char topic[128];
        int n = snprintf(topic, sizeof topic, "kernel.%s.%s", p->wire->session, msg_type);
        if (send_frame(p->sock, topic, (size_t)n < sizeof topic ? (size_t)n : sizeof topic - 1, 1)) return -1;
    }
    if (send_frame(p->sock, DELIM, strlen(DELIM), 1) || send_frame(p->sock, sig, strlen(sig), 1)) return -1;
    for (int i = 0; i < 4; i++)
        if (send_frame(p->sock, part[i], len[i], i < 3)) return -1;
    return 0;
}

int wl_wire_send(wl_port *p, const wl_msg *parent, int route, const char *msg_type,
                 const char *content, size_t content_len)
{
    char id[37], date[32];
    wl_uuid4(id);
    wl_iso_date(date);
    char *type = json_string(msg_type);
    size_t cap = (type ? strlen(type) : 0) + 256;
    char *header = type ? malloc(cap) : NULL;
    int hlen = header ? snprintf(header, cap,
                                 "{\"msg_id\":\"%s\",\"session\":\"%s\",\"username\":\"wordlab\",\"date\":\"%s\","
                                 "\"msg_type\":%s,\"version\":\"" WL_PROTOCOL_VERSION "\"}",
                                 id, p->wire->session, date, type)
                      : -1;
    cJSON_free(type);
    if (hlen < 0 || (size_t)hlen >= cap) {
        free(header);
        return -1;
    }
    int rc = send_parts(p, parent, route, msg_type, header, (size_t)hlen, content, content_len);
    free(header);
    return rc;
}

int wl_wire_send_json(wl_port *p, const wl_msg *parent, int route, const char *msg_type, cJSON *content)
{
    char *text = content ? cJSON_PrintUnformatted(content) : NULL;
    cJSON_Delete(content);
    if (!text) return -1;
    int rc = wl_wire_send(p, parent, route, msg_type, text, strlen(text));
    cJSON_free(text);
    return rc;
}

void wl_uuid4(char out[37])
{
    unsigned char b[16];
    randombytes_buf(b, sizeof b);
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    static const char digits[] = "0123456789abcdef";
    int o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out[o++] = '-';
        out[o++] = digits[b[i] >> 4];
        out[o++] = digits[b[i] & 15];
    }
    out[o] = 0;
}

void wl_iso_date(char out[32])
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%06ldZ", ts.tv_nsec / 1000);
}

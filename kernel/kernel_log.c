/* kernel_log.c: the kernel's log lines about what peers send, bounded in number so that a peer cannot flood the log. */
#include "kernel_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

/* The counters of kind in l: its own, or the place used longest ago, taken over. */
static struct wl_log_kind *kind_of(wl_log_limit *l, const char *kind)
{
    struct wl_log_kind *k = &l->kinds[0];
    for (int i = 0; i < WL_LOG_KINDS; i++) {
        if (l->kinds[i].kind == kind) return &l->kinds[i];
        if (l->kinds[i].second < k->second) k = &l->kinds[i];
    }
    *k = (struct wl_log_kind){.kind = kind};
    return k;
}

void wl_log_peer(wl_log_limit *l, const char *kind, const char *fmt, ...)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    struct wl_log_kind *k = kind_of(l, kind ? kind : fmt);
    if (now.tv_sec != k->second) {
        k->second = now.tv_sec;
        k->written = 0;
    }
    if (k->written == WL_LOG_PEER_PER_SECOND) {
        k->left++;
        return;
    }
    k->written++;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (k->left)
        fprintf(stderr, "wordlab kernel: %s (and %lu lines like it left out: at most %d a second)\n", line, k->left,
                WL_LOG_PEER_PER_SECOND);
    else
        fprintf(stderr, "wordlab kernel: %s\n", line);
    k->left = 0;
}

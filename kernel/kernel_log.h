/* kernel_log.h: the kernel's log lines about what peers send, bounded in number so that a peer cannot flood the log. */
#ifndef WL_KERNEL_LOG_H
#define WL_KERNEL_LOG_H

/* Lines of one kind a second that one limit lets through; the others are counted and said with the next one. */
#define WL_LOG_PEER_PER_SECOND 5
#define WL_LOG_KINDS 8   /* kinds of line a limit counts apart (more share the places used longest ago) */

/* The lines of one source (a port), counted by kind (a string that names the kind: the same pointer each time, e.g.
 * a literal of the caller's): used by one thread at a time; zeroed to start. */
typedef struct wl_log_limit {
    struct wl_log_kind {
        const char *kind;
        long long second;    /* the second of the lines counted in written */
        int written;
        unsigned long left;  /* lines left out since the last one written */
    } kinds[WL_LOG_KINDS];
} wl_log_limit;

/* Writes "wordlab kernel: " and the formatted text as one line on stderr, unless l let WL_LOG_PEER_PER_SECOND lines
 * of this kind (NULL: the kind is fmt) through in this second already. */
void wl_log_peer(wl_log_limit *l, const char *kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif

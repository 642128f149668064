/* kernel_conn.h: reads a Jupyter connection file (transport, ip, the five ports, key, signature scheme). */
#ifndef WL_KERNEL_CONN_H
#define WL_KERNEL_CONN_H

#include <stddef.h>

enum { WL_CH_SHELL, WL_CH_IOPUB, WL_CH_STDIN, WL_CH_CONTROL, WL_CH_HB, WL_NCH };

typedef struct wl_conn {
    char endpoint[WL_NCH][300];   /* "tcp://ip:port" or "ipc://ip-port", indexed by WL_CH_* */
    char *key;                    /* malloc'd; the raw bytes of the "key" string */
    size_t keylen;
    int every_interface;          /* tcp with ip 0.0.0.0, * or ::: the ports are open to the network */
} wl_conn;

/* Reads path into *c. Returns 0, or -1 with one sentence in why. */
int wl_conn_read(const char *path, wl_conn *c, char *why, size_t cap);
void wl_conn_free(wl_conn *c);

#endif

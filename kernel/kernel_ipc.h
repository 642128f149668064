/* kernel_ipc.h: the kernel's ipc socket files: bound only where nothing or a stale socket stands, removed on exit. */
#ifndef WL_KERNEL_IPC_H
#define WL_KERNEL_IPC_H

#include <stddef.h>

/* libzmq's ipc bind unlinks whatever stands at its path, a user's file or a link included, and nothing removes the
 * socket file when the process ends. So the kernel checks each path before it binds, and records what it bound. */

/* Checks the path of an "ipc://PATH" endpoint (any other endpoint, or an abstract "ipc://@name", passes): nothing
 * there, or a socket no process listens on (a killed kernel's, which the bind replaces). Anything else (a regular
 * file, a directory, a symbolic link, a socket in use) is refused: -1 with one sentence in why naming the path and
 * what stands there. */
int wl_ipc_check(const char *endpoint, char *why, size_t cap);

/* Records the socket file an ipc endpoint has just been bound to (at most 5; others and non-ipc endpoints are
 * ignored), so that wl_ipc_remove and the signals of wl_ipc_remove_on_signal remove it. */
void wl_ipc_bound(const char *endpoint);

/* Removes each recorded socket file that is still the one the kernel bound (the same device and inode): never a file
 * that replaced it since. Async-signal-safe. */
void wl_ipc_remove(void);

/* SIGTERM and SIGHUP remove the recorded socket files, then end the process as the signal does by default. (SIGINT
 * interrupts a cell and does not end the kernel.) */
void wl_ipc_remove_on_signal(void);

#endif

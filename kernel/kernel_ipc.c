/* kernel_ipc.c: the kernel's ipc socket files: bound only where nothing or a stale socket stands, removed on exit. */
#define _POSIX_C_SOURCE 200809L
#include "kernel_ipc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define IPC_PREFIX "ipc://"
#define IPC_MAX 5   /* the kernel's five ports */

/* The socket files bound, each filled before nbound counts it (a signal handler reads them). */
static struct {
    char path[sizeof ((struct sockaddr_un *)0)->sun_path];
    dev_t dev;
    ino_t ino;
} bound[IPC_MAX];
static volatile sig_atomic_t nbound;

/* The file path of an ipc endpoint; NULL for another transport or an abstract socket (no file). */
static const char *ipc_path(const char *endpoint)
{
    if (strncmp(endpoint, IPC_PREFIX, strlen(IPC_PREFIX))) return NULL;
    const char *p = endpoint + strlen(IPC_PREFIX);
    return *p == '@' ? NULL : p;
}

static const char *kind_of(mode_t m)
{
    return S_ISREG(m) ? "a regular file" : S_ISDIR(m) ? "a directory" : S_ISLNK(m) ? "a symbolic link"
         : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a socket";
}

/* 0 when no process listens on the socket file path (a connection to it is refused), else why it is taken as in use:
 * EISCONN when a connection succeeded, or the connection's errno. A path too long for a socket address gives 0 (the
 * bind fails on it anyway). */
static int socket_in_use(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path) return 0;
    memcpy(a.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return errno;
    int rc = connect(fd, (struct sockaddr *)&a, sizeof a) == 0 ? EISCONN : errno == ECONNREFUSED || errno == ENOENT ? 0 : errno;
    close(fd);
    return rc;
}

int wl_ipc_check(const char *endpoint, char *why, size_t cap)
{
    const char *path = ipc_path(endpoint);
    struct stat st;
    if (!path) return 0;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return 0;
        snprintf(why, cap, "cannot bind the ipc socket %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(why, cap, "the ipc socket path %s is %s; the kernel binds only where nothing or an old socket stands, "
                           "and replaces no file: remove it or choose another \"ip\" in the connection file",
                 path, kind_of(st.st_mode));
        return -1;
    }
    int e = socket_in_use(path);
    if (e) {
        snprintf(why, cap, "the ipc socket %s is in use (%s); the kernel does not take another process's socket: "
                           "choose another \"ip\" in the connection file",
                 path, e == EISCONN ? "a process listens on it" : strerror(e));
        return -1;
    }
    return 0;
}

void wl_ipc_bound(const char *endpoint)
{
    const char *path = ipc_path(endpoint);
    struct stat st;
    int n = nbound;
    if (!path || n >= IPC_MAX || strlen(path) >= sizeof bound[n].path || lstat(path, &st) != 0) return;
    memcpy(bound[n].path, path, strlen(path) + 1);
    bound[n].dev = st.st_dev;
    bound[n].ino = st.st_ino;
    nbound = n + 1;
}

void wl_ipc_remove(void)
{
    int n = nbound;
    nbound = 0;
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (lstat(bound[i].path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == bound[i].dev &&
            st.st_ino == bound[i].ino)
            unlink(bound[i].path);
    }
}

static void on_end(int sig)
{
    int saved = errno;
    wl_ipc_remove();
    signal(sig, SIG_DFL);
    raise(sig);   /* delivered once the handler returns: the process ends as the signal says */
    errno = saved;
}

void wl_ipc_remove_on_signal(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_end;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* kernel_main.c: `wordlab kernel -f FILE`: binds the ports, runs the gate (every port), control and shell. */
#include "kernel.h"
#include "kernel_conn.h"
#include "kernel_gate.h"
#include "kernel_ipc.h"
#include "kernel_zmq.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINGER_MS 1000        /* bounded: what is sent before the kernel exits goes out; a restart can rebind soon */
#define BIND_RETRY_MS 3000    /* a previous kernel on these ports may still be closing */
#define SHELL_POLL_MS 200     /* how often the idle shell loop looks at the shutdown flag */

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* jupyter_client names its own pid in JPY_PARENT_PID. The kernel ends when that process is
 * gone: the kernel was re-parented (to init, or to another reaper). */
static pid_t launcher_pid, first_ppid;

static void watch_parent(void)
{
    const char *s = getenv("JPY_PARENT_PID");
    launcher_pid = s ? (pid_t)atol(s) : 0;
    first_ppid = getppid();
}

static int parent_gone(void)
{
    if (launcher_pid <= 0) return 0;
    pid_t now = getppid();
    return now != first_ppid || (now == 1 && launcher_pid != 1);
}

/* The shell loop: ends on a shutdown_request, or when the kernel's client is gone. */
static void serve(wl_chan *c, wl_zchan *z, int timeout_ms)
{
    zmq_setsockopt(z->req.sock, ZMQ_RCVTIMEO, &timeout_ms, sizeof timeout_ms);
    while (!atomic_load(&c->k->shutdown)) {
        wl_msg m;
        int r = wl_wire_recv(&z->req, &m, 0);
        if (r < 0 && errno == EAGAIN && parent_gone()) {
            fprintf(stderr, "wordlab kernel: the process that started it (pid %d) is gone; exiting\n", (int)launcher_pid);
            return;
        }
        if (r < 0 && errno != EINTR && errno != EAGAIN) return;   /* ETERM: the kernel is closing */
        if (r != 1) continue;
        wl_request req;
        wl_zmq_request(&m, &req);
        wl_kernel_handle(c, &req);
        wl_msg_free(&m);
    }
}

/* The control thread's channel and its sockets. */
typedef struct wl_control {
    wl_chan c;
    wl_zchan z;
} wl_control;

static void *control_thread(void *arg)
{
    wl_control *ctl = arg;
    /* Control keeps serving after a shutdown_request until the context is shut down. */
    for (;;) {
        wl_msg m;
        int r = wl_wire_recv(&ctl->z.req, &m, 0);
        if (r < 0 && errno != EINTR && errno != EAGAIN) break;
        if (r != 1) continue;
        wl_request req;
        wl_zmq_request(&m, &req);
        wl_kernel_handle(&ctl->c, &req);
        wl_msg_free(&m);
    }
    zmq_close(ctl->z.req.sock);
    zmq_close(ctl->z.iopub.sock);
    return NULL;
}

static void *make_socket(void *ctx, int type, int linger)
{
    void *s = zmq_socket(ctx, type);
    if (s) zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    return s;
}

static int bind_retry(void *sock, const char *endpoint, const char *name)
{
    struct timespec pause = {0, 50 * 1000 * 1000};
    for (int waited = 0; zmq_bind(sock, endpoint); waited += 50) {
        if (errno != EADDRINUSE || waited >= BIND_RETRY_MS) {
            fprintf(stderr, "wordlab kernel: cannot bind the %s socket to %s: %s\n", name, endpoint,
                    zmq_strerror(errno));
            return -1;
        }
        nanosleep(&pause, NULL);
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: wordlab kernel -f CONNECTION_FILE\n");
    return 2;
}

int wl_kernel_main(int argc, char **argv, const wl_interp_opts *opts)
{
    const char *path = NULL;
    watch_parent();
    for (int i = 1; i < argc; i++) {
        if ((!strcmp(argv[i], "-f") || !strcmp(argv[i], "--connection-file")) && i + 1 < argc)
            path = argv[++i];
        else if (!strncmp(argv[i], "--connection-file=", 18))
            path = argv[i] + 18;
        else
            return usage();
    }
    if (!path) return usage();
    char why[512];
    wl_conn conn;
    if (wl_conn_read(path, &conn, why, sizeof why)) {
        fprintf(stderr, "wordlab kernel: %s\n", why);
        return 1;
    }
    for (int i = 0; i < WL_NCH; i++)
        if (wl_ipc_check(conn.endpoint[i], why, sizeof why)) {
            fprintf(stderr, "wordlab kernel: %s\n", why);
            wl_conn_free(&conn);
            return 1;
        }
    if (!conn.keylen)
        fprintf(stderr, "wordlab kernel: WARNING: the connection file's key is empty: messages are not signed, "
                        "and anyone who can reach its ports can run commands\n");
    if (conn.every_interface)
        fprintf(stderr, "wordlab kernel: WARNING: the connection file's ip binds every network interface: "
                        "other machines can reach the kernel's ports (%s); use 127.0.0.1 to stay on this machine\n",
                        conn.endpoint[WL_CH_SHELL]);
    wl_wire wire;
    if (wl_wire_init(&wire, conn.key, conn.keylen)) {
        fprintf(stderr, "wordlab kernel: out of memory\n");
        wl_conn_free(&conn);
        return 1;
    }
    wl_interp *interp = wl_interp_new(opts);
    wl_kernel k = {.adapter = wl_exec_adapter(interp, &interrupted)};
    if (!interp || !k.adapter.self) {
        fprintf(stderr, "wordlab kernel: cannot create the interpreter\n");
        wl_exec_adapter_free(&k.adapter);
        wl_interp_free(interp);
        wl_wire_free(&wire);
        wl_conn_free(&conn);
        return 1;
    }
    /* Only the shell (main) thread takes SIGINT; the threads started here inherit the block. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    signal(SIGPIPE, SIG_IGN);
    wl_ipc_remove_on_signal();   /* an ipc socket file bound below is removed when SIGTERM or SIGHUP ends the kernel */

    /* Every port is a ZMQ_STREAM that the gate serves (kernel_gate.h); the kernel's threads use the in-process
     * sockets behind it: shell, control and stdin ROUTERs, and PUSHes into the gate's IOPub PULL. */
    void *ctx = zmq_ctx_new();
    void *port[WL_GATE_NCH];
    static const int from_conn[WL_GATE_NCH] = {WL_CH_SHELL, WL_CH_CONTROL, WL_CH_STDIN, WL_CH_IOPUB, WL_CH_HB};
    static const char *names[WL_GATE_NCH] = {"shell", "control", "stdin", "iopub", "heartbeat"};
    int ok = ctx != NULL;
    for (int i = 0; i < WL_GATE_NCH; i++) {
        port[i] = ok ? wl_gate_port(ctx, LINGER_MS) : NULL;
        ok = ok && port[i] && !bind_retry(port[i], conn.endpoint[from_conn[i]], names[i]);
        if (ok) wl_ipc_bound(conn.endpoint[from_conn[i]]);
    }
    wl_gate gate = {0};
    ok = ok && !wl_gate_start(&gate, ctx, port, &wire);
    if (!ok)
        for (int i = 0; i < WL_GATE_NCH; i++)
            if (port[i]) zmq_close(port[i]);
    void *push_shell = ok ? make_socket(ctx, ZMQ_PUSH, 0) : NULL;
    void *push_control = ok ? make_socket(ctx, ZMQ_PUSH, 0) : NULL;
    ok = ok && push_shell && push_control && !zmq_connect(push_shell, WL_GATE_IOPUB_ENDPOINT) &&
         !zmq_connect(push_control, WL_GATE_IOPUB_ENDPOINT);

    wl_port stdin_port = {0};
    wl_zchan zshell = {0};
    wl_control control = {0};
    wl_zchan_init(&zshell, "shell", &stdin_port, &gate.subscribers, &gate.stdin_dropped);
    wl_zchan_init(&control.z, "control", NULL, &gate.subscribers, &gate.stdin_dropped);
    wl_chan shell = {.k = &k, .t = &zshell.t, .is_shell = 1};
    control.c = (wl_chan){.k = &k, .t = &control.z.t};
    ok = ok && !wl_port_init(&zshell.req, &wire, gate.inner[WL_GATE_SHELL], "shell") &&
         !wl_port_init(&zshell.iopub, &wire, push_shell, "iopub") &&
         !wl_port_init(&stdin_port, &wire, gate.inner[WL_GATE_STDIN], "stdin") &&
         !wl_port_init(&control.z.req, &wire, gate.inner[WL_GATE_CONTROL], "control") &&
         !wl_port_init(&control.z.iopub, &wire, push_control, "iopub");

    pthread_t t_control;
    int started = ok && !pthread_create(&t_control, NULL, control_thread, &control);
    struct sigaction sa = {0};
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    int status = 0;
    if (started) {
        wl_kernel_status(&shell, NULL, "starting");
        serve(&shell, &zshell, SHELL_POLL_MS);
    } else {
        fprintf(stderr, "wordlab kernel: cannot start: %s\n", zmq_strerror(errno));
        status = 1;
    }

    /* Close: the gate relays what shell and control have sent and published (the shutdown_reply among it) and
     * closes the ports, which linger until it is written; then the context ends control. */
    wl_gate_stop(&gate);
    if (gate.inner[WL_GATE_SHELL]) zmq_close(gate.inner[WL_GATE_SHELL]);
    if (gate.inner[WL_GATE_STDIN]) zmq_close(gate.inner[WL_GATE_STDIN]);
    if (push_shell) zmq_close(push_shell);
    if (!started) {
        if (gate.inner[WL_GATE_CONTROL]) zmq_close(gate.inner[WL_GATE_CONTROL]);
        if (push_control) zmq_close(push_control);
    }
    if (ctx) zmq_ctx_shutdown(ctx);
    if (started) pthread_join(t_control, NULL);
    if (ctx) zmq_ctx_term(ctx);
    wl_ipc_remove();

    wl_port_free(&zshell.req);
    wl_port_free(&zshell.iopub);
    wl_port_free(&stdin_port);
    wl_port_free(&control.z.req);
    wl_port_free(&control.z.iopub);
    wl_kernel_history_free(&k);
    wl_exec_adapter_free(&k.adapter);
    wl_interp_free(interp);
    wl_wire_free(&wire);
    wl_conn_free(&conn);
    return status;
}

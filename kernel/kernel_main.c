/* kernel_main.c: `wordlab kernel -f FILE`: binds the sockets, runs the gate, heartbeat, IOPub, control and shell. */
#include "kernel.h"
#include "kernel_conn.h"
#include "kernel_gate.h"
#include "kernel_zmq.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define IOPUB_INPROC "inproc://wordlab-iopub"
#define LINGER_MS 1000        /* bounded: a restart can rebind the same ports soon after */
#define BIND_RETRY_MS 3000    /* a previous kernel on these ports may still be closing */
#define SHELL_POLL_MS 200     /* how often the idle shell loop looks at the shutdown flag */
#define STOP "STOP"           /* one-frame message that ends the IOPub forwarder */

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* Forwards every message from the in-process PULL (fed by the shell and control threads)
 * to the XPUB socket, so that only this thread touches it; and counts IOPub subscribers
 * from the subscription messages that XPUB passes up. */
typedef struct wl_forward {
    void *pull, *pub;
    atomic_int *subscribers;
} wl_forward;

static int forward_one(wl_forward *f, int flags, int *stop)
{
    zmq_msg_t part;
    zmq_msg_init(&part);
    int first = 1, more = 1;
    while (more) {
        if (zmq_msg_recv(&part, f->pull, first ? flags : 0) < 0) {
            int e = errno;
            zmq_msg_close(&part);
            errno = e;
            return -1;
        }
        more = zmq_msg_more(&part);
        if (first && !more && zmq_msg_size(&part) == strlen(STOP) && !memcmp(zmq_msg_data(&part), STOP, 4)) {
            *stop = 1;
            break;
        }
        first = 0;
        while (zmq_msg_send(&part, f->pub, more ? ZMQ_SNDMORE : 0) < 0 && errno == EINTR) {}
    }
    zmq_msg_close(&part);
    return 0;
}

/* A subscription message: first byte 1 (subscribe) or 0 (unsubscribe, also sent when a subscriber goes away). */
static void count_subscription(wl_forward *f)
{
    zmq_msg_t sub;
    zmq_msg_init(&sub);
    if (zmq_msg_recv(&sub, f->pub, ZMQ_DONTWAIT) >= 0 && zmq_msg_size(&sub) > 0) {
        unsigned char kind = *(unsigned char *)zmq_msg_data(&sub);
        if (kind == 1) atomic_fetch_add(f->subscribers, 1);
        if (kind == 0) atomic_fetch_sub(f->subscribers, 1);
    }
    zmq_msg_close(&sub);
}

static void *iopub_thread(void *arg)
{
    wl_forward *f = arg;
    int stop = 0;
    while (!stop) {
        zmq_pollitem_t it[2] = {{f->pull, 0, ZMQ_POLLIN, 0}, {f->pub, 0, ZMQ_POLLIN, 0}};
        if (zmq_poll(it, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (it[1].revents & ZMQ_POLLIN) count_subscription(f);
        /* a request publishes several messages at once: forward all that are there */
        while ((it[0].revents & ZMQ_POLLIN) && !stop && forward_one(f, ZMQ_DONTWAIT, &stop) == 0) {}
    }
    /* Whatever the other thread published before the shutdown still goes out. */
    int again = 0;
    while (forward_one(f, ZMQ_DONTWAIT, &again) == 0) {}
    zmq_close(f->pull);
    zmq_close(f->pub);
    return NULL;
}

/* Heartbeat: a ROUTER that echoes every message back to its sender. */
static void *hb_thread(void *sock)
{
    zmq_proxy(sock, sock, NULL);
    zmq_close(sock);
    return NULL;
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

/* One of the five sockets that clients connect to: each frame they send is bounded. */
static void *make_listener(void *ctx, int type)
{
    void *s = make_socket(ctx, type, LINGER_MS);
    if (s && wl_wire_limit(s, type == ZMQ_XPUB ? WL_WIRE_SUBSCRIPTION_MAX : WL_WIRE_FRAME_MAX)) {
        zmq_close(s);
        return NULL;
    }
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
    atomic_int subscribers = 0;

    /* Only the shell (main) thread takes SIGINT; the threads started here inherit the block. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    signal(SIGPIPE, SIG_IGN);

    void *ctx = zmq_ctx_new();
    void *sock[WL_NCH];
    static const int types[WL_NCH] = {ZMQ_STREAM, ZMQ_XPUB, ZMQ_STREAM, ZMQ_STREAM, ZMQ_ROUTER};
    static const char *names[WL_NCH] = {"shell", "iopub", "stdin", "control", "heartbeat"};
    int ok = ctx != NULL, one = 1, hwm = 100000;
    for (int i = 0; i < WL_NCH; i++) {
        sock[i] = ok ? make_listener(ctx, types[i]) : NULL;
        ok = ok && sock[i];
    }
    if (ok) {
        zmq_setsockopt(sock[WL_CH_IOPUB], ZMQ_SNDHWM, &hwm, sizeof hwm);
        /* every subscribe and unsubscribe is passed up, so that subscribers can be counted */
        zmq_setsockopt(sock[WL_CH_IOPUB], ZMQ_XPUB_VERBOSER, &one, sizeof one);
    }
    for (int i = 0; ok && i < WL_NCH; i++) ok = !bind_retry(sock[i], conn.endpoint[i], names[i]);
    /* Shell, control and stdin: the gate owns their ports and tells connections apart whatever routing id they
     * claim (kernel_gate.h); from here on sock[] holds the kernel's ROUTERs behind it. */
    wl_gate gate = {0};
    ok = ok && !wl_gate_start(&gate, ctx, (void *const[]){sock[WL_CH_SHELL], sock[WL_CH_CONTROL], sock[WL_CH_STDIN]});
    if (ok) {
        sock[WL_CH_SHELL] = gate.inner[WL_GATE_SHELL];
        sock[WL_CH_CONTROL] = gate.inner[WL_GATE_CONTROL];
        sock[WL_CH_STDIN] = gate.inner[WL_GATE_STDIN];
    }
    void *pull = ok ? make_socket(ctx, ZMQ_PULL, 0) : NULL;
    void *push_shell = ok ? make_socket(ctx, ZMQ_PUSH, 0) : NULL;
    void *push_control = ok ? make_socket(ctx, ZMQ_PUSH, 0) : NULL;
    ok = ok && pull && push_shell && push_control && !zmq_bind(pull, IOPUB_INPROC) &&
         !zmq_connect(push_shell, IOPUB_INPROC) && !zmq_connect(push_control, IOPUB_INPROC);

    wl_port stdin_port = {0};
    wl_zchan zshell = {0};
    wl_control control = {0};
    wl_zchan_init(&zshell, "shell", &stdin_port, &subscribers);
    wl_zchan_init(&control.z, "control", NULL, &subscribers);
    wl_chan shell = {.k = &k, .t = &zshell.t, .is_shell = 1};
    control.c = (wl_chan){.k = &k, .t = &control.z.t};
    ok = ok && !wl_port_init(&zshell.req, &wire, sock[WL_CH_SHELL], "shell") &&
         !wl_port_init(&zshell.iopub, &wire, push_shell, "iopub") &&
         !wl_port_init(&stdin_port, &wire, sock[WL_CH_STDIN], "stdin") &&
         !wl_port_init(&control.z.req, &wire, sock[WL_CH_CONTROL], "control") &&
         !wl_port_init(&control.z.iopub, &wire, push_control, "iopub");

    wl_forward fwd = {pull, sock[WL_CH_IOPUB], &subscribers};
    pthread_t t_iopub, t_hb, t_control;
    int started = 0;
    if (ok) {
        ok = !pthread_create(&t_iopub, NULL, iopub_thread, &fwd);
        started += ok;
        ok = ok && !pthread_create(&t_hb, NULL, hb_thread, sock[WL_CH_HB]);
        started += ok;
        ok = ok && !pthread_create(&t_control, NULL, control_thread, &control);
        started += ok;
    }
    struct sigaction sa = {0};
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    int status = 0;
    if (ok) {
        wl_kernel_status(&shell, NULL, "starting");
        serve(&shell, &zshell, SHELL_POLL_MS);
    } else {
        fprintf(stderr, "wordlab kernel: cannot start: %s\n", zmq_strerror(errno));
        status = 1;
    }

    /* Close: IOPub drains what was published, then the context ends control and heartbeat. */
    if (started >= 1) {
        while (zmq_send(push_shell, STOP, strlen(STOP), 0) < 0 && errno == EINTR) {}
        pthread_join(t_iopub, NULL);
    } else {
        if (pull) zmq_close(pull);
        if (sock[WL_CH_IOPUB]) zmq_close(sock[WL_CH_IOPUB]);
    }
    for (int i = 0; i < WL_NCH; i++)
        if (sock[i] && (i == WL_CH_SHELL || i == WL_CH_STDIN || (i == WL_CH_HB && started < 2) ||
                        (i == WL_CH_CONTROL && started < 3)))
            zmq_close(sock[i]);
    if (push_shell) zmq_close(push_shell);
    if (push_control && started < 3) zmq_close(push_control);
    if (ctx) zmq_ctx_shutdown(ctx);
    if (started >= 2) pthread_join(t_hb, NULL);
    if (started >= 3) pthread_join(t_control, NULL);
    wl_gate_join(&gate);
    if (ctx) zmq_ctx_term(ctx);

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

/* kernel.h: the Jupyter kernel as the programs of cli/ run it: serve a connection file, install the kernel specs. */
#ifndef WL_KERNEL_H
#define WL_KERNEL_H

#ifdef __cplusplus
extern "C" {
#endif

#include "wl_lang.h"

/* `wordlab kernel -f FILE` (argv[0] is the subcommand's name): serves the kernel on libzmq with an interpreter
 * made from opts until a shutdown_request, or until the client that started it is gone. Returns the process exit
 * status. kernel_main.c */
int wl_kernel_main(int argc, char **argv, const wl_interp_opts *opts);

/* `wordlab-xeus -f FILE`: the same language adapter under xeus's protocol core and zmq server. kernel/xeus */
int wl_kernel_xeus_main(int argc, char **argv, const wl_interp_opts *opts);

/* `wordlab install-kernel ...` (argv[0] is the subcommand's name): writes the kernel specs that run this program
 * and wordlab-xeus. Returns the process exit status. kernel_spec.c */
int wl_kernel_spec_install(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif

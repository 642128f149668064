/* xeus_main.c: the `wordlab-xeus` program: the kernel on xeus (kernel/xeus) with the interpreter settings of every front end. */
#include "cli.h"
#include "kernel.h"

int main(int argc, char **argv)
{
    wl_interp_opts opts = cli_interp_opts();
    return wl_kernel_xeus_main(argc, argv, &opts);
}

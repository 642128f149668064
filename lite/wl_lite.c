/* wl_lite.c: the wordlab kernel in the browser: kernel_core.c's protocol core over a transport to JavaScript.
 *
 * The Web Worker of lite/worker.js hands each request to wlk_handle; the core (the same kernel_core.c,
 * kernel_output.c and kernel_exec.c as the native kernel) runs it through the interpreter and sends its reply and
 * its IOPub messages (status, execute_input, stream, display_data, update_display_data, clear_output,
 * execute_result, error) to Module.wlkEmit(kind, msg_type, content_json) as they happen: kind 0 is the reply, 1 a
 * message on IOPub. The output layer has no flush timer here (a build without threads): held-back text and display
 * updates go out with the next output or at the end of the cell, as its comment says.
 *
 * Interrupt: the runtime reads the flag that wlk_interrupt_flag() points to between steps and in its loops over
 * data; the worker sets it from JavaScript whenever it is called back (each message it sends), see worker.js. */
#include <emscripten.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_core.h"

#define API EMSCRIPTEN_KEEPALIVE

static volatile sig_atomic_t interrupted;
static wl_kernel kernel;
static wl_chan shell;
static wl_interp *interp;

EM_JS(void, wlk_emit, (int kind, const char *type, const char *json),
      { Module.wlkEmit(kind, UTF8ToString(type), UTF8ToString(json)); });

/* One message to JavaScript (content deleted). */
static int emit(int kind, const char *type, cJSON *content)
{
    char *json = cJSON_PrintUnformatted(content);
    cJSON_Delete(content);
    if (!json) return -1;
    wlk_emit(kind, type, json);
    free(json);
    return 0;
}

static int reply(void *ud, const wl_request *req, const char *type, cJSON *content)
{
    (void)ud, (void)req;
    return emit(0, type, content);
}

static int publish(void *ud, const wl_request *parent, const char *type, cJSON *content)
{
    (void)ud, (void)parent;
    return emit(1, type, content);
}

/* No stdin (input_request) and no queue: the page's kernel queues the requests and sends them one at a time. */
static const wl_transport TRANSPORT = {.name = "shell", .reply = reply, .publish = publish};

/* Makes the interpreter: artifacts_dir is where the worker put vocab.json and the checkpoints, cache_dir where
 * downloads go. Both strings must live as long as the module (the worker passes static allocations). 0 or -1. */
API int wlk_start(const char *artifacts_dir, const char *cache_dir)
{
    if (interp) return 0;
    wl_interp_opts opts = {.allow_files = 1, .artifacts_dir = artifacts_dir, .cache_dir = cache_dir};
    interp = wl_interp_new(&opts);
    kernel.adapter = wl_exec_adapter(interp, &interrupted);
    if (!interp || !kernel.adapter.self) {
        wl_exec_adapter_free(&kernel.adapter);
        wl_interp_free(interp);
        interp = NULL;
        return -1;
    }
    shell = (wl_chan){.k = &kernel, .t = &TRANSPORT, .is_shell = 1};
    return 0;
}

/* Handles one request: its msg_type and its content as JSON text (a NUL inside "code" is found there, as the native
 * kernel finds it in the received bytes). Returns -1 when the content is not a JSON object (nothing is sent). */
API int wlk_handle(const char *type, const char *content_json)
{
    cJSON *content = cJSON_Parse(content_json);
    if (!interp || !cJSON_IsObject(content)) {
        cJSON_Delete(content);
        return -1;
    }
    wl_request req = {.type = type, .content = content, .raw_content = content_json,
                      .raw_content_len = strlen(content_json)};
    wl_kernel_handle(&shell, &req);
    cJSON_Delete(content);
    return 0;
}

/* The runtime's interrupt flag (an int in the module's memory): JavaScript sets it to stop the running cell. */
API volatile sig_atomic_t *wlk_interrupt_flag(void)
{
    return &interrupted;
}

/* kernel_exec.c: wordlab's language adapter: execute, complete, inspect, is_complete, interrupt, kernel info. */
#include "kernel_adapter.h"

#include <stdlib.h>
#include <string.h>

/* The adapter's self. */
typedef struct wl_exec {
    wl_interp *interp;
    volatile sig_atomic_t *flag;
} wl_exec;

/* A cell that is exactly `?NAME` or `NAME?` asks for NAME's help: 1 with *page filled. */
static int help_page(wl_exec *x, const char *code, wl_mime *page)
{
    char word[256];
    return wl_lang_help_request(code, word, sizeof word) && wl_interp_inspect(x->interp, word, strlen(word), page);
}

static int execute(void *self, const char *code, size_t len, const wl_sink *sink, wl_mime *result, wl_mime *page,
                   wl_lang_error *err)
{
    wl_exec *x = self;
    if (page && help_page(x, code, page)) return 0;
    return wl_interp_eval_n(x->interp, code, len, "cell", 1, sink, result, err);
}

static int complete(void *self, const char *code, size_t cursor, char ***matches, size_t *start, size_t *end)
{
    return wl_interp_complete(((wl_exec *)self)->interp, code, cursor, matches, start, end);
}

static int inspect(void *self, const char *code, size_t cursor, wl_mime *out)
{
    return wl_interp_inspect(((wl_exec *)self)->interp, code, cursor, out);
}

static const char *is_complete(void *self, const char *code)
{
    (void)self;
    return wl_lang_is_complete(code);
}

static void interrupt(void *self, int requested)
{
    *((wl_exec *)self)->flag = requested;
}

static void kernel_info(void *self, wl_kernel_info *info)
{
    (void)self;
    *info = (wl_kernel_info){
        .implementation = "wordlab",
        .implementation_version = WL_VERSION,
        .banner = "wordlab " WL_VERSION ": see how a word-level attention language model works.\n"
                  "Type `help` for the commands, `help CMD` or `?CMD` for one of them.",
        .language = "wordlab",
        .language_version = WL_VERSION,
        .mimetype = "text/x-wordlab",
        .file_extension = ".wlab",
        .pygments_lexer = "bash",
        .codemirror_mode = "wordlab", /* the language of lab/src/language.ts */
        .nbconvert_exporter = "script",
        .help_text = "wordlab README",
        .help_url = "file://" WL_SOURCE_DIR "/README.md",
    };
}

wl_adapter wl_exec_adapter(wl_interp *interp, volatile sig_atomic_t *flag)
{
    wl_exec *x = malloc(sizeof *x);
    if (!x) return (wl_adapter){0};
    *x = (wl_exec){interp, flag};
    return (wl_adapter){.self = x,
                        .execute = execute,
                        .complete = complete,
                        .inspect = inspect,
                        .is_complete = is_complete,
                        .interrupt = interrupt,
                        .kernel_info = kernel_info,
                        .interrupted = flag};
}

void wl_exec_adapter_free(wl_adapter *a)
{
    free(a->self);
    a->self = NULL;
}

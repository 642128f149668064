/* fuzz_json.c: libFuzzer target for the JSON file readers: the kernel's connection file (wl_conn_read),
 * vocab.json (wl_vocab_load) and comparison.json (the `results` command, read and rendered).
 * Every input is given to all three as a file in a private temporary folder. Built by CMake (WL_FUZZ).
 * Seeds: tests/fuzz/corpus/json (valid files of each kind and near misses).
 * Checks: a failure says why; a connection file read gives tcp:// or ipc:// endpoints and a key of the
 * stated length; a vocabulary starts with the four specials and maps every token back to its id;
 * a comparison renders as text. */
#include "kernel_conn.h"
#include "wl_corpus.h"
#include "wl_lang.h"
#include "wl_text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64], file[96], cmd[160];
static wl_interp *interp;

static void cleanup(void)
{
    unlink(file);
    rmdir(dir);
    wl_interp_free(interp);
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "%s/wl-fuzz-json-XXXXXX", access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
    if (!mkdtemp(dir)) abort();
    snprintf(file, sizeof file, "%s/comparison.json", dir);
    snprintf(cmd, sizeof cmd, "results \"%s\"", dir);
    interp = wl_interp_new(&(wl_interp_opts){.allow_files = 1});
    if (!interp) abort();
    atexit(cleanup);
}

static void check_conn(void)
{
    wl_conn c;
    char why[512] = "";
    if (wl_conn_read(file, &c, why, sizeof why)) {
        if (!why[0]) abort();
        return;
    }
    for (int i = 0; i < WL_NCH; i++)
        if (strncmp(c.endpoint[i], "tcp://", 6) && strncmp(c.endpoint[i], "ipc://", 6)) abort();
    if (!c.key || strlen(c.key) != c.keylen) abort();
    wl_conn_free(&c);
}

static void check_vocab(void)
{
    wl_vocab v;
    wl_err err = {{0}};
    if (wl_vocab_load(file, &v, &err)) {
        if (!err.msg[0]) abort();
        return;
    }
    if (v.n < WL_TEXT_NSPECIALS) abort();
    for (size_t i = 0; i < v.n; i++) {
        if (i < WL_TEXT_NSPECIALS && strcmp(v.itos[i], wl_text_specials[i])) abort();
        if (wl_vocab_id(&v, v.itos[i]) != (int32_t)i) abort();
    }
    wl_vocab_free(&v);
}

static void check_results(void)
{
    wl_mime m = {0};
    wl_lang_error e = {0};
    if (wl_interp_eval(interp, cmd, "fuzz", 1, NULL, &m, &e)) {
        if (!e.evalue[0]) abort();
        wl_lang_error_clear(&e);
    } else if (!m.text_plain) {
        abort();
    }
    wl_mime_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!interp) setup();
    FILE *f = fopen(file, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f)) abort();
    check_conn();
    check_vocab();
    check_results();
    return 0;
}

/* cli_tokenize.c: `wordlab tokenize --jsonl`: JSON lines with "text" on stdin -> tokens, doc_id, split, detokenized. */
#include "cli.h"
#include "wl_corpus.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The output object of one input line, or NULL with an error in err. */
static cJSON *tokenize_line(const char *line, size_t n, wl_err *err)
{
    char *text, id[WL_DOC_ID_LEN + 1], *detok = NULL;
    long row;
    if (wl_corpus_parse_json_line(line, n, &text, &row, err)) return NULL;
    cJSON *out = NULL;
    wl_tokens t = {0};
    wl_split split;
    if (wl_text_tokenize(text, strlen(text), &t, err) == 0 && wl_corpus_doc_info(text, strlen(text), id, &split, err) == 0 &&
        wl_text_detokenize((const char *const *)t.tok, t.n, &detok, err) == 0) {
        out = cJSON_CreateObject();
        cJSON *toks = cJSON_AddArrayToObject(out, "tokens");
        for (size_t i = 0; toks && i < t.n; i++) cJSON_AddItemToArray(toks, cJSON_CreateString(t.tok[i]));
        cJSON_AddStringToObject(out, "doc_id", id);
        cJSON_AddStringToObject(out, "split", wl_split_name(split));
        cJSON_AddStringToObject(out, "detokenized", detok);
    }
    free(detok);
    free(text);
    wl_tokens_free(&t);
    return out;
}

/* Writes obj as one line and frees it; returns 0, or -1 if it could not be printed. */
static int emit(cJSON *obj)
{
    char *s = obj ? cJSON_PrintUnformatted(obj) : NULL;
    cJSON_Delete(obj);
    if (!s) return -1;
    fputs(s, stdout);
    fputc('\n', stdout);
    free(s);
    return 0;
}

int cli_tokenize(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[1], "--jsonl")) {
        fprintf(stderr, "usage: wordlab tokenize --jsonl < FILE.jsonl\n"
                        "  reads JSON lines with a \"text\" field and writes, per line,\n"
                        "  {\"tokens\": [...], \"doc_id\": ..., \"split\": ..., \"detokenized\": ...}\n"
                        "  or {\"error\": \"line N: ...\", \"line\": N}; exits with 1 if any line failed\n");
        return 2;
    }
    char *line = NULL;
    size_t cap = 0, lineno = 0, errors = 0, n;
    int more;
    while ((more = wl_read_line(stdin, &line, &cap, &n)) > 0) {
        lineno++;
        if (n > 0 && line[n - 1] == '\r') n--;
        wl_err err = {""};
        cJSON *out = tokenize_line(line, n, &err);
        if (!out) {
            char msg[WL_ERR_MAX + 32];
            snprintf(msg, sizeof msg, "line %zu: %s", lineno, err.msg[0] ? err.msg : "out of memory");
            out = cJSON_CreateObject();
            cJSON_AddStringToObject(out, "error", msg);
            cJSON_AddNumberToObject(out, "line", (double)lineno);
            errors++;
        }
        if (emit(out)) {
            fprintf(stderr, "wordlab tokenize: line %zu: out of memory\n", lineno);
            free(line);
            return 1;
        }
    }
    free(line);
    if (more < 0) {
        fprintf(stderr, "wordlab tokenize: line %zu: cannot read: %s\n", lineno + 1, wl_read_line_why(errno));
        fflush(stdout);
        return 1;
    }
    if (errors) fprintf(stderr, "wordlab tokenize: %zu of %zu lines failed\n", errors, lineno);
    return errors ? 1 : 0;
}

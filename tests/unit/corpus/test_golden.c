/* test_golden.c: every golden case: tokenize.jsonl tokens; corpus.jsonl tokens, detokenized, doc_id and split. */
#include "wl_corpus.h"
#include "wl_test.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* Calls fn on every JSON object of a jsonl file in tests/data; returns the number of lines. */
static size_t each_line(const char *name, void (*fn)(const cJSON *obj, size_t lineno))
{
    const char *path = wl_test_data(name);
    FILE *f = fopen(path, "rb");
    CHECK_MSG(f != NULL, "cannot open %s", path);
    if (!f) return 0;
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        cJSON *obj = cJSON_Parse(line);
        CHECK_MSG(cJSON_IsObject(obj), "%s line %zu: not a JSON object", name, lineno);
        if (obj) fn(obj, lineno);
        cJSON_Delete(obj);
    }
    free(line);
    fclose(f);
    return lineno;
}

static const char *str_field(const cJSON *obj, const char *name)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, name);
    return cJSON_IsString(f) ? f->valuestring : NULL;
}

/* Checks tokenize(text) against the "tokens" array; fills *t (caller frees). */
static int check_tokens(const cJSON *obj, size_t lineno, const char *file, wl_tokens *t)
{
    const char *text = str_field(obj, "text");
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(obj, "tokens");
    wl_err e;
    CHECK_MSG(text && cJSON_IsArray(want), "%s line %zu: no text or tokens", file, lineno);
    if (!text || !cJSON_IsArray(want)) return -1;
    int rc = wl_text_tokenize(text, strlen(text), t, &e);
    CHECK_MSG(rc == 0, "%s line %zu: %s", file, lineno, e.msg);
    if (rc) return -1;
    size_t nwant = (size_t)cJSON_GetArraySize(want), i = 0;
    int same = nwant == t->n;
    const cJSON *w;
    cJSON_ArrayForEach(w, want) {
        if (!same) break;
        same = cJSON_IsString(w) && !strcmp(w->valuestring, t->tok[i++]);
    }
    CHECK_MSG(same, "%s line %zu: %zu tokens, want %zu (first difference at token %zu)", file, lineno, t->n, nwant,
              i ? i - 1 : 0);
    return 0;
}

static size_t tokenize_cases;

static void tokenize_case(const cJSON *obj, size_t lineno)
{
    wl_tokens t;
    if (check_tokens(obj, lineno, "tokenize.jsonl", &t) == 0) wl_tokens_free(&t);
    tokenize_cases++;
}

static size_t corpus_cases;

static void corpus_case(const cJSON *obj, size_t lineno)
{
    wl_tokens t;
    wl_err e;
    corpus_cases++;
    if (check_tokens(obj, lineno, "corpus.jsonl", &t)) return;
    char *detok = NULL;
    CHECK(wl_text_detokenize((const char *const *)t.tok, t.n, &detok, &e) == 0);
    const char *want = str_field(obj, "detokenized");
    CHECK_MSG(want && detok && !strcmp(detok, want), "corpus.jsonl line %zu: detokenized \"%s\", want \"%s\"", lineno,
              detok ? detok : "", want ? want : "(missing)");
    free(detok);
    wl_tokens_free(&t);

    const char *text = str_field(obj, "text");
    char id[WL_DOC_ID_LEN + 1];
    wl_split split;
    CHECK(wl_corpus_doc_info(text, strlen(text), id, &split, &e) == 0);
    const char *want_id = str_field(obj, "doc_id"), *want_split = str_field(obj, "split");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(obj, "split_seed");
    CHECK_MSG(want_id && !strcmp(id, want_id), "corpus.jsonl line %zu: doc_id %s, want %s", lineno, id,
              want_id ? want_id : "(missing)");
    CHECK_MSG(want_split && !strcmp(wl_split_name(split), want_split), "corpus.jsonl line %zu: split %s, want %s",
              lineno, wl_split_name(split), want_split ? want_split : "(missing)");
    CHECK(cJSON_IsNumber(seed) && seed->valuedouble == atof(WL_SPLIT_SEED));
}

void wl_test_main(void)
{
    size_t lines = each_line("tokenize.jsonl", tokenize_case);
    printf("tokenize.jsonl: %zu golden cases checked\n", tokenize_cases);
    CHECK(lines == 3005 && tokenize_cases == 3005);
    lines = each_line("corpus.jsonl", corpus_case);
    printf("corpus.jsonl: %zu golden cases checked (tokens, detokenized, doc_id, split)\n", corpus_cases);
    CHECK(lines == 2000 && corpus_cases == 2000);
}

/* tscheck.c: a test helper for tests/py/test_tinystories.py: CPython's random and json.dumps as the runtime computes them.
 *   corpus_tscheck sample    stdin lines "SEED N K"    -> random.Random(SEED).sample(range(N), K), one line each
 *   corpus_tscheck bits      stdin lines "SEED K COUNT" -> COUNT values of random.Random(SEED).getrandbits(K)
 *   corpus_tscheck offsets STORIES                      -> the page offsets of a story count, one line
 *   corpus_tscheck dumps     stdin JSON lines {"row_idx", "text"} -> the cache's line for each (or "ERROR: ...")
 * Errors go to stderr with exit status 1. */
#include "wl_corpus.h"
#include "wl_pyrand.h"
#include "wl_tinystories.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_list(const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) printf(i ? " %llu" : "%llu", (unsigned long long)v[i]);
    putchar('\n');
}

static int sample(void)
{
    unsigned long long seed, n;
    size_t k;
    while (scanf("%llu %llu %zu", &seed, &n, &k) == 3) {
        uint64_t *out = malloc((k ? k : 1) * sizeof *out);
        wl_pyrand r;
        wl_err err;
        wl_pyrand_seed(&r, seed);
        if (!out || wl_pyrand_sample(&r, n, k, out, &err)) {
            fprintf(stderr, "%s\n", out ? err.msg : "out of memory");
            free(out);
            return 1;
        }
        print_list(out, k);
        free(out);
    }
    return 0;
}

static int bits(void)
{
    unsigned long long seed;
    int k;
    size_t count;
    while (scanf("%llu %d %zu", &seed, &k, &count) == 3) {
        wl_pyrand r;
        wl_pyrand_seed(&r, seed);
        for (size_t i = 0; i < count; i++)
            printf(i ? " %llu" : "%llu", (unsigned long long)wl_pyrand_getrandbits(&r, k));
        putchar('\n');
    }
    return 0;
}

static int dumps(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n') line[--n] = 0;
        char *text;
        long row;
        size_t len;
        wl_err err;
        if (wl_corpus_parse_json_line(line, (size_t)n, &text, &row, &err)) {
            printf("ERROR: %s\n", err.msg);
            continue;
        }
        char *out = wl_ts_json_line(row, text, &len);
        free(text);
        if (!out) return 1;
        fwrite(out, 1, len, stdout);
        free(out);
    }
    free(line);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "sample")) return sample();
    if (argc == 2 && !strcmp(argv[1], "bits")) return bits();
    if (argc == 2 && !strcmp(argv[1], "dumps")) return dumps();
    if (argc == 3 && !strcmp(argv[1], "offsets")) {
        uint64_t *o;
        size_t n;
        wl_err err;
        if (wl_ts_offsets((size_t)strtoull(argv[2], NULL, 10), &o, &n, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        print_list(o, n);
        free(o);
        return 0;
    }
    fprintf(stderr, "usage: corpus_tscheck sample|bits|dumps|offsets STORIES\n");
    return 2;
}

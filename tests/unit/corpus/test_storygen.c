/* test_storygen.c: the embedded story generator: determinism, the dgx corpus figures (TinyStories-like), grammar, long-range references, noise in the training texts only. */
#include "wl_test.h"

#include "wl_corpus.h"
#include "wl_storygen.h"
#include "wl_text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <valgrind/valgrind.h>   /* RUNNING_ON_VALGRIND: no speed check under memcheck */

#define NSTORIES 6000

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* CPU seconds of this process, so that a busy machine does not fail the speed check. */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Same seed: byte-identical text; story i does not depend on the count; another seed differs. */
static void test_determinism(char **texts)
{
    char **again = NULL, **prefix = NULL, **other = NULL;
    wl_err err = {{0}};
    CHECK_MSG(wl_storygen_generate(1, NSTORIES, &again, &err) == 0, "%s", err.msg);
    CHECK_MSG(wl_storygen_generate(1, 100, &prefix, &err) == 0, "%s", err.msg);
    CHECK_MSG(wl_storygen_generate(2, 100, &other, &err) == 0, "%s", err.msg);
    if (!again || !prefix || !other) goto done;
    size_t diff = 0, same_other = 0;
    for (size_t i = 0; i < NSTORIES; i++) diff += strcmp(texts[i], again[i]) != 0;
    CHECK_MSG(diff == 0, "%zu of %d stories differ between two runs with seed 1", diff, NSTORIES);
    diff = 0;
    for (size_t i = 0; i < 100; i++) {
        diff += strcmp(texts[i], prefix[i]) != 0;
        same_other += strcmp(texts[i], other[i]) == 0;
    }
    CHECK_MSG(diff == 0, "%zu of the first 100 stories change when only 100 are generated", diff);
    CHECK_MSG(same_other == 0, "%zu stories are equal under seeds 1 and 2", same_other);

    char **none = NULL;
    CHECK(wl_storygen_generate(1, 0, &none, &err) == 0 && none != NULL);
    wl_storygen_free(none, 0);
    CHECK(wl_storygen_generate(1, 5, NULL, &err) == -1 && strstr(err.msg, "NULL") != NULL);
done:
    wl_storygen_free(again, again ? NSTORIES : 0);
    wl_storygen_free(prefix, prefix ? 100 : 0);
    wl_storygen_free(other, other ? 100 : 0);
}

/* Plain ASCII, balanced quotes, capitalised sentences, a/an before the right sound. */
static void test_surface(char **texts)
{
    size_t non_ascii = 0, odd_quotes = 0, lower_start = 0, bad_article = 0;
    for (size_t i = 0; i < NSTORIES; i++) {
        const char *s = texts[i];
        size_t quotes = 0;
        const char *first = s[0] == '"' ? s + 1 : s;   /* a story may open with speech */
        if (!(first[0] >= 'A' && first[0] <= 'Z')) lower_start++;
        for (const char *p = s; *p; p++) {
            if ((unsigned char)*p >= 128) non_ascii++;
            if (*p == '"') quotes++;
            if ((p[0] == '.' || p[0] == '!' || p[0] == '?') && p[1] == ' ' && p[2] >= 'a' && p[2] <= 'z')
                lower_start++;
            /* " a apple" or " an dog" (word boundaries on both sides of the article) */
            if ((p == s || p[-1] == ' ' || p[-1] == '"') && (p[0] == 'a' || p[0] == 'A')) {
                int an = p[1] == 'n' && p[2] == ' ';
                if ((p[1] == ' ' || an)) {
                    const char *w = p + (an ? 3 : 2);
                    int vowel = *w && strchr("aeioAEIO", *w);
                    if (strncmp(w, "hour", 4) == 0 || strncmp(w, "honest", 6) == 0 || strncmp(w, "honor", 5) == 0) vowel = 1;
                    if (strncmp(w, "one", 3) == 0) vowel = 0;
                    if (an != vowel && *w != 'u') bad_article++;
                }
            }
        }
        if (quotes % 2) odd_quotes++;
    }
    printf("storygen: %zu non-ASCII bytes, %zu stories with unbalanced quotes, %zu lower-case sentence starts, %zu wrong articles\n",
           non_ascii, odd_quotes, lower_start, bad_article);
    CHECK(non_ascii == 0);
    CHECK(odd_quotes == 0);
    CHECK(lower_start == 0);
    CHECK(bad_article == 0);
}

/* The name of the main character: the capitalised word written most often in the story,
 * not counting words that only start a sentence. Copied into name (lower case, "" if none). */
static void main_name(const char *s, char name[24])
{
    char words[64][24];
    size_t counts[64], nw = 0;
    name[0] = '\0';
    for (const char *p = s; *p; p++) {
        if (!(*p >= 'A' && *p <= 'Z') || (p > s && ((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z'))))
            continue;
        const char *q = p - 1;
        while (q >= s && (*q == ' ' || *q == '\n' || *q == '"')) q--;
        if (q < s || *q == '.' || *q == '!' || *q == '?') continue;   /* sentence start */
        char w[24];
        size_t n = 0;
        while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z')) {
            if (n + 1 < sizeof w) w[n] = (char)(p[n] | 0x20);
            n++;
        }
        w[n < sizeof w ? n : sizeof w - 1] = '\0';
        if (strcmp(w, "i") == 0) continue;
        size_t k = 0;
        while (k < nw && strcmp(words[k], w) != 0) k++;
        if (k == nw && nw < 64) { strcpy(words[nw], w); counts[nw++] = 0; }
        if (k < nw) counts[k]++;
    }
    size_t best = 0;
    for (size_t k = 0; k < nw; k++)
        if (counts[k] > best) { best = counts[k]; memcpy(name, words[k], 24); }
}

/* 64-bit FNV-1a of the token pair a b, never 0 (0 marks a free slot of the table below). */
static uint64_t pair_hash(const char *a, const char *b)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = a; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    h = (h ^ 0x1f) * 1099511628211ULL;
    for (const char *p = b; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return h ? h : 1;
}

/* The noise goes into the training texts only: a replaced word makes token pairs that no other text writes, so the
 * share of a split's pairs written once in the whole corpus is far higher in train than in validation and test,
 * whose texts are as the generator wrote them. */
static void test_noise_in_train_only(const wl_corpus *c)
{
    size_t cap = 1 << 22, pairs[WL_NSPLITS] = {0}, once[WL_NSPLITS] = {0};
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint32_t *counts = calloc(cap, sizeof *counts);
    if (!keys || !counts) { CHECK(keys && counts); free(keys); free(counts); return; }
    for (int pass = 0; pass < 2; pass++)
        for (int s = 0; s < WL_NSPLITS; s++)
            for (size_t i = 0; i < c->n[s]; i++) {
                const wl_tokens *t = &c->stories[s][i].tokens;
                for (size_t k = 1; k < t->n; k++) {
                    uint64_t h = pair_hash(t->tok[k - 1], t->tok[k]);
                    size_t j = h & (cap - 1);
                    while (keys[j] && keys[j] != h) j = (j + 1) & (cap - 1);
                    keys[j] = h;
                    if (pass == 0) counts[j]++;
                    else {
                        pairs[s]++;
                        once[s] += counts[j] == 1;
                    }
                }
            }
    double rate[WL_NSPLITS];
    for (int s = 0; s < WL_NSPLITS; s++) rate[s] = (double)once[s] / (double)(pairs[s] ? pairs[s] : 1);
    printf("storygen dgx: token pairs written once in the corpus: train %.1f%%, validation %.1f%%, test %.1f%%\n",
           100.0 * rate[WL_TRAIN], 100.0 * rate[WL_VALIDATION], 100.0 * rate[WL_TEST]);
    CHECK_MSG(rate[WL_TRAIN] > 2.0 * rate[WL_VALIDATION] && rate[WL_TRAIN] > 2.0 * rate[WL_TEST],
              "pairs written once: train %.3f, validation %.3f, test %.3f", rate[WL_TRAIN], rate[WL_VALIDATION],
              rate[WL_TEST]);
    free(keys);
    free(counts);
}

/* The dgx corpus built from the generated stories, as the corpus module builds it. */
static void test_corpus_figures(char **texts)
{
    wl_profile prof;
    wl_corpus c;
    wl_err err = {{0}};
    memset(&c, 0, sizeof c);
    CHECK_MSG(wl_profile_get("dgx", &prof, &err) == 0, "%s", err.msg);
    if (wl_corpus_build_texts((const char *const *)texts, NSTORIES, &prof, &c, &err) != 0) {
        CHECK_MSG(0, "building the dgx corpus failed: %s", err.msg);
        return;
    }
    const wl_audit *a = &c.audit;
    size_t nlong = 0, lens[NSTORIES];
    size_t name_again = 0, named = 0, copies = 0, tokens = 0, cut = 0, whole_short = 0;

    for (int s = 0; s < WL_NSPLITS; s++) {
        for (size_t i = 0; i < c.n[s]; i++) {
            const wl_story *st = &c.stories[s][i];
            const wl_tokens *t = &st->tokens;
            /* the stories' lengths and names: the snippets of one to three sentences are counted apart */
            int whole = t->n >= 50;
            if (whole) lens[nlong++] = t->n;
            /* a story cut after a word ends in a letter; every other one ends a sentence */
            size_t tl = strlen(st->text);
            int ends_word = tl && ((st->text[tl - 1] >= 'a' && st->text[tl - 1] <= 'z') || (st->text[tl - 1] >= 'A' && st->text[tl - 1] <= 'Z'));
            if (ends_word) cut++;
            else whole_short += t->n < 50;
            char name[24];
            main_name(st->text, name);
            size_t first = t->n, last = 0;
            for (size_t k = 0; k < t->n; k++) {
                if (name[0] && strcmp(t->tok[k], name) == 0) {
                    if (first == t->n) first = k;
                    last = k;
                }
                /* A long-range copy: a content token (not among the 100 most frequent) whose
                 * previous occurrence is 20 to 63 tokens back, with none in between; counted in the texts as
                 * written (validation and test: the training texts' noise replaces a word in four). */
                if (s == WL_TRAIN || st->ids[k] < WL_TEXT_NSPECIALS + 100) continue;
                tokens++;
                size_t back = 0;
                for (size_t d = 1; d <= 63 && d <= k; d++)
                    if (strcmp(t->tok[k - d], t->tok[k]) == 0) { back = d; break; }
                copies += back >= 20;
            }
            named += whole && first < t->n;
            name_again += whole && first < t->n && last >= first + 30;
        }
    }
    if (nlong == 0) {
        CHECK_MSG(0, "no story of 50 tokens or more");
        wl_corpus_free(&c);
        return;
    }
    qsort(lens, nlong, sizeof lens[0], cmp_size);
    double median = nlong % 2 ? (double)lens[nlong / 2] : 0.5 * (double)(lens[nlong / 2 - 1] + lens[nlong / 2]);
    double name_rate = (double)name_again / (double)nlong;
    double copy_rate = (double)copies / (double)(tokens ? tokens : 1);
    const wl_split_audit *tr = &a->split[WL_TRAIN], *te = &a->split[WL_TEST];

    printf("storygen dgx: %zu stories, %zu duplicates, splits %zu / %zu / %zu\n", a->texts_read,
           a->duplicates, tr->documents, a->split[WL_VALIDATION].documents, te->documents);
    printf("storygen dgx: %zu stories of 50 tokens or more: length min %zu, median %.1f, max %zu tokens "
           "(train median of all %.1f)\n", nlong, lens[0], median, lens[nlong - 1], tr->len_median);
    printf("storygen dgx: vocabulary %zu (%zu word types), train tokens %zu, test tokens %zu, test OOV %.2f%%\n",
           a->vocab_size, a->vocab_size - WL_TEXT_NSPECIALS, tr->tokens, te->tokens, 100.0 * te->unknown_rate);
    printf("storygen dgx: %zu stories cut after a word; %zu others shorter than 50 tokens\n", cut, whole_short);
    printf("storygen dgx: main character named again >= 30 tokens later in %.1f%% of the stories of 50 tokens or more (%zu found)\n",
           100.0 * name_rate, named);
    printf("storygen dgx: %.1f%% of the content tokens of validation and test repeat a token 20-63 tokens back\n",
           100.0 * copy_rate);

    CHECK(a->texts_read == NSTORIES);
    /* short snippets of validation and test, as written, now and then come out the same */
    CHECK_MSG(a->duplicates <= NSTORIES / 500, "%zu duplicates", a->duplicates);
    CHECK(a->overlap == 0);
    CHECK_MSG(median >= 250 && median <= 450, "median story length %.1f", median);
    /* a few stories cut after a word, and a fifth of the snippets without their last full stop */
    CHECK_MSG(cut >= NSTORIES / 20 && cut <= NSTORIES / 6, "%zu stories cut after a word", cut);
    /* about half the texts are snippets of one to three sentences (a text may end after any sentence) */
    CHECK_MSG(whole_short >= NSTORIES * 3 / 10 && whole_short <= NSTORIES / 2, "%zu stories that end a sentence are shorter than 50 tokens", whole_short);
    CHECK_MSG(lens[nlong - 1] <= 1000, "longest story %zu tokens", lens[nlong - 1]);
    CHECK_MSG(a->vocab_size == prof.max_vocab, "vocabulary of %zu, cap %zu", a->vocab_size, prof.max_vocab);
    CHECK_MSG(te->unknown_rate >= 0.01 && te->unknown_rate <= 0.03, "test OOV rate %.4f", te->unknown_rate);
    CHECK_MSG(name_rate >= 0.90, "main character named again in %.3f of stories", name_rate);
    CHECK_MSG(copy_rate >= 0.05, "long-range copy rate %.3f", copy_rate);
    test_noise_in_train_only(&c);
    wl_corpus_free(&c);
}

/* Variety: hardly any two stories open with the same 120 characters. */
static void test_variety(char **texts)
{
    char **heads = malloc(NSTORIES * sizeof *heads);
    if (!heads) { CHECK(heads != NULL); return; }
    for (size_t i = 0; i < NSTORIES; i++) heads[i] = texts[i];
    qsort(heads, NSTORIES, sizeof *heads, cmp_str);
    size_t same = 0;
    for (size_t i = 1; i < NSTORIES; i++) {
        size_t k = 0;
        while (heads[i][k] && heads[i][k] == heads[i - 1][k]) k++;
        same += k >= 120;
    }
    printf("storygen: %zu story pairs share their first 120 characters\n", same);
    CHECK_MSG(same <= NSTORIES / 100, "%zu near-duplicate openings", same);
    free(heads);
}

void wl_test_main(void)
{
    char **texts = NULL;
    wl_err err = {{0}};
    double t0 = cpu_seconds();
    int rc = wl_storygen_generate(1, NSTORIES, &texts, &err);
    double dt = cpu_seconds() - t0;
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc != 0) return;
    printf("storygen: %d stories in %.3f s of CPU time\n", NSTORIES, dt);
#if !defined(__SANITIZE_ADDRESS__)
    if (!RUNNING_ON_VALGRIND) CHECK_MSG(dt < 1.0, "generating %d stories took %.3f s", NSTORIES, dt);
#endif
    test_determinism(texts);
    test_surface(texts);
    test_variety(texts);
    test_corpus_figures(texts);
    wl_storygen_free(texts, NSTORIES);
}

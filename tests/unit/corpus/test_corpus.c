/* test_corpus.c: building a corpus: de-duplication, split order, vocabulary, encoding, windows, audit, files, errors. */
#include "wl_corpus.h"
#include "wl_test.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const wl_profile TINY = {"tiny", 0, 12, 2};

/* n deterministic texts; text i repeats words so that some counts reach min_freq. */
static char **make_texts(size_t n)
{
    static const char *words[] = {"dog", "cat", "ran", "Red", "ball", "the", "sun", "\"hi\"", "sam", "lily"};
    char **t = malloc(n * sizeof *t);
    for (size_t i = 0; i < n; i++) {
        char buf[256];
        int len = snprintf(buf, sizeof buf, "Story %zu:", i);
        for (size_t k = 0; k < 3 + i % 7; k++) len += snprintf(buf + len, sizeof buf - (size_t)len, " %s", words[(i * 7 + k * k) % 10]);
        t[i] = strdup(buf);
    }
    return t;
}

static void free_texts(char **t, size_t n)
{
    for (size_t i = 0; i < n; i++) free(t[i]);
    free(t);
}

static void test_build_and_dedup(void)
{
    const size_t n = 80;
    char **texts = make_texts(n + 3);
    free(texts[n]);
    free(texts[n + 1]);
    free(texts[n + 2]);
    texts[n] = strdup(texts[5]);              /* an exact duplicate */
    texts[n + 2] = strdup(" \t\n ");          /* empty */
    size_t l0 = strlen(texts[0]);             /* text 0 in upper case with extra spaces: equal once normalized */
    texts[n + 1] = malloc(l0 + 4);
    snprintf(texts[n + 1], l0 + 4, "  %s\n", texts[0]);
    for (char *p = texts[n + 1]; *p; p++)
        if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 32);

    wl_corpus c;
    wl_err e;
    CHECK(wl_corpus_build_texts((const char *const *)texts, n + 3, &TINY, &c, &e) == 0);
    CHECK(c.audit.texts_read == n + 3);
    CHECK_MSG(c.audit.duplicates == 2, "duplicates %zu", c.audit.duplicates);
    CHECK(c.audit.empty == 1);
    CHECK(c.audit.overlap == 0);
    CHECK(c.n[WL_TRAIN] + c.n[WL_VALIDATION] + c.n[WL_TEST] == n);
    CHECK(c.n[WL_TRAIN] > 0 && c.n[WL_VALIDATION] > 0 && c.n[WL_TEST] > 0);

    for (int s = 0; s < WL_NSPLITS; s++) {
        size_t tokens = 0, unknown = 0;
        for (size_t i = 0; i < c.n[s]; i++) {
            const wl_story *st = &c.stories[s][i];
            char id[WL_DOC_ID_LEN + 1];
            wl_split sp;
            CHECK(wl_corpus_doc_info(st->text, strlen(st->text), id, &sp, &e) == 0);
            CHECK(sp == (wl_split)s && !strcmp(id, st->doc_id));
            if (i) CHECK(strcmp(c.stories[s][i - 1].doc_id, st->doc_id) < 0);
            tokens += st->tokens.n;
            for (size_t k = 0; k < st->tokens.n; k++) {
                CHECK(st->ids[k] >= 0 && (size_t)st->ids[k] < c.vocab.n);
                if (st->ids[k] == WL_UNK) unknown++;
                else CHECK(!strcmp(c.vocab.itos[st->ids[k]], st->tokens.tok[k]));
            }
        }
        CHECK(c.audit.split[s].tokens == tokens && c.audit.split[s].unknown == unknown);
        CHECK(c.audit.split[s].targets == tokens + c.n[s]);
    }

    /* Vocabulary: specials, then train tokens by descending count, ascending token, count >= 2, capped. */
    CHECK(c.vocab.n == TINY.max_vocab);
    for (int i = 0; i < WL_TEXT_NSPECIALS; i++) CHECK(!strcmp(c.vocab.itos[i], wl_text_specials[i]));
    size_t prev_count = (size_t)-1;
    for (size_t id = WL_TEXT_NSPECIALS; id < c.vocab.n; id++) {
        size_t count = 0;
        for (size_t i = 0; i < c.n[WL_TRAIN]; i++)
            for (size_t k = 0; k < c.stories[WL_TRAIN][i].tokens.n; k++)
                count += !strcmp(c.stories[WL_TRAIN][i].tokens.tok[k], c.vocab.itos[id]);
        CHECK(count >= 2 && count <= prev_count);
        if (count == prev_count) CHECK(strcmp(c.vocab.itos[id - 1], c.vocab.itos[id]) < 0);
        prev_count = count;
        CHECK(wl_vocab_id(&c.vocab, c.vocab.itos[id]) == (int32_t)id);
    }
    CHECK(wl_vocab_id(&c.vocab, "zebra") == WL_UNK);

    char *audit = wl_corpus_audit_text(&c);
    CHECK(audit && strstr(audit, "duplicates removed 2") && strstr(audit, "validation"));
    free(audit);
    char *json = wl_corpus_audit_json(&c);
    cJSON *aj = cJSON_Parse(json);
    const cJSON *tr = cJSON_GetObjectItem(cJSON_GetObjectItem(aj, "splits"), "train");
    CHECK(cJSON_GetObjectItem(tr, "documents") && cJSON_GetObjectItem(tr, "documents")->valuedouble == (double)c.n[WL_TRAIN]);
    cJSON_Delete(aj);
    free(json);
    wl_corpus_free(&c);
    free_texts(texts, n + 3);
}

static void test_windows(void)
{
    /* One long story (100 words) and a short one: windows = tokens + 1 each, contexts never cross. */
    char long_text[1024] = "";
    for (int i = 0; i < 100; i++) strcat(long_text, i % 2 ? "cat " : "dog ");
    const char *texts[] = {long_text, "dog cat dog", "cat"};
    wl_profile p = {"t", 0, 100, 1};
    wl_corpus c;
    wl_err e;
    CHECK(wl_corpus_build_texts(texts, 3, &p, &c, &e) == 0);
    for (int s = 0; s < WL_NSPLITS; s++) {
        wl_windows w;
        CHECK(wl_corpus_windows(&c, (wl_split)s, NULL, &w, &e) == 0);
        CHECK(w.n == c.audit.split[s].targets);
        size_t row = 0;
        for (size_t i = 0; i < c.n[s]; i++) {
            const wl_story *st = &c.stories[s][i];
            size_t len = st->tokens.n + 2;
            for (size_t pos = 1; pos < len; pos++, row++) {
                const int32_t *ctx = w.ctx + row * WL_CONTEXT;
                int32_t want_tgt = pos == len - 1 ? WL_EOS : st->ids[pos - 1];
                CHECK(w.tgt[row] == want_tgt);
                for (size_t j = 0; j < WL_CONTEXT; j++) {
                    long src = (long)pos - WL_CONTEXT + (long)j;   /* index into BOS + ids + EOS */
                    int32_t want = src < 0 ? WL_PAD : src == 0 ? WL_BOS : st->ids[src - 1];
                    if (ctx[j] != want) {
                        CHECK_MSG(0, "split %d story %zu pos %zu slot %zu: %d, want %d", s, i, pos, j, ctx[j], want);
                        break;
                    }
                }
            }
        }
        CHECK(row == w.n);
        wl_windows_free(&w);
    }
    CHECK(c.audit.split[WL_TRAIN].len_max == 100 || c.audit.split[WL_VALIDATION].len_max == 100 ||
          c.audit.split[WL_TEST].len_max == 100);
    wl_corpus_free(&c);
}

static void test_profiles_and_limit(void)
{
    wl_profile p;
    wl_err e;
    CHECK(wl_profile_get("smoke", &p, &e) == 0 && p.stories == 480 && p.max_vocab == 1500 && p.min_freq == 2);
    CHECK(wl_profile_get("classroom", &p, &e) == 0 && p.stories == 3000 && p.max_vocab == 3000);
    CHECK(wl_profile_get("dgx", &p, &e) == 0 && p.stories == 6000 && p.max_vocab == 4000);
    CHECK(wl_profile_get("huge", &p, &e) == -1 && strstr(e.msg, "huge") && strstr(e.msg, "smoke"));

    char **texts = make_texts(30);
    wl_profile five = {"five", 5, 100, 2};
    wl_corpus c;
    const char *dup_first[] = {texts[0], texts[0], texts[1], texts[2], texts[3], texts[4], texts[5], texts[6]};
    CHECK(wl_corpus_build_texts(dup_first, 8, &five, &c, &e) == 0);
    CHECK(c.n[0] + c.n[1] + c.n[2] == 5 && c.audit.duplicates == 1 && c.audit.texts_read == 6);
    wl_corpus_free(&c);
    free_texts(texts, 30);

    const char *bad[] = {"fine", "bad \xC3\x28 utf8"};
    CHECK(wl_corpus_build_texts(bad, 2, &five, &c, &e) == -1);
    CHECK_MSG(strstr(e.msg, "text 2") && strstr(e.msg, "byte offset 4"), "%s", e.msg);
    const char *blank[] = {" ", ""};
    CHECK(wl_corpus_build_texts(blank, 2, &five, &c, &e) == -1 && strstr(e.msg, "empty"));
    CHECK(wl_corpus_build_texts(NULL, 0, &five, &c, &e) == -1 && strstr(e.msg, "empty source"));
}

static void test_vocab_files(void)
{
    char dir[] = "/tmp/wl_vocab_XXXXXX", path[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/vocab.json", dir);
    wl_tokens docs[2];
    wl_err e;
    CHECK(wl_text_tokenize("b a b a c c c d", 15, &docs[0], &e) == 0);
    CHECK(wl_text_tokenize("e d", 3, &docs[1], &e) == 0);
    wl_profile p = {"smoke", 480, 7, 2};
    wl_vocab v, w;
    CHECK(wl_vocab_fit(docs, 2, &p, NULL, &v, &e) == 0);
    const char *want[] = {"<PAD>", "<BOS>", "<EOS>", "<UNK>", "c", "a", "b"};   /* d (2) is cut by max_vocab */
    CHECK(v.n == 7);
    for (size_t i = 0; i < 7 && i < v.n; i++) CHECK_MSG(!strcmp(v.itos[i], want[i]), "itos[%zu]=%s", i, v.itos[i]);
    int32_t ids[8];
    CHECK(wl_vocab_encode(&v, (const char *const *)docs[0].tok, docs[0].n, ids) == 1 && ids[7] == WL_UNK && ids[0] == 6);
    CHECK(wl_vocab_save(&v, path, &e) == 0);
    CHECK(wl_vocab_load(path, &w, &e) == 0);
    CHECK(w.n == v.n && !strcmp(w.profile, "smoke") && w.min_freq == 2 && w.max_vocab == 7);
    for (size_t i = 0; i < v.n && i < w.n; i++) CHECK(!strcmp(v.itos[i], w.itos[i]) && wl_vocab_id(&w, v.itos[i]) == (int32_t)i);
    wl_vocab_free(&w);
    wl_vocab_free(&v);
    wl_tokens_free(&docs[0]);
    wl_tokens_free(&docs[1]);

    const char *bad[][2] = {
        {"{\"itos\": [\"<PAD>\", \"<BOS>\", \"<EOS>\", \"<UNK>\", \"a\", \"a\"]}", "appears twice"},
        {"{\"itos\": [\"<PAD>\", \"<EOS>\", \"<BOS>\", \"<UNK>\"]}", "expected \"<BOS>\""},
        {"{\"itos\": [\"<PAD>\", \"<BOS>\", \"<EOS>\", \"<UNK>\", 5]}", "itos[4] is not a string"},
        {"{\"vocab\": []}", "no \"itos\""},
        {"[1, 2]", "not a JSON object"},
        {"[1, 2", "not valid JSON: at byte 5: the text ends inside the JSON value"},
        {"{\"itos\": [\"\\ud800\"]}", "not valid JSON: at byte 12: \\ud800 is the first half of a UTF-16 surrogate pair"},
        {"{\"itos\": [\"\\udfff\"]}", "at byte 12: \\udfff is the second half of a UTF-16 surrogate pair"},
        {"{\"itos\": [\"\\u12x\"]}", "at byte 12: \\u is not followed by four hex digits"},
        {"{\"itos\": []} {}", "at byte 14: more text after the JSON value"},
        {"{\n\"itos\":\n [1,,2]}", "not valid JSON: at line 3, column 5 (byte 15)"},
        {"{\"itos\": [\"<PAD>\", \"<BOS>\", \"<EOS>\", \"<UNK>\"], \"min_freq\": -1}", "min_freq"},
        /* past any size_t: refused before the conversion (UBSan checks it) */
        {"{\"itos\": [\"<PAD>\", \"<BOS>\", \"<EOS>\", \"<UNK>\"], \"max_vocab\": 1e300}", "\"max_vocab\" must be an integer"},
        {"{\"itos\": [\"<PAD>\", \"<BOS>\", \"<EOS>\", \"<UNK>\"], \"min_freq\": 2.5}", "\"min_freq\" must be an integer"},
        /* cJSON would cut the token at its NUL */
        {"{\"itos\": [\"<PAD>\", \"<BOS>\", \"<EOS>\", \"<UNK>\", \"a\", \"b\\u0000c\"]}", "itos[5] holds U+0000 (NUL)"},
        {"{\"itos\": [\"<PAD>\", \"<BOS>\", \"<EOS>\", \"<UNK>\"], \"profile\": \"x\\u0000\"}", "a NUL (a NUL byte or \\u0000) at byte offset 60"},
        {"{\"itos\": [\"<PAD>\", \"<BOS>\", \"<EOS>\", \"<UNK>\", \"a\\\\u0000\", \"a\\\\u0000\"]}", "\"a\\u0000\" appears twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(wl_write_atomic(path, bad[i][0], strlen(bad[i][0]), &e) == 0);
        CHECK(wl_vocab_load(path, &w, &e) == -1);
        CHECK_MSG(strstr(e.msg, bad[i][1]) && strstr(e.msg, path), "case %zu: %s", i, e.msg);
    }
    /* 100,000 levels deep: the parser stops at its limit (no deep recursion), and the message says so */
    size_t depth = 100000;
    char *deep = malloc(6 * depth + 16);   /* [ or {"a": per level, then the closings */
    for (int obj = 0; obj < 2; obj++) {
        size_t k = 0;
        for (size_t d = 0; d < depth; d++) k += (size_t)sprintf(deep + k, "%s", obj ? "{\"a\":" : "[");
        for (size_t d = 0; d < depth; d++) deep[k++] = obj ? '}' : ']';
        CHECK(wl_write_atomic(path, deep, k, &e) == 0);
        CHECK(wl_vocab_load(path, &w, &e) == -1);
        CHECK_MSG(strstr(e.msg, "not valid JSON: at byte ") && strstr(e.msg, "nested deeper than 1000 levels"), "%s", e.msg);
    }
    free(deep);
    unlink(path);
    CHECK(wl_vocab_load(path, &w, &e) == -1 && strstr(e.msg, path));
    rmdir(dir);
}

/* Writes content to dir/name and loads it as a corpus; returns the load status. */
static int load(const char *dir, const char *name, const char *content, wl_corpus *c, wl_err *e)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    CHECK(wl_write_atomic(path, content, strlen(content), e) == 0);
    int rc = wl_corpus_load_file(path, WL_CORPUS_BY_NAME, &TINY, NULL, c, e);
    unlink(path);
    return rc;
}

static void test_files(void)
{
    char dir[] = "/tmp/wl_corpus_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    wl_corpus c;
    wl_err e;
    CHECK(load(dir, "a.jsonl", "{\"text\": \"Once a dog ran.\", \"row_idx\": 7}\n\n{\"text\": \"A cat sat.\"}\r\n"
                               "{\"text\": \"Once a dog ran.\"}\n", &c, &e) == 0);
    CHECK(c.audit.texts_read == 3 && c.audit.duplicates == 1);
    for (int s = 0; s < WL_NSPLITS; s++)
        for (size_t i = 0; i < c.n[s]; i++) {
            const wl_story *st = &c.stories[s][i];
            if (!strcmp(st->text, "Once a dog ran.")) CHECK(st->row_idx == 7 && st->line == 1);
            else CHECK(!strcmp(st->text, "A cat sat.") && st->line == 3 && st->row_idx == 1);
        }
    wl_corpus_free(&c);

    CHECK(load(dir, "b.txt", "\nOne day, Lily\nfound a ball.\n<|endoftext|>\n\nTom ran.\n<|endoftext|>\nThe end\n", &c, &e) == 0);
    CHECK(c.n[0] + c.n[1] + c.n[2] == 3 && c.audit.empty == 0);
    for (int s = 0; s < WL_NSPLITS; s++)
        for (size_t i = 0; i < c.n[s]; i++) {
            const wl_story *st = &c.stories[s][i];
            CHECK(!strcmp(st->text, "One day, Lily\nfound a ball.") ? st->line == 2
                  : !strcmp(st->text, "Tom ran.")                    ? st->line == 6
                                                                     : !strcmp(st->text, "The end") && st->line == 8);
        }
    wl_corpus_free(&c);

    CHECK(load(dir, "bom.jsonl", "\xEF\xBB\xBF{\"text\": \"A cat sat.\"}\n", &c, &e) == 0);
    CHECK(c.n[0] + c.n[1] + c.n[2] == 1 && c.audit.texts_read == 1);
    wl_corpus_free(&c);

    struct { const char *name, *content, *want; } bad[] = {
        {"e1.jsonl", "{\"text\": \"ok\"}\n{\"txt\": \"no\"}\n", "e1.jsonl line 2: no \"text\" field"},
        {"e2.jsonl", "{\"text\": \"ok\"}\n{\"text\": \"ok\n", "e2.jsonl line 2: not valid JSON"},
        {"e3.jsonl", "{\"text\": \"ok\"}\n\n{\"text\": \"b\xFFz\"}\n", "e3.jsonl line 3: invalid UTF-8 at byte 12"},
        {"e4.jsonl", "{\"text\": 5}\n", "e4.jsonl line 1: \"text\" is not a string"},
        {"e5.jsonl", "{\"text\": \"a\"} x\n", "e5.jsonl line 1: not valid JSON"},
        {"e6.jsonl", "{\"text\": \"a\", \"row_idx\": \"x\"}\n", "row_idx"},
        {"e7.txt", "fine\n<|endoftext|>\nb\xC3\n", "e7.txt line 3: invalid UTF-8 at byte 2"},
        {"e8.txt", "", "e8.txt: empty source"},
        {"e9.txt", "\n  \n<|endoftext|>\n\n", "e9.txt: empty source"},
        {"e10.jsonl", "{\"text\": \" \"}\n", "e10.jsonl: no stories: all 1 texts are empty"},
        {"e12.jsonl", "{\"text\": \"a\\\\u0000 is fine\"}\n{\"text\": \"a\\u0000b\"}\n", "e12.jsonl line 2: a string contains \\u0000"},
        {"e11.jsonl", "{\"text\": \"ok\"}\n[1]\n", "e11.jsonl line 2: not a JSON object"},
        /* the name gives the format, never the first byte */
        {"e13.jsonl", "Once a dog ran.\n{\"text\": \"ok\"}\n", "e13.jsonl line 1: not valid JSON: at byte 1"},
        {"e14.dat", "{\"text\": \"ok\"}\n", "e14.dat: its name does not say how to read it"},
        {"e15", "a\n", "e15: its name does not say how to read it (.jsonl: JSON lines"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(load(dir, bad[i].name, bad[i].content, &c, &e) == -1);
        CHECK_MSG(strstr(e.msg, bad[i].want), "%s: got \"%s\", want \"%s\"", bad[i].name, e.msg, bad[i].want);
        CHECK(c.n[0] == 0 && c.stories[0] == NULL);
    }
    char path[256];
    /* format= reads a file of another name; a .txt file that looks like JSON is still plain text */
    snprintf(path, sizeof path, "%s/stories.dat", dir);
    const char *one = "{\"text\": \"A cat sat.\"}\n";
    CHECK(wl_write_atomic(path, one, strlen(one), &e) == 0);
    CHECK(wl_corpus_load_file(path, WL_CORPUS_JSONL, &TINY, NULL, &c, &e) == 0 && c.audit.texts_read == 1);
    wl_corpus_free(&c);
    CHECK(wl_corpus_load_file(path, WL_CORPUS_TEXT, &TINY, NULL, &c, &e) == 0);
    CHECK(c.n[0] + c.n[1] + c.n[2] == 1 && strstr((c.n[0] ? c.stories[0] : c.n[1] ? c.stories[1] : c.stories[2])[0].text, "{\"text\""));
    wl_corpus_free(&c);
    unlink(path);
    CHECK(load(dir, "j.txt", one, &c, &e) == 0 && c.audit.texts_read == 1);
    wl_corpus_free(&c);
    CHECK(wl_corpus_load_mem(one, strlen(one), "mem.jsonl", WL_CORPUS_BY_NAME, &TINY, NULL, &c, &e) == 0);
    CHECK(c.audit.texts_read == 1);
    wl_corpus_free(&c);
    CHECK(wl_corpus_load_mem("x\n", 2, "mem.jsonl", WL_CORPUS_BY_NAME, &TINY, NULL, &c, &e) == -1);
    CHECK_MSG(strstr(e.msg, "mem.jsonl line 1: not valid JSON"), "%s", e.msg);
    CHECK(wl_corpus_load_file("/dev/zero", WL_CORPUS_TEXT, &TINY, NULL, &c, &e) == -1);
    CHECK_MSG(strstr(e.msg, "/dev/zero: is a character device, not a regular file"), "%s", e.msg);
    snprintf(path, sizeof path, "%s/missing.jsonl", dir);
    CHECK(wl_corpus_load_file(path, WL_CORPUS_BY_NAME, &TINY, NULL, &c, &e) == -1 && strstr(e.msg, path) && strstr(e.msg, "cannot open"));
    CHECK(wl_corpus_load_file(dir, WL_CORPUS_JSONL, &TINY, NULL, &c, &e) == -1 && strstr(e.msg, dir));
    rmdir(dir);
}

void wl_test_main(void)
{
    test_build_and_dedup();
    test_windows();
    test_profiles_and_limit();
    test_vocab_files();
    test_files();
}

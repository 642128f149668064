/* test_next.c: `next`: a probability for every word, the top ones and the rest, the same numbers `losses` shows. */
#include "lang_test.h"
#include "wl_test.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char SETUP[] = "s = corpus profile=smoke stories=60\n"
                            "m = model new kind=multihead heads=4 vocab=$s.vocab seed=11\n"
                            "t = train $m $s steps=64 batch=16\n";

/* The numbers a value shows as JSON (its app_json), parsed; NULL when the code fails. */
static cJSON *json_of(wl_interp *in, const char *code)
{
    lt_run *r = lt_eval(in, code, NULL);
    CHECK_MSG(r->rc == 0, "%s: %s: %s", code, r->err.ename, r->err.evalue);
    cJSON *j = r->rc == 0 && r->result.app_json ? cJSON_Parse(r->result.app_json) : NULL;
    lt_free(r);
    return j;
}

static double num_of(wl_interp *in, const char *code)
{
    cJSON *j = json_of(in, code);
    double x = cJSON_IsNumber(j) ? j->valuedouble : NAN;
    cJSON_Delete(j);
    return x;
}

/* Every target of a text: the probability `next` gives it after the text before it is the one `losses` shows. */
static void test_same_numbers_as_losses(wl_interp *in)
{
    const char *words[] = {"the", "little", "dog", "was", "happy", "."};
    char text[256] = "", code[512];
    cJSON *l = json_of(in, "losses $m \"the little dog was happy .\"");
    const cJSON *probs = cJSON_GetObjectItemCaseSensitive(l, "probabilities");
    CHECK(cJSON_GetArraySize(probs) == 7);   /* six words and <EOS> */
    for (int k = 0; k < 6; k++) {
        snprintf(code, sizeof code, "n = next $m \"%s\" target=%s\n$n.p", text, words[k]);
        double p = num_of(in, code);
        const cJSON *want = cJSON_GetArrayItem(probs, k);
        CHECK_MSG(cJSON_IsNumber(want) && p == want->valuedouble, "after \"%s\": next gives %s p %.17g, losses %.17g", text,
                  words[k], p, want ? want->valuedouble : NAN);
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s", k ? " " : "", words[k]);
    }
    snprintf(code, sizeof code, "n = next $m \"%s\" target=<EOS>\n$n.p", text);
    CHECK(num_of(in, code) == cJSON_GetArrayItem(probs, 6)->valuedouble);
    cJSON_Delete(l);
}

/* The JSON of two values, as text, are the same (both code fragments must succeed). */
static void expect_same_json(wl_interp *in, const char *a, const char *b)
{
    cJSON *ja = json_of(in, a), *jb = json_of(in, b);
    char *ta = ja ? cJSON_PrintUnformatted(ja) : NULL, *tb = jb ? cJSON_PrintUnformatted(jb) : NULL;
    CHECK_MSG(ta && tb && !strcmp(ta, tb), "%s gives %s\n%s gives %s", a, ta ? ta : "(nothing)", b, tb ? tb : "(nothing)");
    free(ta);
    free(tb);
    cJSON_Delete(ja);
    cJSON_Delete(jb);
}

/* Ids from `encode` are read as the text they encode: next, generate and losses give the same numbers for both. */
static void test_ids_as_text(wl_interp *in)
{
    expect_same_json(in, "next $m 3 top=2", "next $m \"3\" top=2");   /* a number is text, as before */
    expect_same_json(in, "a = encode \"the little dog\" vocab=$s\nnext $m $a top=3 target=was",
                     "next $m \"the little dog\" top=3 target=was");
    expect_same_json(in, "a = encode \"the little dog\" vocab=$s\ng = generate $m $a tokens=5\n$g.tokens",
                     "g = generate $m \"the little dog\" tokens=5\n$g.tokens");
    expect_same_json(in, "a = encode \"the little dog\" vocab=$s\nl = losses $m $a\n$l.probabilities",
                     "l = losses $m \"the little dog\"\n$l.probabilities");
    expect_same_json(in, "a = encode \"the little dog\" vocab=$s\nl = losses $m $a\n$l.tokens",
                     "l = losses $m \"the little dog\"\n$l.tokens");
}

/* eos=0 scores the text's tokens only: the same numbers without the final <EOS>, and the summary says so. */
static void test_losses_without_eos(wl_interp *in)
{
    cJSON *all = json_of(in, "l = losses $m \"the little dog was\"\n$l.losses");
    cJSON *some = json_of(in, "l = losses $m \"the little dog was\" eos=0\n$l.losses");
    CHECK(cJSON_GetArraySize(all) == 5 && cJSON_GetArraySize(some) == 4);
    double sum = 0;
    for (int k = 0; k < 4 && cJSON_GetArraySize(some) == 4; k++) {
        CHECK(cJSON_GetArrayItem(some, k)->valuedouble == cJSON_GetArrayItem(all, k)->valuedouble);
        sum += cJSON_GetArrayItem(some, k)->valuedouble;
    }
    CHECK(fabs(num_of(in, "l = losses $m \"the little dog was\" eos=0\n$l.loss") - sum / 4) < 1e-12);
    cJSON_Delete(all);
    cJSON_Delete(some);
    lt_run *r = lt_eval(in, "losses $m \"the little dog was\" eos=0", NULL);
    CHECK_MSG(r->rc == 0 && strstr(lt_text(r), "4 targets: mean loss ") && strstr(lt_text(r), "; <EOS> not scored") &&
              !strstr(lt_text(r), "<EOS>("), "%s", lt_text(r));
    CHECK(r->result.text_html && strstr(r->result.text_html, "; &lt;EOS&gt; not scored"));
    lt_free(r);
    r = lt_eval(in, "losses $m \"the little dog was\"", NULL);
    CHECK(r->rc == 0 && strstr(lt_text(r), "<EOS>(") && !strstr(lt_text(r), "not scored"));
    lt_free(r);
}

static void test_distribution(wl_interp *in)
{
    /* every word has a probability; they add up to 1; the top ones fall; top + rest = 1 */
    CHECK(fabs(num_of(in, "n = next $m \"once upon a\"\nsum $n.all") - 1) < 1e-12);
    CHECK(num_of(in, "v = vocab $s\nn = next $m \"once upon a\"\n$n.all.count - $v.size") == 0);
    cJSON *j = json_of(in, "next $m \"once upon a\" top=7");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "probabilities");
    CHECK(cJSON_GetArraySize(p) == 7 && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "tokens")) == 7);
    double sum = cJSON_GetObjectItemCaseSensitive(j, "rest")->valuedouble;
    for (int i = 0; i < cJSON_GetArraySize(p); i++) {
        sum += cJSON_GetArrayItem(p, i)->valuedouble;
        if (i) CHECK(cJSON_GetArrayItem(p, i)->valuedouble <= cJSON_GetArrayItem(p, i - 1)->valuedouble);
    }
    CHECK(fabs(sum - 1) < 1e-12);
    cJSON_Delete(j);
    /* the first of the top is the argmax of every word's probability, and greedy generation's choice */
    CHECK(num_of(in, "n = next $m \"once upon a\"\nv = vocab $s\nargmax $n.all") >= 0);
    cJSON *top = json_of(in, "n = next $m \"once upon a\" top=4\n$n.tokens");
    cJSON *gen = json_of(in, "g = generate $m \"once upon a\" tokens=1\n$g.tokens");
    const char *want = NULL;   /* greedy generation takes the first that is not <PAD>, <BOS> or <UNK> */
    const cJSON *item;
    cJSON_ArrayForEach(item, top) if (!want && strcmp(item->valuestring, "<PAD>") && strcmp(item->valuestring, "<BOS>") &&
                                      strcmp(item->valuestring, "<UNK>")) want = item->valuestring;
    CHECK(want && cJSON_GetArraySize(gen) == 1 && !strcmp(cJSON_GetArrayItem(gen, 0)->valuestring, want));
    cJSON_Delete(top);
    cJSON_Delete(gen);
    lt_run *r;
    /* what it shows: the table with bars, the rest, the target's row and line; the same in HTML */
    r = lt_eval(in, "next $m \"the dog\" top=3 target=was", NULL);
    CHECK(r->rc == 0);
    const char *t = lt_text(r);
    CHECK(strstr(t, "rank") && strstr(t, "-ln p") && strstr(t, "█") && strstr(t, "words together: p "));
    CHECK(strstr(t, "target was: p ") && strstr(t, ", loss -ln p ") && strstr(t, ", rank "));
    CHECK(r->result.text_html && strstr(r->result.text_html, "width:100.0%") && strstr(r->result.text_html, "target <code>was</code>"));
    lt_free(r);
    /* the -ln p column has 4 decimals in every row (trailing zeros kept, so that it lines up), in the HTML too */
    r = lt_eval(in, "next $m \"the dog\" top=300", NULL);
    CHECK(r->rc == 0 && r->result.text_html);
    int rows = 0;
    for (const char *line = strstr(lt_text(r), "\u2500\n"); line && r->result.text_html; line = strchr(line + 1, '\n')) {
        int rank;
        char token[128], p[32], loss[32], cell[96];
        if (sscanf(line + 1, "%d %127s %31s %31s", &rank, token, p, loss) != 4) continue;
        const char *dot = strchr(loss, '.');
        CHECK_MSG(dot && strlen(dot) == 5, "rank %d: -ln p is %s", rank, loss);
        snprintf(cell, sizeof cell, "<td>%s</td><td>%s</td>", p, loss);
        CHECK_MSG(strstr(r->result.text_html, cell), "rank %d: the HTML has no %s", rank, cell);
        rows++;
    }
    CHECK_MSG(rows == 300, "%d rows read", rows);
    lt_free(r);
}

/* A token list (from `tokenize`) is read as its text is, by every command that reads a model's context; target= is
 * lower-cased as the text is. */
static void test_token_lists_and_case(wl_interp *in)
{
    CHECK(num_of(in, "a = losses $m [tokenize \"The dog was happy.\"]\nb = losses $m \"The dog was happy.\"\n"
                     "$a.perplexity - $b.perplexity") == 0);
    CHECK(num_of(in, "a = next $m [tokenize \"the dog\"] target=was\nb = next $m \"the dog\" target=was\n$a.p - $b.p") == 0);
    CHECK(num_of(in, "a = details $m [tokenize \"the dog\"]\nb = details $m \"the dog\"\nmaxdiff $a.logits $b.logits") == 0);
    expect_same_json(in, "g = generate $m [tokenize \"the dog\"] tokens=4\n$g.tokens", "g = generate $m \"the dog\" tokens=4\n$g.tokens");
    CHECK(num_of(in, "a = next $m \"The Dog\" target=Was\nb = next $m \"the dog\" target=was\n$a.p - $b.p") == 0);
    lt_run *r = lt_eval(in, "n = next $m \"the dog\" target=WAS\nprint $n.target", NULL);
    CHECK_MSG(r->rc == 0 && !strcmp(r->out, "was\n"), "%s %s", r->out, r->err.evalue);
    lt_free(r);
}

static void expect_error(wl_interp *in, const char *code, const char *ename, int col, const char *what)
{
    lt_run *r = lt_eval(in, code, NULL);
    CHECK_MSG(r->rc == -1 && !strcmp(r->err.ename, ename) && r->err.col == col && strstr(r->err.evalue, what),
              "%s: %s at %d: %s", code, r->err.ename, r->err.col, r->err.evalue);
    lt_free(r);
}

static void test_errors(wl_interp *in)
{
    expect_error(in, "next $m \"a dog\" target=zorbix", "ArgumentError", 17, "target=zorbix is not a word of the vocabulary");
    expect_error(in, "next $m \"a dog\" top=0", "ArgumentError", 17, "top= of `next` must be a whole number");
    expect_error(in, "next $s \"a dog\"", "TypeError", 6, "must be a model");
    expect_error(in, "m2 = model new kind=mlp vocab=50\nnext $m2 \"a dog\"", "ArgumentError", 18, "no vocabulary");
    expect_error(in, "next $m $m", "TypeError", 9, "the second argument of `next` must be text, a token list (from `tokenize`) "
                 "or ids (from `encode`), not a model");
    expect_error(in, "generate $m [softmax 1 2]", "TypeError", 13, "a token list holds strings; item 0 is a number");
    expect_error(in, "details $m 3", "TypeError", 12, "must be ids (from `encode`), text or a token list (from `tokenize`), not a number");
    /* split= and story= choose a corpus's story: with a text, token list or ids they are refused, not ignored */
    expect_error(in, "losses $m \"the dog\" split=train", "ArgumentError", 21, "split= picks a story of a corpus; the text given "
                 "here is scored whole, so leave split= out");
    expect_error(in, "losses $m [tokenize \"the dog\"] story=2", "ArgumentError", 32, "story= picks a story of a corpus; the "
                 "token list given");
    expect_error(in, "a = encode \"the dog\" vocab=$s\nlosses $m $a split=test story=1", "ArgumentError", 14, "the ids given");
    expect_error(in, "losses $m \"\"", "ArgumentError", 11, "there is no token to score: the text has none");
    expect_error(in, "losses $m \"\" eos=0", "ArgumentError", 11, "there is no token to score");
    expect_error(in, "losses $m \"a\" eos=2", "ArgumentError", 15, "option eos= of `losses` must be a whole number from 0 to 1");
    /* ids of a larger vocabulary: the first id past the model's is named, with its slot */
    expect_error(in, "s2 = corpus profile=smoke stories=480 audit=0\na = encode \"a clown\" vocab=$s2\nnext $m $a",
                 "ArgumentError", 9, "id 1180 in slot 63 is outside this model's vocabulary of 1162");
    expect_error(in, "a = encode \"a clown\" vocab=$s2\ngenerate $m $a", "ArgumentError", 13, "id 1180 in slot 63 is outside");
    expect_error(in, "a = encode \"a clown\" vocab=$s2\nlosses $m $a", "ArgumentError", 11, "id 1180 in slot 63 is outside");
}

void wl_test_main(void)
{
    wl_interp *in = wl_interp_new(NULL);
    lt_run *r = lt_eval(in, SETUP, NULL);
    CHECK_MSG(r->rc == 0, "setup: %s: %s", r->err.ename, r->err.evalue);
    lt_free(r);
    /* train's default schedule: step 1, steps/64, /32, /16 (those above 1), every steps/8 and the last step */
    cJSON *t = json_of(in, "$t");
    const cJSON *row, *trace = cJSON_GetObjectItemCaseSensitive(t, "trace");
    char steps[128] = "";
    cJSON_ArrayForEach(row, trace) snprintf(steps + strlen(steps), sizeof steps - strlen(steps), "%d ",
                                            cJSON_GetObjectItemCaseSensitive(row, "step")->valueint);
    CHECK_MSG(!strcmp(steps, "1 2 4 8 16 24 32 40 48 56 64 "), "validated at steps %s", steps);
    cJSON_Delete(t);
    test_same_numbers_as_losses(in);
    test_ids_as_text(in);
    test_losses_without_eos(in);
    test_distribution(in);
    test_token_lists_and_case(in);
    test_errors(in);
    wl_interp_free(in);
}

/* test_text.c: normalize, tokenize and detokenize on hand-picked cases, and bad UTF-8. */
#include "wl_test.h"
#include "wl_text.h"

#include <stdlib.h>
#include <string.h>

static void check_norm(const char *in, const char *want)
{
    char *out = NULL;
    size_t len = 0;
    wl_err e;
    int rc = wl_text_normalize(in, strlen(in), &out, &len, &e);
    CHECK_MSG(rc == 0 && len == strlen(want) && !strcmp(out, want), "normalize(\"%s\") gave \"%s\", want \"%s\"",
              in, rc ? e.msg : out, want);
    free(out);
}

static void check_tok(const char *in, const char *want_joined)
{
    wl_tokens t;
    wl_err e;
    char got[512] = "";
    int rc = wl_text_tokenize(in, strlen(in), &t, &e);
    for (size_t i = 0; rc == 0 && i < t.n; i++) {
        if (i) strcat(got, "|");
        strcat(got, t.tok[i]);
    }
    CHECK_MSG(rc == 0 && !strcmp(got, want_joined), "tokenize(\"%s\") gave \"%s\", want \"%s\"", in,
              rc ? e.msg : got, want_joined);
    wl_tokens_free(&t);
}

static void check_detok(const char *const *toks, size_t n, const char *want)
{
    char *out = NULL;
    wl_err e;
    CHECK(wl_text_detokenize(toks, n, &out, &e) == 0);
    CHECK_MSG(out && !strcmp(out, want), "detokenize gave \"%s\", want \"%s\"", out ? out : "", want);
    free(out);
}

static void test_normalize(void)
{
    check_norm("", "");
    check_norm("  \t\n ", "");
    check_norm("  Once UPON\u3000a\x1ctime  ", "once upon a time");
    check_norm("\xC4\xB0stanbul", "i\xCC\x87stanbul");            /* İ -> i + U+0307 */
    check_norm("\xEF\xAC\x80 \xE2\x91\xA0", "ff 1");              /* ﬀ ① under NFKC */
    check_norm("\xCE\x9F\xCE\x94\xCE\x9F\xCE\xA3", "\xCE\xBF\xCE\xB4\xCE\xBF\xCF\x82");  /* ΟΔΟΣ -> οδος (final) */
    check_norm("\xCE\xA3\xCE\x91", "\xCF\x83\xCE\xB1");          /* ΣΑ: not final */
    check_norm("A\xCE\xA3 B", "a\xCF\x82 b");
    check_norm("\xE2\x84\xAA", "k");                              /* KELVIN SIGN */
}

static void test_bad_utf8(void)
{
    char *out = NULL;
    wl_err e;
    const char bad[] = "ok \xC3\x28 no";
    CHECK(wl_text_normalize(bad, strlen(bad), &out, NULL, &e) == -1);
    CHECK_MSG(strstr(e.msg, "byte offset 3") != NULL, "%s", e.msg);
    size_t off = 0;
    CHECK(wl_text_utf8_check("\xED\xA0\x80", 3, &off) == -1 && off == 0);        /* surrogate */
    CHECK(wl_text_utf8_check("ab\xC0\xAF", 4, &off) == -1 && off == 2);          /* overlong */
    CHECK(wl_text_utf8_check("abc\xF4\x90\x80\x80", 7, &off) == -1 && off == 3); /* > U+10FFFF */
    CHECK(wl_text_utf8_check("a\xE2\x80", 3, &off) == -1 && off == 1);           /* truncated */
    CHECK(wl_text_utf8_check("\xF0\x9F\x99\x82 ok", 7, &off) == 0);
    wl_tokens t;
    CHECK(wl_text_tokenize("\xFF", 1, &t, &e) == -1 && t.n == 0 && strstr(e.msg, "byte offset 0"));
}

static void test_tokenize(void)
{
    check_tok("", "");
    check_tok("A little dog found a red hat.", "a|little|dog|found|a|red|hat|.");
    check_tok("Don't! Lily's rock'n'roll", "don't|!|lily's|rock'n|'|roll");
    check_tok("caf\xC3\xA9 don\xE2\x80\x99t", "caf|don|\xE2\x80\x99|t");
    check_tok("3.14 a1b2 snake_case", "3|.|14|a|1|b|2|snake|case");
    check_tok("\xC4\xB1t", "\xC4\xB1t");                          /* dotless i is [a-z] under IGNORECASE */
    check_tok("\xD9\xA3\xD9\xA4 x", "x");                         /* Arabic-Indic digits are \w, not [0-9] */
    check_tok("'a'b' x'", "'|a'b|'|x|'");
    /* what the pattern drops is counted: word characters that are not ASCII, and _ */
    wl_tokens t;
    wl_err e;
    const char *odd = "na\xC3\xAFve snake_case \xE4\xB8\x96 \xF0\x9F\x90\xB6";
    CHECK(wl_text_tokenize(odd, strlen(odd), &t, &e) == 0);
    CHECK_MSG(t.dropped == 3 && !strcmp(t.first_dropped, "\xC3\xAF") && t.n == 5, "dropped %zu (%s), %zu tokens", t.dropped,
              t.first_dropped, t.n);   /* ï, _ and 世 dropped; the emoji is punctuation ([^\w\s]) */
    wl_tokens_free(&t);
    CHECK(wl_text_tokenize("a dog.", 6, &t, &e) == 0 && t.dropped == 0 && !t.first_dropped[0]);
    wl_tokens_free(&t);
}

static void test_detokenize(void)
{
    const char *a[] = {"<BOS>", "\xE2\x80\x9C", "hello", ",", "\xE2\x80\x9D", "she", "said", ".", "<EOS>"};
    check_detok(a, 9, "\xE2\x80\x9Chello,\xE2\x80\x9D she said.");
    const char *b[] = {"'", "a'b", "'", "mom", "(", "yes", ")", "100", "%"};
    check_detok(b, 9, "' a'b'mom (yes) 100%");
    const char *c[] = {"a", "'", "'", "b", "\"", "hi", "\"", "<UNK>", "<PAD>"};
    check_detok(c, 9, "a'' b\"hi\"");
    check_detok(NULL, 0, "");
}

/* readable(tokenize(text)) from token from on (0: all of them). */
static void check_readable(const char *text, size_t from, const char *want)
{
    wl_tokens t;
    wl_err e;
    char *out = NULL;
    CHECK(wl_text_tokenize(text, strlen(text), &t, &e) == 0);
    CHECK(wl_text_readable((const char *const *)t.tok, t.n, from, &out, &e) == 0);
    CHECK_MSG(out && !strcmp(out, want), "readable(\"%s\", from %zu) gave \"%s\", want \"%s\"", text, from, out ? out : "",
              want);
    free(out);
    wl_tokens_free(&t);
}

static void test_readable(void)
{
    /* the course's detokenize squeezes both sides of every quote; readable text pairs them */
    const char *course[] = {"came", "over", ".", "\"", "i", "am", "shy", ",", "\"", "said", "his", "mom"};
    check_detok(course, 12, "came over.\"i am shy,\"said his mom");
    check_readable("came over . \" i am shy , \" said his mom", 0, "came over. \"i am shy,\" said his mom");
    check_readable("\"Hi!\" she said. \"Can I play?\" \"Yes,\" he said.", 0,
                   "\"hi!\" she said. \"can i play?\" \"yes,\" he said.");
    /* nested quotes: single inside double, straight inside curly */
    check_readable("\"Mom said 'no' to me,\" Tom cried.", 0, "\"mom said 'no' to me,\" tom cried.");
    check_readable("\xE2\x80\x9CHe said \"go\" and ran.\xE2\x80\x9D The end.", 0,
                   "\xE2\x80\x9Che said \"go\" and ran.\xE2\x80\x9D the end.");
    /* apostrophes: contractions are one token; a curly one is joined back; a plural possessive ends its word */
    check_readable("Don't stop, Lily's dog!", 0, "don't stop, lily's dog!");
    check_readable("I don\xE2\x80\x99t know.", 0, "i don\xE2\x80\x99t know.");
    check_readable("The dogs' bone was big.", 0, "the dogs' bone was big.");
    check_readable("He says 'hi' to the cats' mom.", 0, "he says 'hi' to the cats' mom.");
    /* brackets, an unbalanced quote, specials */
    check_readable("a ( small ) box [ red ] and 50 % off", 0, "a (small) box [red] and 50% off");
    check_readable("she said \" hi and left", 0, "she said \"hi and left");
    check_readable("\" hello", 0, "\"hello");
    const char *sp[] = {"<BOS>", "the", "<UNK>", "dog", ".", "<EOS>"};
    char *out = NULL;
    wl_err e;
    CHECK(wl_text_readable(sp, 6, 0, &out, &e) == 0 && !strcmp(out, "the dog."));
    free(out);
    /* a continuation after its prompt: the prompt's open quote is closed by the continuation */
    check_readable("tom said , \" i want the ball , \" and ran", 4, "i want the ball,\" and ran");
    check_readable("tom said , \" i want the ball , \" and ran", 9, "\" and ran");
    check_readable("a b", 2, "");
}

void wl_test_main(void)
{
    test_normalize();
    test_bad_utf8();
    test_tokenize();
    test_detokenize();
    test_readable();
}

/* test_syntax.c: words, quotes, escapes, variables, fields, brackets, comments, continuation, display rules, JSON. */
#include "lang_test.h"
#include "wl_test.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

static void expect_text(wl_interp *in, const char *code, const char *want)
{
    lt_run *r = lt_eval(in, code, NULL);
    CHECK_MSG(r->rc == 0, "code %s failed: %s: %s", code, r->err.ename, r->err.evalue);
    CHECK_MSG(!strcmp(lt_text(r), want), "code %s gave '%s', expected '%s'", code, lt_text(r), want);
    lt_free(r);
}

static void expect_out(wl_interp *in, const char *code, const char *want)
{
    lt_run *r = lt_eval(in, code, NULL);
    CHECK_MSG(r->rc == 0, "code %s failed: %s: %s", code, r->err.ename, r->err.evalue);
    CHECK_MSG(!strcmp(r->out, want), "code %s printed '%s', expected '%s'", code, r->out, want);
    lt_free(r);
}

#define LEAVE "Ctrl-D, or exit or quit alone on a line, leaves the terminal REPL;\na script or notebook ends after its last line."

/* Code, run in a fresh interpreter, and what it should give. */
typedef struct code_want {
    const char *code, *want;
} code_want;

/* The text of the code's result. */
static const code_want RESULTS[] = {
    /* numbers and strings */
    {"exp 0", "1.0"},
    {"mean 1 2", "1.5"},
    {"mean 300", "300.0"},
    {"300", "300"},
    {"-2.5e1", "-25.0"},
    {"0.000012345", "1.234e-05"},
    {"\"007\"", "007"},
    {"nll 0.5 0.25 0.125",
     "target p  loss -ln p\n────────────────────\n     0.5      0.6931\n"
     "    0.25      1.3863\n   0.125      2.0794"},
    {"exp [mean [nll 0.5 0.25 0.125]]", "4.0"},
    {"\"tab\\there\\n\\\"q\\\" \\$x \\u00e9\\u{1F600}\"", "tab\there\n\"q\" $x é😀"},
    {"tokenize \"Don't stop, Lily's dog!\"", "[\"don't\", \"stop\", \",\", \"lily's\", \"dog\", \"!\"]"},
    /* decode takes ids, a list of them, or the ids as whole numbers: the same text */
    {"s = corpus profile=smoke stories=60 audit=0\na = encode \"the little dog .\" vocab=$s\ndecode $a vocab=$s", "the little dog."},
    {"s = corpus profile=smoke stories=60 audit=0\na = encode \"the little dog .\" vocab=$s\ndecode $a.real vocab=$s",
     "the little dog."},
    {"s = corpus profile=smoke stories=60 audit=0\ndecode 1 7 28 119 5 vocab=$s", "the little dog."},
    /* + - * / between values (numbers, lists, values that stand for numbers) and the math commands */
    {"1 / 4", "0.25"},
    {"x = 1 / 4\n$x", "0.25"},
    {"1 + 2 * 3 - 4 / 2", "5.0"},
    {"2 * 3 + 1", "7"},
    {"7 - 2 - 1", "4"},
    {"8 / 2 / 2", "2.0"},
    {"1 - 2 - 3 * 2 / 4 - 5 + 6 * 2 * 2", "16.5"},
    {"2 * 3 * 4 + 1 + 1 - 10 / 5 / 2", "25.0"},
    {"- 2 * 3", "-6"},
    {"x = 0.5\n- - $x", "0.5"},
    {"- [ln 0.25]", "1.3863"},
    {"[ln 0.25] / [ln 2]", "-2.0"},
    {"l = nll 0.5 0.25\n$l * 2", "[1.3863, 2.7726]"},
    {"l = nll 0.5 0.25\n1 + $l", "[1.6931, 2.3863]"},
    {"[softmax 0 0] + [softmax 0 0]", "[1.0, 1.0]"},
    {"s = softmax 0 0 0 0\n[softmax 0 0] / $s.0", "[2.0, 2.0]"},
    {"ln 1", "0.0"},
    {"ln [nll 0.5]", "[-0.3665]"},
    {"log2 0.125", "-3.0"},
    {"exp [ln 0.25]", "0.25"},
    {"sum 1 2 3", "6"},
    {"sum 0.5 [softmax 1 1]", "1.5"},
    {"sum [nll 0.5 0.25 0.125]", "4.1589"},
    {"mean [nll 0.5 0.25 0.125]", "1.3863"},
    {"softmax 1 1 2", "[0.2119, 0.2119, 0.5761]"},
    {"softmax 1001 1001 1002", "[0.2119, 0.2119, 0.5761]"},
    {"sum [softmax 3 1 4 1 5]", "1.0"},
    {"argmax 3 1 4 1 5", "4"},
    {"argmax 5 1 5", "0"},
    /* nll stands for its losses: index, count, mean, arithmetic; its JSON is the list of losses */
    {"l = nll 0.5 0.25\n$l.1", "1.3863"},
    /* a negative index counts from the end, as in Python: of a list, a value that stands for numbers, a tensor */
    {"l = nll 0.5 0.25\n$l.-1", "1.3863"},
    {"l = nll 0.5 0.25\n$l.-2", "0.6931"},
    {"t = tokenize \"a b c\"\n$t.-1", "c"},
    {"s = softmax 1 2 3\n$s.-3 + $s.-2 + $s.-1 - [sum $s]", "0.0"},
    {"s = corpus profile=smoke stories=60 audit=0\nm = model new kind=attention vocab=$s.vocab seed=11\n"
     "d = details $m \"the dog\"\nw = $d.weights.-1.-1.-1\n$w.shape", "[64]"},
    {"l = nll 0.5 0.25\n$l.count", "2"},
    /* the steps of lesson 03, checked by hand: the cross-entropy is the mean of -ln p, the perplexity its exp */
    {"ce = [- [ln 0.5] - [ln 0.25] - [ln 0.125]] / 3\nexp $ce", "4.0"},
    /* comments, continued lines, several commands on a line */
    {"", ""},
    {"   \n# only a comment\n", ""},
    /* exit and quit are no commands, but help knows them */
    {"help exit", LEAVE},
    {"help quit", LEAVE},
};

/* What the code prints. */
static const code_want PRINTS[] = {
    /* numbers and strings */
    {"print a b   c", "a b c\n"},
    {"print costs $5 and 100%", "costs $5 and 100%\n"},
    /* comments, continued lines, several commands on a line */
    {"# a comment\nprint a # trailing\n  # indented\nprint b#c", "a\nb#c\n"},
    {"print one \\\n  two", "one two\n"},
    {"print [mean\n  1\n  3]", "2.0\n"},
    {"print \"two\nlines\"", "two\nlines\n"},
    {"print a; print b ;print c", "a\nb\nc\n"},
    /* a UTF-8 byte-order mark (an editor's) at the very start is not there; anywhere else it is text */
    {"\xEF\xBB\xBF" "print \"bom\"", "bom\n"},
    {"\xEF\xBB\xBF" "# a comment\r\nprint a", "a\n"},
    {"print a \xEF\xBB\xBF" "b", "a \xEF\xBB\xBF" "b\n"},
};

static void test_results_and_prints(void)
{
    for (size_t i = 0; i < sizeof RESULTS / sizeof RESULTS[0]; i++) expect_text(NULL, RESULTS[i].code, RESULTS[i].want);
    for (size_t i = 0; i < sizeof PRINTS / sizeof PRINTS[0]; i++) expect_out(NULL, PRINTS[i].code, PRINTS[i].want);
}

/* nll's JSON is the list of its losses; its HTML is the table. */
static void test_nll_json(void)
{
    lt_run *r = lt_eval(NULL, "nll 0.5 0.25", NULL);
    CHECK(r->rc == 0 && r->result.app_json && !strcmp(r->result.app_json, "[0.6931471805599453,1.3862943611198906]"));
    CHECK(r->result.text_html && strstr(r->result.text_html, "target p") && strstr(r->result.text_html, "0.25"));
    lt_free(r);
}

static void test_perplexity_example(void)
{
    lt_run *r = lt_eval(NULL, "perplexity 0.5 0.25 0.125", NULL);
    CHECK(r->rc == 0);
    const char *t = lt_text(r);
    CHECK(strstr(t, "0.6931") && strstr(t, "1.3863") && strstr(t, "2.0794"));
    CHECK(strstr(t, "mean cross-entropy: 1.3863 nats per token") != NULL);
    CHECK(strstr(t, "perplexity: exp(1.3863) = 4.0") != NULL);
    cJSON *j = cJSON_Parse(r->result.app_json);
    CHECK(j != NULL);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "perplexity");
    CHECK(cJSON_IsNumber(p) && p->valuedouble > 4 - 1e-10 && p->valuedouble < 4 + 1e-10);
    cJSON_Delete(j);
    lt_free(r);
}

static void test_variables_and_fields(void)
{
    wl_interp *in = wl_interp_new(NULL);
    expect_text(in, "p = perplexity 0.25 0.25", "");
    expect_text(in, "$p.perplexity", "4.0");
    expect_text(in, "$p.losses.1", "1.3863");
    expect_text(in, "$p.losses.count", "2");
    expect_out(in, "print \"ppl=$p.perplexity;\"", "ppl=4.0;\n");
    expect_out(in, "n = 3\nprint \"${n}rd\" \"$n.\"", "3rd 3.\n");
    expect_text(in, "x = 0.5; y = [nll $x]; $y.0", "0.6931");
    expect_text(in, "x = 2\nx = 3\n$x", "3");
    wl_interp_free(in);
}

static void test_display_rules(void)
{
    /* every unbound value is shown: the last as the result, earlier ones as displays, in order */
    lt_run *r = lt_eval(NULL, "mean 1 2\nx = mean 3 4\nprint hi\nmean 5 6", NULL);
    CHECK(r->rc == 0);
    CHECK(r->ndisplays == 1 && !strcmp(r->displays, "1.5\n"));
    CHECK(!strcmp(r->out, "hi\n"));
    CHECK(!strcmp(lt_text(r), "5.5"));
    lt_free(r);
    /* a command without a value leaves no result */
    r = lt_eval(NULL, "mean 1\nprint done", NULL);
    CHECK(r->rc == 0 && r->result.text_plain == NULL && r->ndisplays == 1);
    lt_free(r);
    /* a corpus is capped by the interpreter's max_stories */
    wl_interp_opts o = {.allow_files = 0, .max_stories = 30};
    wl_interp *in = wl_interp_new(&o);
    r = lt_eval(in, "s = corpus profile=smoke\nmean $s.train $s.validation $s.test", NULL);
    CHECK(r->rc == 0 && !strcmp(lt_text(r), "10.0"));
    lt_free(r);
    wl_interp_free(in);
    /* corpus is shown even when kept */
    r = lt_eval(NULL, "s = corpus profile=smoke", NULL);
    CHECK(r->rc == 0 && strstr(lt_text(r), "documents") != NULL);
    lt_free(r);
}

/* What is_complete says of the code. */
static const code_want COMPLETENESS[] = {
    {"print 1", "complete"},
    {"", "complete"},
    {"print \"open", "incomplete"},
    {"print [mean 1", "incomplete"},
    {"print [mean 1\n 2", "incomplete"},
    {"print 1 \\\n", "complete"},
    {"print 1 \\", "incomplete"},
    {"print 1 ]", "invalid"},
    {"print \"\\q\"", "invalid"},
    {"# \"quote in a comment", "complete"},
    /* a lone CR ends a line for is_complete as it does for the evaluator: the option after it starts a line */
    {"x = corpus pr\rofile=smoke", "invalid"},
    {"print 1\r\nprint 2", "complete"},
};

static void test_is_complete(void)
{
    for (size_t i = 0; i < sizeof COMPLETENESS / sizeof COMPLETENESS[0]; i++)
        CHECK_MSG(!strcmp(wl_lang_is_complete(COMPLETENESS[i].code), COMPLETENESS[i].want), "code %s: %s, expected %s",
                  COMPLETENESS[i].code, wl_lang_is_complete(COMPLETENESS[i].code), COMPLETENESS[i].want);
    lt_run *r = lt_eval(NULL, "x = corpus pr\rofile=smoke", NULL);
    CHECK(r->rc != 0 && !strcmp(r->err.ename, "ParseError") && r->err.line == 2);
    lt_free(r);
}

static int has(char **m, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(m[i], s)) return 1;
    return 0;
}

static void complete_check(wl_interp *in, const char *code, const char *want, size_t want_start)
{
    char **m;
    size_t s, e;
    int n = wl_interp_complete(in, code, strlen(code), &m, &s, &e);
    CHECK_MSG(has(m, n, want), "completing '%s': no %s among %d matches", code, want, n);
    CHECK_MSG(s == want_start && e == strlen(code), "completing '%s': range %zu..%zu", code, s, e);
    for (int i = 0; i < n; i++) free(m[i]);
    free(m);
}

static void test_complete(void)
{
    wl_interp *in = wl_interp_new(NULL);
    lt_free(lt_eval(in, "stories = corpus profile=smoke\np = perplexity 0.5", NULL));
    complete_check(in, "perp", "perplexity", 0);
    complete_check(in, "x = tok", "tokenize", 4);
    complete_check(in, "print [tok", "tokenize", 7);
    complete_check(in, "print $sto", "$stories", 6);
    complete_check(in, "print $p.per", "$p.perplexity", 6);
    complete_check(in, "print $stories.vo", "$stories.vocab", 6);
    complete_check(in, "train $m $stories st", "steps=", 18);
    complete_check(in, "model n", "new", 6);
    complete_check(in, "help perp", "perplexity", 5);
    complete_check(in, "help lang", "language", 5);
    complete_check(in, "m = model new kind=mul", "kind=multihead", 14);   /* an option's values */
    complete_check(in, "s = corpus profile=", "profile=dgx", 11);
    complete_check(in, "evaluate $m $stories split=v", "split=validation", 21);
    char **m;
    size_t s, e;
    int n = wl_interp_complete(in, "zzz", 3, &m, &s, &e);
    CHECK(n == 0);
    free(m);
    /* the cursor in the middle of the line */
    n = wl_interp_complete(in, "perp 1 2", 4, &m, &s, &e);
    CHECK(n == 1 && s == 0 && e == 4 && !strcmp(m[0], "perplexity"));
    for (int i = 0; i < n; i++) free(m[i]);
    free(m);
    wl_interp_free(in);
}

static void test_inspect(void)
{
    wl_interp *in = wl_interp_new(NULL);
    lt_free(lt_eval(in, "p = perplexity 0.5", NULL));
    wl_mime m;
    CHECK(wl_interp_inspect(in, "perplexity 0.5", 3, &m) == 1);
    CHECK(m.text_plain && strstr(m.text_plain, "perplexity P [P ...]") && strstr(m.text_plain, "example:"));
    wl_mime_free(&m);
    CHECK(wl_interp_inspect(in, "train $m $s steps=3", 16, &m) == 1); /* an option: the command's help */
    CHECK(m.text_plain && strstr(m.text_plain, "train MODEL CORPUS"));
    wl_mime_free(&m);
    CHECK(wl_interp_inspect(in, "print $p", 7, &m) == 1);
    CHECK(m.text_plain && strstr(m.text_plain, "perplexity: exp"));
    wl_mime_free(&m);
    CHECK(wl_interp_inspect(in, "nothing here", 2, &m) == 0);
    wl_interp_free(in);
}

/* Every value renders valid JSON (numbers, lists, objects). */
static void test_json(void)
{
    const char *codes[] = {"mean 1 2", "\"a \\\"q\\\"\"", "nll 0.5 0.25", "tokenize \"a b\"", "perplexity 0.5", "help",
                           "help nll", "s = corpus profile=smoke\nencode \"a dog\" vocab=$s context=8",
                           "s = corpus profile=smoke\nvocab $s"};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        lt_run *r = lt_eval(NULL, codes[i], NULL);
        CHECK(r->rc == 0);
        cJSON *j = r->result.app_json ? cJSON_Parse(r->result.app_json) : NULL;
        CHECK_MSG(j != NULL, "code %s: bad JSON %s", codes[i], r->result.app_json ? r->result.app_json : "(none)");
        cJSON_Delete(j);
        lt_free(r);
    }
}

void wl_test_main(void)
{
    test_results_and_prints();
    test_perplexity_example();
    test_nll_json();
    test_variables_and_fields();
    test_display_rules();
    test_is_complete();
    test_complete();
    test_inspect();
    test_json();
}

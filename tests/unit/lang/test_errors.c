/* test_errors.c: every error class of the language says what and where: the name, the message, the line and a caret. */
#include "lang_test.h"
#include "wl_test.h"

#include <stdio.h>
#include <string.h>

/* Runs code, expects failure with ename at line:col, and a message containing what. */
static void expect_error(const char *code, const char *ename, int line, int col, const char *what)
{
    lt_run *r = lt_eval(NULL, code, NULL);
    CHECK_MSG(r->rc == -1, "code %s should fail", code);
    CHECK_MSG(!strcmp(r->err.ename, ename), "code %s: ename %s, expected %s (%s)", code, r->err.ename, ename, r->err.evalue);
    CHECK_MSG(r->err.line == line && r->err.col == col, "code %s: at %d:%d, expected %d:%d (%s)", code, r->err.line, r->err.col,
              line, col, r->err.evalue);
    CHECK_MSG(strstr(r->err.evalue, what) != NULL, "code %s: message '%s' lacks '%s'", code, r->err.evalue, what);
    CHECK(r->result.text_plain == NULL);
    lt_free(r);
}

/* Code that fails, the error's name, its line and column, and what its message says. */
typedef struct error_case {
    const char *code, *ename;
    int line, col;
    const char *what;
} error_case;

#define TWO_VOCABS "c1 = corpus profile=smoke stories=160 audit=0\nc2 = corpus profile=smoke stories=480 audit=0\n" \
                   "m = model new kind=attention vocab=$c1.vocab\n"

static const error_case ERRORS[] = {
    /* the parser */
    {"tokenize \"abc", "ParseError", 1, 10, "unterminated string"},
    {"print [mean 1 2", "ParseError", 1, 7, "unclosed ["},
    {"print 1 ]", "ParseError", 1, 9, "unexpected ]"},
    {"print \"a\\qb\"", "ParseError", 1, 9, "unknown escape \\q"},
    {"print \"\\u{110000}\"", "ParseError", 1, 8, "bad \\u escape"},
    {"x=3", "ParseError", 1, 1, "write `x = ...`"},
    {"x =", "ParseError", 1, 4, "expected a command or value after `x =`"},
    {"\"x\" = print 1", "ParseError", 1, 1, "only a name"},
    {"print []", "ParseError", 1, 7, "empty [ ]"},
    {"print \xff", "ParseError", 1, 7, "invalid UTF-8"},
    /* a byte-order mark at the start takes no column */
    {"\xEF\xBB\xBF" "mean 1 two", "TypeError", 1, 8, "must be a number"},
    /* unknown commands */
    {"perplx 0.5", "UnknownCommand", 1, 1, "did you mean perplexity?"},
    {"print 1\n  tokenise \"a\"", "UnknownCommand", 2, 3, "did you mean tokenize?"},
    {"zzzzzz", "UnknownCommand", 1, 1, "type `help`"},
    {"x = mean 1 2\nx", "UnknownCommand", 2, 1, "write $x"},
    /* exit and quit leave only the terminal REPL (cli/repl.c); elsewhere there is nothing to leave */
    {"print 1\nexit", "UnknownCommand", 2, 1, "nothing to leave here (a script or notebook ends after its last line"},
    {"quit", "UnknownCommand", 1, 1, "the terminal REPL leaves on exit or Ctrl-D"},
    /* arguments and options */
    {"nll", "ArgumentError", 1, 5, "`nll` needs at least 1 argument, got 0; usage: nll P [P ...]"},
    {"exp 1 2", "ArgumentError", 1, 7, "`exp` takes 1 argument, got 2"},
    {"help help help", "ArgumentError", 1, 11, "takes at most 1 argument"},
    {"corpus profile=smoke stepz=3", "ArgumentError", 1, 22, "no option stepz="},
    {"corpus profil=smoke", "ArgumentError", 1, 8, "did you mean profile?"},
    {"corpus seed=1 seed=2", "ArgumentError", 1, 15, "given twice"},
    {"nll 0.5 x=1", "ArgumentError", 1, 9, "takes no options"},
    {"model nwe vocab=10", "ArgumentError", 1, 7, "did you mean new?"},
    {"nll 0.5 0", "ArgumentError", 1, 9, "greater than 0"},
    {"1 2", "ArgumentError", 1, 3, "expected an operator (+ - * /) or the end of the line"},
    {"help perplexty", "ArgumentError", 1, 6, "did you mean perplexity?"},
    {"corpus profile=huge", "ArgumentError", 1, 8, "huge"},
    /* a number too large for a double is out of range, not text */
    {"model new kind=mlp vocab=50 seed=1e309", "ArgumentError", 1, 29, "option seed= of `model` is 1e309, a number out of range: a number's magnitude is at most 1.797"},
    {"mean 1 -2e400", "ArgumentError", 1, 8, "the second argument of `mean` is -2e400, a number out of range"},
    {"perplexity 1e999", "ArgumentError", 1, 12, "the first argument of `perplexity` is 1e999, a number out"},
    {"mean 1 x1e999", "TypeError", 1, 8, "must be a number, not a string"},
    /* a value written as such a number, alone or in arithmetic, is refused where it is written, not kept as text */
    {"x = 1e999", "ArithmeticError", 1, 5, "1e999 overflows a double: a number's magnitude is at most 1.797"},
    {"x = 2\ny = -1e400", "ArithmeticError", 2, 5, "-1e400 overflows a double"},
    {"x = 1 + 1e999", "ArithmeticError", 1, 9, "1e999 overflows a double"},
    {"1e999", "ArithmeticError", 1, 1, "1e999 overflows a double"},
    /* decode: ids, a list of them, or whole numbers */
    {"s = corpus profile=smoke stories=60 audit=0\ndecode 1.5 vocab=$s", "ArgumentError", 2, 8, "1.5 is not a whole number: an id is a whole number from 0 to 1161"},
    {"s = corpus profile=smoke stories=60 audit=0\ndecode 7 2.5 vocab=$s", "ArgumentError", 2, 10, "2.5 is not a whole number"},
    {"s = corpus profile=smoke stories=60 audit=0\ndecode 7 1162 vocab=$s", "ArgumentError", 2, 10, "id 1162 is outside the vocabulary (0 to 1161)"},
    {"s = corpus profile=smoke stories=60 audit=0\ndecode 7 \"a\" vocab=$s", "TypeError", 2, 10, "takes ids (from encode) or whole numbers, not a string"},
    {"s = corpus profile=smoke stories=60 audit=0\na = encode \"a\" vocab=$s\ndecode $a 7 vocab=$s", "ArgumentError", 3, 11, "or the ids themselves as whole numbers (decode 1 8 32), not both"},
    /* types */
    {"mean 1 abc", "TypeError", 1, 8, "the second argument of `mean` must be a number, not a string"},
    {"x = perplexity 0.5\nexp $x", "TypeError", 2, 5, "`exp` takes a number or a list of numbers, not a perplexity"},
    {"heads 3", "TypeError", 1, 7, "must be a forward_details, not a number"},
    /* heads are numbered from 1, as the help says; a one-head model has head 1 only */
    {"s = corpus profile=smoke stories=60 audit=0\nm = model new kind=attention vocab=$s.vocab\nd = details $m \"a dog\"\n"
     "attention $d head=2", "ArgumentError", 4, 14, "option head= of `attention` must be a whole number from 1 to 1"},
    {"s = corpus profile=smoke stories=60 audit=0\nm = model new kind=attention vocab=$s.vocab\nd = details $m \"a dog\"\n"
     "attention $d head=0", "ArgumentError", 4, 14, "from 1 to 1"},
    {"corpus seed=abc", "TypeError", 1, 8, "option seed= of `corpus` must be a number"},
    {"mean [tokenize \"a b\"]", "TypeError", 1, 6, "numbers"},
    /* names, fields and items */
    {"print $nothing", "NameError", 1, 7, "no variable $nothing; give it a value first"},
    {"total = mean 1 2\nprint $totl", "NameError", 2, 7, "did you mean $total?"},
    {"p = perplexity 0.5\nprint $p.perplexty", "NameError", 2, 7, "no field .perplexty; its fields are .probabilities .losses .cross_entropy .perplexity; did you mean .perplexity?"},
    {"x = mean 1 2\nprint $x.y", "NameError", 2, 7, "has no fields"},
    {"l = nll 0.5\nprint $l.3", "IndexError", 2, 7, "has 1 items"},
    {"l = nll 0.5\nprint $l.-2", "IndexError", 2, 7, "$l has 1 items; .-2 is before the start (items count from 0, or from -1 at the end)"},
    {"t = tokenize \"a b\"\nprint $t.-3", "IndexError", 2, 7, "$t has 2 items; .-3 is before the start"},
    {"t = tokenize \"a b\"\nprint $t.2", "IndexError", 2, 7, "$t has 2 items; .2 is past the end"},
    {"s = corpus profile=smoke stories=60 audit=0\nm = model new kind=attention vocab=$s.vocab\nd = details $m \"a\"\n"
     "print $d.weights.-2", "NameError", 4, 7, "index -2 is before the start of the first axis (size 1; indices count from 0"},
    /* numbers past what a long long holds are refused before any conversion (UBSan checks the conversion) */
    {"uniform 9223372036854775808", "ArgumentError", 1, 9, "whole number from 1 to 9223372036854775807"},
    {"uniform 1e300", "ArgumentError", 1, 9, "whole number"},
    {"uniform -1e300", "ArgumentError", 1, 9, "whole number"},
    /* arithmetic: operators between values, and the math commands, point at the word that is wrong */
    {"x = 1/4", "ArgumentError", 1, 5, "spaces around its operators: write 1/4 as values and + - * / separated"},
    {"1 /", "ArgumentError", 1, 5, "a value is missing at the end"},
    {"1 + + 2", "ArgumentError", 1, 5, "not the operator +"},
    {"* 2", "ArgumentError", 1, 1, "not the operator *"},
    {"1 + \"a\"", "TypeError", 1, 5, "not a string (a number in \"quotes\" is text)"},
    {"x = (1 + 2)", "TypeError", 1, 5, "not the text \"(1\": ( ) do not group arithmetic; [ ] do: [1 + 2] * 3"},
    {"x = 2 * (1 + 2)", "TypeError", 1, 9, "not the text \"(1\": ( ) do not group arithmetic; [ ] do"},
    {"x = 2 * 1)", "TypeError", 1, 9, "not the text \"1)\": ( ) do not group"},
    {"t = tokenize \"a b\"\n2 * $t", "TypeError", 2, 5, "item 0 of this list is a string"},
    {"x = 2\ny = $x / 0", "ArithmeticError", 2, 10, "division by zero"},
    /* an error amid a chain: the values before and after it are still freed once (the sanitizer builds check) */
    {"l = nll 0.5 0.25\n1 + $l * 2 / 0 + $l - 3", "ArithmeticError", 2, 14, "division by zero"},
    {"l = nll 0.5 0.25\n$l - 2 * 3 + [softmax 1 2 3] * 1", "ArithmeticError", 2, 12, "have 2 and 3 items"},
    {"1 / [nll 1 0.5]", "ArithmeticError", 1, 5, "item 0 of the list is 0"},
    {"[softmax 1 2] + [softmax 1 2 3]", "ArithmeticError", 1, 15, "have 2 and 3 items"},
    {"1e300 * 1e300", "ArithmeticError", 1, 7, "overflows"},
    {"1 + x=2", "ArgumentError", 1, 5, "belongs to a command"},
    {"exp 1 + 2", "ArgumentError", 1, 7, "put the command in [ ]: [exp ...] + ..."},
    {"ln 0", "ArgumentError", 1, 4, "ln is defined for numbers above 0, got 0"},
    {"log2 [softmax 1 2] -1", "ArgumentError", 1, 20, "takes 1 argument"},
    {"ln [nll 1 0.5]", "ArgumentError", 1, 4, "got 0 (item 0 of the list)"},
    {"exp [mean 800 800]", "ArgumentError", 1, 5, "overflows a double"},
    {"sum", "ArgumentError", 1, 5, "needs at least 1 argument"},
    {"argmax 1 two", "TypeError", 1, 10, "the second argument of `argmax` must be a number"},
    {"softmax [tokenize \"a\"]", "TypeError", 1, 9, "this list holds something else"},
    /* two vocabularies of the same size (the smoke profile's cap) with other words: ids would mean other words */
    {TWO_VOCABS "evaluate $m $c2", "ArgumentError", 4, 13, "the model's vocabulary is not this corpus's, though both have 1500 tokens: id "},
    {TWO_VOCABS "train $m $c2 steps=1", "ArgumentError", 4, 10, "so the ids would mean other words"},
    {TWO_VOCABS "losses $m $c2", "ArgumentError", 4, 11, "though both have 1500 tokens"},
    {TWO_VOCABS "a = encode \"a dog\" vocab=$c2\nd = details $m $a", "ArgumentError", 5, 16, "is not these ids' vocabulary"},
    {TWO_VOCABS "d = details $m \"a dog\" vocab=$c2", "ArgumentError", 4, 24, "is not this vocab="},
};

static void test_errors_say_what_and_where(void)
{
    for (size_t i = 0; i < sizeof ERRORS / sizeof ERRORS[0]; i++)
        expect_error(ERRORS[i].code, ERRORS[i].ename, ERRORS[i].line, ERRORS[i].col, ERRORS[i].what);
}

static void test_traceback_has_caret(void)
{
    lt_run *r = lt_eval(NULL, "print 1\ntokenize \"a little dog", NULL);
    CHECK(r->rc == -1);
    CHECK(r->err.ntraceback == 3);
    if (r->err.ntraceback == 3) {
        CHECK_MSG(!strcmp(r->err.traceback[0], "cell:2:10: ParseError: unterminated string: this \" has no closing \""),
                  "%s", r->err.traceback[0]);
        CHECK(!strcmp(r->err.traceback[1], "    tokenize \"a little dog"));
        CHECK(!strcmp(r->err.traceback[2], "             ^"));
    }
    CHECK(r->nout == 0); /* a parse error runs nothing */
    lt_free(r);

    /* columns count code points, not bytes */
    r = lt_eval(NULL, "print \"é\" $nope", NULL);
    CHECK(r->err.col == 11);
    if (r->err.ntraceback == 3) CHECK(!strcmp(r->err.traceback[2], "              ^"));
    lt_free(r);

    /* the echoed line shows control characters as \u00XX (a terminal would act on ESC ] 0 ; ... BEL); the caret
     * stays under the column of the line as shown */
    r = lt_eval(NULL, "print \"\x1b]0;T\x07\" $nope", NULL);
    CHECK(r->err.col == 16);
    CHECK(r->err.ntraceback == 3);
    if (r->err.ntraceback == 3) {
        CHECK_MSG(!strcmp(r->err.traceback[1], "    print \"\\u001b]0;T\\u0007\" $nope"), "%s", r->err.traceback[1]);
        CHECK_MSG(!strcmp(r->err.traceback[2], "                             ^"), "%s", r->err.traceback[2]);
    }
    lt_free(r);
}

static void test_brackets_nested_too_deep(void)
{
    char deep[200] = "print ";
    for (int i = 0; i < 40; i++) strcat(deep, "[");
    expect_error(deep, "ParseError", 1, 39, "nested deeper than 32");
}

static void test_limits(void)
{
    /* command nesting through `time` (each level evaluates the rest of the line) */
    char code[600] = "";
    for (int i = 0; i < 40; i++) strcat(code, "time ");
    strcat(code, "mean 1");
    lt_run *r = lt_eval(NULL, code, NULL);
    CHECK(r->rc == -1 && !strcmp(r->err.ename, "LimitError"));
    CHECK(strstr(r->err.evalue, "nested deeper than 32") != NULL);
    lt_free(r);

    size_t big = (1 << 20) + 10;
    char *huge = malloc(big + 1);
    memset(huge, ' ', big);
    huge[big] = 0;
    r = lt_eval(NULL, huge, NULL);
    CHECK(r->rc == -1 && !strcmp(r->err.ename, "LimitError"));
    lt_free(r);
    free(huge);
}

static void test_interrupt(void)
{
    volatile sig_atomic_t flag = 1;
    lt_run *r = lt_eval(NULL, "print 1", &flag);
    CHECK(r->rc == -1 && !strcmp(r->err.ename, "Interrupted"));
    CHECK(r->nout == 0);
    /* an interrupt is a short notice: one line, no source line and caret as for a mistake */
    CHECK(r->err.ntraceback == 1 && !strcmp(r->err.traceback[0], "cell:1:1: Interrupted: interrupted before this command"));
    lt_free(r);
}

static void test_files_disabled(void)
{
    wl_interp_opts o = {.allow_files = 0};
    wl_interp *in = wl_interp_new(&o);
    lt_run *r = lt_eval(in, "results somewhere", NULL);
    CHECK(r->rc == -1 && !strcmp(r->err.ename, "PermissionError"));
    lt_free(r);
    r = lt_eval(in, "corpus file=/etc/passwd", NULL);
    CHECK(r->rc == -1 && !strcmp(r->err.ename, "PermissionError"));
    lt_free(r);
    wl_interp_free(in);
}

static void test_runtime_error_keeps_earlier_output(void)
{
    lt_run *r = lt_eval(NULL, "print before\nvocab /no/such/vocab.json\nprint after", NULL);
    CHECK(r->rc == -1);
    CHECK(!strcmp(r->out, "before\n"));
    CHECK(r->err.line == 2 && r->err.col == 7);
    CHECK(strstr(r->err.evalue, "/no/such/vocab.json") != NULL);
    lt_free(r);
}

/* A lone CR ends a line as LF and CRLF do; lines and columns count it so. */
static void test_lone_cr_is_a_line_break(void)
{
    expect_error("print 1\rprint 2\r\nmean 1 two", "TypeError", 3, 8, "must be a number");
    lt_run *r = lt_eval(NULL, "print 1\rprint 2", NULL);
    CHECK_MSG(r->rc == 0 && r->nout == 4 && !memcmp(r->out, "1\n2\n", 4), "rc %d, output '%.*s'", r->rc, (int)r->nout, r->out);
    lt_free(r);
}

/* A NUL byte is placed by lines (a lone CR among them) and by code points; the \u escapes encode 1 to 4 bytes. */
static void test_nul_place_and_escapes(void)
{
    static const char code[] = "print 1\rprint \"\xc3\xa9\xe2\x82\xac\"\r\nx\xf0\x9f\x98\x80y\0z";
    wl_interp *in = wl_interp_new(NULL);
    wl_mime result;
    wl_lang_error err;
    CHECK(wl_interp_eval_n(in, code, sizeof code - 1, "cell", 1, NULL, &result, &err) == -1);
    CHECK_MSG(!strcmp(err.ename, "ParseError") && err.line == 3 && err.col == 4, "%s at %d:%d", err.ename, err.line, err.col);
    wl_lang_error_clear(&err);
    wl_interp_free(in);
    lt_run *r = lt_eval(NULL, "print \"\\u0041\\u00e9\\u20ac\\u{1F600}\"", NULL);
    CHECK_MSG(r->rc == 0 && !strcmp(r->out, "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\n"), "rc %d, output '%s'", r->rc, r->out);
    lt_free(r);
}

/* Typographic quotes pasted from a slide are text to the language: an error on their line says so; a line without
 * them gets no hint, and print keeps them as the text they are. */
static void test_typographic_quotes_get_a_hint(void)
{
    expect_error("tokenize \u201Ccurly quotes\u201D", "ArgumentError", 1, 17,
                 "takes 1 argument, got 2; usage: tokenize TEXT (\u201C \u201D are typographic quotes; type \" instead)");
    expect_error("print 1\nmean 1 \u2018two\u2019", "TypeError", 2, 8, "(\u2018 \u2019 are typographic quotes; type \" instead)");
    lt_run *r = lt_eval(NULL, "mean 1 two\nprint \u201Cnot here\u201D", NULL);
    CHECK_MSG(r->rc == -1 && strstr(r->err.evalue, "typographic") == NULL, "%s", r->err.evalue);
    lt_free(r);
    r = lt_eval(NULL, "print \u201Chi\u201D don\u2019t", NULL);
    CHECK_MSG(r->rc == 0 && !strcmp(r->out, "\u201Chi\u201D don\u2019t\n"), "rc %d, output '%s'", r->rc, r->out);
    lt_free(r);
}

void wl_test_main(void)
{
    test_typographic_quotes_get_a_hint();
    test_nul_place_and_escapes();
    test_lone_cr_is_a_line_break();
    test_traceback_has_caret();
    test_errors_say_what_and_where();
    test_brackets_nested_too_deep();
    test_limits();
    test_interrupt();
    test_files_disabled();
    test_runtime_error_keeps_earlier_output();
}

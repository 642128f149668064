/* test_outputs.c: a notebook shows a value's HTML: every word of its text is there too (legends, hints, summaries), its
 * lines stay lines, and counts are written one way (139,046); the notes and warnings commands write on stderr. */
#include "lang_test.h"
#include "wl_cmd.h"
#include "wl_test.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The text a browser shows for html: tags as spaces, the five entities decoded, a minus sign as '-'. */
static char *html_text(const char *html)
{
    char *out = malloc(strlen(html) + 1), *o = out;
    static const char *const ent[][2] = {{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}, {"&quot;", "\""}, {"&#39;", "'"},
                                         {"\xE2\x88\x92", "-"}};
    for (const char *p = html; *p;) {
        if (*p == '<') {
            const char *e = strchr(p, '>');
            if (!strncmp(p, "<svg", 4) || !strncmp(p, "<style", 6)) {   /* a picture's labels are not its text */
                const char *close = strstr(p, !strncmp(p, "<svg", 4) ? "</svg>" : "</style>");
                e = close ? strchr(close, '>') : e;
            }
            *o++ = ' ';
            p = e ? e + 1 : p + strlen(p);
            continue;
        }
        size_t k = 0;
        for (; k < sizeof ent / sizeof ent[0]; k++)
            if (!strncmp(p, ent[k][0], strlen(ent[k][0]))) break;
        if (k < sizeof ent / sizeof ent[0]) {
            *o++ = ent[k][1][0];
            p += strlen(ent[k][0]);
        } else {
            *o++ = *p++;
        }
    }
    *o = 0;
    return out;
}

/* A word: letters, digits and _ < > $ . + - = / (UTF-8 letters too; rules, bars and arrows are not words), without a
 * trailing full stop. The next one in *p (advanced past it): its length, 0 at the end. */
static size_t next_word(const char **p, const char **w)
{
    const char *s = *p;
    for (;;) {
        while (*s && !(isalnum((unsigned char)*s) || strchr("_<>$.+-=/", *s) || ((unsigned char)*s >= 0xC3 && (unsigned char)*s < 0xE2)))
            s += (unsigned char)*s >= 0xE0 ? ((unsigned char)*s >= 0xF0 ? 4 : 3) : (unsigned char)*s >= 0xC0 ? 2 : 1;
        if (!*s) return 0;
        const char *e = s;
        while (*e && (isalnum((unsigned char)*e) || strchr("_<>$.+-=/", *e) || ((unsigned char)*e >= 0x80 && (unsigned char)*e < 0xE2)))
            e++;
        *p = e;
        while (e > s + 1 && e[-1] == '.') e--;
        *w = s;
        return (size_t)(e - s);
    }
}

/* Whether word w (len bytes) is one of the words of text. */
static int has_word(const char *text, const char *w, size_t len)
{
    const char *t;
    for (size_t n; (n = next_word(&text, &t));)
        if (n == len && !strncmp(t, w, len)) return 1;
    return 0;
}

/* Every word of the value's text is a word of its HTML's text. */
static void check_words(wl_interp *in, const char *code)
{
    lt_run *r = lt_eval(in, code, NULL);
    CHECK_MSG(r->rc == 0, "%s: %s: %s", code, r->err.ename, r->err.evalue);
    if (r->rc || !r->result.text_html) {
        CHECK_MSG(r->result.text_html != NULL, "%s has no HTML", code);
        lt_free(r);
        return;
    }
    char *shown = html_text(r->result.text_html);
    const char *p = lt_text(r), *w;
    for (size_t n; (n = next_word(&p, &w));)
        CHECK_MSG(has_word(shown, w, n), "%s: the text's word \"%.*s\" is not in the HTML", code, (int)n, w);
    free(shown);
    lt_free(r);
}

static void test_html_carries_the_text(void)
{
    wl_interp *in = wl_interp_new(NULL);
    lt_run *r = lt_eval(in, "s = corpus profile=smoke stories=60\n"
                            "m = model new kind=multihead heads=4 vocab=$s.vocab seed=11\n"
                            "mlp = model new kind=mlp vocab=$s.vocab seed=11\n", NULL);
    CHECK(r->rc == 0);
    lt_free(r);
    const char *codes[] = {
        "$m", "$mlp", "details $m \"the dog was happy\"", "details $mlp \"the dog\"", "nll 1 0.9 0.5 0.1 0.01 0.001",
        "perplexity 0.5 0.25 0.125", "next $m \"the dog\" top=4 target=was", "generate $m \"the dog\" tokens=5",
        "t = train $m $s steps=4 batch=8 eval_every=2\n$t", "help nll", "help language", "help",
        "results [artifact comparison.json]", "$s", "corpus profile=smoke stories=60 audit=0", "vocab $s",
        "encode \"the dog\" vocab=$s context=8", "d = details $m \"the dog was happy\"\nheads $d",
        "d = details $m \"the dog was happy\"\nheads $d query=2",
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) check_words(in, codes[i]);
    /* the model card's lines stay lines */
    r = lt_eval(in, "$m", NULL);
    CHECK(r->result.text_html && strstr(r->result.text_html, " parameters<br>seed 11"));
    lt_free(r);
    wl_interp_free(in);
}

/* Counts of a thousand and more are written with commas, whatever the output. */
static void test_counts(void)
{
    wl_interp *in = wl_interp_new(NULL);
    lt_run *r = lt_eval(in, "s = corpus profile=smoke\nm = model new kind=attention vocab=$s.vocab seed=11\n"
                            "e = evaluate $m $s split=test\nprint $e \"|\" $e.targets\n$m", NULL);
    CHECK(r->rc == 0);
    char plain[32], grouped[32];
    CHECK(sscanf(strchr(r->out, '|') ? strchr(r->out, '|') + 2 : "", "%31s", plain) == 1 && strlen(plain) >= 4);
    snprintf(grouped, sizeof grouped, "%.*s,%s", (int)strlen(plain) - 3, plain, plain + strlen(plain) - 3);
    char want[64];
    snprintf(want, sizeof want, "over %s targets", grouped);
    CHECK_MSG(strstr(r->out, want) != NULL, "evaluate writes %s; want \"%s\"", r->out, want);
    CHECK_MSG(strstr(lt_text(r), "vocabulary 1,500") != NULL, "%s", lt_text(r));
    lt_free(r);
    wl_interp_free(in);
}

/* One of a thing is written in the singular: 1 real id, 1 head; more in the plural. */
static void test_one_and_many(void)
{
    lt_run *r = lt_eval(NULL, "s = corpus profile=smoke stories=60 audit=0\nm = model new kind=attention vocab=$s.vocab\n"
                              "d = details $m \"\"\nprint $d\nd = details $m \"the dog\"\n$d", NULL);
    CHECK_MSG(r->rc == 0 && strstr(r->out, "forward_details of the attention model on 1 real id in 64 slots:") &&
              strstr(r->out, "H = 1 head, d = 64 per head"), "%s", r->out);
    CHECK_MSG(strstr(lt_text(r), "on 3 real ids in 64 slots:"), "%s", lt_text(r));
    lt_free(r);
    r = lt_eval(NULL, "s = corpus profile=smoke stories=60 audit=0\nm = model new kind=multihead heads=4 vocab=$s.vocab\n"
                      "details $m \"the dog\"", NULL);
    CHECK_MSG(r->rc == 0 && strstr(lt_text(r), "H = 4 heads, d = 16 per head"), "%s", lt_text(r));
    lt_free(r);
}

/* Help is written for a terminal (wrapped at about 90 columns) and reflows in a notebook: its HTML joins the lines of a
 * paragraph, lays term and description out as a table, and keeps line breaks only in code. */
static void test_help_reflows(void)
{
    lt_run *r = lt_eval(NULL, "help tokenize", NULL);
    CHECK(strstr(lt_text(r), "and single\n  punctuation marks") != NULL);   /* the terminal keeps its wrapped text */
    CHECK(r->result.text_html && strstr(r->result.text_html, "and single punctuation marks"));
    lt_free(r);
    r = lt_eval(NULL, "help language", NULL);   /* a kept value is not shown; what corpus and train report still is */
    CHECK_MSG(!strstr(lt_text(r), "nothing is shown") && strstr(lt_text(r), "in a variable; the value is not shown\n"
              "                         (a command that reports as it runs still does: corpus, train)\n") && r->result.text_html &&
              strstr(r->result.text_html, "the value is not shown (a command that reports as it runs still does: corpus, "
                     "train)</td></tr>"), "%s", lt_text(r));
    lt_free(r);
    r = lt_eval(NULL, "help model", NULL);
    CHECK(r->result.text_html && strstr(r->result.text_html, "<tr><td><code>model load PATH [vocab=V]</code></td><td>a checkpoint"));
    CHECK(r->result.text_html && strstr(r->result.text_html, "(one head) or multihead (heads divides 64)"));
    lt_free(r);
    /* every page: outside <pre> (the examples) the HTML has no line break: the front end wraps it */
    char code[128];
    for (int i = -2; i < 0 || wl_command_at(i); i++) {
        snprintf(code, sizeof code, "help %s", i == -2 ? "" : i == -1 ? "language" : wl_command_at(i)->name);
        r = lt_eval(NULL, code, NULL);
        const char *h = r->result.text_html ? r->result.text_html : "";
        CHECK_MSG(r->rc == 0 && !strncmp(h, "<div class=\"wordlab-help\">", 26), "%s", code);
        for (const char *p = h; *p; p++) {
            if (!strncmp(p, "<pre", 4)) p = strstr(p, "</pre>") ? strstr(p, "</pre>") : p + strlen(p) - 1;
            else if (*p == '\n') {
                CHECK_MSG(0, "%s: a line break outside <pre> at \"%.40s\"", code, p > h + 40 ? p - 40 : h);
                break;
            }
        }
        lt_free(r);
    }
    /* inspect gives the same page */
    wl_interp *in = wl_interp_new(NULL);
    wl_mime m;
    CHECK(wl_interp_inspect(in, "perplexity 0.5", 3, &m) == 1 && m.text_html && strstr(m.text_html, "<p>Shows each target"));
    wl_mime_free(&m);
    wl_interp_free(in);
}

/* Text whose letters the tokenizer drops (not a-z) gets a note on stderr that says what becomes of them; plain text none. */
static void test_dropped_note(void)
{
    lt_run *r = lt_eval(NULL, "tokenize \"caf\xC3\xA9 na\xC3\xAFve\"", NULL);
    CHECK_MSG(r->rc == 0 && strstr(r->out, "note: the tokenizer dropped 2 characters that are part of a word but not a-z or 0-9") &&
              strstr(r->out, "(the first: \xC3\xA9)") && strstr(r->out, "such a letter ends or splits a word (caf\xC3\xA9 gives "
              "caf, na\xC3\xAFve gives na and ve), while other symbols (an emoji, a curly quote) become tokens of their own") &&
              !strstr(r->out, "ASCII words only"), "%s", r->out);
    CHECK_MSG(strstr(lt_text(r), "\"caf\", \"na\", \"ve\""), "%s", lt_text(r));   /* what the note says happens */
    lt_free(r);
    r = lt_eval(NULL, "tokenize \"Zo\xC3\xAB \xF0\x9F\x90\xB6 \xE2\x80\x9Chi\xE2\x80\x9D\"", NULL);
    CHECK_MSG(r->rc == 0 && strstr(r->out, "dropped 1 character that is part of a word") &&
              strstr(lt_text(r), "\"zo\", \"\xF0\x9F\x90\xB6\", \"\xE2\x80\x9C\", \"hi\", \"\xE2\x80\x9D\""), "%s%s", r->out, lt_text(r));
    lt_free(r);
    r = lt_eval(NULL, "stories = corpus profile=smoke stories=40 audit=0\nm = model new kind=mlp vocab=$stories.vocab\n"
                      "losses $m \"the caf\xC3\xA9\"", NULL);
    CHECK_MSG(r->rc == 0 && strstr(r->out, "dropped 1 character that is part of a word but not"), "%s", r->out);
    lt_free(r);
    r = lt_eval(NULL, "tokenize \"a little dog\"", NULL);
    CHECK(r->rc == 0 && !strstr(r->out, "note:"));
    lt_free(r);
}

/* generate's seed= without temperature= and a prompt longer than the context get a note; a plain call none. */
static void test_generate_notes(void)
{
    char code[2048] = "stories = corpus profile=smoke stories=40 audit=0\nm = model new kind=mlp vocab=$stories.vocab\n"
                      "long = \"";
    for (int i = 0; i < 70; i++) strcat(code, "the dog ");   /* 140 tokens: with <BOS>, 77 more than the context */
    strcat(code, "\"\n");
    size_t setup = strlen(code);
    strcat(code, "g = generate $m \"the dog\" tokens=2 seed=3");
    lt_run *r = lt_eval(NULL, code, NULL);
    CHECK_MSG(r->rc == 0 && strstr(r->out, "note: seed= has no effect without temperature=: greedy decoding"), "%s", r->out);
    lt_free(r);
    strcpy(code + setup, "g = generate $m \"the dog\" tokens=2 seed=3 temperature=0.5\ng = generate $m \"the dog\" tokens=2");
    r = lt_eval(NULL, code, NULL);
    CHECK_MSG(r->rc == 0 && !strstr(r->out, "note:"), "%s", r->out);
    lt_free(r);
    const char *const cropping[] = {"g = generate $m $long tokens=1", "n = next $m $long"};
    for (int i = 0; i < 2; i++) {
        strcpy(code + setup, cropping[i]);
        r = lt_eval(NULL, code, NULL);
        CHECK_MSG(r->rc == 0 && strstr(r->out, "note: the model reads the last 64 ids: <BOS> and the first 76 of the 140 "
                                               "tokens did not fit\n"), "%s: %s", cropping[i], r->out);
        lt_free(r);
    }
    /* 64 tokens: only <BOS> is cropped; 63: nothing is */
    strcpy(code + setup, "n = next $m \"");
    for (int i = 0; i < 32; i++) strcat(code, "the dog ");
    strcat(code, "\"");
    r = lt_eval(NULL, code, NULL);
    CHECK_MSG(r->rc == 0 && strstr(r->out, "note: the model reads the last 64 ids: <BOS> did not fit before the 64 tokens\n"),
              "%s", r->out);
    lt_free(r);
    /* ids that encode cropped: the model commands say that <BOS> goes back before the kept ones */
    strcpy(code + setup, "a = encode $long vocab=$stories\nl = losses $m $a");
    r = lt_eval(NULL, code, NULL);
    CHECK_MSG(r->rc == 0 && strstr(r->out, "note: `encode` cropped these ids (the first 77 did not fit): <BOS> goes back "
                                           "before the 64 kept"), "%s", r->out);
    lt_free(r);
}

/* A bare + - * / between two numbers among print's words gets a note that it is text and how to compute; quoted, none.
 * A probability written as a number too small for a double is said to underflow. */
static void test_arithmetic_as_words(void)
{
    lt_run *r = lt_eval(NULL, "print 0.1 + 0.2", NULL);
    CHECK_MSG(r->rc == 0 && strstr(r->out, "0.1 + 0.2\n") && strstr(r->out, "note: `print` writes the + as text, as it writes "
              "every word after its name; to print the result, put the arithmetic in [ ]: print [0.1 + 0.2]"), "%s", r->out);
    lt_free(r);
    r = lt_eval(NULL, "l = nll 0.5\nwarn $l * 2", NULL);
    CHECK_MSG(r->rc == 0 && strstr(r->out, "note: `warn` writes the * as text") && strstr(r->out, "warn [... * 2]"), "%s", r->out);
    lt_free(r);
    /* the whole arithmetic goes in the [ ], not its first operator's part */
    const char *const whole[][2] = {{"print 2 * 3 + 1", "writes the * as text, as it writes every word after its name; to print the "
                                     "result, put the arithmetic in [ ]: print [2 * 3 + 1]\n"},
                                    {"print 1 - 2 - 3 and more", "put the arithmetic in [ ]: print [1 - 2 - 3]\n"},
                                    {"l = nll 0.5\nprint x $l * 2 / 4 y", "print [... * 2 / 4]\n"}};
    for (int i = 0; i < 3; i++) {
        r = lt_eval(NULL, whole[i][0], NULL);
        CHECK_MSG(r->rc == 0 && strstr(r->out, whole[i][1]), "%s: %s", whole[i][0], r->out);
        lt_free(r);
    }
    const char *const quiet[] = {"print 1 \"+\" 2", "print a - b", "print [0.1 + 0.2]", "print 3 -"};
    for (int i = 0; i < 4; i++) {
        r = lt_eval(NULL, quiet[i], NULL);
        CHECK_MSG(r->rc == 0 && !strstr(r->out, "note:"), "%s: %s", quiet[i], r->out);
        lt_free(r);
    }
    r = lt_eval(NULL, "nll 0.5 1e-400", NULL);
    CHECK_MSG(r->rc == -1 && strstr(r->err.evalue, "got 1e-400, which underflows to 0: a double holds nothing between 0 "
              "and about 4.9e-324") && r->err.col == 9, "%s at %d", r->err.evalue, r->err.col);
    lt_free(r);
    r = lt_eval(NULL, "perplexity 0", NULL);
    CHECK_MSG(r->rc == -1 && strstr(r->err.evalue, "got 0") && !strstr(r->err.evalue, "underflows"), "%s", r->err.evalue);
    lt_free(r);
}

/* A corpus without validation or test stories gets a warning on stderr that says what is missing and what to do. */
static void test_corpus_split_warning(void)
{
    lt_run *r = lt_eval(NULL, "c = corpus profile=smoke stories=2 audit=0", NULL);
    CHECK_MSG(r->rc == 0 && strstr(r->out, "warning: this corpus has no validation and no test stories (2 train, 0 validation, "
                                           "0 test): `train` needs validation stories") &&
              strstr(r->out, "ask for more stories; stories=40 or more"), "%s", r->out);
    lt_free(r);
    r = lt_eval(NULL, "c = corpus profile=smoke stories=1 audit=0\n$c", NULL);
    CHECK_MSG(r->rc == 0 && strstr(lt_text(r), "corpus: 1 story from the embedded story generator"), "%s", lt_text(r));
    lt_free(r);
    r = lt_eval(NULL, "c = corpus profile=smoke stories=4 audit=0", NULL);
    CHECK_MSG(r->rc == 0 && strstr(r->out, "warning: this corpus has no validation stories (2 train, 0 validation, 2 test)"), "%s", r->out);
    lt_free(r);
    r = lt_eval(NULL, "c = corpus profile=smoke stories=60 audit=0", NULL);
    CHECK_MSG(r->rc == 0 && !strstr(r->out, "warning:"), "%s", r->out);
    lt_free(r);
    char path[] = "/tmp/wordlab-two-paragraphs-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, "one two three.\n\nfour five six.\n", 31) == 31);
    if (fd >= 0) close(fd);
    char code[128];
    snprintf(code, sizeof code, "c = corpus file=%s format=text audit=0", path);
    r = lt_eval(NULL, code, NULL);
    CHECK_MSG(r->rc == 0 && strstr(r->out, "warning: this corpus has no validation and no test stories (1 train") &&
              strstr(r->out, "give the file more stories (format=text separates them with <|endoftext|>"), "%s", r->out);
    lt_free(r);
    unlink(path);
}

/* compare says "saved" of the runs whose checkpoint it wrote (the first seed's) only; a directory made with other
 * settings is refused naming the setting that differs. */
static void test_compare_says_what_it_saved(void)
{
    char dir[] = "/tmp/wordlab-compare-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char code[512];
    const char *run = "stories = corpus profile=smoke stories=60 audit=0\n"
                      "compare $stories dir=%s steps=%d batch=8 eval_every=1 seeds=11,29";
    snprintf(code, sizeof code, run, dir, 2);
    lt_run *r = lt_eval(NULL, code, NULL);
    CHECK_MSG(r->rc == 0, "%s: %s", r->err.ename, r->err.evalue);
    const char *kinds[] = {"mlp", "attention", "multihead"};
    for (int k = 0; k < 3; k++) {
        char want[128], *at;
        snprintf(want, sizeof want, "%s seed 11: test loss ", kinds[k]);
        at = strstr(r->out, want);
        snprintf(want, sizeof want, " (saved as %s_seed11.npz)\n", kinds[k]);
        CHECK_MSG(at && strstr(at, want) && strstr(at, want) < strchr(at, '\n') + 1, "%s", r->out);
        snprintf(want, sizeof want, "%s seed 29: test loss ", kinds[k]);
        at = strstr(r->out, want);
        CHECK_MSG(at && !memmem(at, (size_t)(strchr(at, '\n') - at), "saved", 5), "%s", r->out);
    }
    lt_free(r);
    snprintf(code, sizeof code, run, dir, 3);
    r = lt_eval(NULL, code, NULL);
    CHECK_MSG(r->rc == -1 && strstr(r->err.evalue, "comparison.json was made with a different protocol: steps is 2 in the file, "
                                                   "3 now; remove it"), "%s", r->err.evalue);
    lt_free(r);
    const char *files[] = {"comparison.json", "vocab.json", "mlp_seed11.npz", "attention_seed11.npz", "multihead_seed11.npz"};
    for (int i = 0; i < 5; i++) {
        snprintf(code, sizeof code, "%s/%s", dir, files[i]);
        CHECK_MSG(unlink(code) == 0, "%s", code);
    }
    CHECK(rmdir(dir) == 0);   /* nothing else was written: no checkpoint of seed 29 */
}

void wl_test_main(void)
{
    test_compare_says_what_it_saved();
    test_corpus_split_warning();
    test_arithmetic_as_words();
    test_generate_notes();
    test_dropped_note();
    test_help_reflows();
    test_html_carries_the_text();
    test_counts();
    test_one_and_many();
}

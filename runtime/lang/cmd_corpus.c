/* cmd_corpus.c: the corpus command (embedded story generator or a file; its value shows the audit) and story (one story of it). */
#include "lang_objs.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A corpus without validation or test stories is accepted, but `train` would fail on it later: warn now, with what to
 * do. file: its stories came from a file. */
static void warn_missing_splits(wl_call *c, const wl_corpus *k, int file)
{
    size_t nv = k->n[WL_VALIDATION], nt = k->n[WL_TEST];
    if (nv && nt) return;
    wl_call_note(c, "warning: this corpus has %s (%zu train, %zu validation, %zu test): `train` needs validation stories to "
                 "keep its best step, `evaluate` and the test scores need test stories. A story goes to validation or to "
                 "test with a chance of 1 in 10 each: %s",
              !nv && !nt ? "no validation and no test stories" : !nv ? "no validation stories" : "no test stories",
              k->n[WL_TRAIN], nv, nt,
              file ? "give the file more stories (format=text separates them with <|endoftext|>, format=jsonl has one a "
                     "line); 40 or more usually give every split some"
                   : "ask for more stories; stories=40 or more usually gives every split some");
}

static int cmd_corpus(wl_call *c, wl_value **out)
{
    const char *pname = wl_opt_str(c, "profile", "classroom");
    const char *file = wl_opt_str(c, "file", NULL);
    long long seed, stories, audit;
    if (!pname || (wl_opt_has(c, "file") && !file) || wl_opt_int(c, "seed", 1, 0, (1LL << 53), &seed) ||
        wl_opt_int(c, "stories", 0, 1, 1000000, &stories) || wl_opt_int(c, "audit", 1, 0, 1, &audit))
        return -1;
    wl_profile prof;
    if (wl_profile_get(pname, &prof, c->err)) {
        c->errword = wl_call_optword(c, "profile");
        c->ename = "ArgumentError";
        return -1;
    }
    if (stories) prof.stories = (size_t)stories;
    int cap = wl_interp_options(c->in)->max_stories;
    if (cap > 0 && prof.stories > (size_t)cap) prof.stories = (size_t)cap;
    if (file && wl_opt_has(c, "seed"))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "seed"), "seed= chooses generated stories; a file= corpus has none");
    const char *fname = wl_opt_str(c, "format", NULL);
    wl_corpus_format format = WL_CORPUS_BY_NAME;
    if (wl_opt_has(c, "format") && !fname) return -1;
    if (fname && !file)
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "format"), "format= goes with file=");
    if (fname && strcmp(fname, "jsonl") && strcmp(fname, "text"))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "format"),
                            "unknown format \"%s\" (jsonl: JSON lines, text: stories separated by <|endoftext|>)", fname);
    if (fname) format = strcmp(fname, "jsonl") ? WL_CORPUS_TEXT : WL_CORPUS_JSONL;
    if (file && !c->allow_files)
        return wl_call_fail(c, "PermissionError", wl_call_optword(c, "file"), "reading files is disabled here");
    lang_corpus *lc = wl_xcalloc(1, sizeof *lc);
    int rc;
    if (wl_opt_has(c, "source") || wl_opt_has(c, "cache") || wl_opt_has(c, "api") || wl_opt_has(c, "time_scale") ||
        wl_opt_has(c, "timeout") || wl_opt_has(c, "deadline")) {
        rc = lang_tinystories_corpus(c, &prof, &lc->c);
    } else if (file) {
        rc = wl_corpus_load_file(file, format, &prof, lang_interrupt(c), &lc->c, c->err);
        if (rc) c->errword = wl_call_optword(c, "file");
    } else {
        rc = lang_cache_corpus(c, &prof, (uint64_t)seed, lc);
        lc->generated = 1;
        lc->seed = (uint64_t)seed;
    }
    if (rc) {
        free(lc);   /* lang_cache_corpus leaves nothing behind on failure */
        return -1;
    }
    lc->brief = !audit;
    warn_missing_splits(c, &lc->c, file != NULL);
    *out = wl_obj(&lang_corpus_type, lc);
    return 0;
}

/* story CORPUS: one story's text as the source gave it, or its first words= tokens (a prompt from the corpus). */
static int cmd_story(wl_call *c, wl_value **out)
{
    const lang_corpus *lc = wl_arg_obj(c, 0, &lang_corpus_type);
    wl_split split;
    const wl_story *st = lc ? lang_corpus_story(c, lc, &split) : NULL;
    long long words;
    if (!st || wl_opt_int(c, "words", 0, 1, LLONG_MAX, &words)) return -1;
    if (!words) {
        *out = wl_str(st->text);
        return 0;
    }
    size_t n = (size_t)words < st->tokens.n ? (size_t)words : st->tokens.n;
    char *text;
    wl_tokens tk;
    if (wl_story_tokens(st, &tk, c->err)) return -1;
    int rc = wl_text_readable((const char *const *)tk.tok, n, 0, &text, c->err);
    wl_tokens_free(&tk);
    if (rc) return -1;
    *out = wl_str(text);
    free(text);
    return 0;
}

const wl_command wl_cmds_corpus[] = {
    {.name = "corpus", .topic = "data",
     .synopsis = "corpus [profile=classroom] [seed=1] [file=PATH [format=jsonl|text]] [stories=N] "
                 "[source=tinystories [cache=DIR] [timeout=S] [deadline=S]] [audit=0] [shared=off]",
     .summary = "stories, their split, the vocabulary and the audit",
     .help = "Without file=: stories from the embedded generator (the same seed gives the same stories).\n"
             "With file=: JSON lines with a \"text\" field (a .jsonl file), or plain text with stories\n"
             "separated by a line <|endoftext|> (a .txt file, the TinyStories format); format=jsonl or\n"
             "format=text reads a file of another name.\n"
             "Profiles: smoke (480 stories, vocabulary 1,500), classroom (3,000 / 3,000), dgx (6,000 /\n"
             "4,000); stories=N overrides the count. Duplicates are removed; each story goes to train,\n"
             "validation or test by a hash of its text; the vocabulary is fit on train only.\n"
             "With source=tinystories: the course's own data, the profile's pinned subset of TinyStories\n"
             "(revision f54c09fd, pages chosen as the course chooses them), fetched once from Hugging Face\n"
             "with a live page display and kept in DIR/<profile>/ (default: the user's cache directory,\n"
             "$XDG_CACHE_HOME/wordlab/tinystories); a cached copy is checked against its manifest's SHA-256.\n"
             "Ctrl-C keeps the pages fetched so far; the same command resumes. timeout=S bounds each request\n"
             "(default 300 s), deadline=S the whole fetch (default 3600 s). For tests only: api=URL\n"
             "replaces both API base URLs and time_scale=X (0..1) shortens every pause and backoff.\n"
             "Shows the audit: documents, tokens, unknown rate and story lengths per split (audit=0: one\n"
             "line instead, for a lesson that only needs the stories; $name.audit still shows it).\n"
             "A generated corpus and its windows come from the machine's shared cache when the front end has one\n"
             "(computed once, mapped read-only by every kernel); shared=off computes them here.",
     .example = "stories = corpus profile=smoke seed=1\nprint $stories.train \"training stories\"\n"
                "s = corpus profile=smoke audit=0",
     .min_args = 0, .max_args = 0,
     .options = "profile seed file format stories source cache api time_scale timeout deadline audit shared",
     .choices = "profile=smoke|classroom|dgx format=jsonl|text source=tinystories shared=off",
     .flags = WL_CMD_SHOW_BOUND, .fn = cmd_corpus, .result = &lang_corpus_type},
    {.name = "story", .topic = "data", .synopsis = "story CORPUS [split=test] [story=1] [words=N]",
     .summary = "one story of a corpus as text, or its first N tokens (a prompt from the corpus)",
     .help = "The story=N-th story (from 1) of split= (train, validation or test, in the split's doc_id\n"
             "order) as the source gave it; words=N keeps its first N tokens, spaced as English is written: a prompt\n"
             "whose continuation the story itself shows.",
     .example = LANG_EX_STORIES "story $stories split=train story=1 words=12\nstory $stories",
     .min_args = 1, .max_args = 1, .options = "split story words",
     .choices = "split=train|validation|test", .fn = cmd_story},
    {0},
};

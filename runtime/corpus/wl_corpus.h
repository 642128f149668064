/* wl_corpus.h: story sources, profiles, the training-only vocabulary, windows and the audit (doc ids and the split: wl_corpus_split.h). */
#ifndef WL_CORPUS_H
#define WL_CORPUS_H

#include "wl_core.h"
#include "wl_corpus_split.h"
#include "wl_text.h"

#include <stddef.h>
#include <stdint.h>

/* Special token ids (the first four vocabulary entries, see wl_text_specials). */
#define WL_PAD 0
#define WL_BOS 1
#define WL_EOS 2
#define WL_UNK 3

/* Context length T of every window (the models' WL_T). */
#define WL_CONTEXT 64

/* A corpus profile: how many stories to keep and the vocabulary settings. */
typedef struct wl_profile {
    const char *name;    /* "smoke", "classroom", "dgx" */
    size_t stories;      /* the first this many distinct stories of a source are used */
    size_t max_vocab;    /* vocabulary size cap, the four specials included */
    size_t min_freq;     /* a token needs this many train occurrences */
} wl_profile;

/* Looks a profile up by name; fails with the list of names. */
int wl_profile_get(const char *name, wl_profile *out, wl_err *err);

/* --- vocabulary ------------------------------------------------------------------------- */

typedef struct wl_vocab {
    size_t n;            /* V, the four specials included */
    char **itos;         /* [V] id -> token (malloc'd strings) */
    int32_t *slots;      /* stoi: open-addressing hash table of ids, -1 = empty */
    size_t nslots;       /* a power of two */
    uint64_t key[2];     /* the table's random hash key: crafted tokens cannot be made to collide */
    char profile[32];    /* the profile it was fit for ("" if unknown) */
    size_t min_freq, max_vocab;
} wl_vocab;

/* Fits the vocabulary on token lists (train only): count, sort by descending count then
 * ascending token (code-point order), keep count >= min_freq, at most max_vocab - 4. */
int wl_vocab_fit(const wl_tokens *docs, size_t ndocs, const wl_profile *profile, volatile sig_atomic_t *interrupt,
                 wl_vocab *v, wl_err *err);

/* The id of a token, or WL_UNK. */
int32_t wl_vocab_id(const wl_vocab *v, const char *token);

/* ids[i] = id of tokens[i]; returns the number of unknown tokens. */
size_t wl_vocab_encode(const wl_vocab *v, const char *const *tokens, size_t n, int32_t *ids);

/* vocab.json: {"itos": [...], "profile": ..., "min_freq": ..., "max_vocab": ...}, written atomically (replacing only
 * a file that is such an object: anything else there is refused, naming what it holds); read from a regular file of
 * at most WL_VOCAB_FILE_MAX bytes (100,000 tokens, the most a model takes, of 160 bytes on average; a JSON parse
 * takes about 30 times its text, so 64 MiB of small numbers took 2.7 GB). */
#define WL_VOCAB_FILE_MAX ((size_t)16 << 20)
int wl_vocab_save(const wl_vocab *v, const char *path, wl_err *err);
int wl_vocab_load(const char *path, wl_vocab *v, wl_err *err);
/* The same object as text (malloc'd; NULL when out of memory), and read back from text; where names
 * the source in error messages. */
char *wl_vocab_json(const wl_vocab *v);
int wl_vocab_parse(const char *json, size_t len, const char *where, wl_vocab *v, wl_err *err);
void wl_vocab_free(wl_vocab *v);

/* --- windows ---------------------------------------------------------------------------- */

/* Windows of one split: ctx [n,T] ids left-padded with PAD, tgt [n] the next id.
 * For each story: ids = BOS + token ids + EOS; a story of k tokens gives k + 1 windows. */
typedef struct wl_windows {
    int32_t *ctx;   /* [n, WL_CONTEXT] */
    int32_t *tgt;   /* [n] */
    size_t n;
} wl_windows;

void wl_windows_free(wl_windows *w);

/* --- the corpus ------------------------------------------------------------------------- */

typedef struct wl_story {
    char doc_id[WL_DOC_ID_LEN + 1];
    char *text;          /* the source text as read */
    wl_tokens tokens;    /* tokenize(text); in a borrowed corpus only tokens.n (tok NULL): see wl_story_tokens */
    const char *tokbytes;  /* borrowed corpus: the tokens.n tokens, each ended by a NUL; else NULL */
    int32_t *ids;        /* [tokens.n] vocabulary ids */
    long row_idx;        /* "row_idx" of a JSON line, else the story's position in the source */
    size_t line;         /* 1-based line of the source where the story starts (0: not from a file) */
} wl_story;

/* Numbers of one split. */
typedef struct wl_split_audit {
    size_t documents;
    size_t tokens;       /* story tokens, BOS and EOS excluded */
    size_t targets;      /* windows: tokens + documents */
    size_t unknown;      /* tokens encoded as <UNK> */
    double unknown_rate; /* unknown / tokens (0 when there are no tokens) */
    size_t len_min, len_max;
    double len_median;   /* the middle length, or the mean of the two middle ones */
} wl_split_audit;

typedef struct wl_audit {
    size_t texts_read;   /* texts taken from the source (duplicates included) */
    size_t empty;        /* texts with no characters but whitespace, not used as stories */
    size_t duplicates;   /* texts whose doc_id was already seen, removed */
    size_t overlap;      /* doc ids found in more than one split (must be 0) */
    size_t vocab_size;
    wl_split_audit split[WL_NSPLITS];
} wl_audit;

typedef struct wl_corpus {
    wl_profile profile;
    char *source;                  /* where the stories came from, for display (malloc'd) */
    wl_story *stories[WL_NSPLITS]; /* per split, ordered by doc_id */
    size_t n[WL_NSPLITS];
    wl_vocab vocab;                /* fit on train */
    wl_audit audit;
    int borrowed;                  /* 1: the stories' texts, token bytes and ids live in memory the corpus does not
                                      own (wl_corpus_unpack); the rest is its own */
} wl_corpus;

/* Builds a corpus from texts (stories in source order): de-duplicates by doc_id (first
 * kept) until profile->stories distinct stories are taken, splits, orders by doc_id, fits
 * the vocabulary on train and encodes every split. Fails on invalid UTF-8 (naming the text
 * index) or when no story remains. */
int wl_corpus_build_texts(const char *const *texts, size_t n, const wl_profile *profile, wl_corpus *c,
                          wl_err *err);

/* How a story file is read: JSON lines ({"text": ..., "row_idx": n} per line, blank lines between them allowed), or
 * plain text with stories separated by a line "<|endoftext|>" (the TinyStories format); by name: .jsonl or .txt. */
typedef enum wl_corpus_format { WL_CORPUS_BY_NAME, WL_CORPUS_JSONL, WL_CORPUS_TEXT } wl_corpus_format;

/* A story file is a regular file of at most this many bytes (wl_open_read). */
#define WL_CORPUS_FILE_MAX WL_READ_MAX

/* Same from a file in that format (never guessed from its content; by name, a file named neither .jsonl nor .txt
 * is an error). Errors name the file and line. It fails with "interrupted" as soon as *interrupt (may be NULL) is
 * set, and so do wl_corpus_generate, wl_corpus_windows and wl_vocab_fit: every loop over the stories checks it. */
int wl_corpus_load_file(const char *path, wl_corpus_format format, const wl_profile *profile,
                        volatile sig_atomic_t *interrupt, wl_corpus *c, wl_err *err);

/* Same from the text data[0..len) of a file; name stands for the file in messages (and gives the format by name). */
int wl_corpus_load_mem(const char *data, size_t len, const char *name, wl_corpus_format format,
                       const wl_profile *profile, volatile sig_atomic_t *interrupt, wl_corpus *c, wl_err *err);

/* Same from the embedded story generator: profile->stories stories from seed. */
int wl_corpus_generate(const wl_profile *profile, uint64_t seed, volatile sig_atomic_t *interrupt, wl_corpus *c,
                       wl_err *err);

/* The byte offset in the JSON text s of its first NUL: a NUL byte or the escape \u0000 (its backslash not escaped
 * itself); n when there is none. cJSON cuts a string at a NUL, so a reader looks for one before it trusts a string. */
size_t wl_corpus_json_nul_at(const char *s, size_t n);

/* Parses the JSON text s[0..n): one value, then nothing but white space (cJSON_Delete frees it). NULL when it is not
 * valid JSON, with why (cap bytes) saying where (the byte; line and column too in a text of several lines) and, when
 * it is one of these, what is wrong: a \u escape of a lone UTF-16 surrogate (\ud800), a \u without four hex digits,
 * nesting deeper than cJSON's CJSON_NESTING_LIMIT (1000; the parser stops there, so no depth exhausts the stack), a
 * string or value the text ends inside, text after the value. */
struct cJSON *wl_corpus_json_parse(const char *s, size_t n, char *why, size_t cap);

/* One JSON line of a story source: *text gets its "text" (malloc'd, NUL-terminated) and *row_idx
 * its "row_idx" (-1 when absent). Fails, with no location (callers add file and line), on invalid
 * UTF-8, invalid JSON, a value that is not an object, a missing or non-string "text", a "row_idx"
 * that is not a non-negative integer, or a NUL byte or \u0000 escape (a NUL cannot be carried). */
int wl_corpus_parse_json_line(const char *line, size_t n, char **text, long *row_idx, wl_err *err);

/* The tokens of story st as a new list over its strings (out->tok malloc'd, out->buf NULL: wl_tokens_free frees the
 * list only; the strings stay the corpus's). */
int wl_story_tokens(const wl_story *st, wl_tokens *out, wl_err *err);

/* The number of windows of split s, and the windows written into ctx [n, WL_CONTEXT] and tgt [n] (the caller's). */
size_t wl_corpus_window_count(const wl_corpus *c, wl_split s);
int wl_corpus_windows_into(const wl_corpus *c, wl_split s, volatile sig_atomic_t *interrupt, int32_t *ctx, int32_t *tgt,
                           wl_err *err);
/* The windows of one split (ctx/tgt malloc'd; free with wl_windows_free). */
int wl_corpus_windows(const wl_corpus *c, wl_split s, volatile sig_atomic_t *interrupt, wl_windows *w, wl_err *err);

/* The audit as aligned plain text (never NULL) or as a JSON object (NULL when memory runs out); malloc'd. */
char *wl_corpus_audit_text(const wl_corpus *c);
char *wl_corpus_audit_json(const wl_corpus *c);

void wl_corpus_free(wl_corpus *c);

/* The corpus as one flat byte string (wl_corpus_pack.c): *data gets head zero bytes (a multiple of 8) and then the
 * packed corpus, *len the packed length without head (malloc'd). */
int wl_corpus_pack(const wl_corpus *c, size_t head, unsigned char **data, size_t *len, wl_err *err);
/* A corpus over packed bytes data [len] (8-byte aligned), which must outlive it: its texts, token bytes and ids
 * point into data (c->borrowed), the rest is its own. Fails on bytes that are not a packed corpus. */
int wl_corpus_unpack(const void *data, size_t len, wl_corpus *c, wl_err *err);

#endif

/* wl_text.h: normalize, tokenize and detokenize story text exactly as the course's Python does. */
#ifndef WL_TEXT_H
#define WL_TEXT_H

#include "wl_core.h"

#include <stddef.h>
#include <stdint.h>

/* A token list: tok[i] is a NUL-terminated UTF-8 string; all of them live in buf. */
typedef struct wl_tokens {
    size_t n;
    char **tok;          /* [n] */
    char *buf;
    size_t dropped;      /* word characters no token kept (not ASCII: é, ß, 日; or _), as the pattern drops them */
    char first_dropped[5];   /* the first of them, UTF-8 ("" when none) */
} wl_tokens;

void wl_tokens_free(wl_tokens *t);

/* The four special tokens, in id order: <PAD> <BOS> <EOS> <UNK>. */
#define WL_TEXT_NSPECIALS 4
extern const char *const wl_text_specials[WL_TEXT_NSPECIALS];

/* Returns 0 if s[0..n) is valid UTF-8 (no overlong forms, no surrogates, at most U+10FFFF);
 * else -1 with *bad_offset set to the byte offset of the first invalid sequence. */
int wl_text_utf8_check(const char *s, size_t n, size_t *bad_offset);

/* Python's str.isspace() for one code point (Unicode White_Space plus U+001C..U+001F). */
int wl_text_is_space(int32_t c);

/* Python's \w for str patterns: str.isalnum() or '_'. */
int wl_text_is_word(int32_t c);

/* normalize(text): NFKC, full lower-casing as str.lower() (U+0130 and final sigma included),
 * then whitespace runs collapsed to one space and trimmed. *out is malloc'd and NUL-terminated;
 * *out_len (may be NULL) is its length. Invalid UTF-8 fails with its byte offset. */
int wl_text_normalize(const char *s, size_t n, char **out, size_t *out_len, wl_err *err);

/* The matches of [a-z]+(?:'[a-z]+)?|[0-9]+|[^\w\s] (Python re, IGNORECASE, Unicode) in
 * already normalized, valid UTF-8 text, left to right. */
int wl_text_tokenize_normalized(const char *norm, size_t n, wl_tokens *out, wl_err *err);

/* tokenize(text) = the matches above in normalize(text). */
int wl_text_tokenize(const char *s, size_t n, wl_tokens *out, wl_err *err);

/* detokenize(tokens): drops <PAD> <BOS> <EOS> <UNK>, joins with spaces, removes the spaces
 * around punctuation as SPEC §1 says, and turns spaces + apostrophe + optional spaces into a
 * bare apostrophe (the regex \s+'\s*, as the golden vectors have it), then trims.
 * *out is malloc'd and NUL-terminated. */
int wl_text_detokenize(const char *const *tokens, size_t n, char **out, wl_err *err);

/* The tokens as English is written, for people to read (generated text; detokenize above is the course's, which
 * squeezes the spaces around every quote: `over."i am shy,"said`). Drops the special tokens; no space before
 * . , ! ? ; : % ) ] } or a closing quote, none after ( [ { or an opening quote. A straight " opens and closes in turn,
 * counted from tokens[0]; “ and ‘ open, ” closes. A ' or ’ between a word and the end of a contraction (s t d m ll
 * re ve) joins them (don ’ t: don’t); after a word ending in s with no other ' before the sentence ends, it is a
 * plural possessive (the dogs' bone); otherwise ' pairs as a quote, and a ’ that closes none ends the word before.
 * *out holds tokens[from..n) laid out so, with the quotes that tokens[0..from) left open (a prompt, before its
 * continuation); malloc'd, NUL-terminated. */
int wl_text_readable(const char *const *tokens, size_t n, size_t from, char **out, wl_err *err);

#endif

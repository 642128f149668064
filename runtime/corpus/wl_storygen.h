/* wl_storygen.h: the embedded default corpus: a deterministic generator of short children's stories. */
#ifndef WL_STORYGEN_H
#define WL_STORYGEN_H

#include <stddef.h>
#include <stdint.h>

#include "wl_core.h"

/* The generator's version: raised whenever the stories of a seed change (the shared cache names corpora by it). */
#define WL_STORYGEN_VERSION 7

/* Generates count stories from seed; *texts is a malloc'd array of malloc'd UTF-8 strings.
 * Story i depends only on (seed, i), so a smaller count gives a prefix of a larger one, and
 * the same seed gives byte-identical text on every machine (integer arithmetic only).
 * Half the texts are stories, half snippets of one to three sentences from anywhere in a story.
 * Each story has a named main character, a friend, a parent, an object with a colour and a
 * size, a place, dialogue, often a problem and its solution, and an ending or a moral; the
 * names and attributes introduced early are referred to again later in the story. About half
 * of the openings and of the sentences of the middle come from a bank of sentences written in
 * the style of children's stories (wl_storygen_bank.c: openings, narration in little scenes,
 * dialogue, endings, with slots for the cast), the others from a grammar of narration and
 * dialogue whose verb phrases, objects and prepositional phrases combine freely over large word
 * lists, so that a word is followed by many different words, as in real text. The texts that
 * fall in the training split (the corpus's rule, a hash of the text) then get noise: words
 * replaced by any word of the tables, punctuation dropped or replaced, so that models keep some probability for any word in
 * a context they have not seen it in; validation and test texts stay as written. Some stories
 * open in the middle of things and about 4% stop after a word, as truncated stories do in
 * generated collections. The dgx corpus has the figures of TinyStories that docs/data.md lists
 * (a vocabulary that fills its 4,000 cap, 1-3% unknown test tokens, splits of the course's size,
 * test perplexities of 15-80 for the course's models). */
int wl_storygen_generate(uint64_t seed, size_t count, char ***texts, wl_err *err);
/* The same, failing with "interrupted" when *interrupt (may be NULL) is set between two stories. */
int wl_storygen_generate_interruptible(uint64_t seed, size_t count, volatile sig_atomic_t *interrupt, char ***texts,
                                       wl_err *err);

/* Frees what wl_storygen_generate returned (NULL is fine). */
void wl_storygen_free(char **texts, size_t count);

#endif

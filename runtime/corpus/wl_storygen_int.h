/* wl_storygen_int.h: the story generator's tables (word lists, objects, places, plot templates) shared by its files. */
#ifndef WL_STORYGEN_INT_H
#define WL_STORYGEN_INT_H

#include <stddef.h>

/* Templates and list entries are expanded the same way:
 *   [a|b|c]   one alternative, chosen uniformly (may nest)
 *   {name}    a story slot (hero, friend, object, place, ...) or a word list (see wl_sg_lists)
 *   {a}       "a" or "an", chosen by the next word
 *   {^}       capitalise the next letter
 * The first letter of a sentence and of quoted speech is capitalised automatically. */

/* A set of alternatives. */
typedef struct wl_sg_alts {
    const char *const *items;
    size_t n;
} wl_sg_alts;

#define WL_SG_ALTS(...) { (const char *const[]){__VA_ARGS__}, \
    sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *) }

/* A named list, drawn uniformly (tail 0: grammar rules and short lists), with a long tail
 * (tail 1: early entries common, late entries rare) or partly by Zipf's law (tail 2: 15% of
 * the draws give the entry of rank k with probability about 1/k, as word frequencies fall in
 * real text, the others are uniform). pos, the part of speech of a word list ("n" singular
 * nouns, "p" plural nouns, "a" adjectives, "d" past verb phrases, "b" base verb phrases, "g"
 * -ing phrases, "r" adverbs, "f" function words; NULL for the others): 30% of the draws of
 * such a list take a word of another list of the same part of speech (see sg_draw). */
typedef struct wl_sg_list {
    const char *name;
    wl_sg_alts words;
    int tail;
    const char *pos;
} wl_sg_list;

/* An object the hero owns, with the verb used with it ("fly" a kite, "wear" a hat). */
typedef struct wl_sg_object {
    const char *noun, *use, *used, *using;
} wl_sg_object;

/* A place and the preposition used to be there ("at the park", "in the forest"). */
typedef struct wl_sg_place {
    const char *noun, *prep;
} wl_sg_place;

/* One sentence of a stage: one of alts, written with probability pct (percent). */
typedef struct wl_sg_step {
    wl_sg_alts alts;
    unsigned pct;
} wl_sg_step;

typedef struct wl_sg_stage {
    const wl_sg_step *steps;
    size_t n;
} wl_sg_stage;

#define WL_SG_STAGE(arr) { arr, sizeof(arr) / sizeof((arr)[0]) }

/* A kind of problem: how it happens, how it is solved, and the lesson it teaches. */
typedef struct wl_sg_plot {
    wl_sg_stage problem, solve, moral;
} wl_sg_plot;

/* wl_storygen_words.c */
extern const wl_sg_list wl_sg_lists[];
extern const size_t wl_sg_nlists;
extern const wl_sg_alts wl_sg_girl_names, wl_sg_boy_names, wl_sg_pet_names, wl_sg_hero_animals,
    wl_sg_friend_animals, wl_sg_colours, wl_sg_sizes, wl_sg_towns;
extern const wl_sg_object wl_sg_objects[];
extern const size_t wl_sg_nobjects;
extern const wl_sg_place wl_sg_places[];
extern const size_t wl_sg_nplaces;

/* wl_storygen_plot.c */
extern const wl_sg_stage wl_sg_intro, wl_sg_belongs, wl_sg_setting, wl_sg_meeting, wl_sg_play,
    wl_sg_ending;
extern const wl_sg_alts wl_sg_events;
extern const wl_sg_stage wl_sg_fillers[];
extern const size_t wl_sg_nfillers;
extern const wl_sg_plot wl_sg_plots[];
extern const size_t wl_sg_nplots;

/* wl_storygen_bank.c: sentences written for the generator, in the style of children's stories,
 * with the same slots as the templates. */
extern const wl_sg_alts wl_sg_bank_open, wl_sg_bank_mid, wl_sg_bank_talk, wl_sg_bank_end;

#endif

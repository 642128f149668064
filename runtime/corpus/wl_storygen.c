/* wl_storygen.c: expands the story templates into deterministic children's stories (the embedded default corpus). */
#include "wl_storygen.h"
#include "wl_storygen_int.h"
#include "wl_corpus_split.h"

#include <stdlib.h>
#include <string.h>

/* One story being written: its random state, its text, and the cast and props chosen for it. */
typedef struct sg_story {
    uint64_t s[4];                       /* xoshiro256** state */
    char *buf;
    size_t len, cap;
    int oom;
    const char *bad;                     /* first unknown template slot, if any */
    size_t bad_len;
    int cap_next, end_pending, quote_open, article;
    int brief;                           /* a short story: optional sentences and scenes left out */
    int openers;                         /* sentences about a character may start with "Then," */
    const char *hero, *hero_kind, *friend, *friend_kind, *parent;
    int hero_female, friend_female, parent_female;
    const wl_sg_object *obj;
    const wl_sg_place *place;
    const char *colour, *size, *town, *animal, *body;
    char made_names[2][32];              /* invented names of the hero and the friend */
    const struct sg_lexicon *lex;        /* the words of sg_noise */
} sg_story;

#define SG_N(a) (sizeof(a) / sizeof((a)[0]))
/* Nesting of templates: from SG_DEPTH_CALM on, a draw from a word list takes its plainest entry (sg_draw), so that
 * the lists' circles end (one text in about 400,000 nested past it); past SG_DEPTH_MAX the tables are wrong. */
#define SG_DEPTH_CALM 12
#define SG_DEPTH_MAX 24
/* Percent of openings and of the middle's sentences taken from the bank of written sentences. */
#define SG_BANK_PCT 55
/* Percent of the texts that are a snippet of one to three sentences (sg_snippet), and percent of the snippets
 * that lose their last full stop: a reader scores a sentence of her own, often without one, and a model that
 * only ever saw whole stories gives the end of the text after one sentence a probability near zero. */
#define SG_SNIPPET_PCT 50
#define SG_SNIPPET_NODOT_PCT 20
/* Percent of the texts that are stories starting in the middle of things (two in five of the stories). */
#define SG_MIDDLE_PCT 21
/* sg_noise, in 1,000: words replaced by a word of any kind, punctuation marks replaced by a word or dropped,
 * commas dropped besides, and words that commas often precede (sg_before_comma) given a new comma before them. */
#define SG_NOISE_PERMILLE 250
#define SG_PUNCT_NOISE_PERMILLE 40
#define SG_COMMA_DROP_PERMILLE 150
#define SG_COMMA_ADD_PERMILLE 80
/* Draws of a training text's noise before it is left as written (sg_noise_train). */
#define SG_NOISE_TRIES 32

static uint64_t sg_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t sg_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t sg_next(sg_story *st)
{
    uint64_t *s = st->s;
    uint64_t r = sg_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t;
    s[3] = sg_rotl(s[3], 45);
    return r;
}

/* Uniform in [0, n) (n > 0); the modulo bias is negligible for these small n. */
static size_t sg_pick(sg_story *st, size_t n) { return (size_t)(sg_next(st) % n); }
static int sg_chance(sg_story *st, unsigned pct) { return sg_pick(st, 100) < pct; }
/* Long-tailed in [0, n): P(k) falls roughly like log(n / k), so late entries are rare. */
static size_t sg_pick_tail(sg_story *st, size_t n) { return sg_pick(st, sg_pick(st, n) + 1); }

/* Zipfian in [0, n): rank r = k + 1 lies in the octave [2^b, 2^(b+1)) for b drawn uniformly
 * (ranks past n are drawn again), so P(k) is about 1 / ((k + 1) * log2 n), integers only. */
static size_t sg_pick_zipf(sg_story *st, size_t n)
{
    unsigned bits = 0;
    while (bits < 63 && ((size_t)1 << bits) <= n) bits++;
    for (;;) {
        size_t lo = (size_t)1 << sg_pick(st, bits), r = lo + sg_pick(st, lo);
        if (r <= n) return r - 1;
    }
}

static size_t sg_pick_list(sg_story *st, const wl_sg_list *l)
{
    size_t n = l->words.n;
    if (l->tail == 2) return sg_chance(st, 15) ? sg_pick_zipf(st, n) : sg_pick(st, n);
    return l->tail ? sg_pick_tail(st, n) : sg_pick(st, n);
}

static void sg_raw(sg_story *st, char c)
{
    if (st->oom) return;
    if (st->len + 2 > st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 2048;
        char *p = realloc(st->buf, cap);
        if (!p) { st->oom = 1; return; }
        st->buf = p;
        st->cap = cap;
    }
    st->buf[st->len++] = c;
    st->buf[st->len] = '\0';
}

static int sg_is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static char sg_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* "an" before a vowel sound, judged from the spelling of the word at w. */
static int sg_wants_an(const char *w, size_t n)
{
    static const char *const a_words[] = {"uni", "use", "usu", "one", "eu"};
    static const char *const an_words[] = {"hour", "honest", "honor"};
    char low[8];
    size_t k = 0;
    for (; k < n && k < sizeof low - 1 && sg_is_alpha(w[k]); k++) low[k] = sg_lower(w[k]);
    low[k] = '\0';
    for (size_t i = 0; i < SG_N(a_words); i++)
        if (strncmp(low, a_words[i], strlen(a_words[i])) == 0) return 0;
    for (size_t i = 0; i < SG_N(an_words); i++)
        if (strncmp(low, an_words[i], strlen(an_words[i])) == 0) return 1;
    return strchr("aeiou", low[0]) != NULL && low[0];
}

/* Writes one character, capitalising the first letter of each sentence and of quoted speech. */
static void sg_put(sg_story *st, char c)
{
    if (sg_is_alpha(c)) {
        if (st->cap_next && c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
        st->cap_next = st->end_pending = 0;
    } else if (c == '.' || c == '!' || c == '?') {
        st->end_pending = 1;
    } else if (c == '"') {
        st->quote_open = !st->quote_open;
        if (st->quote_open) st->cap_next = 1;
        else st->end_pending = 0;   /* "Hi!" said Tim: no capital after the closing quote */
    } else if (c == ' ' || c == '\n') {
        if (st->end_pending) st->cap_next = 1;
        st->end_pending = 0;
    } else {
        st->end_pending = 0;
    }
    sg_raw(st, c);
}

/* Writes literal text; a pending {a} becomes "a " or "an " before the first word. */
static void sg_text(sg_story *st, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (st->article) {
            if (s[i] == ' ') continue;
            if (sg_is_alpha(s[i])) {
                int an = sg_wants_an(s + i, n - i);
                st->article = 0;
                sg_put(st, 'a');
                if (an) sg_put(st, 'n');
                sg_put(st, ' ');
            }
        }
        sg_put(st, s[i]);
    }
}

static void sg_expand(sg_story *st, const char *t, const char *end, int depth);

static void sg_expand_str(sg_story *st, const char *s, int depth)
{
    sg_expand(st, s, s + strlen(s), depth);
}

static const char *sg_subject(int female) { return female ? "she" : "he"; }
static const char *sg_object(int female) { return female ? "her" : "him"; }
static const char *sg_possessive(int female) { return female ? "her" : "his"; }

static int sg_is(const char *name, size_t n, const char *want)
{
    return strlen(want) == n && memcmp(name, want, n) == 0;
}

/* The entry of l with the fewest slots and alternatives (the first of them): where a draw nests too deep. */
static const char *sg_plainest(const wl_sg_list *l)
{
    const char *best = NULL;
    size_t fewest = (size_t)-1;
    for (size_t i = 0; i < l->words.n; i++) {
        size_t k = 0;
        for (const char *c = l->words.items[i]; *c; c++) k += *c == '{' || *c == '[';
        if (k < fewest) best = l->words.items[i], fewest = k;
    }
    return best;
}

/* A word drawn from the list called name[0..n), or NULL if there is no such list. A word list
 * with a part of speech gives, 30 times in 100, a word of another list of the same part of
 * speech instead: the odd word in an unusual place, so that a model meets every word after
 * many contexts, as in real text, while the sentence stays grammatical. The lists refer to one
 * another in circles (an object can hold a verb phrase that holds an object), so a draw nested
 * SG_DEPTH_CALM deep takes the list's plainest entry, which ends the circle (sg_plainest). */
static const char *sg_draw(sg_story *st, const char *name, size_t n, int depth)
{
    for (size_t i = 0; i < wl_sg_nlists; i++) {
        const wl_sg_list *l = &wl_sg_lists[i];
        if (!sg_is(name, n, l->name)) continue;
        if (depth >= SG_DEPTH_CALM) return sg_plainest(l);
        if (l->pos && sg_chance(st, 30)) {
            const wl_sg_list *o;
            do o = &wl_sg_lists[sg_pick(st, wl_sg_nlists)]; while (!o->pos || strcmp(o->pos, l->pos) != 0);
            l = o;
        }
        return l->words.items[sg_pick_list(st, l)];
    }
    return NULL;
}

/* Writes the value of the slot {name}: a story slot or a draw from a word list. */
static void sg_slot(sg_story *st, const char *name, size_t n, int depth)
{
    const char *v = NULL;
    if (sg_is(name, n, "a")) { st->article = 1; return; }
    if (sg_is(name, n, "^")) { st->cap_next = 1; return; }
    if (sg_is(name, n, "AT") || sg_is(name, n, "TO")) {
        sg_text(st, name[0] == 'A' ? st->place->prep : "to", name[0] == 'A' ? strlen(st->place->prep) : 2);
        sg_text(st, " the ", 5);
        sg_text(st, st->place->noun, strlen(st->place->noun));
        return;
    }
    if (sg_is(name, n, "N")) v = st->hero;
    else if (sg_is(name, n, "P")) v = sg_subject(st->hero_female);
    else if (sg_is(name, n, "O")) v = sg_object(st->hero_female);
    else if (sg_is(name, n, "D")) v = sg_possessive(st->hero_female);
    else if (sg_is(name, n, "R")) v = st->hero_female ? "herself" : "himself";
    else if (sg_is(name, n, "K")) v = st->hero_kind;
    else if (sg_is(name, n, "F")) v = st->friend;
    else if (sg_is(name, n, "FP")) v = sg_subject(st->friend_female);
    else if (sg_is(name, n, "FO")) v = sg_object(st->friend_female);
    else if (sg_is(name, n, "FD")) v = sg_possessive(st->friend_female);
    else if (sg_is(name, n, "FK")) v = st->friend_kind;
    else if (sg_is(name, n, "M")) v = st->parent;
    else if (sg_is(name, n, "MP")) v = sg_subject(st->parent_female);
    else if (sg_is(name, n, "MO")) v = sg_object(st->parent_female);
    else if (sg_is(name, n, "T")) v = st->obj->noun;
    else if (sg_is(name, n, "U")) v = st->obj->use;
    else if (sg_is(name, n, "UP")) v = st->obj->used;
    else if (sg_is(name, n, "UG")) v = st->obj->using;
    else if (sg_is(name, n, "C")) v = st->colour;
    else if (sg_is(name, n, "S")) v = st->size;
    else if (sg_is(name, n, "L")) v = st->place->noun;
    else if (sg_is(name, n, "W")) v = st->town;
    else if (sg_is(name, n, "X")) v = st->animal;
    else if (sg_is(name, n, "B")) v = st->body;
    else v = sg_draw(st, name, n, depth);
    if (!v) {
        if (!st->bad) { st->bad = name; st->bad_len = n; }
        return;
    }
    sg_expand_str(st, v, depth + 1);
    /* {sc} and {ac}: speech before its speaker ends in a comma, not a full stop ("I like it," said Tim). */
    if ((sg_is(name, n, "sc") || sg_is(name, n, "ac")) && st->len && st->buf[st->len - 1] == '.') {
        st->buf[st->len - 1] = ',';
        st->end_pending = 0;
    }
}

/* Expands the template t..end: alternatives [a|b], slots {name}, literal text. */
static void sg_expand(sg_story *st, const char *t, const char *end, int depth)
{
    if (depth > SG_DEPTH_MAX) { if (!st->bad) { st->bad = t; st->bad_len = (size_t)(end - t); } return; }
    while (t < end) {
        if (*t == '[') {
            const char *opts[32], *close = NULL;
            size_t nopt = 0;
            int level = 0;
            opts[nopt++] = t + 1;
            for (const char *q = t + 1; q < end && !close; q++) {
                if (*q == '[') level++;
                else if (*q == ']') { if (level == 0) close = q; else level--; }
                else if (*q == '|' && level == 0 && nopt < 32) opts[nopt++] = q + 1;
            }
            if (!close) { if (!st->bad) { st->bad = t; st->bad_len = (size_t)(end - t); } return; }
            size_t k = sg_pick(st, nopt);
            const char *oend = k + 1 < nopt ? opts[k + 1] - 1 : close;
            sg_expand(st, opts[k], oend, depth + 1);
            t = close + 1;
        } else if (*t == '{') {
            const char *close = memchr(t, '}', (size_t)(end - t));
            if (!close) { if (!st->bad) { st->bad = t; st->bad_len = (size_t)(end - t); } return; }
            sg_slot(st, t + 1, (size_t)(close - t - 1), depth);
            t = close + 1;
        } else {
            const char *q = t;
            while (q < end && *q != '[' && *q != '{') q++;
            sg_text(st, t, (size_t)(q - t));
            t = q;
        }
    }
}

/* Writes the template t as a new sentence (or a few), separated from the previous text by sep. */
static void sg_line(sg_story *st, const char *t, const char *sep)
{
    if (st->len) sg_text(st, sep, strlen(sep));
    st->cap_next = 1;
    st->quote_open = 0;
    st->article = 0;
    /* Varied openings keep long word sequences from repeating exactly across stories. */
    if (st->openers && (strncmp(t, "{N} ", 4) == 0 || strncmp(t, "{F} ", 4) == 0) && sg_chance(st, 20)) {
        sg_expand_str(st, "{opener}, ", 0);
    }
    sg_expand_str(st, t, 0);
}

/* Writes one sentence of alternatives, separated from the previous text by sep. */
static void sg_sentence(sg_story *st, const wl_sg_alts *alts, const char *sep)
{
    sg_line(st, alts->items[sg_pick(st, alts->n)], sep);
}

/* Writes len consecutive entries of a bank from a random one on: the bank's little scenes are
 * written as consecutive entries, so that a run reads on as a story does. */
static void sg_bank(sg_story *st, const wl_sg_alts *bank, size_t len, const char *sep)
{
    size_t k = sg_pick(st, bank->n);
    for (size_t i = 0; i < len; i++) sg_line(st, bank->items[(k + i) % bank->n], i == 0 ? sep : " ");
}

/* Writes a stage: its first step, then each later one with its probability times keep
 * percent (optional steps only outside short stories); the stage may start a new paragraph. */
static void sg_stage_keep(sg_story *st, const wl_sg_stage *stage, unsigned keep)
{
    const char *sep = sg_chance(st, 40) ? "\n\n" : " ";
    for (size_t i = 0; i < stage->n; i++) {
        const wl_sg_step *step = &stage->steps[i];
        if (i == 0 || ((step->pct >= 100 || !st->brief) && sg_chance(st, step->pct * keep / 100))) {
            sg_sentence(st, &step->alts, sep);
            sep = " ";
        }
    }
}

/* Cuts the story after any of its words outside quotes, as truncated stories end in
 * collections of generated stories (a model then learns that a story may stop after any
 * word, early or late, not only after a full stop). */
static void sg_cut(sg_story *st)
{
    size_t n = 0, k = 0;
    for (int pass = 0; pass < 2; pass++) {
        int open = 0;
        for (size_t i = 0; i < st->len; i++) {
            if (st->buf[i] == '"') open = !open;
            if (i < 24 || open || st->buf[i] != ' ' || !sg_is_alpha(st->buf[i - 1])) continue;
            if (pass == 0) n++;
            else if (k-- == 0) { st->buf[i] = '\0'; st->len = i; return; }
        }
        if (n == 0) return;
        k = sg_pick(st, n);
    }
}

/* Every word written literally in the generator's tables, once each (w[i][0..n[i]) points into
 * the tables; the words are compared in lower case; at is the order in which the tables name them). */
typedef struct sg_lexicon {
    struct sg_word { const char *w; size_t n, at; } *words;
    size_t count, cap;
} sg_lexicon;

static int sg_word_cmp(const void *a, const void *b)
{
    const struct sg_word *x = a, *y = b;
    for (size_t i = 0; i < x->n && i < y->n; i++) {
        int d = sg_lower(x->w[i]) - sg_lower(y->w[i]);
        if (d) return d;
    }
    return (x->n > y->n) - (x->n < y->n);
}

/* The lexicon's order: by word, and words equal in lower case by the order the tables name them, so that the one
 * kept of them is the first named, whatever the C library's qsort does with equal elements. */
static int sg_word_order(const void *a, const void *b)
{
    const struct sg_word *x = a, *y = b;
    int d = sg_word_cmp(a, b);
    return d ? d : (x->at > y->at) - (x->at < y->at);
}

/* Whether the word w[0..n) is "a" or "an" (either case). */
static int sg_is_article(const char *w, size_t n)
{
    return (n == 1 && sg_lower(w[0]) == 'a') || (n == 2 && sg_lower(w[0]) == 'a' && w[1] == 'n');
}

/* Length of the word at s (letters, with apostrophes inside: "don't"), 0 if none starts there. */
static size_t sg_word_len(const char *s, size_t n)
{
    size_t k = 0;
    while (k < n && (sg_is_alpha(s[k]) || (s[k] == '\'' && k > 0 && k + 1 < n && sg_is_alpha(s[k + 1])))) k++;
    return k;
}

/* Adds the literal words of template t (slot names in braces left out); -1 when out of memory. */
static int sg_lex_add(sg_lexicon *lx, const char *t)
{
    size_t n = strlen(t);
    for (size_t i = 0; i < n;) {
        if (t[i] == '{') {
            const char *close = strchr(t + i, '}');
            i = close ? (size_t)(close - t) + 1 : n;
            continue;
        }
        size_t k = sg_word_len(t + i, n - i);
        if (k == 0) { i++; continue; }
        /* "a" and "an" are left out: the odd word must not break the rule of the articles */
        if (sg_is_article(t + i, k)) { i += k; continue; }
        if (lx->count == lx->cap) {
            size_t cap = lx->cap ? lx->cap * 2 : 4096;
            struct sg_word *p = realloc(lx->words, cap * sizeof *p);
            if (!p) return -1;
            lx->words = p;
            lx->cap = cap;
        }
        lx->words[lx->count] = (struct sg_word){t + i, k, lx->count};
        lx->count++;
        i += k;
    }
    return 0;
}

static int sg_lex_add_alts(sg_lexicon *lx, const wl_sg_alts *a)
{
    for (size_t i = 0; i < a->n; i++)
        if (sg_lex_add(lx, a->items[i]) != 0) return -1;
    return 0;
}

static int sg_lex_add_stage(sg_lexicon *lx, const wl_sg_stage *stage)
{
    for (size_t i = 0; i < stage->n; i++)
        if (sg_lex_add_alts(lx, &stage->steps[i].alts) != 0) return -1;
    return 0;
}

/* Frees the lexicon's array. */
static void sg_lex_free(sg_lexicon *lx) { free(lx->words); }

/* Collects the words of every table, sorted and each kept once; -1 when out of memory. */
static int sg_lex_build(sg_lexicon *lx)
{
    const wl_sg_alts *alts[] = {&wl_sg_girl_names, &wl_sg_boy_names, &wl_sg_pet_names, &wl_sg_hero_animals,
        &wl_sg_friend_animals, &wl_sg_colours, &wl_sg_sizes, &wl_sg_towns, &wl_sg_events, &wl_sg_bank_open,
        &wl_sg_bank_mid, &wl_sg_bank_talk, &wl_sg_bank_end};
    const wl_sg_stage *stages[] = {&wl_sg_intro, &wl_sg_belongs, &wl_sg_setting, &wl_sg_meeting, &wl_sg_play,
        &wl_sg_ending};
    int rc = 0;
    for (size_t i = 0; i < SG_N(alts); i++) rc |= sg_lex_add_alts(lx, alts[i]);
    for (size_t i = 0; i < SG_N(stages); i++) rc |= sg_lex_add_stage(lx, stages[i]);
    for (size_t i = 0; i < wl_sg_nfillers; i++) rc |= sg_lex_add_stage(lx, &wl_sg_fillers[i]);
    for (size_t i = 0; i < wl_sg_nplots; i++)
        rc |= sg_lex_add_stage(lx, &wl_sg_plots[i].problem) | sg_lex_add_stage(lx, &wl_sg_plots[i].solve) |
              sg_lex_add_stage(lx, &wl_sg_plots[i].moral);
    for (size_t i = 0; i < wl_sg_nlists; i++) rc |= sg_lex_add_alts(lx, &wl_sg_lists[i].words);
    for (size_t i = 0; i < wl_sg_nobjects; i++) {
        const wl_sg_object *o = &wl_sg_objects[i];
        rc |= sg_lex_add(lx, o->noun) | sg_lex_add(lx, o->use) | sg_lex_add(lx, o->used) | sg_lex_add(lx, o->using);
    }
    for (size_t i = 0; i < wl_sg_nplaces; i++)
        rc |= sg_lex_add(lx, wl_sg_places[i].noun) | sg_lex_add(lx, wl_sg_places[i].prep);
    if (rc != 0 || lx->count == 0) return -1;
    qsort(lx->words, lx->count, sizeof *lx->words, sg_word_order);
    size_t m = 1;
    for (size_t i = 1; i < lx->count; i++)
        if (sg_word_cmp(&lx->words[i], &lx->words[m - 1]) != 0) lx->words[m++] = lx->words[i];
    lx->count = m;
    return 0;
}

/* A word for sg_noise, never an article: a word of the lexicon drawn uniformly, so that every word
 * the tables know has the same small floor after every context and no common word becomes the
 * likeliest continuation of a context that is followed by many different rare words ("a boy
 * named" is followed by hundreds of names); after "a" it starts with a consonant sound and after
 * "an" with a vowel (after is 1 or 2); NULL if none fits. */
static const char *sg_noise_word(sg_story *st, int after, size_t *len)
{
    for (int tries = 0; tries < 16; tries++) {
        const struct sg_word *x = &st->lex->words[sg_pick(st, st->lex->count)];
        if (sg_is_article(x->w, x->n) || (after && (after == 2) != sg_wants_an(x->w, x->n))) continue;
        *len = x->n;
        return x->w;
    }
    return NULL;
}

/* Writes the noise word w[0..k), in lower case or with a capital. */
static void sg_noise_put(sg_story *st, const char *w, size_t k, int upper)
{
    for (size_t j = 0; j < k; j++) {
        char c = sg_lower(w[j]);
        sg_raw(st, upper && j == 0 && c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c);
    }
}

/* Whether the word at s is one that writers often put a comma before ("and", "but", "then", ...):
 * sg_noise adds its odd commas there only, never between a word and its name or object. */
static int sg_before_comma(const char *s, size_t n)
{
    static const char *const words[] = {"and", "but", "so", "then", "because", "when", "who", "too", "please",
        "now", "again", "with", "after", "while", "or", "until", "if", "just", "maybe", "today", "instead"};
    size_t k = sg_word_len(s, n);
    for (size_t i = 0; i < SG_N(words); i++)
        if (strlen(words[i]) == k && strncmp(s, words[i], k) == 0) return 1;
    return 0;
}

/* Noise over a training text (sg_noise_train), at every token: real text puts almost any token after almost any
 * context now and then, and a model trained on text that never does gives that token a probability near zero in
 * natural text. SG_NOISE_PERMILLE words in 1,000 become another word (sg_noise_word; after "a" or "an" one that
 * agrees with it) and SG_PUNCT_NOISE_PERMILLE punctuation marks in 1,000 (not quotes, an ellipsis or the text's
 * last) become a word or go; a comma goes more often and one is sometimes put before a word that commas often
 * precede, as the writers of real stories place commas differently. A replaced word keeps its capital. */
static void sg_noise(sg_story *st)
{
    char *src = malloc(st->len + 1);
    if (!src) { st->oom = 1; return; }
    memcpy(src, st->buf, st->len + 1);
    size_t n = st->len, prev_len = 0;
    const char *prev = "";
    st->len = 0;
    st->cap_next = st->end_pending = st->quote_open = st->article = 0;
    for (size_t i = 0; i < n;) {
        size_t k = i + sg_word_len(src + i, n - i), wl = 0;
        const char *w;
        if (k == i && (src[i] == ' ' || src[i] == '\n')) { sg_raw(st, src[i++]); continue; }
        /* quotes stay paired, an ellipsis and the text's last mark stay whole */
        int dots = src[i] == '.' && ((i > 0 && src[i - 1] == '.') || src[i + 1] == '.');
        if (k == i && (src[i] == '"' || dots || i + 1 == n)) { sg_raw(st, src[i++]); prev_len = 0; continue; }
        if (k == i) {
            /* a punctuation mark: kept, dropped, or a word in its place */
            size_t r = sg_pick(st, 1000);
            if (r < SG_PUNCT_NOISE_PERMILLE && (w = sg_noise_word(st, 0, &wl)) != NULL) {
                if (st->len && st->buf[st->len - 1] != ' ' && st->buf[st->len - 1] != '\n') sg_raw(st, ' ');
                sg_noise_put(st, w, wl, 0);
                if (i + 1 < n && src[i + 1] != ' ' && src[i + 1] != '\n') sg_raw(st, ' ');
            } else if (r >= SG_PUNCT_NOISE_PERMILLE + (src[i] == ',' ? SG_COMMA_DROP_PERMILLE : 0)) {
                sg_raw(st, src[i]);
            } else if (st->len && st->buf[st->len - 1] == ' ' && i + 1 < n && src[i + 1] == ' ') {
                i++;   /* the mark between two spaces goes with one of them */
            }
            i++;
            prev_len = 0;
            continue;
        }
        int after = prev_len == 1 && sg_lower(prev[0]) == 'a' ? 1 : sg_is_article(prev, prev_len) ? 2 : 0;
        if (sg_pick(st, 1000) < SG_NOISE_PERMILLE && (w = sg_noise_word(st, after, &wl)) != NULL) {
            sg_noise_put(st, w, wl, src[i] >= 'A' && src[i] <= 'Z');
        } else {
            for (size_t j = i; j < k; j++) sg_raw(st, src[j]);
        }
        int comma_ok = k < n && src[k] == ' ' && !after && sg_before_comma(src + k + 1, n - k - 1);
        if (comma_ok && sg_pick(st, 1000) < SG_COMMA_ADD_PERMILLE) sg_raw(st, ',');
        prev = src + i;
        prev_len = k - i;
        i = k;
    }
    free(src);
}

/* Writes n free sentences; the first may start a new paragraph. */
static void sg_stage(sg_story *st, const wl_sg_stage *stage) { sg_stage_keep(st, stage, 10); }

/* Writes about n sentences of the story's middle: runs of the bank's narration and dialogue
 * (SG_BANK_PCT in 100) or sentences of the grammar. */
static void sg_events(sg_story *st, size_t n)
{
    for (size_t k = 0; k < n;) {
        const char *sep = k == 0 && sg_chance(st, 40) ? "\n\n" : " ";
        if (sg_chance(st, SG_BANK_PCT)) {
            size_t len = 1 + sg_pick(st, 3);
            sg_bank(st, sg_chance(st, 55) ? &wl_sg_bank_mid : &wl_sg_bank_talk, len, sep);
            k += len;
        } else {
            sg_sentence(st, &wl_sg_events, sep);
            k++;
        }
    }
}

/* Invents a name from syllables ("Korabina", "Tulan"): these are the rare words of the
 * corpus, mostly seen in one story only, as the rarest names of real story collections are. */
static const char *sg_invent_name(sg_story *st, int female, char *out)
{
    static const char *const onset[] = {"b", "d", "f", "g", "j", "k", "l", "m", "n", "p", "r",
        "s", "t", "v", "z", "b", "d", "k", "l", "m", "n", "r", "t", "br", "ch", "fl", "sh", "tr"};
    static const char *const vowel[] = {"a", "e", "i", "o", "u", "a", "e", "i", "o", "a"};
    static const char *const girl_end[] = {"a", "ia", "ina", "elle", "ette", "i", "y", "ora",
        "ella", "isa", "ine", "ara", "ie", "en"};
    static const char *const boy_end[] = {"o", "an", "us", "er", "el", "or", "on", "ick", "as",
        "en", "im", "ald", "ey", "ix"};
    size_t nsyl = 1 + (sg_pick(st, 3) == 0);
    out[0] = '\0';
    for (size_t i = 0; i < nsyl; i++) {
        strcat(out, onset[sg_pick(st, SG_N(onset))]);
        strcat(out, vowel[sg_pick(st, SG_N(vowel))]);
    }
    strcat(out, onset[sg_pick(st, SG_N(onset))]);
    strcat(out, female ? girl_end[sg_pick(st, SG_N(girl_end))] : boy_end[sg_pick(st, SG_N(boy_end))]);
    out[0] = (char)(out[0] - 'a' + 'A');
    return out;
}

/* A name for a character: mostly from the lists (half uniformly, half by Zipf's law, so that a
 * few names are common, as "Lily" and "Tim" are in children's stories, and a model that reads
 * "a girl named" expects a name rather than a common word), sometimes invented. which is 0 for
 * the hero, 1 for the friend. */
static const char *sg_name(sg_story *st, int female, int pet, int which)
{
    if (sg_chance(st, 25)) return sg_invent_name(st, female, st->made_names[which]);
    const wl_sg_alts *a = pet ? &wl_sg_pet_names : female ? &wl_sg_girl_names : &wl_sg_boy_names;
    return a->items[sg_chance(st, 50) ? sg_pick(st, a->n) : sg_pick_zipf(st, a->n)];
}

/* A snippet: one to three sentences from anywhere in a story (the bank's narration, dialogue or
 * openings, or the grammar's events), as a reader types a sentence of her own; sometimes without
 * its last full stop. */
static void sg_snippet(sg_story *st)
{
    size_t n = 1 + sg_pick(st, 3), r = sg_pick(st, 100);
    if (r < 15) {
        for (size_t k = 0; k < n; k++) sg_sentence(st, &wl_sg_events, k ? " " : "");
    } else sg_bank(st, r < 35 ? &wl_sg_bank_talk : r < 75 ? &wl_sg_bank_mid : &wl_sg_bank_open, n, "");
    if (st->oom) return;
    int full_stop = st->len > 1 && st->buf[st->len - 1] == '.' && st->buf[st->len - 2] != '.';   /* not an ellipsis */
    if (!st->oom && full_stop && sg_chance(st, SG_SNIPPET_NODOT_PCT)) st->buf[--st->len] = '\0';
}

/* Chooses the cast and props of a story (st's random state seeded), then writes it. */
static void sg_write(sg_story *st)
{
    st->hero_female = sg_chance(st, 50);
    if (sg_chance(st, 25)) {
        st->hero_kind = wl_sg_hero_animals.items[sg_pick_tail(st, wl_sg_hero_animals.n)];
        st->hero = sg_name(st, st->hero_female, sg_chance(st, 50), 0);
    } else {
        st->hero_kind = st->hero_female ? "girl" : "boy";
        st->hero = sg_name(st, st->hero_female, 0, 0);
    }
    st->friend_female = sg_chance(st, 50);
    int friend_pet = sg_chance(st, 30);
    st->friend_kind = friend_pet ? wl_sg_friend_animals.items[sg_pick_tail(st, wl_sg_friend_animals.n)]
                                 : st->friend_female ? "girl" : "boy";
    do st->friend = sg_name(st, st->friend_female, friend_pet && sg_chance(st, 60), 1);
    while (strcmp(st->friend, st->hero) == 0);
    static const struct { const char *name; int female; } parents[] = {{"mom", 1}, {"dad", 0}, {"mom", 1},
        {"dad", 0}, {"mom", 1}, {"grandma", 1}, {"grandpa", 0}, {"mother", 1}, {"father", 0}, {"mommy", 1},
        {"daddy", 0}};
    size_t p = sg_pick(st, SG_N(parents));
    st->parent = parents[p].name;
    st->parent_female = parents[p].female;

    st->obj = &wl_sg_objects[sg_pick_tail(st, wl_sg_nobjects)];
    st->colour = wl_sg_colours.items[sg_pick_tail(st, wl_sg_colours.n)];
    st->size = wl_sg_sizes.items[sg_pick_tail(st, wl_sg_sizes.n)];
    st->place = &wl_sg_places[sg_pick_tail(st, wl_sg_nplaces)];
    st->town = wl_sg_towns.items[sg_pick_tail(st, wl_sg_towns.n)];
    st->animal = sg_draw(st, "animal", 6, 0);
    st->body = sg_draw(st, "body", 4, 0);
    const wl_sg_plot *plot = &wl_sg_plots[sg_pick(st, wl_sg_nplots)];
    st->brief = sg_chance(st, 25);

    /* Half the texts are a snippet of one to three sentences (sg_snippet); of the stories, two in five start
     * in the middle of things, as many stories do, and the others have an opening. */
    size_t start = sg_pick(st, 100);
    if (start < SG_SNIPPET_PCT) {
        sg_snippet(st);
        return;
    }
    if (start < SG_SNIPPET_PCT + SG_MIDDLE_PCT) {
        /* the count is drawn before the bank: C leaves the order of a call's arguments to the compiler */
        size_t n = 1 + sg_pick(st, 3);
        sg_bank(st, sg_chance(st, 60) ? &wl_sg_bank_mid : &wl_sg_bank_talk, n, "");
    } else if (sg_chance(st, SG_BANK_PCT)) sg_bank(st, &wl_sg_bank_open, 1, "");
    else {
        sg_stage(st, &wl_sg_intro);
        sg_stage(st, &wl_sg_belongs);
    }
    if (sg_chance(st, 30)) sg_stage(st, &wl_sg_setting);
    sg_stage(st, &wl_sg_meeting);
    st->openers = 1;
    if (sg_chance(st, 5)) sg_stage(st, &wl_sg_play);
    sg_events(st, st->brief ? 16 + sg_pick(st, 3) : 18 + sg_pick(st, 3));
    /* Zero (90%), one (8%) or two (2%) short scenes, in a random order. */
    size_t r = sg_pick(st, 100), nfill = r < 90 || st->brief ? 0 : r < 98 ? 1 : 2, used = 0;
    for (size_t k = 0; k < nfill; k++) {
        size_t f = sg_pick(st, wl_sg_nfillers);
        if (used & ((size_t)1 << f)) continue;
        used |= (size_t)1 << f;
        sg_stage(st, &wl_sg_fillers[f]);
    }
    /* A problem and its solution in 45% of the stories; more free sentences in the others. */
    if (sg_chance(st, 45)) {
        sg_stage_keep(st, &plot->problem, 5);
        sg_stage_keep(st, &plot->solve, 5);
        sg_events(st, 1 + sg_pick(st, 2));
    } else {
        sg_events(st, 4 + sg_pick(st, 3));
    }
    /* The old ending stage, a last sentence from the grammar ({end}: "happily ever after", a
     * moral, ...) or none; then, sometimes, the plot's own moral. */
    const wl_sg_alts last = WL_SG_ALTS("{end}");
    size_t e = sg_pick(st, 100);
    if (e < 15) sg_stage(st, &wl_sg_ending);
    else if (e < 45) sg_sentence(st, &last, sg_chance(st, 40) ? "\n\n" : " ");
    else if (e < 90) {
        const char *sep = sg_chance(st, 40) ? "\n\n" : " ";   /* drawn before the count, as above */
        sg_bank(st, &wl_sg_bank_end, 1 + (size_t)sg_chance(st, 30), sep);
    }
    if (sg_chance(st, 15)) sg_stage(st, &plot->moral);
    if (sg_chance(st, 4) && !st->oom) sg_cut(st);
}

void wl_storygen_free(char **texts, size_t count)
{
    if (!texts) return;
    for (size_t i = 0; i < count; i++) free(texts[i]);
    free(texts);
}

int wl_storygen_generate(uint64_t seed, size_t count, char ***texts, wl_err *err)
{
    return wl_storygen_generate_interruptible(seed, count, NULL, texts, err);
}

/* Seeds st's random state for text `index`; salt tells the draws of its writing from those of its noise. */
static void sg_seed(sg_story *st, uint64_t seed, size_t index, uint64_t salt)
{
    uint64_t x = seed ^ salt;
    x = sg_splitmix(&x) ^ ((uint64_t)index * 0xD1B54A32D192ED03ULL);
    for (int i = 0; i < 4; i++) st->s[i] = sg_splitmix(&x);
}

/* Whether the text t[0..n) falls in the training split (the corpus's rule: a hash of the text); -1 on failure. */
static int sg_is_train(const char *t, size_t n, wl_err *err)
{
    char id[WL_DOC_ID_LEN + 1];
    wl_split split;
    if (wl_corpus_doc_info(t, n, id, &split, err)) return -1;
    return split == WL_TRAIN;
}

/* Puts the noise into st's text where it falls in the training split (sg_noise), drawn again until the noisy text
 * falls there too (the split is a hash of the text: four in five draws stay); a text whose every draw leaves the
 * split stays as written. Validation and test texts get none, so that their perplexity measures a model on the
 * stories as written. The noise has its own random state, so that a text's words do not depend on it. -1 on
 * failure. */
static int sg_noise_train(sg_story *st, uint64_t seed, size_t index, wl_err *err)
{
    int train = sg_is_train(st->buf, st->len, err);
    if (train <= 0) return train;
    char *clean = malloc(st->len + 1);
    if (!clean) return wl_fail(err, "storygen: out of memory keeping story %zu", index);
    size_t len = st->len;
    memcpy(clean, st->buf, len + 1);
    sg_seed(st, seed, index, 0x2545F4914F6CDD1DULL);
    for (int tries = 0; tries < SG_NOISE_TRIES; tries++) {
        sg_noise(st);
        if (st->oom || (train = sg_is_train(st->buf, st->len, err)) != 0) break;
        memcpy(st->buf, clean, len + 1);   /* the buffer only ever grows */
        st->len = len;
    }
    free(clean);
    return train < 0 ? -1 : 0;
}

int wl_storygen_generate_interruptible(uint64_t seed, size_t count, volatile sig_atomic_t *interrupt, char ***texts,
                                       wl_err *err)
{
    if (!texts) return wl_fail(err, "storygen: the output pointer for %zu stories is NULL", count);
    *texts = NULL;
    char **out = calloc(count ? count : 1, sizeof *out);
    if (!out) return wl_fail(err, "storygen: out of memory allocating %zu stories", count);
    sg_lexicon lex = {0};
    if (sg_lex_build(&lex) != 0) {
        sg_lex_free(&lex);
        free(out);
        return wl_fail(err, "storygen: out of memory collecting the words of the tables");
    }
    /* Each story is written into one reused buffer, then copied out at its exact size. */
    sg_story st;
    memset(&st, 0, sizeof st);
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        if (interrupt && *interrupt) {
            rc = wl_fail(err, "storygen: interrupted after %zu of %zu stories", i, count);
            break;
        }
        char *buf = st.buf;
        size_t cap = st.cap;
        memset(&st, 0, sizeof st);
        st.buf = buf;
        st.cap = cap;
        st.lex = &lex;
        sg_seed(&st, seed, i, 0x5851F42D4C957F2DULL);
        sg_write(&st);
        int n = st.bad_len > 60 ? 60 : (int)st.bad_len;
        if (st.bad) rc = wl_fail(err, "storygen: bad template text \"%.*s\" in story %zu", n, st.bad, i);
        else if (!st.oom && sg_noise_train(&st, seed, i, err)) rc = -1;
        else if (st.oom || !(out[i] = malloc(st.len + 1))) rc = wl_fail(err, "storygen: out of memory writing story %zu", i);
        else memcpy(out[i], st.buf, st.len + 1);
    }
    free(st.buf);
    sg_lex_free(&lex);
    if (rc) {
        wl_storygen_free(out, count);
        return -1;
    }
    *texts = out;
    return 0;
}

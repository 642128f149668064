/* lang_objs.h: the value types of the runtime commands (vocab, corpus, model, ids, tensor), shared by the cmd_*.c files. */
#ifndef WL_LANG_OBJS_H
#define WL_LANG_OBJS_H

/* wl_corpus.h before wl_model.h: the first declares WL_PAD... as enum constants, the second as macros. */
#include "wl_corpus.h"
#include "wl_model.h"

#include "wl_cmd.h"

/* A vocabulary: either its own (loaded from vocab.json) or borrowed from the corpus value that owns it. */
typedef struct lang_vocab {
    wl_value *owner;      /* the corpus value holding v, or NULL when own is used */
    const wl_vocab *v;
    wl_vocab own;
} lang_vocab;

typedef struct lang_corpus {
    wl_corpus c;
    uint64_t seed;        /* generator seed (0 for a file) */
    int generated;
    wl_windows win[WL_NSPLITS];
    int have_win[WL_NSPLITS];
} lang_corpus;

typedef struct lang_model {
    wl_model m;
    uint64_t seed;
    int selected_step;    /* of the last training run or checkpoint (0: untrained) */
    double test_loss;     /* NaN when unknown */
    long steps_trained;
    wl_value *vocab;      /* a vocab value, or NULL when only the size is known */
    char *source;         /* "model new" or the checkpoint path (malloc'd) */
    char vocab_from[64];  /* where a loaded model's vocabulary came from ("" when it was given with the model) */
} lang_model;

typedef struct lang_ids {
    int32_t *ids;         /* [T] */
    int T, nreal;         /* nreal: ids after the left padding */
    int cropped;          /* ids dropped from the left to fit T */
    wl_value *vocab;      /* vocab value or NULL */
} lang_ids;

#define LANG_TENSOR_MAXDIM 4
typedef struct lang_tensor {
    char name[32];
    int ndim;
    int shape[LANG_TENSOR_MAXDIM];
    size_t n;
    float *data;
} lang_tensor;

extern const wl_objtype lang_vocab_type, lang_corpus_type, lang_model_type, lang_ids_type, lang_tensor_type;

/* The split that option split= names (def when it is absent): 0, or -1 with an ArgumentError on the option. */
int lang_opt_split(wl_call *c, const char *def, wl_split *s);

/* A vocab value over v kept alive by owner (a new reference is taken), or owning *own (moved). */
wl_value *lang_vocab_value(wl_value *owner, const wl_vocab *v);
wl_value *lang_vocab_value_own(wl_vocab *own);
/* The vocab value reachable from v (a vocab, a corpus, a model that has one, or a path to vocab.json):
 * a new reference, or NULL with an error on c naming word. */
wl_value *lang_vocab_from(wl_call *c, wl_value *v, int word);
/* The wl_vocab inside a vocab value. */
const wl_vocab *lang_vocab_get(const wl_value *vocab_value);
/* path as saved outputs show it: a bundled file as share/artifacts/NAME (the project's own place for it, not the
 * machine's absolute path), anything else as given; malloc'd. */
char *lang_path_shown(const wl_interp *in, const char *path);
/* The story that split= (default test) and story=N (1-based, default 1) choose in lc; NULL with an error. */
const wl_story *lang_corpus_story(wl_call *c, const lang_corpus *lc, wl_split *split);
/* What every error about a model without a vocabulary says. */
#define LANG_NO_VOCAB "this model has no vocabulary: give one when loading it (model load PATH vocab=V, where V is a " \
                      "vocab.json path, a vocab or a corpus)"
/* The vocabulary a command reads text with for model lm: its vocab= option when given (the size must be the
 * model's), else the model's own. A new reference, or NULL with an error that says how to give one. */
wl_value *lang_model_vocab(wl_call *c, const lang_model *lm);

/* A tensor value copying data [prod(shape)]. */
wl_value *lang_tensor_value(const char *name, const float *data, int ndim, const int *shape);

/* Encodes tokens into a left-padded context of T ids that starts with BOS (cropped from the left). */
wl_value *lang_ids_value(const int32_t *history, int nhistory, int T, wl_value *vocab);

/* `corpus source=tinystories [cache=DIR]`: the course's TinyStories subset for profile prof (fetched or from the
 * cache, with a live page display) built into *c. lang_tinystories.c */
int lang_tinystories_corpus(wl_call *c, const wl_profile *prof, wl_corpus *out);

/* The interrupt flag of the call's sink (NULL when there is none). */
volatile sig_atomic_t *lang_interrupt(wl_call *c);

/* Token text of id, or "?" when out of range. */
const char *lang_token(const wl_vocab *v, int32_t id);

#endif

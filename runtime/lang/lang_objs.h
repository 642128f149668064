/* lang_objs.h: the language's value types (lang_<type>.c) and the helpers the cmd_*.c files share. */
#ifndef WL_LANG_OBJS_H
#define WL_LANG_OBJS_H

#include "wl_cache.h"
#include "wl_corpus.h"
#include "wl_generate.h"
#include "wl_model.h"
#include "wl_seq.h"
#include "wl_train.h"

#include "wl_cmd.h"

/* ---- vocab values (lang_vocab.c) ---- */

/* A vocabulary: either its own (loaded from vocab.json) or borrowed from the corpus value that owns it. */
typedef struct lang_vocab {
    wl_value *owner;      /* the corpus value holding v, or NULL when own is used */
    const wl_vocab *v;
    wl_vocab own;
} lang_vocab;

extern const wl_objtype lang_vocab_type;

/* A vocab value over v kept alive by owner (a new reference is taken), or owning *own (moved). */
wl_value *lang_vocab_value(wl_value *owner, const wl_vocab *v);
wl_value *lang_vocab_value_own(wl_vocab *own);
/* The vocab value reachable from v (a vocab, a corpus, a model that has one, or a path to vocab.json):
 * a new reference, or NULL with an error on c naming word. */
wl_value *lang_vocab_from(wl_call *c, wl_value *v, int word);
/* The wl_vocab inside a vocab value. */
const wl_vocab *lang_vocab_get(const wl_value *vocab_value);
/* 0 when vocabulary b is the model's vocabulary a word for word; else an ArgumentError at argument word that names
 * the first id where they differ (a vocabulary of the same size with other words would score scrambled ids).
 * b_name says whose b is ("this corpus's"). */
int lang_vocab_check(wl_call *c, const wl_vocab *a, const wl_vocab *b, int word, const char *b_name);
/* Token text of id, or "?" when out of range. */
const char *lang_token(const wl_vocab *v, int32_t id);

/* ---- ids values (lang_ids.c) ---- */

typedef struct lang_ids {
    int32_t *ids;         /* [T] */
    int T, nreal;         /* nreal: ids after the left padding */
    int cropped;          /* ids dropped from the left to fit T */
    wl_value *vocab;      /* vocab value or NULL */
} lang_ids;

extern const wl_objtype lang_ids_type;

/* The context of T ids that ends history [nhistory] (wl_context_window: cropped from the left, left-padded). */
wl_value *lang_ids_value(const int32_t *history, int nhistory, int T, wl_value *vocab);
/* When tokenizing dropped characters (é, 日: the course's tokenizer reads words of a-z only), says so on stderr. */
void lang_note_dropped(wl_call *c, const wl_tokens *t);
/* The tokens of argument i: a list of strings (from `tokenize`), or text (a number's text) tokenized, with the note
 * above. Fills t (free with wl_tokens_free). Returns 0, or -1 with an error on c and nothing to free. lang_ids.c */
int lang_tokens_arg(wl_call *c, int i, wl_tokens *t);
/* When <BOS> and ntokens tokens are more than the model's context, says which ids it does not read. */
void lang_note_cropped(wl_call *c, size_t ntokens);

/* ---- corpus values (lang_corpus.c) ---- */

typedef struct lang_corpus {
    wl_corpus c;
    uint64_t seed;        /* generator seed (0 for a file) */
    int generated;
    int brief;            /* shown as one line (audit=0), the audit table only as .audit */
    wl_windows win[WL_NSPLITS];
    int have_win[WL_NSPLITS];
    char *cache_name;     /* what the shared cache names this corpus by (a generated one), or NULL */
    wl_cache_entry entry; /* the packed corpus that c points into, when cache_name is set */
    wl_cache_entry win_entry[WL_NSPLITS];   /* the windows that win points into, when cache_name is set */
} lang_corpus;

extern const wl_objtype lang_corpus_type;

/* The split that option split= names (def when it is absent): 0, or -1 with an ArgumentError on the option. */
int lang_opt_split(wl_call *c, const char *def, wl_split *s);
/* The story that split= (default test) and story=N (1-based, default 1) choose in lc; NULL with an error. */
const wl_story *lang_corpus_story(wl_call *c, const lang_corpus *lc, wl_split *split);
/* The windows of split s of lc, made on first use and kept in lc. */
int lang_corpus_windows(wl_call *c, lang_corpus *lc, wl_split s, wl_window_set *out);

/* `corpus source=tinystories [cache=DIR]`: the course's TinyStories subset for profile prof (fetched or from the
 * cache, with a live page display) built into *c. lang_tinystories.c */
int lang_tinystories_corpus(wl_call *c, const wl_profile *prof, wl_corpus *out);

/* ---- the shared cache (lang_cache.c): each honours the command's shared=off and the interpreter's folder ---- */

/* The generated corpus of prof and seed into lc: from the cache (lc->c points into its mapping, lc->cache_name set),
 * or generated here when there is no cache. */
int lang_cache_corpus(wl_call *c, const wl_profile *prof, uint64_t seed, lang_corpus *lc);
/* The windows of split s of a cached corpus (lc->cache_name set) into lc->win[s], pointing into lc->win_entry[s]. */
int lang_cache_windows(wl_call *c, lang_corpus *lc, wl_split s);

/* ---- model values (lang_model.c) ---- */

typedef struct lang_model {
    wl_model m;
    uint64_t seed;
    int selected_step;    /* of the last training run or checkpoint (0: untrained) */
    double test_loss;     /* NaN when unknown */
    long steps_trained;
    wl_value *vocab;      /* a vocab value, or NULL when only the size is known */
    char *source;         /* "model new" or the checkpoint path (malloc'd) */
    char vocab_from[64];  /* where a loaded model's vocabulary came from ("" when it was given with the model) */
    char checkpoint_sha[65];   /* the SHA-256 of the checkpoint file it was loaded from while its weights are that
                                  file's and a shared cache is in use, else "" */
    wl_cache_entry params;     /* the loaded weights, shared copy-on-write, that m.params points into (if any) */
} lang_model;

extern const wl_objtype lang_model_type;

/* An empty model record (test_loss NaN) for wl_model_init or wl_checkpoint_load to fill. */
lang_model *lang_model_new(void);
/* What every error about a model without a vocabulary says. */
#define LANG_NO_VOCAB "this model has no vocabulary: give one when loading it (model load PATH vocab=V, where V is a " \
                      "vocab.json path, a vocab or a corpus)"
/* The vocabulary a command reads text with for model lm: its vocab= option when given (the size must be the
 * model's), else the model's own. A new reference, or NULL with an error that says how to give one. */
wl_value *lang_model_vocab(wl_call *c, const lang_model *lm);
/* wl_evaluate of lm over w (split s of lc), from the cache when lm is an unchanged checkpoint and lc a cached
 * corpus, else computed. */
int lang_cache_evaluate(wl_call *c, const lang_model *lm, const lang_corpus *lc, wl_split s, const wl_window_set *w,
                        int batch, double *loss, double *ppl);
/* When the interpreter has a shared cache: sets lm->checkpoint_sha from the file at path and moves lm's weights into
 * the cache, mapped copy-on-write (lang_cache.c). */
int lang_cache_checkpoint(wl_call *c, const char *path, lang_model *lm);
/* The model and the corpus arguments (0 and 1), checked to agree on the vocabulary: word for word when the model has
 * one, else its size. */
int lang_model_and_corpus(wl_call *c, lang_model **lm, lang_corpus **lc);

/* 0 when every id of li is inside lm's vocabulary and li's vocabulary (if it has one) is vocab (if given); else an
 * ArgumentError at argument word naming the bad id or the first word that differs. lang_ids.c */
int lang_ids_check(wl_call *c, const lang_ids *li, const lang_model *lm, const wl_value *vocab, int word);
/* What argument 1 (text, a token list, or ids from `encode`) gives model lm to read: *hist [1 + toks->n + 1] holds <BOS>
 * and the ids (the last slot is free for an <EOS>), *toks the tokens (text: tokenized; looked up in vocab, a vocab value; ids: the ids
 * after the padding and the <BOS>, named by vocab, whose strings they borrow). Free both with wl_tokens_free and
 * free. Returns 0, or -1 with an error on c that names the argument and nothing to free. lang_ids.c */
int lang_history(wl_call *c, const lang_model *lm, const wl_value *vocab, wl_tokens *toks, int32_t **hist);

/* ---- tensor values (lang_tensor.c) ---- */

#define LANG_TENSOR_MAXDIM 4
typedef struct lang_tensor {
    char name[32];
    int ndim;
    int shape[LANG_TENSOR_MAXDIM];
    size_t n;
    float *data;
    wl_value *vocab;   /* names the last axis, one word each (logits), or NULL */
} lang_tensor;

extern const wl_objtype lang_tensor_type;

/* A tensor value copying data [prod(shape)], or NULL with err when memory runs out. */
wl_value *lang_tensor_value(const char *name, const float *data, int ndim, const int *shape, wl_err *err);
/* Names the last axis of tensor value t by the words of vocab (a vocab value; a new reference is taken). */
void lang_tensor_words(wl_value *t, wl_value *vocab);
/* Appends "[d0,d1,...]". */
void lang_shape_text(wl_buf *b, const int *shape, int ndim);

/* ---- forward_details and its views: the head table, the attention maps (lang_details.c) ---- */

typedef struct lang_details {
    wl_details d;
    int32_t ids[WL_T];
    int nreal;
    wl_value *vocab;
    char kind[16];
} lang_details;

extern const wl_objtype lang_details_type;

/* forward_details of model m on the context li (WL_T ids), naming tokens with vocab (may be NULL). */
wl_value *lang_details_value(const wl_model *m, const lang_ids *li, wl_value *vocab, wl_err *err);
extern const wl_objtype lang_heads_type;
/* The weights that the real slot query (0-based) gives every real slot, per head; width: text columns. */
wl_value *lang_heads_value(const lang_details *ld, int query, int width);
/* Heat maps of heads first_head .. first_head + nheads - 1 (0-based) over the real slots, or all WL_T slots with
 * pad; width: text columns. */
wl_value *lang_attention_value(const lang_details *ld, int first_head, int nheads, int pad, int width);

/* ---- training and evaluation results (lang_training.c) ---- */

extern const wl_objtype lang_run_type, lang_evaluation_type;

/* The result of `train` with its settings; r is moved in (*r is left empty). */
/* A loss as training shows it: 4 decimals, or 4 significant digits for the huge losses of a diverged run. */
const char *lang_fmt_loss(double x, char buf[32]);
wl_value *lang_run_value(const wl_model *m, int steps, int batch, double lr, double wd, wl_train_result *r);
/* The loss chart of a trace [n] as SVG (and, with vegalite non-NULL, as Vega-Lite), with the live curve
 * xs, ys [nlive] when nlive > 0; NULL when memory runs out. */
char *lang_trace_chart(const wl_trace_row *rows, int n, const double *xs, const double *ys, int nlive, char **vegalite);
/* The result of `evaluate`: loss and perplexity over targets windows of split. */
wl_value *lang_evaluation_value(wl_split split, size_t targets, double loss, double ppl);

/* ---- the live display of a training run (lang_progress.c) ---- */

typedef struct lang_progress {
    wl_call *c;
    char id[48];
    double last;
    int best_step;
    double best;
    int shown;             /* the live display exists */
    double *xs, *ys;       /* [cap] every step's batch loss, for the live curve */
    int n, cap;
    wl_trace_row trace[64];
    int ntrace;
} lang_progress;

/* Room for the curve of runs of up to steps steps: 0, or -1 with an error on c (the size is the user's). */
int lang_progress_init(lang_progress *ui, wl_call *c, int steps);
/* Starts a new run: an empty curve and a new display "wordlab-<what>-<tag>-<counter>". */
void lang_progress_start(lang_progress *ui, const char *what, int tag);
/* wl_train's progress callback (ud: a lang_progress): records the step and updates the display. */
void lang_progress_step(void *ud, const wl_train_progress *p);
void lang_progress_free(lang_progress *ui);

/* ---- generation (lang_generation.c) ---- */

extern const wl_objtype lang_generation_type;

/* The value of `generate`: the prompt's tokens and the result, named with v; NULL with err on failure. */
wl_value *lang_generation_value(const wl_vocab *v, const wl_tokens *prompt, const wl_gen_result *res, wl_err *err);

/* ---- comparison.json (lang_comparison.c) ---- */

/* The comparison.json in directory where (or the file where itself) as a value; errors name word. */
int lang_comparison_load(wl_call *c, const char *where, int word, wl_value **out);

/* ---- per-token losses (lang_losses.c) ---- */

extern const wl_objtype lang_losses_type;

/* Scores the targets of history hist [ntokens + 2] (hist[0] is <BOS>, then the ids of tokens [ntokens], the targets
 * as written, then <EOS>, named with v) under lm, each from the last WL_CONTEXT ids before it: hist[1..ntokens], and
 * the <EOS> when eos is set. title heads the value. Returns 0, or -1 with an error on c (interrupted, out of memory). */
int lang_losses_score(wl_call *c, const lang_model *lm, const int32_t *hist, int ntokens, int eos, char *const *tokens,
                      const wl_vocab *v, const char *title, wl_value **out);

/* ---- the next-token distribution (lang_next.c) ---- */

extern const wl_objtype lang_next_type;

/* The probability lm gives every token of vocab (its own, V tokens) after the tokens toks, whose history (<BOS> and
 * their ids, as lang_history gives them) is hist: the top ones (the one that target, a token or NULL, names marked),
 * the rest summed. The same forward pass and the same numbers as lang_losses_score. Returns 0, or -1 with an error
 * on c. */
int lang_next_value(wl_call *c, const lang_model *lm, wl_value *vocab, const wl_tokens *toks, const int32_t *hist, int top,
                    const char *target, wl_value **out);

/* ---- perplexity from target probabilities (lang_perplexity.c) ---- */

extern const wl_objtype lang_perplexity_type, lang_nll_type;

/* The perplexity value of the target probabilities p [n] (malloc'd, moved in): each loss -ln p, their mean (the
 * cross-entropy) and its exp. Returns 0, or -1 with an error on c when memory runs out (p is freed either way). */
int lang_perplexity_value(wl_call *c, double *p, int n, wl_value **out);
/* The value of nll: the same table without the mean, standing for its losses where numbers are expected. */
int lang_nll_value(wl_call *c, double *p, int n, wl_value **out);

/* ---- help pages (lang_help.c) ---- */

/* A help page showing text (malloc'd, moved in) as it is, and as <pre> in a notebook. */
wl_value *lang_help_value(char *text);
/* The help page of cmd: synopsis, summary, long help, options, subcommands, example. */
wl_value *lang_help_command(const wl_command *cmd);

/* ---- the sequence lesson (lang_seq.c) ---- */

/* What a lesson table shows: the part its command computed (LANG_SEQ_ALL: everything the lesson prints). */
typedef enum lang_seq_show { LANG_SEQ_DATA, LANG_SEQ_HEADS, LANG_SEQ_CENTERS, LANG_SEQ_ORDER, LANG_SEQ_ALL } lang_seq_show;

extern const wl_objtype lang_seq_tables_type;
/* The lesson's tables over *l (moved in: *l is left empty), showing part show. */
wl_value *lang_seq_tables_value(wl_seq_lesson *l, lang_seq_show show);

/* One trained net, measured on the held-out sequences. */
typedef struct lang_seq_net {
    wl_seq_run r;
    wl_seq_opts o;                    /* the settings it was trained with */
    int ntest;                        /* held-out sequences it was measured on */
    double mw[WL_SEQ_D * WL_SEQ_T];   /* [H,T] each head's mean weight over the held-out sequences */
} lang_seq_net;

extern const wl_objtype lang_seq_net_type, lang_seq_weights_type, lang_seq_params_type;

/* The net n (malloc'd, moved in) shown as a net, as the plot of its mean weights, or as its 33 parameters with the
 * formulas that use them; all three have the net's fields. */
wl_value *lang_seq_net_value(lang_seq_net *n);
wl_value *lang_seq_weights_value(lang_seq_net *n);
wl_value *lang_seq_params_value(lang_seq_net *n);

/* ---- heat maps of a tensor (lang_heatmap.c) ---- */

/* The last `last` rows and up to cols columns of matrix head (1-based) of batch 0 of t, as a heat map; labels
 * (a list of `last` strings or numbers, or NULL) name the rows; width: text columns. */
wl_value *lang_heatmap_value(const lang_tensor *t, int head, int last, int cols, const wl_value *labels, int width);

/* ---- the model's own code (lang_code.c, and the sources embedded at build time by cmake/embed-sources.cmake) ---- */

typedef struct lang_source_file {
    const char *path, *text;   /* the path in the source tree; the file's text when it was built */
} lang_source_file;
extern const lang_source_file lang_source_files[];   /* ends with {0} */
extern const wl_objtype lang_code_type;

/* A region of a source between the lines "/\* @code NAME: TITLE *\/" and "/\* @end NAME *\/". */
typedef struct lang_code_region {
    const char *file;
    char name[32], title[160];
    int first, last;   /* its lines (1-based, the markers excluded) */
    char *text;        /* those lines as they are in the file */
} lang_code_region;
/* Every region of the embedded sources, in file and line order (at most max): how many. */
int lang_code_regions(lang_code_region *out, int max);
void lang_code_regions_free(lang_code_region *r, int n);
/* The code value of regions r [n] (taken over): their code highlighted, or (listing) the table of them. */
wl_value *lang_code_value(lang_code_region *r, int n, int listing);

/* ---- the bundled artifacts (lang_artifacts.c) ---- */

/* The directories searched for bundled files, in order: the interpreter's artifacts_dir (the front ends pass
 * $WORDLAB_ARTIFACTS), <dir of the program>/../share/artifacts (an installed or build-tree program), the source
 * tree's share/artifacts. Fills dirs with malloc'd paths (free them with lang_artifact_dirs_free); returns how many. */
int lang_artifact_dirs(const wl_interp *in, char *dirs[3]);
void lang_artifact_dirs_free(char *dirs[3], int n);
/* path as saved outputs show it: a bundled file as share/artifacts/NAME (the project's own place for it, not the
 * machine's absolute path), anything else as given; malloc'd. */
char *lang_path_shown(const wl_interp *in, const char *path);

/* ---- calls ---- */

/* The interrupt flag of the call's sink (NULL when there is none). */
static inline volatile sig_atomic_t *lang_interrupt(wl_call *c) { return c->sink ? c->sink->interrupt : NULL; }

/* ---- the first lines of the commands' examples ---- */

/* A small corpus (or a smaller one), and a model of kind (and its options) on its vocabulary. */
#define LANG_EX_STORIES "stories = corpus profile=smoke\n"
#define LANG_EX_FEW_STORIES "stories = corpus profile=smoke stories=60\n"
#define LANG_EX_MODEL_ON(stories, kind) stories "m = model new kind=" kind " vocab=$stories.vocab seed=11\n"
#define LANG_EX_MODEL(kind) LANG_EX_MODEL_ON(LANG_EX_STORIES, kind)

#endif

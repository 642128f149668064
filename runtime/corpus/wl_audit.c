/* wl_audit.c: the corpus audit rendered as aligned text for display and as JSON for result files. */
#include "wl_corpus.h"

#include "wl_buf.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* n with thousands separators: 964338 -> "964,338". */
static const char *grouped(size_t n, char buf[32])
{
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%zu", n), k = 0;
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0) buf[k++] = ',';
        buf[k++] = digits[i];
    }
    buf[k] = '\0';
    return buf;
}

typedef enum { COL_COUNT, COL_RATE, COL_MEDIAN } col_kind;

/* One table row: a label and the three splits' values of one field. */
static void row(wl_buf *b, const char *label, const wl_audit *a, size_t off, col_kind kind)
{
    wl_buf_printf(b, "%-22s", label);
    for (int s = 0; s < WL_NSPLITS; s++) {
        const char *field = (const char *)&a->split[s] + off;
        char cell[40], g[32];
        if (kind == COL_COUNT) snprintf(cell, sizeof cell, "%s", grouped(*(const size_t *)field, g));
        else if (kind == COL_RATE) snprintf(cell, sizeof cell, "%.2f%%", 100.0 * *(const double *)field);
        else snprintf(cell, sizeof cell, "%.1f", *(const double *)field);
        wl_buf_printf(b, " %12s", cell);
    }
    wl_buf_printf(b, "\n");
}

char *wl_corpus_audit_text(const wl_corpus *c)
{
    const wl_audit *a = &c->audit;
    wl_buf b = {0};
    char g1[32], g2[32];
    size_t docs = a->split[WL_TRAIN].documents + a->split[WL_VALIDATION].documents + a->split[WL_TEST].documents;
    wl_buf_printf(&b, "corpus: %s %s from %s\n", grouped(docs, g1), docs == 1 ? "story" : "stories", c->source);
    wl_buf_printf(&b, "profile: %s (max_vocab %s, min_freq %zu)\n\n", c->profile.name ? c->profile.name : "?",
              grouped(c->profile.max_vocab, g2), c->profile.min_freq);
    wl_buf_printf(&b, "%-22s", "");
    for (int s = 0; s < WL_NSPLITS; s++) wl_buf_printf(&b, " %12s", wl_split_name((wl_split)s));
    wl_buf_printf(&b, "\n");
    row(&b, "documents", a, offsetof(wl_split_audit, documents), COL_COUNT);
    row(&b, "tokens", a, offsetof(wl_split_audit, tokens), COL_COUNT);
    row(&b, "targets (windows)", a, offsetof(wl_split_audit, targets), COL_COUNT);
    row(&b, "unknown tokens", a, offsetof(wl_split_audit, unknown), COL_COUNT);
    row(&b, "unknown rate", a, offsetof(wl_split_audit, unknown_rate), COL_RATE);
    row(&b, "story length min", a, offsetof(wl_split_audit, len_min), COL_COUNT);
    row(&b, "story length median", a, offsetof(wl_split_audit, len_median), COL_MEDIAN);
    row(&b, "story length max", a, offsetof(wl_split_audit, len_max), COL_COUNT);
    wl_buf_printf(&b, "\ntexts read %s, duplicates removed %zu, empty texts %zu, documents in more than one split %zu\n",
              grouped(a->texts_read, g1), a->duplicates, a->empty, a->overlap);
    wl_buf_printf(&b, "vocabulary: %s tokens, fit on train only (4 special tokens included)\n",
              grouped(a->vocab_size, g2));
    return wl_buf_take(&b);
}

char *wl_corpus_audit_json(const wl_corpus *c)
{
    const wl_audit *a = &c->audit;
    cJSON *root = cJSON_CreateObject(), *splits = cJSON_AddObjectToObject(root, "splits");
    int ok = root && splits && cJSON_AddStringToObject(root, "source", c->source) &&
             cJSON_AddStringToObject(root, "profile", c->profile.name ? c->profile.name : "") &&
             cJSON_AddNumberToObject(root, "stories", (double)c->profile.stories) &&
             cJSON_AddNumberToObject(root, "max_vocab", (double)c->profile.max_vocab) &&
             cJSON_AddNumberToObject(root, "min_freq", (double)c->profile.min_freq) &&
             cJSON_AddNumberToObject(root, "texts_read", (double)a->texts_read) &&
             cJSON_AddNumberToObject(root, "empty_texts", (double)a->empty) &&
             cJSON_AddNumberToObject(root, "duplicates_removed", (double)a->duplicates) &&
             cJSON_AddNumberToObject(root, "overlap", (double)a->overlap) &&
             cJSON_AddNumberToObject(root, "vocab_size", (double)a->vocab_size);
    for (int s = 0; ok && s < WL_NSPLITS; s++) {
        const wl_split_audit *sa = &a->split[s];
        cJSON *o = cJSON_AddObjectToObject(splits, wl_split_name((wl_split)s));
        ok = o && cJSON_AddNumberToObject(o, "documents", (double)sa->documents) &&
             cJSON_AddNumberToObject(o, "tokens", (double)sa->tokens) &&
             cJSON_AddNumberToObject(o, "targets", (double)sa->targets) &&
             cJSON_AddNumberToObject(o, "unknown", (double)sa->unknown) &&
             cJSON_AddNumberToObject(o, "unknown_rate", sa->unknown_rate) &&
             cJSON_AddNumberToObject(o, "length_min", (double)sa->len_min) &&
             cJSON_AddNumberToObject(o, "length_median", sa->len_median) &&
             cJSON_AddNumberToObject(o, "length_max", (double)sa->len_max);
    }
    char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return text;
}

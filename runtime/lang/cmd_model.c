/* cmd_model.c: models and what they compute: model (new, load, save, info), details, heads, attention; tensor values. */
#include "lang_objs.h"

#include "wl_checkpoint.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *grouped(size_t n, char *buf)
{
    char tmp[32];
    int len = snprintf(tmp, sizeof tmp, "%zu", n), k = 0;
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0) buf[k++] = ',';
        buf[k++] = tmp[i];
    }
    buf[k] = 0;
    return buf;
}

/* ---- tensors ---- */

static void tensor_free(void *d)
{
    lang_tensor *t = d;
    free(t->data);
    free(t);
}

static void shape_text(wl_buf *b, const int *shape, int ndim)
{
    wl_buf_put(b, "[", 1);
    for (int i = 0; i < ndim; i++) wl_buf_printf(b, "%s%d", i ? "," : "", shape[i]);
    wl_buf_put(b, "]", 1);
}

static int tensor_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_tensor *t = d;
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    size_t finite = 0;
    for (size_t i = 0; i < t->n; i++) {
        double x = t->data[i];
        if (!isfinite(x)) continue;
        lo = fmin(lo, x);
        hi = fmax(hi, x);
        sum += x;
        finite++;
    }
    wl_buf b = {0};
    wl_buf_printf(&b, "%s ", t->name);
    shape_text(&b, t->shape, t->ndim);
    if (finite) wl_buf_printf(&b, " float32: min %.4g, max %.4g, mean %.4g", lo, hi, sum / (double)finite);
    if (finite < t->n) wl_buf_printf(&b, " (%zu masked entries are -inf)", t->n - finite);
    /* a preview of the first matrix (leading indices 0) */
    int rows = t->ndim >= 2 ? t->shape[t->ndim - 2] : 1, cols = t->shape[t->ndim - 1];
    int showr = rows < 6 ? rows : 6, showc = cols < 8 ? cols : 8;
    if (t->ndim > 2) {
        wl_buf_puts(&b, "\nfirst matrix [");
        for (int i = 0; i < t->ndim - 2; i++) wl_buf_puts(&b, "0,");
        wl_buf_puts(&b, ":,:]");
    }
    for (int r = 0; r < showr; r++) {
        wl_buf_puts(&b, "\n ");
        for (int c = 0; c < showc; c++) wl_buf_printf(&b, " %9.4f", t->data[(size_t)r * (size_t)cols + (size_t)c]);
        if (showc < cols) wl_buf_puts(&b, "  …");
    }
    if (showr < rows) wl_buf_puts(&b, "\n  …");
    out->text_plain = wl_buf_take(&b);
    wl_buf_puts(&b, "{\"type\":\"tensor\",\"name\":");
    wl_buf_json_str(&b, t->name);
    wl_buf_puts(&b, ",\"shape\":");
    shape_text(&b, t->shape, t->ndim);
    wl_buf_puts(&b, ",\"data\":[");
    for (size_t i = 0; i < t->n; i++) {
        if (i) wl_buf_put(&b, ",", 1);
        wl_buf_json_num(&b, t->data[i]);
    }
    wl_buf_puts(&b, "]}");
    out->app_json = wl_buf_take(&b);
    return 0;
}

static wl_value *tensor_field(wl_value *self, const char *name, wl_err *err)
{
    const lang_tensor *t = self->data;
    if (!strcmp(name, "shape")) {
        wl_value *l = wl_list();
        for (int i = 0; i < t->ndim; i++) wl_list_push(l, wl_int(t->shape[i]));
        return l;
    }
    if (!strcmp(name, "values")) {
        if (t->n > (1 << 20)) {
            wl_fail(err, "%s has %zu values, too many for a list; index it first (.0)", t->name, t->n);
            return NULL;
        }
        wl_value *l = wl_list();
        for (size_t i = 0; i < t->n; i++) wl_list_push(l, wl_num(t->data[i]));
        return l;
    }
    char *end;
    long i = strtol(name, &end, 10);
    if (*end || name[0] < '0' || name[0] > '9') {
        wl_fail(err, "a tensor has no field .%s; use .shape, .values or an index like .0", name);
        return NULL;
    }
    if (i >= t->shape[0]) {
        wl_fail(err, "index %ld is past the end of the first axis (size %d; indices count from 0)", i, t->shape[0]);
        return NULL;
    }
    if (t->ndim == 1) return wl_num(t->data[i]);
    size_t inner = t->n / (size_t)t->shape[0];
    char nm[48];
    snprintf(nm, sizeof nm, "%.20s.%d", t->name, (int)i);
    return lang_tensor_value(nm, t->data + (size_t)i * inner, t->ndim - 1, t->shape + 1);
}

const wl_objtype lang_tensor_type = {.name = "tensor", .fields = "shape values", .free = tensor_free,
                                     .render = tensor_render, .field = tensor_field};

wl_value *lang_tensor_value(const char *name, const float *data, int ndim, const int *shape)
{
    lang_tensor *t = calloc(1, sizeof *t);
    if (!t) abort();
    snprintf(t->name, sizeof t->name, "%.31s", name);
    t->ndim = ndim;
    t->n = 1;
    for (int i = 0; i < ndim; i++) {
        t->shape[i] = shape[i];
        t->n *= (size_t)shape[i];
    }
    t->data = malloc(sizeof(float) * t->n);
    if (!t->data) abort();
    memcpy(t->data, data, sizeof(float) * t->n);
    return wl_obj(&lang_tensor_type, t);
}

/* ---- models ---- */

static void model_free(void *d)
{
    lang_model *lm = d;
    wl_model_free(&lm->m);
    wl_unref(lm->vocab);
    free(lm->source);
    free(lm);
}

static int model_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_model *lm = d;
    const wl_model *m = &lm->m;
    char g[32];
    wl_buf b = {0};
    wl_buf_printf(&b, "model %s", m->kind_name);
    if (m->kind == WL_KIND_ATTENTION)
        wl_buf_printf(&b, ": %d head%s of width %d", m->H, m->H == 1 ? "" : "s", WL_D / m->H);
    wl_buf_printf(&b, ", vocabulary %d, %s parameters\n", m->V, grouped(m->nparams, g));
    wl_buf_printf(&b, "seed %llu; ", (unsigned long long)lm->seed);
    if (lm->steps_trained) wl_buf_printf(&b, "trained %ld steps here, ", lm->steps_trained);
    if (lm->selected_step) wl_buf_printf(&b, "selected step %d", lm->selected_step);
    else wl_buf_puts(&b, lm->steps_trained ? "initial weights kept" : "untrained");
    if (isfinite(lm->test_loss)) wl_buf_printf(&b, ", test loss %.4f", lm->test_loss);
    wl_buf_printf(&b, "; from %s\n", lm->source);
    if (lm->vocab) wl_buf_printf(&b, "vocabulary attached (%s)\n", lm->vocab_from[0] ? lm->vocab_from : "given with vocab=");
    else wl_buf_puts(&b, "no vocabulary attached (only its size): give one with model load PATH vocab=V\n");
    wl_table *t = wl_table_new(3);
    wl_table_header_rows(t, 1);
    wl_table_cell(t, "parameter", -1);
    wl_table_cell(t, "shape", -1);
    wl_table_cell(t, "count", -1);
    for (int i = 0; i < m->nviews; i++) {
        const wl_param_view *v = &m->views[i];
        wl_table_cell(t, v->name, -1);
        if (v->ndim == 2) wl_table_cellf(t, -1, "[%d, %d]", v->shape[0], v->shape[1]);
        else wl_table_cellf(t, -1, "[%d]", v->shape[0]);
        wl_table_cell(t, grouped(v->size, g), -1);
    }
    char *tt = wl_table_text(t), *th = wl_table_html(t);
    wl_table_free(t);
    size_t head_len = b.len;
    wl_buf_puts(&b, tt);
    out->text_plain = wl_buf_take(&b);
    wl_buf_puts(&b, "<p>");
    char *head = strndup(out->text_plain, head_len);
    wl_buf_html(&b, head);
    free(head);
    wl_buf_printf(&b, "</p>%s", th);
    out->text_html = wl_buf_take(&b);
    free(tt);
    free(th);
    wl_buf_printf(&b, "{\"type\":\"model\",\"kind\":\"%s\",\"heads\":%d,\"vocab_size\":%d,\"parameters\":%zu,\"seed\":%llu,"
                      "\"selected_step\":%d,\"test_loss\":",
                  m->kind_name, m->H, m->V, m->nparams, (unsigned long long)lm->seed, lm->selected_step);
    wl_buf_json_num(&b, lm->test_loss);
    wl_buf_puts(&b, ",\"shapes\":{");
    for (int i = 0; i < m->nviews; i++) {
        const wl_param_view *v = &m->views[i];
        wl_buf_printf(&b, "%s\"%s\":", i ? "," : "", v->name);
        shape_text(&b, v->shape, v->ndim);
    }
    wl_buf_puts(&b, "}}");
    out->app_json = wl_buf_take(&b);
    return 0;
}

static wl_value *model_field(wl_value *self, const char *name, wl_err *err)
{
    const lang_model *lm = self->data;
    if (!strcmp(name, "kind")) return wl_str(lm->m.kind_name);
    if (!strcmp(name, "heads")) return wl_int(lm->m.H);
    if (!strcmp(name, "parameters")) return wl_int((long long)lm->m.nparams);
    if (!strcmp(name, "seed")) return wl_int((long long)lm->seed);
    if (!strcmp(name, "selected_step")) return wl_int(lm->selected_step);
    if (!strcmp(name, "test_loss")) return wl_num(lm->test_loss);
    if (!strcmp(name, "vocab")) {
        if (lm->vocab) return wl_ref(lm->vocab);
        wl_fail(err, LANG_NO_VOCAB);
        return NULL;
    }
    wl_fail(err, "a model has no field .%s; its fields are %s", name, lang_model_type.fields);
    return NULL;
}

const wl_objtype lang_model_type = {.name = "model", .fields = "kind heads parameters seed selected_step test_loss vocab",
                                    .free = model_free, .render = model_render, .field = model_field};

static lang_model *new_lang_model(void)
{
    lang_model *lm = calloc(1, sizeof *lm);
    if (!lm) abort();
    lm->test_loss = NAN;
    return lm;
}

static int model_new(wl_call *c, wl_value **out)
{
    const char *kind = wl_opt_str(c, "kind", "multihead");
    long long heads, seed, vsize = 0;
    if (!kind || wl_opt_int(c, "seed", 11, 0, (1LL << 53), &seed)) return -1;
    if (wl_opt_int(c, "heads", !strcmp(kind, "multihead") ? 4 : 1, 1, WL_D, &heads)) return -1;
    wl_value *vopt = wl_opt_val(c, "vocab"), *vv = NULL;
    if (!vopt)
        return wl_call_fail(c, "ArgumentError", c->argc + 1, "`model new` needs vocab=: a vocabulary (vocab=$stories.vocab) or its size (vocab=1500)");
    if (vopt->type == WL_V_NUM) {
        if (wl_opt_int(c, "vocab", 0, 5, 100000, &vsize)) return -1;
    } else {
        vv = lang_vocab_from(c, vopt, wl_call_optword(c, "vocab"));
        if (!vv) return -1;
        vsize = (long long)lang_vocab_get(vv)->n;
    }
    if (strcmp(kind, "multihead") && wl_opt_has(c, "heads") && heads != 1) {
        wl_unref(vv);
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "heads"), "kind=%s has one head; use kind=multihead for %lld",
                            kind, heads);
    }
    lang_model *lm = new_lang_model();
    if (wl_model_init(&lm->m, kind, (int)vsize, (int)heads, (uint64_t)seed, c->err)) {
        free(lm);
        wl_unref(vv);
        c->ename = "ArgumentError";
        c->errword = wl_call_optword(c, wl_opt_has(c, "heads") ? "heads" : "kind");
        return -1;
    }
    lm->seed = (uint64_t)seed;
    lm->vocab = vv;
    lm->source = strdup("model new");
    if (!lm->source) abort();
    *out = wl_obj(&lang_model_type, lm);
    return 0;
}

wl_value *lang_model_vocab(wl_call *c, const lang_model *lm)
{
    if (!wl_opt_has(c, "vocab")) {
        if (!lm->vocab) wl_call_fail(c, "ArgumentError", c->argc + 1, LANG_NO_VOCAB " or to this command with vocab=V");
        return lm->vocab ? wl_ref(lm->vocab) : NULL;
    }
    int word = wl_call_optword(c, "vocab");
    wl_value *vv = lang_vocab_from(c, wl_opt_val(c, "vocab"), word);
    if (vv && lang_vocab_get(vv)->n != (size_t)lm->m.V) {
        wl_call_fail(c, "ArgumentError", word, "the model has a vocabulary of %d tokens, this vocab %zu", lm->m.V,
                     lang_vocab_get(vv)->n);
        wl_unref(vv);
        return NULL;
    }
    return vv;
}

/* The vocabulary a checkpoint brings into *out: the "vocab" member of its metadata (what `model save` writes;
 * a bad one is an error), else a vocab.json of the right size beside it (what `compare` writes), else none
 * (*out NULL). *from says which. Returns 0 / -1. */
static int checkpoint_vocab(const char *path, const wl_ckpt_meta *meta, int V, wl_value **out, const char **from, wl_err *err)
{
    wl_vocab v;
    *out = NULL;
    cJSON *o = meta->json ? cJSON_Parse(meta->json) : NULL;
    const cJSON *member = cJSON_GetObjectItemCaseSensitive(o, "vocab");
    char *text = member ? cJSON_PrintUnformatted(member) : NULL;
    cJSON_Delete(o);
    if (text) {
        char where[600];
        snprintf(where, sizeof where, "%s: metadata_json's \"vocab\"", path);
        int rc = wl_vocab_parse(text, strlen(text), where, &v, err);
        free(text);
        if (rc) return -1;
        size_t n = v.n;
        if (n != (size_t)V) {
            wl_vocab_free(&v);
            return wl_fail(err, "%s: has %zu tokens, the model's vocabulary %d", where, n, V);
        }
        *from = "its metadata";
    } else {
        const char *slash = strrchr(path, '/');
        char beside[4096];
        wl_err ignored;   /* a vocab.json beside the file that does not fit is not this model's */
        snprintf(beside, sizeof beside, "%.*svocab.json", slash ? (int)(slash - path + 1) : 0, path);
        if (wl_vocab_load(beside, &v, &ignored)) return 0;
        if (v.n != (size_t)V) {
            wl_vocab_free(&v);
            return 0;
        }
        *from = "the vocab.json beside it";
    }
    *out = lang_vocab_value_own(&v);
    return 0;
}

static int model_load(wl_call *c, wl_value **out)
{
    if (c->argc != 2) return wl_call_fail(c, "ArgumentError", c->argc + 1, "usage: model load PATH [vocab=V]");
    const char *path = wl_arg_str(c, 1);
    if (!path) return -1;
    if (!c->allow_files) return wl_call_fail(c, "PermissionError", wl_call_argword(c, 1), "reading files is disabled here");
    wl_value *vv = NULL;
    if (wl_opt_has(c, "vocab") && !(vv = lang_vocab_from(c, wl_opt_val(c, "vocab"), wl_call_optword(c, "vocab")))) return -1;
    lang_model *lm = new_lang_model();
    wl_ckpt_meta meta;
    volatile sig_atomic_t *interrupt = c->sink ? c->sink->interrupt : NULL;
    if (wl_checkpoint_load(path, vv ? (int)lang_vocab_get(vv)->n : 0, interrupt, &lm->m, &meta, c->err)) {
        free(lm);
        wl_unref(vv);
        c->errword = wl_call_argword(c, 1);
        return -1;
    }
    lm->seed = meta.seed;
    lm->selected_step = meta.selected_step;
    lm->test_loss = meta.test_loss;
    const char *from = "given with vocab=";
    if (!vv && checkpoint_vocab(path, &meta, lm->m.V, &vv, &from, c->err)) {
        wl_ckpt_meta_free(&meta);
        model_free(lm);
        c->errword = wl_call_argword(c, 1);
        return -1;
    }
    lm->vocab = vv;
    lm->source = lang_path_shown(c->in, path);
    snprintf(lm->vocab_from, sizeof lm->vocab_from, "%s", vv ? from : "");
    wl_ckpt_meta_free(&meta);
    *out = wl_obj(&lang_model_type, lm);
    return 0;
}

static int model_save(wl_call *c, wl_value **out)
{
    if (c->argc != 3) return wl_call_fail(c, "ArgumentError", c->argc + 1, "usage: model save MODEL PATH");
    lang_model *lm = wl_arg_obj(c, 1, &lang_model_type);
    const char *path = lm ? wl_arg_str(c, 2) : NULL;
    if (!path) return -1;
    if (!c->allow_files) return wl_call_fail(c, "PermissionError", wl_call_argword(c, 2), "writing files is disabled here");
    /* the vocabulary travels in the metadata, so that `model load PATH` alone can read text */
    char *vocab = lm->vocab ? wl_vocab_json(lang_vocab_get(lm->vocab)) : NULL, *extra = NULL;
    if (vocab) {
        wl_buf b = {0};
        wl_buf_printf(&b, "{\"vocab\":%s}", vocab);
        extra = wl_buf_take(&b);
    }
    int rc = wl_checkpoint_save(path, &lm->m, lm->seed, lm->selected_step, lm->test_loss, extra, c->err);
    free(vocab);
    free(extra);
    if (rc) {
        c->errword = wl_call_argword(c, 2);
        return -1;
    }
    wl_sink_printf(c->sink, "saved %s (%zu parameters) to %s\n", lm->m.kind_name, lm->m.nparams, path);
    *out = NULL;
    return 0;
}

static int cmd_model(wl_call *c, wl_value **out)
{
    const char *sub = c->argv[0]->str;
    if (!strcmp(sub, "new")) {
        if (c->argc != 1) return wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1), "`model new` takes only options: kind= heads= vocab= seed=");
        return model_new(c, out);
    }
    if (strcmp(sub, "info") && c->nopts && strcmp(sub, "load"))
        return wl_call_fail(c, "ArgumentError", c->optword[0], "`model %s` takes no options", sub);
    if (!strcmp(sub, "load")) return model_load(c, out);
    if (!strcmp(sub, "save")) return model_save(c, out);
    if (c->argc != 2) return wl_call_fail(c, "ArgumentError", c->argc + 1, "usage: model info MODEL");
    if (!wl_arg_obj(c, 1, &lang_model_type)) return -1;
    *out = wl_ref(c->argv[1]);
    return 0;
}

/* ---- forward_details ---- */

typedef struct lang_details {
    wl_details d;
    int32_t ids[WL_T];
    int nreal;
    wl_value *vocab;
    char kind[16];
} lang_details;

static void details_free(void *p)
{
    lang_details *ld = p;
    wl_details_free(&ld->d);
    wl_unref(ld->vocab);
    free(ld);
}

typedef struct tensor_ref {
    const char *name;
    const float *data;
    int ndim, shape[4];
} tensor_ref;

/* The intermediates in the order forward_details computes them. */
static int details_tensors(const lang_details *ld, tensor_ref *out)
{
    const wl_details *d = &ld->d;
    int n = 0;
    if (d->E) {
        out[n++] = (tensor_ref){"E", d->E, 3, {d->B, d->T, d->D}};
        out[n++] = (tensor_ref){"Q", d->Q, 4, {d->B, d->H, d->T, d->d}};
        out[n++] = (tensor_ref){"K", d->K, 4, {d->B, d->H, d->T, d->d}};
        out[n++] = (tensor_ref){"V", d->Vv, 4, {d->B, d->H, d->T, d->d}};
        out[n++] = (tensor_ref){"scores", d->scores, 4, {d->B, d->H, d->T, d->T}};
        out[n++] = (tensor_ref){"weights", d->weights, 4, {d->B, d->H, d->T, d->T}};
        out[n++] = (tensor_ref){"messages", d->messages, 3, {d->B, d->T, d->D}};
        out[n++] = (tensor_ref){"contextual", d->contextual, 3, {d->B, d->T, d->D}};
        out[n++] = (tensor_ref){"logits_all", d->logits_all, 3, {d->B, d->T, d->V}};
    }
    out[n++] = (tensor_ref){"logits", d->logits, 2, {d->B, d->V}};
    return n;
}

static int details_render(const void *p, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_details *ld = p;
    const wl_details *d = &ld->d;
    tensor_ref tr[10];
    int n = details_tensors(ld, tr);
    wl_table *t = wl_table_new(2);
    wl_table_header_rows(t, 1);
    wl_table_cell(t, "tensor", -1);
    wl_table_cell(t, "shape", -1);
    wl_buf b = {0};
    for (int i = 0; i < n; i++) {
        wl_table_cell(t, tr[i].name, -1);
        shape_text(&b, tr[i].shape, tr[i].ndim);
        wl_table_cell(t, b.s, -1);
        free(wl_buf_take(&b));
    }
    wl_buf_printf(&b, "forward_details of the %s model on %d real ids in %d slots:", ld->kind, ld->nreal, d->T);
    char *title = wl_buf_take(&b);
    wl_table_title(t, title);
    char *tt = wl_table_text(t), *th = wl_table_html(t);
    wl_table_free(t);
    wl_buf_puts(&b, tt);
    if (d->E)
        wl_buf_printf(&b, "\nB = %d example, T = %d slots, D = %d, H = %d heads, d = %d per head, V = %d words.\n"
                          "Fields: $x.E $x.Q ... $x.weights (tensors; .0 indexes the first axis).",
                      d->B, d->T, d->D, d->H, d->d, d->V);
    out->text_plain = wl_buf_take(&b);
    out->text_html = th;
    free(tt);
    free(title);
    wl_buf_printf(&b, "{\"type\":\"details\",\"kind\":\"%s\",\"real\":%d,\"shapes\":{", ld->kind, ld->nreal);
    for (int i = 0; i < n; i++) {
        wl_buf_printf(&b, "%s\"%s\":", i ? "," : "", tr[i].name);
        shape_text(&b, tr[i].shape, tr[i].ndim);
    }
    wl_buf_puts(&b, "}}");
    out->app_json = wl_buf_take(&b);
    return 0;
}

static wl_value *details_field(wl_value *self, const char *name, wl_err *err)
{
    const lang_details *ld = self->data;
    tensor_ref tr[10];
    int n = details_tensors(ld, tr);
    for (int i = 0; i < n; i++)
        if (!strcmp(tr[i].name, name)) return lang_tensor_value(name, tr[i].data, tr[i].ndim, tr[i].shape);
    if (!strcmp(name, "ids")) return lang_ids_value(ld->ids + (WL_T - ld->nreal), ld->nreal, WL_T, ld->vocab);
    wl_fail(err, "%s has no field .%s (fields: ids%s)", ld->d.E ? "a forward_details" : "an mlp's forward_details", name,
            ld->d.E ? " E Q K V scores weights messages contextual logits_all logits" : " logits");
    return NULL;
}

static const wl_objtype DETAILS_T = {.name = "forward_details", .fields = "E Q K V scores weights messages contextual logits_all logits ids",
                                     .free = details_free, .render = details_render, .field = details_field};

/* The context a command runs model lm on: argument 1 as ids (from `encode`), or text encoded with the model's
 * vocabulary (or vocab=), checked against the model. *li is borrowed or lives in *enc; *vv is the vocabulary
 * used for text or given with vocab= (a new reference or NULL). Returns 0, or -1 with nothing to release. */
static int read_context(wl_call *c, const lang_model *lm, lang_ids **li, wl_value **enc, wl_value **vv)
{
    wl_value *idv = c->argv[1];
    *enc = *vv = NULL;
    *li = wl_obj_data(idv, &lang_ids_type);
    if ((!*li || wl_opt_has(c, "vocab")) && !(*vv = lang_model_vocab(c, lm))) return -1;
    int rc = 0;
    if (!*li) { /* text: encode with the vocabulary */
        wl_tokens toks;
        memset(&toks, 0, sizeof toks);
        const char *s = idv->type == WL_V_STR ? idv->str : NULL;
        if (!s)
            rc = wl_call_fail(c, "TypeError", wl_call_argword(c, 1), "the second argument of `%s` must be ids (from `encode`) or text, not %s",
                              c->cmd->name, wl_value_kind(idv));
        else if (wl_text_tokenize(s, strlen(s), &toks, c->err))
            rc = -1;
        if (!rc) {
            int32_t *hist = malloc(sizeof(int32_t) * (toks.n + 1));
            if (!hist) abort();
            hist[0] = WL_BOS;
            wl_vocab_encode(lang_vocab_get(*vv), (const char *const *)toks.tok, toks.n, hist + 1);
            *enc = lang_ids_value(hist, (int)toks.n + 1, WL_T, *vv);
            free(hist);
            wl_tokens_free(&toks);
            *li = (*enc)->data;
        }
    }
    if (!rc && (*li)->T != WL_T)
        rc = wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1), "the models read %d ids; these ids have %d (encode with context=%d)",
                          WL_T, (*li)->T, WL_T);
    for (int i = 0; !rc && i < (*li)->T; i++)
        if ((*li)->ids[i] < 0 || (*li)->ids[i] >= lm->m.V)
            rc = wl_call_fail(c, "ArgumentError", wl_call_argword(c, 1), "id %d in slot %d is outside this model's vocabulary of %d",
                              (*li)->ids[i], i, lm->m.V);
    if (rc) {
        wl_unref(*enc);
        wl_unref(*vv);
        *enc = *vv = NULL;
    }
    return rc;
}

static int cmd_details(wl_call *c, wl_value **out)
{
    lang_model *lm = wl_arg_obj(c, 0, &lang_model_type);
    lang_ids *li;
    wl_value *enc, *vv;
    if (!lm || read_context(c, lm, &li, &enc, &vv)) return -1;
    lang_details *ld = calloc(1, sizeof *ld);
    if (!ld) abort();
    int rc = wl_model_details(&lm->m, li->ids, 1, &ld->d, c->err);
    if (!rc) {
        memcpy(ld->ids, li->ids, sizeof ld->ids);
        ld->nreal = li->nreal;
        ld->vocab = wl_ref(vv ? vv : li->vocab ? li->vocab : lm->vocab);
        snprintf(ld->kind, sizeof ld->kind, "%s", lm->m.kind_name);
        *out = wl_obj(&DETAILS_T, ld);
    } else {
        free(ld);
    }
    wl_unref(enc);
    wl_unref(vv);
    return rc;
}

/* ---- forward: the final row only, as training and evaluation compute it ---- */

static int cmd_forward(wl_call *c, wl_value **out)
{
    lang_model *lm = wl_arg_obj(c, 0, &lang_model_type);
    lang_ids *li;
    wl_value *enc, *vv;
    if (!lm || read_context(c, lm, &li, &enc, &vv)) return -1;
    wl_model_ws *ws = wl_model_ws_new(&lm->m, 1);
    float *logits = malloc(sizeof(float) * (size_t)lm->m.V);
    if (!ws || !logits) abort();
    int rc = wl_model_forward(&lm->m, ws, li->ids, 1, logits, c->err);
    if (!rc) *out = lang_tensor_value("logits", logits, 2, (const int[]){1, lm->m.V});
    free(logits);
    wl_model_ws_free(ws);
    wl_unref(enc);
    wl_unref(vv);
    return rc;
}

/* ---- maxdiff: the largest |a - b| of two tensors of one shape ---- */

static int cmd_maxdiff(wl_call *c, wl_value **out)
{
    const lang_tensor *a = wl_arg_obj(c, 0, &lang_tensor_type), *b = a ? wl_arg_obj(c, 1, &lang_tensor_type) : NULL;
    if (!b) return -1;
    int same = a->ndim == b->ndim;
    for (int i = 0; same && i < a->ndim; i++) same = a->shape[i] == b->shape[i];
    if (!same) return wl_call_fail(c, "ArgumentError", 2, "%s and %s have different shapes", a->name, b->name);
    double m = 0;
    for (size_t i = 0; i < a->n; i++) m = fmax(m, fabs((double)a->data[i] - (double)b->data[i]));
    *out = wl_num(m);
    return 0;
}

/* ---- heads and attention: the weights over the real tokens ---- */

/* Labels of the real slots: their tokens, or their ids when no vocabulary is known. */
static char **real_labels(const lang_details *ld)
{
    char **l = calloc((size_t)ld->nreal, sizeof(char *));
    if (!l) abort();
    const wl_vocab *v = ld->vocab ? lang_vocab_get(ld->vocab) : NULL;
    for (int i = 0; i < ld->nreal; i++) {
        int32_t id = ld->ids[WL_T - ld->nreal + i];
        char buf[32];
        snprintf(buf, sizeof buf, "%d", id);
        l[i] = strdup(v ? lang_token(v, id) : buf);
    }
    return l;
}

static void free_labels(char **l, int n)
{
    for (int i = 0; i < n; i++) free(l[i]);
    free(l);
}

typedef struct lang_heads {
    int H, n, query;      /* query: 0-based real slot whose row is shown */
    char **labels;        /* [n] */
    double *w;            /* [H, n] */
} lang_heads;

static void heads_free(void *p)
{
    lang_heads *h = p;
    free_labels(h->labels, h->n);
    free(h->w);
    free(h);
}

static int heads_render(const void *p, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_heads *h = p;
    wl_table *t = wl_table_new(h->n + 1);
    wl_table_header_rows(t, 1);
    wl_table_header_cols(t, 1);
    wl_buf b = {0};
    wl_buf_printf(&b, "weights of query %d (%s) over the real tokens, per head:", h->query + 1, h->labels[h->query]);
    char *title = wl_buf_take(&b);
    wl_table_title(t, title);
    free(title);
    wl_table_cell(t, "Head", -1);
    for (int i = 0; i < h->n; i++) wl_table_cell(t, h->labels[i], -1);
    for (int k = 0; k < h->H; k++) {
        wl_table_cellf(t, -1, "%d", k + 1);
        for (int i = 0; i < h->n; i++) {
            double w = h->w[(size_t)k * (size_t)h->n + (size_t)i];
            wl_table_cellf(t, w, "%.3f", w);
        }
    }
    out->text_plain = wl_table_text(t);
    out->text_html = wl_table_html(t);
    wl_table_free(t);
    wl_buf_printf(&b, "{\"type\":\"heads\",\"query\":%d,\"tokens\":[", h->query);
    for (int i = 0; i < h->n; i++) {
        if (i) wl_buf_put(&b, ",", 1);
        wl_buf_json_str(&b, h->labels[i]);
    }
    wl_buf_puts(&b, "],\"weights\":[");
    for (int k = 0; k < h->H; k++) {
        wl_buf_puts(&b, k ? ",[" : "[");
        for (int i = 0; i < h->n; i++) {
            if (i) wl_buf_put(&b, ",", 1);
            wl_buf_json_num(&b, h->w[(size_t)k * (size_t)h->n + (size_t)i]);
        }
        wl_buf_put(&b, "]", 1);
    }
    wl_buf_puts(&b, "]}");
    out->app_json = wl_buf_take(&b);
    return 0;
}

static wl_value *heads_field(wl_value *self, const char *name, wl_err *err)
{
    const lang_heads *h = self->data;
    if (!strcmp(name, "tokens")) {
        wl_value *l = wl_list();
        for (int i = 0; i < h->n; i++) wl_list_push(l, wl_str(h->labels[i]));
        return l;
    }
    if (!strcmp(name, "weights")) {
        wl_value *l = wl_list();
        for (int k = 0; k < h->H; k++) {
            wl_value *row = wl_list();
            for (int i = 0; i < h->n; i++) wl_list_push(row, wl_num(h->w[(size_t)k * (size_t)h->n + (size_t)i]));
            wl_list_push(l, row);
        }
        return l;
    }
    wl_fail(err, "a head table has no field .%s; its fields are tokens weights", name);
    return NULL;
}

static const wl_objtype HEADS_T = {.name = "head table", .fields = "tokens weights", .free = heads_free,
                                   .render = heads_render, .field = heads_field};

static const lang_details *attention_details(wl_call *c)
{
    const lang_details *ld = wl_arg_obj(c, 0, &DETAILS_T);
    if (ld && !ld->d.weights) {
        wl_call_fail(c, "ArgumentError", wl_call_argword(c, 0), "an mlp has no attention weights; use an attention or multihead model");
        return NULL;
    }
    return ld;
}

/* weights[0, head, row, key] */
static double weight_at(const lang_details *ld, int head, int row, int key)
{
    const wl_details *d = &ld->d;
    return d->weights[(((size_t)head * (size_t)d->T) + (size_t)row) * (size_t)d->T + (size_t)key];
}

static int cmd_heads(wl_call *c, wl_value **out)
{
    const lang_details *ld = attention_details(c);
    long long q;
    if (!ld || wl_opt_int(c, "query", ld->nreal, 1, ld->nreal, &q)) return -1;
    lang_heads *h = calloc(1, sizeof *h);
    if (!h) abort();
    h->H = ld->d.H;
    h->n = ld->nreal;
    h->query = (int)q - 1;
    h->labels = real_labels(ld);
    h->w = malloc(sizeof(double) * (size_t)h->H * (size_t)h->n);
    if (!h->w) abort();
    int pad = WL_T - ld->nreal;
    for (int k = 0; k < h->H; k++)
        for (int i = 0; i < h->n; i++) h->w[(size_t)k * (size_t)h->n + (size_t)i] = weight_at(ld, k, pad + h->query, pad + i);
    *out = wl_obj(&HEADS_T, h);
    return 0;
}

typedef struct lang_attn {
    int nheads, first_head, n, from; /* n rows and keys, starting at slot from */
    char **labels;
    double *w;                       /* [nheads, n, n]; NaN where masked (above the diagonal) */
    int width;                       /* text columns */
} lang_attn;

static void attn_free(void *p)
{
    lang_attn *a = p;
    free_labels(a->labels, a->n);
    free(a->w);
    free(a);
}

static wl_heatmap attn_map(const lang_attn *a, int k, char *title, size_t cap)
{
    snprintf(title, cap, "head %d: each row is a query, each column a key (rows sum to 1)", a->first_head + k + 1);
    return (wl_heatmap){.title = title, .rows = a->n, .cols = a->n, .v = a->w + (size_t)k * (size_t)a->n * (size_t)a->n,
                        .row_labels = (const char *const *)a->labels, .col_labels = (const char *const *)a->labels,
                        .row_axis = "query", .col_axis = "key", .width = a->width};
}

static int attn_render(const void *p, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_attn *a = p;
    wl_buf t = {0}, s = {0}, h = {0}, j = {0};
    int y = 0, width = 0;
    char title[128];
    wl_buf_puts(&j, "{\"type\":\"attention\",\"tokens\":[");
    for (int i = 0; i < a->n; i++) {
        if (i) wl_buf_put(&j, ",", 1);
        wl_buf_json_str(&j, a->labels[i]);
    }
    wl_buf_puts(&j, "],\"heads\":[");
    for (int k = 0; k < a->nheads; k++) {
        wl_heatmap m = attn_map(a, k, title, sizeof title);
        char *mt = wl_heatmap_text(&m), *ms = wl_heatmap_svg(&m), *mh = wl_heatmap_html(&m);
        wl_buf_printf(&t, "%s%s", k ? "\n\n" : "", mt);
        int w = 0, hh = 0;
        sscanf(ms, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\"", &w, &hh);
        wl_buf_printf(&s, "<svg x=\"0\" y=\"%d\"%s", y, ms + 4);
        y += hh;
        if (w > width) width = w;
        wl_buf_puts(&h, mh);
        wl_buf_printf(&j, "%s{\"head\":%d,\"weights\":[", k ? "," : "", a->first_head + k + 1);
        for (int r = 0; r < a->n; r++) {
            wl_buf_puts(&j, r ? ",[" : "[");
            for (int col = 0; col < a->n; col++) {
                double v = m.v[(size_t)r * (size_t)a->n + (size_t)col];
                if (col) wl_buf_put(&j, ",", 1);
                wl_buf_json_num(&j, isnan(v) ? 0.0 : v);
            }
            wl_buf_put(&j, "]", 1);
        }
        wl_buf_puts(&j, "]}");
        free(mt);
        free(ms);
        free(mh);
    }
    wl_buf_puts(&j, "]}");
    out->text_plain = wl_buf_take(&t);
    wl_buf_printf(&t, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">%s</svg>",
                  width, y, width, y, s.s ? s.s : "");
    out->image_svg = wl_buf_take(&t);
    out->text_html = wl_buf_take(&h);
    out->app_json = wl_buf_take(&j);
    free(s.s);
    return 0;
}

static const wl_objtype ATTN_T = {.name = "attention map", .fields = "", .free = attn_free, .render = attn_render};

static int cmd_attention(wl_call *c, wl_value **out)
{
    const lang_details *ld = attention_details(c);
    long long head, pad;
    if (!ld || wl_opt_int(c, "head", 0, 0, ld->d.H, &head) || wl_opt_int(c, "pad", 0, 0, 1, &pad)) return -1;
    lang_attn *a = calloc(1, sizeof *a);
    if (!a) abort();
    a->first_head = head ? (int)head - 1 : 0;
    a->nheads = head ? 1 : ld->d.H;
    a->n = pad ? WL_T : ld->nreal;
    a->from = WL_T - a->n;
    a->width = wl_interp_options(c->in)->text_width;
    if (pad) {
        a->labels = calloc(WL_T, sizeof(char *));
        if (!a->labels) abort();
        const wl_vocab *v = ld->vocab ? lang_vocab_get(ld->vocab) : NULL;
        for (int i = 0; i < WL_T; i++) a->labels[i] = strdup(v ? lang_token(v, ld->ids[i]) : "?");
    } else {
        a->labels = real_labels(ld);
    }
    a->w = malloc(sizeof(double) * (size_t)a->nheads * (size_t)a->n * (size_t)a->n);
    if (!a->w) abort();
    for (int k = 0; k < a->nheads; k++)
        for (int r = 0; r < a->n; r++)
            for (int col = 0; col < a->n; col++)
                a->w[((size_t)k * (size_t)a->n + (size_t)r) * (size_t)a->n + (size_t)col] =
                    col > r ? NAN : weight_at(ld, a->first_head + k, a->from + r, a->from + col);
    *out = wl_obj(&ATTN_T, a);
    return 0;
}

const wl_command wl_cmds_model[] = {
    {.name = "model", .topic = "model", .synopsis = "model new|load|save|info ...",
     .summary = "make, load, save or describe a model",
     .help = "model new kind=multihead heads=4 vocab=V seed=11\n"
             "    a fresh model with PyTorch's initialization; kind is mlp, attention (one head) or\n"
             "    multihead (heads divides 64); vocab is a vocabulary ($stories.vocab) or its size.\n"
             "model load PATH [vocab=V]    a checkpoint (.npz) written by `model save` or the course\n"
             "model save MODEL PATH        write a checkpoint that NumPy and PyTorch can read\n"
             "model info MODEL             the model card: kind, heads, parameter count and shapes\n"
             "Fields: .kind .heads .parameters .seed .selected_step .test_loss .vocab",
     .example = "stories = corpus profile=smoke\nm = model new kind=multihead heads=4 vocab=$stories.vocab seed=11\n"
                "model info $m\nmodel new kind=mlp vocab=1500",
     .min_args = 1, .max_args = 3, .options = "kind heads vocab seed", .subcommands = "new load save info", .fn = cmd_model},
    {.name = "details", .topic = "model", .synopsis = "details MODEL IDS|TEXT [vocab=V]",
     .summary = "forward_details: every intermediate of one forward pass",
     .help = "Runs the model on one context of 64 ids (from `encode`, or text encoded with the\n"
             "model's vocabulary) and keeps every intermediate: E = token + position embeddings,\n"
             "Q K V split into heads, the scores and the attention weights, the messages, the\n"
             "contextual vectors and the logits. Shows their shapes; $d.weights etc. are tensors.\n"
             "vocab=V reads the text (and names the tokens) with V when the model has no vocabulary.",
     .example = "stories = corpus profile=smoke\nm = model new kind=multihead heads=4 vocab=$stories.vocab seed=11\n"
                "ids = encode \"a little dog found a red hat\" vocab=$stories\nd = details $m $ids\n$d\nprint $d.weights.0.3",
     .min_args = 2, .max_args = 2, .options = "vocab", .fn = cmd_details},
    {.name = "forward", .topic = "model", .synopsis = "forward MODEL IDS|TEXT [vocab=V]",
     .summary = "the model's forward: the last position's logits only, as training computes them",
     .help = "Runs the model on one context of 64 ids (from `encode`, or text encoded with the\n"
             "model's vocabulary or vocab=V) the way training and evaluation do: only the last\n"
             "query row is computed. The value is the logits tensor [1, V]; it must agree with\n"
             "the last row of `details` (forward_details), which computes every row:\n"
             "maxdiff [forward M IDS] $d.logits.",
     .example = "stories = corpus profile=smoke\nm = model new kind=multihead heads=4 vocab=$stories.vocab seed=11\n"
                "ids = encode \"a little dog found a red hat\" vocab=$stories\nf = forward $m $ids\n$f\n"
                "d = details $m $ids\nprint \"max |forward - details|:\" [maxdiff $f $d.logits]",
     .min_args = 2, .max_args = 2, .options = "vocab", .fn = cmd_forward},
    {.name = "maxdiff", .topic = "model", .synopsis = "maxdiff TENSOR TENSOR",
     .summary = "the largest absolute difference between two tensors of the same shape",
     .help = "max |a - b| over every element: 0 when two computations agree exactly, about 1e-6\n"
             "when they differ by float32 rounding only.",
     .example = "stories = corpus profile=smoke\nm = model new kind=attention vocab=$stories.vocab seed=11\n"
                "d = details $m \"the cat sat\"\nmaxdiff [forward $m \"the cat sat\"] $d.logits",
     .min_args = 2, .max_args = 2, .fn = cmd_maxdiff},
    {.name = "heads", .topic = "model", .synopsis = "heads DETAILS [query=N]",
     .summary = "the final query's attention weights per head over the real tokens",
     .help = "A table with one row per head and one column per real token (<BOS> and the prompt):\n"
             "the weights the last position gives each earlier token; each row sums to 1.\n"
             "query=N shows the row of the N-th real token instead of the last.",
     .example = "stories = corpus profile=smoke\nm = model new kind=multihead heads=4 vocab=$stories.vocab seed=11\n"
                "d = details $m \"a little dog found a red hat\"\nheads $d\nheads $d query=3",
     .min_args = 1, .max_args = 1, .options = "query", .fn = cmd_heads},
    {.name = "attention", .topic = "model", .synopsis = "attention DETAILS [head=N] [pad=1]",
     .summary = "heat map of every query row of one head or all heads",
     .help = "Each row is a query position, each column a key; darker is more weight. Keys after\n"
             "the query are masked (blank; · in a terminal). head=N shows head N alone; without head= every head is\n"
             "shown, one map after another. Over the real tokens unless pad=1 shows all 64 slots.\n"
             "In a terminal: Unicode shades; in a notebook: SVG and a shaded table.",
     .example = "stories = corpus profile=smoke\nm = model new kind=attention vocab=$stories.vocab seed=11\n"
                "d = details $m \"the cat sat on the mat\"\nattention $d head=1",
     .min_args = 1, .max_args = 1, .options = "head pad", .fn = cmd_attention},
    {0},
};

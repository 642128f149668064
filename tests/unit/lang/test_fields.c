/* test_fields.c: every value type's fields agree everywhere: the list its errors show, the names field access accepts,
 * its JSON, and the help of the command that makes it. */
#include "lang_int.h"
#include "lang_objs.h"
#include "lang_test.h"
#include "wl_test.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

/* A value of each type with fields, bound by the command that makes it (views of one type come from two commands). */
static const struct {
    const char *var, *code;
} VALUES[] = {
    {"stories", "stories = corpus profile=smoke"},
    {"v", "v = vocab $stories"},
    {"ids", "ids = encode \"a little dog found a red hat\" vocab=$stories"},
    {"m", "m = model new kind=multihead heads=4 vocab=$stories.vocab seed=11"},
    {"d", "d = details $m $ids"},
    {"dm", "dm = details [model new kind=mlp vocab=$stories.vocab seed=3] $ids"},
    {"f", "f = forward $m $ids"},
    {"h", "h = heads $d query=3"},
    {"g", "g = generate $m \"once upon a time\" tokens=3"},
    {"l", "l = losses $m \"the dog was happy .\""},
    {"n", "n = next $m \"once upon a\" top=3"},
    {"nt", "nt = next $m \"once upon a\" top=3 target=time"},
    {"p", "p = perplexity 0.5 0.25"},
    {"q", "q = nll 0.5 0.25"},
    {"t", "t = train $m $stories steps=2 batch=8 eval_every=1"},
    {"e", "e = evaluate $m $stories split=test"},
    {"c", "c = code attention"},
    {"cl", "cl = code"},
    {"sd", "sd = seq_data"},
    {"sh", "sh = seq_heads heads=1,2 runs=1 epochs=3"},
    {"so", "so = seq_order heads=2 runs=1 epochs=3"},
    {"sn", "sn = seq_train heads=2 epochs=3"},
    {"sw", "sw = seq_weights $sn"},
    {"sp", "sp = seq_params $sn"},
};

/* Every type with fields: each must be among the values above. */
static const wl_objtype *const TYPES[] = {
    &lang_corpus_type, &lang_vocab_type,       &lang_ids_type,        &lang_model_type,     &lang_details_type,
    &lang_tensor_type, &lang_heads_type,       &lang_generation_type, &lang_losses_type,    &lang_next_type,
    &lang_perplexity_type, &lang_nll_type,     &lang_run_type,        &lang_evaluation_type, &lang_code_type,
    &lang_seq_tables_type, &lang_seq_net_type, &lang_seq_weights_type, &lang_seq_params_type,
};
#define NTYPES (int)(sizeof TYPES / sizeof TYPES[0])

/* The list `$var.nosuchfield` shows after "its fields are ", up to the next ';' (malloc'd), or NULL. */
static char *listed_fields(wl_interp *in, const char *var)
{
    char code[96];
    snprintf(code, sizeof code, "$%s.nosuchfield", var);
    lt_run *r = lt_eval(in, code, NULL);
    const char *p = r->rc ? strstr(r->err.evalue, "its fields are ") : NULL;
    char *list = NULL;
    if (p) {
        p += strlen("its fields are ");
        list = wl_xstrndup(p, strcspn(p, ";,"));
    }
    CHECK_MSG(list != NULL && !strcmp(r->err.ename, "NameError"), "$%s.nosuchfield: %s: %s", var, r->err.ename, r->err.evalue);
    lt_free(r);
    return list;
}

/* The command whose help lists the fields of a value made by `var = NAME ...`. */
static const wl_command *maker(const char *code)
{
    char name[32];
    const char *eq = strstr(code, "= ");
    CHECK(eq && sscanf(eq + 2, "%31s", name) == 1);
    return wl_command_find(name);
}

/* Whether the type declares key as a member its JSON has besides its fields. */
static int json_only(const wl_objtype *t, const char *key)
{
    char buf[256];
    const char *words[16];
    int n = wl_split_words(t->json_only, buf, sizeof buf, words, 16);
    for (int i = 0; i < n; i++)
        if (!strcmp(words[i], key)) return 1;
    return 0;
}

static void check_json(const wl_value *v, const char *var, const char *const *names, int n)
{
    wl_mime m = {0};
    wl_err err = {{0}};
    CHECK(wl_value_render(v, &m, &err) == 0);
    cJSON *j = m.app_json ? cJSON_Parse(m.app_json) : NULL;
    CHECK_MSG(j != NULL, "$%s: its JSON does not parse", var);
    if (v->otype->numbers) {   /* a value that stands for numbers is them in JSON */
        CHECK_MSG(cJSON_IsArray(j), "$%s stands for numbers: its JSON is their list", var);
    } else if (j) {
        /* its own JSON (render's) or the one from its fields: every field shown in JSON is a key, with that value,
         * and every other key is "type" or one the type declares its JSON alone has */
        wl_mime own = {0};
        CHECK(v->otype->render(v->data, &own, &err) == 0);
        CHECK_MSG(own.app_json || !v->otype->json_only, "$%s: its JSON is its fields' but declares more", var);
        wl_mime_free(&own);
        for (const cJSON *k = j->child; k; k = k->next) {
            int known = !strcmp(k->string, "type") || json_only(v->otype, k->string);
            for (int i = 0; i < n && !known; i++) known = !strcmp(k->string, names[i]);
            CHECK_MSG(known, "$%s: its JSON has \"%s\", neither a field nor declared in json_only", var, k->string);
        }
        for (int i = 0; i < n; i++) {
            const wl_field *f = v->otype->fields;
            while (strcmp(f->name, names[i])) f++;
            if (f->no_json) {
                CHECK_MSG(!cJSON_HasObjectItem(j, f->name), "$%s: .%s is marked as left out of the JSON", var, f->name);
                continue;
            }
            const cJSON *item = cJSON_GetObjectItemCaseSensitive(j, f->name);
            CHECK_MSG(item != NULL, "$%s: field .%s is not in its JSON %.200s", var, f->name, m.app_json);
            wl_value *x = wl_value_field((wl_value *)v, f->name, &err);
            CHECK_MSG(x != NULL, "$%s.%s: %s", var, f->name, err.msg);
            wl_buf b = {0};
            if (x) wl_value_json(&b, x, &err);
            cJSON *want = b.s ? cJSON_Parse(b.s) : NULL;
            /* an object in the JSON is the structured form of a field shown as text (a corpus's audit table) */
            CHECK_MSG(!item || cJSON_IsObject(item) || cJSON_Compare(item, want, 1), "$%s: JSON \"%s\" differs from .%s",
                      var, f->name, f->name);
            cJSON_Delete(want);
            free(b.s);
            wl_unref(x);
        }
    }
    cJSON_Delete(j);
    wl_mime_free(&m);
}

static void test_every_type(void)
{
    wl_interp_opts o = {.allow_files = 1};
    wl_interp *in = wl_interp_new(&o);
    int seen[NTYPES] = {0};
    for (size_t k = 0; k < sizeof VALUES / sizeof VALUES[0]; k++) {
        lt_run *r = lt_eval(in, VALUES[k].code, NULL);
        CHECK_MSG(r->rc == 0, "%s: %s: %s", VALUES[k].code, r->err.ename, r->err.evalue);
        lt_free(r);
        wl_value *v = wl_interp_get(in, VALUES[k].var);
        if (!v || v->type != WL_V_OBJ) {
            CHECK_MSG(0, "%s gives no object", VALUES[k].code);
            continue;
        }
        for (int t = 0; t < NTYPES; t++) seen[t] |= v->otype == TYPES[t];
        const char *names[64];
        int n = wl_fields_names(v->otype, v->data, names, 64);
        CHECK_MSG(n > 0, "$%s has no fields", VALUES[k].var);

        /* the list its errors show: every field it has, and those only */
        wl_buf want = {0};
        for (int i = 0; i < n; i++) wl_buf_printf(&want, "%s.%s", i ? " " : "", names[i]);
        char *listed = listed_fields(in, VALUES[k].var);
        CHECK_MSG(listed && !strcmp(listed, want.s), "$%s: the error lists '%s', its fields are '%s'", VALUES[k].var,
                  listed ? listed : "(none)", want.s);
        free(listed);
        free(want.s);

        /* field access accepts each of them */
        for (int i = 0; i < n; i++) {
            char code[96];
            snprintf(code, sizeof code, "x = $%s.%s", VALUES[k].var, names[i]);
            r = lt_eval(in, code, NULL);
            CHECK_MSG(r->rc == 0, "%s: %s: %s", code, r->err.ename, r->err.evalue);
            lt_free(r);
        }

        check_json(v, VALUES[k].var, names, n);

        /* the help of the command that made it lists the fields of its type, each it can have */
        const wl_command *cmd = maker(VALUES[k].code);
        CHECK_MSG(cmd && cmd->result == v->otype, "%s: the command's help lists the fields of another type", VALUES[k].code);
        if (cmd) {
            wl_mime page = {0};
            wl_help_command(cmd, &page);
            const char *fields = page.text_plain ? strstr(page.text_plain, "Fields:") : NULL;
            CHECK_MSG(fields != NULL, "help %s lists no fields", cmd->name);
            for (int i = 0; fields && i < n; i++) {
                size_t len = strlen(names[i]);
                const char *p = fields;
                while ((p = strstr(p + 1, names[i])) && (p[-1] != '.' || (p[len] && !strchr(" \n", p[len])))) {}
                CHECK_MSG(p != NULL, "help %s does not list .%s", cmd->name, names[i]);
            }
            wl_mime_free(&page);
        }
    }
    for (int t = 0; t < NTYPES; t++) CHECK_MSG(seen[t], "no value of type %s was checked", TYPES[t]->name);
    wl_interp_free(in);
}

/* Fields only some values have are listed for those, and named with what brings them when missing. */
static void test_fields_some_values_have(void)
{
    wl_interp_opts o = {.allow_files = 1};
    wl_interp *in = wl_interp_new(&o);
    lt_run *r = lt_eval(in, "stories = corpus profile=smoke\nm = model new kind=attention vocab=$stories.vocab seed=1\n"
                            "n = next $m \"a dog\" top=2\nprint $n.p", NULL);
    const char *only = r->rc ? strstr(r->err.evalue, "; only with target=: .target .p .loss .rank") : NULL;
    CHECK_MSG(strstr(r->err.evalue, "has no field .p (only with target=)") && only &&
                  !memmem(r->err.evalue, (size_t)(only - r->err.evalue), ".rank", 5),
              "%s", r->err.evalue);
    lt_free(r);
    r = lt_eval(in, "print $m.vocab.sise", NULL);
    CHECK_MSG(r->rc == -1 && strstr(r->err.evalue, "did you mean .size"), "%s", r->err.evalue);
    lt_free(r);
    /* a display without fields says so */
    r = lt_eval(in, "a = attention [details $m \"a dog\"] head=1\nprint $a.x", NULL);
    CHECK_MSG(r->rc == -1 && strstr(r->err.evalue, "which has no fields"), "%s", r->err.evalue);
    lt_free(r);
    wl_interp_free(in);
}

/* A field that cannot be had is null in the JSON from the fields, and its error is the getter's. */
static wl_value *broken_get(wl_value *self, wl_err *err)
{
    (void)self;
    wl_fail(err, "too large to show");
    return NULL;
}
static wl_value *fine_get(wl_value *self, wl_err *err)
{
    (void)self;
    (void)err;
    return wl_int(7);
}
static int plain_render(const void *data, wl_mime *out, wl_err *err)
{
    (void)data;
    (void)err;
    out->text_plain = wl_xstrdup("a test value");
    return 0;
}

static void test_field_that_cannot_be_had(void)
{
    static const wl_field fields[] = {{.name = "fine", .get = fine_get}, {.name = "broken", .get = broken_get}, {0}};
    static const wl_objtype type = {.name = "test value", .fields = fields, .render = plain_render};
    wl_value *v = wl_obj(&type, NULL);
    wl_mime m = {0};
    wl_err err = {{0}};
    CHECK(wl_value_render(v, &m, &err) == 0);
    CHECK_MSG(m.app_json && !strcmp(m.app_json, "{\"type\":\"test value\",\"fine\":7,\"broken\":null}"), "%s",
              m.app_json ? m.app_json : "(none)");
    wl_mime_free(&m);
    wl_err e2 = {{0}};
    CHECK(wl_value_field(v, "broken", &e2) == NULL && !strcmp(e2.msg, "too large to show"));
    wl_unref(v);
}

/* A type whose fields are members of every kind read as they are, and whose data owns a string, an array and a value:
 * the fields' values and JSON, and (under the sanitizers) each owned member freed once with the data. */
typedef struct member_test {
    int i;
    long l;
    long long ll;
    unsigned long ul;
    unsigned long long ull;
    double d;
    char *s;
    const char *cs;
    char chars[8];
    wl_value *v;
    double *arr;
} member_test;

static void test_member_fields(void)
{
    static const wl_field fields[] = {
        {WL_FIELD_MEMBER("i", member_test, i)},     {WL_FIELD_MEMBER("l", member_test, l)},
        {WL_FIELD_MEMBER("ll", member_test, ll)},
        {WL_FIELD_MEMBER("ul", member_test, ul)},   {WL_FIELD_MEMBER("ull", member_test, ull)},
        {WL_FIELD_MEMBER("d", member_test, d)},     {WL_FIELD_MEMBER("s", member_test, s)},
        {WL_FIELD_MEMBER("cs", member_test, cs)},   {WL_FIELD_CHARS("chars", member_test, chars)},
        {WL_FIELD_MEMBER("v", member_test, v)},     {0},
    };
    static const wl_owned owns[] = {WL_OWNS(member_test, s), WL_OWNS(member_test, v), WL_OWNS(member_test, arr), {0}};
    static const wl_objtype type = {.name = "member test", .fields = fields, .owns = owns, .render = plain_render};
    member_test *m = wl_xcalloc(1, sizeof *m);
    *m = (member_test){.i = -3, .l = -40000000000L, .ll = -5000000000LL, .ul = 4000000000ul, .ull = 7, .d = 0.25, .s = wl_xstrdup("owned"),
                       .cs = "static", .chars = "abc", .v = wl_str("inner"), .arr = wl_xmalloc(4 * sizeof(double))};
    wl_value *v = wl_obj(&type, m);
    wl_mime out = {0};
    wl_err err = {{0}};
    CHECK(wl_value_render(v, &out, &err) == 0);
    CHECK_MSG(out.app_json && !strcmp(out.app_json, "{\"type\":\"member test\",\"i\":-3,\"l\":-40000000000,\"ll\":-5000000000,"
                                                    "\"ul\":4000000000,\"ull\":7,\"d\":0.25,\"s\":\"owned\","
                                                    "\"cs\":\"static\",\"chars\":\"abc\",\"v\":\"inner\"}"),
              "%s", out.app_json ? out.app_json : "(none)");
    wl_mime_free(&out);
    wl_value *inner = wl_value_field(v, "v", &err);
    CHECK(inner == m->v && inner->refs == 2);   /* a new reference to the member's value */
    wl_unref(inner);
    wl_unref(v);   /* frees s, v, arr and the data: a leak or a double free fails the _asan copy */
}

void wl_test_main(void)
{
    test_member_fields();
    test_field_that_cannot_be_had();
    test_every_type();
    test_fields_some_values_have();
}

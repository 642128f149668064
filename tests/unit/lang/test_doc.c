/* test_doc.c: the command table documents itself: every command has its help, and every help example runs. */
#include "lang_test.h"
#include "wl_cmd.h"
#include "wl_test.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* The values Tab completes for an option belong to one of its options and are named in its help. */
static void check_choices(const wl_command *c)
{
    if (!c->choices) return;
    char buf[512], key[64];
    snprintf(buf, sizeof buf, "%s", c->choices);
    char *save, *save2;
    for (char *e = strtok_r(buf, " ", &save); e; e = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(e, '=');
        CHECK_MSG(eq && eq > e, "%s: choices entry '%s' is not key=a|b", c->name, e);
        if (!eq) continue;
        snprintf(key, sizeof key, " %.*s ", (int)(eq - e), e);
        char opts[256];
        snprintf(opts, sizeof opts, " %s ", c->options ? c->options : "");
        CHECK_MSG(strstr(opts, key) != NULL, "%s: choices for%sbut no such option", c->name, key);
        for (char *v = strtok_r(eq + 1, "|", &save2); v; v = strtok_r(NULL, "|", &save2))
            CHECK_MSG(strstr(c->synopsis, v) || strstr(c->help, v), "%s: choice %s is not in its help", c->name, v);
    }
}

static void test_entries_complete(void)
{
    int n = 0;
    for (const wl_command *c; (c = wl_command_at(n)); n++) {
        CHECK_MSG(c->topic && c->topic[0], "%s has no topic", c->name);
        CHECK_MSG(c->synopsis && !strncmp(c->synopsis, c->name, strlen(c->name)), "%s: synopsis must start with the name", c->name);
        CHECK_MSG(c->summary && c->summary[0], "%s has no summary", c->name);
        CHECK_MSG(c->help && strlen(c->help) > 20, "%s has no long help", c->name);
        CHECK_MSG(c->example && strstr(c->example, c->name), "%s: its example does not use it", c->name);
        CHECK_MSG(c->fn != NULL, "%s has no handler", c->name);
        CHECK_MSG(c->max_args < 0 || c->max_args >= c->min_args, "%s: arity", c->name);
        CHECK_MSG(wl_command_find(c->name) == c, "%s is defined twice", c->name);
        /* `help NAME` shows it, and the overview lists it */
        char code[128];
        snprintf(code, sizeof code, "help %s", c->name);
        lt_run *r = lt_eval(NULL, code, NULL);
        CHECK_MSG(r->rc == 0 && strstr(lt_text(r), c->synopsis) && strstr(lt_text(r), "example:"), "help %s", c->name);
        lt_free(r);
        r = lt_eval(NULL, "help", NULL);
        CHECK_MSG(strstr(lt_text(r), c->summary) != NULL, "`help` does not list %s", c->name);
        lt_free(r);
        check_choices(c);
    }
    CHECK(n >= 20);
}

/* Runs every example in a fresh interpreter inside a scratch directory (examples may write files). */
static void test_examples_run(void)
{
    char dir[] = "/tmp/wordlab-doctest-XXXXXX";
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);
    for (int i = 0; wl_command_at(i); i++) {
        const wl_command *c = wl_command_at(i);
        lt_run *r = lt_eval(NULL, c->example, NULL);
        CHECK_MSG(r->rc == 0, "the example of %s fails: %s: %s", c->name, r->err.ename, r->err.evalue);
        lt_free(r);
    }
    CHECK(chdir(cwd) == 0);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void wl_test_main(void)
{
    test_entries_complete();
    test_examples_run();
}

/* lang_tinystories.c: `corpus source=tinystories`: its options, the live page display and the messages of a fetch. */
#include "lang_objs.h"
#include "wl_tinystories.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct fetch_ui {
    wl_call *c;
    const char *profile;
    char id[64];
    int shown;
} fetch_ui;

static int ui_counter;

/* "page 12/60 [=====>          ] 20%" as text, a <progress> bar in HTML. */
static void show_pages(fetch_ui *ui, const wl_ts_event *e)
{
    const wl_sink *s = ui->c->sink;
    if (!s || !s->display) return;
    int width = 24, fill = e->pages ? (int)((double)width * (double)e->done / (double)e->pages) : 0;
    int pct = e->pages ? (int)(100.0 * (double)e->done / (double)e->pages) : 0;
    wl_buf b = {0};
    wl_buf_printf(&b, "TinyStories %s: page %zu/%zu [", ui->profile, e->done, e->pages);
    for (int i = 0; i < width; i++) wl_buf_puts(&b, i < fill ? "=" : i == fill ? ">" : " ");
    wl_buf_printf(&b, "] %d%%", pct);
    if (e->resumed) wl_buf_printf(&b, " (%zu kept from an earlier fetch)", e->resumed);
    wl_mime m = {0};
    m.text_plain = wl_buf_take(&b);
    wl_buf_printf(&b, "<div class=\"wordlab-fetch\"><progress value=\"%zu\" max=\"%zu\"></progress> ", e->done, e->pages);
    wl_buf_html(&b, m.text_plain);
    wl_buf_puts(&b, "</div>");
    m.text_html = wl_buf_take(&b);
    s->display(s->ud, ui->id, &m, ui->shown);
    ui->shown = 1;
    wl_mime_free(&m);
}

static void on_event(void *ud, const wl_ts_event *e)
{
    fetch_ui *ui = ud;
    if (e->kind == WL_TS_EV_REVISION)
        wl_sink_printf(ui->c->sink, "TinyStories: the Hub reports the pinned revision %s; fetching %zu pages of %d rows\n",
                       WL_TS_REVISION, e->pages, WL_TS_PAGE_ROWS);
    else if (e->kind == WL_TS_EV_RETRY && e->asked_s > WL_TS_RETRY_AFTER_MAX_S)
        wl_sink_printf(ui->c->sink, "TinyStories: attempt %d of %d failed (%s: %s); the server asked to wait %.10g s; next "
                       "attempt in %.1f s (the cap)\n", e->attempt, WL_TS_ATTEMPTS, e->why, e->url, e->asked_s, e->wait_s);
    else if (e->kind == WL_TS_EV_RETRY)
        wl_sink_printf(ui->c->sink, "TinyStories: attempt %d of %d failed (%s: %s); next attempt in %.1f s\n", e->attempt,
                       WL_TS_ATTEMPTS, e->why, e->url, e->wait_s);
    else if (e->kind == WL_TS_EV_REFETCH)
        wl_sink_printf(ui->c->sink, "TinyStories: the kept page %s\n", e->why);
    else
        show_pages(ui, e);
}

/* The options that only go with source=tinystories. */
static const char *const TS_OPTS[] = {"cache", "api", "time_scale", "timeout", "deadline"};

int lang_tinystories_corpus(wl_call *c, const wl_profile *prof, wl_corpus *out)
{
    const char *source = wl_opt_str(c, "source", NULL);
    if (wl_opt_has(c, "source") && !source) return -1;
    for (size_t i = 0; !source && i < sizeof TS_OPTS / sizeof TS_OPTS[0]; i++)
        if (wl_opt_has(c, TS_OPTS[i]))
            return wl_call_fail(c, "ArgumentError", wl_call_optword(c, TS_OPTS[i]), "%s= goes with source=tinystories",
                                TS_OPTS[i]);
    if (!source || strcmp(source, "tinystories"))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "source"),
                            "unknown source \"%s\" (the source is tinystories; without source= the embedded generator)",
                            source ? source : "");
    static const char *const EXCLUSIVE[] = {"file", "seed", "stories"};
    for (size_t i = 0; i < sizeof EXCLUSIVE / sizeof EXCLUSIVE[0]; i++)
        if (wl_opt_has(c, EXCLUSIVE[i]))
            return wl_call_fail(c, "ArgumentError", wl_call_optword(c, EXCLUSIVE[i]),
                                "%s= does not go with source=tinystories (the profile fixes the course's subset)", EXCLUSIVE[i]);
    if (!c->allow_files)
        return wl_call_fail(c, "PermissionError", wl_call_optword(c, "source"), "writing the download cache is disabled here");
    const wl_interp_opts *opts = wl_interp_options(c->in);
    const char *api = wl_opt_str(c, "api", NULL), *cache = wl_opt_str(c, "cache", NULL);
    double scale, request_s, fetch_s;
    if ((wl_opt_has(c, "api") && !api) || (wl_opt_has(c, "cache") && !cache) || wl_opt_num(c, "time_scale", 1, &scale) ||
        wl_opt_num(c, "timeout", WL_TS_REQUEST_S, &request_s) || wl_opt_num(c, "deadline", WL_TS_FETCH_S, &fetch_s))
        return -1;
    if (!(scale >= 0 && scale <= 1))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "time_scale"), "time_scale must be between 0 and 1");
    if (!(request_s >= 0.1 && request_s <= 86400))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "timeout"), "timeout= (seconds per request) must be "
                            "from 0.1 to 86400");
    if (!(fetch_s >= 0.1 && fetch_s <= 7 * 86400))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "deadline"), "deadline= (seconds for the whole fetch) "
                            "must be from 0.1 to 604800");
    if (api && strncmp(api, "http://", 7) && strncmp(api, "https://", 8))
        return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "api"), "api= must be an http:// or https:// base URL");
    for (const char *p = api; p && *p; p++)
        if (*p <= ' ' || *p >= 0x7f)
            return wl_call_fail(c, "ArgumentError", wl_call_optword(c, "api"), "api= must be a URL of printable ASCII");
    if (!cache && !opts->cache_dir)
        return wl_call_fail(c, "RuntimeError", 0, "no cache directory is known here; give one with cache=DIR");
    wl_buf rb = {0};
    if (cache) wl_buf_puts(&rb, cache);
    else wl_buf_printf(&rb, "%s/tinystories", opts->cache_dir);
    char *root = wl_buf_take(&rb);

    fetch_ui ui = {.c = c, .profile = prof->name};
    snprintf(ui.id, sizeof ui.id, "wordlab-fetch-%d-%d", (int)(time(NULL) % 100000), ++ui_counter);
    size_t n = api ? strlen(api) : 0;
    char base[1024];
    snprintf(base, sizeof base, "%.*s", (int)(n && api[n - 1] == '/' ? n - 1 : n), api ? api : "");
    wl_ts_config cfg = {.profile = prof->name, .stories = prof->stories, .root = root,
                        .hub_base = api ? base : WL_TS_HUB_BASE, .rows_base = api ? base : WL_TS_ROWS_BASE,
                        .time_scale = scale, .request_s = request_s, .fetch_s = fetch_s, .http = opts->http, .interrupt = lang_interrupt(c),
                        .on_event = on_event, .ud = &ui};
    wl_ts_result res;
    int fetched = wl_ts_fetch(&cfg, &res, c->err);
    free(root);
    if (fetched) {
        c->errword = wl_call_optword(c, "source");
        return -1;
    }
    char *shown_path = wl_path_shown(res.path);
    const char *shown = shown_path ? shown_path : res.path;   /* NULL only when memory runs out */
    if (res.cached)
        wl_sink_printf(c->sink, "TinyStories %s subset: %zu stories from the cache %s (SHA-256 %s, verified)\n", prof->name,
                       res.stories, shown, res.sha256);
    else {
        char kept[64] = "";
        if (res.resumed) snprintf(kept, sizeof kept, " (%zu of them kept from an earlier fetch)", res.resumed);
        wl_sink_printf(c->sink, "TinyStories %s subset: %zu stories in %zu pages%s saved to %s (SHA-256 %s)\n", prof->name,
                       res.stories, res.pages, kept, shown, res.sha256);
    }
    if (res.course_match == 1)
        wl_sink_printf(c->sink, "this is the course's dgx subset: its SHA-256 matches the published %s\n", WL_TS_DGX_SHA256);
    else if (res.course_match == 0)
        wl_sink_printf(c->sink, "warning: this is not the course's dgx subset: the course published SHA-256 %s\n",
                       WL_TS_DGX_SHA256);
    int loaded = wl_corpus_load_mem(res.data, res.len, shown, WL_CORPUS_JSONL, prof, lang_interrupt(c), out, c->err);
    free(res.data);
    if (loaded) {
        free(shown_path);
        return -1;
    }
    free(out->source);
    wl_buf src = {0};
    wl_buf_printf(&src, "TinyStories %.12s, train split, the course's %s subset (%s)", WL_TS_REVISION, prof->name, shown);
    out->source = wl_buf_take(&src);
    free(shown_path);
    return 0;
}

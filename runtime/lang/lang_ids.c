/* lang_ids.c: the ids value: a context of T token ids as encode makes it (cropped from the left, left-padded). */
#include "lang_objs.h"

#include "wl_context.h"

#include <stdlib.h>
#include <string.h>

static void ids_free(void *d)
{
    lang_ids *li = d;
    free(li->ids);
    wl_unref(li->vocab);
    free(li);
}

static int ids_render(const void *d, wl_mime *out, wl_err *err)
{
    (void)err;
    const lang_ids *li = d;
    const wl_vocab *v = li->vocab ? lang_vocab_get(li->vocab) : NULL;
    int npad = li->T - li->nreal;
    wl_buf b = {0}, h = {0};
    wl_buf_printf(&b, "ids [1,%d]: ", li->T);
    if (npad) wl_buf_printf(&b, "%d × <PAD>=0, then ", npad);
    for (int i = npad; i < li->T; i++) wl_buf_printf(&b, "%s%d", i > npad ? " " : "", li->ids[i]);
    if (li->cropped) wl_buf_printf(&b, "\n(cropped: the first %d ids did not fit)", li->cropped);
    wl_buf_puts(&h, "<p>");   /* the HTML: the same lines, then the slots as a table */
    wl_buf_html_lines(&h, b.s);
    wl_buf_puts(&h, "</p>");
    if (v) {
        wl_buf_puts(&b, "\ntokens:");
        for (int i = npad; i < li->T; i++) wl_buf_printf(&b, " %s", lang_token(v, li->ids[i]));
    }
    out->text_plain = wl_buf_take(&b);
    wl_table *t = wl_table_new(li->nreal + 1);
    wl_table_header_cols(t, 1);
    wl_table_title(t, "");
    wl_table_cellf(t, -1, "slot (of %d; %d padding)", li->T, npad);
    for (int i = npad; i < li->T; i++) wl_table_cellf(t, -1, "%d", i);
    wl_table_cell(t, "id", -1);
    for (int i = npad; i < li->T; i++) wl_table_cellf(t, -1, "%d", li->ids[i]);
    if (v) {
        wl_table_cell(t, "tokens", -1);
        for (int i = npad; i < li->T; i++) wl_table_cell(t, lang_token(v, li->ids[i]), -1);
    }
    char *html = wl_table_html(t);
    wl_table_free(t);
    wl_buf_puts(&h, html);
    free(html);
    out->text_html = wl_buf_take(&h);
    wl_buf_printf(&b, "{\"type\":\"ids\",\"shape\":[1,%d],\"ids\":[", li->T);
    for (int i = 0; i < li->T; i++) wl_buf_printf(&b, "%s%d", i ? "," : "", li->ids[i]);
    wl_buf_printf(&b, "],\"padding\":%d,\"cropped\":%d}", npad, li->cropped);
    out->app_json = wl_buf_take(&b);
    return 0;
}

static wl_value *ids_field(wl_value *self, const char *name, wl_err *err)
{
    const lang_ids *li = self->data;
    int npad = li->T - li->nreal;
    if (!strcmp(name, "ids") || !strcmp(name, "real")) {
        wl_value *l = wl_list();
        for (int i = !strcmp(name, "ids") ? 0 : npad; i < li->T; i++) wl_list_push(l, wl_int(li->ids[i]));
        return l;
    }
    if (!strcmp(name, "tokens") && li->vocab) {
        wl_value *l = wl_list();
        for (int i = npad; i < li->T; i++) wl_list_push(l, wl_str(lang_token(lang_vocab_get(li->vocab), li->ids[i])));
        return l;
    }
    if (!strcmp(name, "count")) return wl_int(li->nreal);
    if (!strcmp(name, "shape")) {
        wl_value *l = wl_list();
        wl_list_push(l, wl_int(1));
        wl_list_push(l, wl_int(li->T));
        return l;
    }
    wl_fail(err, "ids have no field .%s; their fields are %s", name, lang_ids_type.fields);
    return NULL;
}

const wl_objtype lang_ids_type = {.name = "ids", .fields = "ids real tokens count shape", .free = ids_free,
                                  .render = ids_render, .field = ids_field};

wl_value *lang_ids_value(const int32_t *history, int nhistory, int T, wl_value *vocab)
{
    lang_ids *li = wl_xcalloc(1, sizeof *li);
    li->ids = wl_xmalloc(sizeof(int32_t) * (size_t)T);   /* T is at most encode's context=4096 */
    li->T = T;
    li->cropped = (int)wl_context_window(history, (size_t)nhistory, li->ids, (size_t)T);
    li->nreal = nhistory - li->cropped;
    li->vocab = wl_ref(vocab);
    return wl_obj(&lang_ids_type, li);
}

/* cmd_table.c: the one command table: the per-topic arrays (one cmd_<topic>.c each) in help order. Add a topic in both
 * lists. */
#include "wl_cmd.h"

#include <string.h>

extern const wl_command wl_cmds_basics[], wl_cmds_corpus[], wl_cmds_text[], wl_cmds_model[], wl_cmds_train[],
    wl_cmds_evaluate[], wl_cmds_cross_entropy[], wl_cmds_arith[], wl_cmds_io[], wl_cmds_seq[];

static const wl_command *const TABLES[] = {wl_cmds_basics, wl_cmds_corpus,        wl_cmds_text,  wl_cmds_model,
                                            wl_cmds_train,  wl_cmds_evaluate,      wl_cmds_cross_entropy,
                                            wl_cmds_arith,  wl_cmds_io,            wl_cmds_seq};

const wl_command *wl_command_at(int i)
{
    if (i < 0) return NULL;
    for (size_t t = 0; t < sizeof TABLES / sizeof TABLES[0]; t++)
        for (const wl_command *c = TABLES[t]; c->name; c++)
            if (i-- == 0) return c;
    return NULL;
}

const wl_command *wl_command_find(const char *name)
{
    for (size_t t = 0; t < sizeof TABLES / sizeof TABLES[0]; t++)
        for (const wl_command *c = TABLES[t]; c->name; c++)
            if (!strcmp(c->name, name)) return c;
    return NULL;
}

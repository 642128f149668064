/* kernel_conn.c: reads a Jupyter connection file into socket endpoints and the signing key. */
#include "kernel_conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "wl_core.h"

static const char *PORT_KEYS[WL_NCH] = {"shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"};

static int fail(char *why, size_t cap, const char *path, const char *what)
{
    snprintf(why, cap, "connection file %s: %s", path, what);
    return -1;
}

int wl_conn_read(const char *path, wl_conn *c, char *why, size_t cap)
{
    memset(c, 0, sizeof *c);
    wl_err err;
    char *text;
    size_t len;
    if (wl_read_file(path, &text, &len, &err)) {
        snprintf(why, cap, "%s", err.msg);
        return -1;
    }
    cJSON *j = cJSON_ParseWithLength(text, len);
    free(text);
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return fail(why, cap, path, "is not a JSON object");
    }
    int rc = -1;
    const cJSON *transport = cJSON_GetObjectItemCaseSensitive(j, "transport");
    const cJSON *ip = cJSON_GetObjectItemCaseSensitive(j, "ip");
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(j, "key");
    const cJSON *scheme = cJSON_GetObjectItemCaseSensitive(j, "signature_scheme");
    const char *tr = !transport ? "tcp" : cJSON_IsString(transport) ? transport->valuestring : "";   /* absent: tcp */
    if (strcmp(tr, "tcp") && strcmp(tr, "ipc")) {
        fail(why, cap, path, "transport must be \"tcp\" or \"ipc\"");
        goto out;
    }
    if (!cJSON_IsString(ip) || !ip->valuestring[0] || strlen(ip->valuestring) > 200) {
        fail(why, cap, path, "\"ip\" must be a non-empty string");
        goto out;
    }
    if (key && !cJSON_IsString(key)) {
        fail(why, cap, path, "\"key\" must be a string");
        goto out;
    }
    if (scheme && (!cJSON_IsString(scheme) || strcmp(scheme->valuestring, "hmac-sha256"))) {
        char what[200];
        snprintf(what, sizeof what, "signature_scheme %.100s is not supported; use \"hmac-sha256\"",
                 cJSON_IsString(scheme) ? scheme->valuestring : "(not a string)");
        fail(why, cap, path, what);
        goto out;
    }
    static const char *const WILDCARDS[] = {"0.0.0.0", "*", "::", "[::]"};
    for (size_t i = 0; i < sizeof WILDCARDS / sizeof WILDCARDS[0]; i++)
        c->every_interface |= !strcmp(tr, "tcp") && !strcmp(ip->valuestring, WILDCARDS[i]);
    for (int i = 0; i < WL_NCH; i++) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, PORT_KEYS[i]);
        if (!cJSON_IsNumber(p) || p->valuedouble < 1 || p->valuedouble > 65535 ||
            p->valuedouble != (int)p->valuedouble) {
            char what[80];
            snprintf(what, sizeof what, "\"%s\" must be a port number 1..65535", PORT_KEYS[i]);
            fail(why, cap, path, what);
            goto out;
        }
        snprintf(c->endpoint[i], sizeof c->endpoint[i], "%s://%s%s%d", tr, ip->valuestring,
                 strcmp(tr, "tcp") ? "-" : ":", (int)p->valuedouble);
    }
    const char *k = cJSON_IsString(key) ? key->valuestring : "";
    c->keylen = strlen(k);
    c->key = malloc(c->keylen + 1);
    if (!c->key) {
        fail(why, cap, path, "out of memory");
        goto out;
    }
    memcpy(c->key, k, c->keylen + 1);
    rc = 0;
out:
    cJSON_Delete(j);
    return rc;
}

void wl_conn_free(wl_conn *c)
{
    free(c->key);
    c->key = NULL;
}

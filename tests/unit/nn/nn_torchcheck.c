/* nn_torchcheck.c: test helper for tests/py/test_torch_model.py: runs a model on weights and a batch from raw files.
 *
 * Usage: nn_torchcheck DIR. DIR/manifest.json is {"kind": "multihead", "heads": 4, "V": 50, "B": 8}; DIR holds
 * param.<name>.bin (float32 little-endian, PyTorch names and shapes), ctx.bin (int32 [B,64]) and tgt.bin
 * (int32 [B]). Writes out.logits.bin (forward), out.loss.bin (float64), out.grad.<name>.bin (loss backward) and
 * out.details.<field>.bin (forward_details) into DIR. Exit status 0 on success; errors go to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rawio.h"
#include "wl_model.h"

static int run(const char *dir, wl_err *err)
{
    cJSON *j = rawio_manifest(dir, err);
    if (!j) return -1;
    const cJSON *kind = cJSON_GetObjectItem(j, "kind"), *heads = cJSON_GetObjectItem(j, "heads"),
                *V = cJSON_GetObjectItem(j, "V"), *Bj = cJSON_GetObjectItem(j, "B");
    if (!cJSON_IsString(kind) || !cJSON_IsNumber(heads) || !cJSON_IsNumber(V) || !cJSON_IsNumber(Bj)) {
        cJSON_Delete(j);
        return wl_fail(err, "%s/manifest.json needs kind, heads, V and B", dir);
    }
    wl_model m;
    int rc = wl_model_init(&m, kind->valuestring, V->valueint, heads->valueint, 0, err);
    int B = Bj->valueint;
    cJSON_Delete(j);
    if (rc) return -1;
    float *logits = malloc(sizeof(float) * B * m.V);
    rawio_run r = {0};
    wl_details d = {0};
    double loss;
    rc = -1;
    if (rawio_views(&m, dir, "param.", 0, m.params, 0, err) || rawio_run_init(&r, &m, dir, B, (size_t)B, err)) goto done;
    if (!logits) {
        wl_fail(err, "out of memory");
        goto done;
    }
    if (wl_model_forward(&m, r.ws, r.ctx, B, logits, err) ||
        rawio_write(rawio_path(dir, "out.", "logits"), logits, sizeof(float) * B * m.V, err))
        goto done;
    if (wl_model_loss(&m, r.ws, r.ctx, r.tgt, B, &loss, r.grads, err) ||
        rawio_write(rawio_path(dir, "out.", "loss"), &loss, sizeof loss, err))
        goto done;
    if (rawio_views(&m, dir, "out.grad.", 0, r.grads, 1, err)) goto done;
    if (wl_model_details(&m, r.ws, r.ctx, B, &d, err)) goto done;
    size_t N = (size_t)B * WL_T, HTT = (size_t)d.H * WL_T * WL_T;
    struct { const char *name; const float *p; size_t n; } fields[] = {
        {"E", d.E, N * WL_D}, {"Q", d.Q, N * WL_D}, {"K", d.K, N * WL_D}, {"V", d.Vv, N * WL_D},
        {"scores", d.scores, B * HTT}, {"weights", d.weights, B * HTT}, {"messages", d.messages, N * WL_D},
        {"contextual", d.contextual, N * WL_D}, {"logits_all", d.logits_all, N * m.V}, {"logits", d.logits, B * (size_t)m.V},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (fields[i].p && rawio_write(rawio_path(dir, "out.details.", fields[i].name), fields[i].p,
                                     sizeof(float) * fields[i].n, err))
            goto done;
    rc = 0;
done:
    wl_details_free(&d);
    rawio_run_free(&r);
    free(logits);
    wl_model_free(&m);
    return rc;
}

RAWIO_MAIN("nn_torchcheck", run)

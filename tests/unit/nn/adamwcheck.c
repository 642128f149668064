/* adamwcheck.c: test helper for tests/py/test_torch_adamw.py: a few training steps (loss, clipping, AdamW) on raw files.
 *
 * Usage: nn_adamwcheck DIR. DIR/manifest.json is {"kind": "multihead", "heads": 4, "V": 50, "B": 16, "steps": 5,
 * "lr": 0.003, "weight_decay": 0.001, "clip": 1.0}; DIR holds param.<name>.bin (float32 little-endian, PyTorch
 * names and shapes), ctx.bin (int32 [steps,B,64]) and tgt.bin (int32 [steps,B]). Each step runs wl_model_loss
 * with gradients, wl_clip_factor and wl_adamw_step on that step's batch. With "given_grads": true in the manifest
 * the gradients are read from grad.<step>.<name>.bin instead (the optimizer alone is checked); with "write_grads":
 * true each step's gradients before clipping go to out.grad.<step>.<name>.bin. With "teacher_forced": true each
 * step starts from PyTorch's state before it (tf.<step>.param.<name>.bin, tf.<step>.m.<name>.bin and
 * tf.<step>.v.<name>.bin: parameters and AdamW moments after <step> steps) and its result goes to
 * out.param.<step>.<name>.bin, so every step is compared on its own. With "load": "FILE.npz" the
 * starting parameters come from that checkpoint (wl_checkpoint_load) instead of the .bin files, and with "save":
 * "FILE.npz" the final parameters are also saved as a checkpoint (wl_checkpoint_save). Writes
 * out.param.<name>.bin (the parameters after the last step), out.loss.bin and out.norm.bin (float64 [steps]:
 * batch loss and gradient norm before clipping) into DIR. Exit status 0 on success; errors go to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rawio.h"
#include "wl_checkpoint.h"
#include "wl_train.h"

static double number(const cJSON *j, const char *key, int *ok)
{
    const cJSON *v = cJSON_GetObjectItem(j, key);
    if (!cJSON_IsNumber(v)) *ok = 0;
    return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

static int run(const char *dir, wl_err *err)
{
    cJSON *j = rawio_manifest(dir, err);
    if (!j) return -1;
    int ok = 1;
    const cJSON *kind = cJSON_GetObjectItem(j, "kind");
    int heads = (int)number(j, "heads", &ok), V = (int)number(j, "V", &ok), B = (int)number(j, "B", &ok);
    int steps = (int)number(j, "steps", &ok);
    double lr = number(j, "lr", &ok), wd = number(j, "weight_decay", &ok), clip = number(j, "clip", &ok);
    int given = cJSON_IsTrue(cJSON_GetObjectItem(j, "given_grads"));
    int dump = cJSON_IsTrue(cJSON_GetObjectItem(j, "write_grads"));
    int forced = cJSON_IsTrue(cJSON_GetObjectItem(j, "teacher_forced"));
    const cJSON *load = cJSON_GetObjectItem(j, "load"), *save = cJSON_GetObjectItem(j, "save");
    char load_path[4096] = "", save_path[4096] = "";
    if (cJSON_IsString(load)) snprintf(load_path, sizeof load_path, "%s/%s", dir, load->valuestring);
    if (cJSON_IsString(save)) snprintf(save_path, sizeof save_path, "%s/%s", dir, save->valuestring);
    wl_model m;
    int rc = -1;
    if (!cJSON_IsString(kind) || !ok || B < 1 || steps < 1) {
        cJSON_Delete(j);
        return wl_fail(err, "%s/manifest.json needs kind, heads, V, B, steps, lr, weight_decay and clip", dir);
    }
    rc = load_path[0] ? wl_checkpoint_load(load_path, V, NULL, &m, NULL, err)
                      : wl_model_init(&m, kind->valuestring, V, heads, 0, err);
    cJSON_Delete(j);
    if (rc) return -1;
    double *loss = malloc(sizeof(double) * steps), *norm = malloc(sizeof(double) * steps);
    rawio_run r = {0};
    wl_adamw opt = {0};
    rc = -1;
    if ((!load_path[0] && rawio_views(&m, dir, "param.", 0, m.params, 0, err)) ||
        rawio_run_init(&r, &m, dir, B, (size_t)steps * B, err) ||
        wl_adamw_init(&opt, m.nparams, lr, wd, err))
        goto done;
    if (!loss || !norm) {
        wl_fail(err, "out of memory");
        goto done;
    }
    for (int s = 0; s < steps; s++) {
        if (forced) {
            if (rawio_views(&m, dir, "tf.%d.param.", s, m.params, 0, err) || rawio_views(&m, dir, "tf.%d.m.", s, opt.m, 0, err) ||
                rawio_views(&m, dir, "tf.%d.v.", s, opt.v, 0, err))
                goto done;
            opt.t = s;
        }
        if (wl_model_loss(&m, r.ws, r.ctx + (size_t)s * B * WL_T, r.tgt + (size_t)s * B, B, &loss[s], r.grads, err) ||
            (given && rawio_views(&m, dir, "grad.%d.", s, r.grads, 0, err)) ||
            (dump && rawio_views(&m, dir, "out.grad.%d.", s, r.grads, 1, err)))
            goto done;
        float f = wl_clip_factor(r.grads, m.nparams, clip, &norm[s]);
        wl_adamw_step(&opt, m.params, r.grads, f);
        if (forced && rawio_views(&m, dir, "out.param.%d.", s, m.params, 1, err)) goto done;
    }
    if (rawio_views(&m, dir, "out.param.", 0, m.params, 1, err) ||
        rawio_write(rawio_path(dir, "out.", "loss"), loss, sizeof(double) * steps, err) ||
        rawio_write(rawio_path(dir, "out.", "norm"), norm, sizeof(double) * steps, err) ||
        (save_path[0] &&
         wl_checkpoint_save(save_path, &m, 0, steps, loss[steps - 1], "{\"source\": \"nn_adamwcheck\"}", err)))
        goto done;
    rc = 0;
done:
    wl_adamw_free(&opt);
    rawio_run_free(&r);
    free(loss);
    free(norm);
    wl_model_free(&m);
    return rc;
}

RAWIO_MAIN("nn_adamwcheck", run)

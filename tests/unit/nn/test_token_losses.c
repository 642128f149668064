/* test_token_losses.c: wl_layers_token_losses: -ln softmax per row against hand-computed values, large logits, rows apart. */
#include <math.h>
#include <stdint.h>

#include "wl_layers.h"
#include "wl_test.h"

static void test_known_values(void)
{
    /* softmax(ln 1, ln 2, ln 3) = 1/6, 2/6, 3/6 */
    const float z[3] = {0.0f, logf(2.0f), logf(3.0f)};
    double loss[3];
    const int32_t tgt[3] = {0, 1, 2};
    for (int k = 0; k < 3; k++) wl_layers_token_losses(&loss[k], z, &tgt[k], 1, 3);
    CHECK_MSG(fabs(loss[0] - log(6.0)) < 1e-6, "loss %.9f, want ln 6", loss[0]);
    CHECK_MSG(fabs(loss[1] - log(3.0)) < 1e-6, "loss %.9f, want ln 3", loss[1]);
    CHECK_MSG(fabs(loss[2] - log(2.0)) < 1e-6, "loss %.9f, want ln 2", loss[2]);
    /* equal logits: the uniform model's ln V */
    const float flat[5] = {0.25f, 0.25f, 0.25f, 0.25f, 0.25f};
    const int32_t t3 = 3;
    wl_layers_token_losses(loss, flat, &t3, 1, 5);
    CHECK_MSG(fabs(loss[0] - log(5.0)) < 1e-12, "loss %.15f, want ln 5", loss[0]);
}

static void test_large_and_rows(void)
{
    /* logits of 1000 overflow exp() unless the maximum is taken out first; -inf (a banned word) has p = 0 */
    const float z[2][4] = {{1000.0f, 1000.0f, -INFINITY, 990.0f}, {-3.0f, 7.0f, 7.0f, 7.0f}};
    const int32_t tgt[2] = {1, 0};
    double loss[2];
    wl_layers_token_losses(loss, &z[0][0], tgt, 2, 4);
    double want0 = log(2.0 + exp(-10.0));            /* -ln (e^1000 / (2 e^1000 + e^990)) */
    double want1 = 10.0 + log(3.0 + exp(-10.0));     /* -ln (e^-3 / (e^-3 + 3 e^7)) */
    CHECK_MSG(isfinite(loss[0]) && fabs(loss[0] - want0) < 1e-9, "row 0: %.12f, want %.12f", loss[0], want0);
    CHECK_MSG(fabs(loss[1] - want1) < 1e-9, "row 1: %.12f, want %.12f (each row has its own maximum)", loss[1], want1);
}

void wl_test_main(void)
{
    test_known_values();
    test_large_and_rows();
}

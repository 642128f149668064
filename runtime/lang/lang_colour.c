/* lang_colour.c: the colour scales of the pictures (sequential, diverging, loss), WCAG contrast, and text chosen from its background. */
#include "lang_int.h"

#include <math.h>

/* Nine stops each, from the ColorBrewer schemes Blues, RdBu (reversed: negative blue, positive red) and Reds. */
static const wl_rgb SEQUENTIAL[9] = {{247, 251, 255}, {222, 235, 247}, {198, 219, 239}, {158, 202, 225}, {107, 174, 214},
                                     {66, 146, 198},  {33, 113, 181},  {8, 81, 156},    {8, 48, 107}};
static const wl_rgb DIVERGING[9] = {{33, 102, 172},  {67, 147, 195},  {146, 197, 222}, {209, 229, 240}, {247, 247, 247},
                                    {253, 219, 199}, {244, 165, 130}, {214, 96, 77},   {178, 24, 43}};
static const wl_rgb LOSS[9] = {{255, 245, 240}, {254, 224, 210}, {252, 187, 161}, {252, 146, 114}, {251, 106, 74},
                               {239, 59, 44},   {203, 24, 29},   {165, 15, 21},    {103, 0, 13}};

wl_rgb wl_scale_rgb(wl_scale scale, double t)
{
    const wl_rgb *stops = scale == WL_SCALE_DIVERGING ? DIVERGING : scale == WL_SCALE_LOSS ? LOSS : SEQUENTIAL;
    if (scale == WL_SCALE_DIVERGING) t = (t + 1) / 2;   /* [-1, 1] onto the stops */
    if (!(t > 0)) t = 0;
    if (t > 1) t = 1;
    double x = t * 8;
    int i = x >= 8 ? 7 : (int)x;
    double f = x - i;
    wl_rgb a = stops[i], b = stops[i + 1];
    return (wl_rgb){(unsigned char)lround(a.r + f * (b.r - a.r)), (unsigned char)lround(a.g + f * (b.g - a.g)),
                    (unsigned char)lround(a.b + f * (b.b - a.b))};
}

static double channel(int c)
{
    double s = c / 255.0;
    return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4);
}

double wl_rgb_luminance(wl_rgb c) { return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b); }

double wl_rgb_contrast(wl_rgb a, wl_rgb b)
{
    double la = wl_rgb_luminance(a), lb = wl_rgb_luminance(b);
    return (fmax(la, lb) + 0.05) / (fmin(la, lb) + 0.05);
}

/* Black or white, whichever contrasts more with bg: at least 4.58:1 over any background. */
wl_rgb wl_rgb_text_on(wl_rgb bg)
{
    static const wl_rgb BLACK = {0, 0, 0}, WHITE = {255, 255, 255};
    return wl_rgb_contrast(bg, BLACK) >= wl_rgb_contrast(bg, WHITE) ? BLACK : WHITE;
}

void wl_buf_shade_style(wl_buf *b, wl_scale scale, double t)
{
    wl_rgb bg = wl_scale_rgb(scale, t), fg = wl_rgb_text_on(bg);
    wl_buf_printf(b, "background:#%02x%02x%02x;color:#%02x%02x%02x;forced-color-adjust:none", bg.r, bg.g, bg.b, fg.r, fg.g, fg.b);
}

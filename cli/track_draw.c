/* track_draw.c - `satfeat track --draw`: the tracks' tails and positions drawn into RGB frames
 * with a tiny line and circle rasteriser of its own. */
#include "track_cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cli_tails_free(cli_tails *t)
{
    free(t->items);
    free(t->spare);
    memset(t, 0, sizeof *t);
}

int cli_tails_update(cli_tails *t, const satfeat_track *tracks, size_t n)
{
    if (n > t->cap) {
        cli_tail *a = realloc(t->items, n * sizeof *a);
        if (!a) return 0;
        t->items = a;
        cli_tail *b = realloc(t->spare, n * sizeof *b);
        if (!b) return 0;
        t->spare = b;
        t->cap = n;
    }
    /* both lists ascend by id: one merge pass; a live track not among the old tails is new */
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        while (j < t->n && t->items[j].id < tracks[i].id) j++;
        cli_tail *dst = &t->spare[i];
        if (j < t->n && t->items[j].id == tracks[i].id) {
            *dst = t->items[j];
        } else {
            dst->id = tracks[i].id;
            dst->n = 0;
        }
        if (dst->n == CLI_TAIL_LEN) {
            memmove(dst->xy, dst->xy + 2, (size_t)(CLI_TAIL_LEN - 1) * 2 * sizeof(double));
            dst->n--;
        }
        dst->xy[2 * dst->n] = tracks[i].x;
        dst->xy[2 * dst->n + 1] = tracks[i].y;
        dst->n++;
    }
    cli_tail *swap = t->items;
    t->items = t->spare;
    t->spare = swap;
    t->n = n;
    return 1;
}

/* Sets one pixel when it lies inside the image. */
static void put(uint8_t *rgb, int w, int h, long x, long y, const uint8_t c[3])
{
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    uint8_t *p = rgb + ((size_t)y * (size_t)w + (size_t)x) * 3;
    p[0] = c[0];
    p[1] = c[1];
    p[2] = c[2];
}

/* A line from (x0, y0) to (x1, y1): one pixel per step along the longer axis (DDA, rounded).
 * Points are track positions, inside or near the frame, so no clipping is needed beyond put's. */
static void line(uint8_t *rgb, int w, int h, double x0, double y0, double x1, double y1,
                 const uint8_t c[3])
{
    if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1)) return;
    const double dx = x1 - x0, dy = y1 - y0;
    const double len = fmax(fabs(dx), fabs(dy));
    if (len > 4.0 * (w + h)) return; /* not a track step: skip rather than walk far */
    const int steps = (int)ceil(len);
    for (int s = 0; s <= steps; s++) {
        const double t = steps ? (double)s / steps : 0.0;
        put(rgb, w, h, lround(x0 + t * dx), lround(y0 + t * dy), c);
    }
}

/* A circle outline of radius r around (cx, cy): pixels whose distance to the centre rounds to r. */
static void circle(uint8_t *rgb, int w, int h, double cx, double cy, int r, const uint8_t c[3])
{
    if (!isfinite(cx) || !isfinite(cy)) return;
    const long x0 = lround(cx), y0 = lround(cy);
    for (long y = -r - 1; y <= r + 1; y++)
        for (long x = -r - 1; x <= r + 1; x++) {
            const double d = sqrt((double)(x * x + y * y));
            if (fabs(d - r) < 0.5) put(rgb, w, h, x0 + x, y0 + y, c);
        }
}

void cli_draw_tracks(uint8_t *rgb, const uint8_t *gray, int width, int height,
                     const satfeat_track *tracks, size_t n, const cli_tails *tails)
{
    static const uint8_t inlier[3] = {0, 230, 0}, other[3] = {240, 30, 30};
    const size_t pixels = (size_t)width * (size_t)height;
    for (size_t i = 0; i < pixels; i++) rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = gray[i];
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *c = tracks[i].inlier ? inlier : other;
        while (j < tails->n && tails->items[j].id < tracks[i].id) j++;
        if (j < tails->n && tails->items[j].id == tracks[i].id) {
            const cli_tail *t = &tails->items[j];
            for (int k = 1; k < t->n; k++)
                line(rgb, width, height, t->xy[2 * k - 2], t->xy[2 * k - 1], t->xy[2 * k],
                     t->xy[2 * k + 1], c);
        }
        circle(rgb, width, height, tracks[i].x, tracks[i].y, 3, c);
    }
}

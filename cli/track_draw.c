/* track_draw.c - `satfeat track --draw`: the tracks' tails and positions drawn into RGB frames
 * (lines and circles of draw_raster.c). */
#include "draw_raster.h"
#include "track_cli.h"

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

void cli_draw_tracks(uint8_t *rgb, const uint8_t *gray, int width, int height,
                     const satfeat_track *tracks, size_t n, const cli_tails *tails)
{
    static const uint8_t inlier[3] = {0, 230, 0}, other[3] = {240, 30, 30};
    const cli_canvas canvas = {rgb, width, height};
    cli_canvas_paste_gray(&canvas, 0, 0, gray, width, height);
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *c = tracks[i].inlier ? inlier : other;
        while (j < tails->n && tails->items[j].id < tracks[i].id) j++;
        if (j < tails->n && tails->items[j].id == tracks[i].id) {
            const cli_tail *t = &tails->items[j];
            for (int k = 1; k < t->n; k++)
                cli_draw_line(&canvas, t->xy[2 * k - 2], t->xy[2 * k - 1], t->xy[2 * k],
                              t->xy[2 * k + 1], c);
        }
        cli_draw_circle(&canvas, tracks[i].x, tracks[i].y, 3.0, c);
    }
}

/* spatial_grid.c - the uniform point grid of spatial_grid.h. */
#include "track/spatial_grid.h"

#include <stdlib.h>
#include <string.h>

#define SPATIAL_GRID_MAX_CELLS (1 << 20)

int satfeat_spatial_grid_init(spatial_grid *g, int width, int height, double radius, size_t cap)
{
    memset(g, 0, sizeof *g);
    double cell = radius;
    for (;;) {
        const double gw = (double)width / cell + 1.0, gh = (double)height / cell + 1.0;
        if (gw * gh <= (double)SPATIAL_GRID_MAX_CELLS) break;
        cell *= 2.0;
    }
    g->cell = cell;
    g->gw = (int)((double)width / cell) + 1;
    g->gh = (int)((double)height / cell) + 1;
    g->cap = cap;
    g->head = malloc((size_t)g->gw * (size_t)g->gh * sizeof *g->head);
    g->next = malloc((cap ? cap : 1) * sizeof *g->next);
    g->x = malloc((cap ? cap : 1) * sizeof *g->x);
    g->y = malloc((cap ? cap : 1) * sizeof *g->y);
    if (!g->head || !g->next || !g->x || !g->y) {
        satfeat_spatial_grid_free(g);
        return -1;
    }
    satfeat_spatial_grid_clear(g);
    return 0;
}

void satfeat_spatial_grid_free(spatial_grid *g)
{
    free(g->head);
    free(g->next);
    free(g->x);
    free(g->y);
    memset(g, 0, sizeof *g);
}

void satfeat_spatial_grid_clear(spatial_grid *g)
{
    if (g->head) memset(g->head, 0xff, (size_t)g->gw * (size_t)g->gh * sizeof *g->head);
    g->n = 0;
}

/* The cell coordinate of v along an axis of `n` cells, clamped into the grid. */
static int cell_of(const spatial_grid *g, double v, int n)
{
    const double c = v / g->cell;
    if (!(c >= 0.0)) return 0; /* NaN and negatives: the first cell */
    return c >= (double)(n - 1) ? n - 1 : (int)c;
}

void satfeat_spatial_grid_insert(spatial_grid *g, double x, double y)
{
    if (g->n >= g->cap) return;
    const int id = (int)g->n++;
    const int c = cell_of(g, y, g->gh) * g->gw + cell_of(g, x, g->gw);
    g->x[id] = x;
    g->y[id] = y;
    g->next[id] = g->head[c];
    g->head[c] = id;
}

int satfeat_spatial_grid_any_within(const spatial_grid *g, double x, double y, double r2)
{
    const int cx = cell_of(g, x, g->gw), cy = cell_of(g, y, g->gh);
    for (int j = cy > 0 ? cy - 1 : 0; j <= cy + 1 && j < g->gh; j++)
        for (int i = cx > 0 ? cx - 1 : 0; i <= cx + 1 && i < g->gw; i++)
            for (int id = g->head[j * g->gw + i]; id >= 0; id = g->next[id]) {
                const double dx = g->x[id] - x, dy = g->y[id] - y;
                if (dx * dx + dy * dy < r2) return 1;
            }
    return 0;
}

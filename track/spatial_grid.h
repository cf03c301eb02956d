/* spatial_grid.h - a uniform grid of points for "is any point within r of (x, y)" queries in
 * O(1) per query (the tracker's keypoint thinning and birth spacing; they were quadratic). */
#ifndef SATFEAT_SPATIAL_GRID_H
#define SATFEAT_SPATIAL_GRID_H

#include <stddef.h>

typedef struct spatial_grid {
    double cell;     /* cell side, >= the query radius */
    int gw, gh;      /* cells across and down */
    int *head;       /* per cell: the last point inserted there, or -1 */
    int *next;       /* per point: the previous point of its cell, or -1 */
    double *x, *y;   /* per point: its position */
    size_t cap;      /* points it can hold */
    size_t n;        /* points inserted since the last clear */
} spatial_grid;

/** Allocates a grid over a width x height area for queries of radius up to `radius` (> 0) and
 * up to `cap` points. The cells grow past `radius` until there are at most 2^20 of them. Returns
 * 0, or -1 when memory runs out (the grid is then empty and may be freed). */
int satfeat_spatial_grid_init(spatial_grid *g, int width, int height, double radius, size_t cap);

/** Frees a grid's memory (a zeroed or failed grid is fine). */
void satfeat_spatial_grid_free(spatial_grid *g);

/** Empties the grid. */
void satfeat_spatial_grid_clear(spatial_grid *g);

/** Adds a point (positions outside the area fall into the border cells); at most cap points. */
void satfeat_spatial_grid_insert(spatial_grid *g, double x, double y);

/** 1 when some inserted point lies at squared distance < r2 from (x, y) (r2 <= cell^2), else 0:
 * the same answer as checking every inserted point. */
int satfeat_spatial_grid_any_within(const spatial_grid *g, double x, double y, double r2);

#endif

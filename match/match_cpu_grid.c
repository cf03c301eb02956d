/* match_cpu_grid.c - the CPU matcher's path for radius-gated problems: the trains are bucketed
 * into a grid of cells about one radius wide, and each query visits only the cells its radius
 * can reach, so a guided pass costs what its neighbourhoods hold instead of every pair.
 *
 * It gives the brute-force paths' result bit for bit: a pair is a candidate exactly when the
 * shared gate (satfeat_match_gate) passes, its distance is the shared order's
 * (descriptor_distance.h, 8 dims a vector on AVX2, which is exactly that order), and the
 * best/second and per-train nearest-query states are order-independent minima, so visiting the
 * candidates cell by cell changes nothing. The cells a query visits cover its radius with a
 * margin far beyond the rounding of the gate's arithmetic for coordinates within
 * SATFEAT_MATCH_GRID_MAX_COORD; beyond that (or with non-finite train positions) the caller
 * keeps the brute-force path. */
#include "match/match_cpu_grid.h"

#include "match/descriptor_distance.h"

#include <math.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define MATCH_GRID_AVX2 1
#endif

/* The grid: cell (cx, cy) holds the trains order[start[c] .. start[c + 1]), c = cy * nx + cx,
 * in increasing index. */
typedef struct match_grid {
    double x0, y0, cell; /* origin (smallest train coordinates) and cell side */
    int nx, ny;
    const int32_t *start, *order;
} match_grid;

int satfeat_match_grid_applies(const satfeat_match_problem *p)
{
    if (!(p->radius2 > 0.0) || p->n2 < 1) return 0;
    const double lim = SATFEAT_MATCH_GRID_MAX_COORD;
    if (!(sqrt(p->radius2) <= lim)) return 0;
    for (int j = 0; j < p->n2; j++)
        if (!(fabs(p->kp2[j].x) <= lim && fabs(p->kp2[j].y) <= lim)) return 0;
    return 1;
}

/* Most cells of a grid of n2 trains: 4 a train (plus a few), at most 2^28 (int indices). */
static double max_cells_of(int n2)
{
    return fmin(4.0 * n2 + 64.0, 268435456.0);
}

size_t satfeat_match_grid_scratch_bytes(int n2)
{
    /* the cells' start offsets and one end offset, then one order entry a train */
    return ((size_t)max_cells_of(n2) + 1u + (size_t)n2) * sizeof(int32_t);
}

/* Cell index along one axis of coordinate v (origin o, side c), clamped to [0, n - 1]. */
static int cell_of(double v, double o, double c, int n)
{
    const double k = floor((v - o) / c);
    if (!(k >= 0.0)) return 0;
    if (k >= (double)(n - 1)) return n - 1;
    return (int)k;
}

/* Builds the grid of p's trains in `mem` (satfeat_match_grid_scratch_bytes(n2) bytes). */
static match_grid grid_build(const satfeat_match_problem *p, int32_t *mem)
{
    double x0 = p->kp2[0].x, x1 = x0, y0 = p->kp2[0].y, y1 = y0;
    for (int j = 1; j < p->n2; j++) {
        x0 = fmin(x0, p->kp2[j].x), x1 = fmax(x1, p->kp2[j].x);
        y0 = fmin(y0, p->kp2[j].y), y1 = fmax(y1, p->kp2[j].y);
    }
    match_grid g;
    g.x0 = x0, g.y0 = y0;
    /* one radius a cell (a query then visits about 3 x 3 cells), wider when that would make
     * more cells than 4 per train */
    g.cell = fmax(sqrt(p->radius2), 1e-3);
    const double max_cells = max_cells_of(p->n2);
    for (;;) {
        const double nx = floor((x1 - x0) / g.cell) + 1.0, ny = floor((y1 - y0) / g.cell) + 1.0;
        if (nx * ny <= max_cells) {
            g.nx = (int)nx, g.ny = (int)ny;
            break;
        }
        g.cell *= 2.0;
    }
    const int cells = g.nx * g.ny;
    int32_t *start = mem, *order = mem + cells + 1;
    memset(start, 0, ((size_t)cells + 1) * sizeof *start);
    for (int j = 0; j < p->n2; j++) {
        const int c = cell_of(p->kp2[j].y, y0, g.cell, g.ny) * g.nx +
                      cell_of(p->kp2[j].x, x0, g.cell, g.nx);
        start[c + 1]++;
    }
    for (int c = 0; c < cells; c++) start[c + 1] += start[c];
    /* fill in increasing index: the cell's next free slot is start[c] advanced; restore after */
    for (int j = 0; j < p->n2; j++) {
        const int c = cell_of(p->kp2[j].y, y0, g.cell, g.ny) * g.nx +
                      cell_of(p->kp2[j].x, x0, g.cell, g.nx);
        order[start[c]++] = j;
    }
    for (int c = cells; c > 0; c--) start[c] = start[c - 1];
    start[0] = 0;
    g.start = start, g.order = order;
    return g;
}

#ifdef MATCH_GRID_AVX2
/* The shared distance order with the 8 lanes in one vector: lane k sums dims k, k+8, ...;
 * folding the halves, then lanes 0/2 and 1/3, is descriptor_distance.h's tree. */
__attribute__((target("avx2"))) static float dist_avx2(const float *a, const float *b, int dim)
{
    __m256 acc = _mm256_setzero_ps();
    for (int m = 0; m < dim; m += SATFEAT_DESC_LANES) {
        const __m256 t = _mm256_sub_ps(_mm256_loadu_ps(a + m), _mm256_loadu_ps(b + m));
        acc = _mm256_add_ps(acc, _mm256_mul_ps(t, t));
    }
    const __m128 h = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
    const __m128 q = _mm_add_ps(h, _mm_movehl_ps(h, h)); /* (s0+s4)+(s2+s6), (s1+s5)+(s3+s7) */
    return _mm_cvtss_f32(_mm_add_ss(q, _mm_shuffle_ps(q, q, 1)));
}
#endif

/* Squared distance of query row q and train row t in the shared order. */
static float dist_of(const float *q, const float *t, int dim, int avx2)
{
#ifdef MATCH_GRID_AVX2
    if (avx2) return dist_avx2(q, t, dim);
#endif
    (void)avx2;
    return satfeat_desc_dist_sq(q, t, dim);
}

/* Query i: every train of the cells its radius reaches, through the shared gate. */
static void row_grid(const satfeat_match_problem *p, const match_grid *g, int i, int avx2,
                     float *colb, int32_t *coli, satfeat_match_top2 *row)
{
    satfeat_match_top2 t = satfeat_match_top2_empty();
    double qx, qy;
    satfeat_match_query_pos(p, i, &qx, &qy);
    const double lim = SATFEAT_MATCH_GRID_MAX_COORD;
    /* a query beyond the trains' coordinates by more than the radius reaches none (and a
     * non-finite one passes no gate) */
    if (!(fabs(qx) <= 2.0 * lim && fabs(qy) <= 2.0 * lim)) {
        *row = t;
        return;
    }
    /* the gate's rounding for coordinates within lim is below 1e-8 px: 1e-6 px of margin */
    const double reach = sqrt(p->radius2) * (1.0 + 1e-12) + 1e-6;
    const double kx0 = floor((qx - reach - g->x0) / g->cell), kx1 = floor((qx + reach - g->x0) / g->cell);
    const double ky0 = floor((qy - reach - g->y0) / g->cell), ky1 = floor((qy + reach - g->y0) / g->cell);
    if (kx1 < 0.0 || ky1 < 0.0 || kx0 > g->nx - 1 || ky0 > g->ny - 1) {
        *row = t;
        return;
    }
    const int cx0 = kx0 < 0.0 ? 0 : (int)kx0, cx1 = kx1 > g->nx - 1 ? g->nx - 1 : (int)kx1;
    const int cy0 = ky0 < 0.0 ? 0 : (int)ky0, cy1 = ky1 > g->ny - 1 ? g->ny - 1 : (int)ky1;
    const float *q = p->desc1 + (size_t)i * (size_t)p->dim;
    const int lq = p->kp1[i].laplacian;
    for (int cy = cy0; cy <= cy1; cy++) {
        const int32_t *o = g->order + g->start[cy * g->nx + cx0];
        const int32_t *end = g->order + g->start[cy * g->nx + cx1 + 1];
        for (; o < end; o++) {
            const int j = *o;
            const satfeat_keypoint *k = &p->kp2[j];
            if (!satfeat_match_gate(p->same_laplacian, lq, k->laplacian, p->radius2, qx, qy, k->x,
                                    k->y))
                continue;
            const float d = dist_of(q, p->desc2 + (size_t)j * (size_t)p->dim, p->dim, avx2);
            if (!satfeat_match_dist_ok(d)) continue;
            satfeat_match_top2_add(&t, d, j);
            if (satfeat_match_before(d, i, colb[j], coli[j])) {
                colb[j] = d;
                coli[j] = i;
            }
        }
    }
    *row = t;
}

void satfeat_match_grid_rows(const satfeat_match_problem *p, int threads, void *mem,
                             float *colb, int32_t *coli, size_t col_stride,
                             satfeat_match_top2 *rows)
{
    const match_grid g = grid_build(p, (int32_t *)mem);
    int avx2 = 0;
#ifdef MATCH_GRID_AVX2
    avx2 = __builtin_cpu_supports("avx2");
#endif
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        int tid, i0, i1;
        satfeat_match_thread_queries(p->n1, &tid, &i0, &i1);
        float *cb = colb + (size_t)tid * col_stride;
        int32_t *ci = coli + (size_t)tid * col_stride;
        for (int i = i0; i < i1; i++) row_grid(p, &g, i, avx2, cb, ci, &rows[i]);
    }
}

/* test_spatial_grid.c - the tracker's point grid (track/spatial_grid.c) answers "any point
 * within r" exactly as a scan of every point does: random points inside, on and outside the
 * area, random query radii up to the cell radius, a radius that forces larger cells, NaN. */
#include "track/spatial_grid.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>

/* xorshift64 in [0, 1). */
static double urand(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static int brute(const double *x, const double *y, size_t n, double qx, double qy, double r2)
{
    for (size_t i = 0; i < n; i++) {
        const double dx = x[i] - qx, dy = y[i] - qy;
        if (dx * dx + dy * dy < r2) return 1;
    }
    return 0;
}

/* n points over a w x h area (10% of them up to 20 px outside), q queries, radius r. */
static void check(int w, int h, double r, size_t n, size_t q, uint64_t seed)
{
    spatial_grid g;
    assert_int_equal(satfeat_spatial_grid_init(&g, w, h, r, n), 0);
    assert_true(g.cell >= r);
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    assert_true(x && y);
    uint64_t s = seed;
    for (int round = 0; round < 2; round++) {
        satfeat_spatial_grid_clear(&g);
        for (size_t i = 0; i < n; i++) {
            const int out = urand(&s) < 0.1;
            x[i] = out ? -20 + (w + 40) * urand(&s) : (w - 1) * urand(&s);
            y[i] = out ? -20 + (h + 40) * urand(&s) : (h - 1) * urand(&s);
            satfeat_spatial_grid_insert(&g, x[i], y[i]);
        }
        size_t hits = 0;
        for (size_t k = 0; k < q; k++) {
            double qx = -25 + (w + 50) * urand(&s), qy = -25 + (h + 50) * urand(&s);
            const double rr = r * urand(&s), r2 = rr * rr;
            if (k % 2) { /* half the queries near a point, at up to 1.5 rr */
                const size_t i = (size_t)(urand(&s) * (double)n);
                qx = x[i] + 1.5 * rr * (2 * urand(&s) - 1);
                qy = y[i] + 1.5 * rr * (2 * urand(&s) - 1);
            }
            const int a = satfeat_spatial_grid_any_within(&g, qx, qy, r2);
            assert_int_equal(a, brute(x, y, n, qx, qy, r2));
            hits += (size_t)a;
        }
        assert_true(hits > 0 && hits < q); /* both answers occur */
    }
    assert_int_equal(satfeat_spatial_grid_any_within(&g, NAN, 5.0, r * r), 0);
    /* beyond cap: ignored, not written */
    satfeat_spatial_grid_clear(&g);
    for (size_t i = 0; i < n + 5; i++) satfeat_spatial_grid_insert(&g, 1.0, 1.0);
    assert_int_equal(g.n, n);
    free(x);
    free(y);
    satfeat_spatial_grid_free(&g);
}

static void test_against_scan(void **state)
{
    (void)state;
    check(640, 480, 4.0, 1500, 20000, 1);
    check(1920, 1080, 4.0, 3000, 20000, 2);
    check(97, 61, 13.0, 200, 5000, 3);
    check(4096, 4096, 0.5, 2000, 20000, 4); /* 2^25 cells at 0.5 px: the cells grow */
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_against_scan)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

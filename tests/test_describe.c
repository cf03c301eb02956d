/* test_describe.c - orientation and SURF descriptors on the CPU: recovered rotations, matching
 * under rotation and scale, upright mode, invariants of the vectors, thread-count independence,
 * and the CPU time of ~2000 keypoints at 1920x1080 (printed, not asserted). */
#include "describe/angle_math.h"
#include "describe/describe.h"
#include "describe_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PI SATFEAT_AM_PI

/* Angle difference wrapped to [0, pi]. */
static double angle_dist(double a, double b)
{
    double d = fmod(fabs(a - b), 2 * PI);
    return d > PI ? 2 * PI - d : d;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Index of the keypoint of `kp` at (x, y) within `tol` px with size within 20% of `size` and
 * the given Laplacian sign, or -1. */
static long find_kp(const satfeat_keypoint *kp, size_t n, double x, double y, double size,
                    int laplacian, double tol)
{
    long best = -1;
    double bd = tol * tol;
    for (size_t i = 0; i < n; i++) {
        const double dx = kp[i].x - x, dy = kp[i].y - y;
        const double d = dx * dx + dy * dy;
        if (d <= bd && kp[i].laplacian == laplacian && fabs(kp[i].size / size - 1.0) < 0.2) {
            bd = d;
            best = (long)i;
        }
    }
    return best;
}

/* Keypoints, table and optional descriptors of one image. */
typedef struct described {
    int w, h;
    uint32_t *t;
    satfeat_keypoint *kp;
    size_t n;
    float *d;
} described;

static described describe_image(const uint8_t *img, int w, int h, int upright, int dim,
                                const satfeat_describe_weights *wt)
{
    described r;
    r.w = w;
    r.h = h;
    r.t = du_table(img, w, h);
    r.kp = du_detect(img, w, h, 0, &r.n);
    if (!upright) satfeat_orient_cpu(r.t, (size_t)w + 1, w, h, r.kp, r.n, wt, 2);
    r.d = malloc((r.n + 1) * (size_t)dim * sizeof *r.d);
    assert_non_null(r.d);
    satfeat_describe_cpu(r.t, (size_t)w + 1, w, h, r.kp, r.n, upright, dim, wt, r.d, 2);
    return r;
}

static void described_free(described *r)
{
    free(r->t);
    free(r->kp);
    free(r->d);
}

/*
 * A texture rotated (bilinear) by several angles: the orientation of each keypoint found at the
 * corresponding position (within 1 px, size within 20%, same Laplacian) in both images must
 * differ by the rotation. Asserted: at least 40 pairs per angle; for 90 degrees (where the
 * sample grid and the boxes map onto themselves; the detector's positions differ by rounding)
 * median below 1 degree and 80% within 3 degrees; for the other angles median below 6 degrees
 * and 80% within 15 degrees. Axis-aligned box Haar responses are anisotropic (a step edge at
 * angle t to an axis answers at atan(tan t / (2 - tan t)), 20 -> 12.5 degrees) and the sliding
 * window's maximum is often flat; the grid of step s/2 with Haar side 3s and sigma 2.5s measured
 * a median of 3.7-4.8 degrees (34-41% within 3, 82-88% within 15) where Bay's grid of step s with
 * side 4s and sigma 2s gave 6-8 degrees (25-30% within 3, 75-83% within 15). A wrong sign or a
 * broken window fails these bounds.
 */
static void test_orientation_recovers_rotation(void **state)
{
    (void)state;
    const int w = 512, h = 512;
    const double c = 255.5;
    test_rng rng;
    test_rng_seed(&rng, 21);
    du_blob *b = du_random_blobs(&rng, w, h, 500);
    uint8_t *img = du_render(b, 500, w, h, 1.0, 0.0, 0, 0, 0, 0);
    satfeat_describe_weights wt;
    satfeat_describe_weights_init(&wt);
    described a = describe_image(img, w, h, 0, 64, &wt);
    const double degs[] = {17, 45, 90, 133, 200, 301};
    for (int z = 0; z < 6; z++) {
        const double th = degs[z] * PI / 180.0;
        uint8_t *rot = du_rotate_bilinear(img, w, h, th, c, c);
        described r = describe_image(rot, w, h, 0, 64, &wt);
        double *err = malloc(a.n * sizeof *err), *sgn = malloc(a.n * sizeof *sgn);
        assert_non_null(err);
        assert_non_null(sgn);
        size_t m = 0;
        for (size_t i = 0; i < a.n; i++) {
            const double px = a.kp[i].x - c, py = a.kp[i].y - c;
            if (sqrt(px * px + py * py) + 8.0 * a.kp[i].sigma > 250.0) continue; /* region inside */
            const double qx = c + cos(th) * px - sin(th) * py, qy = c + sin(th) * px + cos(th) * py;
            const long j = find_kp(r.kp, r.n, qx, qy, a.kp[i].size, a.kp[i].laplacian, 1.0);
            if (j < 0) continue;
            double d = r.kp[j].angle - (a.kp[i].angle + th); /* signed, wrapped to [-pi, pi) */
            d -= 2.0 * PI * floor((d + PI) / (2.0 * PI));
            sgn[m] = d * 180.0 / PI;
            err[m++] = angle_dist(r.kp[j].angle, a.kp[i].angle + th) * 180.0 / PI;
        }
        qsort(err, m, sizeof *err, cmp_double);
        qsort(sgn, m, sizeof *sgn, cmp_double);
        /* the pattern's rotation as the keypoints tell it: the truth plus the median signed error */
        const double recovered = degs[z] + (m ? sgn[m / 2] : 999.0);
        size_t within3 = 0, within15 = 0;
        for (size_t q = 0; q < m; q++) {
            within3 += err[q] < 3.0;
            within15 += err[q] < 15.0;
        }
        const double median = m ? err[m / 2] : 999.0;
        printf("rotation %5.1f deg: %zu pairs, recovered %.2f deg, median error %.2f deg, %.1f%% "
               "within 3 deg, %.1f%% within 15 deg\n", degs[z], m, recovered, median,
               m ? 100.0 * within3 / m : 0.0, m ? 100.0 * within15 / m : 0.0);
        assert_true(m >= 40);
        assert_true(fabs(recovered - degs[z]) < 3.0); /* the known rotation within 3 degrees */
        if (degs[z] == 90.0) { /* symmetry of the sample grid and the boxes */
            assert_true(median < 1.0);
            assert_true(within3 >= 0.8 * m);
        } else {
            /* (the Haar side 4s of the orientation, the default since 2026-11-29, is less
             * accurate at 45 degrees than 3s: 78-89% within 15 degrees instead of 84-87%,
             * while it raised the matching score on the evaluation sets, docs/EVALUATION.md) */
            assert_true(median < 6.0);
            assert_true(within15 >= 0.75 * m);
        }
        free(err);
        free(sgn);
        free(rot);
        described_free(&r);
    }
    described_free(&a);
    free(img);
    free(b);
}

/* Fraction of the geometric pairs of a (mapped by `map`) and r whose descriptor nearest
 * neighbour among all of r's is the geometric partner. */
typedef void (*map_fn)(double x, double y, double *ox, double *oy);

static double match_fraction(const described *a, const described *r, map_fn map, double scale,
                             int dim, size_t *pairs)
{
    size_t m = 0, good = 0;
    for (size_t i = 0; i < a->n; i++) {
        double qx, qy;
        map(a->kp[i].x, a->kp[i].y, &qx, &qy);
        const long j = find_kp(r->kp, r->n, qx, qy, a->kp[i].size * scale, a->kp[i].laplacian,
                               1.0 * scale);
        if (j < 0) continue;
        m++;
        good += du_nearest(a->d + i * (size_t)dim, r->d, r->n, dim) == (size_t)j;
    }
    *pairs = m;
    return m ? (double)good / (double)m : 0.0;
}

static void map_rot90(double x, double y, double *ox, double *oy)
{
    *ox = 511.0 - y; /* h - 1 - y for the 512 x 512 image */
    *oy = x;
}

static void map_scale2(double x, double y, double *ox, double *oy)
{
    *ox = 2.0 * x + 0.5; /* pixel centres: (x + 0.5) * 2 - 0.5 */
    *oy = 2.0 * y + 0.5;
}

/*
 * Descriptors of a texture match those of the same texture rotated by 90 degrees (exact pixel
 * permutation) and rendered at twice the scale: the nearest neighbour of a keypoint's descriptor
 * among all keypoints of the other image is its geometric partner for at least 80% (rotation) /
 * 60% (scale) of the pairs, for dim 64 and 128. Upright descriptors, or a broken rotation of the
 * responses, match the rotated image far worse (checked below: under 30%).
 */
static void test_descriptors_match_rotation_and_scale(void **state)
{
    (void)state;
    const int w = 512, h = 512;
    test_rng rng;
    test_rng_seed(&rng, 33);
    du_blob *b = du_random_blobs(&rng, w, h, 500);
    uint8_t *img = du_render(b, 500, w, h, 1.0, 0.0, 0, 0, 0, 0);
    uint8_t *r90 = du_rotate90(img, w, h);
    uint8_t *big = du_render(b, 500, 2 * w, 2 * h, 2.0, 0.0, 0, 0, 0.5, 0.5);
    satfeat_describe_weights wt;
    satfeat_describe_weights_init(&wt);
    for (int dim = 64; dim <= 128; dim += 64) {
        described a = describe_image(img, w, h, 0, dim, &wt);
        described r = describe_image(r90, h, w, 0, dim, &wt);
        described s = describe_image(big, 2 * w, 2 * h, 0, dim, &wt);
        size_t pr = 0, ps = 0;
        const double fr = match_fraction(&a, &r, map_rot90, 1.0, dim, &pr);
        const double fs = match_fraction(&a, &s, map_scale2, 2.0, dim, &ps);
        printf("dim %d: rotation 90: %zu pairs, %.1f%% nearest correct; scale 2: %zu pairs, "
               "%.1f%% nearest correct\n", dim, pr, 100 * fr, ps, 100 * fs);
        assert_true(pr >= 100 && ps >= 50);
        assert_true(fr >= 0.80);
        assert_true(fs >= 0.60);
        described_free(&a);
        described_free(&r);
        described_free(&s);
    }
    /* the same comparison with upright descriptors fails under rotation: the test can fail */
    described a = describe_image(img, w, h, 1, 64, &wt);
    described r = describe_image(r90, h, w, 1, 64, &wt);
    size_t pr = 0;
    const double fu = match_fraction(&a, &r, map_rot90, 1.0, 64, &pr);
    printf("upright under rotation 90: %zu pairs, %.1f%% nearest correct\n", pr, 100 * fu);
    assert_true(fu < 0.30);
    described_free(&a);
    described_free(&r);
    free(img);
    free(r90);
    free(big);
    free(b);
}

/* Upright mode equals the oriented path with every angle forced to 0, for both sizes. */
static void test_upright_equals_angle_zero(void **state)
{
    (void)state;
    const int w = 300, h = 200;
    du_scene sc = du_scene_make(w, h, 5, 150, 0);
    const uint32_t *t = sc.table;
    const size_t n = sc.n;
    satfeat_keypoint *kp = sc.kp;
    assert_true(n > 20);
    const satfeat_describe_weights *wts = &sc.wt;
    satfeat_orient_cpu(t, (size_t)w + 1, w, h, kp, n, wts, 1);
    size_t nonzero = 0;
    for (size_t i = 0; i < n; i++) nonzero += kp[i].angle != 0.0;
    assert_true(nonzero > n / 2);
    for (int dim = 64; dim <= 128; dim += 64) {
        float *du = malloc(n * (size_t)dim * sizeof *du), *dz = malloc(n * (size_t)dim * sizeof *dz);
        assert_non_null(du);
        assert_non_null(dz);
        satfeat_describe_cpu(t, (size_t)w + 1, w, h, kp, n, 1, dim, wts, du, 1);
        satfeat_keypoint *k0 = malloc(n * sizeof *k0);
        assert_non_null(k0);
        memcpy(k0, kp, n * sizeof *k0);
        for (size_t i = 0; i < n; i++) k0[i].angle = 0.0;
        satfeat_describe_cpu(t, (size_t)w + 1, w, h, k0, n, 0, dim, wts, dz, 1);
        assert_memory_equal(du, dz, n * (size_t)dim * sizeof *du);
        /* and differs from the oriented descriptors */
        satfeat_describe_cpu(t, (size_t)w + 1, w, h, kp, n, 0, dim, wts, dz, 1);
        assert_true(memcmp(du, dz, n * (size_t)dim * sizeof *du) != 0);
        free(du);
        free(dz);
        free(k0);
    }
    du_scene_free(&sc);
}

/* Unit length, exact sizes (nothing written past n * dim), zero vectors on a flat image, finite
 * output for keypoints with garbage fields, including at and beyond the borders. */
static void test_descriptor_invariants(void **state)
{
    (void)state;
    const int w = 320, h = 240;
    du_scene sc = du_scene_make(w, h, 9, 150, 0);
    const uint32_t *t = sc.table;
    const size_t n = sc.n;
    satfeat_keypoint *kp = sc.kp;
    assert_true(n > 20);
    const satfeat_describe_weights *wts = &sc.wt;
    satfeat_orient_cpu(t, (size_t)w + 1, w, h, kp, n, wts, 2);
    for (int dim = 64; dim <= 128; dim += 64) {
        float *d = malloc((n * (size_t)dim + 8) * sizeof *d);
        assert_non_null(d);
        for (size_t i = 0; i < n * (size_t)dim + 8; i++) d[i] = -7.0f;
        satfeat_describe_cpu(t, (size_t)w + 1, w, h, kp, n, 0, dim, wts, d, 2);
        for (size_t i = 0; i < n; i++) {
            double s = 0.0;
            for (int k = 0; k < dim; k++) s += (double)d[i * dim + k] * d[i * dim + k];
            assert_true(fabs(s - 1.0) < 1e-5);
        }
        for (size_t i = n * (size_t)dim; i < n * (size_t)dim + 8; i++) assert_true(d[i] == -7.0f);
        free(d);
    }
    /* flat image: every Haar response is 0, so angle 0 and the zero vector */
    uint8_t *flat = malloc((size_t)w * h);
    assert_non_null(flat);
    memset(flat, 77, (size_t)w * h);
    uint32_t *tf = du_table(flat, w, h);
    satfeat_keypoint fk[3];
    memset(fk, 0, sizeof fk);
    fk[0].x = 100; fk[0].y = 80; fk[0].sigma = 2.0; fk[0].angle = 1.0;
    fk[1].x = 10; fk[1].y = 5; fk[1].sigma = 9.0; fk[1].angle = 4.0;
    fk[2].x = 200; fk[2].y = 100; fk[2].sigma = 1.2;
    /* near the border the clipped boxes see the image edge, so only interior points are flat */
    satfeat_keypoint inner[2] = {fk[0], fk[2]};
    satfeat_orient_cpu(tf, (size_t)w + 1, w, h, inner, 2, wts, 1);
    assert_true(inner[0].angle == 0.0 && inner[1].angle == 0.0);
    float zd[2 * 128];
    satfeat_describe_cpu(tf, (size_t)w + 1, w, h, inner, 2, 0, 128, wts, zd, 1);
    for (int k = 0; k < 2 * 128; k++) assert_true(zd[k] == 0.0f);
    /* garbage and border keypoints: finite output, unit or zero length */
    satfeat_keypoint g[6];
    memset(g, 0, sizeof g);
    g[0].x = NAN; g[0].y = 3; g[0].sigma = 2;
    g[1].x = -1e12; g[1].y = 1e12; g[1].sigma = 1e9;
    g[2].x = 0; g[2].y = 0; g[2].sigma = 50; g[2].angle = NAN;
    g[3].x = w - 1; g[3].y = h - 1; g[3].sigma = 3; g[3].angle = 1e300;
    g[4].x = 5; g[4].y = 100; g[4].sigma = -4;
    g[5].x = 160; g[5].y = 120; g[5].sigma = INFINITY;
    satfeat_orient_cpu(t, (size_t)w + 1, w, h, g, 6, wts, 1);
    float gd[6 * 64];
    satfeat_describe_cpu(t, (size_t)w + 1, w, h, g, 6, 0, 64, wts, gd, 1);
    for (int i = 0; i < 6; i++) {
        assert_true(g[i].angle >= 0.0 && g[i].angle < 2 * PI);
        double s = 0.0;
        for (int k = 0; k < 64; k++) {
            assert_true(isfinite(gd[i * 64 + k]));
            s += (double)gd[i * 64 + k] * gd[i * 64 + k];
        }
        assert_true(s == 0.0 || fabs(s - 1.0) < 1e-5);
    }
    free(tf);
    free(flat);
    du_scene_free(&sc);
}

/* ---- plain reference of the orientation and the descriptor, written from the definitions in
 * docs/DESCRIPTORS.md: box sums from the pixels, libm atan2 / sin / cos / exp. */

/* Sum of the pixels of [x0, x1) x [y0, y1) inside the image. */
static long ref_box(const uint8_t *img, int w, int h, long x0, long y0, long x1, long y1)
{
    long s = 0;
    for (long y = y0 < 0 ? 0 : y0; y < y1 && y < h; y++)
        for (long x = x0 < 0 ? 0 : x0; x < x1 && x < w; x++) s += img[y * w + x];
    return s;
}

/* The Haar pair of side 2*half centred on the table corner nearest to (x, y). */
static void ref_haar(const uint8_t *img, int w, int h, double x, double y, double scale_side,
                     double *dx, double *dy)
{
    long half = (long)floor(scale_side * 0.5 + 0.5);
    if (half < 1) half = 1;
    const long cx = (long)floor(x + 1.0), cy = (long)floor(y + 1.0);
    *dx = (double)(ref_box(img, w, h, cx, cy - half, cx + half, cy + half) -
                   ref_box(img, w, h, cx - half, cy - half, cx, cy + half));
    *dy = (double)(ref_box(img, w, h, cx - half, cy, cx + half, cy + half) -
                   ref_box(img, w, h, cx - half, cy - half, cx + half, cy));
}

/* Scharr's 3, 10, 3 on a 3 x 3 grid of boxes of side d = 2 floor(1.5 s + 0.5) (at least 2,
 * at most 512), the middle one centred on the pixel corner nearest to (x, y). */
static void ref_scharr(const uint8_t *img, int w, int h, double x, double y, double s, double *dx,
                       double *dy)
{
    long o = (long)floor(1.5 * s + 0.5);
    o = o < 1 ? 1 : (o > 256 ? 256 : o);
    const long d = 2 * o;
    const long cx = (long)floor(x + 1.0), cy = (long)floor(y + 1.0);
    long long b[3][3];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            const long bx = cx - o + (i - 1) * d, by = cy - o + (j - 1) * d;
            b[j][i] = ref_box(img, w, h, bx, by, bx + d, by + d);
        }
    *dx = (double)(3 * (b[0][2] - b[0][0]) + 10 * (b[1][2] - b[1][0]) + 3 * (b[2][2] - b[2][0]));
    *dy = (double)(3 * (b[2][0] - b[0][0]) + 10 * (b[2][1] - b[0][1]) + 3 * (b[2][2] - b[0][2]));
}

/* Orientation: Haar side haar x s (4 the default of the Haar filter, 3 before) on the grid of
 * step s/2 within 6s, or (haar 0) the Scharr filter on the grid of step s within 6s; Gaussian
 * 2.5s, 72 bins, window 12. */
static double ref_orientation(const uint8_t *img, int w, int h, const satfeat_keypoint *kp,
                              int haar)
{
    const double s = kp->sigma;
    double bx[72] = {0}, by[72] = {0}, sxs[437], sys[437];
    int n = 0;
    for (int j = -12; j <= 12; j++)
        for (int i = -12; i <= 12; i++) {
            if (i * i + j * j >= 144 || (haar == 0 && (i % 2 != 0 || j % 2 != 0))) continue;
            const double u = 0.5 * i, v = 0.5 * j;
            double dx, dy;
            if (haar == 0)
                ref_scharr(img, w, h, kp->x + u * s, kp->y + v * s, s, &dx, &dy);
            else
                ref_haar(img, w, h, kp->x + u * s, kp->y + v * s, haar * s, &dx, &dy);
            /* the Gaussian rounded to a multiple of 2^-14 */
            const double g = floor(exp(-(u * u + v * v) / (2 * 2.5 * 2.5)) * 16384.0 + 0.5) /
                             16384.0;
            dx *= g;
            dy *= g;
            /* the bin uses the library's atan2 (checked against libm in test_describe_math):
             * integer responses put samples exactly on bin edges (dx == dy: 45 degrees), where
             * libm's and the own atan2 may round to either side */
            const double a = satfeat_am_angle(dy, dx);
            int b = (int)(a * (72.0 / (2 * PI)));
            b = b > 71 ? 71 : b;
            bx[b] += dx;
            by[b] += dy;
            sxs[n] = dx;
            sys[n++] = dy;
        }
    double best = -1, sx = 0, sy = 0;
    for (int k = 0; k < 72; k++) {
        double x = 0, y = 0;
        for (int m = 0; m < 12; m++) {
            x += bx[(k + m) % 72];
            y += by[(k + m) % 72];
        }
        if (x * x + y * y > best) {
            best = x * x + y * y;
            sx = x;
            sy = y;
        }
    }
    double a = atan2(sy, sx);
    a = a < 0 ? a + 2 * PI : a;
    /* the refinement: the responses within 30 degrees of that angle, summed (libm) */
    double rx = 0, ry = 0;
    for (int k = 0; k < n; k++) {
        const double d = fabs(remainder(atan2(sys[k], sxs[k]) - a, 2 * PI));
        if ((sxs[k] != 0 || sys[k] != 0) && d < PI / 6) {
            rx += sxs[k];
            ry += sys[k];
        }
    }
    if (rx == 0 && ry == 0) return a;
    a = atan2(ry, rx);
    return a < 0 ? a + 2 * PI : a;
}

/* Modified SURF: 24 x 24 samples one s apart, Haar side haar x s (4 the default, 3 SURF's), 4 x 4
 * subregions of 9 x 9 samples every 5, Gaussian 2.5s about the subregion, Gaussian 1.5
 * subregions over the grid. */
static void ref_descriptor(const uint8_t *img, int w, int h, const satfeat_keypoint *kp, int dim,
                           int haar, double *out)
{
    const double s = kp->sigma, c = cos(kp->angle), sn = sin(kp->angle);
    static double rx[24][24], ry[24][24];
    for (int r = 0; r < 24; r++)
        for (int q = 0; q < 24; q++) {
            const double u = (q - 11.5) * s, v = (r - 11.5) * s;
            double dx, dy;
            ref_haar(img, w, h, kp->x + c * u - sn * v, kp->y + sn * u + c * v, haar * s, &dx,
                     &dy);
            rx[r][q] = c * dx + sn * dy;
            ry[r][q] = c * dy - sn * dx;
        }
    double norm = 0;
    for (int qr = 0; qr < 4; qr++)
        for (int qc = 0; qc < 4; qc++) {
            double v[8] = {0};
            for (int r = 5 * qr; r < 5 * qr + 9; r++)
                for (int q = 5 * qc; q < 5 * qc + 9; q++) {
                    const double er = r - (5 * qr + 4), ec = q - (5 * qc + 4);
                    const double g = exp(-(er * er + ec * ec) / (2 * 2.5 * 2.5));
                    const double a = g * rx[r][q], b = g * ry[r][q];
                    if (dim == 64) {
                        v[0] += a, v[1] += b, v[2] += fabs(a), v[3] += fabs(b);
                    } else {
                        v[b < 0 ? 0 : 1] += a;
                        v[b < 0 ? 2 : 3] += fabs(a);
                        v[a < 0 ? 4 : 5] += b;
                        v[a < 0 ? 6 : 7] += fabs(b);
                    }
                }
            const double gr = exp(-((qc - 1.5) * (qc - 1.5) + (qr - 1.5) * (qr - 1.5)) / (2 * 1.5 * 1.5));
            const int per = dim / 16;
            for (int k = 0; k < per; k++) {
                out[(qr * 4 + qc) * per + k] = gr * v[k];
                norm += gr * v[k] * gr * v[k];
            }
        }
    norm = sqrt(norm);
    for (int k = 0; k < dim; k++) out[k] = norm > 0 ? out[k] / norm : 0;
}

/* The library's angles and descriptors equal the plain reference (angles within 1e-9 rad,
 * values within 1e-6) for all but at most 2% of the keypoints of a texture, where a sample
 * position or an angle bin on a rounding boundary may fall the other way; descriptors for every
 * Haar side (desc_haar 2, 3, 4). */
static void test_matches_plain_reference(void **state)
{
    (void)state;
    const int w = 320, h = 240;
    du_scene sc = du_scene_make(w, h, 5, 150, 0);
    const uint8_t *img = sc.img;
    const uint32_t *t = sc.table;
    const size_t n = sc.n;
    satfeat_keypoint *kp = sc.kp;
    assert_true(n > 30);
    const satfeat_describe_weights *wts = &sc.wt;
    size_t bad_angle = 0;
    assert_int_equal(wts->ori_filter, SATFEAT_ORI_FILTER_SCHARR); /* the default */
    for (int haar = 2; haar <= 4; haar++) { /* the Haar filter, then the default's angles */
        satfeat_describe_weights wo = *wts;
        satfeat_describe_weights_orientation(&wo, SATFEAT_ORI_FILTER_HAAR);
        wo.ori_haar = haar;
        satfeat_orient_cpu(t, (size_t)w + 1, w, h, kp, n, &wo, 1);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += !(angle_dist(ref_orientation(img, w, h, &kp[i], haar), kp[i].angle) < 1e-9);
        printf("plain reference, orientation Haar side %ds: %zu angles differ\n", haar, bad);
        assert_true(bad * 50 <= n);
    }
    satfeat_orient_cpu(t, (size_t)w + 1, w, h, kp, n, wts, 1);
    for (size_t i = 0; i < n; i++)
        bad_angle += !(angle_dist(ref_orientation(img, w, h, &kp[i], 0), kp[i].angle) < 1e-9);
    float *d = malloc(n * 128 * sizeof *d);
    assert_non_null(d);
    assert_int_equal(wts->desc_haar, 4); /* the default */
    for (int haar = 2; haar <= 4; haar++)
    for (int dim = 64; dim <= 128; dim += 64) {
        satfeat_describe_weights wh = *wts;
        wh.desc_haar = haar;
        satfeat_describe_cpu(t, (size_t)w + 1, w, h, kp, n, 0, dim, &wh, d, 1);
        size_t bad = 0;
        double ref[128];
        for (size_t i = 0; i < n; i++) {
            ref_descriptor(img, w, h, &kp[i], dim, haar, ref);
            double e = 0;
            for (int k = 0; k < dim; k++) e = fmax(e, fabs(ref[k] - d[i * dim + k]));
            bad += !(e < 1e-6);
        }
        printf("plain reference, %zu keypoints: %zu angles and %zu dim-%d descriptors (Haar side "
               "%ds) differ\n", n, bad_angle, bad, dim, haar);
        assert_true(bad * 50 <= n);
        /* the root normalisation: sign(v) sqrt(|v| / L1) of the plain reference's values */
        satfeat_describe_cpu(t, (size_t)w + 1, w, h, kp, n, SATFEAT_DESC_ROOT, dim, &wh, d, 1);
        bad = 0;
        for (size_t i = 0; i < n; i++) {
            ref_descriptor(img, w, h, &kp[i], dim, haar, ref);
            double l1 = 0, e = 0;
            for (int k = 0; k < dim; k++) l1 += fabs(ref[k]);
            for (int k = 0; k < dim; k++) {
                const double r = l1 > 0 ? copysign(sqrt(fabs(ref[k]) / l1), ref[k]) : 0;
                e = fmax(e, fabs(r - d[i * dim + k]));
            }
            bad += !(e < 1e-6);
        }
        printf("plain reference, root normalisation: %zu dim-%d descriptors differ\n", bad, dim);
        assert_true(bad * 50 <= n);
    }
    assert_true(bad_angle * 50 <= n);
    free(d);
    du_scene_free(&sc);
}

/* The root-normalised descriptor (SATFEAT_DESC_ROOT) of every keypoint is the signed square root
 * of the L1-normalised unit L2 descriptor of the same keypoint (within float rounding), has unit
 * L2 length up to rounding, and the zero vector stays zero; for 64 and 128 values, oriented and
 * upright. */
static void test_root_normalisation(void **state)
{
    (void)state;
    const int w = 320, h = 240;
    du_scene sc = du_scene_make(w, h, 9, 150, 0);
    const size_t n = sc.n;
    assert_true(n > 30);
    satfeat_orient_cpu(sc.table, (size_t)w + 1, w, h, sc.kp, n, &sc.wt, 1);
    float *l2 = malloc(n * 128 * sizeof *l2), *rt = malloc(n * 128 * sizeof *rt);
    assert_non_null(l2);
    assert_non_null(rt);
    for (int up = 0; up <= 1; up++)
        for (int dim = 64; dim <= 128; dim += 64) {
            satfeat_describe_cpu(sc.table, (size_t)w + 1, w, h, sc.kp, n, up, dim, &sc.wt, l2, 2);
            satfeat_describe_cpu(sc.table, (size_t)w + 1, w, h, sc.kp, n, up | SATFEAT_DESC_ROOT,
                                 dim, &sc.wt, rt, 2);
            size_t differ = 0;
            for (size_t i = 0; i < n; i++) {
                const float *u = l2 + i * dim, *r = rt + i * dim;
                double l1 = 0, n2 = 0, e = 0;
                for (int k = 0; k < dim; k++) l1 += fabs(u[k]);
                for (int k = 0; k < dim; k++) {
                    const double want = l1 > 0 ? copysign(sqrt(fabs(u[k]) / l1), u[k]) : 0;
                    e = fmax(e, fabs(want - r[k]));
                    n2 += (double)r[k] * r[k];
                    differ += (u[k] < 0) != (r[k] < 0); /* the sign is kept */
                }
                assert_true(e < 2e-6);
                assert_true(l1 > 0 ? fabs(n2 - 1.0) < 1e-5 : n2 == 0.0);
            }
            assert_int_equal(differ, 0);
        }
    free(l2);
    free(rt);
    du_scene_free(&sc);
}

/* 1, 2 and 3 threads give bit-identical angles and descriptors. */
static void test_thread_count_independent(void **state)
{
    (void)state;
    const int w = 640, h = 480;
    du_scene sc = du_scene_make(w, h, 77, 600, 0);
    const uint32_t *t = sc.table;
    const size_t n = sc.n;
    satfeat_keypoint *kp = sc.kp;
    assert_true(n > 100);
    const satfeat_describe_weights *wts = &sc.wt;
    satfeat_keypoint *ref = malloc(n * sizeof *ref), *k2 = malloc(n * sizeof *k2);
    float *dref = malloc(n * 128 * sizeof *dref), *d2 = malloc(n * 128 * sizeof *d2);
    assert_true(ref && k2 && dref && d2);
    memcpy(ref, kp, n * sizeof *ref);
    satfeat_orient_cpu(t, (size_t)w + 1, w, h, ref, n, wts, 1);
    for (int dim = 64; dim <= 128; dim += 64) {
        satfeat_describe_cpu(t, (size_t)w + 1, w, h, ref, n, 0, dim, wts, dref, 1);
        for (int th = 2; th <= 3; th++) {
            memcpy(k2, kp, n * sizeof *k2);
            satfeat_orient_cpu(t, (size_t)w + 1, w, h, k2, n, wts, th);
            assert_memory_equal(k2, ref, n * sizeof *k2);
            satfeat_describe_cpu(t, (size_t)w + 1, w, h, k2, n, 0, dim, wts, d2, th);
            assert_memory_equal(d2, dref, n * (size_t)dim * sizeof *d2);
        }
    }
    free(ref);
    free(k2);
    free(dref);
    free(d2);
    du_scene_free(&sc);
}

static int cmp_kp_y(const void *a, const void *b)
{
    const satfeat_keypoint *p = a, *q = b;
    return (p->y > q->y) - (p->y < q->y);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Prints the CPU time of orientation + SURF-64 for ~2000 keypoints of a 1920x1080 texture at 1
 * and 2 threads (best of 7 runs). Timing is printed, never asserted. */
static void test_cpu_timing_1080p(void **state)
{
    (void)state;
    const int w = 1920, h = 1080;
    du_scene sc = du_scene_make(w, h, 1080, 3000, 2000);
    const uint32_t *t = sc.table;
    const size_t n = sc.n;
    satfeat_keypoint *kp = sc.kp;
    const satfeat_describe_weights *wts = &sc.wt;
    float *d = malloc(n * 128 * sizeof *d);
    assert_non_null(d);
    if (getenv("DU_SORTY")) qsort(kp, n, sizeof *kp, cmp_kp_y);
    for (int th = 1; th <= 2; th++)
        for (int dim = 64; dim <= 128; dim += 64) {
            double best_o = 1e30, best_d = 1e30;
            for (int rep = 0; rep < 7; rep++) {
                const double t0 = now_ms();
                satfeat_orient_cpu(t, (size_t)w + 1, w, h, kp, n, wts, th);
                const double t1 = now_ms();
                satfeat_describe_cpu(t, (size_t)w + 1, w, h, kp, n, 0, dim, wts, d, th);
                const double t2 = now_ms();
                if (t1 - t0 < best_o) best_o = t1 - t0;
                if (t2 - t1 < best_d) best_d = t2 - t1;
            }
            printf("CPU %dx%d, %zu keypoints, %d thread(s), dim %d: orient %.2f ms + describe "
                   "%.2f ms = %.2f ms\n", w, h, n, th, dim, best_o, best_d, best_o + best_d);
        }
    assert_true(n >= 1500);
    free(d);
    du_scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orientation_recovers_rotation),
        cmocka_unit_test(test_descriptors_match_rotation_and_scale),
        cmocka_unit_test(test_upright_equals_angle_zero),
        cmocka_unit_test(test_descriptor_invariants),
        cmocka_unit_test(test_matches_plain_reference),
        cmocka_unit_test(test_root_normalisation),
        cmocka_unit_test(test_thread_count_independent),
        cmocka_unit_test(test_cpu_timing_1080p),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

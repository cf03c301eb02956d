/* fuzz_match_motion.c - libFuzzer harness of descriptor matching and robust motion estimation
 * on keypoints, descriptors and correspondences made from the input (NaN and infinite values
 * included). Every result is checked against the documented contract: matches in ascending query
 * order with indices in range, at most one per query (and per train with the mutual check), each
 * pair inside the Laplacian and radius gates with a distance equal to its descriptors' distance,
 * a capacity one short refused with the same first matches, the same answer on one and two
 * threads; a motion that is finite, normalised, of the asked model's shape, whose inlier mask
 * agrees with its count and its forward errors, and the same bits on a second call. */
#include "satfeat.h"
#include "match/descriptor_distance.h"
#include "fuzz_bytes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_POINTS 48 /* keypoints a side and correspondences: brute force stays fast */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_fail(const char *what, size_t k)
{
    fprintf(stderr, "fuzz invariant violated: %s (item %zu)\n", what, k);
    abort();
}

/* A descriptor value: mostly ordinary, some exact repeats (ties), some NaN or infinite. */
static float value_from(fuzz_bytes *b)
{
    const uint8_t tag = fuzz_u8(b);
    if (tag == 255) return NAN;
    if (tag == 254) return INFINITY;
    if (tag >= 240) return 0.25f;
    return ((float)fuzz_u16(b) - 32768.0f) / 8192.0f;
}

static void make_keypoints(fuzz_bytes *b, satfeat_keypoint *kp, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        memset(&kp[i], 0, sizeof kp[i]);
        kp[i].x = fuzz_u8(b) / 2.0;
        kp[i].y = fuzz_u8(b) / 2.0;
        kp[i].size = 9.0;
        kp[i].sigma = 1.2;
        kp[i].laplacian = fuzz_u8(b) & 1 ? 1 : -1;
    }
}

/* A feature set holding copies of n keypoints and descriptors (aborts when it cannot). */
static satfeat_features *set_of(const satfeat_keypoint *kp, const float *d, size_t n, int dim)
{
    satfeat_features *f = NULL;
    if (satfeat_features_new(&f) != SATFEAT_OK ||
        satfeat_features_assign(f, kp, d, n, (satfeat_descriptor_kind)dim, 128, 128) !=
            SATFEAT_OK)
        abort();
    return f;
}

/* Runs the matcher with `threads` into *list and returns the match count (copies in `out`). */
static size_t run_match(satfeat_ctx *ctx, int threads, const satfeat_features *f1,
                        const satfeat_features *f2, const double *pred,
                        const satfeat_match_params *mp, satfeat_matches **list,
                        satfeat_match_pair *out)
{
    satfeat_ctx_set_threads(ctx, threads);
    const satfeat_status st = pred ? satfeat_match_guided(ctx, f1, f2, pred, mp, list)
                                   : satfeat_match(ctx, f1, f2, mp, list);
    if (st != SATFEAT_OK) fuzz_fail("matching failed on valid input", (size_t)st);
    const size_t count = satfeat_matches_count(*list);
    if (count > FUZZ_MAX_POINTS) fuzz_fail("more matches than queries", count);
    if (count) memcpy(out, satfeat_matches_data(*list), count * sizeof *out);
    return count;
}

static void check_matches(const satfeat_match_pair *m, size_t count, const satfeat_keypoint *kp1,
                          const float *d1, size_t n1, const satfeat_keypoint *kp2,
                          const float *d2, size_t n2, int dim, const double *pred,
                          const satfeat_match_params *mp)
{
    if (count > n1 || (mp->mutual && count > n2))
        fuzz_fail("more matches than keypoints", count);
    uint8_t used[FUZZ_MAX_POINTS] = {0};
    for (size_t k = 0; k < count; k++) {
        const int q = m[k].query, t = m[k].train;
        if (q < 0 || (size_t)q >= n1 || t < 0 || (size_t)t >= n2) fuzz_fail("index range", k);
        if (k > 0 && m[k - 1].query >= q) fuzz_fail("queries not ascending", k);
        if (mp->mutual && used[t]++) fuzz_fail("train matched twice with mutual", k);
        if (mp->same_laplacian && (kp1[q].laplacian < 0) != (kp2[t].laplacian < 0))
            fuzz_fail("Laplacian gate", k);
        if (mp->radius > 0) {
            const double px = pred ? pred[2 * q] : kp1[q].x, py = pred ? pred[2 * q + 1] : kp1[q].y;
            const double dx = kp2[t].x - px, dy = kp2[t].y - py;
            if (dx * dx + dy * dy > mp->radius * mp->radius) fuzz_fail("radius gate", k);
        }
        const float dsq = satfeat_desc_dist_sq(d1 + (size_t)q * (size_t)dim,
                                               d2 + (size_t)t * (size_t)dim, dim);
        if (!isfinite(dsq) || m[k].distance != sqrtf(dsq)) fuzz_fail("distance", k);
    }
}

static void fuzz_match(fuzz_bytes *b, satfeat_ctx *ctx)
{
    const int dim = fuzz_u8(b) & 1 ? 128 : 64;
    const size_t n1 = (size_t)fuzz_below(b, FUZZ_MAX_POINTS + 1);
    const size_t n2 = (size_t)fuzz_below(b, FUZZ_MAX_POINTS + 1);
    satfeat_match_params mp = satfeat_match_params_default();
    mp.ratio = fuzz_u8(b) % 4 == 0 ? 1.0 : (1 + fuzz_below(b, 100)) / 100.0;
    mp.mutual = fuzz_u8(b) & 1;
    mp.same_laplacian = fuzz_u8(b) & 1;
    mp.radius = fuzz_u8(b) % 3 == 0 ? fuzz_u8(b) / 4.0 : 0.0;
    const int use_pred = fuzz_u8(b) & 1;
    satfeat_keypoint kp1[FUZZ_MAX_POINTS], kp2[FUZZ_MAX_POINTS];
    make_keypoints(b, kp1, n1);
    make_keypoints(b, kp2, n2);
    double pred[2 * FUZZ_MAX_POINTS];
    for (size_t i = 0; i < n1; i++) {
        pred[2 * i] = kp1[i].x + (fuzz_u8(b) - 128) / 16.0;
        pred[2 * i + 1] = kp1[i].y + (fuzz_u8(b) - 128) / 16.0;
    }
    /* descriptors: a few distinct rows from the input, repeated, so near ties are common */
    float *d1 = calloc(FUZZ_MAX_POINTS * 128, sizeof *d1);
    float *d2 = calloc(FUZZ_MAX_POINTS * 128, sizeof *d2);
    if (!d1 || !d2) abort();
    for (size_t i = 0; i < (n1 + n2) * (size_t)dim; i++) {
        float *dst = i < n1 * (size_t)dim ? d1 + i : d2 + (i - n1 * (size_t)dim);
        *dst = b->left ? value_from(b) : (float)((i * 7919u) % 97u) / 97.0f;
    }
    const double *pp = use_pred ? pred : NULL;
    satfeat_features *f1 = set_of(kp1, d1, n1, dim), *f2 = set_of(kp2, d2, n2, dim);
    satfeat_matches *list = NULL, *other = NULL;
    satfeat_match_pair m1[FUZZ_MAX_POINTS], m2[FUZZ_MAX_POINTS], m3[FUZZ_MAX_POINTS];
    const size_t c1 = run_match(ctx, 1, f1, f2, pp, &mp, &list, m1);
    check_matches(m1, c1, kp1, d1, n1, kp2, d2, n2, dim, pp, &mp);
    const size_t c2 = run_match(ctx, 2, f1, f2, pp, &mp, &other, m2);
    if (c2 != c1 || memcmp(m1, m2, c1 * sizeof *m1) != 0) fuzz_fail("thread count changes", c2);
    /* a list refilled after another result holds exactly the new one */
    run_match(ctx, 1, f2, f1, NULL, &mp, &other, m3);
    const size_t c3 = run_match(ctx, 1, f1, f2, pp, &mp, &other, m3);
    if (c3 != c1 || memcmp(m1, m3, c1 * sizeof *m1) != 0) fuzz_fail("refilled list", c3);
    /* the motion of the matched keypoints: any status but a crash; its inliers are matches */
    satfeat_motion mo;
    uint8_t mask[FUZZ_MAX_POINTS];
    if (satfeat_estimate_motion_matches(ctx, f1, f2, list, NULL, &mo, mask) == SATFEAT_OK &&
        mo.inliers > c1)
        fuzz_fail("more inliers than matches", mo.inliers);
    satfeat_matches_delete(list);
    satfeat_matches_delete(other);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    free(d1);
    free(d2);
}

/* Forward error of point i under h, or infinity when it maps to infinity. */
static double forward_error(const double h[9], const double *s, const double *d, size_t i)
{
    const double x = s[2 * i], y = s[2 * i + 1];
    const double w = h[6] * x + h[7] * y + h[8];
    if (w == 0) return INFINITY;
    const double u = (h[0] * x + h[1] * y + h[2]) / w, v = (h[3] * x + h[4] * y + h[5]) / w;
    return hypot(u - d[2 * i], v - d[2 * i + 1]);
}

static void fuzz_motion(fuzz_bytes *b, satfeat_ctx *ctx)
{
    satfeat_motion_params p = satfeat_motion_params_default();
    p.model = (satfeat_motion_model)fuzz_below(b, 3);
    p.threshold = 0.25 + fuzz_u8(b) / 16.0;
    p.max_iterations = 1 + fuzz_below(b, 200);
    p.confidence = 0.5 + fuzz_u8(b) / 512.0;
    p.refine = fuzz_u8(b) & 1;
    p.seed = fuzz_u8(b);
    const size_t n = (size_t)fuzz_below(b, FUZZ_MAX_POINTS + 1);
    const int use_quality = fuzz_u8(b) & 1;
    /* a true motion (a small perspective map) and noise or outliers from the input */
    const double a = (fuzz_u8(b) - 128) / 512.0, t = fuzz_u8(b) / 4.0;
    const double hp = (fuzz_u8(b) - 128) / 65536.0;
    double s[2 * FUZZ_MAX_POINTS], d[2 * FUZZ_MAX_POINTS];
    float q[FUZZ_MAX_POINTS];
    for (size_t i = 0; i < n; i++) {
        const double x = fuzz_u8(b) * 2.0, y = fuzz_u8(b) * 2.0;
        const uint8_t kind = fuzz_u8(b);
        const double w = hp * x + 1.0;
        s[2 * i] = x;
        s[2 * i + 1] = y;
        d[2 * i] = ((1 + a) * x - a * y + t) / w + (kind & 3) / 8.0;
        d[2 * i + 1] = (a * x + (1 + a) * y - t) / w;
        if (kind >= 200) { /* an outlier, or a point repeated exactly (degenerate samples) */
            d[2 * i] = fuzz_u8(b) * 2.0;
            if (i > 0 && (kind & 1)) {
                s[2 * i] = s[0];
                s[2 * i + 1] = s[1];
            }
        }
        q[i] = (float)fuzz_u8(b);
    }
    satfeat_motion m1, m2;
    uint8_t mask1[FUZZ_MAX_POINTS], mask2[FUZZ_MAX_POINTS];
    const float *qp = use_quality ? q : NULL;
    const satfeat_status st = satfeat_estimate_motion(ctx, s, d, n, qp, &p, &m1, mask1);
    if (st == SATFEAT_ERR_NO_MODEL) return;
    if (st != SATFEAT_OK) fuzz_fail("motion failed on valid input", (size_t)st);
    for (int k = 0; k < 9; k++)
        if (!isfinite(m1.h[k])) fuzz_fail("non-finite motion", (size_t)k);
    if (m1.h[8] != 1.0) fuzz_fail("motion not normalised", 8);
    if (p.model != SATFEAT_MOTION_HOMOGRAPHY && (m1.h[6] != 0 || m1.h[7] != 0))
        fuzz_fail("affine model with a perspective row", 6);
    static const size_t minimal[3] = {4, 3, 2};
    if (m1.inliers > n || m1.inliers < 2 * minimal[p.model]) fuzz_fail("inlier count", m1.inliers);
    if (m1.iterations < 0 || m1.iterations > p.max_iterations) fuzz_fail("iterations", 0);
    if (!isfinite(m1.rms_error) || m1.rms_error < 0 || m1.rms_error > p.threshold * 1.0000001)
        fuzz_fail("rms error", 0);
    size_t marked = 0;
    for (size_t i = 0; i < n; i++) {
        if (mask1[i] > 1) fuzz_fail("mask value", i);
        marked += mask1[i];
        const double e = forward_error(m1.h, s, d, i);
        if (mask1[i] && !(e <= p.threshold * (1 + 1e-9))) fuzz_fail("inlier beyond threshold", i);
    }
    if (marked != m1.inliers) fuzz_fail("mask disagrees with the count", marked);
    /* field by field: the struct's padding is not part of the result */
    if (satfeat_estimate_motion(ctx, s, d, n, qp, &p, &m2, mask2) != SATFEAT_OK ||
        memcmp(m1.h, m2.h, sizeof m1.h) != 0 || m1.inliers != m2.inliers ||
        memcmp(&m1.rms_error, &m2.rms_error, sizeof m1.rms_error) != 0 ||
        m1.iterations != m2.iterations || memcmp(mask1, mask2, n) != 0)
        fuzz_fail("a second identical call differs", 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_bytes b = {data, size};
    satfeat_ctx *ctx = NULL;
    if (satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0) != SATFEAT_OK) abort();
    if (fuzz_u8(&b) & 1)
        fuzz_motion(&b, ctx);
    else
        fuzz_match(&b, ctx);
    satfeat_ctx_delete(ctx);
    return 0;
}

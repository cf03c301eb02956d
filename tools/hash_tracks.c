/* hash_tracks.c - the match, motion, evaluation and tracker cases of satfeat_hash_outputs: the
 * digests that prove a change of the matcher, the estimator, the scores or the tracker keeps
 * every output bit. Only the public API is used. */
#include "hash_tracks.h"
#include "hash_fnv.h"

#include <stdio.h>
#include <stdlib.h>

typedef void (*report_fn)(const char *name, uint64_t digest);

/* Loads `path` and detects its features (SURF-64, the detector defaults) into *f; 1 when the
 * file cannot be read (skipped), -1 on error. The one detection call of this file. */
static int load_features(satfeat_ctx *ctx, const char *path, satfeat_features **f)
{
    uint8_t *img = NULL;
    int w = 0, h = 0;
    if (satfeat_image_load_gray8(ctx, path, &img, &w, &h) != SATFEAT_OK) return 1;
    satfeat_detector *det = NULL;
    int rc = -1;
    const satfeat_detector_params dp = satfeat_detector_params_default();
    const satfeat_image_view v = satfeat_image_view_host(img, w, h, 0);
    if (satfeat_detector_new(ctx, &dp, w, h, &det) == SATFEAT_OK &&
        satfeat_detect(det, &v, f) == SATFEAT_OK)
        rc = 0;
    if (rc) fprintf(stderr, "detect %s: %s\n", path, satfeat_ctx_last_error(ctx));
    satfeat_detector_delete(det);
    satfeat_free(img);
    return rc;
}

static void map_point(const double h[9], double x, double y, double *u, double *v)
{
    const double w = h[6] * x + h[7] * y + h[8];
    *u = (h[0] * x + h[1] * y + h[2]) / w;
    *v = (h[3] * x + h[4] * y + h[5]) / w;
}

/* Matches a against b under `mp` (predicted positions through H when guided), hashes the
 * matches, then the homography estimated from them. */
static int hash_match_case(satfeat_ctx *ctx, const char *name, const satfeat_features *a,
                           const satfeat_features *b, const double H[9],
                           const satfeat_match_params *mp, int guided, report_fn report)
{
    const size_t n1 = satfeat_features_count(a);
    const satfeat_keypoint *kp1 = satfeat_features_keypoints(a);
    double *pred = malloc((n1 ? n1 : 1) * 2 * sizeof *pred);
    uint8_t *mask = malloc(n1 ? n1 : 1);
    satfeat_matches *list = NULL;
    int rc = 1;
    if (!pred || !mask) goto done;
    for (size_t i = 0; i < n1; i++)
        map_point(H, kp1[i].x, kp1[i].y, &pred[2 * i], &pred[2 * i + 1]);
    if ((guided ? satfeat_match_guided(ctx, a, b, pred, mp, &list)
                : satfeat_match(ctx, a, b, mp, &list)) != SATFEAT_OK) {
        fprintf(stderr, "match %s: %s\n", name, satfeat_ctx_last_error(ctx));
        goto done;
    }
    const size_t nm = satfeat_matches_count(list);
    const satfeat_match_pair *m = satfeat_matches_data(list);
    uint64_t h = FNV_INIT;
    fnv_u64(&h, nm);
    for (size_t k = 0; k < nm; k++) {
        fnv_int(&h, m[k].query);
        fnv_int(&h, m[k].train);
        fnv_float(&h, m[k].distance);
    }
    char line[160];
    snprintf(line, sizeof line, "match %s n=%zu", name, nm);
    report(line, h);
    satfeat_motion mo;
    const satfeat_status st = satfeat_estimate_motion_matches(ctx, a, b, list, NULL, &mo, mask);
    h = FNV_INIT;
    fnv_int(&h, (int)st);
    if (st == SATFEAT_OK) {
        for (int i = 0; i < 9; i++) fnv_double(&h, mo.h[i]);
        fnv_u64(&h, mo.inliers);
        fnv_double(&h, mo.rms_error);
        fnv_int(&h, mo.iterations);
        fnv_bytes(&h, mask, nm);
    }
    snprintf(line, sizeof line, "motion %s inliers=%zu", name, st == SATFEAT_OK ? mo.inliers : 0);
    report(line, h);
    rc = 0;
done:
    satfeat_matches_delete(list);
    free(pred);
    free(mask);
    return rc;
}

/* The scores of a pair under its homography. */
static int hash_eval_case(satfeat_ctx *ctx, const char *name, const satfeat_features *a,
                          const satfeat_features *b, const double H[9], report_fn report)
{
    satfeat_matching_eval me;
    satfeat_repeatability rp;
    if (satfeat_eval_matching(ctx, a, b, H, &me) != SATFEAT_OK ||
        satfeat_eval_repeatability(ctx, a, b, H, &rp) != SATFEAT_OK) {
        fprintf(stderr, "eval %s: %s\n", name, satfeat_ctx_last_error(ctx));
        return 1;
    }
    uint64_t h = FNV_INIT;
    fnv_double(&h, me.matching_score);
    fnv_double(&h, me.precision);
    fnv_u64(&h, me.correct);
    fnv_u64(&h, me.matches);
    fnv_u64(&h, me.n1);
    fnv_u64(&h, me.n2);
    fnv_double(&h, rp.repeatability);
    fnv_u64(&h, rp.correspondences);
    fnv_u64(&h, rp.n1);
    fnv_u64(&h, rp.n2);
    char line[160];
    snprintf(line, sizeof line, "eval %s correct=%zu corr=%zu", name, me.correct,
             rp.correspondences);
    report(line, h);
    return 0;
}

/* Every case of the pair (first, second) of a sequence whose homographies are `hpath`. */
static int pair_cases(satfeat_ctx *ctx, const char *tag, const char *first, const char *second,
                      const char *hpath, report_fn report)
{
    satfeat_features *a = NULL, *b = NULL;
    int r = load_features(ctx, first, &a);
    if (!r) r = load_features(ctx, second, &b);
    if (r) {
        satfeat_features_delete(a);
        satfeat_features_delete(b);
        return r < 0;
    }
    double H[9];
    int rc = satfeat_homography_read(ctx, hpath, H) != SATFEAT_OK;
    if (rc) fprintf(stderr, "%s: %s\n", hpath, satfeat_ctx_last_error(ctx));
    satfeat_match_params mp = satfeat_match_params_default();
    char name[160];
    snprintf(name, sizeof name, "%s defaults", tag);
    if (!rc) rc = hash_match_case(ctx, name, a, b, H, &mp, 0, report);
    satfeat_match_params loose = mp;
    loose.ratio = 1.0;
    loose.mutual = 0;
    loose.same_laplacian = 0;
    snprintf(name, sizeof name, "%s loose", tag);
    if (!rc) rc = hash_match_case(ctx, name, a, b, H, &loose, 0, report);
    satfeat_match_params radius = mp;
    radius.radius = 8.0;
    snprintf(name, sizeof name, "%s guided8", tag);
    if (!rc) rc = hash_match_case(ctx, name, a, b, H, &radius, 1, report);
    if (!rc) rc = hash_eval_case(ctx, tag, a, b, H, report);
    satfeat_features_delete(a);
    satfeat_features_delete(b);
    return rc;
}

/* Hashes one frame's motion and live tracks with their descriptors into *h. */
static void hash_frame(uint64_t *h, const satfeat_frame_motion *fm, const satfeat_track *tr,
                       const float *desc, size_t n, size_t dim)
{
    fnv_int(h, fm->frame);
    fnv_int(h, fm->valid);
    fnv_int(h, fm->ref_valid);
    for (int i = 0; i < 9; i++) fnv_double(h, fm->h_prev[i]);
    for (int i = 0; i < 9; i++) fnv_double(h, fm->h_ref[i]);
    fnv_u64(h, fm->keypoints);
    fnv_u64(h, fm->matches);
    fnv_u64(h, fm->inliers);
    fnv_double(h, fm->rms_error);
    fnv_u64(h, fm->born);
    fnv_u64(h, fm->ended);
    fnv_u64(h, n);
    for (size_t i = 0; i < n; i++) {
        fnv_u64(h, tr[i].id);
        fnv_double(h, tr[i].x);
        fnv_double(h, tr[i].y);
        fnv_double(h, tr[i].size);
        fnv_double(h, tr[i].angle);
        fnv_int(h, tr[i].laplacian);
        fnv_int(h, tr[i].age);
        fnv_int(h, tr[i].missed);
        fnv_int(h, tr[i].inlier);
    }
    for (size_t i = 0; i < n * dim; i++) fnv_float(h, desc[i]);
}

/* Hashes the tracker's live tracks and their descriptors after a frame with motion *fm. */
static void hash_tracker_frame(uint64_t *h, const satfeat_tracker *t,
                               const satfeat_frame_motion *fm, size_t dim, size_t *count)
{
    const satfeat_track *tr = satfeat_tracker_tracks(t, count);
    hash_frame(h, fm, tr, satfeat_tracker_track_descriptors(t), *count, dim);
}

/* The tracker (default parameters) over frames paths[0 .. n-1]; pipelined: with frames in
 * flight (push / pop). Returns 0, 1 on error, 2 when a frame cannot be read. */
static int track_case(satfeat_ctx *ctx, const char *name, char paths[][1024], int n,
                      int pipelined, report_fn report)
{
    satfeat_tracker *t = NULL;
    uint8_t *img = NULL;
    int w = 0, hgt = 0, rc = 1;
    const satfeat_tracker_params tp = satfeat_tracker_params_default();
    const size_t dim = (size_t)tp.detector.descriptor;
    uint64_t h = FNV_INIT;
    size_t last_n = 0;
    satfeat_frame_motion fm;
    for (int f = 0; f < n; f++) {
        int popped = 0;
        satfeat_status st = SATFEAT_OK;
        if (satfeat_image_load_gray8(ctx, paths[f], &img, &w, &hgt) != SATFEAT_OK) {
            rc = 2;
            goto done;
        }
        if (!t && satfeat_tracker_new(ctx, &tp, w, hgt, &t) != SATFEAT_OK) goto done;
        const satfeat_image_view v = satfeat_image_view_host(img, w, hgt, 0);
        if (pipelined)
            st = satfeat_tracker_push(t, &v, &fm, &popped);
        else {
            st = satfeat_tracker_track(t, &v, &fm);
            popped = 1;
        }
        satfeat_free(img);
        img = NULL;
        if (st != SATFEAT_OK) goto done;
        if (popped) hash_tracker_frame(&h, t, &fm, dim, &last_n);
    }
    while (pipelined && satfeat_tracker_pending(t) > 0) {
        if (satfeat_tracker_pop(t, &fm) != SATFEAT_OK) goto done;
        hash_tracker_frame(&h, t, &fm, dim, &last_n);
    }
    char line[160];
    snprintf(line, sizeof line, "track %s%s frames=%d tracks=%zu", name,
             pipelined ? " pipelined" : "", n, last_n);
    report(line, h);
    rc = 0;
done:
    if (rc == 1) fprintf(stderr, "track %s: %s\n", name, satfeat_ctx_last_error(ctx));
    satfeat_tracker_delete(t);
    satfeat_free(img);
    return rc == 2 ? 0 : rc;
}

int satfeat_hash_match_track_cases(satfeat_ctx *ctx, const char *dune_dir, const char *boat_dir,
                                   report_fn report)
{
    static char paths[30][1024];
    char a[1024], b[1024], hp[1024];
    int rc = 0;
    static const int dune_pairs[] = {2, 10, 30};
    for (int i = 0; !rc && i < 3; i++) {
        snprintf(a, sizeof a, "%s/frame001.png", dune_dir);
        snprintf(b, sizeof b, "%s/frame%03d.png", dune_dir, dune_pairs[i]);
        snprintf(hp, sizeof hp, "%s/H1to%03dp", dune_dir, dune_pairs[i]);
        char tag[32];
        snprintf(tag, sizeof tag, "dune1-%d", dune_pairs[i]);
        rc = pair_cases(ctx, tag, a, b, hp, report);
    }
    for (int i = 2; !rc && i <= 6; i += 2) {
        snprintf(a, sizeof a, "%s/img1.pgm", boat_dir);
        snprintf(b, sizeof b, "%s/img%d.pgm", boat_dir, i);
        snprintf(hp, sizeof hp, "%s/H1to%dp", boat_dir, i);
        char tag[32];
        snprintf(tag, sizeof tag, "boat1-%d", i);
        rc = pair_cases(ctx, tag, a, b, hp, report);
    }
    for (int f = 0; f < 30; f++) snprintf(paths[f], sizeof paths[f], "%s/frame%03d.png", dune_dir, f + 1);
    for (int p = 0; !rc && p < 2; p++) rc = track_case(ctx, "dune", paths, 30, p, report);
    for (int f = 0; f < 6; f++) snprintf(paths[f], sizeof paths[f], "%s/img%d.pgm", boat_dir, f + 1);
    for (int p = 0; !rc && p < 2; p++) rc = track_case(ctx, "boat", paths, 6, p, report);
    return rc;
}

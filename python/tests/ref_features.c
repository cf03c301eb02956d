/* ref_features.c - the C side of the Python bit-for-bit tests: runs the library's public calls
 * on two images with default parameters on a CPU context and writes the raw results (the
 * structs exactly as the library returns them) into OUTDIR, for the pytest suite to compare
 * with what satfeat.* returns.
 *
 * usage: satfeat_py_ref_features IMAGE1 IMAGE2 OUTDIR
 * writes sat1.u32 (the u32 table of IMAGE1, (h+1) x (w+1)), kp1.bin / desc1.f32 and kp2.bin /
 * desc2.f32 (satfeat_keypoint records and SURF-64 descriptors of the default detector),
 * match.bin (satfeat_match_pair records of the two feature sets with the default match
 * parameters), tracks.bin (satfeat_track records after tracking IMAGE1 then IMAGE2 with the
 * default tracker), and the motion of those matches (satfeat_estimate_motion_matches) with the
 * default parameters (motion_homography.bin, mask_homography.u8) and as an affine map with
 * threshold 2 and seed 7 (motion_affine.bin, mask_affine.u8); a motion file holds h (9 doubles),
 * then inliers as uint64, rms_error as double, iterations as int64, little-endian as the host.
 * Exit status 0 on success, 1 with a message on failure. */
#include "satfeat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct features {
    uint8_t *img;
    int w, h;
    satfeat_features *set;
    const satfeat_keypoint *kp; /* the set's arrays */
    const float *desc;
    size_t n;
} features;

static int fail(satfeat_ctx *ctx, const char *what, satfeat_status st)
{
    fprintf(stderr, "ref_features: %s: %s: %s\n", what, satfeat_status_string(st),
            ctx ? satfeat_ctx_last_error(ctx) : "");
    return 1;
}

static int write_file(const char *dir, const char *name, const void *data, size_t bytes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    int ok = f && (bytes == 0 || fwrite(data, 1, bytes, f) == bytes);
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "ref_features: cannot write %s\n", path);
    return ok ? 0 : 1;
}

/* Loads an image and detects its keypoints and descriptors with the default detector. */
static int detect(satfeat_ctx *ctx, const char *path, features *f)
{
    satfeat_status st = satfeat_image_load_gray8(ctx, path, &f->img, &f->w, &f->h);
    if (st != SATFEAT_OK) return fail(ctx, path, st);
    satfeat_detector *det = NULL;
    satfeat_detector_params params = satfeat_detector_params_default();
    st = satfeat_detector_new(ctx, &params, f->w, f->h, &det);
    const satfeat_image_view view = satfeat_image_view_host(f->img, f->w, f->h, 0);
    if (st == SATFEAT_OK) st = satfeat_detect(det, &view, &f->set);
    f->kp = satfeat_features_keypoints(f->set);
    f->desc = satfeat_features_descriptors(f->set);
    f->n = satfeat_features_count(f->set);
    satfeat_detector_delete(det);
    return st == SATFEAT_OK ? 0 : fail(ctx, path, st);
}

/* Estimates the motion of matches m between fa and fb with `params` and writes it as the header
 * says: motion_NAME.bin and mask_NAME.u8. */
static int write_motion(satfeat_ctx *ctx, const char *dir, const char *name,
                        const satfeat_features *fa, const satfeat_features *fb,
                        const satfeat_matches *m, const satfeat_motion_params *params)
{
    const size_t n = satfeat_matches_count(m);
    uint8_t *mask = malloc(n ? n : 1);
    satfeat_motion mo;
    satfeat_status st = mask ? satfeat_estimate_motion_matches(ctx, fa, fb, m, params, &mo, mask)
                             : SATFEAT_ERR_ALLOC;
    int rc = st != SATFEAT_OK ? fail(ctx, "estimate_motion_matches", st) : 0;
    if (!rc) {
        struct {
            double h[9];
            uint64_t inliers;
            double rms_error;
            int64_t iterations;
        } rec = {{0}, mo.inliers, mo.rms_error, mo.iterations};
        memcpy(rec.h, mo.h, sizeof rec.h);
        char file[64];
        snprintf(file, sizeof file, "motion_%s.bin", name);
        rc = write_file(dir, file, &rec, sizeof rec);
        snprintf(file, sizeof file, "mask_%s.u8", name);
        rc = rc || write_file(dir, file, mask, n);
    }
    free(mask);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s IMAGE1 IMAGE2 OUTDIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[3];
    satfeat_ctx *ctx = NULL;
    satfeat_status st = satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1);
    if (st != SATFEAT_OK) return fail(NULL, "context", st);
    features a = {0}, b = {0};
    int rc = detect(ctx, argv[1], &a) || detect(ctx, argv[2], &b);
    uint32_t *table = NULL;
    satfeat_features *fa = NULL, *fb = NULL;
    satfeat_matches *m = NULL;
    satfeat_tracker *tracker = NULL;
    if (!rc) {
        size_t tw = (size_t)a.w + 1, th = (size_t)a.h + 1;
        table = malloc(tw * th * sizeof *table);
        st = table ? satfeat_sat_u8(ctx, a.img, (size_t)a.w, a.w, a.h, table, 4 * tw,
                                    SATFEAT_SAT_CPU)
                   : SATFEAT_ERR_ALLOC;
        rc = st != SATFEAT_OK ? fail(ctx, "sat", st)
                              : write_file(dir, "sat1.u32", table, tw * th * sizeof *table);
    }
    if (!rc) {
        rc = write_file(dir, "kp1.bin", a.kp, a.n * sizeof *a.kp) ||
             write_file(dir, "desc1.f32", a.desc, a.n * 64 * sizeof(float)) ||
             write_file(dir, "kp2.bin", b.kp, b.n * sizeof *b.kp) ||
             write_file(dir, "desc2.f32", b.desc, b.n * 64 * sizeof(float));
    }
    if (!rc) {
        st = satfeat_features_new(&fa);
        if (st == SATFEAT_OK) st = satfeat_features_new(&fb);
        if (st == SATFEAT_OK)
            st = satfeat_features_assign(fa, a.kp, a.desc, a.n, SATFEAT_DESCRIPTOR_SURF64, a.w,
                                         a.h);
        if (st == SATFEAT_OK)
            st = satfeat_features_assign(fb, b.kp, b.desc, b.n, SATFEAT_DESCRIPTOR_SURF64, b.w,
                                         b.h);
        if (st == SATFEAT_OK) st = satfeat_match(ctx, fa, fb, NULL, &m);
        rc = st != SATFEAT_OK ? fail(ctx, "match", st)
                              : write_file(dir, "match.bin", satfeat_matches_data(m),
                                           satfeat_matches_count(m) * sizeof(satfeat_match_pair));
    }
    if (!rc) {
        satfeat_motion_params affine = satfeat_motion_params_default();
        affine.model = SATFEAT_MOTION_AFFINE;
        affine.threshold = 2.0;
        affine.seed = 7;
        rc = write_motion(ctx, dir, "homography", fa, fb, m, NULL) ||
             write_motion(ctx, dir, "affine", fa, fb, m, &affine);
    }
    if (!rc) {
        const satfeat_image_view va = satfeat_image_view_host(a.img, a.w, a.h, 0);
        const satfeat_image_view vb = satfeat_image_view_host(b.img, b.w, b.h, 0);
        st = satfeat_tracker_new(ctx, NULL, a.w, a.h, &tracker);
        if (st == SATFEAT_OK) st = satfeat_tracker_track(tracker, &va, NULL);
        if (st == SATFEAT_OK) st = satfeat_tracker_track(tracker, &vb, NULL);
        size_t count = 0;
        const satfeat_track *tracks = satfeat_tracker_tracks(tracker, &count);
        rc = st != SATFEAT_OK ? fail(ctx, "tracker", st)
                              : write_file(dir, "tracks.bin", tracks, count * sizeof *tracks);
    }
    satfeat_tracker_delete(tracker);
    satfeat_matches_delete(m);
    satfeat_features_delete(fa);
    satfeat_features_delete(fb);
    free(table);
    satfeat_free(a.img);
    satfeat_free(b.img);
    satfeat_features_delete(a.set);
    satfeat_features_delete(b.set);
    satfeat_ctx_delete(ctx);
    return rc;
}

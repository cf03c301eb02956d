/* hash_pipeline.c - developer program: digests of everything after the detector's keypoints
 * (orientations, descriptors, matches, motions, tracks) over a fixed matrix, on one backend.
 *
 * Companion of satfeat_hash_outputs (tables and keypoints): run it before and after a change
 * that must not change any output bit; the lines (one FNV-1a 64 digest per case) and the total
 * must be identical, and identical between `--backend cpu` and `--backend cuda`. Values are
 * hashed field by field (float and double bit patterns), never as raw struct bytes.
 * Cases: SURF-64, SURF-128 and upright SURF-64 features of every image given; matches of the
 * first image's features against every other image's (ratio 0.8 mutual with the Laplacian gate,
 * then ratio 1 without gates) and the homography estimated from them; the tracker over the
 * images in order and over 12 crops of the first image sliding 3 px right and 2 px down a frame.
 *
 * usage: satfeat_hash_pipeline [--backend cpu|cuda] IMAGE...
 */
#include "satfeat.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FNV_INIT 14695981039346656037ull
#define MAX_IMAGES 16

static uint64_t g_total = FNV_INIT;

static void fnv_u64(uint64_t *h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        *h ^= (v >> (8 * i)) & 0xffu;
        *h *= 1099511628211ull;
    }
}

static void fnv_double(uint64_t *h, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    fnv_u64(h, u);
}

static void fnv_float(uint64_t *h, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    fnv_u64(h, u);
}

static void report(const char *name, uint64_t h)
{
    printf("%016llx %s\n", (unsigned long long)h, name);
    fnv_u64(&g_total, h);
}

typedef struct image {
    uint8_t *px;
    int w, h;
    const char *name;
} image;

/* One image's features: keypoints with angles and descriptors (dim floats each). */
typedef struct features {
    satfeat_keypoint *kp;
    float *desc;
    size_t n;
    int dim;
} features;

static uint64_t hash_features(const features *f)
{
    uint64_t h = FNV_INIT;
    fnv_u64(&h, f->n);
    for (size_t i = 0; i < f->n; i++) {
        fnv_double(&h, f->kp[i].x);
        fnv_double(&h, f->kp[i].y);
        fnv_double(&h, f->kp[i].size);
        fnv_double(&h, f->kp[i].response);
        fnv_double(&h, f->kp[i].angle);
        fnv_u64(&h, (uint64_t)(int64_t)f->kp[i].laplacian);
    }
    for (size_t i = 0; i < f->n * (size_t)f->dim; i++) fnv_float(&h, f->desc[i]);
    return h;
}

/* Detects with descriptors into *out (copies of the library's feature set). */
static int detect(satfeat_detector *det, const image *im, features *out)
{
    memset(out, 0, sizeof *out);
    out->dim = satfeat_detector_descriptor_dim(det);
    satfeat_features *set = NULL;
    const satfeat_image_view v = satfeat_image_view_host(im->px, im->w, im->h, 0);
    if (satfeat_detect(det, &v, &set) != SATFEAT_OK) return 1;
    out->n = satfeat_features_count(set);
    out->kp = malloc(sizeof *out->kp * (out->n ? out->n : 1));
    out->desc = malloc(sizeof *out->desc * (out->n ? out->n : 1) * (size_t)out->dim);
    if (!out->kp || !out->desc) return 1;
    if (out->n) {
        memcpy(out->kp, satfeat_features_keypoints(set), out->n * sizeof *out->kp);
        memcpy(out->desc, satfeat_features_descriptors(set),
               out->n * (size_t)out->dim * sizeof *out->desc);
    }
    satfeat_features_delete(set);
    return 0;
}

static void features_free(features *f)
{
    free(f->kp);
    free(f->desc);
}

static int feature_cases(satfeat_ctx *ctx, const image *ims, int n_images, features *surf64)
{
    static const struct {
        const char *name;
        satfeat_descriptor_kind kind;
        int upright;
    } kinds[] = {{"surf64", SATFEAT_DESCRIPTOR_SURF64, 0},
                 {"surf128", SATFEAT_DESCRIPTOR_SURF128, 0},
                 {"surf64_upright", SATFEAT_DESCRIPTOR_SURF64, 1}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        satfeat_detector_params p = satfeat_detector_params_default();
        p.descriptor = kinds[k].kind;
        p.upright = kinds[k].upright;
        for (int i = 0; i < n_images; i++) {
            satfeat_detector *det = NULL;
            features f;
            if (satfeat_detector_new(ctx, &p, ims[i].w, ims[i].h, &det) != SATFEAT_OK ||
                detect(det, &ims[i], &f)) {
                fprintf(stderr, "features %s %s: %s\n", kinds[k].name, ims[i].name,
                        satfeat_ctx_last_error(ctx));
                return 1;
            }
            char name[256];
            snprintf(name, sizeof name, "features %s %s n=%zu", kinds[k].name, ims[i].name, f.n);
            report(name, hash_features(&f));
            if (k == 0)
                surf64[i] = f;
            else
                features_free(&f);
            satfeat_detector_delete(det);
        }
    }
    return 0;
}

/* A feature set holding a copy of f (the matcher and the motion estimator take sets). */
static satfeat_features *as_set(const features *f, const image *im)
{
    satfeat_features *set = NULL;
    if (satfeat_features_new(&set) != SATFEAT_OK ||
        satfeat_features_assign(set, f->kp, f->desc, f->n, (satfeat_descriptor_kind)f->dim,
                                im->w, im->h) != SATFEAT_OK) {
        satfeat_features_delete(set);
        return NULL;
    }
    return set;
}

static int match_cases(satfeat_ctx *ctx, const image *ims, int n_images, const features *f)
{
    satfeat_features *q = as_set(&f[0], &ims[0]);
    satfeat_matches *m = NULL;
    if (!q) return 1;
    for (int j = 1; j < n_images; j++) {
        satfeat_features *t = as_set(&f[j], &ims[j]);
        if (!t) return 1;
        for (int gated = 1; gated >= 0; gated--) {
            satfeat_match_params mp = satfeat_match_params_default();
            if (!gated) {
                mp.ratio = 1.0;
                mp.mutual = 0;
                mp.same_laplacian = 0;
            }
            if (satfeat_match(ctx, q, t, &mp, &m) != SATFEAT_OK) {
                fprintf(stderr, "match %s: %s\n", ims[j].name, satfeat_ctx_last_error(ctx));
                return 1;
            }
            const size_t n = satfeat_matches_count(m);
            const satfeat_match_pair *mm = satfeat_matches_data(m);
            uint64_t h = FNV_INIT;
            fnv_u64(&h, n);
            for (size_t i = 0; i < n; i++) {
                fnv_u64(&h, (uint64_t)mm[i].query);
                fnv_u64(&h, (uint64_t)mm[i].train);
                fnv_float(&h, mm[i].distance);
            }
            char name[256];
            snprintf(name, sizeof name, "match %s %s %s n=%zu", ims[0].name, ims[j].name,
                     gated ? "gated" : "plain", n);
            report(name, h);
            if (gated) { /* the homography from the gated matches, PROSAC by distance */
                satfeat_motion mo;
                satfeat_status st = satfeat_estimate_motion_matches(ctx, q, t, m, NULL, &mo, NULL);
                uint64_t hm = FNV_INIT;
                fnv_u64(&hm, (uint64_t)st);
                if (st == SATFEAT_OK) {
                    for (int k = 0; k < 9; k++) fnv_double(&hm, mo.h[k]);
                    fnv_u64(&hm, mo.inliers);
                    fnv_double(&hm, mo.rms_error);
                }
                snprintf(name, sizeof name, "motion %s %s inliers=%zu", ims[0].name, ims[j].name,
                         st == SATFEAT_OK ? mo.inliers : 0);
                report(name, hm);
            }
        }
        satfeat_features_delete(t);
    }
    satfeat_matches_delete(m);
    satfeat_features_delete(q);
    return 0;
}

/* Feeds frames[0..n-1] (all w x h, rows packed) to a new tracker and hashes every frame's
 * tracks and motion. */
static int track_case(satfeat_ctx *ctx, const char *label, uint8_t *const *frames, int n, int w,
                      int h)
{
    satfeat_tracker *tr = NULL;
    if (satfeat_tracker_new(ctx, NULL, w, h, &tr) != SATFEAT_OK) {
        fprintf(stderr, "tracker %s: %s\n", label, satfeat_ctx_last_error(ctx));
        return 1;
    }
    uint64_t h_all = FNV_INIT;
    size_t last = 0;
    for (int i = 0; i < n; i++) {
        satfeat_frame_motion fm;
        const satfeat_image_view v = satfeat_image_view_host(frames[i], w, h, (size_t)w);
        if (satfeat_tracker_track(tr, &v, &fm) != SATFEAT_OK) {
            fprintf(stderr, "track %s frame %d: %s\n", label, i, satfeat_ctx_last_error(ctx));
            return 1;
        }
        size_t count = 0;
        const satfeat_track *t = satfeat_tracker_tracks(tr, &count);
        fnv_u64(&h_all, count);
        for (size_t k = 0; k < count; k++) {
            fnv_u64(&h_all, t[k].id);
            fnv_double(&h_all, t[k].x);
            fnv_double(&h_all, t[k].y);
            fnv_double(&h_all, t[k].size);
            fnv_double(&h_all, t[k].angle);
            fnv_u64(&h_all, (uint64_t)((t[k].age << 8) ^ (t[k].missed << 4) ^ t[k].inlier));
        }
        fnv_u64(&h_all, (uint64_t)(fm.valid * 2 + fm.ref_valid));
        for (int k = 0; k < 9; k++) {
            fnv_double(&h_all, fm.h_prev[k]);
            fnv_double(&h_all, fm.h_ref[k]);
        }
        fnv_u64(&h_all, fm.inliers ^ (fm.matches << 20) ^ (fm.born << 40));
        last = count;
    }
    char name[256];
    snprintf(name, sizeof name, "track %s frames=%d last_tracks=%zu", label, n, last);
    report(name, h_all);
    satfeat_tracker_delete(tr);
    return 0;
}

static int track_cases(satfeat_ctx *ctx, const image *ims, int n_images)
{
    int same = 1;
    for (int i = 1; i < n_images; i++) same &= ims[i].w == ims[0].w && ims[i].h == ims[0].h;
    if (same && n_images > 1) {
        uint8_t *frames[MAX_IMAGES];
        for (int i = 0; i < n_images; i++) frames[i] = ims[i].px;
        if (track_case(ctx, "images", frames, n_images, ims[0].w, ims[0].h)) return 1;
    }
    enum { CROPS = 12, DX = 3, DY = 2 };
    const int w = ims[0].w - DX * CROPS, h = ims[0].h - DY * CROPS;
    if (w < 64 || h < 64) return 0;
    uint8_t *frames[CROPS];
    for (int c = 0; c < CROPS; c++) {
        frames[c] = malloc((size_t)w * h);
        if (!frames[c]) return 1;
        for (int y = 0; y < h; y++)
            memcpy(frames[c] + (size_t)y * w,
                   ims[0].px + (size_t)(y + DY * c) * ims[0].w + DX * c, (size_t)w);
    }
    int rc = track_case(ctx, "crops", frames, CROPS, w, h);
    for (int c = 0; c < CROPS; c++) free(frames[c]);
    return rc;
}

int main(int argc, char **argv)
{
    satfeat_backend backend = SATFEAT_BACKEND_CPU;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--backend") == 0) {
        if (strcmp(argv[2], "cuda") == 0)
            backend = SATFEAT_BACKEND_CUDA;
        else if (strcmp(argv[2], "cpu") != 0) {
            fprintf(stderr, "usage: satfeat_hash_pipeline [--backend cpu|cuda] IMAGE...\n");
            return 2;
        }
        first = 3;
    }
    const int n_images = argc - first;
    if (n_images < 1 || n_images > MAX_IMAGES) {
        fprintf(stderr, "usage: satfeat_hash_pipeline [--backend cpu|cuda] IMAGE... (1..%d)\n",
                MAX_IMAGES);
        return 2;
    }
    satfeat_ctx *ctx = NULL;
    if (satfeat_ctx_new(&ctx, backend, 0) != SATFEAT_OK) {
        fprintf(stderr, "satfeat_hash_pipeline: no context for that backend\n");
        return 1;
    }
    image ims[MAX_IMAGES];
    for (int i = 0; i < n_images; i++) {
        ims[i].name = strrchr(argv[first + i], '/') ? strrchr(argv[first + i], '/') + 1
                                                     : argv[first + i];
        if (satfeat_image_load_gray8(ctx, argv[first + i], &ims[i].px, &ims[i].w, &ims[i].h) !=
            SATFEAT_OK) {
            fprintf(stderr, "%s\n", satfeat_ctx_last_error(ctx));
            return 1;
        }
    }
    features f[MAX_IMAGES];
    int rc = feature_cases(ctx, ims, n_images, f) || match_cases(ctx, ims, n_images, f) ||
             track_cases(ctx, ims, n_images);
    printf("%016llx total\n", (unsigned long long)g_total);
    for (int i = 0; i < n_images && !rc; i++) features_free(&f[i]);
    for (int i = 0; i < n_images; i++) satfeat_free(ims[i].px);
    satfeat_ctx_delete(ctx);
    return rc;
}

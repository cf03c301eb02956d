/* hash_outputs.c - developer program: hashes CPU SAT tables, CPU detector keypoints, matches,
 * motions, scores and tracks over a fixed test matrix.
 *
 * Used to prove that a refactoring changes no output bit: run it before and after, the lines
 * (one FNV-1a 64 digest per case) and the total must be identical. Only the public API is used.
 * SAT cases: u8 and f32 tables of random images (fixed seed) over a matrix of sizes (1x1,
 * primes, odd and power-of-two sizes). Detector cases: data/scene.png, the Oxford boat images
 * (when present) and synthetic images under several parameter sets. Keypoints are hashed field
 * by field (never as raw struct bytes, so padding and added fields do not change the digest).
 * Match, motion, evaluation and tracker cases: hash_tracks.c (data/dune and the boat images).
 *
 * usage: satfeat_hash_outputs [SCENE.png [BOAT_DIR]]
 */
#include "satfeat.h"
#include "hash_fnv.h"
#include "hash_tracks.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* xorshift64 pseudo-random bytes from a fixed seed. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

static uint64_t g_total = FNV_INIT;

static void report(const char *name, uint64_t h)
{
    printf("%016llx %s\n", (unsigned long long)h, name);
    fnv_u64(&g_total, h);
}

static int sat_cases(satfeat_ctx *ctx)
{
    static const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 3}, {13, 17}, {31, 29},
                                   {64, 64}, {97, 61}, {127, 255}, {256, 256}, {257, 131},
                                   {509, 7}, {640, 480}, {1021, 769}};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        int w = sizes[c][0], h = sizes[c][1];
        uint64_t seed = 0x9E3779B97F4A7C15ull ^ (uint64_t)(w * 131 + h);
        uint8_t *img = malloc((size_t)w * h);
        float *imgf = malloc(sizeof(float) * (size_t)w * h);
        uint32_t *t = malloc(sizeof(uint32_t) * (size_t)(w + 1) * (h + 1));
        float *tf = malloc(sizeof(float) * (size_t)(w + 1) * (h + 1));
        if (!img || !imgf || !t || !tf)
            return 1;
        for (size_t i = 0; i < (size_t)w * h; i++) {
            uint64_t r = rng_next(&seed);
            img[i] = (uint8_t)(r >> 56);
            imgf[i] = (float)((double)(r >> 40) / 16777216.0 * 2.0 - 0.5);
        }
        if (satfeat_sat_u8(ctx, img, (size_t)w, w, h, t, sizeof(uint32_t) * (size_t)(w + 1),
                           SATFEAT_SAT_CPU) != SATFEAT_OK ||
            satfeat_sat_f32(ctx, imgf, sizeof(float) * (size_t)w, w, h, tf,
                            sizeof(float) * (size_t)(w + 1), SATFEAT_SAT_CPU) != SATFEAT_OK) {
            fprintf(stderr, "sat %dx%d: %s\n", w, h, satfeat_ctx_last_error(ctx));
            return 1;
        }
        uint64_t hu = FNV_INIT, hf = FNV_INIT;
        for (size_t i = 0; i < (size_t)(w + 1) * (h + 1); i++) {
            fnv_u64(&hu, t[i]);
            uint32_t u;
            memcpy(&u, &tf[i], sizeof u);
            fnv_u64(&hf, u);
        }
        char name[64];
        snprintf(name, sizeof name, "sat_u8 %dx%d", w, h);
        report(name, hu);
        snprintf(name, sizeof name, "sat_f32 %dx%d", w, h);
        report(name, hf);
        free(img);
        free(imgf);
        free(t);
        free(tf);
    }
    return 0;
}

/* Hashes every public field of the keypoints (angle excluded, so added fields do not matter). */
static uint64_t hash_keypoints(const satfeat_keypoint *kp, size_t n)
{
    uint64_t h = FNV_INIT;
    fnv_u64(&h, (uint64_t)n);
    for (size_t i = 0; i < n; i++) {
        fnv_double(&h, kp[i].x);
        fnv_double(&h, kp[i].y);
        fnv_double(&h, kp[i].size);
        fnv_double(&h, kp[i].sigma);
        fnv_double(&h, kp[i].response);
        fnv_int(&h, kp[i].laplacian);
        fnv_int(&h, kp[i].octave);
        fnv_int(&h, kp[i].layer);
        fnv_int(&h, kp[i].sample_x);
        fnv_int(&h, kp[i].sample_y);
    }
    return h;
}

typedef struct param_case {
    const char *name;
    satfeat_detector_params p;
} param_case;

static int param_cases(param_case *pc)
{
    int n = 0;
    satfeat_detector_params d = satfeat_detector_params_default();
    pc[n].name = "defaults"; pc[n++].p = d;
    pc[n].name = "layers6"; pc[n].p = d; pc[n++].p.layers = 6;
    pc[n].name = "layers3_oct6"; pc[n].p = d; pc[n].p.layers = 3; pc[n++].p.octaves = 6;
    pc[n].name = "max_offset1"; pc[n].p = d; pc[n++].p.max_offset = 1.0;
    pc[n].name = "unique0"; pc[n].p = d; pc[n++].p.unique_scales = 0;
    pc[n].name = "step2"; pc[n].p = d; pc[n++].p.init_step = 2;
    pc[n].name = "grid4x3"; pc[n].p = d; pc[n].p.grid = 4; pc[n++].p.per_cell = 3;
    pc[n].name = "max100"; pc[n].p = d; pc[n++].p.max_keypoints = 100;
    pc[n].name = "thr0"; pc[n].p = d; pc[n].p.threshold = 0.0; pc[n++].p.octaves = 2;
    pc[n].name = "mixed"; pc[n].p = d; pc[n].p.layers = 5; pc[n].p.max_offset = 1.0;
    pc[n].p.unique_scales = 0; pc[n].p.grid = 8; pc[n].p.per_cell = 5;
    pc[n++].p.max_keypoints = 300;
    return n;
}

static int detect_case(satfeat_ctx *ctx, const char *img_name, const uint8_t *img, int w, int h)
{
    param_case pc[16];
    int np = param_cases(pc);
    for (int i = 0; i < np; i++) {
        satfeat_detector *det = NULL;
        if (satfeat_detector_new(ctx, &pc[i].p, w, h, &det) != SATFEAT_OK) {
            fprintf(stderr, "detector_new %s: %s\n", pc[i].name, satfeat_ctx_last_error(ctx));
            return 1;
        }
        satfeat_features *f = NULL;
        const satfeat_image_view view = satfeat_image_view_host(img, w, h, 0);
        if (satfeat_detect(det, &view, &f) != SATFEAT_OK) {
            fprintf(stderr, "detect %s %s: %s\n", img_name, pc[i].name, satfeat_ctx_last_error(ctx));
            return 1;
        }
        const size_t count = satfeat_features_count(f);
        char name[160];
        snprintf(name, sizeof name, "detect %s %s n=%zu", img_name, pc[i].name, count);
        report(name, hash_keypoints(satfeat_features_keypoints(f), count));
        satfeat_features_delete(f);
        satfeat_detector_delete(det);
    }
    return 0;
}

static int detect_file(satfeat_ctx *ctx, const char *path, const char *name)
{
    uint8_t *img = NULL;
    int w = 0, h = 0;
    if (satfeat_image_load_gray8(ctx, path, &img, &w, &h) != SATFEAT_OK) {
        fprintf(stderr, "skip %s: %s\n", path, satfeat_ctx_last_error(ctx));
        return 0;
    }
    int rc = detect_case(ctx, name, img, w, h);
    satfeat_free(img);
    return rc;
}

/* Synthetic images: random noise, and smooth blobs on a gradient (integer arithmetic only). */
static int detect_synthetic(satfeat_ctx *ctx)
{
    static const int sizes[][2] = {{1, 1}, {37, 23}, {160, 120}, {333, 211}};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        int w = sizes[c][0], h = sizes[c][1];
        uint8_t *img = malloc((size_t)w * h);
        if (!img)
            return 1;
        uint64_t seed = 0xD1B54A32D192ED03ull + (uint64_t)w;
        for (size_t i = 0; i < (size_t)w * h; i++)
            img[i] = (uint8_t)(rng_next(&seed) >> 56);
        char name[64];
        snprintf(name, sizeof name, "noise%dx%d", w, h);
        if (detect_case(ctx, name, img, w, h))
            return 1;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int v = 60 + (x * 40) / w + (y * 30) / h;
                for (int b = 0; b < 12; b++) {
                    int cx = (int)((b * 97 + 13) % (w > 0 ? w : 1));
                    int cy = (int)((b * 61 + 7) % (h > 0 ? h : 1));
                    int r = 3 + (b * 5) % 17;
                    int dx = x - cx, dy = y - cy, d2 = dx * dx + dy * dy;
                    if (d2 < r * r)
                        v += ((b & 1) ? 1 : -1) * (120 * (r * r - d2)) / (r * r);
                }
                img[(size_t)y * w + x] = (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
            }
        snprintf(name, sizeof name, "blobs%dx%d", w, h);
        if (detect_case(ctx, name, img, w, h))
            return 1;
        free(img);
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *scene = argc > 1 ? argv[1] : "data/scene.png";
    const char *boat = argc > 2 ? argv[2] : "/work/shared/data/oxford-boat";
    satfeat_ctx *ctx = NULL;
    if (satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1) != SATFEAT_OK) {
        fprintf(stderr, "no CPU context\n");
        return 1;
    }
    int rc = sat_cases(ctx);
    if (!rc)
        rc = detect_file(ctx, scene, "scene");
    for (int i = 1; !rc && i <= 6; i++) {
        char path[1024], name[32];
        snprintf(path, sizeof path, "%s/img%d.pgm", boat, i);
        snprintf(name, sizeof name, "boat%d", i);
        rc = detect_file(ctx, path, name);
    }
    if (!rc)
        rc = detect_synthetic(ctx);
    if (!rc)
        rc = satfeat_hash_match_track_cases(ctx, "data/dune", boat, report);
    satfeat_ctx_delete(ctx);
    if (rc)
        return 1;
    printf("%016llx TOTAL\n", (unsigned long long)g_total);
    return 0;
}

/* bench_describe.c - CPU time of orientation + SURF descriptors for the strongest N keypoints of
 * a synthetic 1920x1080 texture (or an image given on the command line): best wall time of R runs
 * per thread count, and the thread CPU time of the 1-thread runs (which a loaded machine inflates
 * less). Usage: satfeat_bench_describe [IMAGE] [--keypoints N] [--runs R] [--dim 64|128]
 * [--sort-y] (process the keypoints in row order: cache locality) [--hash] (print FNV-1a hashes
 * of the angles and descriptors of fixed keypoint sets, the bit-identity proof for speed work,
 * and exit) [--path 0|1|2|3] (time or hash the fast (default), clamped, reference or fast
 * one-pair-at-a-time CPU path; the
 * reference path is the per-sample code of orientation.h / descriptor.h, the speed before the
 * fast path). */
#include "describe/describe.h"
#include "satfeat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds of the given clock, in milliseconds. */
static double clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Orders keypoints by row (the --sort-y experiment). */
static int by_y(const void *a, const void *b)
{
    const satfeat_keypoint *p = a, *q = b;
    return (p->y > q->y) - (p->y < q->y);
}

static uint8_t *texture(int w, int h, int blobs);

/* FNV-1a 64 over n bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* xorshift64 in [0, 1). */
static double urand(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* The CPU path measured or hashed (--path 0 fast, 1 clamped, 2 reference, 3 fast scalar). */
static satfeat_desc_path g_path = SATFEAT_DESC_PATH_FAST;

/* Hash of everything the CPU path computes for kp[0..n-1] on one table: the angles (1 and 2
 * threads must agree), then SURF-64 and SURF-128 with the keypoints' own angles (random_angles:
 * replaced by random ones first) and upright SURF-64. Prints it with `name`; returns it. */
static uint64_t hash_set(const char *name, const uint32_t *sat, int w, int h,
                         satfeat_keypoint *kp, size_t n, int random_angles, uint64_t seed)
{
    satfeat_describe_weights wt;
    satfeat_describe_weights_init(&wt);
    float *desc = malloc((n ? n : 1) * 128 * sizeof *desc);
    double *a1 = malloc((n ? n : 1) * sizeof *a1);
    if (!desc || !a1) exit(1);
    uint64_t hh = 14695981039346656037ull;
    satfeat_orient_cpu_path(sat, (size_t)w + 1, w, h, kp, n, &wt, 1, g_path);
    for (size_t i = 0; i < n; i++) a1[i] = kp[i].angle;
    satfeat_orient_cpu_path(sat, (size_t)w + 1, w, h, kp, n, &wt, 2, g_path);
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a1[i], &kp[i].angle, sizeof a1[i])) {
            fprintf(stderr, "%s: angle %zu differs between 1 and 2 threads\n", name, i);
            exit(1);
        }
    hh = fnv(hh, a1, n * sizeof *a1);
    if (random_angles)
        for (size_t i = 0; i < n; i++) kp[i].angle = urand(&seed) * 6.283185307179586;
    const int dims[3] = {64, 128, 64}, upr[3] = {0, 0, 1};
    for (int c = 0; c < 3; c++) {
        satfeat_describe_cpu_path(sat, (size_t)w + 1, w, h, kp, n, upr[c], dims[c], &wt, desc,
                                  1 + c % 2, g_path);
        hh = fnv(hh, desc, n * (size_t)dims[c] * sizeof *desc);
    }
    printf("hash %-28s %6zu keypoints %016llx\n", name, n, (unsigned long long)hh);
    free(desc);
    free(a1);
    return hh;
}

/* Random keypoints over [-pad, w+pad) x [-pad, h+pad), sigma in [0.5, smax). */
static void random_kps(satfeat_keypoint *kp, size_t n, int w, int h, double pad, double smax,
                       uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        memset(&kp[i], 0, sizeof kp[i]);
        kp[i].x = -pad + urand(&seed) * (w + 2 * pad);
        kp[i].y = -pad + urand(&seed) * (h + 2 * pad);
        kp[i].sigma = 0.5 + urand(&seed) * (smax - 0.5);
    }
}

/* The --hash mode: fixed keypoint sets on the 1080p texture and a small one. */
static int hash_mode(satfeat_ctx *ctx, const uint32_t *sat, int w, int h, satfeat_keypoint *kp, size_t n)
{
    uint64_t all = 14695981039346656037ull, x;
    x = hash_set("detected", sat, w, h, kp, n, 0, 1);
    all = fnv(all, &x, sizeof x);
    x = hash_set("detected, random angles", sat, w, h, kp, n, 1, 2);
    all = fnv(all, &x, sizeof x);
    const size_t nr = 3000;
    satfeat_keypoint *r = malloc(nr * sizeof *r);
    uint8_t *small = texture(97, 61, 40);
    uint32_t *ssat = malloc(98 * 62 * sizeof *ssat);
    if (!r || !small || !ssat ||
        satfeat_sat_u8(ctx, small, 97, 97, 61, ssat, 98 * sizeof *ssat, SATFEAT_SAT_AUTO) !=
            SATFEAT_OK)
        exit(1);
    random_kps(r, nr, w, h, 60.0, 12.0, 3);
    x = hash_set("random, sigma < 12", sat, w, h, r, nr, 1, 4);
    all = fnv(all, &x, sizeof x);
    random_kps(r, nr, w, h, 300.0, 80.0, 5);
    x = hash_set("random, sigma < 80", sat, w, h, r, nr, 1, 6);
    all = fnv(all, &x, sizeof x);
    random_kps(r, nr, 97, 61, 20.0, 6.0, 7);
    x = hash_set("97x61 random, sigma < 6", ssat, 97, 61, r, nr, 1, 8);
    all = fnv(all, &x, sizeof x);
    printf("hash all %016llx\n", (unsigned long long)all);
    free(r);
    free(small);
    free(ssat);
    return 0;
}

/* A deterministic texture of smooth elongated blobs on gray 128. */
static uint8_t *texture(int w, int h, int blobs)
{
    double *acc = calloc((size_t)w * (size_t)h, sizeof *acc);
    uint8_t *img = malloc((size_t)w * (size_t)h);
    if (!acc || !img) exit(1);
    uint64_t s = 88172645463325252ull;
    for (int k = 0; k < blobs; k++) {
        double r[6];
        for (int i = 0; i < 6; i++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            r[i] = (double)(s >> 11) / 9007199254740992.0;
        }
        const double bx = r[0] * w, by = r[1] * h, s1 = 2 + 8 * r[2], s2 = s1 * (0.3 + 0.5 * r[3]);
        const double th = 3.14159265358979 * r[4], amp = (r[5] < 0.5 ? -1 : 1) * (30 + 100 * fabs(r[5] - 0.5));
        const double ct = cos(th), st = sin(th);
        const int rad = (int)ceil(4 * s1);
        for (int y = (int)by - rad; y <= (int)by + rad; y++)
            for (int x = (int)bx - rad; x <= (int)bx + rad; x++) {
                if (x < 0 || y < 0 || x >= w || y >= h) continue;
                const double dx = x - bx, dy = y - by, u = ct * dx + st * dy, v = -st * dx + ct * dy;
                acc[(size_t)y * w + x] += amp * exp(-0.5 * (u * u / (s1 * s1) + v * v / (s2 * s2)));
            }
    }
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        const double v = floor(128 + acc[i] + 0.5);
        img[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    free(acc);
    return img;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int want = 2000, runs = 20, dim = 64, sort_y = 0, hash = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--keypoints") && i + 1 < argc) want = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dim") && i + 1 < argc) dim = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sort-y")) sort_y = 1;
        else if (!strcmp(argv[i], "--hash")) hash = 1;
        else if (!strcmp(argv[i], "--path") && i + 1 < argc) g_path = (satfeat_desc_path)atoi(argv[++i]);
        else path = argv[i];
    }
    int w = 1920, h = 1080;
    uint8_t *img = NULL;
    if (path) {
        if (satfeat_image_load_gray8(NULL, path, &img, &w, &h) != SATFEAT_OK) {
            fprintf(stderr, "cannot read %s\n", path);
            return 1;
        }
    } else {
        img = texture(w, h, 3000);
    }
    satfeat_ctx *ctx = NULL;
    satfeat_detector *det = NULL;
    satfeat_detector_params p = satfeat_detector_params_default();
    p.max_keypoints = want;
    uint32_t *sat = malloc((size_t)(w + 1) * (size_t)(h + 1) * sizeof *sat);
    satfeat_keypoint *kp = malloc((size_t)want * sizeof *kp);
    float *desc = malloc((size_t)want * 128 * sizeof *desc);
    size_t n = 0;
    satfeat_features *f = NULL;
    const satfeat_image_view view = satfeat_image_view_host(img, w, h, 0);
    p.descriptor = SATFEAT_DESCRIPTOR_NONE; /* the stages are timed below, on the keypoints */
    if (!sat || !kp || !desc || satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0) != SATFEAT_OK ||
        satfeat_detector_new(ctx, &p, w, h, &det) != SATFEAT_OK ||
        satfeat_detect(det, &view, &f) != SATFEAT_OK ||
        satfeat_sat_u8(ctx, img, (size_t)w, w, h, sat, ((size_t)w + 1) * sizeof *sat,
                       SATFEAT_SAT_AUTO) != SATFEAT_OK) {
        fprintf(stderr, "setup failed: %s\n", ctx ? satfeat_ctx_last_error(ctx) : "");
        return 1;
    }
    n = satfeat_features_count(f); /* at most max_keypoints = want */
    if (n) memcpy(kp, satfeat_features_keypoints(f), n * sizeof *kp);
    satfeat_features_delete(f);
    const int rc = hash ? hash_mode(ctx, sat, w, h, kp, n) : 0;
    if (sort_y) qsort(kp, n, sizeof *kp, by_y); /* cache locality experiment */
    satfeat_describe_weights wt;
    satfeat_describe_weights_init(&wt);
    for (int threads = 1; threads <= 2 && !hash; threads++) {
        double best = 1e30, best_cpu = 1e30, best_o = 1e30;
        for (int r = 0; r < runs; r++) {
            const double c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID), t0 = clock_ms(CLOCK_MONOTONIC);
            satfeat_orient_cpu_path(sat, (size_t)w + 1, w, h, kp, n, &wt, threads, g_path);
            const double t1 = clock_ms(CLOCK_MONOTONIC);
            satfeat_describe_cpu_path(sat, (size_t)w + 1, w, h, kp, n, 0, dim, &wt, desc, threads,
                                      g_path);
            const double t2 = clock_ms(CLOCK_MONOTONIC), c2 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
            if (t2 - t0 < best) best = t2 - t0;
            if (t1 - t0 < best_o) best_o = t1 - t0;
            if (c2 - c0 < best_cpu) best_cpu = c2 - c0;
        }
        printf("%dx%d, %zu keypoints, dim %d, %d thread(s): orient+describe %.2f ms wall (orient "
               "%.2f ms)", w, h, n, dim, threads, best, best_o);
        if (threads == 1) printf(", %.2f ms thread CPU time", best_cpu);
        printf(" (best of %d)\n", runs);
    }
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    free(sat);
    free(kp);
    free(desc);
    if (path) satfeat_free(img);
    else free(img);
    return rc;
}

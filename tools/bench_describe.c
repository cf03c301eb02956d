/* bench_describe.c - CPU time of orientation + SURF descriptors for the strongest N keypoints of
 * a synthetic 1920x1080 texture (or an image given on the command line): best wall time of R runs
 * per thread count, and the thread CPU time of the 1-thread runs (which a loaded machine inflates
 * less). Usage: satfeat_bench_describe [IMAGE] [--keypoints N] [--runs R] [--dim 64|128]
 * [--sort-y] (process the keypoints in row order: cache locality). */
#include "describe_cpu.h"
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
    int want = 2000, runs = 20, dim = 64, sort_y = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--keypoints") && i + 1 < argc) want = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dim") && i + 1 < argc) dim = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sort-y")) sort_y = 1;
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
    if (!sat || !kp || !desc || satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0) != SATFEAT_OK ||
        satfeat_detector_new(ctx, &p, w, h, &det) != SATFEAT_OK ||
        satfeat_detect_u8(det, img, (size_t)w, w, h, NULL, 0, kp, (size_t)want, &n) != SATFEAT_OK ||
        satfeat_sat_u8(ctx, img, (size_t)w, w, h, sat, ((size_t)w + 1) * sizeof *sat,
                       SATFEAT_SAT_AUTO) != SATFEAT_OK) {
        fprintf(stderr, "setup failed: %s\n", ctx ? satfeat_ctx_last_error(ctx) : "");
        return 1;
    }
    if (sort_y) qsort(kp, n, sizeof *kp, by_y); /* cache locality experiment */
    satfeat_describe_weights wt;
    satfeat_describe_weights_init(&wt);
    for (int threads = 1; threads <= 2; threads++) {
        double best = 1e30, best_cpu = 1e30, best_o = 1e30;
        for (int r = 0; r < runs; r++) {
            const double c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID), t0 = clock_ms(CLOCK_MONOTONIC);
            satfeat_orient_cpu(sat, (size_t)w + 1, w, h, kp, n, &wt, threads);
            const double t1 = clock_ms(CLOCK_MONOTONIC);
            satfeat_describe_cpu(sat, (size_t)w + 1, w, h, kp, n, 0, dim, &wt, desc, threads);
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
    return 0;
}

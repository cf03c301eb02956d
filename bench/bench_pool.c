/* bench_pool.c - frames per second of satfeat_pool_detect (keypoints + SURF-64 descriptors)
 * on frames already in host memory, first on the first listed device alone, then on all listed
 * devices, and the ratio of the two.
 *
 * The frames are made from IMAGE (default data/scene.png) by tiling it over WxH with a different
 * offset per frame, so no two frames are the same. One warm-up pass (which also sizes the feature
 * sets, reused by the timed passes, and captures each device's CUDA graphs) precedes the timed
 * passes; the reported figure
 * is the median over the passes of frames / wall time of one satfeat_pool_detect call. On CUDA the
 * one-device pool is then compared with the first device's own sequence on the same frames, with
 * 1, 2, 4, ... up to --seq-lanes lanes (default 2; 0: no comparison).
 *
 * usage: satfeat_bench_pool [--backend cuda|cpu] [--devices all|0,1,...] [--workers N (cpu)]
 *                           [--frames N] [--size WxH] [--repeat R] [--seq-lanes N] [IMAGE]
 * example (2 GPUs, 1080p): satfeat_bench_pool --devices 0,1 --frames 256 --size 1920x1080
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_clock.h"
#include "satfeat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_DEVICES 64

typedef struct options {
    satfeat_backend backend;
    int devices[MAX_DEVICES], n_devices, workers, frames, width, height, repeat, seq_lanes;
    const char *image;
} options;

static int parse(int argc, char **argv, options *o)
{
    *o = (options){SATFEAT_BACKEND_CUDA, {0}, 0, 1, 128, 1920, 1080, 5, 2, "data/scene.png"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--backend") && v) {
            o->backend = !strcmp(v, "cpu") ? SATFEAT_BACKEND_CPU : SATFEAT_BACKEND_CUDA;
            i++;
        } else if (!strcmp(a, "--devices") && v) {
            o->n_devices = 0;
            if (strcmp(v, "all") != 0) {
                for (char *s = (char *)v; *s && o->n_devices < MAX_DEVICES;) {
                    o->devices[o->n_devices++] = (int)strtol(s, &s, 10);
                    if (*s == ',') s++;
                    else if (*s) return 0;
                }
            }
            i++;
        } else if (!strcmp(a, "--workers") && v) {
            o->workers = atoi(v), i++;
        } else if (!strcmp(a, "--frames") && v) {
            o->frames = atoi(v), i++;
        } else if (!strcmp(a, "--seq-lanes") && v) {
            o->seq_lanes = atoi(v), i++;
        } else if (!strcmp(a, "--repeat") && v) {
            o->repeat = atoi(v), i++;
        } else if (!strcmp(a, "--size") && v) {
            if (sscanf(v, "%dx%d", &o->width, &o->height) != 2) return 0;
            i++;
        } else if (a[0] != '-') {
            o->image = a;
        } else {
            return 0;
        }
    }
    return o->frames > 0 && o->repeat > 0 && o->width > 0 && o->height > 0 && o->workers > 0 && o->seq_lanes >= 0;
}

/* Frame k: the source tiled over w x h, shifted by (13k, 7k). */
static uint8_t *make_frames(const uint8_t *src, int sw, int sh, int w, int h, int n)
{
    size_t plane = (size_t)w * (size_t)h;
    uint8_t *f = malloc(plane * (size_t)n);
    for (int k = 0; f && k < n; k++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                f[plane * (size_t)k + (size_t)y * (size_t)w + (size_t)x] =
                    src[(size_t)((y + 7 * k) % sh) * (size_t)sw + (size_t)((x + 13 * k) % sw)];
    return f;
}

/* Median frames per second of `repeat` timed calls on a pool of the given devices. */
static int run(const options *o, const int *devices, int n_devices, const satfeat_image_view *fr,
               double *fps)
{
    char err[512];
    satfeat_pool *pool = NULL;
    satfeat_status st = satfeat_pool_new(o->backend, o->backend == SATFEAT_BACKEND_CPU ? NULL : devices,
                                         n_devices, NULL, o->width, o->height, &pool, err, sizeof err);
    if (st != SATFEAT_OK) {
        fprintf(stderr, "bench_pool: %s: %s\n", satfeat_status_string(st), err);
        return 0;
    }
    size_t n = (size_t)o->frames;
    satfeat_frame_result *r = calloc(n, sizeof *r);
    double *t = calloc((size_t)o->repeat, sizeof *t);
    int ok = r && t;
    /* Warm-up: makes every frame's feature set (refilled in place by the timed passes). */
    if (ok && satfeat_pool_detect(pool, fr, n, r) != SATFEAT_OK) {
        fprintf(stderr, "bench_pool: %s\n", satfeat_pool_last_error(pool));
        ok = 0;
    }
    size_t total = 0;
    for (size_t i = 0; ok && i < n; i++) total += satfeat_features_count(r[i].features);
    for (int k = 0; ok && k < o->repeat; k++) {
        const double t0 = bench_now_ms();
        st = satfeat_pool_detect(pool, fr, n, r);
        t[k] = (bench_now_ms() - t0) * 1e-3; /* seconds */
        if (st != SATFEAT_OK) {
            fprintf(stderr, "bench_pool: %s\n", satfeat_pool_last_error(pool));
            ok = 0;
        }
    }
    if (ok) {
        bench_sort(t, (size_t)o->repeat);
        *fps = (double)n / t[o->repeat / 2];
        int per[MAX_DEVICES + 1] = {0};
        for (size_t i = 0; i < n; i++) per[r[i].device < 0 ? MAX_DEVICES : r[i].device % MAX_DEVICES]++;
        printf("%d worker(s):", satfeat_pool_workers(pool));
        for (int w = 0; w < satfeat_pool_workers(pool); w++) {
            int d = satfeat_pool_worker_device(pool, w);
            if (d < 0) printf(" cpu worker %d", w);
            else printf(" gpu%d=%d frames", d, per[d % MAX_DEVICES]);
        }
        printf("\n  %zu frames %dx%d, %.1f keypoints/frame, median %.2f ms per pass of %d -> %.1f fps\n",
               n, o->width, o->height, (double)total / (double)n, 1e3 * t[o->repeat / 2],
               o->repeat, *fps);
    }
    for (size_t i = 0; r && i < n; i++) satfeat_features_delete(r[i].features);
    free(r);
    free(t);
    satfeat_pool_delete(pool);
    return ok;
}

/* The baseline the pool is held to: the same frames, host to host, through one detector's own
 * sequence of `lanes` lanes of 2 slots (3 slots for one lane, as the pool's workers) on `device`,
 * each frame popped into its own feature set as the pool does. Median frames per second of
 * `repeat` passes after a warm-up pass. */
static int sequence_run(const options *o, int device, int lanes, const satfeat_image_view *fr,
                        double *fps)
{
    satfeat_ctx *ctx = NULL;
    satfeat_detector *det = NULL;
    satfeat_sequence *seq = NULL;
    satfeat_status st = satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CUDA, device);
    if (st == SATFEAT_OK) st = satfeat_detector_new(ctx, NULL, o->width, o->height, &det);
    const int slots = lanes == 1 ? 3 : 2 * lanes;
    if (st == SATFEAT_OK) st = satfeat_sequence_new_lanes(det, slots, lanes, &seq);
    size_t n = (size_t)o->frames;
    satfeat_features **sets = calloc(n, sizeof *sets);
    size_t *ring = calloc(n, sizeof *ring);
    double *t = calloc((size_t)o->repeat, sizeof *t);
    if (st == SATFEAT_OK && (!sets || !ring || !t)) st = SATFEAT_ERR_ALLOC;
    for (int k = -1; st == SATFEAT_OK && k < o->repeat; k++) {
        const double t0 = bench_now_ms();
        size_t head = 0, tail = 0; /* frames pushed and not yet popped: ring[head..tail) */
        for (size_t i = 0; st == SATFEAT_OK && i < n; i++) {
            satfeat_features *none = NULL;
            int popped = 0;
            if (satfeat_sequence_pending(seq) == slots)
                st = satfeat_sequence_pop(seq, &sets[ring[head++]]);
            if (st == SATFEAT_OK) st = satfeat_sequence_push(seq, &fr[i], &none, &popped);
            ring[tail++] = i;
        }
        while (st == SATFEAT_OK && head < tail) st = satfeat_sequence_pop(seq, &sets[ring[head++]]);
        if (k >= 0) t[k] = (bench_now_ms() - t0) * 1e-3;
    }
    if (st == SATFEAT_OK) {
        bench_sort(t, (size_t)o->repeat);
        *fps = (double)n / t[o->repeat / 2];
        printf("sequence on gpu%d, %d lane(s): median %.2f ms per pass -> %.1f fps\n", device, lanes,
               1e3 * t[o->repeat / 2], *fps);
    } else {
        fprintf(stderr, "bench_pool: sequence: %s: %s\n", satfeat_status_string(st),
                ctx ? satfeat_ctx_last_error(ctx) : "");
    }
    for (size_t i = 0; sets && i < n; i++) satfeat_features_delete(sets[i]);
    free(sets);
    free(ring);
    free(t);
    satfeat_sequence_delete(seq);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    return st == SATFEAT_OK;
}

int main(int argc, char **argv)
{
    options o;
    if (!parse(argc, argv, &o)) {
        fprintf(stderr, "usage: %s [--backend cuda|cpu] [--devices all|0,1,...] [--workers N] "
                        "[--frames N] [--size WxH] [--repeat R] [--seq-lanes N] [IMAGE]\n", argv[0]);
        return 2;
    }
    uint8_t *src = NULL;
    int sw = 0, sh = 0;
    satfeat_status st = satfeat_image_load_gray8(NULL, o.image, &src, &sw, &sh);
    if (st != SATFEAT_OK) {
        fprintf(stderr, "bench_pool: cannot read %s: %s\n", o.image, satfeat_status_string(st));
        return 1;
    }
    uint8_t *frames = make_frames(src, sw, sh, o.width, o.height, o.frames);
    satfeat_image_view *fr = calloc((size_t)o.frames, sizeof *fr);
    if (!frames || !fr) {
        fprintf(stderr, "bench_pool: out of memory\n");
        return 1;
    }
    size_t plane = (size_t)o.width * (size_t)o.height;
    for (int k = 0; k < o.frames; k++)
        fr[k] = satfeat_image_view_host(frames + plane * (size_t)k, o.width, o.height, 0);
    int all[MAX_DEVICES], n_all = o.n_devices;
    if (o.backend == SATFEAT_BACKEND_CUDA && n_all == 0) {
        n_all = satfeat_cuda_device_count();
        if (n_all > MAX_DEVICES) n_all = MAX_DEVICES;
        for (int i = 0; i < n_all; i++) all[i] = i;
    } else {
        memcpy(all, o.devices, sizeof all);
    }
    if (o.backend == SATFEAT_BACKEND_CPU) n_all = o.workers;
    printf("satfeat %s, pool bench, %s backend\n", satfeat_version_string(),
           o.backend == SATFEAT_BACKEND_CPU ? "cpu" : "cuda");
    double one = 0, many = 0;
    int rc = run(&o, all, 1, fr, &one) ? 0 : 1;
    for (int lanes = 1; !rc && o.backend == SATFEAT_BACKEND_CUDA && lanes <= o.seq_lanes; lanes *= 2) {
        double seq = 0;
        rc = sequence_run(&o, all[0], lanes, fr, &seq) ? 0 : 1;
        if (!rc) printf("pool on one device: %.2f of the %d-lane sequence\n", one / seq, lanes);
    }
    if (!rc && n_all > 1) {
        rc = run(&o, all, n_all, fr, &many) ? 0 : 1;
        if (!rc) printf("scaling: %.2fx the one-%s frames per second with %d\n", many / one,
                        o.backend == SATFEAT_BACKEND_CPU ? "worker" : "device", n_all);
    }
    free(fr);
    free(frames);
    satfeat_free(src);
    return rc;
}

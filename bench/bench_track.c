/* bench_track.c - frame rate of the tracker against the detector alone, on the context's backend.
 *
 * usage: satfeat_bench_track [--backend cpu|cuda] [--threads N] [--passes P] [--size WxH]
 *                            [--no-guided] [--streams N,N,...] FRAME...
 *
 * Loads the frames (8-bit gray; resized bilinearly to WxH when --size is given) into memory, then
 * times, per frame, over P passes through the sequence (the tracker reset between passes; the
 * first pass is a warm-up and not counted):
 *   detect   satfeat_detect with the tracker's detector parameters (host to host);
 *   track    satfeat_tracker_track on host views (host frame to host tracks);
 *   track-p  satfeat_tracker_push / satfeat_tracker_pop, frames in flight (a pass's wall time
 *            over its frames: throughput);
 *   track-d  satfeat_tracker_track on device views of copies of the frames (CUDA only).
 * Prints the median and mean milliseconds per frame and the frames per second of the mean, and
 * the tracker's stage times (satfeat_tracker_stage_times) averaged over the timed frames.
 * With --streams N,N,...: instead, for each N, N trackers (a context each) advanced together by
 * satfeat_trackers_track (--threads: its host threads), the aggregate frames per second and each
 * tracker's stage times per frame (satfeat_tracker_stage_times: wall time inside its pop, so
 * they show which stage stretches when the streams compete).
 * Only the public header and (for device frames) the CUDA runtime are used. */
#include "bench_clock.h"
#include "satfeat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef SATFEAT_BENCH_CUDA
#include <cuda_runtime_api.h>
#endif

/* Bilinear resize of a tight w x h image to a tight W x H one (pixel centres aligned), into a
 * malloc'ed buffer. */
static uint8_t *resize(const uint8_t *src, int w, int h, int W, int H)
{
    uint8_t *dst = malloc((size_t)W * (size_t)H);
    if (!dst) return NULL;
    for (int y = 0; y < H; y++) {
        double sy = ((double)y + 0.5) * h / H - 0.5;
        if (sy < 0) sy = 0;
        int y0 = (int)sy;
        if (y0 > h - 2) y0 = h > 1 ? h - 2 : 0;
        const double fy = h > 1 ? sy - y0 : 0.0;
        for (int x = 0; x < W; x++) {
            double sx = ((double)x + 0.5) * w / W - 0.5;
            if (sx < 0) sx = 0;
            int x0 = (int)sx;
            if (x0 > w - 2) x0 = w > 1 ? w - 2 : 0;
            const double fx = w > 1 ? sx - x0 : 0.0;
            const int x1 = w > 1 ? x0 + 1 : x0, y1 = h > 1 ? y0 + 1 : y0;
            const double v = (1 - fy) * ((1 - fx) * src[(size_t)y0 * w + x0] +
                                         fx * src[(size_t)y0 * w + x1]) +
                             fy * ((1 - fx) * src[(size_t)y1 * w + x0] +
                                   fx * src[(size_t)y1 * w + x1]);
            dst[(size_t)y * W + x] = (uint8_t)(v + 0.5);
        }
    }
    return dst;
}

/* Prints one timing row from n per-frame times (sorted in place). */
static void report(const char *what, double *ms, size_t n, int w, int h)
{
    if (n == 0) return;
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += ms[i];
    bench_sort(ms, n);
    const double mean = sum / (double)n;
    printf("%-8s %dx%d frames %zu  median %.3f ms  mean %.3f ms  %.1f frames/s\n", what, w, h, n,
           ms[n / 2], mean, 1e3 / mean);
}

static int fail(const char *what, satfeat_status st, const satfeat_ctx *ctx)
{
    fprintf(stderr, "satfeat_bench_track: %s: %s: %s\n", what, satfeat_status_string(st),
            satfeat_ctx_last_error(ctx));
    return 1;
}

/* Many streams: for each count in `list` (comma-separated), that many trackers, each on a
 * context of its own, advanced together through the frames by satfeat_trackers_track, `passes`
 * passes (the first a warm-up, trackers reset between passes). Prints the aggregate frames per
 * second (streams x frames over a pass's wall time, median of the timed passes). */
static int streams_bench(satfeat_backend backend, const char *list, uint8_t **frames, int n,
                         int w, int h, int passes, int threads)
{
    for (const char *p = list; *p;) {
        char *end = NULL;
        const long ns = strtol(p, &end, 10);
        if (end == p || ns < 1 || ns > 4096) {
            fprintf(stderr, "satfeat_bench_track: bad --streams list %s\n", list);
            return 2;
        }
        p = *end == ',' ? end + 1 : end;
        satfeat_ctx **ctx = calloc((size_t)ns, sizeof *ctx);
        satfeat_tracker **tr = calloc((size_t)ns, sizeof *tr);
        satfeat_image_view *v = calloc((size_t)ns, sizeof *v);
        satfeat_status *st = calloc((size_t)ns, sizeof *st);
        double *fps = calloc((size_t)passes, sizeof *fps);
        if (!ctx || !tr || !v || !st || !fps) return fail("streams", SATFEAT_ERR_ALLOC, NULL);
        for (long s = 0; s < ns; s++) {
            satfeat_status e = satfeat_ctx_new(&ctx[s], backend, 0);
            if (e == SATFEAT_OK) e = satfeat_tracker_new(ctx[s], NULL, w, h, &tr[s]);
            if (e == SATFEAT_OK) e = satfeat_tracker_set_profiling(tr[s], 1);
            if (e != SATFEAT_OK) return fail("streams: tracker", e, ctx[s]);
        }
        satfeat_tracker_times sum = {0};
        long timed = 0;
        for (int pass = 0; pass < passes; pass++) {
            for (long s = 0; s < ns; s++) satfeat_tracker_reset(tr[s]);
            const double t0 = bench_now_ms();
            for (int k = 0; k < n; k++) {
                for (long s = 0; s < ns; s++) v[s] = satfeat_image_view_host(frames[k], w, h, 0);
                satfeat_status e = satfeat_trackers_track(tr, v, (size_t)ns, threads, NULL, st);
                if (e != SATFEAT_OK) return fail("streams: trackers_track", e, ctx[0]);
                for (long s = 0; s < ns && pass > 0; s++) {
                    satfeat_tracker_times t;
                    if (satfeat_tracker_stage_times(tr[s], &t) != SATFEAT_OK) continue;
                    sum.frame_us += t.frame_us;
                    sum.detect_us += t.detect_us;
                    sum.match_us += t.match_us;
                    sum.motion_us += t.motion_us;
                    sum.update_us += t.update_us;
                    timed++;
                }
            }
            fps[pass] = (double)ns * n / ((bench_now_ms() - t0) * 1e-3);
        }
        bench_sort(fps + 1, (size_t)passes - 1);
        printf("streams %ld  %dx%d  %.1f frames/s aggregate  (%.1f per stream)\n", ns, w, h,
               fps[1 + (passes - 1) / 2], fps[1 + (passes - 1) / 2] / (double)ns);
        if (timed > 0) /* a tracker's own wall time per frame, by stage (pop side on queued frames) */
            printf("streams %ld  per tracker frame us: frame %.1f detect %.1f match %.1f "
                   "motion %.1f update %.1f\n", ns, sum.frame_us / timed, sum.detect_us / timed,
                   sum.match_us / timed, sum.motion_us / timed, sum.update_us / timed);
        for (long s = 0; s < ns; s++) {
            satfeat_tracker_delete(tr[s]);
            satfeat_ctx_delete(ctx[s]);
        }
        free(ctx);
        free(tr);
        free(v);
        free(st);
        free(fps);
    }
    return 0;
}

int main(int argc, char **argv)
{
    satfeat_backend backend = SATFEAT_BACKEND_CPU;
    int threads = 0, passes = 3, W = 0, H = 0, guided = 1;
    const char *streams = NULL;
    int first = argc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            i++;
            backend = !strcmp(argv[i], "cuda") ? SATFEAT_BACKEND_CUDA : SATFEAT_BACKEND_CPU;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--passes") && i + 1 < argc) {
            passes = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%dx%d", &W, &H) != 2 || W < 16 || H < 16) {
                fprintf(stderr, "satfeat_bench_track: bad --size\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--streams") && i + 1 < argc) {
            streams = argv[++i];
        } else if (!strcmp(argv[i], "--no-guided")) {
            guided = 0;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: satfeat_bench_track [--backend cpu|cuda] [--threads N] "
                            "[--passes P] [--size WxH] [--no-guided] [--streams N,N,...] FRAME...\n");
            return 2;
        } else {
            first = i;
            break;
        }
    }
    const int n = argc - first;
    if (n < 2 || passes < 2) {
        fprintf(stderr, "satfeat_bench_track: needs at least 2 frames and 2 passes\n");
        return 2;
    }
    satfeat_ctx *ctx = NULL;
    satfeat_status st = satfeat_ctx_new(&ctx, backend, 0);
    if (st != SATFEAT_OK) {
        fprintf(stderr, "satfeat_bench_track: no context: %s\n", satfeat_status_string(st));
        return 1;
    }
    if (threads > 0 && (st = satfeat_ctx_set_threads(ctx, threads)) != SATFEAT_OK)
        return fail("threads", st, ctx);
    uint8_t **frames = calloc((size_t)n, sizeof *frames);
    int w = 0, h = 0;
    for (int k = 0; k < n; k++) {
        uint8_t *img = NULL;
        int fw = 0, fh = 0;
        st = satfeat_image_load_gray8(ctx, argv[first + k], &img, &fw, &fh);
        if (st != SATFEAT_OK) return fail(argv[first + k], st, ctx);
        /* every frame in a malloc'ed buffer of its own: resized, or copied as it is */
        if (W > 0) {
            frames[k] = resize(img, fw, fh, W, H);
        } else if ((frames[k] = malloc((size_t)fw * (size_t)fh)) != NULL) {
            memcpy(frames[k], img, (size_t)fw * (size_t)fh);
        }
        satfeat_free(img);
        if (W > 0) fw = W, fh = H;
        if (!frames[k]) return fail("resize", SATFEAT_ERR_ALLOC, ctx);
        if (k == 0) w = fw, h = fh;
        if (fw != w || fh != h) {
            fprintf(stderr, "satfeat_bench_track: %s differs in size\n", argv[first + k]);
            return 1;
        }
    }
    if (streams) return streams_bench(backend, streams, frames, n, w, h, passes, threads);
    satfeat_tracker_params tp = satfeat_tracker_params_default();
    if (!guided) tp.guided_radius = 0;
    const size_t cap = (size_t)tp.max_tracks, kcap = (size_t)tp.detector.max_keypoints;
    const size_t dim = (size_t)tp.detector.descriptor;
    satfeat_track *tracks = malloc(cap * sizeof *tracks);
    satfeat_keypoint *kps = malloc(kcap * sizeof *kps);
    float *desc = malloc(kcap * dim * sizeof *desc);
    const size_t total = (size_t)n * (size_t)(passes - 1);
    double *ms = malloc(total * sizeof *ms);
    if (!tracks || !kps || !desc || !ms) return fail("buffers", SATFEAT_ERR_ALLOC, ctx);

    satfeat_detector *det = NULL;
    if ((st = satfeat_detector_new(ctx, &tp.detector, w, h, &det)) != SATFEAT_OK)
        return fail("detector", st, ctx);
    size_t m = 0, nkp_sum = 0;
    satfeat_features *fs = NULL; /* reused frame after frame */
    for (int p = 0; p < passes; p++)
        for (int k = 0; k < n; k++) {
            const satfeat_image_view view = satfeat_image_view_host(frames[k], w, h, 0);
            const double t0 = bench_now_ms();
            st = satfeat_detect(det, &view, &fs);
            const double t1 = bench_now_ms();
            if (st != SATFEAT_OK) return fail("detect", st, ctx);
            const size_t nk = satfeat_features_count(fs);
            if (p > 0) ms[m++] = t1 - t0, nkp_sum += nk < kcap ? nk : kcap;
        }
    satfeat_features_delete(fs);
    satfeat_detector_delete(det);
    report("detect", ms, m, w, h);
    printf("         keypoints per frame (capped at %zu): %.0f\n", kcap, (double)nkp_sum / m);

    satfeat_tracker *tr = NULL;
    if ((st = satfeat_tracker_new(ctx, &tp, w, h, &tr)) != SATFEAT_OK)
        return fail("tracker", st, ctx);
    size_t count_sum = 0, inl_sum = 0;
    satfeat_tracker_times sum_t;
    memset(&sum_t, 0, sizeof sum_t);
    if ((st = satfeat_tracker_set_profiling(tr, 1)) != SATFEAT_OK) return fail("profiling", st, ctx);
    m = 0;
    for (int p = 0; p < passes; p++) {
        satfeat_tracker_reset(tr);
        for (int k = 0; k < n; k++) {
            size_t count = 0;
            satfeat_frame_motion mo;
            const satfeat_image_view v = satfeat_image_view_host(frames[k], w, h, 0);
            const double t0 = bench_now_ms();
            st = satfeat_tracker_track(tr, &v, &mo);
            const double t1 = bench_now_ms();
            satfeat_tracker_tracks(tr, &count);
            if (st != SATFEAT_OK) return fail("track", st, ctx);
            if (p == 0) continue;
            ms[m++] = t1 - t0, count_sum += count, inl_sum += mo.inliers;
            satfeat_tracker_times tt;
            if ((st = satfeat_tracker_stage_times(tr, &tt)) != SATFEAT_OK)
                return fail("stage times", st, ctx);
            sum_t.frame_us += tt.frame_us, sum_t.detect_us += tt.detect_us;
            sum_t.match_us += tt.match_us, sum_t.motion_us += tt.motion_us;
            sum_t.update_us += tt.update_us, sum_t.match_passes += tt.match_passes;
        }
    }
    if ((st = satfeat_tracker_set_profiling(tr, 0)) != SATFEAT_OK) return fail("profiling", st, ctx);
    report(guided ? "track" : "track-ng", ms, m, w, h);
    printf("         live tracks per frame %.0f, h_prev inliers per frame %.0f\n",
           (double)count_sum / m, (double)inl_sum / m);
    printf("         stages per frame (profiled): detect %.1f us, match %.1f us in %.2f passes, "
           "motion %.1f us, rest %.1f us, whole %.1f us\n", sum_t.detect_us / m,
           sum_t.match_us / m, (double)sum_t.match_passes / m, sum_t.motion_us / m,
           sum_t.update_us / m, sum_t.frame_us / m);

    /* frames in flight: push every frame, pop when the slots are full; the time per frame is
     * the pass's wall time over its frames (throughput, not latency) */
    m = 0;
    for (int p = 0; p < passes; p++) {
        satfeat_tracker_reset(tr);
        int popped = 0;
        const double t0 = bench_now_ms();
        for (int k = 0; k < n; k++) {
            const satfeat_image_view v = satfeat_image_view_host(frames[k], w, h, 0);
            st = satfeat_tracker_push(tr, &v, NULL, &popped);
            if (st != SATFEAT_OK) return fail("push", st, ctx);
        }
        while (satfeat_tracker_pending(tr) > 0)
            if ((st = satfeat_tracker_pop(tr, NULL)) != SATFEAT_OK) return fail("pop", st, ctx);
        const double per = (bench_now_ms() - t0) / n;
        if (p > 0)
            for (int k = 0; k < n; k++) ms[m++] = per;
    }
    report("track-p", ms, m, w, h);

#ifdef SATFEAT_BENCH_CUDA
    if (backend == SATFEAT_BACKEND_CUDA) {
        uint8_t **dframes = calloc((size_t)n, sizeof *dframes);
        for (int k = 0; k < n; k++) {
            if (cudaMalloc((void **)&dframes[k], (size_t)w * (size_t)h) != cudaSuccess ||
                cudaMemcpy(dframes[k], frames[k], (size_t)w * (size_t)h,
                           cudaMemcpyHostToDevice) != cudaSuccess) {
                fprintf(stderr, "satfeat_bench_track: device frame copy failed\n");
                return 1;
            }
        }
        m = 0;
        for (int p = 0; p < passes; p++) {
            satfeat_tracker_reset(tr);
            for (int k = 0; k < n; k++) {
                const satfeat_image_view v =
                    satfeat_image_view_device(dframes[k], w, h, 0, NULL);
                const double t0 = bench_now_ms();
                st = satfeat_tracker_track(tr, &v, NULL);
                const double t1 = bench_now_ms();
                if (st != SATFEAT_OK) return fail("track device", st, ctx);
                if (p > 0) ms[m++] = t1 - t0;
            }
        }
        report("track-d", ms, m, w, h);
        for (int k = 0; k < n; k++) cudaFree(dframes[k]);
        free(dframes);
    }
#endif
    satfeat_tracker_delete(tr);
    for (int k = 0; k < n; k++) free(frames[k]);
    free(frames);
    free(tracks);
    free(kps);
    free(desc);
    free(ms);
    satfeat_ctx_delete(ctx);
    return 0;
}

/* tracker_testutil.c - blob worlds, dune loading, homography helpers and tracker runs for the
 * tracker tests (test_tracker.c, test_tracker_cuda.c). */
#include "tracker_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SATFEAT_TEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

void blob_world_make(blob_world *w, int n, double x0, double y0, double x1, double y1,
                     uint64_t seed)
{
    test_rng r;
    test_rng_seed(&r, seed);
    w->n = n;
    w->x = malloc((size_t)n * sizeof(double));
    w->y = malloc((size_t)n * sizeof(double));
    w->sigma = malloc((size_t)n * sizeof(double));
    w->amp = malloc((size_t)n * sizeof(double));
    assert_true(w->x && w->y && w->sigma && w->amp);
    for (int i = 0; i < n; i++) {
        w->x[i] = x0 + (x1 - x0) * test_rng_unit(&r);
        w->y[i] = y0 + (y1 - y0) * test_rng_unit(&r);
        w->sigma[i] = 1.5 + 3.0 * test_rng_unit(&r);
        const double a = 40.0 + 50.0 * test_rng_unit(&r);
        w->amp[i] = (test_rng_next(&r) & 1) ? a : -a;
    }
}

void blob_world_free(blob_world *w)
{
    free(w->x);
    free(w->y);
    free(w->sigma);
    free(w->amp);
}

void blob_world_render(const blob_world *w, double ox, double oy, uint8_t *img, int width,
                       int height)
{
    double *acc = malloc((size_t)width * height * sizeof(double));
    assert_non_null(acc);
    for (int i = 0; i < width * height; i++) acc[i] = 128.0;
    for (int b = 0; b < w->n; b++) {
        const double cx = w->x[b] - ox, cy = w->y[b] - oy, s = w->sigma[b], r = 3.5 * s;
        int xa = (int)floor(cx - r), xb = (int)ceil(cx + r), ya = (int)floor(cy - r),
            yb = (int)ceil(cy + r);
        if (xa < 0) xa = 0;
        if (ya < 0) ya = 0;
        if (xb > width - 1) xb = width - 1;
        if (yb > height - 1) yb = height - 1;
        for (int y = ya; y <= yb; y++)
            for (int x = xa; x <= xb; x++) {
                const double dx = x - cx, dy = y - cy;
                acc[(size_t)y * width + x] += w->amp[b] * exp(-(dx * dx + dy * dy) / (2 * s * s));
            }
    }
    for (int i = 0; i < width * height; i++) {
        double v = floor(acc[i] + 0.5);
        img[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    free(acc);
}

uint8_t **dune_frames(int n)
{
    uint8_t **f = malloc((size_t)n * sizeof *f);
    assert_non_null(f);
    for (int k = 0; k < n; k++) {
        f[k] = malloc(640 * 480);
        assert_non_null(f[k]);
        dune_load(k + 1, f[k]);
    }
    return f;
}

void frames_free(uint8_t **f, int n)
{
    for (int k = 0; k < n; k++) free(f[k]);
    free(f);
}

void dune_load(int k, uint8_t *img)
{
    char name[64], path[1024];
    snprintf(name, sizeof name, "dune/frame%03d.png", k);
    test_path(path, sizeof path, SATFEAT_TEST_DATA_DIR, name);
    uint8_t *px = NULL;
    int w = 0, h = 0;
    assert_int_equal(satfeat_image_load_gray8(NULL, path, &px, &w, &h), SATFEAT_OK);
    assert_int_equal(w, 640);
    assert_int_equal(h, 480);
    memcpy(img, px, 640 * 480);
    satfeat_free(px);
}

void dune_truth(int k, double h[9])
{
    char name[64], path[1024];
    snprintf(name, sizeof name, "dune/H1to%03dp", k);
    test_path(path, sizeof path, SATFEAT_TEST_DATA_DIR, name);
    assert_int_equal(satfeat_homography_read(NULL, path, h), SATFEAT_OK);
}

void map_point(const double h[9], double x, double y, double *u, double *v)
{
    const double w = h[6] * x + h[7] * y + h[8];
    *u = (h[0] * x + h[1] * y + h[2]) / w;
    *v = (h[3] * x + h[4] * y + h[5]) / w;
}

double corner_error(const double a[9], const double b[9], int w, int h)
{
    const double cx[4] = {0, w - 1.0, w - 1.0, 0}, cy[4] = {0, 0, h - 1.0, h - 1.0};
    double worst = 0;
    for (int i = 0; i < 4; i++) {
        double ua, va, ub, vb;
        map_point(a, cx[i], cy[i], &ua, &va);
        map_point(b, cx[i], cy[i], &ub, &vb);
        const double e = hypot(ua - ub, va - vb);
        if (!(e <= worst)) worst = e;
    }
    return worst;
}

void mat3_mul(const double a[9], const double b[9], double c[9])
{
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++)
            c[3 * r + k] = a[3 * r] * b[k] + a[3 * r + 1] * b[3 + k] + a[3 * r + 2] * b[6 + k];
}

void mat3_inv(const double m[9], double inv[9])
{
    const double c0 = m[4] * m[8] - m[5] * m[7], c1 = m[5] * m[6] - m[3] * m[8],
                 c2 = m[3] * m[7] - m[4] * m[6];
    const double det = m[0] * c0 + m[1] * c1 + m[2] * c2;
    assert_true(det != 0.0);
    inv[0] = c0 / det;
    inv[1] = (m[2] * m[7] - m[1] * m[8]) / det;
    inv[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    inv[3] = c1 / det;
    inv[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    inv[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    inv[6] = c2 / det;
    inv[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    inv[8] = (m[0] * m[4] - m[1] * m[3]) / det;
}

tracker_frame_out *tracker_run(satfeat_ctx *ctx, const satfeat_tracker_params *params,
                               uint8_t *const *frames, int n, int width, int height, int device)
{
    const satfeat_tracker_params p = params ? *params : satfeat_tracker_params_default();
    const size_t dim = (size_t)p.detector.descriptor;
    satfeat_tracker *t = NULL;
    satfeat_status st = satfeat_tracker_new(ctx, &p, width, height, &t);
    if (st != SATFEAT_OK) fprintf(stderr, "tracker_new: %s\n", satfeat_ctx_last_error(ctx));
    assert_int_equal(st, SATFEAT_OK);
    tracker_frame_out *out = calloc((size_t)n, sizeof *out);
    assert_non_null(out);
#ifdef SATFEAT_TEST_HAVE_CUDA
    uint8_t *d_img = NULL;
    void *stream = NULL;
    if (device) {
        assert_int_equal(cudaMalloc((void **)&d_img, (size_t)width * height), cudaSuccess);
        cudaStream_t s;
        assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
        stream = s;
    }
#else
    assert_int_equal(device, 0);
#endif
    for (int i = 0; i < n; i++) {
        memset(&out[i].motion, 0, sizeof out[i].motion);
        if (!device) {
            const satfeat_image_view v = satfeat_image_view_host(frames[i], width, height, 0);
            out[i].status = satfeat_tracker_track(t, &v, &out[i].motion);
        } else {
#ifdef SATFEAT_TEST_HAVE_CUDA
            assert_int_equal(cudaMemcpyAsync(d_img, frames[i], (size_t)width * height,
                                             cudaMemcpyHostToDevice, (cudaStream_t)stream),
                             cudaSuccess);
            const satfeat_image_view v =
                satfeat_image_view_device(d_img, width, height, 0, stream);
            out[i].status = satfeat_tracker_track(t, &v, &out[i].motion);
#endif
        }
        if (out[i].status != SATFEAT_OK)
            fprintf(stderr, "frame %d: %s\n", i, satfeat_ctx_last_error(ctx));
        assert_int_equal(out[i].status, SATFEAT_OK);
        tracker_frame_copy(t, dim, &out[i]);
    }
#ifdef SATFEAT_TEST_HAVE_CUDA
    if (device) {
        cudaFree(d_img);
        cudaStreamDestroy((cudaStream_t)stream);
    }
#endif
    satfeat_tracker_delete(t);
    return out;
}

void tracker_frame_copy(const satfeat_tracker *t, size_t dim, tracker_frame_out *o)
{
    const satfeat_track *tr = satfeat_tracker_tracks(t, &o->count);
    const float *desc = satfeat_tracker_track_descriptors(t);
    assert_true((o->count == 0) == (tr == NULL) && (o->count == 0) == (desc == NULL));
    o->tracks = calloc(o->count + 1, sizeof(satfeat_track));
    o->desc = calloc(o->count * dim + 1, sizeof(float));
    assert_true(o->tracks && o->desc);
    if (o->count) {
        memcpy(o->tracks, tr, o->count * sizeof *tr);
        memcpy(o->desc, desc, o->count * dim * sizeof *desc);
    }
}

tracker_frame_out *tracker_run_pipelined(satfeat_ctx *ctx, const satfeat_tracker_params *params,
                                         uint8_t *const *frames, int n, int width, int height)
{
    const satfeat_tracker_params p = params ? *params : satfeat_tracker_params_default();
    const size_t dim = (size_t)p.detector.descriptor;
    satfeat_tracker *t = NULL;
    assert_int_equal(satfeat_tracker_new(ctx, &p, width, height, &t), SATFEAT_OK);
    tracker_frame_out *out = calloc((size_t)n, sizeof *out);
    assert_non_null(out);
    int done = 0;
    for (int i = 0; i < n; i++) {
        int popped = 0;
        tracker_frame_out *o = &out[done];
        const satfeat_image_view v = satfeat_image_view_host(frames[i], width, height, 0);
        const satfeat_status st = satfeat_tracker_push(t, &v, &o->motion, &popped);
        if (st != SATFEAT_OK) fprintf(stderr, "push %d: %s\n", i, satfeat_ctx_last_error(ctx));
        assert_int_equal(st, SATFEAT_OK);
        if (popped) {
            o->status = st;
            tracker_frame_copy(t, dim, o);
            done++;
        }
        assert_int_equal(satfeat_tracker_pending(t), i + 1 - done);
    }
    while (satfeat_tracker_pending(t) > 0) {
        tracker_frame_out *o = &out[done++];
        o->status = satfeat_tracker_pop(t, &o->motion);
        assert_int_equal(o->status, SATFEAT_OK);
        tracker_frame_copy(t, dim, o);
    }
    assert_int_equal(done, n);
    satfeat_tracker_delete(t);
    return out;
}

void tracker_run_free(tracker_frame_out *out, int n)
{
    if (!out) return;
    for (int i = 0; i < n; i++) {
        free(out[i].tracks);
        free(out[i].desc);
    }
    free(out);
}

satfeat_ctx *tracker_cpu_ctx(void)
{
    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1), SATFEAT_OK);
    assert_int_equal(satfeat_ctx_set_threads(ctx, 2), SATFEAT_OK);
    return ctx;
}

size_t tracker_off_path(const tracker_frame_out *out, int n, double dx, double dy, double tol)
{
    size_t bad = 0;
    for (int k = 1; k < n; k++)
        for (size_t i = 0; i < out[k].count; i++) {
            const satfeat_track *t = &out[k].tracks[i];
            if (t->missed != 0 || t->age == 0) continue;
            const int b = k - t->age;
            const satfeat_track *born = NULL;
            for (size_t j = 0; j < out[b].count && !born; j++)
                if (out[b].tracks[j].id == t->id) born = &out[b].tracks[j];
            assert_non_null(born);
            const double ex = born->x - (k - b) * dx, ey = born->y - (k - b) * dy;
            bad += hypot(t->x - ex, t->y - ey) > tol;
        }
    return bad;
}

void tracker_runs_equal(const tracker_frame_out *a, const tracker_frame_out *b, int n, int dim)
{
    for (int i = 0; i < n; i++) {
        assert_int_equal(a[i].status, b[i].status);
        assert_int_equal(a[i].count, b[i].count);
        assert_memory_equal(a[i].tracks, b[i].tracks, a[i].count * sizeof(satfeat_track));
        assert_memory_equal(a[i].desc, b[i].desc, a[i].count * (size_t)dim * sizeof(float));
        const satfeat_frame_motion *p = &a[i].motion, *q = &b[i].motion;
        assert_int_equal(p->frame, q->frame);
        assert_int_equal(p->valid, q->valid);
        assert_int_equal(p->ref_valid, q->ref_valid);
        assert_memory_equal(p->h_prev, q->h_prev, sizeof p->h_prev);
        assert_memory_equal(p->h_ref, q->h_ref, sizeof p->h_ref);
        assert_int_equal(p->keypoints, q->keypoints);
        assert_int_equal(p->matches, q->matches);
        assert_int_equal(p->inliers, q->inliers);
        assert_memory_equal(&p->rms_error, &q->rms_error, sizeof p->rms_error);
        assert_int_equal(p->born, q->born);
        assert_int_equal(p->ended, q->ended);
    }
}

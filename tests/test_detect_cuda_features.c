/* test_detect_cuda_features.c - the CUDA detector's features (keypoints with their angles, and
 * SURF-64/128 descriptors) equal the CPU detector's bit for bit (memcmp), through satfeat_detect
 * on host and device views and through sequences (one lane or several), on data/scene.png, boat
 * images, textured and random synthetic frames and awkward sizes, for many parameter sets
 * (upright, SURF128, NONE, grid caps, max_keypoints), with sets refilled across frames of other
 * sizes, lists past the landing buffer, host and device frames interleaved (separate captured
 * graphs) and a detector sized by its frames. Skipped without a CUDA device;
 * SATFEAT_TEST_SMALL=1 shrinks the inputs for sanitizer runs. */
#include "describe_util.h"
#include "detect_cuda_util.h"
#include "detect_synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SATFEAT_TEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#define CUDA_OK(call) assert_int_equal((int)(call), (int)cudaSuccess)

#define POISON 0xA5
#define MAX_FRAMES 10

/* One test frame (owned pixels, row stride `stride` >= w). */
typedef struct frame {
    uint8_t *px;
    int w, h;
    size_t stride;
    char name[64];
} frame;

/* A detection result: n keypoints and, when dim > 0, n x dim descriptors. */
typedef struct features {
    satfeat_keypoint *kp;
    float *desc;
    size_t n;
} features;

static void frame_add(frame *f, int *nf, uint8_t *px, int w, int h, size_t stride,
                      const char *name)
{
    assert_true(*nf < MAX_FRAMES);
    assert_non_null(px);
    f[*nf].px = px;
    f[*nf].w = w;
    f[*nf].h = h;
    f[*nf].stride = stride;
    snprintf(f[*nf].name, sizeof f[*nf].name, "%s", name);
    (*nf)++;
}

/* Copies a tight image into a malloc'd one with row stride w + pad (the pad poisoned). */
static uint8_t *with_stride(const uint8_t *img, int w, int h, size_t pad)
{
    const size_t stride = (size_t)w + pad;
    uint8_t *out = malloc(stride * (size_t)h);
    assert_non_null(out);
    memset(out, POISON, stride * (size_t)h);
    for (int y = 0; y < h; y++) memcpy(out + (size_t)y * stride, img + (size_t)y * (size_t)w, (size_t)w);
    return out;
}

/* The frames of the comparison: scene.png, boat images (when present), textured and random
 * synthetic frames, noise with a padded stride, small awkward sizes. Returns their number. */
static int load_frames(frame *f)
{
    int nf = 0;
    char path[512];
    uint8_t *px = NULL;
    int w = 0, h = 0;
    test_path(path, sizeof path, SATFEAT_TEST_DATA_DIR, "scene.png");
    assert_int_equal(satfeat_image_load_gray8(NULL, path, &px, &w, &h), SATFEAT_OK);
    uint8_t *copy = malloc((size_t)w * (size_t)h);
    assert_non_null(copy);
    memcpy(copy, px, (size_t)w * (size_t)h);
    satfeat_free(px);
    frame_add(f, &nf, copy, w, h, (size_t)w, "scene.png");
    const int boats[2] = {1, 4};
    for (int i = 0; i < (dcu_small() ? 1 : 2); i++) {
        snprintf(path, sizeof path, "%s/oxford-boat/img%d.pgm", SATFEAT_SHARED_DATA_DIR, boats[i]);
        if (!test_file_exists(path)) continue;
        px = NULL;
        assert_int_equal(satfeat_image_load_gray8(NULL, path, &px, &w, &h), SATFEAT_OK);
        copy = malloc((size_t)w * (size_t)h);
        assert_non_null(copy);
        memcpy(copy, px, (size_t)w * (size_t)h);
        satfeat_free(px);
        char name[32];
        snprintf(name, sizeof name, "boat img%d", boats[i]);
        frame_add(f, &nf, copy, w, h, (size_t)w, name);
    }
    test_rng r;
    test_rng_seed(&r, 4242);
    /* elongated blobs: clear dominant orientations, rotated by an odd angle */
    du_blob *b = du_random_blobs(&r, 480, 360, 150);
    frame_add(f, &nf, du_render(b, 150, 480, 360, 1.0, 0.7, 240, 180, 240, 180), 480, 360, 480,
              "textured 480x360");
    free(b);
    frame_add(f, &nf, synth_random_blobs(&r, 400, 300, 60), 400, 300, 400, "blobs 400x300");
    /* noise with a padded stride: keypoints everywhere, sampling windows past every border */
    uint8_t *noise = malloc(301 * 203);
    assert_non_null(noise);
    test_fill_u8(&r, noise, 301 * 203);
    frame_add(f, &nf, with_stride(noise, 301, 203, 5), 301, 203, 306, "noise 301x203");
    free(noise);
    noise = malloc(40 * 30);
    assert_non_null(noise);
    test_fill_u8(&r, noise, 40 * 30);
    frame_add(f, &nf, noise, 40, 30, 40, "noise 40x30");
    noise = malloc(17 * 9);
    assert_non_null(noise);
    test_fill_u8(&r, noise, 17 * 9);
    frame_add(f, &nf, noise, 17, 9, 17, "noise 17x9 (no keypoint)");
    return nf;
}

static void frames_free(frame *f, int nf)
{
    for (int i = 0; i < nf; i++) free(f[i].px);
}

static void features_free(features *x)
{
    free(x->kp);
    free(x->desc);
    memset(x, 0, sizeof *x);
}

/* The CPU reference: every selected keypoint with its descriptor (when dim > 0). Checks that the
 * descriptors are unit vectors (or zero) and that oriented detectors produced angles. */
static features cpu_reference(satfeat_detector *cpu, const frame *f, int dim, int upright)
{
    features r;
    memset(&r, 0, sizeof r);
    r.kp = test_detect_copy(cpu, f->px, f->stride, f->w, f->h, NULL, 0, &r.n, &r.desc);
    assert_int_equal(r.desc != NULL, dim > 0);
    size_t nonzero_angles = 0;
    for (size_t i = 0; i < r.n; i++) {
        const double a = r.kp[i].angle;
        assert_true(a >= 0.0 && a <= 6.2831853071795866);
        if (upright) assert_true(a == 0.0);
        nonzero_angles += a != 0.0;
        if (dim == 0) continue;
        double n2 = 0.0;
        for (int v = 0; v < dim; v++) n2 += (double)r.desc[i * (size_t)dim + (size_t)v] *
                                            (double)r.desc[i * (size_t)dim + (size_t)v];
        assert_true(n2 == 0.0 || fabs(n2 - 1.0) < 1e-4);
    }
    if (!upright && r.n >= 4) assert_true(nonzero_angles >= r.n / 4);
    return r;
}

/* Asserts that a call returned SATFEAT_OK and that `set` holds exactly the reference: its count,
 * kind, size, keypoints and descriptors byte for byte. */
static void expect_set(const char *what, const frame *f, const features *ref, int dim,
                       satfeat_status st, const satfeat_features *set)
{
    const size_t n = satfeat_features_count(set);
    if (st != SATFEAT_OK || n != ref->n)
        fprintf(stderr, "%s, %s: status %d, count %zu; CPU count %zu\n", what, f->name, (int)st,
                n, ref->n);
    assert_int_equal(st, SATFEAT_OK);
    assert_int_equal(n, ref->n);
    assert_int_equal((int)satfeat_features_descriptor_kind(set), dim);
    int w = 0, h = 0;
    satfeat_features_image_size(set, &w, &h);
    assert_int_equal(w, f->w);
    assert_int_equal(h, f->h);
    const satfeat_keypoint *kp = satfeat_features_keypoints(set);
    const float *desc = satfeat_features_descriptors(set);
    for (size_t i = 0; i < n; i++) {
        if (memcmp(&kp[i], &ref->kp[i], sizeof kp[i]) != 0) {
            fprintf(stderr,
                    "%s, %s: keypoint %zu differs: CPU (%.17g %.17g %.17g %.17g angle %.17g) "
                    "GPU (%.17g %.17g %.17g %.17g angle %.17g)\n",
                    what, f->name, i, ref->kp[i].x, ref->kp[i].y, ref->kp[i].size,
                    ref->kp[i].response, ref->kp[i].angle, kp[i].x, kp[i].y, kp[i].size,
                    kp[i].response, kp[i].angle);
            fail();
        }
        if (dim == 0) continue;
        const float *a = ref->desc + i * (size_t)dim, *b = desc + i * (size_t)dim;
        if (memcmp(a, b, (size_t)dim * sizeof *a) != 0) {
            int v = 0;
            while (v < dim && memcmp(&a[v], &b[v], sizeof *a) == 0) v++;
            fprintf(stderr, "%s, %s: descriptor %zu differs at %d: CPU %.9g GPU %.9g\n", what,
                    f->name, i, v, (double)a[v], (double)b[v]);
            fail();
        }
    }
}

/* satfeat_detect on a host view of the frame into *set (kept for the caller to refill). */
static void check_host(satfeat_detector *gpu, const frame *f, const features *ref, int dim,
                       satfeat_features **set)
{
    const satfeat_image_view v = satfeat_image_view_host(f->px, f->w, f->h, f->stride);
    const satfeat_status st = satfeat_detect(gpu, &v, set); /* before *set is read */
    expect_set("host", f, ref, dim, st, *set);
}

/* A frame in device memory (pitch: a multiple of 256 past the width). */
typedef struct dev_frame {
    uint8_t *d;
    size_t pitch;
} dev_frame;

static dev_frame upload(const frame *f)
{
    dev_frame d;
    d.pitch = ((size_t)f->w + 256u) & ~(size_t)255u;
    CUDA_OK(cudaMalloc((void **)&d.d, d.pitch * (size_t)f->h));
    CUDA_OK(cudaMemcpy2D(d.d, d.pitch, f->px, f->stride, (size_t)f->w, (size_t)f->h,
                         cudaMemcpyHostToDevice));
    return d;
}

/* satfeat_detect on a device view of the frame, queued on `stream`, into *set. */
static void check_device(satfeat_detector *gpu, const frame *f, const dev_frame *d,
                         const features *ref, int dim, satfeat_features **set, void *stream)
{
    const satfeat_image_view v = satfeat_image_view_device(d->d, f->w, f->h, d->pitch, stream);
    const satfeat_status st = satfeat_detect(gpu, &v, set); /* before *set is read */
    expect_set("device", f, ref, dim, st, *set);
}

/* All frames through a sequence of `slots` slots over `lanes` lanes (1: satfeat_sequence_new),
 * twice (a second round replays the graphs); the popped frames land in one set refilled frame
 * after frame, or (fresh) in a new set each. */
static void check_sequence(satfeat_detector *gpu, const frame *f, const features *refs, int nf,
                           int dim, int slots, int lanes, int fresh)
{
    satfeat_sequence *q = NULL;
    assert_int_equal(lanes == 1 ? satfeat_sequence_new(gpu, slots, &q)
                                : satfeat_sequence_new_lanes(gpu, slots, lanes, &q),
                     SATFEAT_OK);
    satfeat_features *set = NULL;
    for (int round = 0; round < 2; round++) {
        int next = 0;
        for (int i = 0; i < nf; i++) {
            const satfeat_image_view v = satfeat_image_view_host(f[i].px, f[i].w, f[i].h,
                                                                 f[i].stride);
            int popped = 0;
            const satfeat_status st = satfeat_sequence_push(q, &v, &set, &popped);
            if (popped) {
                expect_set("sequence", &f[next], &refs[next], dim, st, set);
                next++;
            } else {
                assert_int_equal(st, SATFEAT_OK);
            }
            if (fresh) {
                satfeat_features_delete(set);
                set = NULL;
            }
        }
        while (satfeat_sequence_pending(q) > 0) {
            assert_true(next < nf);
            const satfeat_status st = satfeat_sequence_pop(q, &set);
            expect_set("sequence", &f[next], &refs[next], dim, st, set);
            next++;
        }
        assert_int_equal(next, nf);
    }
    satfeat_features_delete(set);
    satfeat_sequence_delete(q);
}

/* The frames one after another on a GPU detector sized by its frames (0 x 0): it grows with the
 * larger ones and gives what the detector created for the largest gives. */
static void check_lazy(const satfeat_detector_params *p, const frame *f, const features *refs,
                       int nf, int dim)
{
    satfeat_ctx *ctx = test_cuda_ctx_or_skip();
    satfeat_detector *det = NULL;
    assert_int_equal(satfeat_detector_new(ctx, p, 0, 0, &det), SATFEAT_OK);
    satfeat_features *set = NULL;
    for (int round = 0; round < 2; round++)
        for (int i = nf - 1; i >= 0; i--) check_host(det, &f[i], &refs[i], dim, &set);
    satfeat_features_delete(set);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
}

/* Every frame, every entry point, for one parameter set. */
static void compare_all(const satfeat_detector_params *p, const frame *f, int nf, int slots)
{
    int max_w = 1, max_h = 1;
    for (int i = 0; i < nf; i++) {
        if (f[i].w > max_w) max_w = f[i].w;
        if (f[i].h > max_h) max_h = f[i].h;
    }
    dcu_pair q = dcu_pair_new(p, max_w, max_h);
    const int dim = satfeat_detector_descriptor_dim(q.gpu);
    assert_int_equal(dim, (int)p->descriptor);
    features refs[MAX_FRAMES];
    cudaStream_t s;
    CUDA_OK(cudaStreamCreate(&s));
    satfeat_features *set = NULL; /* refilled by every frame and path below */
    for (int i = 0; i < nf; i++) {
        refs[i] = cpu_reference(q.cpu, &f[i], dim, p->upright);
        /* host, device and host again: the own slot's graph and the device graph of the frame,
         * each replayed, into a set that held other frames before */
        check_host(q.gpu, &f[i], &refs[i], dim, &set);
        check_host(q.gpu, &f[i], &refs[i], dim, &set);
        dev_frame d = upload(&f[i]);
        check_device(q.gpu, &f[i], &d, &refs[i], dim, &set, s);
        check_device(q.gpu, &f[i], &d, &refs[i], dim, &set, NULL);
        check_host(q.gpu, &f[i], &refs[i], dim, &set);
        CUDA_OK(cudaFree(d.d));
        printf("%s: %zu keypoints, dim %d%s: identical\n", f[i].name, refs[i].n, dim,
               p->upright ? " (upright)" : "");
    }
    check_sequence(q.gpu, f, refs, nf, dim, slots, 1, 0);
    check_sequence(q.gpu, f, refs, nf, dim, 1, 1, 1);
    /* frames of several lanes at once (twins of the detector), every lane with two frames or
     * one */
    check_sequence(q.gpu, f, refs, nf, dim, 4, 2, 0);
    check_sequence(q.gpu, f, refs, nf, dim, 3, 3, 1);
    /* after the sequence, the detector's own calls again (graph cache entries evicted) */
    check_host(q.gpu, &f[0], &refs[0], dim, &set);
    check_lazy(p, f, refs, nf, dim);
    satfeat_features_delete(set);
    CUDA_OK(cudaStreamDestroy(s));
    for (int i = 0; i < nf; i++) features_free(&refs[i]);
    dcu_pair_delete(&q);
}

static void test_parameter_sets(void **state)
{
    (void)state;
    satfeat_ctx_delete(test_cuda_ctx_or_skip()); /* skip before anything is allocated */
    frame f[MAX_FRAMES];
    const int nf = load_frames(f);
    const int sets = dcu_small() ? 5 : 11;
    for (int k = 0; k < sets; k++) {
        satfeat_detector_params p = satfeat_detector_params_default();
        switch (k) {
        case 1: p.upright = 1; break;
        case 2: p.descriptor = SATFEAT_DESCRIPTOR_SURF128; break;
        case 3: p.descriptor = SATFEAT_DESCRIPTOR_NONE; break;
        case 4: p.grid = 5; p.per_cell = 2; p.max_keypoints = 37; p.descriptor = SATFEAT_DESCRIPTOR_SURF128; break;
        case 5: p.upright = 1; p.descriptor = SATFEAT_DESCRIPTOR_SURF128; break;
        case 6: p.upright = 1; p.descriptor = SATFEAT_DESCRIPTOR_NONE; break;
        case 7: p.grid = 8; p.per_cell = 3; break;
        case 8: p.max_keypoints = 50; break;
        case 9: p.octaves = 5; p.layers = 5; p.init_step = 2; p.threshold = 0.0002; break;
        case 10: p.octaves = 2; p.threshold = 0; p.upright = 1; break;
        default: break;
        }
        printf("parameter set %d: upright %d, descriptor %d, grid %d/%d, max_keypoints %d\n", k,
               p.upright, (int)p.descriptor, p.grid, p.per_cell, p.max_keypoints);
        compare_all(&p, f, nf, 3);
    }
    frames_free(f, nf);
}

/* A mask with a grid: the masked selection gets the same angles and descriptors, from a host
 * view and from a device view. */
static void test_mask(void **state)
{
    (void)state;
    satfeat_detector_params p = satfeat_detector_params_default();
    p.grid = 6;
    p.per_cell = 5;
    const int w = 500, h = 377;
    dcu_pair q = dcu_pair_new(&p, w, h);
    const int dim = (int)p.descriptor;
    test_rng r;
    test_rng_seed(&r, 31);
    uint8_t *img = synth_random_blobs(&r, w, h, 90);
    uint8_t *mask = malloc((size_t)w * (size_t)h);
    assert_non_null(mask);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) mask[(size_t)y * (size_t)w + (size_t)x] = (x / 41 + y / 29) % 3 != 0;
    features ref;
    memset(&ref, 0, sizeof ref);
    ref.kp = test_detect_copy(q.cpu, img, (size_t)w, w, h, mask, (size_t)w, &ref.n, &ref.desc);
    assert_true(ref.n > 10);
    frame f;
    memset(&f, 0, sizeof f);
    f.px = img;
    f.w = w;
    f.h = h;
    f.stride = (size_t)w;
    snprintf(f.name, sizeof f.name, "masked blobs");
    satfeat_features *set = NULL;
    satfeat_image_view v = satfeat_image_view_host(img, w, h, 0);
    v.mask = mask;
    v.mask_stride = (size_t)w;
    for (int rep = 0; rep < 2; rep++) {
        const satfeat_status st = satfeat_detect(q.gpu, &v, &set); /* before set is read */
        expect_set("host masked", &f, &ref, dim, st, set);
    }
    dev_frame d = upload(&f);
    uint8_t *d_mask = NULL;
    CUDA_OK(cudaMalloc((void **)&d_mask, d.pitch * (size_t)h));
    CUDA_OK(cudaMemcpy2D(d_mask, d.pitch, mask, (size_t)w, (size_t)w, (size_t)h,
                         cudaMemcpyHostToDevice));
    v = satfeat_image_view_device(d.d, w, h, d.pitch, NULL);
    v.mask = d_mask;
    v.mask_stride = d.pitch;
    for (int rep = 0; rep < 2; rep++) {
        const satfeat_status st = satfeat_detect(q.gpu, &v, &set); /* before set is read */
        expect_set("device masked", &f, &ref, dim, st, set);
    }
    satfeat_features_delete(set);
    CUDA_OK(cudaFree(d_mask));
    CUDA_OK(cudaFree(d.d));
    features_free(&ref);
    free(mask);
    free(img);
    dcu_pair_delete(&q);
}

/* Noise: tens of thousands of keypoints, past the 16384 of the landing buffer, so keypoints and
 * descriptors take the second copy; and max_keypoints 20000 (selection bound above the landing
 * size). */
static void test_many_keypoints(void **state)
{
    (void)state;
    satfeat_ctx_delete(test_cuda_ctx_or_skip());
    const int w = dcu_small() ? 1024 : 2048, h = dcu_small() ? 1024 : 1536;
    test_rng r;
    test_rng_seed(&r, 2027);
    frame f[2];
    memset(f, 0, sizeof f);
    f[0].px = malloc((size_t)w * (size_t)h);
    assert_non_null(f[0].px);
    test_fill_u8(&r, f[0].px, (size_t)w * (size_t)h);
    f[0].w = w;
    f[0].h = h;
    f[0].stride = (size_t)w;
    snprintf(f[0].name, sizeof f[0].name, "noise %dx%d", w, h);
    f[1] = f[0];
    f[1].w = w - 37; /* another size: another graph */
    f[1].h = h - 11;
    snprintf(f[1].name, sizeof f[1].name, "noise %dx%d", f[1].w, f[1].h);
    for (int k = 0; k < 2; k++) {
        satfeat_detector_params p = satfeat_detector_params_default();
        if (k == 1) p.max_keypoints = 20000;
        dcu_pair q = dcu_pair_new(&p, w, h);
        const int dim = (int)p.descriptor;
        features refs[2];
        satfeat_features *set = NULL;
        for (int i = 0; i < 2; i++) {
            refs[i] = cpu_reference(q.cpu, &f[i], dim, 0);
            const size_t n = refs[i].n;
            printf("%s, max_keypoints %d: %zu keypoints\n", f[i].name, p.max_keypoints, n);
            if (!dcu_small()) assert_true(n > 16384);
            check_host(q.gpu, &f[i], &refs[i], dim, &set);
            dev_frame d = upload(&f[i]);
            check_device(q.gpu, &f[i], &d, &refs[i], dim, &set, NULL);
            CUDA_OK(cudaFree(d.d));
        }
        satfeat_features_delete(set);
        check_sequence(q.gpu, f, refs, 2, dim, 2, 1, 0);
        check_sequence(q.gpu, f, refs, 2, dim, 2, 2, 1);
        for (int i = 0; i < 2; i++) features_free(&refs[i]);
        dcu_pair_delete(&q);
    }
    free(f[0].px);
}

/* A detector without descriptors gives keypoint sets (no descriptor array), on the GPU as on
 * the CPU, with the same keypoints as one with descriptors. */
static void test_none_keypoints(void **state)
{
    (void)state;
    satfeat_detector_params p = satfeat_detector_params_default();
    p.descriptor = SATFEAT_DESCRIPTOR_NONE;
    dcu_pair q = dcu_pair_new(&p, 320, 240);
    test_rng r;
    test_rng_seed(&r, 8);
    uint8_t *img = synth_random_blobs(&r, 320, 240, 30);
    satfeat_features *set = NULL;
    const satfeat_image_view v = satfeat_image_view_host(img, 320, 240, 0);
    assert_int_equal(satfeat_detect(q.gpu, &v, &set), SATFEAT_OK);
    assert_int_equal(satfeat_features_descriptor_kind(set), SATFEAT_DESCRIPTOR_NONE);
    assert_null(satfeat_features_descriptors(set));
    assert_int_equal(satfeat_detector_descriptor_dim(q.gpu), 0);
    dcu_assert_same(q.cpu, q.gpu, img, 320, 320, 240, NULL, 0);
    satfeat_features_delete(set);
    free(img);
    dcu_pair_delete(&q);
}

#endif /* SATFEAT_TEST_HAVE_CUDA */

int main(void)
{
#ifndef SATFEAT_TEST_HAVE_CUDA
    return test_main_without_cuda();
#else
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parameter_sets),
        cmocka_unit_test(test_mask),
        cmocka_unit_test(test_none_keypoints),
        cmocka_unit_test(test_many_keypoints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}

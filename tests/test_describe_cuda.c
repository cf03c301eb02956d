/* test_describe_cuda.c - the CUDA orientation and descriptor kernels equal the CPU bit for bit
 * (memcmp of angles and descriptors, dim 64 and 128, oriented and upright, unit L2 and
 * root-normalised) on synthetic textures, data/scene.png, noise and garbage keypoints, in index
 * order and in the spatial processing order, read the keypoint count on the device, and print
 * the kernel times (CUDA events) for 2000 and for all (about 2160) keypoints of a 1920x1080
 * texture. Skipped with "no CUDA device" without a GPU. */
#include "describe_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if SATFEAT_TEST_HAVE_CUDA
#include "describe/describe.h"

#include <cuda_runtime.h>

#define CK(call)                                                                                \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            fail();                                                                             \
        }                                                                                       \
    } while (0)

/* Device copies of one image's table, keypoints, count, weights and a descriptor buffer. */
typedef struct gpu_set {
    uint32_t *sat, *count, *order, *cell;
    satfeat_keypoint *kp;
    satfeat_describe_weights *w;
    float *desc;
    size_t pitch; /* elements */
    cudaStream_t stream;
} gpu_set;

/* Uploads the table with a row pitch larger than width+1 (to test the stride), the keypoints
 * (capacity cap >= n) and the count n. */
static gpu_set gpu_upload(const uint32_t *t, int w, int h, const satfeat_keypoint *kp, size_t n,
                          size_t cap, const satfeat_describe_weights *wt)
{
    gpu_set g;
    g.pitch = (size_t)w + 1 + 13;
    CK(cudaStreamCreate(&g.stream));
    CK(cudaMalloc((void **)&g.sat, g.pitch * (size_t)(h + 1) * sizeof(uint32_t)));
    CK(cudaMemcpy2D(g.sat, g.pitch * sizeof(uint32_t), t, ((size_t)w + 1) * sizeof(uint32_t),
                    ((size_t)w + 1) * sizeof(uint32_t), (size_t)h + 1, cudaMemcpyHostToDevice));
    CK(cudaMalloc((void **)&g.kp, (cap + 1) * sizeof *kp));
    if (n) CK(cudaMemcpy(g.kp, kp, n * sizeof *kp, cudaMemcpyHostToDevice));
    CK(cudaMalloc((void **)&g.count, sizeof(uint32_t)));
    CK(cudaMalloc((void **)&g.order, (cap + 1) * sizeof(uint32_t)));
    CK(cudaMalloc((void **)&g.cell, (cap + 1) * sizeof(uint32_t)));
    const uint32_t n32 = (uint32_t)n;
    CK(cudaMemcpy(g.count, &n32, sizeof n32, cudaMemcpyHostToDevice));
    CK(cudaMalloc((void **)&g.w, satfeat_describe_weights_bytes()));
    CK((cudaError_t)satfeat_describe_weights_upload(wt, g.w, g.stream));
    CK(cudaMalloc((void **)&g.desc, (cap + 1) * 128 * sizeof(float)));
    CK(cudaMemset(g.desc, 0xA5, (cap + 1) * 128 * sizeof(float))); /* poison */
    CK(cudaStreamSynchronize(g.stream));
    return g;
}

static void gpu_free(gpu_set *g)
{
    cudaFree(g->sat);
    cudaFree(g->kp);
    cudaFree(g->count);
    cudaFree(g->order);
    cudaFree(g->cell);
    cudaFree(g->w);
    cudaFree(g->desc);
    cudaStreamDestroy(g->stream);
}

/* A landing buffer (device memory here) after a kernel wrote its first lcap entries of `each`
 * bytes: those equal `want`, the entries up to n keep the 0xA5 poison. */
static void check_landed(const void *d_land, const void *want, size_t each, size_t lcap, size_t n,
                         const char *what)
{
    unsigned char *got = malloc(n * each + 1);
    assert_true(got != NULL);
    CK(cudaMemcpy(got, d_land, n * each, cudaMemcpyDeviceToHost));
    if (memcmp(got, want, lcap * each) != 0) {
        fprintf(stderr, "%s: landed entries differ from the results\n", what);
        fail();
    }
    for (size_t b = lcap * each; b < n * each; b++)
        if (got[b] != 0xA5) {
            fprintf(stderr, "%s: entry %zu beyond the landing capacity %zu written\n", what,
                    b / each, lcap);
            fail();
        }
    free(got);
}

/* CPU and GPU agree bit for bit on angles (refined or not, either orientation filter) and on
 * descriptors (64/128, oriented/upright, L2/root); max_n = n + extra, so the kernels must take
 * the count from the device. Each kernel also lands its first n/2 results in a second buffer
 * (satfeat_land_dst), which must hold the same bytes. */
static void check_image_filter(const uint8_t *img, int w, int h, const satfeat_keypoint *extra_kp,
                               size_t n_extra, const char *name, int refine, int filter)
{
    satfeat_describe_weights wt;
    satfeat_describe_weights_init(&wt);
    satfeat_describe_weights_orientation(&wt, filter);
    wt.ori_refine = refine; /* the refined orientation (the default) or the best window's */
    uint32_t *t = du_table(img, w, h);
    size_t nd = 0;
    satfeat_keypoint *det = du_detect(img, w, h, 0, &nd);
    const size_t n = nd + n_extra, cap = n + 100;
    satfeat_keypoint *kp = malloc((n + 1) * sizeof *kp), *back = malloc((cap + 1) * sizeof *kp);
    assert_true(kp && back);
    if (nd) memcpy(kp, det, nd * sizeof *kp);
    if (n_extra) memcpy(kp + nd, extra_kp, n_extra * sizeof *kp);
    for (size_t i = 0; i < n; i++) kp[i].angle = 0.0;
    gpu_set g = gpu_upload(t, w, h, kp, n, cap, &wt);
    satfeat_orient_cpu(t, (size_t)w + 1, w, h, kp, n, &wt, 2);
    float *dc = malloc((cap + 1) * 128 * sizeof *dc), *dg = malloc((cap + 1) * 128 * sizeof *dg);
    assert_true(dc && dg);
    const size_t lcap = n / 2;
    satfeat_keypoint *d_lkp = NULL;
    float *d_ldesc = NULL;
    CK(cudaMalloc((void **)&d_lkp, (cap + 1) * sizeof *kp));
    CK(cudaMalloc((void **)&d_ldesc, (cap + 1) * 128 * sizeof(float)));
    for (int ordered = 0; ordered <= 1; ordered++) {
        const uint32_t *order = ordered ? g.order : NULL;
        if (ordered) {
            CK((cudaError_t)satfeat_describe_order_cuda(g.kp, g.count, (uint32_t)cap, w, h,
                                                        g.order, g.cell, g.stream));
            /* the order is a permutation of 0 .. n-1 */
            uint32_t *perm = malloc((n + 1) * sizeof *perm);
            unsigned char *seen = calloc(n + 1, 1);
            assert_true(perm && seen);
            CK(cudaMemcpyAsync(perm, g.order, n * sizeof *perm, cudaMemcpyDeviceToHost, g.stream));
            CK(cudaStreamSynchronize(g.stream));
            for (size_t i = 0; i < n; i++) {
                assert_true(perm[i] < n && !seen[perm[i]]);
                seen[perm[i]] = 1;
            }
            /* the detector's spatial order has holes (SATFEAT_ORDER_HOLE) where a candidate was
             * not selected, and its count is its number of entries: a hole after every fourth
             * entry, up to 100 of them (the order has room for cap = n + 100), which the kernels
             * below must pass over */
            uint32_t *holed = malloc((cap + 1) * sizeof *holed);
            assert_non_null(holed);
            size_t m = 0;
            for (size_t i = 0; i < n; i++) {
                holed[m++] = perm[i];
                if (i % 4 == 3 && m - (i + 1) < 100) holed[m++] = SATFEAT_ORDER_HOLE;
            }
            const uint32_t entries = (uint32_t)m;
            CK(cudaMemcpy(g.order, holed, m * sizeof *holed, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(g.count, &entries, sizeof entries, cudaMemcpyHostToDevice));
            free(holed);
            free(perm);
            free(seen);
            /* angles poisoned on the device: the ordered kernel must write every one */
            for (size_t i = 0; i < n; i++) back[i] = kp[i], back[i].angle = -7.0;
            CK(cudaMemcpy(g.kp, back, n * sizeof *kp, cudaMemcpyHostToDevice));
        }
        CK(cudaMemset(d_lkp, 0xA5, (cap + 1) * sizeof *kp));
        const satfeat_land_dst land_kp = {d_lkp, NULL, (uint32_t)lcap};
        CK((cudaError_t)satfeat_orient_cuda_ordered(g.sat, g.pitch, w, h, g.kp, g.count,
                                                    (uint32_t)cap, order, g.w, wt.ori_filter,
                                                    land_kp, g.stream));
        CK(cudaStreamSynchronize(g.stream));
        CK(cudaMemcpy(back, g.kp, n * sizeof *kp, cudaMemcpyDeviceToHost));
        check_landed(d_lkp, kp, sizeof *kp, lcap, n, name);
        for (size_t i = 0; i < n; i++)
            if (memcmp(&back[i], &kp[i], sizeof *kp) != 0) {
                fprintf(stderr, "%s: keypoint %zu angle CPU %.17g GPU %.17g (ordered %d)\n", name,
                        i, kp[i].angle, back[i].angle, ordered);
                fail();
            }
        /* flags: upright (bit 0) and the root normalisation (bit 1), every combination */
        for (int flags = 0; flags <= (SATFEAT_DESC_UPRIGHT | SATFEAT_DESC_ROOT); flags++)
            for (int dim = 64; dim <= 128; dim += 64) {
                satfeat_describe_cpu(t, (size_t)w + 1, w, h, kp, n, flags, dim, &wt, dc, 2);
                CK(cudaMemset(g.desc, 0xA5, (cap + 1) * 128 * sizeof(float)));
                CK(cudaMemset(d_ldesc, 0xA5, (cap + 1) * 128 * sizeof(float)));
                const satfeat_land_dst land_desc = {NULL, d_ldesc, (uint32_t)lcap};
                CK((cudaError_t)satfeat_describe_cuda_ordered(g.sat, g.pitch, w, h, g.kp,
                                                              g.count, (uint32_t)cap, order,
                                                              flags, dim, g.w, g.desc,
                                                              land_desc, g.stream));
                CK(cudaStreamSynchronize(g.stream));
                check_landed(d_ldesc, dc, (size_t)dim * sizeof *dc, lcap, n, name);
                CK(cudaMemcpy(dg, g.desc, (cap + 1) * (size_t)dim * sizeof *dg,
                              cudaMemcpyDeviceToHost));
                for (size_t i = 0; i < n; i++)
                    if (memcmp(dc + i * dim, dg + i * dim, (size_t)dim * sizeof *dc) != 0) {
                        fprintf(stderr, "%s: descriptor %zu (dim %d, flags %d, ordered %d) differs\n",
                                name, i, dim, flags, ordered);
                        fail();
                    }
                /* nothing written past the device count */
                const unsigned char *tail = (const unsigned char *)(dg + n * dim);
                for (size_t b = 0; b < 100 * (size_t)dim * sizeof(float); b++)
                    assert_int_equal(tail[b], 0xA5);
            }
    }
    printf("%s (%dx%d): %zu keypoints, angles and descriptors identical\n", name, w, h, n);
    cudaFree(d_lkp);
    cudaFree(d_ldesc);
    gpu_free(&g);
    free(dc);
    free(dg);
    free(kp);
    free(back);
    free(det);
    free(t);
}

/* check_image_filter with the Scharr filter (the default) and with the Haar filter. */
static void check_image(const uint8_t *img, int w, int h, const satfeat_keypoint *extra_kp,
                        size_t n_extra, const char *name, int refine)
{
    check_image_filter(img, w, h, extra_kp, n_extra, name, refine, SATFEAT_ORI_FILTER_SCHARR);
    check_image_filter(img, w, h, extra_kp, n_extra, name, refine, SATFEAT_ORI_FILTER_HAAR);
}

static void test_identical_to_cpu(void **state)
{
    (void)state;
    satfeat_ctx_delete(test_cuda_ctx_or_skip());
    test_rng rng;
    test_rng_seed(&rng, 4242);
    du_blob *b = du_random_blobs(&rng, 640, 480, 600);
    uint8_t *img = du_render(b, 600, 640, 480, 1.0, 0.0, 0, 0, 0, 0);
    /* keypoints at borders, tiny and huge scales (300: the Scharr side at its cap), garbage
     * fields */
    enum { NG = 9 };
    satfeat_keypoint g[NG];
    memset(g, 0, sizeof g);
    const double gx[NG] = {0, 639, -5, 320, 1e12, 100, 200, 630, 320};
    const double gy[NG] = {0, 479, 240, -1e12, 5, 100, 470, 8, 240};
    const double gs[NG] = {1.2, 3, 8, 2, 2, 40, 0.1, 12, 300};
    for (int i = 0; i < NG; i++) {
        g[i].x = gx[i];
        g[i].y = gy[i];
        g[i].sigma = gs[i];
        g[i].size = gs[i] * 9.0 / 1.2;
    }
    check_image(img, 640, 480, g, NG, "texture", 1);
    check_image(img, 640, 480, g, NG, "texture, unrefined orientation", 0);
    free(img);
    free(b);
    /* data/scene.png */
    char path[512];
    test_path(path, sizeof path, SATFEAT_TEST_DATA_DIR, "scene.png");
    uint8_t *px = NULL;
    int w = 0, h = 0;
    assert_int_equal(satfeat_image_load_gray8(NULL, path, &px, &w, &h), SATFEAT_OK);
    check_image(px, w, h, NULL, 0, "scene.png", 1);
    satfeat_free(px);
    /* noise at an awkward size (many keypoints, many tiny responses) */
    uint8_t *noise = malloc(301 * 199);
    assert_non_null(noise);
    test_fill_u8(&rng, noise, 301 * 199);
    check_image(noise, 301, 199, NULL, 0, "noise", 1);
    free(noise);
    /* zero keypoints */
    uint8_t flat[64 * 64];
    memset(flat, 9, sizeof flat);
    check_image(flat, 64, 64, NULL, 0, "flat", 1);
}

/* Median of n floats (sorts in place). */
static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median of the RUNS timings in t (sorts them), in microseconds. */
static double median_us(float *t, int runs)
{
    qsort(t, (size_t)runs, sizeof *t, cmp_float);
    return 1e3 * (double)t[runs / 2];
}

/* Times the spatial order, the orientation and SURF-64 / SURF-128 for the strongest `max_kp`
 * keypoints (0: all) of a 1920x1080 texture, in index order and in the spatial order (median of
 * 50 runs after warm-up, CUDA events around the launches on one stream); prints microseconds and
 * checks the timed results against the CPU. */
static void time_1080p(int max_kp)
{
    const int w = 1920, h = 1080;
    du_scene sc = du_scene_make(w, h, 1080, 3000, max_kp);
    const uint32_t *t = sc.table;
    const size_t n = sc.n;
    satfeat_keypoint *kp = sc.kp;
    const satfeat_describe_weights *wts = &sc.wt;
    gpu_set g = gpu_upload(t, w, h, kp, n, n, wts);
    cudaEvent_t e[4];
    for (int i = 0; i < 4; i++) CK(cudaEventCreate(&e[i]));
    const satfeat_land_dst no_land = {NULL, NULL, 0};
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    for (int ordered = 0; ordered <= 1; ordered++)
        for (int dim = 64; dim <= 128; dim += 64) {
            enum { RUNS = 50 };
            float tr[RUNS], to[RUNS], td[RUNS], tt[RUNS];
            const uint32_t *order = ordered ? g.order : NULL;
            for (int r = -5; r < RUNS; r++) {
                CK(cudaEventRecord(e[0], g.stream));
                if (ordered)
                    CK((cudaError_t)satfeat_describe_order_cuda(g.kp, g.count, (uint32_t)n, w, h,
                                                                g.order, g.cell, g.stream));
                CK(cudaEventRecord(e[1], g.stream));
                CK((cudaError_t)satfeat_orient_cuda_ordered(g.sat, g.pitch, w, h, g.kp, g.count,
                                                            (uint32_t)n, order, g.w,
                                                            wts->ori_filter, no_land, g.stream));
                CK(cudaEventRecord(e[2], g.stream));
                CK((cudaError_t)satfeat_describe_cuda_ordered(g.sat, g.pitch, w, h, g.kp,
                                                              g.count, (uint32_t)n, order, 0, dim,
                                                              g.w, g.desc, no_land, g.stream));
                CK(cudaEventRecord(e[3], g.stream));
                CK(cudaEventSynchronize(e[3]));
                if (r < 0) continue;
                CK(cudaEventElapsedTime(&tr[r], e[0], e[1]));
                CK(cudaEventElapsedTime(&to[r], e[1], e[2]));
                CK(cudaEventElapsedTime(&td[r], e[2], e[3]));
                CK(cudaEventElapsedTime(&tt[r], e[0], e[3]));
            }
            printf("GPU %s, %dx%d, %zu keypoints, dim %d, %s: order %.1f us, orient %.1f us, "
                   "describe %.1f us, all %.1f us (median of %d)\n",
                   prop.name, w, h, n, dim, ordered ? "spatial order" : "index order",
                   median_us(tr, RUNS), median_us(to, RUNS), median_us(td, RUNS),
                   median_us(tt, RUNS), RUNS);
        }
    /* the timed results (the last: spatial order, SURF-128) are the CPU's too */
    satfeat_keypoint *back = malloc(n * sizeof *back);
    float *dc = malloc(n * 128 * sizeof *dc), *dg = malloc(n * 128 * sizeof *dg);
    assert_true(back && dc && dg);
    satfeat_orient_cpu(t, (size_t)w + 1, w, h, kp, n, wts, 2);
    satfeat_describe_cpu(t, (size_t)w + 1, w, h, kp, n, 0, 128, wts, dc, 2);
    CK(cudaMemcpy(back, g.kp, n * sizeof *back, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(dg, g.desc, n * 128 * sizeof *dg, cudaMemcpyDeviceToHost));
    assert_memory_equal(back, kp, n * sizeof *kp);
    assert_memory_equal(dg, dc, n * 128 * sizeof *dc);
    for (int i = 0; i < 4; i++) cudaEventDestroy(e[i]);
    gpu_free(&g);
    free(back);
    free(dc);
    free(dg);
    du_scene_free(&sc);
}

static void test_timing_1080p(void **state)
{
    (void)state;
    satfeat_ctx_delete(test_cuda_ctx_or_skip());
    if (getenv("SATFEAT_TEST_SMALL")) skip(); /* sanitizer runs: the correctness test only */
    time_1080p(2000);
    time_1080p(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_to_cpu),
        cmocka_unit_test(test_timing_1080p),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void)
{
    return test_main_without_cuda();
}
#endif

/* test_util.c - see test_util.h. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_rng_seed(test_rng *r, uint64_t seed)
{
    r->s = seed ? seed : 0x9e3779b97f4a7c15ull;
}

uint64_t test_rng_next(test_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545f4914f6cdd1dull;
}

int test_rng_range(test_rng *r, int lo, int hi)
{
    uint64_t span = (uint64_t)((int64_t)hi - lo + 1);
    return lo + (int)(test_rng_next(r) % span);
}

float test_rng_unit(test_rng *r)
{
    return (float)(test_rng_next(r) >> 40) / (float)(1u << 24);
}

void test_fill_u8(test_rng *r, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(test_rng_next(r) >> 56);
}

void test_reference_sat_u8(const uint8_t *src, size_t src_stride, int w, int h, uint32_t *table)
{
    size_t tw = (size_t)w + 1;
    for (size_t x = 0; x < tw; x++) table[x] = 0;
    for (int y = 0; y < h; y++) {
        uint32_t *row = table + (size_t)(y + 1) * tw;
        const uint32_t *above = table + (size_t)y * tw;
        row[0] = 0;
        for (int x = 0; x < w; x++)
            row[x + 1] = above[x + 1] + row[x] - above[x] + src[(size_t)y * src_stride + (size_t)x];
    }
}

void test_reference_sat_f64(const float *src, size_t src_stride, int w, int h, double *table)
{
    size_t tw = (size_t)w + 1;
    const size_t step = src_stride / sizeof(float);
    for (size_t x = 0; x < tw; x++) table[x] = 0;
    for (int y = 0; y < h; y++) {
        double *row = table + (size_t)(y + 1) * tw;
        const double *above = table + (size_t)y * tw;
        double run = 0;
        row[0] = 0;
        for (int x = 0; x < w; x++) {
            run += src[(size_t)y * step + (size_t)x];
            row[x + 1] = above[x + 1] + run;
        }
    }
}

satfeat_ctx *test_cuda_ctx_or_skip(void)
{
    satfeat_ctx *ctx = NULL;
    if (!satfeat_has_cuda_build() || satfeat_cuda_device_count() == 0 ||
        satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CUDA, 0) != SATFEAT_OK) {
        printf("no CUDA device: skipping GPU test\n");
        fflush(stdout);
        skip();
    }
    return ctx;
}

static void skip_without_cuda(void **state)
{
    (void)state;
    satfeat_ctx_delete(test_cuda_ctx_or_skip());
}

int test_main_without_cuda(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(skip_without_cuda)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

void test_path(char *buf, size_t size, const char *dir, const char *name)
{
    snprintf(buf, size, "%s/%s", dir, name);
}

uint8_t *test_load_gray(const char *dir, const char *name, int width, int height)
{
    char path[512];
    test_path(path, sizeof path, dir, name);
    uint8_t *px = NULL;
    int w = 0, h = 0;
    assert_int_equal(satfeat_image_load_gray8(NULL, path, &px, &w, &h), SATFEAT_OK);
    assert_int_equal(w, width);
    assert_int_equal(h, height);
    return px;
}

void test_write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n) assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

int test_file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fclose(f);
    return 1;
}

int test_shared_data_present(const char *file)
{
    char path[1024];
    test_path(path, sizeof path, SATFEAT_SHARED_DATA_DIR, file);
    if (test_file_exists(path)) return 1;
    printf("shared data not found: %s (skipped)\n", path);
    fflush(stdout);
    return 0;
}

satfeat_image_view test_view(const uint8_t *img, size_t stride, int w, int h, const uint8_t *mask,
                             size_t mask_stride)
{
    satfeat_image_view v = satfeat_image_view_host(img, w, h, stride);
    v.stride = stride;
    v.mask = mask;
    v.mask_stride = mask_stride;
    return v;
}

satfeat_keypoint *test_detect_copy(satfeat_detector *det, const uint8_t *img, size_t stride,
                                   int w, int h, const uint8_t *mask, size_t mask_stride,
                                   size_t *n, float **desc)
{
    const satfeat_image_view v = test_view(img, stride, w, h, mask, mask_stride);
    satfeat_features *f = NULL;
    assert_int_equal(satfeat_detect(det, &v, &f), SATFEAT_OK);
    *n = satfeat_features_count(f);
    satfeat_keypoint *kp = malloc((*n + 1) * sizeof *kp);
    assert_non_null(kp);
    if (*n) memcpy(kp, satfeat_features_keypoints(f), *n * sizeof *kp);
    if (desc) {
        const size_t dim = (size_t)satfeat_features_descriptor_kind(f);
        *desc = NULL;
        if (dim) {
            *desc = malloc((*n + 1) * dim * sizeof **desc);
            assert_non_null(*desc);
            if (*n) memcpy(*desc, satfeat_features_descriptors(f), *n * dim * sizeof **desc);
        }
    }
    satfeat_features_delete(f);
    return kp;
}

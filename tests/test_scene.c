/* test_scene.c - data/scene.png, the bundled test image: it loads as 640 x 480 gray, spans a wide
 * intensity range, and its summed area table has the checksum pinned in tests_io.cmake (computed
 * independently by tools/sat_checksum_reference.py), through the naive reference table and
 * through the library's CPU table at several thread counts. */
#include "test_util.h"

#include <stdlib.h>

/* 64-bit FNV-1a over 32-bit words fed as 4 little-endian bytes (as `satfeat sat` defines it). */
static uint64_t fnv1a_words(const uint32_t *w, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 4; b++) {
            h ^= (w[i] >> (8 * b)) & 0xffu;
            h *= 0x100000001b3ull;
        }
    return h;
}

static void test_scene_checksum(void **state)
{
    (void)state;
    char path[1024];
    test_path(path, sizeof path, SATFEAT_TEST_DATA_DIR, "scene.png");
    uint8_t *px = NULL;
    int w = 0, h = 0;
    assert_int_equal(satfeat_image_load_gray8(NULL, path, &px, &w, &h), SATFEAT_OK);
    assert_int_equal(w, 640);
    assert_int_equal(h, 480);
    int lo = 255, hi = 0;
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        if (px[i] < lo) lo = px[i];
        if (px[i] > hi) hi = px[i];
    }
    assert_true(lo <= 20 && hi >= 240);

    const size_t entries = ((size_t)w + 1) * ((size_t)h + 1);
    uint32_t *ref = malloc(entries * 4);
    uint32_t *table = malloc(entries * 4);
    assert_non_null(ref);
    assert_non_null(table);
    test_reference_sat_u8(px, (size_t)w, w, h, ref);
    assert_true(fnv1a_words(ref, entries) == SATFEAT_SCENE_U32_FNV);
    assert_int_equal(ref[entries - 1], SATFEAT_SCENE_PIXEL_SUM);

    satfeat_ctx *ctx = NULL;
    assert_int_equal(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0), SATFEAT_OK);
    for (int t = 1; t <= 3; t++) {
        assert_int_equal(satfeat_ctx_set_threads(ctx, t), SATFEAT_OK);
        assert_int_equal(satfeat_sat_u8(ctx, px, (size_t)w, w, h, table, ((size_t)w + 1) * 4,
                                        SATFEAT_SAT_CPU),
                         SATFEAT_OK);
        assert_true(fnv1a_words(table, entries) == SATFEAT_SCENE_U32_FNV);
    }
    satfeat_ctx_delete(ctx);
    free(ref);
    free(table);
    satfeat_free(px);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scene_checksum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

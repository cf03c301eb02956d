/* test_sat_seam.c - the SAT module's internal interface sat/sat.h (CUDA part): the work size for a
 * maximum frame covers every smaller table with every algorithm and tile height (host arithmetic,
 * checked against the per-launch requests of sat_layout.h), and, on a device, tables into
 * caller-owned work memory are bit-identical to the CPU reference while too little memory is
 * refused, and so are SKSS-LB's u8 tables in tiles of 256 rows. Built with CUDA only; the device
 * part is skipped without a CUDA device. */
#include "test_util.h"

#include "sat/sat.h"
#include "sat/sat_cuda.h"
#include "sat/sat_layout.h"

#include <stdlib.h>
#include <string.h>

/* The request of one launch, from sat_layout.h (what sat_cuda_host.c checks before a launch). */
static uint64_t request(int algo_2r1w, int w, int h, int tile)
{
    const uint64_t tiles =
        (uint64_t)satfeat_sat_tiles_x(w, 128) * (uint64_t)satfeat_sat_tiles_y(h, tile);
    return satfeat_sat_work_request(algo_2r1w ? satfeat_sat_2r1w_data_bytes(w, h, tile)
                                              : satfeat_sat_skss_pair_bytes(tiles, tile));
}

static void test_work_bytes_cover_smaller_tables(void **state)
{
    (void)state;
    static const int maxes[][2] = {{1, 1}, {129, 65}, {640, 480}, {1920, 1080}, {4097, 33}};
    for (size_t m = 0; m < sizeof maxes / sizeof maxes[0]; m++) {
        const int mw = maxes[m][0], mh = maxes[m][1];
        size_t bytes = 0;
        assert_int_equal(satfeat_sat_cuda_work_bytes(NULL, mw, mh, &bytes), SATFEAT_OK);
        size_t again = 0; /* a pure function of the size */
        assert_int_equal(satfeat_sat_cuda_work_bytes(NULL, mw, mh, &again), SATFEAT_OK);
        assert_int_equal(again, bytes);
        const int sw = mw > 40 ? mw / 40 : 1, sh = mh > 40 ? mh / 40 : 1;
        for (int w = 1; w <= mw; w += (w < 300 ? 1 : sw))
            for (int h = 1; h <= mh; h += (h < 300 ? 7 : sh))
                for (int tile = 32; tile <= 256; tile *= 2)
                    for (int a = 0; a < 2; a++)
                        if (satfeat_sat_rows_supported(!a, 0, tile))
                            assert_true(request(a, w, h, tile) <= bytes);
        /* and it is the largest request at the maximum size, not more */
        uint64_t most = 0;
        for (int tile = 32; tile <= 256; tile *= 2)
            for (int a = 0; a < 2; a++)
                if (satfeat_sat_rows_supported(!a, 0, tile) && request(a, mw, mh, tile) > most)
                    most = request(a, mw, mh, tile);
        assert_true((uint64_t)bytes == most);
    }
    /* the heights the kernels are built for */
    for (int rows = 16; rows <= 512; rows *= 2)
        for (int skss = 0; skss < 2; skss++)
            for (int f32 = 0; f32 < 2; f32++)
                assert_int_equal(satfeat_sat_rows_supported(skss, f32, rows),
                                 (rows >= 32 && rows <= 128) || (rows == 256 && skss && !f32));
    size_t bytes = 0; /* too many tiles */
    assert_int_equal(satfeat_sat_cuda_work_bytes(NULL, 1 << 30, 1 << 30, &bytes),
                     SATFEAT_ERR_OVERFLOW);
}

/* The tagged pairs of sat_layout.h against their definition: the tag in bits 33..63, the state in
 * bit 32, the value in bits 0..31; a zeroed word is no launch's (tags start at 1); tags wrap from
 * the last one to 1. */
static void test_pairs(void **state)
{
    (void)state;
    static const uint32_t tags[] = {1, 2, 12345, SATFEAT_SAT_PAIR_TAG_MAX - 1,
                                    SATFEAT_SAT_PAIR_TAG_MAX};
    static const uint32_t values[] = {0, 1, 0x80000000u, 0xffffffffu, 0x3f800000u};
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
            for (int g = 0; g < 2; g++) {
                const uint64_t p = satfeat_sat_pair(tags[i], g, values[v]);
                assert_true(p == (((uint64_t)tags[i] << 33) | ((uint64_t)g << 32) | values[v]));
                assert_true(satfeat_sat_pair_ready(p, tags[i]));
                assert_int_equal(satfeat_sat_pair_global(p), g);
                assert_true((uint32_t)p == values[v]);
                for (size_t j = 0; j < sizeof tags / sizeof tags[0]; j++)
                    if (j != i) assert_false(satfeat_sat_pair_ready(p, tags[j]));
                assert_false(satfeat_sat_pair_ready(0, tags[i]));
            }
    assert_int_equal(satfeat_sat_pair_next_tag(0), 1);
    assert_int_equal(satfeat_sat_pair_next_tag(1), 2);
    assert_int_equal(satfeat_sat_pair_next_tag(SATFEAT_SAT_PAIR_TAG_MAX - 1),
                     SATFEAT_SAT_PAIR_TAG_MAX);
    assert_int_equal(satfeat_sat_pair_next_tag(SATFEAT_SAT_PAIR_TAG_MAX), 1);
    /* the halves of a buffer: each at least the request's region, the pair half 256-aligned */
    for (uint64_t region = 0; region < 5000; region += 37) {
        const uint64_t bytes = satfeat_sat_work_request(region);
        for (uint64_t b = bytes; b < bytes + 600; b += 7) {
            assert_true(satfeat_sat_work_pair_bytes(b) >= region);
            assert_true(satfeat_sat_work_pair_bytes(b) % 256 == 0);
            assert_true(b - satfeat_sat_work_data_off(b) >= region);
        }
    }
}

#ifdef SATFEAT_TEST_SAT_SEAM_DEVICE
#include <cuda_runtime_api.h>
#define CUDA_OK(call) assert_int_equal((int)(call), (int)cudaSuccess)

/* One u8 table of w x h noise by `algo` on `s`, written with rows `dst_stride` bytes apart into a
 * poisoned table, checked row by row against the CPU reference: through the seam into `work`
 * (tile 0), or with the given tile height and the context's own work memory
 * (satfeat_sat_cuda_run). The image rows are `src_stride` bytes apart on the device. */
static void table_exact_tile(satfeat_ctx *ctx, void *work, size_t bytes, cudaStream_t s, int w,
                             int h, size_t src_stride, size_t dst_stride, satfeat_sat_algo algo,
                             int tile, test_rng *r)
{
    uint8_t *img = malloc((size_t)w * h), *d_src = NULL;
    uint32_t *ref = malloc(sizeof(uint32_t) * (size_t)(w + 1) * (h + 1));
    uint32_t *out = malloc(dst_stride * (h + 1)), *d_dst = NULL;
    assert_true(img && ref && out);
    CUDA_OK(cudaMalloc((void **)&d_src, src_stride * h));
    CUDA_OK(cudaMalloc((void **)&d_dst, dst_stride * (h + 1)));
    test_fill_u8(r, img, (size_t)w * h);
    test_reference_sat_u8(img, (size_t)w, w, h, ref);
    CUDA_OK(cudaMemcpy2DAsync(d_src, src_stride, img, (size_t)w, (size_t)w, (size_t)h,
                              cudaMemcpyHostToDevice, s));
    CUDA_OK(cudaMemsetAsync(d_dst, 0xAB, dst_stride * (h + 1), s));
    if (tile == 0)
        assert_int_equal(satfeat_sat_cuda_u8_work(ctx, d_src, src_stride, w, h, d_dst, dst_stride,
                                                  algo, work, bytes, s),
                         SATFEAT_OK);
    else
        assert_int_equal(satfeat_sat_cuda_run(ctx, 0, d_src, src_stride, w, h, d_dst, dst_stride,
                                              algo, tile, s),
                         SATFEAT_OK);
    CUDA_OK(cudaMemcpyAsync(out, d_dst, dst_stride * (h + 1), cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaStreamSynchronize(s));
    for (int y = 0; y <= h; y++)
        assert_memory_equal(out + (size_t)y * (dst_stride / 4), ref + (size_t)y * (w + 1),
                            sizeof(uint32_t) * (size_t)(w + 1));
    cudaFree(d_src);
    cudaFree(d_dst);
    free(img);
    free(ref);
    free(out);
}

/* table_exact_tile through the seam (AUTO's tile), image rows w bytes apart. */
static void table_exact(satfeat_ctx *ctx, void *work, size_t bytes, cudaStream_t s, int w, int h,
                        size_t dst_stride, satfeat_sat_algo algo, test_rng *r)
{
    table_exact_tile(ctx, work, bytes, s, w, h, (size_t)w, dst_stride, algo, 0, r);
}

/* SKSS-LB u8 with tiles of 256 rows (sat_tuning.h picks them for large tables): exact tables on
 * the rectangle-corner, windowed and walking grids, heights around multiples of 256, with 16-byte
 * aligned rows (the vector path) and odd strides; f32 refuses 256 rows. The two largest shapes
 * are left out under SATFEAT_TEST_SMALL (compute-sanitizer runs). */
static void test_tall_tiles(void **state)
{
    (void)state;
    satfeat_ctx *ctx = test_cuda_ctx_or_skip();
    const int small = getenv("SATFEAT_TEST_SMALL") != NULL;
    static const int sizes[][2] = {{1, 1},     {127, 255},  {128, 256},   {129, 257},
                                   {300, 511}, {700, 500},  {1000, 3000}, {4000, 8000},
                                   {8000, 8000}};
    cudaStream_t s;
    CUDA_OK(cudaStreamCreate(&s));
    test_rng r;
    test_rng_seed(&r, 256);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const int w = sizes[k][0], h = sizes[k][1];
        if (small && (size_t)w * h > 4000000u) continue;
        const size_t aligned_src = ((size_t)w + 15) & ~(size_t)15;
        const size_t aligned_dst = (((size_t)w + 1) * 4 + 15) & ~(size_t)15;
        table_exact_tile(ctx, NULL, 0, s, w, h, aligned_src, aligned_dst, SATFEAT_SAT_SKSS_LB, 256,
                         &r);
        table_exact_tile(ctx, NULL, 0, s, w, h, (size_t)w, ((size_t)w + 1) * 4 + 4,
                         SATFEAT_SAT_SKSS_LB, 256, &r);
    }
    float *d_f = NULL;
    CUDA_OK(cudaMalloc((void **)&d_f, 64 * 65 * 4));
    assert_int_equal(satfeat_sat_cuda_run(ctx, 1, d_f, 64 * 4, 64, 64, d_f, 65 * 4,
                                          SATFEAT_SAT_SKSS_LB, 256, s),
                     SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_cuda_run(ctx, 0, d_f, 64, 64, 64, d_f, 65 * 4,
                                          SATFEAT_SAT_2R1W, 256, s),
                     SATFEAT_ERR_ARG);
    cudaFree(d_f);
    CUDA_OK(cudaStreamDestroy(s));
    satfeat_ctx_delete(ctx);
}

static void test_tables_into_caller_memory(void **state)
{
    (void)state;
    satfeat_ctx *ctx = test_cuda_ctx_or_skip();
    const int mw = 700, mh = 500;
    size_t bytes = 0;
    assert_int_equal(satfeat_sat_cuda_work_bytes(ctx, mw, mh, &bytes), SATFEAT_OK);
    void *work = NULL;
    uint8_t *d_src = NULL;
    uint32_t *d_dst = NULL;
    const size_t dst_stride = ((size_t)mw + 1) * 4;
    CUDA_OK(cudaMalloc(&work, bytes));
    CUDA_OK(cudaMalloc((void **)&d_src, (size_t)mw * mh));
    CUDA_OK(cudaMalloc((void **)&d_dst, dst_stride * (mh + 1)));
    cudaStream_t s;
    CUDA_OK(cudaStreamCreate(&s));
    assert_int_equal(satfeat_sat_cuda_work_init(ctx, work, bytes, s), SATFEAT_OK);
    test_rng r;
    test_rng_seed(&r, 99);
    static const int sizes[][2] = {{700, 500}, {1, 1}, {129, 33}, {640, 480}, {333, 499}};
    static const satfeat_sat_algo algos[] = {SATFEAT_SAT_AUTO, SATFEAT_SAT_2R1W, SATFEAT_SAT_SKSS_LB};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int a = 0; a < 3; a++) /* one work memory, tables one after another on `s` */
            table_exact(ctx, work, bytes, s, sizes[k][0], sizes[k][1], dst_stride, algos[a], &r);
    /* too little work memory is refused before anything is queued */
    assert_int_equal(satfeat_sat_cuda_u8_work(ctx, d_src, (size_t)mw, mw, mh, d_dst, dst_stride,
                                              SATFEAT_SAT_SKSS_LB, work, 256, s),
                     SATFEAT_ERR_ARG);
    assert_int_equal(satfeat_sat_cuda_u8_work(ctx, d_src, (size_t)mw, mw, mh, d_dst, dst_stride,
                                              SATFEAT_SAT_2R1W, NULL, bytes, s),
                     SATFEAT_ERR_ARG);
    CUDA_OK(cudaStreamDestroy(s));
    cudaFree(work);
    cudaFree(d_src);
    cudaFree(d_dst);
    satfeat_ctx_delete(ctx);
}

/* The pair tags' wrap (sat_layout.h): a work buffer whose last launch had the tag before the last
 * and whose every pair carries tag 1 (as pairs left 2^31 - 1 launches earlier would). The launch
 * with the last tag must not take them for its own, and must leave the region cleared, so that
 * the next launch (tag 1 again) does not take them either: without the clear its tables would
 * read the planted values. One grid with the rectangle corner (700 x 500), one with the walk
 * (1 x 131200: 1026 tiles of one column). */
static void test_pair_tags_wrap(void **state)
{
    (void)state;
    satfeat_ctx *ctx = test_cuda_ctx_or_skip();
    static const int sizes[][2] = {{700, 500}, {1, 131200}};
    size_t bytes = 0;
    assert_int_equal(satfeat_sat_cuda_work_bytes(ctx, 700, 131200, &bytes), SATFEAT_OK);
    char *work = NULL;
    CUDA_OK(cudaMalloc((void **)&work, bytes));
    cudaStream_t s;
    CUDA_OK(cudaStreamCreate(&s));
    test_rng r;
    test_rng_seed(&r, 2024);
    const uint64_t pair_bytes = satfeat_sat_work_pair_bytes(bytes);
    uint64_t *stale = malloc(pair_bytes), *back = malloc(pair_bytes);
    assert_true(stale && back);
    for (uint64_t k = 0; k < pair_bytes / 8; k++)
        stale[k] = satfeat_sat_pair(1, 1, 0x12345u + (uint32_t)k);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        assert_int_equal(satfeat_sat_cuda_work_init(ctx, work, bytes, s), SATFEAT_OK);
        satfeat_sat_work_header hdr;
        CUDA_OK(cudaMemcpyAsync(&hdr, work, sizeof hdr, cudaMemcpyDeviceToHost, s));
        CUDA_OK(cudaStreamSynchronize(s));
        assert_true(hdr.pair_bytes == pair_bytes && hdr.ticket == 0 && hdr.finished == 0);
        hdr.ticket = (uint64_t)(SATFEAT_SAT_PAIR_TAG_MAX - 1u) << 32; /* the last launch's tag */
        CUDA_OK(cudaMemcpy(work, &hdr, sizeof hdr, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(work + SATFEAT_SAT_WORK_HEADER_BYTES, stale, pair_bytes,
                           cudaMemcpyHostToDevice));
        table_exact(ctx, work, bytes, s, sizes[k][0], sizes[k][1],
                    ((size_t)sizes[k][0] + 1) * 4, SATFEAT_SAT_SKSS_LB, &r); /* the last tag */
        CUDA_OK(cudaMemcpy(&hdr, work, sizeof hdr, cudaMemcpyDeviceToHost));
        assert_true(hdr.ticket == (uint64_t)SATFEAT_SAT_PAIR_TAG_MAX << 32 && hdr.finished == 0);
        CUDA_OK(cudaMemcpy(back, work + SATFEAT_SAT_WORK_HEADER_BYTES, pair_bytes,
                           cudaMemcpyDeviceToHost));
        for (uint64_t q = 0; q < pair_bytes / 8; q++) assert_true(back[q] == 0);
        table_exact(ctx, work, bytes, s, sizes[k][0], sizes[k][1],
                    ((size_t)sizes[k][0] + 1) * 4, SATFEAT_SAT_SKSS_LB, &r); /* tag 1 */
        table_exact(ctx, work, bytes, s, sizes[k][0], sizes[k][1],
                    ((size_t)sizes[k][0] + 1) * 4, SATFEAT_SAT_SKSS_LB, &r); /* tag 2 */
        CUDA_OK(cudaMemcpy(&hdr, work, sizeof hdr, cudaMemcpyDeviceToHost));
        assert_true(hdr.ticket == (uint64_t)2 << 32);
    }
    free(stale);
    free(back);
    CUDA_OK(cudaStreamDestroy(s));
    cudaFree(work);
    satfeat_ctx_delete(ctx);
}
#endif

int main(void)
{
#ifdef SATFEAT_TEST_SAT_SEAM_DEVICE
#ifdef SATFEAT_TEST_HAVE_CUDA
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_work_bytes_cover_smaller_tables),
                                       cmocka_unit_test(test_pairs),
                                       cmocka_unit_test(test_tables_into_caller_memory),
                                       cmocka_unit_test(test_tall_tiles),
                                       cmocka_unit_test(test_pair_tags_wrap)};
    return cmocka_run_group_tests(tests, NULL, NULL);
#else
    return test_main_without_cuda();
#endif
#else
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_work_bytes_cover_smaller_tables),
                                       cmocka_unit_test(test_pairs)};
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}

/* test_util.h - helpers shared by the cmocka tests: references, random data, GPU skipping. */
#ifndef SATFEAT_TEST_UTIL_H
#define SATFEAT_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka.h needs the four headers above first */
#include <cmocka.h>

#include "satfeat.h"

/** A small deterministic PRNG (xorshift64*) so failures reproduce. */
typedef struct test_rng {
    uint64_t s;
} test_rng;

void test_rng_seed(test_rng *r, uint64_t seed);
uint64_t test_rng_next(test_rng *r);
/** Uniform integer in [lo, hi]. */
int test_rng_range(test_rng *r, int lo, int hi);
/** Uniform float in [0, 1). */
float test_rng_unit(test_rng *r);

/** Fills `n` bytes with random values. */
void test_fill_u8(test_rng *r, uint8_t *p, size_t n);

/** Naive double-loop u32 SAT reference into a tight (w+1) x (h+1) table (wrap-around sums). */
void test_reference_sat_u8(const uint8_t *src, size_t src_stride, int w, int h, uint32_t *table);

/** Naive float64 SAT reference of a float image into a tight (w+1) x (h+1) table. */
void test_reference_sat_f64(const float *src, size_t src_stride, int w, int h, double *table);

/**
 * Creates a CUDA context for a GPU test, or prints "no CUDA device" and skips the test
 * (cmocka skip()) when the build or the machine has none. Never returns NULL.
 */
satfeat_ctx *test_cuda_ctx_or_skip(void);

/**
 * The whole main() of a GPU test program built without CUDA: runs one test that prints "no CUDA
 * device" and skips, so ctest lists the program as skipped.
 */
int test_main_without_cuda(void);

/** Joins a directory and a file name into a static-lifetime buffer of the caller. */
void test_path(char *buf, size_t size, const char *dir, const char *name);

/** Reads dir/name as 8-bit gray (satfeat_image_load_gray8), asserting success and the size
 *  width x height; free with satfeat_free. */
uint8_t *test_load_gray(const char *dir, const char *name, int width, int height);

/** Writes `n` bytes to a new file `path`; fails the test on any error. */
void test_write_file(const char *path, const void *data, size_t n);

/** Returns 1 when `path` exists and can be read. */
int test_file_exists(const char *path);

/** The exit status ctest reads as "Skipped" (SKIP_RETURN_CODE of tests that need shared data). */
#define TEST_EXIT_SKIPPED 77

/**
 * Returns 1 when SATFEAT_SHARED_DATA_DIR/`file` can be read; else prints "shared data not found:
 * PATH" and returns 0, and the caller's main() returns TEST_EXIT_SKIPPED.
 */
int test_shared_data_present(const char *file);

/**
 * satfeat_detect of a host frame (mask may be NULL), asserting SATFEAT_OK: returns a malloc'd
 * copy of the keypoints (never NULL) with their count in *n and, when `desc` is non-NULL, a
 * malloc'd copy of the descriptors in *desc (NULL when the detector has none).
 */
satfeat_keypoint *test_detect_copy(satfeat_detector *det, const uint8_t *img, size_t stride,
                                   int w, int h, const uint8_t *mask, size_t mask_stride,
                                   size_t *n, float **desc);

/** A host view with a mask (NULL: none) of the given strides. */
satfeat_image_view test_view(const uint8_t *img, size_t stride, int w, int h, const uint8_t *mask,
                             size_t mask_stride);

#endif

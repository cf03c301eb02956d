/* satfeat/sat.h - libsatfeat public API: summed area tables and O(1) box sums on them. Part of
 * satfeat.h, which includes every part; include satfeat.h. */
#ifndef SATFEAT_API_SAT_H
#define SATFEAT_API_SAT_H

#include "satfeat/core.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Summed area tables
 * ------------------------------------------------------------------------------------------- */

/** Which SAT algorithm runs. AUTO picks by backend and size from measured crossovers. */
typedef enum satfeat_sat_algo {
    SATFEAT_SAT_AUTO = 0,
    SATFEAT_SAT_CPU,     /**< threaded row-band CPU pass (the reference) */
    SATFEAT_SAT_2R1W,    /**< CUDA: three kernels, two reads and one write per element */
    SATFEAT_SAT_SKSS_LB  /**< CUDA: one kernel with look-back, one read and one write */
} satfeat_sat_algo;

/**
 * Computes the (w+1) x (h+1) summed area table of an 8-bit image held in host memory.
 * Sums wrap modulo 2^32, so a box sum taken from four entries is exact whenever the true box
 * sum fits in 32 bits, at any image size. `src_stride` >= width; `dst_stride` >= 4*(width+1)
 * and a multiple of 4. On a CUDA context with algo AUTO/2R1W/SKSS_LB the work runs on the GPU
 * (through context-owned device buffers) and the call returns when `dst` holds the result.
 */
SATFEAT_API satfeat_status satfeat_sat_u8(satfeat_ctx *ctx, const uint8_t *src, size_t src_stride,
                                          int width, int height, uint32_t *dst, size_t dst_stride,
                                          satfeat_sat_algo algo);

/**
 * Computes the (w+1) x (h+1) summed area table of a float image held in host memory.
 * `src_stride` >= 4*width and `dst_stride` >= 4*(width+1), both multiples of 4. The CPU path
 * accumulates in double and rounds each entry once; GPU paths accumulate in float with the error
 * bound documented in docs/PRECISION.md.
 */
SATFEAT_API satfeat_status satfeat_sat_f32(satfeat_ctx *ctx, const float *src, size_t src_stride,
                                           int width, int height, float *dst, size_t dst_stride,
                                           satfeat_sat_algo algo);

/**
 * Device-memory variant of satfeat_sat_u8 for a CUDA context: `d_src` and `d_dst` are device
 * pointers and the work is enqueued on `stream` (a cudaStream_t, NULL = legacy default stream);
 * the call returns without waiting. algo must be AUTO, 2R1W or SKSS_LB. Calls on one context
 * share its device work buffer (tickets, flags, carries): two calls of one context must not run
 * at the same time on different streams (order them, e.g. with an event, or use one context per
 * stream); calls queued on one stream are always safe. The call never synchronises the device
 * (its work buffer grows stream-ordered). Beside a persistent kernel of the caller, load the
 * library's kernels first (CUDA_MODULE_LOADING=EAGER, or one call before that kernel starts):
 * CUDA's lazy loading of a kernel waits for the device to be idle.
 */
SATFEAT_API satfeat_status satfeat_sat_u8_device(satfeat_ctx *ctx, const uint8_t *d_src,
                                                 size_t src_stride, int width, int height,
                                                 uint32_t *d_dst, size_t dst_stride,
                                                 satfeat_sat_algo algo, void *stream);

/** Device-memory variant of satfeat_sat_f32; see satfeat_sat_u8_device. */
SATFEAT_API satfeat_status satfeat_sat_f32_device(satfeat_ctx *ctx, const float *d_src,
                                                  size_t src_stride, int width, int height,
                                                  float *d_dst, size_t dst_stride,
                                                  satfeat_sat_algo algo, void *stream);

/* ---------------------------------------------------------------------------------------------
 * Box sums on a table (O(1) box filter)
 * ------------------------------------------------------------------------------------------- */

/** A view of a u32 summed area table of a width x height image ((width+1) x (height+1) entries). */
typedef struct satfeat_table_u32 {
    const uint32_t *data;
    size_t stride;   /**< bytes between rows of the table */
    int width;       /**< image width (the table has width+1 columns) */
    int height;      /**< image height (the table has height+1 rows) */
} satfeat_table_u32;

/** A view of an f32 summed area table; see satfeat_table_u32. */
typedef struct satfeat_table_f32 {
    const float *data;
    size_t stride;
    int width;
    int height;
} satfeat_table_f32;

/**
 * Sum of the pixels in the box [x, x+bw) x [y, y+bh) from a u32 table: exact whenever the true
 * sum fits in 32 bits. The box must lie inside the image and bw, bh >= 1.
 */
SATFEAT_API satfeat_status satfeat_box_sum_u32(const satfeat_table_u32 *table, int x, int y,
                                               int bw, int bh, uint32_t *sum);

/** Mean of the pixels in the box [x, x+bw) x [y, y+bh) from a u32 table (box inside the image). */
SATFEAT_API satfeat_status satfeat_box_mean_u32(const satfeat_table_u32 *table, int x, int y,
                                                int bw, int bh, double *mean);

/** Sum of the pixels in the box [x, x+bw) x [y, y+bh) from an f32 table (box inside the image). */
SATFEAT_API satfeat_status satfeat_box_sum_f32(const satfeat_table_f32 *table, int x, int y,
                                               int bw, int bh, float *sum);

/**
 * Box-mean filter of a whole image from its u32 table: dst(x, y) is the mean of the pixels of
 * the (2r+1) x (2r+1) window centred on (x, y), clipped to the image (so borders average over
 * fewer pixels). `dst` is a width x height float image with byte stride `dst_stride`.
 */
SATFEAT_API satfeat_status satfeat_box_filter_mean_u32(const satfeat_table_u32 *table, int radius,
                                                       float *dst, size_t dst_stride);

#ifdef __cplusplus
}
#endif

#endif

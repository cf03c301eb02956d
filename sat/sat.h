/* sat.h - the SAT module's whole internal interface for the other modules (detect/ and later stages).
 *
 * CUB style: the caller asks how much scratch (CPU) or work memory (CUDA) a table of a given
 * size needs, owns that memory, and passes it in (with its stream on CUDA). Nothing here keeps
 * state in the context, so two callers with their own memory never share anything. Arguments
 * are validated by the caller (sizes >= 1, strides large enough, pointers non-NULL); the CPU
 * part is the reference every other path matches. The public entry points in include/satfeat.h
 * (sat_dispatch.c) are built on the same functions with context-owned memory. */
#ifndef SATFEAT_SAT_H
#define SATFEAT_SAT_H

#include "satfeat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- CPU ------------------------------------------------------------------------------------ */

/** Bytes of scratch satfeat_sat_cpu_u8/f32 need for `width` and `threads`. */
size_t satfeat_sat_cpu_scratch_bytes(int width, int height, int threads, size_t elem_bytes);

/** Which row writer the u8 path uses: the best this CPU has, or the baseline (SSE2 on x86-64). */
typedef enum satfeat_sat_cpu_isa { SATFEAT_SAT_CPU_ISA_BEST = 0, SATFEAT_SAT_CPU_ISA_BASELINE } satfeat_sat_cpu_isa;

/**
 * u8 -> u32 table, sums modulo 2^32. Arguments are already validated; `scratch` holds
 * satfeat_sat_cpu_scratch_bytes(width, height, threads, 4) bytes. `isa` exists so tests can
 * check every row writer on a CPU that has the better ones.
 */
void satfeat_sat_cpu_u8(const uint8_t *src, size_t src_stride, int width, int height,
                        uint32_t *dst, size_t dst_stride, int threads, void *scratch,
                        satfeat_sat_cpu_isa isa);

/** f32 -> f32 table accumulated in double, each entry rounded once (scratch elem_bytes 8). */
void satfeat_sat_cpu_f32(const float *src, size_t src_stride, int width, int height, float *dst,
                         size_t dst_stride, int threads, void *scratch);


/* --- CUDA (built with CUDA only) -------------------------------------------------------------- */

/**
 * Bytes of device work memory that satfeat_sat_cuda_u8_work / _f32_work need for every table of
 * any image up to max_width x max_height, whatever algorithm and tile height are chosen.
 * SATFEAT_ERR_OVERFLOW when the size cannot be represented.
 */
satfeat_status satfeat_sat_cuda_work_bytes(satfeat_ctx *ctx, int max_width, int max_height,
                                           size_t *bytes);

/**
 * Prepares freshly allocated device work memory of `bytes` bytes (zeroes it and writes its
 * header) on `stream` (a cudaStream_t). Once, before its first use; it then serves any number of
 * tables. Must not be called during stream capture.
 */
satfeat_status satfeat_sat_cuda_work_init(satfeat_ctx *ctx, void *d_work, size_t bytes,
                                          void *stream);

/**
 * Device-memory u8 -> u32 table enqueued on `stream` with the caller's prepared work memory
 * (`d_work`, `work_bytes` >= the request for this size; SATFEAT_ERR_ARG otherwise). `algo` is
 * AUTO, 2R1W or SKSS_LB (AUTO: the measured choice of sat_tuning.h). Returns without waiting;
 * safe inside stream capture. Tables that use one work memory must run one after another (same
 * stream, or ordered by events): the memory holds the tickets, pairs and carries of a launch.
 */
satfeat_status satfeat_sat_cuda_u8_work(satfeat_ctx *ctx, const uint8_t *d_src, size_t src_stride,
                                        int width, int height, uint32_t *d_dst, size_t dst_stride,
                                        satfeat_sat_algo algo, void *d_work, size_t work_bytes,
                                        void *stream);

/** f32 -> f32 variant of satfeat_sat_cuda_u8_work. */
satfeat_status satfeat_sat_cuda_f32_work(satfeat_ctx *ctx, const float *d_src, size_t src_stride,
                                         int width, int height, float *d_dst, size_t dst_stride,
                                         satfeat_sat_algo algo, void *d_work, size_t work_bytes,
                                         void *stream);

#ifdef __cplusplus
}
#endif

#endif

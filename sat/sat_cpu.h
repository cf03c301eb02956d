/* sat_cpu.h - the threaded CPU summed area table (the reference every other path matches). */
#ifndef SATFEAT_SAT_CPU_H
#define SATFEAT_SAT_CPU_H

#include <stddef.h>
#include <stdint.h>

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

#endif

/* sat_cpu.h - the threaded CPU summed area table (the reference every other path matches). */
#ifndef SATFEAT_SAT_CPU_H
#define SATFEAT_SAT_CPU_H

#include <stddef.h>
#include <stdint.h>

/** Bytes of scratch satfeat_sat_cpu_u8/f32 need for `width` and `threads`. */
size_t satfeat_sat_cpu_scratch_bytes(int width, int height, int threads, size_t elem_bytes);

/**
 * u8 -> u32 table, sums modulo 2^32. Arguments are already validated; `scratch` holds
 * satfeat_sat_cpu_scratch_bytes(width, height, threads, 4) bytes.
 */
void satfeat_sat_cpu_u8(const uint8_t *src, size_t src_stride, int width, int height,
                        uint32_t *dst, size_t dst_stride, int threads, void *scratch);

/** f32 -> f32 table accumulated in double, each entry rounded once (scratch elem_bytes 8). */
void satfeat_sat_cpu_f32(const float *src, size_t src_stride, int width, int height, float *dst,
                         size_t dst_stride, int threads, void *scratch);

#endif

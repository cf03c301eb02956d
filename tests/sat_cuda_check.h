/* sat_cuda_check.h - helpers of the CUDA SAT tests: device buffers, poisoned outputs, comparison
 * with the CPU reference, the f32 error bound, a watchdog. Only built with CUDA. */
#ifndef SATFEAT_SAT_CUDA_CHECK_H
#define SATFEAT_SAT_CUDA_CHECK_H

#include "test_util.h"

#include <cuda_runtime_api.h>

/** 1 when SATFEAT_TEST_SMALL is set (sanitizer runs): tests then keep to small sizes. */
int sat_check_small(void);

/** Fails the test (and the process) when it has not finished within `seconds`. */
void sat_check_watchdog(unsigned seconds);

/** Asserts that a CUDA runtime call succeeded. */
#define CUDA_OK(call) assert_int_equal((int)(call), (int)cudaSuccess)

/** A random u8 image on host and device with padded strides, and room for its table. */
typedef struct sat_case_u8 {
    int w, h;
    size_t src_stride, dst_stride;  /* bytes, padded */
    uint8_t *src;                   /* host image */
    uint32_t *ref;                  /* CPU reference, tight (w+1) x (h+1) */
    uint32_t *out;                  /* host copy of the device table (dst_stride rows) */
    uint8_t *d_src;
    uint32_t *d_dst;
} sat_case_u8;

/** Makes a case: random pixels, reference computed on `cpu` (a CPU context). */
void sat_case_u8_new(sat_case_u8 *c, satfeat_ctx *cpu, test_rng *rng, int w, int h);
void sat_case_u8_free(sat_case_u8 *c);
/** Poisons the device table with 0xABABABAB (the next call must write every entry). */
void sat_case_u8_poison(sat_case_u8 *c, cudaStream_t s);
/** Downloads the table and asserts that it equals the reference bit for bit; `what` names it. */
void sat_case_u8_expect(sat_case_u8 *c, const char *what);

/** Runs `algo` on a case through the device entry point and checks it exactly. */
void sat_check_u8_device(satfeat_ctx *ctx, sat_case_u8 *c, satfeat_sat_algo algo);

/**
 * The documented f32 bound (docs/PRECISION.md) for a table of a w x h image with any band or tile height:
 * D = 2 * (ceil((w+1)/32) + ceil((h+1)/32)) + 336 additions on an input's path, giving
 * |err| <= gamma_D * sum|a| with gamma_D = D u / (1 - D u), u = 2^-24.
 */
double sat_check_f32_gamma(int w, int h);

#endif

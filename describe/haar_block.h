/* haar_block.h - the Haar pairs of many corners of one half side at once (CPU only): the same
 * exact integers as satfeat_haar_xy (haar.h) per corner, computed 8 corners at a time with
 * AVX2 gathers where the processor has them and the table is small enough for 32-bit indices.
 * Integer arithmetic modulo 2^32 gives the same bits in any order, so every path agrees. */
#ifndef SATFEAT_HAAR_BLOCK_H
#define SATFEAT_HAAR_BLOCK_H

#include <stddef.h>
#include <stdint.h>

/** Which code computes satfeat_haar_block_isa's pairs. */
typedef enum satfeat_haar_isa {
    SATFEAT_HAAR_ISA_BEST = 0,  /* AVX2 when the processor and the table allow it */
    SATFEAT_HAAR_ISA_SCALAR = 1 /* satfeat_haar_xy per corner */
} satfeat_haar_isa;

/**
 * 1 when satfeat_haar_block would use its AVX2 code for a width x height table of row stride
 * st: the processor has AVX2 and every entry's index fits an int32.
 */
int satfeat_haar_block_vector(size_t st, int width, int height);

/**
 * dx[k], dy[k] = satfeat_haar_xy(t, st, width, height, cx[k], cy[k], half) for k < n: the pairs
 * clipped to the image. Callers keep |cx|, |cy| <= 2^28 and 1 <= half <= 2^12 as haar.h asks.
 */
void satfeat_haar_block(const uint32_t *t, size_t st, int width, int height, const int32_t *cx,
                        const int32_t *cy, int n, int half, int32_t *dx, int32_t *dy);

/** satfeat_haar_block with the code chosen by `isa` (the tests compare the two). */
void satfeat_haar_block_isa(const uint32_t *t, size_t st, int width, int height,
                            const int32_t *cx, const int32_t *cy, int n, int half, int32_t *dx,
                            int32_t *dy, satfeat_haar_isa isa);

#endif

/* sat_byte_words.h - arithmetic on four 8-bit pixels packed in a 32-bit word (byte m holds the
 * pixel of column 4j + m of a lane's run of 16 columns), for SKSS-LB's u8 walk (sat_run_u8.cuh).
 * Plain C, so that the CPU tests check every function against a byte-by-byte reference; the
 * device builds use one instruction each (a funnel shift, a byte dot product). All sums are
 * exact: at most 16 bytes enter a word sum, at most 257 rows a 16-bit pair. */
#ifndef SATFEAT_SAT_BYTE_WORDS_H
#define SATFEAT_SAT_BYTE_WORDS_H

#include <stdint.h>

#include "src/hd.h"

/** The word one column to the right of `cur`: byte 0 is the last byte of `prev` (the word to
 * the left), bytes 1 - 3 are bytes 0 - 2 of `cur`. */
static inline SATFEAT_HD uint32_t satfeat_sat_word_shift(uint32_t cur, uint32_t prev)
{
#if defined(__CUDA_ARCH__)
    return __funnelshift_l(prev, cur, 8);
#else
    return (cur << 8) | (prev >> 24);
#endif
}

/** The dot-product mask that selects bytes 0 .. m of a word (m = 0 .. 3). */
static inline SATFEAT_HD uint32_t satfeat_sat_word_mask(int m)
{
    return 0x01010101u >> (8 * (3 - m));
}

/** acc plus the sum of bytes 0 .. m of w (m = 0 .. 3): the in-word prefix, modulo 2^32. */
static inline SATFEAT_HD uint32_t satfeat_sat_word_prefix(uint32_t w, int m, uint32_t acc)
{
#if defined(__CUDA_ARCH__)
    return __dp4a(w, satfeat_sat_word_mask(m), acc);
#else
    for (int i = 0; i <= m; i++) acc += (w >> (8 * i)) & 0xffu;
    return acc;
#endif
}

/** acc plus the sum of the four bytes of w. */
static inline SATFEAT_HD uint32_t satfeat_sat_word_sum(uint32_t w, uint32_t acc)
{
    return satfeat_sat_word_prefix(w, 3, acc);
}

/** Bytes 0 and 2 of w as the low and high 16-bit halves (column pairs that add without carries
 * from one half into the other while each half stays below 2^16). */
static inline SATFEAT_HD uint32_t satfeat_sat_word_even(uint32_t w)
{
    return w & 0x00ff00ffu;
}

/** Bytes 1 and 3 of w as the low and high 16-bit halves. */
static inline SATFEAT_HD uint32_t satfeat_sat_word_odd(uint32_t w)
{
    return (w >> 8) & 0x00ff00ffu;
}

/** Two values below 2^16 in one word (a in the low half): sums of packed pairs add both. */
static inline SATFEAT_HD uint32_t satfeat_sat_half_pack(uint32_t a, uint32_t b)
{
    return a | (b << 16);
}

/** The low (hi = 0) or high (hi = 1) 16-bit half of w. */
static inline SATFEAT_HD uint32_t satfeat_sat_half(uint32_t w, int hi)
{
    return hi ? w >> 16 : w & 0xffffu;
}

#endif

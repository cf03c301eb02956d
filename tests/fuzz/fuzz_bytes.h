/* fuzz_bytes.h - reading a fuzz input as a stream of parameters: each call takes the next bytes
 * and returns a value in a fixed range, or a default once the input is used up, so every input
 * (the empty one included) is a valid request. */
#ifndef SATFEAT_FUZZ_BYTES_H
#define SATFEAT_FUZZ_BYTES_H

#include <stddef.h>
#include <stdint.h>

/** The unread part of a fuzz input. */
typedef struct fuzz_bytes {
    const uint8_t *p;
    size_t left;
} fuzz_bytes;

/** The next byte, 0 when the input is used up. */
static inline uint8_t fuzz_u8(fuzz_bytes *b)
{
    if (!b->left) return 0;
    b->left--;
    return *b->p++;
}

/** The next 16-bit value (little-endian), 0 when used up. */
static inline unsigned fuzz_u16(fuzz_bytes *b)
{
    const unsigned lo = fuzz_u8(b);
    return lo | (unsigned)fuzz_u8(b) << 8;
}

/** A value in [0, n) from the next byte (n <= 256). */
static inline int fuzz_below(fuzz_bytes *b, int n)
{
    return (int)(fuzz_u8(b) % (unsigned)n);
}

#endif

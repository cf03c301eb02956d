/* png_testutil.h - hand-made PNG files for the hostile-input tests: chunks with correct CRCs
 * around whatever IHDR and IDAT a test wants, however implausible. */
#ifndef SATFEAT_PNG_TESTUTIL_H
#define SATFEAT_PNG_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>

/** Appends a chunk (length, type, `n` data bytes, CRC) to `f`; fails the test on a write error. */
void test_png_put_chunk(FILE *f, const char *type, const uint8_t *data, uint32_t n);

/**
 * Writes the signature, an IHDR of w x h with `depth` and `color_type`, one IDAT chunk holding
 * `idat` (NULL: `idat_len` zero bytes, not valid zlib data) and IEND.
 */
void test_png_write(const char *path, uint32_t w, uint32_t h, int depth, int color_type,
                    const uint8_t *idat, uint32_t idat_len);

#endif

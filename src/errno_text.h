/* errno_text.h - the text of an errno value, thread-safe (strerror_r, not strerror). */
#ifndef SATFEAT_ERRNO_TEXT_H
#define SATFEAT_ERRNO_TEXT_H

#include <stddef.h>

/** Size of a buffer that holds any errno text satfeat_errno_text writes. */
#define SATFEAT_ERRNO_TEXT_MAX 128

/**
 * Returns the message of errno value `err` ("unknown error" for 0 or an unknown value) through
 * the reentrant strerror_r, whichever of the XSI (int) and GNU (char *) forms the C library
 * declares. The result is `buf` (of `size` bytes) or a constant string; never NULL.
 */
const char *satfeat_errno_text(int err, char *buf, size_t size);

#endif

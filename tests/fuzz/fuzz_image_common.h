/* fuzz_image_common.h - what every image-reader harness checks on one file: the three read
 * calls agree with each other, sizes stay within the limits, errors leave outputs untouched. */
#ifndef SATFEAT_FUZZ_IMAGE_COMMON_H
#define SATFEAT_FUZZ_IMAGE_COMMON_H

#include "satfeat.h"

/** Memory limit of the harness contexts: keeps large claimed images from slowing the fuzzer. */
#define FUZZ_MEMORY_LIMIT ((size_t)64 << 20)

/** Reads `path` with read_info, load_gray8 and read_gray8 and aborts on any inconsistency. */
void fuzz_check_image_file(const char *path);

#endif

/* fuzz_pnm.c - libFuzzer harness of the PGM/PPM reader: inputs that do not start with a P2, P3,
 * P5 or P6 magic get one chosen by their first byte, then fuzz_check_image_file runs. */
#include "fuzz_file.h"
#include "fuzz_image_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char magic[4][3] = {"P2\n", "P3\n", "P5\n", "P6\n"};
    const int has_magic = size >= 3 && data[0] == 'P';
    const char *prefix = has_magic || size == 0 ? NULL : magic[data[0] % 4];
    const char *path = prefix ? fuzz_file_write("pnm", prefix, 3, data + 1, size - 1)
                              : fuzz_file_write("pnm", NULL, 0, data, size);
    if (path) fuzz_check_image_file(path);
    return 0;
}

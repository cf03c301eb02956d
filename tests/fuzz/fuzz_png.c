/* fuzz_png.c - libFuzzer harness of the PNG reader: the input follows the PNG signature (so
 * every input reaches the PNG path), then the file goes through fuzz_check_image_file. */
#include "fuzz_file.h"
#include "fuzz_image_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char sig[8] = {(char)0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    const int has_sig = size >= 8 && data[0] == 0x89 && data[1] == 'P' && data[2] == 'N';
    const char *path = fuzz_file_write("png", sig, has_sig ? 0 : sizeof sig, data, size);
    if (path) fuzz_check_image_file(path);
    return 0;
}

/* fuzz_jpeg.c - libFuzzer harness of the JPEG reader: the input follows the SOI and the first
 * marker byte (FF D8 FF, so every input reaches the JPEG path), then the file goes through
 * fuzz_check_image_file. Seeds: tests/fuzz/corpus/jpeg (tools/gen_jpeg_corpus.c). */
#include "fuzz_file.h"
#include "fuzz_image_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char soi[3] = {(char)0xff, (char)0xd8, (char)0xff};
    const int has_soi = size >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff;
    const char *path = fuzz_file_write("jpeg", soi, has_soi ? 0 : sizeof soi, data, size);
    if (path) fuzz_check_image_file(path);
    return 0;
}

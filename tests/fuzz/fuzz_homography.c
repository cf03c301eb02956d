/* fuzz_homography.c - libFuzzer harness of the homography reader (satfeat_homography_read) and
 * the CLI's homography check (cli/homography_check.c, compiled in): whatever the file holds,
 * the reader either fails with a message or gives nine finite numbers, and the check answers
 * without reading outside them. */
#include "fuzz_file.h"
#include "homography_check.h"

#include <math.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static satfeat_ctx *ctx;
    if (!ctx && satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1) != SATFEAT_OK) abort();
    const char *path = fuzz_file_write("homography", NULL, 0, data, size);
    if (!path) return 0;
    double h[9];
    const satfeat_status st = satfeat_homography_read(ctx, path, h);
    if (st != SATFEAT_OK) {
        if (!satfeat_ctx_last_error(ctx)[0]) abort(); /* a failure always says why */
        return 0;
    }
    for (int k = 0; k < 9; k++)
        if (!isfinite(h[k])) abort();
    const char *why = NULL;
    const int sizes[3][2] = {{1, 1}, {640, 480}, {32768, 32768}};
    for (int s = 0; s < 3; s++) {
        const int ok = cli_homography_check(h, sizes[s][0], sizes[s][1], &why);
        if (!ok && !why) abort();
    }
    return 0;
}

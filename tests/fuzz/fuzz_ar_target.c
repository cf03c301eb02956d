/* fuzz_ar_target.c - libFuzzer harness of the AR target file loader (satfeat_ar_target_load):
 * whatever the file holds, the loader either fails with a message or gives a target whose
 * facts are in range, which saves again to a file that loads again. */
#include "fuzz_file.h"

#include "satfeat.h"

#include <math.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static satfeat_ctx *ctx;
    if (!ctx && satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1) != SATFEAT_OK) abort();
    const char *path = fuzz_file_write("ar_target", NULL, 0, data, size);
    if (!path) return 0;
    satfeat_ar_target *t = NULL;
    const satfeat_status st = satfeat_ar_target_load(ctx, path, &t);
    if (st != SATFEAT_OK) {
        if (t || !satfeat_ctx_last_error(ctx)[0]) abort(); /* a failure always says why */
        return 0;
    }
    satfeat_ar_target_info info;
    if (satfeat_ar_target_get_info(t, &info) != SATFEAT_OK) abort();
    if (info.width < 1 || info.height < 1 || !(info.width_m > 0) || !isfinite(info.width_m) ||
        info.features < 1 || (info.descriptor_dim != 64 && info.descriptor_dim != 128))
        abort();
    /* what loads saves and loads again */
    if (satfeat_ar_target_save(ctx, t, path) != SATFEAT_OK) abort();
    satfeat_ar_target *u = NULL;
    if (satfeat_ar_target_load(ctx, path, &u) != SATFEAT_OK) abort();
    satfeat_ar_target_delete(u);
    satfeat_ar_target_delete(t);
    return 0;
}

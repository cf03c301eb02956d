/* fuzz_file.c - one scratch file per harness process for the inputs of the image readers. */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include "fuzz_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *fuzz_file_write(const char *harness, const char *prefix, size_t prefix_len,
                            const uint8_t *data, size_t size)
{
    static char path[1024];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/satfeat_%s_%ld.bin", dir && *dir ? dir : "/tmp", harness,
             (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    int ok = (prefix_len == 0 || fwrite(prefix, 1, prefix_len, f) == prefix_len) &&
             (size == 0 || fwrite(data, 1, size, f) == size);
    if (fclose(f) != 0) ok = 0;
    return ok ? path : NULL;
}

/* cli_version.c - `satfeat --version`: the library version, whether the CUDA backend is built
 * in, the CUDA devices this process finds, and whether video input (FFmpeg) is built in. */
#include "commands.h"

#include <stdio.h>

#ifdef SATFEAT_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static void print_cuda(FILE *out)
{
    fprintf(out, "satfeat %s (CUDA backend: %s", satfeat_version_string(),
            satfeat_has_cuda_build() ? "built" : "not built");
    if (!satfeat_has_cuda_build()) {
        fprintf(out, ")\n");
        return;
    }
    const int n = satfeat_cuda_device_count();
    fprintf(out, "; %d CUDA device%s found)\n", n, n == 1 ? "" : "s");
#ifdef SATFEAT_HAVE_CUDA
    for (int d = 0; d < n; d++) {
        struct cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, d) == cudaSuccess)
            fprintf(out, "device %d: %s, compute capability %d.%d, %.1f GiB\n", d, prop.name,
                    prop.major, prop.minor, (double)prop.totalGlobalMem / (1024.0 * 1024 * 1024));
    }
#endif
}

void cli_print_version(FILE *out)
{
    print_cuda(out);
    fprintf(out, "video input (FFmpeg): %s\n", satfeat_has_video_build() ? "built" : "not built");
}

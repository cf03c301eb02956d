/* bench_empty_kernel.cu - the kernel of `satfeat bench sat`'s "launch" row: one block that does
 * nothing, so its event-timed cost is that of launching a kernel on the stream (the SAT of small
 * images is held to the copy floor plus one such launch). */
#include <cuda_runtime.h>

/** Does nothing (one block of one warp). */
__global__ void cli_empty_kernel(void) {}

/** Enqueues the empty kernel on stream s; returns the launch's error. */
extern "C" cudaError_t cli_bench_empty_launch(cudaStream_t s)
{
    cli_empty_kernel<<<1, 32, 0, s>>>();
    return cudaGetLastError();
}

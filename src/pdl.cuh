/* pdl.cuh - programmatic dependent launch for the CUDA detector's chain of kernels: each kernel
 * of a frame is launched with satfeat_pdl_launch, so that the GPU may schedule its blocks while
 * the kernel before it in the stream finishes (instead of after a full drain and a new launch),
 * and starts with satfeat_pdl_enter, which waits for that kernel's completion and memory before
 * anything else. On GPUs before sm_90, and after anything that is not such a kernel (a copy, a
 * memset, an event), the launch is an ordinary one and the wait returns at once. */
#ifndef SATFEAT_PDL_CUH
#define SATFEAT_PDL_CUH

#include <cuda_runtime.h>

/**
 * The first statement of a kernel launched with satfeat_pdl_launch: waits until the previous
 * kernel in the stream has completed and its writes are visible, so nothing below may run
 * early. A kernel does not signal its dependents itself: the next kernel may launch as this
 * one's blocks finish (signalling at the start measured slower at 1080p and 4K: the next
 * kernel's blocks then sat in the multiprocessors' slots for the whole kernel).
 */
__device__ __forceinline__ void satfeat_pdl_enter(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/** Launches `kernel` like kernel<<<grid, block, smem, stream>>>(args...), allowing it to be
 *  scheduled before the previous kernel in `stream` completes (the kernel must begin with
 *  satfeat_pdl_enter). Returns the launch's error. */
template <typename... Params, typename... Args>
static cudaError_t satfeat_pdl_launch(void (*kernel)(Params...), dim3 grid, dim3 block,
                                      size_t smem, cudaStream_t stream, Args... args)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, kernel, static_cast<Params>(args)...);
}

#endif

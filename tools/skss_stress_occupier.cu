// skss_stress_occupier.cu - the kernel that keeps most SMs busy while tools/skss_stress.c runs
// SAT launches beside it: one block per SM (it asks for the largest shared memory a block may
// have), spinning until the host raises a flag in mapped memory.
#include "skss_stress_occupier.h"

#include <cuda_runtime.h>

/** Spins until *stop becomes non-zero; holds its SM's shared memory meanwhile. */
__global__ void skss_occupy_kernel(const volatile int *stop, unsigned long long *spins)
{
    // the dynamic shared memory of the launch is reserved whether or not it is touched
    unsigned long long n = 0;
    while (*stop == 0) {
        __nanosleep(1000);
        n++;
    }
    if (threadIdx.x == 0) atomicAdd(spins, n);
}

extern "C" int skss_stress_occupy_launch(int blocks, const int *d_stop,
                                         unsigned long long *d_spins, void *stream)
{
    int device = 0, smem = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(skss_occupy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (e != cudaSuccess) return (int)e;
    skss_occupy_kernel<<<blocks, 1024, (size_t)smem, (cudaStream_t)stream>>>(d_stop, d_spins);
    return (int)cudaPeekAtLastError();
}

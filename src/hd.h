/* hd.h - SATFEAT_HD: marks inline functions that both the C host code and CUDA device code
 * compile from one source (__host__ __device__ under nvcc, nothing in C). */
#ifndef SATFEAT_HD_H
#define SATFEAT_HD_H
#if defined(__CUDACC__)
#define SATFEAT_HD __host__ __device__
#else
#define SATFEAT_HD
#endif
#endif

/* fh_hd.h - the qualifier that makes the Fast-Hessian per-sample math callable from C and CUDA.
 *
 * Every function in fh_geometry.h, fh_response.h and fh_extremum.h is `static inline SATFEAT_HD`:
 * compiled by the host C compiler for the CPU detector and by nvcc (as __host__ __device__) for
 * the CUDA detector, so both run the very same source. See docs/DETECTOR.md for the rules that
 * make the two bit-identical (no fma contraction, no libm transcendental, fixed operation order). */
#ifndef SATFEAT_FH_HD_H
#define SATFEAT_FH_HD_H

#if defined(__CUDACC__)
#define SATFEAT_HD __host__ __device__
#else
#define SATFEAT_HD
#endif

#endif

/* linalg_null_warp.cuh - satfeat_lin_null_vector (linalg_null.h) for the homography's 8 x 9 DLT
 * system, by one warp: lane j < 9 holds column j in registers, so the pivot search, the swaps and
 * the elimination run across lanes instead of through one thread's local memory (the one-thread
 * solver took 44 us a batch on an H200, latency-bound). Every entry gets the same operations in
 * the same order as in the one-thread version, and the pivot rule is the same (the largest
 * remaining entry, the first in row-major order on ties), so the result is the same bits. */
#ifndef SATFEAT_LINALG_NULL_WARP_CUH
#define SATFEAT_LINALG_NULL_WARP_CUH

#include "track/linalg_null.h"

#define SATFEAT_NULL_WARP_ROWS 8
#define SATFEAT_NULL_WARP_COLS 9

/* Value of register m[i] for a row index i known only at run time (static indexing keeps m in
 * registers). */
__device__ static inline double satfeat_null_warp_pick(const double m[SATFEAT_NULL_WARP_ROWS], int i)
{
    double r = 0.0;
#pragma unroll
    for (int k = 0; k < SATFEAT_NULL_WARP_ROWS; k++)
        if (k == i) r = m[k];
    return r;
}

/**
 * Called by all 32 lanes of a warp with the same `a` (the 8 x 9 system, row-major, entry (r, c)
 * given by entry(r, c)): writes the unit null vector to v (every lane) and returns 0, or returns
 * -1 (every lane) when the rank is below 8, exactly as satfeat_lin_null_vector(a, 8, 9, rel_tol).
 */
template <typename Entry>
__device__ static int satfeat_lin_null_vector_8x9_warp(Entry entry, double rel_tol, double v[9])
{
    const unsigned full = 0xffffffffu;
    const int lane = (int)(threadIdx.x & 31u);
    const bool column = lane < SATFEAT_NULL_WARP_COLS;
    double m[SATFEAT_NULL_WARP_ROWS];
    int perm = lane;
    double biggest = 0.0;
#pragma unroll
    for (int i = 0; i < SATFEAT_NULL_WARP_ROWS; i++) {
        m[i] = column ? entry(i, lane) : 0.0;
        if (fabs(m[i]) > biggest) biggest = fabs(m[i]);
    }
    for (int s = 16; s > 0; s >>= 1) {
        const double o = __shfl_xor_sync(full, biggest, s);
        if (o > biggest) biggest = o;
    }
    if (!(biggest > 0.0)) return -1;
    const double tol = rel_tol * biggest;
    for (int k = 0; k < SATFEAT_NULL_WARP_COLS - 1; k++) {
        /* the lane's candidate: its column's largest entry in rows >= k, the first row on ties */
        double best = -1.0;
        int br = k, bc = lane;
#pragma unroll
        for (int i = 0; i < SATFEAT_NULL_WARP_ROWS; i++)
            if (i >= k && column && lane >= k && fabs(m[i]) > best) {
                best = fabs(m[i]);
                br = i;
            }
        /* the warp's: the largest, then the smaller row, then the smaller column (row-major) */
        for (int s = 16; s > 0; s >>= 1) {
            const double ob = __shfl_xor_sync(full, best, s);
            const int orow = __shfl_xor_sync(full, br, s), ocol = __shfl_xor_sync(full, bc, s);
            if (ob > best || (ob == best && (orow < br || (orow == br && ocol < bc)))) {
                best = ob;
                br = orow;
                bc = ocol;
            }
        }
        if (!(best > tol)) return -1;
        if (br != k) { /* rows k and br, in every column */
            const double rk = satfeat_null_warp_pick(m, k), rp = satfeat_null_warp_pick(m, br);
#pragma unroll
            for (int i = 0; i < SATFEAT_NULL_WARP_ROWS; i++) {
                if (i == k) m[i] = rp;
                if (i == br) m[i] = rk;
            }
        }
        if (bc != k) { /* columns k and bc: their lanes trade registers */
            const int from = lane == k ? bc : lane == bc ? k : lane;
#pragma unroll
            for (int i = 0; i < SATFEAT_NULL_WARP_ROWS; i++) m[i] = __shfl_sync(full, m[i], from);
            perm = __shfl_sync(full, perm, from);
        }
        /* Gauss-Jordan: clear column k in every other row; lane j >= k updates entry (i, j) */
        double ck[SATFEAT_NULL_WARP_ROWS];
#pragma unroll
        for (int i = 0; i < SATFEAT_NULL_WARP_ROWS; i++) ck[i] = __shfl_sync(full, m[i], k);
        const double pivot = satfeat_null_warp_pick(ck, k);
        const double mkj = satfeat_null_warp_pick(m, k);
#pragma unroll
        for (int i = 0; i < SATFEAT_NULL_WARP_ROWS; i++) {
            if (i == k || ck[i] == 0.0) continue;
            const double f = ck[i] / pivot;
            if (column && lane >= k) m[i] -= f * mkj;
            if (lane == k) m[i] = 0.0;
        }
    }
    double mkk[SATFEAT_NULL_WARP_ROWS], mkf[SATFEAT_NULL_WARP_ROWS];
    int perms[SATFEAT_NULL_WARP_COLS];
#pragma unroll
    for (int k = 0; k < SATFEAT_NULL_WARP_ROWS; k++) {
        mkk[k] = __shfl_sync(full, m[k], k);
        mkf[k] = __shfl_sync(full, m[k], SATFEAT_NULL_WARP_COLS - 1);
    }
#pragma unroll
    for (int j = 0; j < SATFEAT_NULL_WARP_COLS; j++) perms[j] = __shfl_sync(full, perm, j);
    satfeat_lin_null_finish(mkk, mkf, perms, SATFEAT_NULL_WARP_COLS, v);
    return 0;
}

#endif

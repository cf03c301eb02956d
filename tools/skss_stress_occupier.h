/* skss_stress_occupier.h - launcher of the SM-occupying kernel of tools/skss_stress.c. */
#ifndef SKSS_STRESS_OCCUPIER_H
#define SKSS_STRESS_OCCUPIER_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Launches `blocks` blocks of 1024 threads, each with the largest opt-in shared memory (so one
 * block fills one SM), on `stream` (a cudaStream_t); they spin until *d_stop (device view of
 * mapped host memory) is non-zero and then add their spin counts to *d_spins. Returns a
 * cudaError_t as int (0 = launched).
 */
int skss_stress_occupy_launch(int blocks, const int *d_stop, unsigned long long *d_spins,
                              void *stream);

#ifdef __cplusplus
}
#endif

#endif

/* describe_weights.h - the sampling geometry of the orientation and the SURF descriptor and
 * their Gaussian weights, computed once on the host (libm exp) into a plain struct that the CPU
 * and the CUDA kernels read as is, so both use the very same numbers. */
#ifndef SATFEAT_DESCRIBE_WEIGHTS_H
#define SATFEAT_DESCRIBE_WEIGHTS_H

#include <stdint.h>

/** Orientation samples: integer grid offsets (i, j) with i^2 + j^2 < 36 (radius 6 in units of s). */
#define SATFEAT_ORI_SAMPLES 109
/** Angular bins of the orientation histogram (5 degrees each). */
#define SATFEAT_ORI_BINS 72
/** Bins per sliding window: pi/3 = 12 bins of 5 degrees. */
#define SATFEAT_ORI_WINDOW 12
/** Descriptor samples per side of the 20s window (one every s), 4 subregions of 5. */
#define SATFEAT_DESC_GRID 20
#define SATFEAT_DESC_SUB 5
#define SATFEAT_DESC_SAMPLES (SATFEAT_DESC_GRID * SATFEAT_DESC_GRID)

/**
 * Weights and sample offsets, POD (copy it to the device with a plain memcpy).
 *  - ori_i[k], ori_j[k]: offsets of orientation sample k in units of s, ordered by j then i
 *    (row-major); ori_w[k] = exp(-(i^2 + j^2) / 8), the Gaussian of sigma 2s, 1 at the centre.
 *  - desc_w[r * 20 + c]: weight of descriptor sample (column c, row r) at offset
 *    ((c - 9.5) s, (r - 9.5) s) from the keypoint: exp(-((c-9.5)^2 + (r-9.5)^2) / (2 * 3.3^2)),
 *    the Gaussian of sigma 3.3s centred on the keypoint (not normalised: the descriptor is).
 */
typedef struct satfeat_describe_weights {
    double ori_w[SATFEAT_ORI_SAMPLES];
    int32_t ori_i[SATFEAT_ORI_SAMPLES];
    int32_t ori_j[SATFEAT_ORI_SAMPLES];
    double desc_w[SATFEAT_DESC_SAMPLES];
} satfeat_describe_weights;

/** Fills `w` (never fails; the sample count is a compile-time constant checked by the tests). */
void satfeat_describe_weights_init(satfeat_describe_weights *w);

#endif

/* describe_weights.h - the sampling geometry of the orientation and the (modified) SURF
 * descriptor and their Gaussian weights, computed once on the host (libm exp) into a plain struct
 * that the CPU and the CUDA kernels read as is, so both use the very same numbers. */
#ifndef SATFEAT_DESCRIBE_WEIGHTS_H
#define SATFEAT_DESCRIBE_WEIGHTS_H

#include <stdint.h>

/** Orientation samples of the Haar filter: offsets (i, j) in units of s/2 with i^2 + j^2 < 144
 *  (radius 6 in units of s, a grid of step s/2); the most any filter takes (the arrays' size). */
#define SATFEAT_ORI_SAMPLES 437
/** Orientation samples of the Scharr filter: the even offsets of the Haar set (a grid of step s
 *  within the same disc; orientation.h says why the coarser grid suffices). */
#define SATFEAT_ORI_SAMPLES_SCHARR 109
/** The orientation's derivative filter (satfeat_describe_weights.ori_filter). */
#define SATFEAT_ORI_FILTER_SCHARR 0
#define SATFEAT_ORI_FILTER_HAAR 1
/** Radius of the orientation disc in units of s/2 (samples have i^2 + j^2 < this squared). */
#define SATFEAT_ORI_RADIUS 12
/** The orientation weights are multiples of 2^-SATFEAT_ORI_WEIGHT_BITS (see the struct below). */
#define SATFEAT_ORI_WEIGHT_BITS 14
/** Angular bins of the orientation histogram (5 degrees each). */
#define SATFEAT_ORI_BINS 72
/** Bins per sliding window: pi/3 = 12 bins of 5 degrees. */
#define SATFEAT_ORI_WINDOW 12
/** Descriptor samples per side of the 24s window (one every s). */
#define SATFEAT_DESC_GRID 24
/** Samples per side of one of the 4 x 4 subregions (9s: neighbours overlap by 4 samples). */
#define SATFEAT_DESC_SUB 9
/** Samples between the first rows (columns) of neighbouring subregions. */
#define SATFEAT_DESC_STEP 5
#define SATFEAT_DESC_SAMPLES (SATFEAT_DESC_GRID * SATFEAT_DESC_GRID)
#define SATFEAT_DESC_SUB_SAMPLES (SATFEAT_DESC_SUB * SATFEAT_DESC_SUB)

/**
 * Weights and sample offsets, POD (copy it to the device with a plain memcpy).
 *  - ori_n: the orientation samples in use, SATFEAT_ORI_SAMPLES (437, the Haar filter) or
 *    SATFEAT_ORI_SAMPLES_SCHARR (109, the Scharr filter: only even offsets); entries past ori_n
 *    are zero.
 *  - ori_i[k], ori_j[k]: offsets of orientation sample k < ori_n in units of s/2, ordered by j
 *    then i (row-major); ori_w[k] = exp(-(i^2 + j^2) / 50), the Gaussian of sigma 2.5s (i/2 and j/2
 *    in units of s), 1 at the centre, rounded to the nearest multiple of 2^-14
 *    (SATFEAT_ORI_WEIGHT_BITS): then every weighted response and every sum of them is an exact
 *    double (orientation.h), so the orientation does not depend on the order of its sums.
 *  - sub_w[r * 9 + c]: weight of the sample in row r, column c of a 9 x 9 subregion:
 *    exp(-((c-4)^2 + (r-4)^2) / (2 * 2.5^2)), the Gaussian of sigma 2.5s centred on the
 *    subregion (every subregion uses the same table).
 *  - ori_refine: 1 (the default) refines the orientation by the window centred on the best
 *    window's angle (satfeat_ori_refine in orientation.h), 0 keeps the best window's angle.
 *  - desc_haar: the side of the descriptor's Haar filters in units of s (satfeat_desc_prepare):
 *    4 (the detector's default, docs/EVALUATION.md), 3 (SURF's; AR and the tracker), 2.
 *  - ori_haar: the same for the orientation's Haar filters (satfeat_ori_prepare): 4 (the
 *    default), 3 (SURF's; AR and the tracker), 2; unused by the Scharr filter.
 *  - ori_filter: SATFEAT_ORI_FILTER_SCHARR (the default: Scharr's weights on a 3 x 3 grid of box
 *    sums, orientation.h) or SATFEAT_ORI_FILTER_HAAR (one Haar pair, SURF's; AR and the
 *    tracker); set with satfeat_describe_weights_orientation, which also fills the samples.
 *  - reg_w[q]: weight of subregion q = 4 * qr + qc: exp(-((qc-1.5)^2 + (qr-1.5)^2) / (2 * 1.5^2)),
 *    the Gaussian of sigma 1.5 subregions centred on the window.
 * None is normalised: the descriptor is.
 */
typedef struct satfeat_describe_weights {
    double ori_w[SATFEAT_ORI_SAMPLES];
    int32_t ori_i[SATFEAT_ORI_SAMPLES];
    int32_t ori_j[SATFEAT_ORI_SAMPLES];
    double sub_w[SATFEAT_DESC_SUB_SAMPLES];
    double reg_w[16];
    int32_t ori_refine; /* 1: the best window's angle is refined (orientation.h) */
    int32_t desc_haar;  /* side of the descriptor's Haar samples in units of s, 2..4
                           (descriptor.h; 4 the default, 3 SURF's) */
    int32_t ori_haar;   /* side of the orientation's Haar samples in units of s, 2..4
                           (orientation.h; 4 the default, 3 before) */
    int32_t ori_filter; /* SATFEAT_ORI_FILTER_SCHARR (the default) or _HAAR */
    int32_t ori_n;      /* orientation samples in use: 109 (Scharr) or 437 (Haar) */
} satfeat_describe_weights;

/** Fills `w` with the defaults: the Scharr orientation filter, Haar sides 4s, refinement on
 *  (never fails; the sample counts are compile-time constants checked by the tests). */
void satfeat_describe_weights_init(satfeat_describe_weights *w);

/** Selects the orientation's filter (SATFEAT_ORI_FILTER_HAAR or _SCHARR; any other value acts as
 *  _SCHARR) and fills the orientation samples and weights for it (ori_n, ori_i, ori_j, ori_w). */
void satfeat_describe_weights_orientation(satfeat_describe_weights *w, int filter);

#endif

/* satfeat/features.h - libsatfeat public API: image views (the frames every call takes), feature
 * sets (the keypoints and descriptors every detect call fills) and match lists. Part of
 * satfeat.h, which includes every part; include satfeat.h. */
#ifndef SATFEAT_API_FEATURES_H
#define SATFEAT_API_FEATURES_H

#include "satfeat/core.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Keypoints and descriptors
 * ------------------------------------------------------------------------------------------- */

/** One keypoint. Coordinates are input pixels with pixel centres at integer coordinates. */
typedef struct satfeat_keypoint {
    double x, y;      /**< interpolated position */
    double size;      /**< interpolated filter side L (the convention of OpenCV's KeyPoint::size) */
    double sigma;     /**< Gaussian scale 1.2 * size / 9 */
    double response;  /**< normalised determinant at the detected sample (not interpolated) */
    double angle;     /**< dominant orientation in radians in [0, 2*pi): the direction
                           atan2(sum dy, sum dx) in image coordinates (x right, y down); 0 for
                           upright keypoints and before orientation is computed */
    int laplacian;    /**< sign of Dxx + Dyy at the sample: -1 bright blob, +1 dark blob */
    int octave;       /**< 0-based octave */
    int layer;        /**< layer inside the octave (1 .. layers-2) */
    int sample_x;     /**< the sample's column on the octave's grid (x = sample_x * step + ...) */
    int sample_y;     /**< the sample's row on the octave's grid */
    int reserved[2];  /**< always 0; keeps sizeof a multiple of 16 bytes (the CUDA detector
                           moves keypoints in 16-byte words) */
} satfeat_keypoint;

/** Descriptor kinds; the value is the number of floats each keypoint's descriptor has. */
typedef enum satfeat_descriptor_kind {
    SATFEAT_DESCRIPTOR_NONE = 0,     /**< keypoints only */
    SATFEAT_DESCRIPTOR_SURF64 = 64,  /**< SURF-64: per 4x4 subregion sum dx, dy, |dx|, |dy| */
    SATFEAT_DESCRIPTOR_SURF128 = 128 /**< SURF-128 (extended): the sums split by the sign of dy
                                          (for dx terms) and of dx (for dy terms) */
} satfeat_descriptor_kind;

/* ---------------------------------------------------------------------------------------------
 * Image views
 *
 * A view describes 8-bit gray pixels the caller owns; the library reads them during the call
 * (or, for the calls that queue frames, copies them before returning) and never keeps the
 * pointer. Build one with a designated initializer or satfeat_image_view_host / _device; fields
 * left zero mean "none" (no mask, host memory, the default stream).
 * ------------------------------------------------------------------------------------------- */

/** Where a view's pixels live. */
typedef enum satfeat_memory {
    SATFEAT_MEMORY_HOST = 0,  /**< ordinary (or pinned) host memory */
    SATFEAT_MEMORY_DEVICE = 1 /**< a CUDA device pointer of the detector's device */
} satfeat_memory;

/** An 8-bit gray image (and optional mask) the caller owns. */
typedef struct satfeat_image_view {
    const uint8_t *pixels; /**< the top-left pixel; row y starts at pixels + y * stride */
    size_t stride;         /**< bytes from one row to the next, >= width */
    int width;             /**< pixels per row, >= 1 */
    int height;            /**< rows, >= 1 */
    satfeat_memory memory; /**< where pixels and mask live */
    void *stream;          /**< device views: the cudaStream_t the pixels are ready on; the work is
                                queued after what is queued there and the call synchronises it
                                (NULL: the legacy default stream); ignored for host views */
    const uint8_t *mask;   /**< NULL: no mask; else width x height bytes in the same memory as
                                the pixels, and a keypoint is kept only where
                                mask(round(x), round(y)) != 0 (round = floor(v + 0.5)) */
    size_t mask_stride;    /**< bytes from one mask row to the next, >= width when mask is set */
} satfeat_image_view;

/** A view of host pixels without a mask; stride 0 means width (rows packed). */
SATFEAT_API satfeat_image_view satfeat_image_view_host(const uint8_t *pixels, int width,
                                                       int height, size_t stride);

/** A view of device pixels ready on `stream` (a cudaStream_t, NULL: the legacy default stream)
 *  without a mask; stride 0 means width. */
SATFEAT_API satfeat_image_view satfeat_image_view_device(const uint8_t *d_pixels, int width,
                                                         int height, size_t stride, void *stream);

/* ---------------------------------------------------------------------------------------------
 * Feature sets
 *
 * A feature set is a list of keypoints with their descriptors (or none), and the size of the
 * image they were found in. The library owns its memory and grows it as needed; a set reused
 * frame after frame reallocates only when a frame has more features than any before it, so the
 * steady state allocates nothing (satfeat_features_reserve preallocates). Every call that
 * produces features takes `satfeat_features **`: when *features is NULL a new set is created
 * (the caller deletes it with satfeat_features_delete), else the set is emptied and refilled. A
 * call that fails leaves the set empty (count 0) but usable. The arrays returned by the
 * accessors stay valid until the set is refilled or deleted.
 * ------------------------------------------------------------------------------------------- */

/** Opaque feature set. */
typedef struct satfeat_features satfeat_features;

/** Creates an empty feature set (SATFEAT_ERR_ALLOC when memory runs out; ERR_ARG for NULL). */
SATFEAT_API satfeat_status satfeat_features_new(satfeat_features **out);

/** Destroys a feature set. NULL is allowed. */
SATFEAT_API void satfeat_features_delete(satfeat_features *features);

/** Number of features (0 for NULL). */
SATFEAT_API size_t satfeat_features_count(const satfeat_features *features);

/** The keypoints, in the order of the call that produced them (NULL when the set is empty). */
SATFEAT_API const satfeat_keypoint *satfeat_features_keypoints(const satfeat_features *features);

/** The descriptors, satfeat_features_descriptor_kind(features) floats per keypoint in keypoint
 *  order, or NULL when the set has none (kind SATFEAT_DESCRIPTOR_NONE) or is empty. */
SATFEAT_API const float *satfeat_features_descriptors(const satfeat_features *features);

/** The descriptor kind; its value is the number of floats per descriptor (0: none). */
SATFEAT_API satfeat_descriptor_kind satfeat_features_descriptor_kind(
    const satfeat_features *features);

/** The size of the image the features were found in (0 x 0 for an empty new set or NULL). */
SATFEAT_API void satfeat_features_image_size(const satfeat_features *features, int *width,
                                             int *height);

/**
 * Fills `features` with copies of n keypoints and, unless kind is SATFEAT_DESCRIPTOR_NONE, n
 * descriptors of kind floats each (desc may be NULL only then), found in a width x height image:
 * features from elsewhere (a file, another library) for matching and evaluation. ERR_ARG for
 * NULL features, NULL kp with n > 0, a kind that is not a satfeat_descriptor_kind, a NULL desc
 * with a kind, or width / height < 1; ERR_OVERFLOW when n is too large for memory.
 */
SATFEAT_API satfeat_status satfeat_features_assign(satfeat_features *features,
                                                   const satfeat_keypoint *kp, const float *desc,
                                                   size_t n, satfeat_descriptor_kind kind,
                                                   int width, int height);

/** Makes room for n features of `kind` so that filling up to that many allocates nothing. */
SATFEAT_API satfeat_status satfeat_features_reserve(satfeat_features *features, size_t n,
                                                    satfeat_descriptor_kind kind);

/* ---------------------------------------------------------------------------------------------
 * Match lists
 * ------------------------------------------------------------------------------------------- */

/** One match: feature `query` of the first set and feature `train` of the second (named
 *  _pair because satfeat_match is the call that finds them). */
typedef struct satfeat_match_pair {
    int query;      /**< index into the first (query) set */
    int train;      /**< index into the second (train) set */
    float distance; /**< L2 distance of the two descriptors */
} satfeat_match_pair;

/** Opaque list of matches, owned and grown by the library like a feature set (the same
 *  `satfeat_matches **` convention: NULL creates, non-NULL is refilled). */
typedef struct satfeat_matches satfeat_matches;

/** Creates an empty match list. */
SATFEAT_API satfeat_status satfeat_matches_new(satfeat_matches **out);

/** Destroys a match list. NULL is allowed. */
SATFEAT_API void satfeat_matches_delete(satfeat_matches *matches);

/** Number of matches (0 for NULL). */
SATFEAT_API size_t satfeat_matches_count(const satfeat_matches *matches);

/** The matches, in ascending query order (NULL when empty). */
SATFEAT_API const satfeat_match_pair *satfeat_matches_data(const satfeat_matches *matches);

/**
 * Fills `matches` with copies of n pairs: matches from elsewhere (another matcher, a file) for
 * satfeat_estimate_motion_matches and evaluation. The pairs are kept in the given order and not
 * checked here: the calls that read them check the indices against their sets. ERR_ARG for NULL
 * matches or NULL pairs with n > 0; ERR_OVERFLOW / ERR_ALLOC when n pairs do not fit in memory
 * (the list is then empty).
 */
SATFEAT_API satfeat_status satfeat_matches_assign(satfeat_matches *matches,
                                                  const satfeat_match_pair *pairs, size_t n);

#ifdef __cplusplus
}
#endif

#endif

/* ar_photo.h - photometric refinement of a planar pose. A target keeps photometric samples: at
 * each level of a pyramid of its reference (2 x 2 box means, level 0 the reference itself), up
 * to SATFEAT_AR_PHOTO_PER_LEVEL pixels of strong gradient spread over a grid, with their
 * intensity. After the features' pose, the frame's pixels at the samples' projections are
 * aligned to those intensities (Gauss-Newton on the pose and an affine change of light, Huber
 * weights), which locates the whole target to a fraction of a pixel where single keypoints are
 * off by one or two. Host code only: both backends give the same poses. */
#ifndef SATFEAT_AR_PHOTO_H
#define SATFEAT_AR_PHOTO_H

#include "ar/ar_pose.h"
#include "src/context_internal.h"

#include <stddef.h>
#include <stdint.h>

/** Most pyramid levels a target keeps samples of. */
#define SATFEAT_AR_PHOTO_MAX_LEVELS 8
/** Most samples a level keeps (a 16 x 16 grid, two a cell). */
#define SATFEAT_AR_PHOTO_PER_LEVEL 512

/** The photometric samples of a target: level k's are [first[k], first[k + 1]). */
typedef struct satfeat_ar_photo {
    int levels;                                  /* 0: none (a target file of version 1) */
    uint32_t first[SATFEAT_AR_PHOTO_MAX_LEVELS + 1];
    float *u, *v;  /* reference pixel coordinates (pixel centres at integers) */
    float *value;  /* the level's intensity there, 0 .. 255 */
} satfeat_ar_photo;

/** A host view of the frame's 8-bit pixels (and its optional mask: 0 = do not use). */
typedef struct satfeat_ar_pixels {
    const uint8_t *pix;
    size_t stride;
    const uint8_t *mask;
    size_t mask_stride;
    int width, height;
} satfeat_ar_pixels;

/**
 * Chooses the samples of the width x height reference (row stride `stride`) into *out (arrays
 * allocated here; satfeat_ar_photo_free releases them). Levels stop at 32 pixels on the short
 * side. Returns 0 when out of memory (then *out holds no samples), else 1.
 */
int satfeat_ar_photo_build(const uint8_t *image, size_t stride, int width, int height,
                           satfeat_ar_photo *out);

/** Allocates room for n samples in `levels` levels (first[] left to the caller); 0 on OOM. */
int satfeat_ar_photo_alloc(satfeat_ar_photo *p, int levels, size_t n);

/** A deep copy of src into *dst; 0 when out of memory. */
int satfeat_ar_photo_copy(const satfeat_ar_photo *src, satfeat_ar_photo *dst);

/** Releases the arrays of *p and empties it. */
void satfeat_ar_photo_free(satfeat_ar_photo *p);

/** Doubles of scratch satfeat_ar_photo_refine needs. */
#define SATFEAT_AR_PHOTO_SCRATCH (SATFEAT_AR_PHOTO_PER_LEVEL * 11)

/** How far a refinement may go: its Gauss-Newton steps, and the largest turn (radians) and move
 * (a fraction of the distance) of the refined pose from the start it keeps. */
typedef struct satfeat_ar_photo_reach {
    int steps;
    double max_turn_rad;
    double max_move;
} satfeat_ar_photo_reach;

/** The refinement of a features' pose: 3 steps, 10 degrees, 10% of the distance. */
extern const satfeat_ar_photo_reach satfeat_ar_photo_near;
/** The search of a pose the features leave open (a small target's tilt; ar_locate.c's
 * settle_by_pixels): 20 steps, 60 degrees, half the distance. */
extern const satfeat_ar_photo_reach satfeat_ar_photo_far;

/**
 * Refines *pose (X_cam = R X + t, the target's reference pixel (u, v) at world (u s, v s, 0))
 * by aligning the frame's pixels at the projections of the samples of the level whose pixels
 * span about two of the frame's at the target's centre: at most reach->steps Gauss-Newton steps
 * on the rotation (an increment on the left), the translation and the light (frame = a value +
 * b), Huber weights at 1.345 robust deviations. The refined pose is kept only when it lowers the
 * robust cost of the starting pose, enough samples stayed in the frame (and off the mask's
 * zeros), and it turned less than reach->max_turn_rad and moved less than reach->max_move of
 * the distance from the start. Returns 1 when *pose was refined, else 0 (*pose unchanged).
 * `scratch`: SATFEAT_AR_PHOTO_SCRATCH doubles.
 */
int satfeat_ar_photo_refine(const satfeat_ar_photo *photo, int ref_width, int ref_height,
                            double s, const satfeat_ar_camera *cam, const satfeat_ar_pixels *frame,
                            const satfeat_ar_photo_reach *reach, double *scratch,
                            satfeat_ar_pose *pose);

/**
 * How much the frame looks like the target under *pose: the correlation coefficient of the
 * frame's pixels (bilinear) at the projections of the samples of the level
 * satfeat_ar_photo_refine would use with the samples' values, over those in the frame and off
 * the mask's zeros; 0 when the frame or the samples are flat there, NaN when there are no
 * samples or fewer than a quarter of the level's (at least 24) project there. `scratch`:
 * SATFEAT_AR_PHOTO_SCRATCH doubles.
 */
double satfeat_ar_photo_agreement(const satfeat_ar_photo *photo, int ref_width, int ref_height,
                                  double s, const satfeat_ar_camera *cam,
                                  const satfeat_ar_pixels *frame, double *scratch,
                                  const satfeat_ar_pose *pose);

#endif

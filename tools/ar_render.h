/* ar_render.h - a deterministic renderer of planar targets seen by a calibrated camera at a
 * known pose, for AR test sequences with exact ground truth (tests, tools/gen_ar_sequence.c,
 * eval/). Plain C and libm only; it shares no code with the library's AR module, so the
 * module is tested against an independent model of the same conventions (X_cam = R X + t, the
 * plane z = 0, reference pixel (u, v) at (u s, v s, 0), pixel centres at integers). */
#ifndef SATFEAT_AR_RENDER_H
#define SATFEAT_AR_RENDER_H

#include "satfeat.h"

#include <stdint.h>

#define AR_RENDER_MAX_TARGETS 4

/** One target on the world plane: its reference image and its placement. */
typedef struct ar_render_target {
    const uint8_t *pixels; /* 8-bit gray, tightly packed */
    int width, height;     /* reference size in pixels */
    double width_m;        /* physical width; s = width_m / width metres per pixel */
    double x0, y0;         /* plane position (metres) of the target's reference pixel (0, 0) */
} ar_render_target;

/** What one frame shows and how it is degraded. */
typedef struct ar_render_frame {
    double R[9], t[3];          /* pose of the plane's frame: X_cam = R X + t */
    double blur;                /* Gaussian sigma in pixels, 0 = none */
    double gain, bias;          /* v' = gain v + bias (levels) */
    double noise;               /* Gaussian pixel noise sd in levels, 0 = none */
    int occluder;               /* 1: the box below is painted over the frame */
    double occ_x0, occ_y0, occ_x1, occ_y1; /* occluder box in frame pixels */
    uint64_t seed;              /* noise seed of this frame */
} ar_render_frame;

/** The scene: targets on a textured plane. */
typedef struct ar_render_scene {
    ar_render_target targets[AR_RENDER_MAX_TARGETS];
    int n_targets;
    uint64_t texture_seed;      /* the background texture of the plane */
    int supersample;            /* samples per pixel side (1..8), the mean is the pixel */
} ar_render_scene;

/**
 * Renders a width x height frame (tightly packed 8-bit gray) of `scene` through `camera` (with
 * its distortion) at frame `f`. Returns 0 on success, -1 on bad arguments or out of memory.
 */
int ar_render(const ar_render_scene *scene, const satfeat_ar_camera *camera,
              const ar_render_frame *f, int width, int height, uint8_t *out);

/**
 * Fraction (0..1) of target `k` that is visible in the frame: of a 24 x 24 grid of points over
 * the target, those in front of the camera, inside the frame and not under the occluder.
 */
double ar_render_visible_fraction(const ar_render_scene *scene, int k,
                                  const satfeat_ar_camera *camera, const ar_render_frame *f,
                                  int width, int height);

/**
 * Projects the plane point (X, Y, 0) to a pixel through the camera (distortion included);
 * returns 0 when it is at or behind the camera.
 */
int ar_render_project(const satfeat_ar_camera *camera, const double R[9], const double t[3],
                      double X, double Y, double *u, double *v);

#endif

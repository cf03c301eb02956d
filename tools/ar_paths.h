/* ar_paths.h - the camera paths of the AR test sequences (tests, tools/gen_ar_sequence.c and
 * eval/): per frame the pose, blur, light and occluder, with exact ground truth. */
#ifndef SATFEAT_AR_PATHS_H
#define SATFEAT_AR_PATHS_H

#include "ar_render.h"

/** Names of the paths, NULL-terminated: approach, leave, occlusion, perspective, blur, light,
 *  sample (all of them in one path, through a camera with distortion), orbit (a full turn
 *  around the target, tilted), handheld (fast irregular motion, roll, motion blur). */
extern const char *const ar_path_names[];

/**
 * Frame k of n (0-based) of path `name` for a target of width_m x height_m metres placed at
 * the plane's origin, seen by `camera` in a width x height frame: fills *f. Returns 0 for an
 * unknown name, else 1.
 */
int ar_path_frame(const char *name, int k, int n, double width_m, double height_m,
                  const satfeat_ar_camera *camera, int width, int height, ar_render_frame *f);

/** The camera of path `name` for width x height frames: 60 degrees horizontal field of view,
 *  and radial distortion on "sample". Returns 0 for an unknown name. */
int ar_path_camera(const char *name, int width, int height, satfeat_ar_camera *camera);

#endif

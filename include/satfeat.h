/*
 * satfeat.h - the public API of libsatfeat.
 *
 * libsatfeat computes summed area tables (integral images) on the CPU and on CUDA GPUs, and on
 * top of them a SURF-style Fast-Hessian keypoint detector with orientations and SURF
 * descriptors, descriptor matching, robust motion estimation and a frame-to-frame tracker. This
 * header is the library's only public surface.
 *
 * Conventions
 *  - Every fallible call returns a satfeat_status; results come back through out-parameters.
 *  - Calls that take a context keep the text of their last error in it
 *    (satfeat_ctx_last_error). Where a context argument may be NULL, the status is still
 *    returned but the message is dropped.
 *  - Strides are in bytes. Widths and heights are in pixels and must be >= 1.
 *  - A summed area table of a w x h image has (w+1) x (h+1) entries: row 0 and column 0 are
 *    zero and entry (x, y) is the sum of the pixels with x' < x and y' < y, so the sum of any
 *    box is four reads and no branch (the layout of OpenCV's cv::integral and NPP).
 *  - The library never prints, never exits and keeps no global mutable state: two contexts
 *    used from two threads never interfere. One context must not be used by two threads at once.
 */
#ifndef SATFEAT_H
#define SATFEAT_H

#include "satfeat/core.h" /* version, status codes, the context (backend, threads, memory limit, stream, last error) */
#include "satfeat/sat.h" /* summed area tables and O(1) box sums on them */
#include "satfeat/image.h" /* reading and writing images; video frames through FFmpeg */
#include "satfeat/features.h" /* image views, keypoints, feature sets, match lists */
#include "satfeat/detect.h" /* the Fast-Hessian detector: keypoints, orientations and SURF descriptors */
#include "satfeat/frames.h" /* many frames: sequences in flight, batches, pools over devices */
#include "satfeat/motion.h" /* robust motion estimation (RANSAC / PROSAC, MSAC, least squares) */
#include "satfeat/match.h" /* descriptor matching */
#include "satfeat/eval.h" /* repeatability and matching-score evaluation */
#include "satfeat/track.h" /* the frame-to-frame feature tracker */
#include "satfeat/ar.h" /* augmented reality: planar targets, camera model, pose */

#endif /* SATFEAT_H */

/* tracker_testutil.h - frames for the tracker tests: a deterministic world of Gaussian blobs
 * rendered at sub-pixel offsets, the dune sequence loader, and per-frame track recording. */
#ifndef SATFEAT_TRACKER_TESTUTIL_H
#define SATFEAT_TRACKER_TESTUTIL_H

#include "test_util.h"

/** A world of random blobs (centres in world pixels). */
typedef struct blob_world {
    int n;
    double *x, *y, *sigma, *amp;
} blob_world;

/** Creates `n` blobs with centres uniform in [x0, x1) x [y0, y1), sigma 1.5..4.5 px, amplitude
 * +-(40..90) levels, from the seed. */
void blob_world_make(blob_world *w, int n, double x0, double y0, double x1, double y1,
                     uint64_t seed);
void blob_world_free(blob_world *w);

/** Renders the world seen through a width x height window whose pixel (0, 0) is world point
 * (ox, oy): 128 + the blobs, rounded and clamped to 0..255 (tight stride = width). */
void blob_world_render(const blob_world *w, double ox, double oy, uint8_t *img, int width,
                       int height);

/** Loads dune frame k (1-based) into a caller buffer of 640 x 480 (fails the test when absent). */
void dune_load(int k, uint8_t *img);

/** Loads dune frames 1..n into malloc'ed 640 x 480 buffers (free with frames_free). */
uint8_t **dune_frames(int n);

/** Frees n frames and their array. */
void frames_free(uint8_t **f, int n);

/** Reads dune's ground truth H1to(k) (1-based k). */
void dune_truth(int k, double h[9]);

/** Largest distance between the images of the four corners of a w x h frame under a and b. */
double corner_error(const double a[9], const double b[9], int w, int h);

/** Applies a homography to a point (w must be positive). */
void map_point(const double h[9], double x, double y, double *u, double *v);

/** 3x3 helpers: c = a * b, inverse (fails the test when singular). */
void mat3_mul(const double a[9], const double b[9], double c[9]);
void mat3_inv(const double a[9], double inv[9]);

/** One frame's output of a tracker run. */
typedef struct tracker_frame_out {
    satfeat_status status;
    size_t count;
    satfeat_track *tracks;
    float *desc;
    satfeat_frame_motion motion;
} tracker_frame_out;

/** Copies the tracker's live tracks and their descriptors (dim floats each) into o->tracks /
 * o->desc (malloc'ed, exactly o->count entries) and checks the accessors agree on emptiness. */
void tracker_frame_copy(const satfeat_tracker *t, size_t dim, tracker_frame_out *o);

/** Runs `n` frames (frames[i], width x height, tight) through a new tracker on `ctx` with
 * `params` (NULL: defaults); device: 1 to feed device views of copies through
 * satfeat_tracker_track (CUDA builds only). Returns malloc'ed outputs; free with
 * tracker_run_free. */
tracker_frame_out *tracker_run(satfeat_ctx *ctx, const satfeat_tracker_params *params,
                               uint8_t *const *frames, int n, int width, int height, int device);
/** The same run through satfeat_tracker_push / satfeat_tracker_pop (host frames, every frame
 * pushed, popped frames collected in order, the rest popped at the end). */
tracker_frame_out *tracker_run_pipelined(satfeat_ctx *ctx, const satfeat_tracker_params *params,
                                         uint8_t *const *frames, int n, int width, int height);
void tracker_run_free(tracker_frame_out *out, int n);

/** A CPU context with 2 threads (fails the test otherwise). */
satfeat_ctx *tracker_cpu_ctx(void);

/** Observations (missed 0, after the birth frame) of n frames farther than tol px from their
 * track's birth position moved by (dx, dy) px per frame: a world translating by (-dx, -dy)
 * seen through a window moving by (dx, dy). Fails the test when a track's birth is missing. */
size_t tracker_off_path(const tracker_frame_out *out, int n, double dx, double dy, double tol);

/** Fails the test unless two runs' outputs are identical (counts, tracks and descriptors by
 * memcmp, every motion field). */
void tracker_runs_equal(const tracker_frame_out *a, const tracker_frame_out *b, int n, int dim);

#endif

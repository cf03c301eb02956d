/* detect_frames.h - `satfeat detect` over a frame list through the library's sequence entry point
 * (satfeat_sequence_*: on CUDA several frames in flight), results handed on in list order. */
#ifndef SATFEAT_CLI_DETECT_FRAMES_H
#define SATFEAT_CLI_DETECT_FRAMES_H

#include "detect_options.h"
#include "frame_list.h"
#include "frame_source.h"
#include "keypoint_format.h"
#include "progress.h"

/** Receives each frame's keypoints in list order; returns 0 to stop the run (a write failed). */
typedef int (*cli_frame_sink)(void *user, const cli_frame_keypoints *frame);

/** How the frames are run. */
typedef struct cli_frames_run {
    const cli_detect_options *opt; /* backend, threads, detector parameters */
    int want_descriptors;          /* hand descriptors on (the parameters must compute them) */
    int keep_going;                /* a bad frame is reported and skipped instead of stopping */
    int verbose;                   /* a line per frame on stderr */
    cli_progress *progress;        /* may be NULL */
    cli_frame_sink sink;
    void *user;
    int use_pool;                  /* --devices: through a satfeat_pool of CUDA devices */
    const int *devices;            /* the pool's device ordinals (NULL with n_devices 0: all) */
    int n_devices;
} cli_frames_run;

/**
 * Detects the keypoints of every frame of the source (images or a video; a video that cannot be
 * decoded further stops the run): the first readable frame sizes the detector, a frame
 * that cannot be read or has another size is reported by number and path on stderr (and stops
 * the run unless keep_going); *bad receives their number. Returns CLI_EXIT_OK when the run went
 * through the whole list (with keep_going possibly skipping bad frames), CLI_EXIT_FAILURE when it
 * stopped early (a bad frame without keep_going, a failed detection or write).
 */
int cli_detect_frames(const cli_frames_run *run, cli_frame_source *frames, size_t *bad);

/** Prints "satfeat: frame K (PATH): WHAT" on stderr below the progress line. */
void cli_frame_say(const cli_frames_run *run, int index, const char *path, const char *what);

/** Frame `index` (path `path`) as handed to a sink: the features of `f`, its image size. */
cli_frame_keypoints cli_frame_features(int index, const char *path, const satfeat_features *f);

/** Reads frame k's header into *info: 1, or 0 (reported) when it cannot be read or, with
 * width > 0, its size is not width x height. */
int cli_frame_info(const cli_frames_run *run, satfeat_ctx *ctx, int k, const char *path,
                   int width, int height, satfeat_image_info *info);

/** Reads frame k as 8-bit gray into a tight width x height buffer: 1, or 0 (reported). */
int cli_frame_pixels(const cli_frames_run *run, satfeat_ctx *ctx, int k, const char *path,
                     uint8_t *pixels, int width, int height);

/** cli_detect_frames through a device pool (run->use_pool): the frames in batches spread over
 * the pool's GPUs, handed on in list order; the same reports and exit codes. */
int cli_detect_frames_pool(const cli_frames_run *run, const cli_frame_list *frames, size_t *bad);

#endif

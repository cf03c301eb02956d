/* frame_source.h - where the frames of `satfeat detect` and `satfeat track` come from: a list of
 * image paths (frame_list.h) or a video file read through the library (satfeat_video_*), handed
 * out one at a time as 8-bit gray with the frame's 1-based number and name. */
#ifndef SATFEAT_CLI_FRAME_SOURCE_H
#define SATFEAT_CLI_FRAME_SOURCE_H

#include "frame_list.h"
#include "satfeat.h"

#include <stdio.h>

struct cli_frames_run; /* detect_frames.h: the reports go below its progress line */

/** --start N --frames N --step K of a video (0-based start, 0 frames = to the end). */
typedef struct cli_video_range {
    int start;  /* first frame read, 0-based (frame 1 of the output is --start 0) */
    int frames; /* most frames handed out, 0 = all */
    int step;   /* every step-th frame from start, >= 1 */
    int given;  /* any of the three was on the command line */
} cli_video_range;

/** The defaults: start 0, all frames, step 1. */
void cli_video_range_init(cli_video_range *r);

/** Parses --start, --frames or --step at argv[*i] (a cli_extra_option_fn piece): 1 consumed,
 * 0 another argument, -1 a bad value (printed). */
int cli_video_option(int argc, char **argv, int *i, cli_video_range *r);

/** The help lines of the three options and of video input, for the commands' --help. */
void cli_video_help(FILE *out);

/** A source of frames. */
typedef struct cli_frame_source {
    cli_frame_list list;     /* image mode: the paths (empty for a video) */
    size_t next;             /* image mode: the next index */
    satfeat_ctx *ctx;        /* video mode: the reader's context */
    satfeat_video *video;    /* video mode: the reader, NULL in image mode */
    const char *path;        /* video mode: the file, the name of every frame */
    satfeat_video_info info;
    cli_video_range range;
    int handed;              /* video mode: frames handed out */
    const uint8_t *pixels;   /* video mode: the last frame read (the reader's buffer) */
} cli_frame_source;

/**
 * Fills `src` from the positional arguments: a single argument with a video extension (.mkv .mp4
 * .avi .mov .webm .y4m .nut, any case), or one that is no directory, no .txt list and no image
 * (.png .pgm .ppm .pnm) and that the library's probe recognises as a video, opens that video
 * (`threads` decoder threads) and seeks to range->start; anything else builds the image list of
 * cli_frame_list_build. --start/--frames/--step with images is a usage error. Prints the error
 * and returns CLI_EXIT_OK, CLI_EXIT_FAILURE or CLI_EXIT_USAGE.
 */
int cli_frame_source_build(cli_frame_source *src, const char *const *args, int nargs,
                           const cli_video_range *range, int threads);

/** 1 for a video source. */
int cli_frame_source_is_video(const cli_frame_source *src);

/** The frames the source will hand out: the list's length; for a video the frames left from
 * --start by --step within --frames, from the container's count (0 when it is unknown). */
size_t cli_frame_source_count(const cli_frame_source *src);

/**
 * Takes the next frame: 1 with *k (the frame's 1-based number: the list index, or for a video
 * the video's own frame number + 1, so --start 10 gives 11 first), *name and its *w x *h; 0 a bad
 * frame (reported; an image that cannot be read or whose size differs from want_w x want_h when
 * want_w > 0); -1 the end of the frames; -2 a fatal error (reported: a video that cannot be
 * decoded further).
 */
int cli_frame_source_next(cli_frame_source *src, const struct cli_frames_run *run,
                          satfeat_ctx *ctx, int want_w, int want_h, int *k, const char **name,
                          int *w, int *h);

/** Writes the frame cli_frame_source_next returned into a tight w x h buffer: 1, or 0 (reported). */
int cli_frame_source_pixels(cli_frame_source *src, const struct cli_frames_run *run,
                            satfeat_ctx *ctx, int k, const char *name, uint8_t *pixels, int w,
                            int h);

/** Frees the list or closes the video (safe on a zeroed source). */
void cli_frame_source_free(cli_frame_source *src);

#endif

/* frame_loop.h - the frame loop that `satfeat track` and `satfeat ar` share: their -o/--draw
 * flags, their frame buffers sized by the first good frame, the walk over the frame source with
 * bad frames counted (and skipped with --keep-going), and the summary of the bad frames. */
#ifndef SATFEAT_CLI_FRAME_LOOP_H
#define SATFEAT_CLI_FRAME_LOOP_H

#include "detect_frames.h"
#include "frame_source.h"
#include "satfeat.h"

#include <stddef.h>
#include <stdint.h>

/** The help paragraph on bad frames as cli_frame_loop_run treats them (track and ar print it). */
#define CLI_BAD_FRAME_HELP                                                                     \
    "A frame that cannot be read or differs in size from the first is reported by name on\n"  \
    "stderr: the command stops with exit status 1, or with --keep-going skips it, goes on\n"  \
    "and exits with 1 at the end.\n"

/** Parses -o/--output FILE or --draw DIR at argv[*i] (a cli_extra_option_fn piece): 1 consumed
 * (the value stored), 0 another argument, -1 a missing value (printed). */
int cli_output_draw_option(int argc, char **argv, int *i, const char **output, const char **draw);

/** A command's frame buffers: the gray frame and, when it draws, an RGB canvas of its size. */
typedef struct cli_frame_buffers {
    uint8_t *gray, *rgb;
    int width, height; /* of the first good frame; 0 before it */
} cli_frame_buffers;

/** Allocates the buffers for width x height (rgb only with `draw`) and records the size:
 * 1, or 0 after printing "out of memory". */
int cli_frame_buffers_alloc(cli_frame_buffers *b, int width, int height, int draw);

/** Frees the buffers (safe on zeroed ones). */
void cli_frame_buffers_free(cli_frame_buffers *b);

/** A command's work in the loop; both return 1, or 0 on a fatal error (reported). */
typedef struct cli_frame_work {
    /* sizes the command for the first good frame; calls cli_frame_buffers_alloc */
    int (*first)(void *user, int width, int height);
    /* works on frame k (name `name`), its pixels in the buffers' gray */
    int (*frame)(void *user, int k, const char *name);
    void *user;
} cli_frame_work;

/** What the loop reads from. */
typedef struct cli_frame_loop {
    cli_frame_source *source;
    const cli_frames_run *report; /* the readers' reports go below its progress line (non-NULL) */
    satfeat_ctx *ctx;             /* the frames are read on it */
    cli_frame_buffers *buffers;   /* filled by work.first at the first good frame */
    cli_frame_work work;
    int keep_going; /* a bad frame is skipped instead of stopping the loop */
} cli_frame_loop;

/**
 * Hands every frame of the source to the work until the end of the frames, a fatal error or
 * (without keep_going) a bad frame, updating the progress line after each frame. A bad frame is
 * one the source reports as unreadable or of another size than the first good one. Returns 1
 * when the loop reached the end of the frames, 0 when it stopped early; *bad counts the bad
 * frames.
 */
int cli_frame_loop_run(const cli_frame_loop *loop, size_t *bad);

/** Ends the progress line and, unless `quiet`, reports the bad frames on stderr:
 * "satfeat: BAD of NFRAMES frames could not be VERB" (+ " (skipped)" with keep_going). */
void cli_frame_loop_summary(cli_progress *progress, size_t bad, size_t nframes, const char *verb,
                            int keep_going, int quiet);

#endif

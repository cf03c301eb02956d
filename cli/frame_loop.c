/* frame_loop.c - the frame loop shared by `satfeat track` and `satfeat ar` (frame_loop.h). */
#include "frame_loop.h"

#include "commands.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>

int cli_output_draw_option(int argc, char **argv, int *i, const char **output, const char **draw)
{
    const char *v = NULL;
    int r;
    if ((r = cli_option_value(argc, argv, i, "-o", &v)) != 0 ||
        (r = cli_option_value(argc, argv, i, "--output", &v)) != 0) {
        if (r > 0) *output = v;
        return r;
    }
    if ((r = cli_option_value(argc, argv, i, "--draw", &v)) != 0) {
        if (r > 0) *draw = v;
        return r;
    }
    return 0;
}

int cli_frame_buffers_alloc(cli_frame_buffers *b, int width, int height, int draw)
{
    const size_t pixels = (size_t)width * (size_t)height;
    b->gray = malloc(pixels);
    if (draw) b->rgb = malloc(pixels * 3);
    if (!b->gray || (draw && !b->rgb)) {
        fprintf(stderr, "satfeat: out of memory\n");
        return 0;
    }
    b->width = width;
    b->height = height;
    return 1;
}

void cli_frame_buffers_free(cli_frame_buffers *b)
{
    free(b->gray);
    free(b->rgb);
    b->gray = b->rgb = NULL;
}

/* The source's next frame: 1 done, 0 a bad frame (reported), -1 a fatal error, -2 the end of
 * the frames. */
static int loop_frame(const cli_frame_loop *l)
{
    cli_frame_buffers *b = l->buffers;
    int k = 0, w = 0, h = 0;
    const char *path = NULL;
    const int got = cli_frame_source_next(l->source, l->report, l->ctx, b->width, b->height, &k,
                                          &path, &w, &h);
    if (got <= 0) return got == 0 ? 0 : got == -1 ? -2 : -1;
    if (b->width == 0 && !l->work.first(l->work.user, w, h)) return -1;
    if (!cli_frame_source_pixels(l->source, l->report, l->ctx, k, path, b->gray, b->width,
                                 b->height))
        return 0;
    return l->work.frame(l->work.user, k, path) ? 1 : -1;
}

int cli_frame_loop_run(const cli_frame_loop *loop, size_t *bad)
{
    int ok = 1;
    *bad = 0;
    for (size_t k = 0; ok; k++) {
        const int f = loop_frame(loop);
        if (f == -2) break;
        if (f < 0) ok = 0;
        if (f == 0) {
            (*bad)++;
            if (!loop->keep_going) ok = 0;
        }
        cli_progress_update(loop->report->progress, k + 1);
    }
    return ok;
}

void cli_frame_loop_summary(cli_progress *progress, size_t bad, size_t nframes, const char *verb,
                            int keep_going, int quiet)
{
    cli_progress_finish(progress);
    if (bad > 0 && !quiet)
        fprintf(stderr, "satfeat: %zu of %zu frames could not be %s%s\n", bad, nframes, verb,
                keep_going ? " (skipped)" : "");
}

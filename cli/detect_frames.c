/* detect_frames.c - see detect_frames.h. Frames go through a satfeat_sequence of FRAME_SLOTS
 * slots; the CLI pops the oldest frame itself before pushing into a full sequence, so every
 * status belongs to one frame. The sequence copies a frame when it is pushed, so one pixel
 * buffer serves every frame; the popped features land in one feature set, reused frame after
 * frame. */
#include "detect_frames.h"
#include "commands.h"

#include <stdlib.h>
#include <string.h>

#define FRAME_SLOTS 3

typedef struct frames_state {
    const cli_frames_run *run;
    satfeat_ctx *ctx;
    satfeat_detector *det;
    satfeat_sequence *seq;
    int width, height; /* of the first readable frame; 0 before it */
    uint8_t *pixels;   /* the frame being read (the sequence keeps its own copy) */
    int ring_index[FRAME_SLOTS]; /* index and path of the frames in flight */
    const char *ring_path[FRAME_SLOTS];
    int oldest, pending;
    satfeat_features *features; /* the popped frame's */
    size_t done, bad; /* frames handed on, frames skipped */
} frames_state;

void cli_frame_say(const cli_frames_run *run, int index, const char *path, const char *what)
{
    if (run->progress) cli_progress_clear(run->progress);
    fprintf(stderr, "satfeat: frame %d (%s): %s\n", index, path, what);
}

/* Reports frame k as unreadable with the reader's status and message. */
static void say_unreadable(const cli_frames_run *run, satfeat_ctx *ctx, int k, const char *path,
                           satfeat_status st)
{
    char what[512];
    snprintf(what, sizeof what, "cannot read: %s: %s", satfeat_status_string(st),
             satfeat_ctx_last_error(ctx));
    cli_frame_say(run, k, path, what);
}

cli_frame_keypoints cli_frame_features(int index, const char *path, const satfeat_features *f)
{
    cli_frame_keypoints fr;
    fr.index = index;
    fr.path = path;
    satfeat_features_image_size(f, &fr.width, &fr.height);
    fr.kp = satfeat_features_keypoints(f);
    fr.desc = satfeat_features_descriptors(f);
    fr.dim = (int)satfeat_features_descriptor_kind(f);
    fr.n = satfeat_features_count(f);
    return fr;
}

int cli_frame_info(const cli_frames_run *run, satfeat_ctx *ctx, int k, const char *path,
                   int width, int height, satfeat_image_info *info)
{
    satfeat_status st = satfeat_image_read_info(ctx, path, info);
    if (st != SATFEAT_OK) {
        say_unreadable(run, ctx, k, path, st);
        return 0;
    }
    if (width > 0 && (info->width != width || info->height != height)) {
        char what[128];
        snprintf(what, sizeof what, "size %dx%d differs from the first frame's %dx%d",
                 info->width, info->height, width, height);
        cli_frame_say(run, k, path, what);
        return 0;
    }
    return 1;
}

int cli_frame_pixels(const cli_frames_run *run, satfeat_ctx *ctx, int k, const char *path,
                     uint8_t *pixels, int width, int height)
{
    satfeat_status st = satfeat_image_read_gray8(ctx, path, pixels, (size_t)width, width, height);
    if (st == SATFEAT_OK) return 1;
    say_unreadable(run, ctx, k, path, st);
    return 0;
}

/* Sizes the detector, the sequence and the pixel buffer for the first readable frame. */
static int start(frames_state *s, int width, int height)
{
    /* descriptors only when they are handed on: the keypoints are the same either way */
    satfeat_detector_params params = s->run->opt->params;
    if (!s->run->want_descriptors) params.descriptor = SATFEAT_DESCRIPTOR_NONE;
    satfeat_status st = satfeat_detector_new(s->ctx, &params, width, height, &s->det);
    if (st == SATFEAT_OK) st = satfeat_sequence_new(s->det, FRAME_SLOTS, &s->seq);
    if (st != SATFEAT_OK) {
        cli_report("cannot create the detector", st, s->ctx);
        return 0;
    }
    if (!(s->pixels = malloc((size_t)width * (size_t)height))) {
        fprintf(stderr, "satfeat: out of memory\n");
        return 0;
    }
    s->width = width;
    s->height = height;
    return 1;
}

/* Hands the oldest frame's features on. */
static int emit(frames_state *s)
{
    const int slot = s->oldest;
    const cli_frame_keypoints fr =
        cli_frame_features(s->ring_index[slot], s->ring_path[slot], s->features);
    const size_t n = fr.n;
    if (s->run->verbose) {
        if (s->run->progress) cli_progress_clear(s->run->progress);
        fprintf(stderr, "satfeat: frame %d (%s): %zu keypoints\n", fr.index, fr.path, n);
    }
    if (!s->run->sink(s->run->user, &fr)) return 0;
    s->done++;
    if (s->run->progress) cli_progress_update(s->run->progress, s->done + s->bad);
    return 1;
}

/* Queues the frame in the pixel buffer; the sequence is never full here (see pop_oldest). */
static int push(frames_state *s)
{
    int popped = 0;
    const satfeat_image_view view =
        satfeat_image_view_host(s->pixels, s->width, s->height, (size_t)s->width);
    satfeat_status st = satfeat_sequence_push(s->seq, &view, &s->features, &popped);
    if (st != SATFEAT_OK || popped) {
        cli_report("cannot queue the frame", st, s->ctx);
        return 0;
    }
    return 1;
}

/* Finishes the oldest frame in flight and hands it on. */
static int pop_oldest(frames_state *s)
{
    satfeat_status st = satfeat_sequence_pop(s->seq, &s->features);
    int ok;
    if (st == SATFEAT_OK) ok = emit(s);
    else {
        cli_report("detection failed", st, s->ctx);
        ok = 0;
    }
    s->oldest = (s->oldest + 1) % FRAME_SLOTS;
    s->pending--;
    return ok;
}

/* Reads and queues the source's next frame: 1 queued, 0 a bad frame (reported), -1 a fatal
 * error, -2 the end of the frames. */
static int feed(frames_state *s, cli_frame_source *src)
{
    int k = 0, w = 0, h = 0;
    const char *path = NULL;
    const int got = cli_frame_source_next(src, s->run, s->ctx, s->width, s->height, &k, &path,
                                          &w, &h);
    if (got <= 0) return got == 0 ? 0 : got == -1 ? -2 : -1;
    if (s->width == 0 && !start(s, w, h)) return -1;
    if (s->pending == FRAME_SLOTS && !pop_oldest(s)) return -1;
    const int slot = (s->oldest + s->pending) % FRAME_SLOTS;
    if (!cli_frame_source_pixels(src, s->run, s->ctx, k, path, s->pixels, s->width, s->height))
        return 0;
    s->ring_index[slot] = k;
    s->ring_path[slot] = path;
    if (!push(s)) return -1;
    s->pending++;
    return 1;
}

int cli_detect_frames(const cli_frames_run *run, cli_frame_source *frames, size_t *bad)
{
    frames_state s;
    memset(&s, 0, sizeof s);
    s.run = run;
    int ok = cli_context_new(run->opt, &s.ctx);
    for (int f = 1; ok && f != -2;) {
        f = feed(&s, frames);
        if (f == -1) ok = 0;
        if (f == 0) {
            s.bad++;
            if (run->progress) cli_progress_update(run->progress, s.done + s.bad);
            if (!run->keep_going) break;
        }
    }
    while (ok && s.pending > 0) ok = pop_oldest(&s);
    *bad = s.bad;
    if (run->progress) cli_progress_finish(run->progress);
    satfeat_sequence_delete(s.seq);
    satfeat_detector_delete(s.det);
    satfeat_ctx_delete(s.ctx);
    free(s.pixels);
    satfeat_features_delete(s.features);
    return ok && (s.bad == 0 || run->keep_going) ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

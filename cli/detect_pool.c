/* detect_pool.c - `satfeat detect --devices`: the frames in batches through a satfeat_pool (one
 * detector per GPU, frames handed out dynamically, results in list order); see detect_frames.h. */
#include "commands.h"
#include "detect_frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL_BATCH_PER_WORKER 8 /* frames read per worker before a pool call */

typedef struct pool_state {
    const cli_frames_run *run;
    satfeat_pool *pool;
    satfeat_ctx *ctx; /* for the image readers' messages */
    int width, height;
    size_t batch, done, bad;
    uint8_t **pixels;              /* batch frames */
    int *index;                    /* their 1-based list numbers */
    const char **path;
    satfeat_image_view *frames;
    satfeat_frame_result *results; /* their feature sets, reused batch after batch */
} pool_state;

/* Creates the pool and the batch buffers for frames of width x height. */
static int start(pool_state *s, int width, int height)
{
    const cli_frames_run *run = s->run;
    char err[512] = "";
    /* descriptors only when they are handed on: the keypoints are the same either way */
    satfeat_detector_params params = run->opt->params;
    if (!run->want_descriptors) params.descriptor = SATFEAT_DESCRIPTOR_NONE;
    satfeat_status st = satfeat_pool_new(SATFEAT_BACKEND_CUDA, run->devices, run->n_devices,
                                         &params, width, height, &s->pool, err, sizeof err);
    if (st != SATFEAT_OK) {
        fprintf(stderr, "satfeat: cannot create the device pool: %s: %s\n",
                satfeat_status_string(st), err);
        return 0;
    }
    s->batch = (size_t)satfeat_pool_workers(s->pool) * POOL_BATCH_PER_WORKER;
    s->pixels = calloc(s->batch, sizeof *s->pixels);
    s->index = calloc(s->batch, sizeof *s->index);
    s->path = calloc(s->batch, sizeof *s->path);
    s->frames = calloc(s->batch, sizeof *s->frames);
    s->results = calloc(s->batch, sizeof *s->results);
    if (!s->pixels || !s->index || !s->path || !s->frames || !s->results) {
        fprintf(stderr, "satfeat: out of memory\n");
        return 0;
    }
    for (size_t i = 0; i < s->batch; i++)
        if (!(s->pixels[i] = malloc((size_t)width * (size_t)height))) {
            fprintf(stderr, "satfeat: out of memory\n");
            return 0;
        }
    s->width = width;
    s->height = height;
    return 1;
}

/* Detects the n frames of the batch and hands them on in order. */
static int run_batch(pool_state *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        s->frames[i] = satfeat_image_view_host(s->pixels[i], s->width, s->height, 0);
    satfeat_pool_detect(s->pool, s->frames, n, s->results); /* statuses per frame */
    for (size_t i = 0; i < n; i++) {
        const satfeat_frame_result *r = &s->results[i];
        if (r->status != SATFEAT_OK) {
            char what[640];
            snprintf(what, sizeof what, "detection failed: %s: %s",
                     satfeat_status_string(r->status), satfeat_pool_last_error(s->pool));
            cli_frame_say(s->run, s->index[i], s->path[i], what);
            return 0;
        }
        const cli_frame_keypoints fr = cli_frame_features(s->index[i], s->path[i], r->features);
        if (s->run->verbose) {
            if (s->run->progress) cli_progress_clear(s->run->progress);
            fprintf(stderr, "satfeat: frame %d (%s): %zu keypoints (device %d)\n", fr.index,
                    fr.path, fr.n, r->device);
        }
        if (!s->run->sink(s->run->user, &fr)) return 0;
        s->done++;
        if (s->run->progress) cli_progress_update(s->run->progress, s->done + s->bad);
    }
    return 1;
}

/* Reads frame k into batch slot `slot`: 1 read, 0 a bad frame (reported), -1 a fatal error. */
static int read_frame(pool_state *s, int k, const char *path, size_t slot)
{
    satfeat_image_info info;
    if (!cli_frame_info(s->run, s->ctx, k, path, s->width, s->height, &info)) return 0;
    if (s->width == 0 && !start(s, info.width, info.height)) return -1;
    if (!cli_frame_pixels(s->run, s->ctx, k, path, s->pixels[slot], s->width, s->height)) return 0;
    s->index[slot] = k;
    s->path[slot] = path;
    return 1;
}

int cli_detect_frames_pool(const cli_frames_run *run, const cli_frame_list *frames, size_t *bad)
{
    pool_state s;
    memset(&s, 0, sizeof s);
    s.run = run;
    int ok = satfeat_ctx_new(&s.ctx, SATFEAT_BACKEND_CPU, -1) == SATFEAT_OK;
    if (!ok) fprintf(stderr, "satfeat: out of memory\n");
    /* the frames are read through this context: --memory-limit bounds every read */
    if (ok) ok = cli_apply_memory_limit(s.ctx, run->opt->memory_limit);
    size_t filled = 0;
    for (size_t k = 0; ok && k < frames->n; k++) {
        const int f = read_frame(&s, (int)k + 1, frames->paths[k], filled);
        if (f < 0) ok = 0;
        if (f == 0) {
            s.bad++;
            if (run->progress) cli_progress_update(run->progress, s.done + s.bad);
            if (!run->keep_going) break;
        }
        if (f > 0 && ++filled == s.batch) {
            ok = run_batch(&s, filled);
            filled = 0;
        }
    }
    if (ok && filled > 0) ok = run_batch(&s, filled);
    *bad = s.bad;
    if (run->progress) cli_progress_finish(run->progress);
    for (size_t i = 0; i < s.batch; i++) {
        if (s.pixels) free(s.pixels[i]);
        if (s.results) satfeat_features_delete(s.results[i].features);
    }
    free(s.pixels);
    free(s.index);
    free(s.path);
    free(s.frames);
    free(s.results);
    satfeat_pool_delete(s.pool);
    satfeat_ctx_delete(s.ctx);
    return ok && (s.bad == 0 || run->keep_going) ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

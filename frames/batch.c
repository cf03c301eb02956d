/* batch.c - many frames of one detector in one call (satfeat_batch_*). Where frames overlap
 * (a CUDA detector) the batch owns `lanes` lanes, each a twin of the detector (own context,
 * device buffers, graph cache and `serial` event, so frames of different lanes are not chained
 * on the GPU) with two frame slots. Frame i goes to lane i % lanes; a lane
 * collects its oldest frame only when both of its slots are taken, so up to 2 x lanes frames are
 * queued before the first is collected. The host work is split by lane over OpenMP threads; a
 * thread touches only its own lanes and the results of their frames. Elsewhere (the CPU) the
 * frames are detected in order on the detector itself. */
#include "frames/frame_failure.h"
#include "frames/twin.h"
#include "src/context_internal.h"
#include "src/features_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Frame slots per lane: one frame on the GPU while the next one is uploaded behind it. */
#define BATCH_SLOTS 2

typedef struct batch_lane {
    satfeat_fh_twin twin;    /* own context (the lane's error text) and detector (device state) */
    satfeat_detect_slot *slot[BATCH_SLOTS];
    size_t frame[BATCH_SLOTS]; /* frame index in slot[k] while it is in flight */
    int head, pending;         /* ring over slot[]: the oldest frame in flight, how many */
    satfeat_frame_failure fail; /* lowest failed frame of this lane in a call */
} batch_lane;

struct satfeat_batch {
    satfeat_detector *det;
    int lanes;
    batch_lane *lane; /* detectors whose frames overlap only, else NULL */
};

static void lanes_free(satfeat_batch *b)
{
    if (!b->lane) return;
    for (int l = 0; l < b->lanes; l++) {
        batch_lane *ln = &b->lane[l];
        for (int k = 0; k < BATCH_SLOTS; k++) satfeat_detect_slot_delete(ln->slot[k]);
        satfeat_fh_twin_free(&ln->twin);
    }
    free(b->lane);
    b->lane = NULL;
}

/* Creates lane `ln` on det's device; the reason of a failure goes to det's context. */
static satfeat_status lane_new(satfeat_detector *det, batch_lane *ln)
{
    /* a lane's host work runs on one of the batch's threads */
    satfeat_status st = satfeat_fh_twin_new(det, 1, "batch: lane", &ln->twin);
    for (int k = 0; k < BATCH_SLOTS && st == SATFEAT_OK; k++)
        st = satfeat_fh_twin_status(satfeat_detector_ctx(det), &ln->twin, "batch: lane",
                                    satfeat_detect_slot_new(ln->twin.det, &ln->slot[k]));
    return st;
}

satfeat_status satfeat_batch_new(satfeat_detector *det, int lanes, satfeat_batch **out)
{
    if (!det) return SATFEAT_ERR_ARG;
    satfeat_ctx *ctx = satfeat_detector_ctx(det);
    if (!out) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "batch: NULL out");
    *out = NULL;
    if (lanes < 0 || lanes > SATFEAT_BATCH_MAX_LANES)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "batch: lanes %d not in 0..%d", lanes,
                            SATFEAT_BATCH_MAX_LANES);
    if (lanes == 0) lanes = SATFEAT_BATCH_DEFAULT_LANES;
    satfeat_batch *b = calloc(1, sizeof *b);
    if (!b) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "batch: out of memory");
    b->det = det;
    b->lanes = lanes;
    if (satfeat_detector_overlaps(det)) {
        b->lane = calloc((size_t)lanes, sizeof *b->lane);
        if (!b->lane) {
            free(b);
            return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "batch: out of memory");
        }
        for (int l = 0; l < lanes; l++) {
            satfeat_status st = lane_new(det, &b->lane[l]);
            if (st != SATFEAT_OK) {
                satfeat_batch_delete(b);
                return st;
            }
        }
    }
    *out = b;
    return SATFEAT_OK;
}

void satfeat_batch_delete(satfeat_batch *b)
{
    if (!b) return;
    lanes_free(b);
    free(b);
}

int satfeat_batch_lanes(const satfeat_batch *b)
{
    return b ? b->lanes : 0;
}

/* Records frame i's status (a failed frame's set is left empty); a lane keeps the message of
 * its lowest failed frame. */
static void finish(batch_lane *ln, satfeat_frame_result *r, size_t i, satfeat_status st)
{
    r[i].status = st;
    satfeat_frame_failure_note(&ln->fail, i, st, ln->twin.ctx);
}

/* Waits for the oldest frame in flight on `ln` and writes it into its result. */
static void collect_oldest(batch_lane *ln, satfeat_frame_result *r)
{
    const int k = ln->head;
    const size_t i = ln->frame[k];
    ln->head = (ln->head + 1) % BATCH_SLOTS;
    ln->pending--;
    finish(ln, r, i, satfeat_detect_slot_collect(ln->slot[k], r[i].features));
}

/* Prepares frame i's set and queues the frame on a free slot of `ln` (collecting the oldest
 * frame first when both are taken); a frame that cannot be queued is finished with its error. */
static void submit(batch_lane *ln, const satfeat_image_view *f, satfeat_frame_result *r, size_t i)
{
    r[i].device = ln->twin.ctx->device;
    satfeat_status st = satfeat_features_out(&r[i].features);
    if (st != SATFEAT_OK) {
        finish(ln, r, i, satfeat_fail(ln->twin.ctx, st, "out of memory"));
        return;
    }
    if (ln->pending == BATCH_SLOTS) collect_oldest(ln, r);
    const int k = (ln->head + ln->pending) % BATCH_SLOTS;
    st = satfeat_detect_slot_submit(ln->slot[k], &f[i], 1);
    if (st != SATFEAT_OK) {
        finish(ln, r, i, st);
        return;
    }
    ln->frame[k] = i;
    ln->pending++;
}

/* The work of host thread t of `threads`: the frames of lanes t, t + threads, ... in input order,
 * then what is still in flight on those lanes. */
static void run_thread(satfeat_batch *b, int t, int threads, const satfeat_image_view *f,
                       size_t n, satfeat_frame_result *r)
{
    const size_t lanes = (size_t)b->lanes;
    for (size_t i = 0; i < n; i++) {
        const size_t l = i % lanes;
        if ((int)(l % (size_t)threads) == t) submit(&b->lane[l], f, r, i);
    }
    for (int l = t; l < b->lanes; l += threads)
        while (b->lane[l].pending > 0) collect_oldest(&b->lane[l], r);
}

/* CUDA: the frames over the lanes; returns the lowest failed frame of all lanes, or NULL. */
static const satfeat_frame_failure *detect_lanes(satfeat_batch *b, const satfeat_image_view *f,
                                                 size_t n, satfeat_frame_result *r)
{
    int threads = satfeat_detector_ctx(b->det)->threads;
    if (threads > b->lanes) threads = b->lanes;
    if ((size_t)threads > n) threads = (int)n;
    if (threads < 1) threads = 1;
    for (int l = 0; l < b->lanes; l++) {
        b->lane[l].head = b->lane[l].pending = 0;
        satfeat_frame_failure_reset(&b->lane[l].fail);
    }
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        const int t = omp_get_thread_num(), team = omp_get_num_threads();
        run_thread(b, t, team, f, n, r);
    }
#else
    run_thread(b, 0, 1, f, n, r);
#endif
    const satfeat_frame_failure *first = NULL;
    for (int l = 0; l < b->lanes; l++)
        first = satfeat_frame_failure_lower(first, &b->lane[l].fail);
    return first;
}

/* Elsewhere: the frames one after another on the detector; returns their lowest failure (in
 * *f), or NULL. */
static const satfeat_frame_failure *detect_in_turn(satfeat_detector *det,
                                                   const satfeat_image_view *frames, size_t n,
                                                   satfeat_frame_result *results,
                                                   satfeat_frame_failure *f)
{
    satfeat_ctx *ctx = satfeat_detector_ctx(det);
    satfeat_frame_failure_reset(f);
    for (size_t i = 0; i < n; i++) {
        satfeat_frame_result *r = &results[i];
        r->device = -1;
        r->status = satfeat_detect(det, &frames[i], &r->features);
        satfeat_frame_failure_note(f, i, r->status, ctx);
    }
    return satfeat_frame_failure_lower(NULL, f);
}

satfeat_status satfeat_batch_detect(satfeat_batch *b, const satfeat_image_view *frames, size_t n,
                                    satfeat_frame_result *results)
{
    if (!b) return SATFEAT_ERR_ARG;
    satfeat_detector *det = b->det;
    satfeat_ctx *ctx = satfeat_detector_ctx(det);
    if (n == 0) return SATFEAT_OK;
    if (!frames || !results)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "batch: NULL frames or results");
    if (n > SIZE_MAX / sizeof *results || n > SIZE_MAX / sizeof *frames)
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "batch: %zu frames exceed any array", n);
    satfeat_frame_failure cpu;
    const satfeat_frame_failure *first = b->lane ? detect_lanes(b, frames, n, results)
                                                 : detect_in_turn(det, frames, n, results, &cpu);
    if (!first) return SATFEAT_OK;
    return satfeat_fail(ctx, first->status, "batch: frame %zu: %s", first->index, first->msg);
}

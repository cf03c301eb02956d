/* sequence.c - image sequences with several frames in flight. On a CUDA detector each slot is a
 * satfeat_fh_slot (own stream, pinned buffers): pushing frame k uploads it and queues its
 * detection while earlier frames are still on the GPU, and popping copies the oldest frame's
 * keypoints out. The slots are spread over `lanes` detectors: lane 0 is the sequence's detector,
 * lanes 1.. are its twins (twin.h), so frames of different lanes have their own device state and
 * run side by side on the GPU instead of one after the other; slot i belongs to lane i % lanes.
 * A frame pushed by satfeat_sequence_push is detected without descriptors (the descriptor kernel
 * is about a third of a described 1080p frame's GPU time); one pushed by
 * satfeat_sequence_push_features is described when the detector has a descriptor. On a CPU
 * detector a slot keeps a copy of the frame and popping detects it, so the results and their
 * order are the same, only nothing overlaps (and there are no twins). */
#include "detect/detector_cuda.h"
#include "frames/twin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct seq_slot {
    satfeat_fh_slot *gpu; /* CUDA detectors */
    satfeat_detector *det; /* the lane's detector the slot belongs to (CUDA detectors) */
    const satfeat_fh_twin *twin; /* that lane's twin, NULL for lane 0 */
    uint8_t *image;       /* CPU detectors: the frame, max_width x max_height, tight */
    int width, height;
    int described; /* pushed by satfeat_sequence_push_features on a detector with descriptors */
} seq_slot;

struct satfeat_sequence {
    satfeat_detector *det;
    int slots, oldest, pending;
    seq_slot *s;
    int twins;             /* lanes - 1 on a CUDA detector, else 0 */
    satfeat_fh_twin *twin; /* lanes 1.. */
};

/* A status of a call on slot s's lane as a status of the sequence's context. */
static satfeat_status lane_status(const satfeat_sequence *q, const seq_slot *s, satfeat_status st)
{
    return s->twin ? satfeat_fh_twin_status(q->det->ctx, s->twin, "sequence: lane", st) : st;
}

/* The slots' buffers (and on CUDA the twins); the reason of a failure is on det's context. */
static satfeat_status slots_new(satfeat_sequence *q, int lanes)
{
    satfeat_detector *det = q->det;
    satfeat_ctx *ctx = det->ctx;
    if (!det->gpu) { /* CPU slots hold a copy of a maximum frame each: within the memory limit */
        char what[96];
        snprintf(what, sizeof what, "sequence: %d slots of %dx%d frames", q->slots,
                 det->max_width, det->max_height);
        satfeat_status st = satfeat_check_budget(
            ctx, what, (size_t)q->slots * (size_t)det->max_width * (size_t)det->max_height);
        if (st != SATFEAT_OK) return st;
        for (int i = 0; i < q->slots; i++) {
            q->s[i].image = malloc((size_t)det->max_width * (size_t)det->max_height);
            if (!q->s[i].image) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "sequence: out of memory");
        }
        return SATFEAT_OK;
    }
    if (lanes > 1) {
        q->twin = calloc((size_t)(lanes - 1), sizeof *q->twin);
        if (!q->twin) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "sequence: out of memory");
        for (; q->twins < lanes - 1; q->twins++) {
            satfeat_status st =
                satfeat_fh_twin_new(det, ctx->threads, "sequence: lane", &q->twin[q->twins]);
            if (st != SATFEAT_OK) return st;
        }
    }
    for (int i = 0; i < q->slots; i++) {
        seq_slot *s = &q->s[i];
        const int lane = i % lanes;
        s->twin = lane ? &q->twin[lane - 1] : NULL;
        s->det = lane ? s->twin->det : det;
        satfeat_status st = lane_status(q, s, satfeat_fh_slot_new(s->det, &s->gpu));
        if (st != SATFEAT_OK) return st;
    }
    return SATFEAT_OK;
}

satfeat_status satfeat_sequence_new_lanes(satfeat_detector *det, int slots, int lanes,
                                          satfeat_sequence **out)
{
    if (!det) return SATFEAT_ERR_ARG;
    satfeat_ctx *ctx = det->ctx;
    if (!out) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sequence: NULL argument");
    *out = NULL;
    if (slots < 1 || slots > SATFEAT_SEQUENCE_MAX_SLOTS)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sequence: slots %d not in 1..%d", slots,
                            SATFEAT_SEQUENCE_MAX_SLOTS);
    if (lanes < 1 || lanes > slots)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sequence: lanes %d not in 1..%d (the slots)",
                            lanes, slots);
    satfeat_sequence *q = calloc(1, sizeof *q);
    if (q) q->s = calloc((size_t)slots, sizeof *q->s);
    if (!q || !q->s) {
        free(q);
        return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "sequence: out of memory");
    }
    q->det = det;
    q->slots = slots;
    const satfeat_status st = slots_new(q, lanes);
    if (st != SATFEAT_OK) {
        satfeat_sequence_delete(q);
        return st;
    }
    *out = q;
    return SATFEAT_OK;
}

satfeat_status satfeat_sequence_new(satfeat_detector *det, int slots, satfeat_sequence **out)
{
    return satfeat_sequence_new_lanes(det, slots, 1, out);
}

void satfeat_sequence_delete(satfeat_sequence *q)
{
    if (!q) return;
    for (int i = 0; i < q->slots; i++) {
        satfeat_fh_slot_delete(q->s[i].gpu);
        free(q->s[i].image);
    }
    for (int l = 0; l < q->twins; l++) satfeat_fh_twin_free(&q->twin[l]);
    free(q->twin);
    free(q->s);
    free(q);
}

int satfeat_sequence_pending(const satfeat_sequence *q)
{
    return q ? q->pending : 0;
}

satfeat_status satfeat_sequence_pop_features(satfeat_sequence *q, satfeat_keypoint *keypoints,
                                             float *descriptors, size_t capacity, size_t *count)
{
    if (!q) return SATFEAT_ERR_ARG;
    satfeat_ctx *ctx = q->det->ctx;
    if (!count || (capacity > 0 && !keypoints))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sequence: NULL count or keypoints");
    if (q->pending == 0) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sequence: no frame pending");
    satfeat_status st = satfeat_fh_check_descriptors(q->det, descriptors, capacity);
    if (st != SATFEAT_OK) return st;
    seq_slot *s = &q->s[q->oldest];
    if (descriptors && !s->described) /* the frame stays pending */
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "sequence: descriptors asked of a frame pushed without them "
                            "(satfeat_sequence_push detects keypoints only; "
                            "satfeat_sequence_push_features describes)");
    q->oldest = (q->oldest + 1) % q->slots;
    q->pending--;
    if (s->gpu)
        return lane_status(q, s, satfeat_fh_slot_collect(s->det, s->gpu, keypoints, descriptors,
                                                         capacity, count));
    return satfeat_detect_features_u8(q->det, s->image, (size_t)s->width, s->width, s->height,
                                      NULL, 0, 0, 0, keypoints, descriptors, capacity, count);
}

satfeat_status satfeat_sequence_pop(satfeat_sequence *q, satfeat_keypoint *keypoints,
                                    size_t capacity, size_t *count)
{
    return satfeat_sequence_pop_features(q, keypoints, NULL, capacity, count);
}

/* Queues a frame, described or not (see the file comment), finishing the oldest into the
 * caller's arrays first when every slot is taken. */
static satfeat_status push_frame(satfeat_sequence *q, const uint8_t *image, size_t stride,
                                 int width, int height, satfeat_keypoint *keypoints,
                                 float *descriptors, size_t capacity, size_t *count, int *popped,
                                 int describe)
{
    if (!q) return SATFEAT_ERR_ARG;
    satfeat_ctx *ctx = q->det->ctx;
    if (!popped) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "sequence: NULL popped");
    *popped = 0;
    const size_t one = 0;
    satfeat_status st = satfeat_fh_check_frame(q->det, image, stride, width, height, NULL, 0, 0,
                                               0, NULL, 0, &one);
    if (st == SATFEAT_OK) st = satfeat_fh_check_descriptors(q->det, descriptors, capacity);
    if (st != SATFEAT_OK) return st;
    if (q->pending == q->slots) {
        st = satfeat_sequence_pop_features(q, keypoints, descriptors, capacity, count);
        *popped = st == SATFEAT_OK || st == SATFEAT_ERR_CAPACITY;
        if (!*popped) return st;
    }
    seq_slot *s = &q->s[(q->oldest + q->pending) % q->slots];
    satfeat_status sub = SATFEAT_OK;
    if (s->gpu) {
        sub = lane_status(q, s, satfeat_fh_slot_submit(s->det, s->gpu, image, stride, width,
                                                       height, NULL, 0, describe));
    } else {
        for (int y = 0; y < height; y++)
            memcpy(s->image + (size_t)y * (size_t)width, image + (size_t)y * stride,
                   (size_t)width);
    }
    if (sub != SATFEAT_OK) return sub; /* the popped frame, if any, is still delivered */
    s->width = width;
    s->height = height;
    s->described = describe;
    q->pending++;
    return st;
}

satfeat_status satfeat_sequence_push_features(satfeat_sequence *q, const uint8_t *image,
                                              size_t stride, int width, int height,
                                              satfeat_keypoint *keypoints, float *descriptors,
                                              size_t capacity, size_t *count, int *popped)
{
    const int describe = q && q->det->params.descriptor != SATFEAT_DESCRIPTOR_NONE;
    return push_frame(q, image, stride, width, height, keypoints, descriptors, capacity, count,
                      popped, describe);
}

satfeat_status satfeat_sequence_push(satfeat_sequence *q, const uint8_t *image, size_t stride,
                                     int width, int height, satfeat_keypoint *keypoints,
                                     size_t capacity, size_t *count, int *popped)
{
    return push_frame(q, image, stride, width, height, keypoints, NULL, capacity, count, popped,
                      0);
}

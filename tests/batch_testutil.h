/* batch_testutil.h - frames, references and checks shared by the batch tests (test_batch.c, CPU
 * detectors; test_batch_cuda.c, CUDA detectors against the CPU). */
#ifndef SATFEAT_BATCH_TESTUTIL_H
#define SATFEAT_BATCH_TESTUTIL_H

#include "detect_synth.h"

/* The detectors' maximum frame; frames come in three sizes up to it. */
#define BT_W 160
#define BT_H 120

/** `n` frames of different content (random blobs) and mixed sizes up to BT_W x BT_H, some with
 *  a stride wider than the width. */
typedef struct bt_frames {
    size_t n;
    uint8_t **img;
    satfeat_image_view *f;
} bt_frames;

bt_frames bt_frames_make(size_t n, uint64_t seed);
void bt_frames_free(bt_frames *fr);

/**
 * Creates a detector (default parameters; BT_W x BT_H, or sized by its frames when `lazy`) on
 * `ctx` and a batch of `lanes` lanes on it, runs the batch twice over `fr` (the second time
 * into the sets of the first, which keep their arrays) and asserts that every result equals
 * satfeat_detect of a CPU detector, in input order, with status OK and the device `device`.
 */
void bt_check_equal(satfeat_ctx *ctx, int lanes, const bt_frames *fr, int device, int lazy);

/**
 * On a batch of `lanes` lanes over a detector on `ctx`: a frame too large, a device view, one
 * with NULL pixels and one with a too narrow stride fail on their own (their sets, full from an
 * earlier call, left empty) while the others equal the CPU reference; the call returns the
 * first failure, named in the context. A detector without descriptors gives keypoint sets.
 */
void bt_check_frame_errors(satfeat_ctx *ctx, int lanes);

#endif

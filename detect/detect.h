/* detect.h - the seam of detect/ for frame scheduling (frames/: sequences, batches, twins): the
 * whole internal interface they use. A frame slot holds one frame between submit and collect
 * on whatever backend the detector has; the detector is read through accessors. */
#ifndef SATFEAT_DETECT_SEAM_H
#define SATFEAT_DETECT_SEAM_H

#include "satfeat.h"

/** A frame slot of a detector (opaque). */
typedef struct satfeat_detect_slot satfeat_detect_slot;

/** The context a detector was created on. */
satfeat_ctx *satfeat_detector_ctx(const satfeat_detector *det);

/** The parameters a detector was created with. */
const satfeat_detector_params *satfeat_detector_params_of(const satfeat_detector *det);

/** The maximum frame a detector was created for (0 x 0: sized by its frames). */
void satfeat_detector_created_size(const satfeat_detector *det, int *width, int *height);

/** 1 when frames of different slots and twins of `det` run at the same time (CUDA): then frame
 *  scheduling keeps several in flight and uses twins; 0 when a slot only defers the work. */
int satfeat_detector_overlaps(const satfeat_detector *det);

/**
 * Checks a view for `det` as satfeat_detect does (NULL, sizes, strides, the mask, device memory
 * on a detector that cannot read it, a frame above a fixed maximum), with the reason in det's
 * context.
 */
satfeat_status satfeat_detect_check_view(satfeat_detector *det, const satfeat_image_view *view);

/** Creates a slot of `det` (its buffers for det's maximum frame; on a detector sized by its
 *  frames they are made by the first submit). */
satfeat_status satfeat_detect_slot_new(satfeat_detector *det, satfeat_detect_slot **out);

/** Destroys a slot, waiting for its frame first. NULL is allowed. */
void satfeat_detect_slot_delete(satfeat_detect_slot *slot);

/**
 * Queues a host view on a free slot: checks it (satfeat_detect_check_view), grows a detector
 * sized by its frames, copies the frame and queues its detection (described when `describe`
 * and the detector has a descriptor kind). May return before the frame is detected.
 */
satfeat_status satfeat_detect_slot_submit(satfeat_detect_slot *slot,
                                          const satfeat_image_view *view, int describe);

/** Finishes the slot's frame into `out` (emptied and refilled; left empty on failure). */
satfeat_status satfeat_detect_slot_collect(satfeat_detect_slot *slot, satfeat_features *out);

#endif

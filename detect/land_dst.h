/* land_dst.h - where a CUDA kernel that finishes keypoints or descriptors also writes them: the
 * detector's mapped pinned landing buffer (detector_cuda.c), so that their copy to the host
 * overlaps the kernel instead of following it in the download kernel. */
#ifndef SATFEAT_LAND_DST_H
#define SATFEAT_LAND_DST_H

#include "satfeat.h"

#include <stdint.h>

/** Entries i < cap of kp (finished keypoints) and desc (dim floats each) are written there too;
 *  a NULL pointer writes nothing. */
typedef struct satfeat_land_dst {
    satfeat_keypoint *kp;
    float *desc;
    uint32_t cap;
} satfeat_land_dst;

#endif

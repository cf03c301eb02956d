/* land_dst.h - where a CUDA kernel that finishes keypoints or descriptors also writes them: the
 * detector's mapped pinned landing buffer (detector_cuda.c), so that their copy to the host
 * overlaps the kernel instead of following it in the download kernel. */
#ifndef SATFEAT_LAND_DST_H
#define SATFEAT_LAND_DST_H

#include "satfeat.h"

#include <stdint.h>

/** A keypoint as 8-byte words: the lanes of a warp copy one word each. */
#define SATFEAT_KP_U64 (sizeof(satfeat_keypoint) / sizeof(uint64_t))
#ifdef __cplusplus
static_assert(sizeof(satfeat_keypoint) % sizeof(uint64_t) == 0, "keypoint not whole 8-byte words");
static_assert(SATFEAT_KP_U64 <= 32, "a keypoint has more words than a warp has lanes");
#endif

/** Entries i < cap of kp (finished keypoints) and desc (dim floats each) are written there too;
 *  a NULL pointer writes nothing. */
typedef struct satfeat_land_dst {
    satfeat_keypoint *kp;
    float *desc;
    uint32_t cap;
} satfeat_land_dst;

#endif

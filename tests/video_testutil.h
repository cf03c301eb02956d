/* video_testutil.h - the video tests' encoder: writes synthetic or given gray frames into a video
 * file with one of libavcodec's encoders, so the tests need no video data files. */
#ifndef SATFEAT_VIDEO_TESTUTIL_H
#define SATFEAT_VIDEO_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

/** Frame `k` (0-based) of the synthetic test sequence: Gaussian blobs on a textured background
 * that drift by (1.5, 0.75) px a frame, so a detector finds keypoints and a tracker follows
 * them. Writes w x h pixels with byte stride `stride`. */
void video_test_frame(uint8_t *dst, size_t stride, int w, int h, int k);

/** Frame source of video_test_encode: writes frame k into dst (stride given). */
typedef void (*video_test_frame_fn)(uint8_t *dst, size_t stride, int w, int h, int k, void *user);

/**
 * Encodes n frames of w x h from `frame` into `path` with container `container` (an FFmpeg muxer
 * name: "matroska", "nut", "avi") and encoder `codec` ("ffv1", "mpeg4", ...) at `fps` frames
 * per second with a keyframe every `gop` frames and at most `bframes` B-frames in a row (so
 * presentation and decoding order differ; 0 for intra-only codecs such as FFV1). FFV1 is given GRAY8 frames (lossless, so the
 * file holds exactly the pixels; version 3 with slice CRCs); other encoders YUV420P with the gray as Y and neutral chroma.
 * Returns 0, or -1 with a message on stderr.
 */
int video_test_encode(const char *path, const char *container, const char *codec, int w, int h,
                      int n, int fps, int gop, int bframes, video_test_frame_fn frame,
                      void *user);

/** video_test_frame as a video_test_frame_fn. */
void video_test_synthetic(uint8_t *dst, size_t stride, int w, int h, int k, void *user);

#endif

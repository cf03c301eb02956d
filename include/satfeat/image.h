/* satfeat/image.h - libsatfeat public API: reading and writing images; video frames through
 * FFmpeg. Part of satfeat.h, which includes every part; include satfeat.h. */
#ifndef SATFEAT_API_IMAGE_H
#define SATFEAT_API_IMAGE_H

#include "satfeat/core.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Images: PNG, JPEG, PGM and PPM in; PNG, PGM and PPM out
 * ------------------------------------------------------------------------------------------- */

/** File formats the reader recognises (by content, not by file name). */
typedef enum satfeat_image_format {
    SATFEAT_FORMAT_UNKNOWN = 0,
    SATFEAT_FORMAT_PNG,
    SATFEAT_FORMAT_PGM_ASCII,  /**< P2 */
    SATFEAT_FORMAT_PPM_ASCII,  /**< P3 */
    SATFEAT_FORMAT_PGM_BINARY, /**< P5 */
    SATFEAT_FORMAT_PPM_BINARY, /**< P6 */
    SATFEAT_FORMAT_JPEG        /**< baseline, extended or progressive 8-bit JPEG (JFIF, EXIF) */
} satfeat_image_format;

/** What a file's header says, read without decoding the pixels. */
typedef struct satfeat_image_info {
    int width;
    int height;
    int channels;   /**< 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA; JPEG: its components (1 gray,
                         3 YCbCr or RGB, 4 CMYK or YCCK) */
    int bit_depth;  /**< bits per channel sample as stored: 8 or 16 (PNM maxval > 255 is 16;
                         PNG palettes and 1/2/4-bit gray read as 8) */
    satfeat_image_format format;
} satfeat_image_info;

/*
 * Limits (README "Limits"; each is tested just under and just over it in tests/test_limits.c):
 *  - width and height: 1 .. SATFEAT_IMAGE_MAX_SIDE for files read and written and for a
 *    detector's maximum frame (beyond: SATFEAT_ERR_OVERFLOW, the true size in the message);
 *  - pixels: at most SATFEAT_IMAGE_MAX_PIXELS per image or detector frame (SATFEAT_ERR_OVERFLOW);
 *  - memory: one image read, one CPU detector / sequence or one tracker's own buffers may need at
 *    most the context's memory limit (satfeat_ctx_set_memory_limit, default half of the physical
 *    memory), checked before allocating (SATFEAT_ERR_LIMIT);
 *  - keypoints: a frame returns every selected keypoint up to the caller's capacity (beyond:
 *    SATFEAT_ERR_CAPACITY with the count needed); max_keypoints caps the selection;
 *  - threads: 0 .. SATFEAT_MAX_THREADS per context (satfeat_ctx_set_threads; SATFEAT_ERR_ARG).
 */

/** Largest width or height the image reader, the writers and a detector accept. */
#define SATFEAT_IMAGE_MAX_SIDE 65536
/** Largest pixel count the image reader, the writers and a detector accept (2^30). */
#define SATFEAT_IMAGE_MAX_PIXELS (1u << 30)
/** Largest thread count satfeat_ctx_set_threads accepts. */
#define SATFEAT_MAX_THREADS 4096

/**
 * Reads a file's header (the format is recognised by its first bytes, not its name). Files are
 * streamed, never read whole. Sizes are validated here, before anything is allocated: a zero width or height gives SATFEAT_ERR_FORMAT,
 * a side above SATFEAT_IMAGE_MAX_SIDE or more than SATFEAT_IMAGE_MAX_PIXELS pixels gives
 * SATFEAT_ERR_OVERFLOW. A file that cannot be opened gives SATFEAT_ERR_IO, a malformed or
 * unsupported one (PBM, PAM, TIFF, GIF, BMP, WebP: "TIFF is not supported ...") SATFEAT_ERR_FORMAT.
 * For a JPEG the width and height are those after its EXIF orientation (see
 * satfeat_image_read_gray8): a photo taken in portrait reports its portrait size. `ctx` may be NULL.
 */
SATFEAT_API satfeat_status satfeat_image_read_info(satfeat_ctx *ctx, const char *path,
                                                   satfeat_image_info *info);

/**
 * Reads an image file and converts it to 8-bit gray into the caller's buffer of exactly the
 * file's width x height (from satfeat_image_read_info; another size gives SATFEAT_ERR_ARG) with
 * byte stride `stride` >= width. Conversion, on the samples as stored in the file: each sample
 * is first scaled to 8 bits by round(v * 255 / maxval) (maxval 65535 for 16-bit PNG, the header's
 * maxval for PNM, a no-op at 255); then colour becomes gray by Y = (77 R + 150 G + 29 B + 128) >> 8
 * (BT.601 weights in 8-bit fixed point); alpha is ignored, never composed. PNG palettes and 1, 2
 * and 4-bit gray are expanded to 8 bits first; gAMA chunks are ignored (no gamma correction). The
 * pixels are decoded into a temporary buffer, so on any error `dst` is left unchanged. Truncated
 * or corrupt data gives SATFEAT_ERR_FORMAT. `ctx` may be NULL.
 *
 * JPEG (libjpeg-turbo; baseline, extended and progressive, 8-bit): gray and YCbCr files give the
 * decoder's luma channel Y as it stands (the pixels `djpeg -grayscale` writes, not the formula
 * above); RGB-coded files libjpeg's own RGB-to-gray. CMYK and YCCK files: with an Adobe marker
 * the samples are stored inverted (Photoshop's convention), so R = C K / 255, G = M K / 255,
 * B = Y K / 255 (rounded); without one they are ink amounts, inverted first; then the formula
 * above. The EXIF orientation (tag 0x0112 of IFD0; malformed EXIF is ignored) is applied: the
 * output is upright as a viewer shows it, and its size is the oriented one. A file whose data ends
 * before the last row is refused ("truncated JPEG"), never gray-filled; data after the last row
 * is not read. 12-bit JPEG gives SATFEAT_ERR_UNSUPPORTED, an unknown colour space too.
 */
SATFEAT_API satfeat_status satfeat_image_read_gray8(satfeat_ctx *ctx, const char *path,
                                                    uint8_t *dst, size_t stride, int width,
                                                    int height);

/**
 * Convenience: reads an image as 8-bit gray into a buffer the library allocates (tightly
 * packed, stride = width), with the conversion and errors of satfeat_image_read_gray8; free it
 * with satfeat_free. On error *pixels is NULL. `ctx` may be NULL.
 */
SATFEAT_API satfeat_status satfeat_image_load_gray8(satfeat_ctx *ctx, const char *path,
                                                    uint8_t **pixels, int *width, int *height);

/**
 * Writes an 8-bit PNG with 1 (gray) or 3 (RGB, interleaved) channels from a buffer with byte
 * stride `stride` >= width*channels. Sizes follow the reader's limits (SATFEAT_ERR_OVERFLOW
 * beyond them). A regular file (or a new path) is written to a temporary file in the same
 * directory that is renamed over `path` only when everything was written, so a failed write
 * (SATFEAT_ERR_IO) leaves an existing file byte-identical and no temporary file behind; the
 * new file keeps an existing file's permission bits (a new path gets 0666 less the umask); a
 * symbolic link is followed (the file it leads to is replaced, the link stays); a device, a
 * FIFO or a path through /proc or /dev/fd (/dev/stdout) is written in place and never removed
 * nor truncated. `ctx` may be NULL.
 */
SATFEAT_API satfeat_status satfeat_image_write_png(satfeat_ctx *ctx, const char *path,
                                                   const uint8_t *pixels, size_t stride, int width,
                                                   int height, int channels);

/**
 * Writes an 8-bit binary PGM (P5, channels 1) or PPM (P6, channels 3), maxval 255, with the
 * stride, size and failure rules of satfeat_image_write_png (a failed write never loses the
 * existing file). `ctx` may be NULL.
 */
SATFEAT_API satfeat_status satfeat_image_write_pnm(satfeat_ctx *ctx, const char *path,
                                                   const uint8_t *pixels, size_t stride, int width,
                                                   int height, int channels);

/* ---------------------------------------------------------------------------------------------
 * Video: frames of a video file (or a V4L2 camera) as 8-bit gray, through FFmpeg
 *
 * Optional at build time (CMake SATFEAT_WITH_VIDEO, FFmpeg's libavformat, libavcodec, libswscale
 * and libavutil). Without it every satfeat_video_* call below exists and fails with
 * SATFEAT_ERR_UNSUPPORTED "video support was not built"; satfeat_has_video_build() says which.
 *
 * Frames are numbered from 0 (the first frame of the file) in this API. The first video stream
 * of the container is read (FFmpeg's "best" video stream); audio and other streams are ignored.
 * Only single-file video formats reach FFmpeg's parsers: the containers Matroska/WebM, MP4/MOV
 * (3GP), AVI, NUT, Y4M, MPEG-TS, MPEG-PS, IVF, Ogg and FLV, and the codecs H.264, HEVC, MPEG-4
 * Part 2, MPEG-1/2, H.263 (and FLV's), VP8, VP9, AV1, FFV1, MJPEG, raw video and Theora. Anything
 * else (playlists such as HLS, image and audio formats, other codecs) is refused by name with
 * SATFEAT_ERR_FORMAT before FFmpeg parses it: every demuxer and decoder FFmpeg has is attack
 * surface for a file from anywhere.
 * Gray conversion (libswscale to GRAY8): a gray source (GRAY8, e.g. FFV1 gray) is copied bit for
 * bit; a YUV source gives its luma (Y) plane, expanded from limited range (16..235) to full range
 * (0..255) unless the stream is tagged full range (JPEG range), then taken as is; an RGB source
 * gives BT.601 luma. Sources of more than 8 bits per sample are scaled to 8 bits.
 * A video object is not thread-safe: use one object from one thread at a time.
 * FFmpeg logs through its process-wide av_log: the library never prints, so when FFmpeg's log
 * level is still its default (AV_LOG_INFO, i.e. the application never chose one) the first
 * satfeat_video_open lowers it to AV_LOG_QUIET; an application that set a level keeps it.
 * ------------------------------------------------------------------------------------------- */

/** Opaque video reader (a frame source). */
typedef struct satfeat_video satfeat_video;

/** satfeat_video_open flags. */
#define SATFEAT_VIDEO_DEVICE 1u /**< `path` is a V4L2 camera device (/dev/videoN): a character
                                     device is then accepted instead of a regular file */

/** What the container says about the video stream. Unknown values are 0, never NaN. */
typedef struct satfeat_video_info {
    int width;           /**< frame width in pixels (>= 1) */
    int height;          /**< frame height in pixels (>= 1) */
    int64_t frame_count; /**< frames in the stream: the count the container stores, else
                              round(duration x fps) when both are known (an estimate that
                              may be one frame off), else 0 =
                              unknown (cameras, streams without duration). Reading always goes
                              on to the true end of the stream. */
    double fps;          /**< frames per second (FFmpeg's guess: the stream's base rate, or its
                              average where that is far from it), 0 = unknown */
    char codec[32];      /**< the codec's short FFmpeg name ("ffv1", "h264", ...) */
    char container[32];  /**< the demuxer's short name ("matroska,webm" is cut at 31 bytes) */
} satfeat_video_info;

/** Returns 1 when this build of the library reads video (FFmpeg), else 0. */
SATFEAT_API int satfeat_has_video_build(void);

/**
 * Opens a video for reading through context `ctx` (non-NULL; it must outlive the video and
 * receives the messages of every failed call on the video). `path` is a local file path: a URL
 * ("scheme://...") is refused with SATFEAT_ERR_ARG. The file is opened non-blocking and must be
 * a regular file (a FIFO, a socket, a directory or a device gives SATFEAT_ERR_IO "is a FIFO, not
 * a regular file" at once, never blocking) unless `flags` has SATFEAT_VIDEO_DEVICE, which asks
 * for a V4L2 camera: then a character device is required (this path needs an FFmpeg with its
 * V4L2 input registered, i.e. libavdevice at build time, else SATFEAT_ERR_UNSUPPORTED).
 * The container is read through the library's own open stream (a custom AVIOContext), so the
 * path is opened once. Sizes: width and height must lie in 1..SATFEAT_IMAGE_MAX_SIDE and their
 * product within SATFEAT_IMAGE_MAX_PIXELS (SATFEAT_ERR_OVERFLOW); the gray frame buffer and one
 * decoded frame must fit in the context's memory limit (SATFEAT_ERR_LIMIT). Not a video (no
 * video stream, unknown container or codec, a container or codec outside the lists above,
 * corrupt header): SATFEAT_ERR_FORMAT. Decoding uses
 * the context's thread count. On error *out is NULL.
 */
SATFEAT_API satfeat_status satfeat_video_open(satfeat_ctx *ctx, const char *path, unsigned flags,
                                              satfeat_video **out);

/** Closes a video and frees everything it owns. NULL is allowed. */
SATFEAT_API void satfeat_video_delete(satfeat_video *video);

/** Writes the stream's description into *info (SATFEAT_ERR_ARG for NULL arguments). */
SATFEAT_API satfeat_status satfeat_video_get_info(const satfeat_video *video,
                                                  satfeat_video_info *info);

/**
 * Reads the next frame as 8-bit gray into the caller's buffer of info.width x info.height with
 * byte stride `stride` >= width. *got_frame is 1 when a frame was written, 0 at the end of the
 * stream (status SATFEAT_OK and `dst` untouched: end of stream is not an error). Errors: a
 * corrupt stream that cannot be decoded gives SATFEAT_ERR_FORMAT (decoders are asked to report
 * damage rather than hide it: AV_EF_EXPLODE and CRC checks; a decoder that conceals damaged
 * slices regardless, as FFV1 does, returns the concealed frame), a read failure SATFEAT_ERR_IO, a frame whose size differs from the
 * stream's first SATFEAT_ERR_FORMAT. Demuxers end quietly where a file was cut, so a stream
 * that ends two or more frames before info.frame_count is reported as truncated
 * (SATFEAT_ERR_FORMAT "the stream ended after K frames, but the container declares N"); a
 * one-frame shortfall is within the count's rounding and passes. After an error the video may
 * still be seeked. Frames are returned in presentation order.
 */
SATFEAT_API satfeat_status satfeat_video_read_gray8(satfeat_video *video, uint8_t *dst,
                                                    size_t stride, int *got_frame);

/**
 * satfeat_video_read_gray8 into a buffer the video owns (tightly packed, stride = width),
 * allocated at open: *pixels points to it, valid until the next call on the video; NULL with
 * *got_frame 0 at the end of the stream.
 */
SATFEAT_API satfeat_status satfeat_video_next_gray8(satfeat_video *video, const uint8_t **pixels,
                                                    int *got_frame);

/**
 * Positions the video so that the next read returns frame `frame` (0-based). Exact: the
 * container is seeked to the nearest keyframe at or before the frame's timestamp, and the frames
 * before the wanted one are decoded and dropped (a short forward jump just decodes on). Frame
 * numbers come from timestamps (frame = round((pts - start) x fps)); where the container gives
 * no usable timestamps or rate, the video is read again from its start and frames are counted.
 * A frame at or past the end leaves the video at its end (the next read has *got_frame 0) and
 * returns SATFEAT_OK. A negative frame gives SATFEAT_ERR_ARG; a container that cannot seek
 * SATFEAT_ERR_UNSUPPORTED (cameras) or SATFEAT_ERR_FORMAT.
 */
SATFEAT_API satfeat_status satfeat_video_seek(satfeat_video *video, int64_t frame);

/** Returns the 0-based number of the frame the next read returns (-1 for NULL). */
SATFEAT_API int64_t satfeat_video_tell(const satfeat_video *video);

/**
 * Tells whether `path` looks like a video container by its first bytes (FFmpeg's probe,
 * answering 1 only for the containers satfeat_video_open reads): *is_video 1 or 0. The file must be a regular file (the rules of
 * satfeat_video_open). Without video support *is_video is 0 and the status
 * SATFEAT_ERR_UNSUPPORTED.
 */
SATFEAT_API satfeat_status satfeat_video_probe(satfeat_ctx *ctx, const char *path, int *is_video);

#ifdef __cplusplus
}
#endif

#endif

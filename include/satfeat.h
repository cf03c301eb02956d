/*
 * satfeat.h - the public API of libsatfeat.
 *
 * libsatfeat computes summed area tables (integral images) on the CPU and on CUDA GPUs, and on
 * top of them a SURF-style Fast-Hessian keypoint detector with orientations and SURF
 * descriptors, descriptor matching, robust motion estimation and a frame-to-frame tracker. This
 * header is the library's only public surface.
 *
 * Conventions
 *  - Every fallible call returns a satfeat_status; results come back through out-parameters.
 *  - Calls that take a context keep the text of their last error in it
 *    (satfeat_ctx_last_error). Where a context argument may be NULL, the status is still
 *    returned but the message is dropped.
 *  - Strides are in bytes. Widths and heights are in pixels and must be >= 1.
 *  - A summed area table of a w x h image has (w+1) x (h+1) entries: row 0 and column 0 are
 *    zero and entry (x, y) is the sum of the pixels with x' < x and y' < y, so the sum of any
 *    box is four reads and no branch (the layout of OpenCV's cv::integral and NPP).
 *  - The library never prints, never exits and keeps no global mutable state: two contexts
 *    used from two threads never interfere. One context must not be used by two threads at once.
 */
#ifndef SATFEAT_H
#define SATFEAT_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && defined(SATFEAT_SHARED)
#  if defined(SATFEAT_BUILDING)
#    define SATFEAT_API __declspec(dllexport)
#  else
#    define SATFEAT_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && defined(SATFEAT_BUILDING)
#  define SATFEAT_API __attribute__((visibility("default")))
#else
#  define SATFEAT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Version and status
 * ------------------------------------------------------------------------------------------- */

#define SATFEAT_VERSION_MAJOR 0
#define SATFEAT_VERSION_MINOR 1
#define SATFEAT_VERSION_PATCH 0

/** Outcome of every fallible call. SATFEAT_OK is zero; every error is non-zero. */
typedef enum satfeat_status {
    SATFEAT_OK = 0,
    SATFEAT_ERR_ARG,         /**< an argument is invalid (NULL pointer, zero size, bad stride) */
    SATFEAT_ERR_ALLOC,       /**< host or device memory could not be allocated */
    SATFEAT_ERR_OVERFLOW,    /**< a size is too large to be represented or allocated */
    SATFEAT_ERR_IO,          /**< a file could not be opened, read or written */
    SATFEAT_ERR_FORMAT,      /**< a file is malformed, truncated or of an unsupported kind */
    SATFEAT_ERR_CUDA,        /**< a CUDA call failed; the message names it */
    SATFEAT_ERR_NO_DEVICE,   /**< the CUDA backend was asked for but no usable device exists */
    SATFEAT_ERR_UNSUPPORTED, /**< the operation is not available in this build or backend */
    SATFEAT_ERR_CAPACITY,    /**< an output buffer is too small; the count needed is reported */
    SATFEAT_ERR_NO_MODEL,    /**< robust estimation found no model the data supports */
    SATFEAT_ERR_LIMIT        /**< a file, a detector or a tracker would need more host memory
                                  than the context's memory limit
                                  (satfeat_ctx_set_memory_limit); the message gives both sizes */
} satfeat_status;

/** Returns a short constant English description of a status code (never NULL). */
SATFEAT_API const char *satfeat_status_string(satfeat_status status);

/** Returns the library version as "MAJOR.MINOR.PATCH" (a constant string). */
SATFEAT_API const char *satfeat_version_string(void);

/** Writes the library's version numbers; any pointer may be NULL. */
SATFEAT_API void satfeat_version(int *major, int *minor, int *patch);

/** Returns 1 when this build of the library contains the CUDA backend, else 0. */
SATFEAT_API int satfeat_has_cuda_build(void);

/** Returns the number of usable CUDA devices (0 when none, or when built without CUDA). */
SATFEAT_API int satfeat_cuda_device_count(void);

/** Frees memory that the library allocated for the caller (images); NULL is allowed. */
SATFEAT_API void satfeat_free(void *ptr);

/* ---------------------------------------------------------------------------------------------
 * Context: backend choice, scratch memory, the last error
 * ------------------------------------------------------------------------------------------- */

/** Where the work runs. AUTO picks CUDA when a device is usable, else the CPU. */
typedef enum satfeat_backend {
    SATFEAT_BACKEND_AUTO = 0,
    SATFEAT_BACKEND_CPU,
    SATFEAT_BACKEND_CUDA
} satfeat_backend;

/** Opaque context: owns scratch memory (host and device), the stream, the last error. */
typedef struct satfeat_ctx satfeat_ctx;

/**
 * Creates a context. `backend` AUTO resolves to CUDA when `device` (or device 0 when `device`
 * is negative) is usable, else to CPU; CUDA fails with SATFEAT_ERR_NO_DEVICE when no device is
 * usable and SATFEAT_ERR_UNSUPPORTED when the library was built without CUDA.
 */
SATFEAT_API satfeat_status satfeat_ctx_new(satfeat_ctx **out, satfeat_backend backend, int device);

/** Destroys a context and frees everything it owns. NULL is allowed. */
SATFEAT_API void satfeat_ctx_delete(satfeat_ctx *ctx);

/** Returns the resolved backend of a context (CPU or CUDA, never AUTO). */
SATFEAT_API satfeat_backend satfeat_ctx_backend(const satfeat_ctx *ctx);

/** Returns the CUDA device ordinal a CUDA context uses, or -1 for a CPU context. */
SATFEAT_API int satfeat_ctx_device(const satfeat_ctx *ctx);

/**
 * Returns the message of the last failed call on this context ("" when none). The pointer is
 * valid until the next call on the context.
 */
SATFEAT_API const char *satfeat_ctx_last_error(const satfeat_ctx *ctx);

/**
 * Sets the number of CPU threads the context uses (0 = the OpenMP default, 1 = serial, at most
 * SATFEAT_MAX_THREADS; beyond: SATFEAT_ERR_ARG).
 */
SATFEAT_API satfeat_status satfeat_ctx_set_threads(satfeat_ctx *ctx, int threads);

/** Returns the number of CPU threads the context uses (resolved, >= 1). */
SATFEAT_API int satfeat_ctx_threads(const satfeat_ctx *ctx);

/**
 * Sets the memory limit of a context: the most host memory, in bytes, that one image read
 * (decoded samples, plus the gray copy of satfeat_image_load_gray8), one CPU detector or
 * sequence (all its buffers for the maximum frame) or one tracker's own buffers (max_tracks and
 * max_keypoints entries) may need. It is checked before the large
 * allocation; beyond it the call fails with SATFEAT_ERR_LIMIT and names both sizes, so a small
 * hostile file (a decompression bomb) or a huge maximum frame cannot exhaust the machine.
 * 0 restores the default, satfeat_default_memory_limit(). Reads with a NULL context use the
 * default. Device memory is not counted (it is bounded by the device: SATFEAT_ERR_ALLOC).
 */
SATFEAT_API satfeat_status satfeat_ctx_set_memory_limit(satfeat_ctx *ctx, size_t bytes);

/** Returns the context's memory limit in bytes (the default for a NULL context). */
SATFEAT_API size_t satfeat_ctx_memory_limit(const satfeat_ctx *ctx);

/** The default memory limit: half of the machine's physical memory (4 GiB if unknown). */
SATFEAT_API size_t satfeat_default_memory_limit(void);

/**
 * Sets the CUDA stream (a cudaStream_t passed as void*) on which the context's host-memory
 * calls run; NULL selects the legacy default stream. Fails with SATFEAT_ERR_UNSUPPORTED on a
 * CPU context.
 */
SATFEAT_API satfeat_status satfeat_ctx_set_stream(satfeat_ctx *ctx, void *stream);

/* ---------------------------------------------------------------------------------------------
 * Summed area tables
 * ------------------------------------------------------------------------------------------- */

/** Which SAT algorithm runs. AUTO picks by backend and size from measured crossovers. */
typedef enum satfeat_sat_algo {
    SATFEAT_SAT_AUTO = 0,
    SATFEAT_SAT_CPU,     /**< threaded row-band CPU pass (the reference) */
    SATFEAT_SAT_2R1W,    /**< CUDA: three kernels, two reads and one write per element */
    SATFEAT_SAT_SKSS_LB  /**< CUDA: one kernel with look-back, one read and one write */
} satfeat_sat_algo;

/**
 * Computes the (w+1) x (h+1) summed area table of an 8-bit image held in host memory.
 * Sums wrap modulo 2^32, so a box sum taken from four entries is exact whenever the true box
 * sum fits in 32 bits, at any image size. `src_stride` >= width; `dst_stride` >= 4*(width+1)
 * and a multiple of 4. On a CUDA context with algo AUTO/2R1W/SKSS_LB the work runs on the GPU
 * (through context-owned device buffers) and the call returns when `dst` holds the result.
 */
SATFEAT_API satfeat_status satfeat_sat_u8(satfeat_ctx *ctx, const uint8_t *src, size_t src_stride,
                                          int width, int height, uint32_t *dst, size_t dst_stride,
                                          satfeat_sat_algo algo);

/**
 * Computes the (w+1) x (h+1) summed area table of a float image held in host memory.
 * `src_stride` >= 4*width and `dst_stride` >= 4*(width+1), both multiples of 4. The CPU path
 * accumulates in double and rounds each entry once; GPU paths accumulate in float with the error
 * bound documented in docs/PRECISION.md.
 */
SATFEAT_API satfeat_status satfeat_sat_f32(satfeat_ctx *ctx, const float *src, size_t src_stride,
                                           int width, int height, float *dst, size_t dst_stride,
                                           satfeat_sat_algo algo);

/**
 * Device-memory variant of satfeat_sat_u8 for a CUDA context: `d_src` and `d_dst` are device
 * pointers and the work is enqueued on `stream` (a cudaStream_t, NULL = legacy default stream);
 * the call returns without waiting. algo must be AUTO, 2R1W or SKSS_LB. Calls on one context
 * share its device work buffer (tickets, flags, carries): two calls of one context must not run
 * at the same time on different streams (order them, e.g. with an event, or use one context per
 * stream); calls queued on one stream are always safe. The call never synchronises the device
 * (its work buffer grows stream-ordered). Beside a persistent kernel of the caller, load the
 * library's kernels first (CUDA_MODULE_LOADING=EAGER, or one call before that kernel starts):
 * CUDA's lazy loading of a kernel waits for the device to be idle.
 */
SATFEAT_API satfeat_status satfeat_sat_u8_device(satfeat_ctx *ctx, const uint8_t *d_src,
                                                 size_t src_stride, int width, int height,
                                                 uint32_t *d_dst, size_t dst_stride,
                                                 satfeat_sat_algo algo, void *stream);

/** Device-memory variant of satfeat_sat_f32; see satfeat_sat_u8_device. */
SATFEAT_API satfeat_status satfeat_sat_f32_device(satfeat_ctx *ctx, const float *d_src,
                                                  size_t src_stride, int width, int height,
                                                  float *d_dst, size_t dst_stride,
                                                  satfeat_sat_algo algo, void *stream);

/* ---------------------------------------------------------------------------------------------
 * Box sums on a table (O(1) box filter)
 * ------------------------------------------------------------------------------------------- */

/** A view of a u32 summed area table of a width x height image ((width+1) x (height+1) entries). */
typedef struct satfeat_table_u32 {
    const uint32_t *data;
    size_t stride;   /**< bytes between rows of the table */
    int width;       /**< image width (the table has width+1 columns) */
    int height;      /**< image height (the table has height+1 rows) */
} satfeat_table_u32;

/** A view of an f32 summed area table; see satfeat_table_u32. */
typedef struct satfeat_table_f32 {
    const float *data;
    size_t stride;
    int width;
    int height;
} satfeat_table_f32;

/**
 * Sum of the pixels in the box [x, x+bw) x [y, y+bh) from a u32 table: exact whenever the true
 * sum fits in 32 bits. The box must lie inside the image and bw, bh >= 1.
 */
SATFEAT_API satfeat_status satfeat_box_sum_u32(const satfeat_table_u32 *table, int x, int y,
                                               int bw, int bh, uint32_t *sum);

/** Mean of the pixels in the box [x, x+bw) x [y, y+bh) from a u32 table (box inside the image). */
SATFEAT_API satfeat_status satfeat_box_mean_u32(const satfeat_table_u32 *table, int x, int y,
                                                int bw, int bh, double *mean);

/** Sum of the pixels in the box [x, x+bw) x [y, y+bh) from an f32 table (box inside the image). */
SATFEAT_API satfeat_status satfeat_box_sum_f32(const satfeat_table_f32 *table, int x, int y,
                                               int bw, int bh, float *sum);

/**
 * Box-mean filter of a whole image from its u32 table: dst(x, y) is the mean of the pixels of
 * the (2r+1) x (2r+1) window centred on (x, y), clipped to the image (so borders average over
 * fewer pixels). `dst` is a width x height float image with byte stride `dst_stride`.
 */
SATFEAT_API satfeat_status satfeat_box_filter_mean_u32(const satfeat_table_u32 *table, int radius,
                                                       float *dst, size_t dst_stride);

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
 * video stream, unknown container or codec, corrupt header): SATFEAT_ERR_FORMAT. Decoding uses
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
 * image formats excluded): *is_video 1 or 0. The file must be a regular file (the rules of
 * satfeat_video_open). Without video support *is_video is 0 and the status
 * SATFEAT_ERR_UNSUPPORTED.
 */
SATFEAT_API satfeat_status satfeat_video_probe(satfeat_ctx *ctx, const char *path, int *is_video);

/* ---------------------------------------------------------------------------------------------
 * Fast-Hessian detector (SURF-style keypoints on a u32 summed area table)
 *
 * Geometry (Bay et al.): octave o = 0.., layer i = 0..layers-1 has box filters of side
 * L = 3 * (2^(o+1) * (i+1) + 1) (9, 15, 21, 27 / 15, 27, 39, 51 / ...), sampled every
 * init_step * 2^o pixels where the whole filter lies inside the image. The response is the
 * determinant Dxx*Dyy - (0.9*Dxy)^2 of box-filter responses normalised by L^2 with intensities
 * in [0, 1]: it is computed as the exact integer 100*Dxx*Dyy - 81*Dxy^2 divided by
 * 100 * 255^2 * L^4 with one correctly rounded (round-to-nearest-even) step to double, so it does
 * not depend on image size or bit depth. Keypoints are strict maxima over 3x3x3 neighbourhoods on
 * the middle layers of each octave, above the threshold, refined by a quadratic fit in
 * (x, y, scale) and dropped when the fitted offset exceeds max_offset (default one sample) in
 * any of the three; near duplicates are then suppressed (suppress_duplicates). Orientations (and,
 * through the *_features calls, descriptors) are computed for the selected keypoints.
 *
 * Determinism: the output is a pure function of the image and the parameters (not of the thread
 * count) and is sorted in a total order: response descending, then y, x, size ascending, then
 * octave, layer, sample_y, sample_x ascending (the last four identify a sample uniquely). The
 * per-pixel arithmetic is shared by the CPU and the CUDA backend, so for the same image and
 * parameters both return bit-identical lists, element for element (docs/DETECTOR.md).
 *
 * A detector on a CUDA context runs every stage on the GPU (SAT, responses, maxima, sort,
 * selection, orientation, descriptors) and copies only the count, the selected keypoints and
 * their descriptors back. Its device memory is
 * allocated by satfeat_detector_new; the per-frame work is captured in a CUDA graph on the first
 * frame of a given size and buffers and replayed after that. Frames of one detector execute one
 * after another on the GPU whatever streams they are queued on. A detector owns all of its
 * device memory (the SAT's work memory included), so other CUDA work, of the same context or
 * not, may run concurrently with its frames.
 * ------------------------------------------------------------------------------------------- */

/** One keypoint. Coordinates are input pixels with pixel centres at integer coordinates. */
typedef struct satfeat_keypoint {
    double x, y;      /**< interpolated position */
    double size;      /**< interpolated filter side L (the convention of OpenCV's KeyPoint::size) */
    double sigma;     /**< Gaussian scale 1.2 * size / 9 */
    double response;  /**< normalised determinant at the detected sample (not interpolated) */
    double angle;     /**< dominant orientation in radians in [0, 2*pi): the direction
                           atan2(sum dy, sum dx) in image coordinates (x right, y down); 0 for
                           upright keypoints and before orientation is computed */
    int laplacian;    /**< sign of Dxx + Dyy at the sample: -1 bright blob, +1 dark blob */
    int octave;       /**< 0-based octave */
    int layer;        /**< layer inside the octave (1 .. layers-2) */
    int sample_x;     /**< the sample's column on the octave's grid (x = sample_x * step + ...) */
    int sample_y;     /**< the sample's row on the octave's grid */
    int reserved[2];  /**< always 0; keeps sizeof a multiple of 16 bytes (the CUDA detector
                           moves keypoints in 16-byte words) */
} satfeat_keypoint;

/** Descriptor kinds; the value is the number of floats each keypoint's descriptor has. */
typedef enum satfeat_descriptor_kind {
    SATFEAT_DESCRIPTOR_NONE = 0,     /**< keypoints only */
    SATFEAT_DESCRIPTOR_SURF64 = 64,  /**< SURF-64: per 4x4 subregion sum dx, dy, |dx|, |dy| */
    SATFEAT_DESCRIPTOR_SURF128 = 128 /**< SURF-128 (extended): the sums split by the sign of dy
                                          (for dx terms) and of dx (for dy terms) */
} satfeat_descriptor_kind;

/** Detector parameters; get the defaults from satfeat_detector_params_default. */
typedef struct satfeat_detector_params {
    int octaves;       /**< 1..6 (default 4) */
    int layers;        /**< layers per octave, 3..6 (default 6; NMS runs on layers 1..layers-2) */
    int init_step;     /**< sampling step of octave 0 in pixels: 1 or 2 (default 1) */
    double threshold;  /**< minimum normalised response, finite and >= 0 (default 0.0004) */
    int max_keypoints; /**< keep at most this many strongest keypoints, 0 = no limit (default 0) */
    int grid;          /**< G: cap keypoints per cell of a G x G grid, 0 = no grid (default 0) */
    int per_cell;      /**< K: at most K keypoints per cell, >= 1 when grid > 0 (default 0) */
    double max_offset; /**< largest |offset| of the quadratic fit kept, in samples, in (0, 1]
                            (default 1, as OpenCV's SURF) */
    int unique_scales; /**< 1: a scale found by two overlapping octaves is reported by the
                            coarser one only; 0: both report it, as in OpenCV (default 0) */
    int upright;       /**< 0: each keypoint gets its dominant orientation (Haar responses of side
                            4 sigma within 6 sigma, the largest sum in a pi/3 window) and oriented
                            descriptors (default); 1: angle 0 and upright descriptors */
    satfeat_descriptor_kind descriptor; /**< what the *_features calls compute (default SURF64) */
    int suppress_duplicates; /**< 1: a keypoint is dropped when a stronger one (earlier in the
                                  output order, mask or not) has the same Laplacian sign, a size
                                  within 1.3x and its centre within half the smaller sigma: the
                                  same blob found by two overlapping octaves, whose near-identical
                                  descriptors defeat the ratio test (default 1); 0: keep both */
} satfeat_detector_params;

/** Opaque detector: sized once for a maximum frame, reused for every frame. */
typedef struct satfeat_detector satfeat_detector;

/**
 * Returns the default parameters: 4 octaves x 6 layers, step 1, threshold 0.0004, no caps,
 * max_offset 1, unique_scales 0, oriented, SURF-64 descriptors, near duplicates suppressed.
 * docs/QUALITY.md and docs/DESCRIPTORS.md have the measurements these defaults were chosen on.
 */
SATFEAT_API satfeat_detector_params satfeat_detector_params_default(void);

/**
 * Creates a detector for frames of up to max_width x max_height pixels on `ctx` (which must
 * outlive it). Everything a frame needs is allocated here, so satfeat_detect_u8 never
 * allocates. Bad parameters give SATFEAT_ERR_ARG with the reason in the context. On a CUDA
 * context the device buffers (table, SAT work memory, maps, candidates, sort storage, outputs)
 * and pinned host staging are allocated here (SATFEAT_ERR_ALLOC when the device is out of memory).
 */
SATFEAT_API satfeat_status satfeat_detector_new(satfeat_ctx *ctx,
                                                const satfeat_detector_params *params,
                                                int max_width, int max_height,
                                                satfeat_detector **out);

/** Destroys a detector. NULL is allowed. */
SATFEAT_API void satfeat_detector_delete(satfeat_detector *det);

/**
 * Detects keypoints in an 8-bit gray image (host memory, byte stride >= width) of at most the
 * detector's maximum size. `mask` may be NULL (then mask_stride, mask_width and mask_height are
 * ignored); otherwise it is an 8-bit buffer of mask_width x mask_height pixels with byte stride
 * `mask_stride` >= mask_width, and both dimensions must equal the image's (else SATFEAT_ERR_ARG,
 * so a short mask buffer is never read past its end); a keypoint is kept only where
 * mask(round(x), round(y)) != 0 (round = floor(v + 0.5)). A stride whose rows would span more
 * than PTRDIFF_MAX bytes gives SATFEAT_ERR_OVERFLOW naming the image or the mask. Selection
 * runs on the sorted list: near duplicates (suppress_duplicates), the mask, then the per-cell cap
 * (cell of x*G/width, y*G/height), then max_keypoints. *count receives the number of selected keypoints; when it exceeds `capacity`
 * the first `capacity` are written, nothing past them, and SATFEAT_ERR_CAPACITY is returned.
 * `keypoints` may be NULL when capacity is 0. A frame larger than the detector's maximum gives
 * SATFEAT_ERR_ARG and leaves the detector usable. Uses the context's thread count. On a CUDA
 * detector the frame (and mask) is copied into pinned memory, uploaded and detected on the
 * detector's own stream; the call returns when the keypoints are in `keypoints`.
 */
SATFEAT_API satfeat_status satfeat_detect_u8(satfeat_detector *det, const uint8_t *image,
                                             size_t stride, int width, int height,
                                             const uint8_t *mask, size_t mask_stride,
                                             int mask_width, int mask_height,
                                             satfeat_keypoint *keypoints, size_t capacity,
                                             size_t *count);

/**
 * satfeat_detect_u8 for an image (and mask, may be NULL) in device memory, on a detector of a
 * CUDA context (else SATFEAT_ERR_UNSUPPORTED). The frame is queued on `stream` (a cudaStream_t,
 * NULL = legacy default stream) after the work already queued there, so the image may come
 * from a kernel or copy queued on that stream. The call synchronizes `stream`: it returns when
 * the keypoints are in host memory `keypoints`; the image may be overwritten after that.
 * Selection, capacity and errors as for satfeat_detect_u8.
 */
SATFEAT_API satfeat_status satfeat_detect_u8_device(satfeat_detector *det, const uint8_t *d_image,
                                                    size_t stride, int width, int height,
                                                    const uint8_t *d_mask, size_t mask_stride,
                                                    int mask_width, int mask_height,
                                                    satfeat_keypoint *keypoints,
                                                    size_t capacity, size_t *count,
                                                    void *stream);

/** Number of floats per keypoint in `det`'s descriptors: 0, 64 or 128 (0 for NULL). */
SATFEAT_API int satfeat_detector_descriptor_dim(const satfeat_detector *det);

/**
 * satfeat_detect_u8 that also returns descriptors: `descriptors` (may be NULL: keypoints only)
 * receives satfeat_detector_descriptor_dim(det) floats per keypoint, aligned with `keypoints`,
 * for the first min(count, capacity) keypoints; it must hold capacity * dim floats. Each
 * descriptor has unit L2 length (all zero on a patch without any gradient). A detector whose
 * params say SATFEAT_DESCRIPTOR_NONE gives SATFEAT_ERR_ARG for a non-NULL `descriptors`.
 * Orientations (keypoint angle) are computed by every detect call unless the detector is
 * upright. Descriptors and angles are bit-identical on the CPU and the CUDA backend.
 */
SATFEAT_API satfeat_status satfeat_detect_features_u8(satfeat_detector *det, const uint8_t *image,
                                                      size_t stride, int width, int height,
                                                      const uint8_t *mask, size_t mask_stride,
                                                      int mask_width, int mask_height,
                                                      satfeat_keypoint *keypoints,
                                                      float *descriptors, size_t capacity,
                                                      size_t *count);

/** satfeat_detect_u8_device with descriptors, as satfeat_detect_features_u8 describes them. */
SATFEAT_API satfeat_status satfeat_detect_features_u8_device(
    satfeat_detector *det, const uint8_t *d_image, size_t stride, int width, int height,
    const uint8_t *d_mask, size_t mask_stride, int mask_width, int mask_height,
    satfeat_keypoint *keypoints, float *descriptors, size_t capacity, size_t *count, void *stream);

/** How a detector measures its frames (satfeat_detector_set_profiling). */
typedef enum satfeat_profiling {
    SATFEAT_PROFILING_OFF = 0, /**< nothing is measured (the default) */
    SATFEAT_PROFILING_FRAME,   /**< the whole frame as it normally runs (CUDA: the replayed graph
                                    between two events); on the CPU the stages too, by the clock */
    SATFEAT_PROFILING_STAGES   /**< every stage: on CUDA the frame then runs stage by stage without
                                    a graph, with events between the stages (slower frames) */
} satfeat_profiling;

/** Measured microseconds of the last frame a detector finished (satfeat_detector_stage_times). */
typedef struct satfeat_stage_times {
    double frame_us;    /**< the whole frame: table through the selected keypoints (and, on
                             CUDA, their download); excludes the upload of a host frame */
    double sat_us;      /**< summed area table */
    double detect_us;   /**< responses, 3x3x3 maxima, refinement (CUDA: one fused kernel) */
    double order_us;    /**< sort in the total order (CPU: sort and selection together) */
    double select_us;   /**< mask, grid cap, max_keypoints (CUDA only; 0 on the CPU) */
    double describe_us; /**< orientation and, when asked for, descriptors of the selected
                             keypoints */
    double download_us; /**< CUDA: count, keypoints (and descriptors) to mapped host memory;
                             0 on the CPU */
    int stages;         /**< 1 when the stage fields were measured; 0 when only frame_us was */
} satfeat_stage_times;

/**
 * Turns the measurement of frames on or off (satfeat_profiling). With SATFEAT_PROFILING_OFF, the
 * default, a frame does no timing work at all. On a CUDA detector the first call that turns it
 * on creates the timing events (SATFEAT_ERR_CUDA / SATFEAT_ERR_ALLOC when that fails).
 */
SATFEAT_API satfeat_status satfeat_detector_set_profiling(satfeat_detector *det,
                                                          satfeat_profiling mode);

/**
 * Writes the measured times of the last frame queued on this detector with profiling on (a
 * satfeat_detect_u8 / satfeat_detect_u8_device call, or the last frame pushed to a sequence's
 * lane 0, which is this detector; on CUDA the call waits for that frame to finish).
 * SATFEAT_ERR_ARG when no frame was measured since profiling was turned on.
 */
SATFEAT_API satfeat_status satfeat_detector_stage_times(satfeat_detector *det,
                                                        satfeat_stage_times *out);

/* ---------------------------------------------------------------------------------------------
 * Image sequences: several frames in flight
 *
 * A sequence feeds host frames to a detector through `slots` frame slots. On a CUDA detector
 * each slot has its own stream and pinned buffers: while frame k is detected, frame k+1 is
 * copied to the GPU and the keypoints of earlier frames are copied back, so throughput is
 * bounded by the slowest of upload, detection and download rather than by their sum. On a CPU
 * detector the frames are detected one by one at pop time (same results, nothing overlaps).
 * Frames come back in push order with exactly the keypoints satfeat_detect_u8 would return (no
 * mask). Typical loop: push every frame (collecting a finished one whenever *popped is set),
 * then pop while satfeat_sequence_pending() > 0.
 * ------------------------------------------------------------------------------------------- */

/** Opaque sequence of frames in flight on one detector. */
typedef struct satfeat_sequence satfeat_sequence;

/** Most slots of a sequence. */
#define SATFEAT_SEQUENCE_MAX_SLOTS 64

/**
 * Creates a sequence with `slots` (1..SATFEAT_SEQUENCE_MAX_SLOTS) frames in flight on `det`
 * (which must outlive it); allocates every slot's buffers (pinned host and device memory on a
 * CUDA detector) for the detector's maximum frame. 2 or 3 slots are enough to overlap copies and
 * detection. Its frames share det's device state, so the GPU detects them one after the other:
 * the same as satfeat_sequence_new_lanes with one lane.
 */
SATFEAT_API satfeat_status satfeat_sequence_new(satfeat_detector *det, int slots,
                                                satfeat_sequence **out);

/**
 * Creates a sequence whose `slots` are spread over `lanes` (1..slots, else SATFEAT_ERR_ARG)
 * detectors: lane 0 is `det`, every further lane a detector of its own with det's parameters and
 * maximum frame on a context of its own on det's device (its own device memory, about as much as
 * det's, and its own graphs; when the device cannot hold them the call returns SATFEAT_ERR_ALLOC
 * with a message and makes nothing). Slot i belongs to lane i % lanes, and frames of different
 * lanes run on the GPU at the same time, which raises the frame rate where one frame does not
 * fill the GPU (docs/BENCHMARKS.md has measured rates). Results and their order are those of
 * satfeat_sequence_new. Profiling (satfeat_detector_stage_times) sees lane 0's frames only. On a
 * CPU detector `lanes` is checked and otherwise ignored (frames are detected at pop time).
 */
SATFEAT_API satfeat_status satfeat_sequence_new_lanes(satfeat_detector *det, int slots, int lanes,
                                                      satfeat_sequence **out);

/** Destroys a sequence, discarding frames still pending. NULL is allowed. */
SATFEAT_API void satfeat_sequence_delete(satfeat_sequence *seq);

/**
 * Queues a frame (host memory, byte stride >= width, at most the detector's maximum size) for
 * keypoints only: it is not described, even when the detector has a descriptor (use
 * satfeat_sequence_push_features for that). When every slot is taken, the oldest frame is
 * finished first into `keypoints` / `capacity` / `count` as by satfeat_sequence_pop and *popped
 * is set to 1 (else 0). The frame is copied before the call returns, so `image` may be reused at
 * once. Returns the popped frame's status (SATFEAT_OK, or SATFEAT_ERR_CAPACITY with the count
 * needed) or the error that kept the new frame from being queued (a frame too large gives
 * SATFEAT_ERR_ARG; nothing is popped then).
 */
SATFEAT_API satfeat_status satfeat_sequence_push(satfeat_sequence *seq, const uint8_t *image,
                                                 size_t stride, int width, int height,
                                                 satfeat_keypoint *keypoints, size_t capacity,
                                                 size_t *count, int *popped);

/**
 * Waits for the oldest pending frame and writes its keypoints as satfeat_detect_u8 does
 * (SATFEAT_ERR_CAPACITY with the count needed when they do not fit; the frame is finished
 * either way). SATFEAT_ERR_ARG when no frame is pending (and from
 * satfeat_sequence_pop_features when descriptors are asked of a frame pushed by
 * satfeat_sequence_push: the frame then stays pending).
 */
SATFEAT_API satfeat_status satfeat_sequence_pop(satfeat_sequence *seq, satfeat_keypoint *keypoints,
                                                size_t capacity, size_t *count);

/** satfeat_sequence_push for a frame that is also described when the detector has a descriptor;
 *  `descriptors` receives the popped frame's descriptors (see satfeat_detect_features_u8;
 *  NULL: none). */
SATFEAT_API satfeat_status satfeat_sequence_push_features(satfeat_sequence *seq,
                                                          const uint8_t *image, size_t stride,
                                                          int width, int height,
                                                          satfeat_keypoint *keypoints,
                                                          float *descriptors, size_t capacity,
                                                          size_t *count, int *popped);

/** satfeat_sequence_pop with descriptors (see satfeat_detect_features_u8); NULL: none. */
SATFEAT_API satfeat_status satfeat_sequence_pop_features(satfeat_sequence *seq,
                                                         satfeat_keypoint *keypoints,
                                                         float *descriptors, size_t capacity,
                                                         size_t *count);

/** Number of frames pushed and not yet popped (0 for NULL). */
SATFEAT_API int satfeat_sequence_pending(const satfeat_sequence *seq);

/* ---------------------------------------------------------------------------------------------
 * Many devices: a list of frames spread over several detectors
 *
 * A device pool holds one context and one detector per worker, and on CUDA one sequence per
 * device (its own streams and pinned buffers, so each device overlaps uploads, detection and
 * downloads). satfeat_pool_detect_u8 hands the frames of a list out dynamically: each worker
 * (one host thread per device) takes the next frame not yet taken, so fast devices take more
 * frames; results land at the index of their frame, so the output is in input order whatever
 * device detected a frame. Every frame's keypoints and descriptors are exactly those of
 * satfeat_detect_features_u8 (no mask) on a detector with the same parameters, on any device.
 * ------------------------------------------------------------------------------------------- */

/** Opaque pool of detectors, one per device (or per CPU worker). */
typedef struct satfeat_pool satfeat_pool;

/** One input frame of satfeat_pool_detect_u8: 8-bit gray, host memory, byte stride >= width. */
typedef struct satfeat_pool_frame {
    const uint8_t *image;
    size_t stride;
    int width;
    int height;
} satfeat_pool_frame;

/** One frame's output buffers (the caller's) and outcome. */
typedef struct satfeat_pool_result {
    satfeat_keypoint *keypoints; /**< in: room for `capacity` keypoints (NULL when capacity 0) */
    float *descriptors;          /**< in: capacity * dim floats, or NULL for keypoints only */
    size_t capacity;             /**< in */
    size_t count;                /**< out: keypoints found (SATFEAT_ERR_CAPACITY: count needed) */
    satfeat_status status;       /**< out: this frame's status, as satfeat_detect_features_u8 */
    int device;                  /**< out: the CUDA device that detected it, -1 on the CPU */
} satfeat_pool_result;

/**
 * Creates a pool for frames of up to max_width x max_height with detector parameters `params`
 * (NULL: the defaults). backend CUDA: one worker per device in `devices` (n_devices ordinals,
 * each at most once; NULL means devices 0 .. n_devices-1, and n_devices 0 every usable device;
 * an ordinal that is not a usable device gives SATFEAT_ERR_ARG): SATFEAT_ERR_NO_DEVICE when
 * there is none, SATFEAT_ERR_UNSUPPORTED in a build without CUDA. backend CPU: `n_devices` workers of one
 * CPU thread each (0 means one per OpenMP thread); `devices` must be NULL. backend AUTO: CUDA
 * when a device is usable, else the CPU. The error message goes to `error` (may be NULL; at most
 * error_size bytes including the terminating zero), since there is no context yet.
 */
SATFEAT_API satfeat_status satfeat_pool_new(satfeat_backend backend, const int *devices,
                                            int n_devices, const satfeat_detector_params *params,
                                            int max_width, int max_height, satfeat_pool **out,
                                            char *error, size_t error_size);

/** Destroys a pool and everything it owns. NULL is allowed. */
SATFEAT_API void satfeat_pool_delete(satfeat_pool *pool);

/** Number of workers (devices, or CPU workers) of a pool (0 for NULL). */
SATFEAT_API int satfeat_pool_workers(const satfeat_pool *pool);

/** CUDA device of worker `worker` of a pool (-1 for a CPU worker or a bad index). */
SATFEAT_API int satfeat_pool_worker_device(const satfeat_pool *pool, int worker);

/** Floats per descriptor of the pool's detectors: 0, 64 or 128. */
SATFEAT_API int satfeat_pool_descriptor_dim(const satfeat_pool *pool);

/**
 * Detects the keypoints (and, where results[i].descriptors is not NULL, descriptors) of the n
 * frames, spread over the pool's workers, into results[i] for frames[i]. A frame that fails
 * (too large, capacity too small, a device error) sets its own status and the others go on.
 * Returns SATFEAT_OK when every frame succeeded, else the status of the first failed frame (by
 * index), whose message satfeat_pool_last_error returns. SATFEAT_ERR_ARG (nothing detected) for
 * a NULL pool, frames or results with n > 0.
 */
SATFEAT_API satfeat_status satfeat_pool_detect_u8(satfeat_pool *pool,
                                                  const satfeat_pool_frame *frames, size_t n,
                                                  satfeat_pool_result *results);

/** Message of the pool's last failure ("" when none). Valid until the next call on the pool. */
SATFEAT_API const char *satfeat_pool_last_error(const satfeat_pool *pool);

/* ---------------------------------------------------------------------------------------------
 * Batches: many small frames of one detector in one call
 *
 * A small frame (640x480) keeps a GPU busy for only part of its frame time: most of it goes to
 * short, latency-bound kernels, and frames of one detector run one after another on the GPU. A
 * batch gives a CUDA detector `lanes` detector states of its own (each with its own device
 * buffers, CUDA graphs, two frame slots with their streams and pinned buffers, and its own
 * context for error text), hands the frames of a call to the lanes round-robin and queues them
 * all before collecting any, so the frames of different lanes run on the GPU at the same time.
 * The host work of a call (copies into pinned memory, launches, copies out) is spread over
 * min(lanes, the context's thread count) OpenMP threads. The frames are not batched into one
 * kernel launch: each runs the single-frame graph of satfeat_detect_u8. On a CPU detector the
 * frames are detected one after another on the detector itself (with the context's threads
 * inside each frame). Either way every frame's keypoints and descriptors are exactly those of
 * satfeat_detect_features_u8 (no mask) on the detector, and results come back in input order.
 * Measured rates: docs/BENCHMARKS.md, "Issue 12: batched frames".
 * ------------------------------------------------------------------------------------------- */

/** Opaque batch of frame lanes on one detector. */
typedef struct satfeat_batch satfeat_batch;

/** The most lanes a batch may have. */
#define SATFEAT_BATCH_MAX_LANES 64

/** The lane count `lanes` = 0 asks for (chosen on measurements, docs/BENCHMARKS.md). */
#define SATFEAT_BATCH_DEFAULT_LANES 8

/**
 * Creates a batch on `det` (which must outlive it) with `lanes` (1..SATFEAT_BATCH_MAX_LANES, 0:
 * SATFEAT_BATCH_DEFAULT_LANES) lanes. On a CUDA detector every lane's device memory (that of
 * one more detector of det's parameters and maximum size, plus one frame slot) and pinned host
 * buffers are allocated here, so satfeat_batch_detect_u8 never allocates (SATFEAT_ERR_ALLOC or
 * SATFEAT_ERR_CUDA with the reason in det's context, nothing created, when that fails). On a CPU
 * detector nothing is allocated beyond the batch record and the lane count has no effect.
 * SATFEAT_ERR_ARG for a NULL det or out or a lane count out of range (*out is then NULL).
 */
SATFEAT_API satfeat_status satfeat_batch_new(satfeat_detector *det, int lanes,
                                             satfeat_batch **out);

/** Destroys a batch (waiting for nothing: no frame is in flight between calls). NULL is allowed. */
SATFEAT_API void satfeat_batch_delete(satfeat_batch *batch);

/** Number of lanes of a batch (0 for NULL). */
SATFEAT_API int satfeat_batch_lanes(const satfeat_batch *batch);

/**
 * Detects the keypoints (and, where results[i].descriptors is not NULL, descriptors) of the n
 * frames into results[i] for frames[i]; results[i].device is the detector's CUDA device, or -1
 * on the CPU. A frame that fails (NULL image, larger than the detector's maximum, capacity too
 * small: count then holds the count needed and the first `capacity` keypoints are written,
 * descriptors asked of a detector without them, a device error) sets its own status and the
 * others go on. Returns SATFEAT_OK when every frame succeeded, else the status of the first
 * failed frame (by index), with "batch: frame I: reason" in det's context. n = 0 returns
 * SATFEAT_OK and touches nothing; a NULL batch, or NULL frames or results with n > 0, give
 * SATFEAT_ERR_ARG, and an n no array can hold SATFEAT_ERR_OVERFLOW, without touching any result.
 * Returns when every frame's output is in host memory; `frames` may be reused at once.
 */
SATFEAT_API satfeat_status satfeat_batch_detect_u8(satfeat_batch *batch,
                                                   const satfeat_pool_frame *frames, size_t n,
                                                   satfeat_pool_result *results);

/* ---------------------------------------------------------------------------------------------
 * Repeatability evaluation (Mikolajczyk et al. 2005 protocol)
 * ------------------------------------------------------------------------------------------- */

/** Result of satfeat_eval_repeatability. */
typedef struct satfeat_repeatability {
    double repeatability;   /**< correspondences / min(n1, n2); 0 when min(n1, n2) is 0 */
    size_t correspondences; /**< one-to-one matches with overlap error below 0.4 */
    size_t n1;              /**< image-1 keypoints whose region lies in the common part */
    size_t n2;              /**< image-2 keypoints whose region lies in the common part */
} satfeat_repeatability;

/**
 * Repeatability of two keypoint lists under the homography `h1to2` (row-major 3x3, image-1
 * pixels to image-2 pixels). Each region is the circle of diameter `size`; regions of image 2
 * are mapped into image 1 as ellipses through the local affine approximation of the inverse
 * homography. A region counts when its bounding box lies inside its own image and the bounding
 * box of its mapped ellipse lies inside the other image (x in [0, width-1], y in [0, height-1]).
 * Overlap error = 1 - intersection/union, computed on a unit grid after scaling both ellipses
 * about their centres so that the image-1 region has radius 30; pairs with error < 0.4 are
 * matched greedily (smallest error first, ties by index) one-to-one. Allocates its working
 * memory per call. `ctx` may be NULL.
 */
SATFEAT_API satfeat_status satfeat_eval_repeatability(satfeat_ctx *ctx,
                                                      const satfeat_keypoint *kp1, size_t n1,
                                                      int width1, int height1,
                                                      const satfeat_keypoint *kp2, size_t n2,
                                                      int width2, int height2,
                                                      const double h1to2[9],
                                                      satfeat_repeatability *result);

/**
 * Reads a 3x3 homography from a text file of nine numbers (row-major, whitespace separated, the
 * format of the Oxford affine data set). `ctx` may be NULL.
 */
SATFEAT_API satfeat_status satfeat_homography_read(satfeat_ctx *ctx, const char *path,
                                                   double h[9]);

/* ---------------------------------------------------------------------------------------------
 * Robust motion estimation (RANSAC / PROSAC with MSAC scoring and least-squares refinement)
 *
 * Estimates the 2D motion h that maps source points to destination points from correspondences
 * with outliers. Samples are minimal (4 correspondences for a homography, 3 affine, 2
 * similarity), drawn from a seeded generator that lives in the call (no global state), uniformly
 * (RANSAC) or, when a quality per correspondence is given, from growing prefixes of the quality
 * order (PROSAC). Hypotheses are scored by MSAC (sum of min(e^2, threshold^2), e the forward
 * reprojection error in destination pixels); the iteration count adapts to the best inlier
 * ratio found. Samples with coincident or near-collinear points, and samples whose model would
 * mirror the image (or put sample points across the horizon of a homography), are rejected. The
 * best model is then refined on its inliers (linear least squares, plus Levenberg-Marquardt on
 * the forward error for the homography) and the inliers re-selected, a few times.
 *
 * Results are a pure function of the inputs and the seed: same inputs + seed -> same bits.
 * The call runs on the CPU whatever the context's backend, and reuses the context's host
 * scratch (about 50 bytes per correspondence), so it allocates only while that grows.
 * ------------------------------------------------------------------------------------------- */

/** Motion model to estimate. */
typedef enum satfeat_motion_model {
    SATFEAT_MOTION_HOMOGRAPHY = 0, /**< 8 dof, planar scenes (the AR case) */
    SATFEAT_MOTION_AFFINE,         /**< 6 dof */
    SATFEAT_MOTION_SIMILARITY      /**< 4 dof: rotation, uniform scale, translation */
} satfeat_motion_model;

/** Parameters of satfeat_estimate_motion; get the defaults from satfeat_motion_params_default. */
typedef struct satfeat_motion_params {
    satfeat_motion_model model; /**< default HOMOGRAPHY */
    double threshold;           /**< inlier reprojection error in px, finite and > 0 (default 3) */
    int max_iterations;         /**< cap on drawn samples, >= 1 (default 2000) */
    double confidence;          /**< stop when this probability of having drawn an all-inlier
                                     sample is reached, in (0, 1) (default 0.999) */
    uint64_t seed;              /**< PRNG seed (default fixed); same inputs + seed -> same result */
    int refine;                 /**< 1: least-squares refinement on the inliers, iterated;
                                     0: the best minimal-sample model (default 1) */
} satfeat_motion_params;

/** Result of satfeat_estimate_motion. */
typedef struct satfeat_motion {
    double h[9];       /**< row-major 3x3 map src -> dst, h[8] = 1; last row 0 0 1 for affine and
                            similarity */
    size_t inliers;    /**< correspondences with forward error <= threshold under h */
    double rms_error;  /**< root mean square forward error of the inliers, px */
    int iterations;    /**< samples drawn (degenerate ones included) */
} satfeat_motion;

/** Returns the defaults: homography, threshold 3 px, 2000 iterations, confidence 0.999, a fixed
 * seed, refinement on. */
SATFEAT_API satfeat_motion_params satfeat_motion_params_default(void);

/**
 * Estimates the motion from n correspondences src_xy[2i], src_xy[2i+1] -> dst_xy[2i],
 * dst_xy[2i+1] (pixels, all finite). `quality` (may be NULL; finite values) ranks the
 * correspondences, higher is better (for example the inverse descriptor distance); it orders the
 * PROSAC samples, ties broken by index; NULL gives uniform RANSAC samples. `params` NULL means
 * the defaults. On success fills *out and, when `inlier_mask` is not NULL, writes 1 (inlier
 * under out->h) or 0 for each of the n correspondences.
 *
 * A model is accepted only with at least twice the minimal sample of inliers (8 homography,
 * 6 affine, 4 similarity); a homography that maps the pixel origin to infinity (h[8] = 0)
 * cannot be returned normalised and counts as no model.
 *
 * Errors (out and inlier_mask untouched, message in ctx): SATFEAT_ERR_ARG for a NULL ctx (no
 * message), NULL src_xy / dst_xy / out, a bad model, threshold not finite or <= 0,
 * max_iterations < 1, confidence outside (0, 1), refine not 0 or 1, non-finite coordinates or
 * quality, n >= 2^31; SATFEAT_ERR_NO_MODEL when no model is found (see
 * above); SATFEAT_ERR_ALLOC when scratch cannot be allocated.
 */
SATFEAT_API satfeat_status satfeat_estimate_motion(satfeat_ctx *ctx, const double *src_xy,
                                                   const double *dst_xy, size_t n,
                                                   const float *quality,
                                                   const satfeat_motion_params *params,
                                                   satfeat_motion *out, uint8_t *inlier_mask);

/* ---------------------------------------------------------------------------------------------
 * Descriptor matching
 *
 * Brute force over all pairs (query i of image 1, train j of image 2) with optional gates:
 * the same Laplacian sign (laplacian < 0 on both or on neither) when same_laplacian, and, when
 * radius > 0, |p2_j - predicted_i| <= radius (in double: dx*dx + dy*dy <= radius*radius), where
 * predicted_i is the query's predicted position in image 2 (predicted[2i], predicted[2i+1]) or
 * its own position when `predicted` is NULL. Distances are squared L2 distances in float with
 * one fixed order of operations (8 partial sums, lane k summing dims k, k+8, ..., combined as
 * ((s0+s4)+(s2+s6))+((s1+s5)+(s3+s7)), no fused multiply-add), identical on the CPU and the
 * GPU. A pair whose squared distance is not finite (NaN or infinite descriptor values) is never
 * a candidate.
 *
 * For each query the nearest candidate (smallest squared distance, ties to the smaller train
 * index) is kept when (a) the ratio test passes: best < r2 * second with r2 = (float)(ratio^2)
 * on squared distances, where second is the nearest other candidate (no second candidate:
 * passes; ratio 1 disables the test), and (b) with mutual, the train's nearest query among the
 * queries that pass the gates with it (ties to the smaller query index) is this query.
 * distance = sqrtf(best squared distance). Matches come in ascending query order, at most one
 * per query; both backends return the same matches in the same order, bit for bit, and the
 * result does not depend on the thread count.
 * ------------------------------------------------------------------------------------------- */

/** One match: keypoint `query` of the first list and keypoint `train` of the second. */
typedef struct satfeat_match {
    int query;      /**< index into kp1 / desc1 */
    int train;      /**< index into kp2 / desc2 */
    float distance; /**< L2 distance of the two descriptors */
} satfeat_match;

/** Matching parameters; get the defaults from satfeat_match_params_default. */
typedef struct satfeat_match_params {
    double ratio;       /**< Lowe's ratio test on distances, in (0, 1]; 1 disables it (default 0.8) */
    int mutual;         /**< 1: keep a match only when query is also the train's nearest (default 1) */
    int same_laplacian; /**< 1: compare only keypoints of the same Laplacian sign (default 1) */
    double radius;      /**< > 0: only train keypoints within radius px of the query's predicted
                             position (default 0: no radius) */
} satfeat_match_params;

/** Returns the defaults: ratio 0.8, mutual 1, same_laplacian 1, radius 0. */
SATFEAT_API satfeat_match_params satfeat_match_params_default(void);

/**
 * Matches the n1 descriptors `desc1` (n1 x dim floats, row-major, aligned with kp1) against the
 * n2 descriptors `desc2` (aligned with kp2), all in host memory. dim is 64 or 128. `predicted`
 * (may be NULL) holds n1 (x, y) pairs for the radius gate. `params` NULL means the defaults.
 * *count receives the number of matches; when it exceeds `capacity` the first `capacity` are
 * written, nothing past them, and SATFEAT_ERR_CAPACITY is returned (`matches` may be NULL when
 * capacity is 0). n1 == 0 or n2 == 0 gives 0 matches. SATFEAT_ERR_ARG for NULL arrays, dim
 * not 64/128, ratio outside (0, 1], a negative or non-finite radius, or n1/n2 above INT_MAX-64.
 * On a CPU context the work runs on the context's threads; on a CUDA context the inputs are
 * uploaded and matched on the GPU on the context's stream (device scratch is allocated and
 * freed stream-ordered per call). The keypoints are read only for the gates.
 */
SATFEAT_API satfeat_status satfeat_match_descriptors(satfeat_ctx *ctx,
                                                     const satfeat_keypoint *kp1,
                                                     const float *desc1, size_t n1,
                                                     const satfeat_keypoint *kp2,
                                                     const float *desc2, size_t n2, int dim,
                                                     const double *predicted,
                                                     const satfeat_match_params *params,
                                                     satfeat_match *matches, size_t capacity,
                                                     size_t *count);

/**
 * satfeat_match_descriptors on a CUDA context (else SATFEAT_ERR_UNSUPPORTED) with kp1, desc1, kp2, desc2
 * and predicted (may be NULL) in device memory; `matches` and `count` are host memory. The work
 * is queued on `stream` (a cudaStream_t, NULL = legacy default stream) after the work already
 * queued there; the call synchronises `stream` and returns when the matches are in `matches`.
 * Results, capacity and errors as for satfeat_match_descriptors.
 */
SATFEAT_API satfeat_status satfeat_match_descriptors_device(
    satfeat_ctx *ctx, const satfeat_keypoint *d_kp1, const float *d_desc1, size_t n1,
    const satfeat_keypoint *d_kp2, const float *d_desc2, size_t n2, int dim,
    const double *d_predicted, const satfeat_match_params *params, satfeat_match *matches,
    size_t capacity, size_t *count, void *stream);

/* ---------------------------------------------------------------------------------------------
 * Matching evaluation
 * ------------------------------------------------------------------------------------------- */

/** Result of satfeat_eval_matching. */
typedef struct satfeat_matching_eval {
    double matching_score; /**< correct / min(n1, n2); 0 when min(n1, n2) is 0 */
    double precision;      /**< correct / matches; 0 when there is no match */
    size_t correct;        /**< kept matches whose image-1 point H maps within 3 px of the image-2 point */
    size_t matches;        /**< kept matches */
    size_t n1;             /**< image-1 keypoints whose H-image lies inside image 2 */
    size_t n2;             /**< image-2 keypoints whose H^-1-image lies inside image 1 */
} satfeat_matching_eval;

/**
 * Matching score of two keypoint lists with descriptors under the homography `h1to2`
 * (row-major 3x3, image-1 pixels to image-2 pixels). Matches are those of satfeat_match_descriptors with
 * ratio 0.8, mutual 1, same_laplacian 1 and no radius, on `ctx` (so on its backend). A match is
 * correct when H maps the image-1 keypoint within 3 px (Euclidean, <= 3) of the image-2
 * keypoint. "Inside" means x in [0, width-1] and y in [0, height-1]. ctx must not be NULL.
 */
SATFEAT_API satfeat_status satfeat_eval_matching(satfeat_ctx *ctx, const satfeat_keypoint *kp1,
                                                 const float *desc1, size_t n1, int width1,
                                                 int height1, const satfeat_keypoint *kp2,
                                                 const float *desc2, size_t n2, int width2,
                                                 int height2, int dim, const double h1to2[9],
                                                 satfeat_matching_eval *result);

/* ---------------------------------------------------------------------------------------------
 * Feature tracking over a frame sequence (issue 11)
 *
 * A tracker is created on a context for a maximum frame size and fed one frame at a time. Each
 * frame: detect keypoints with descriptors (the tracker's own detector on the context's
 * backend) and drop those closer than min_birth_distance to a stronger one (one structure found
 * at two scales is one keypoint, so it does not fail the ratio test against itself). Match the
 * live tracks' last descriptors (queries) against the keypoints (trains) within match.radius of
 * each track's position mapped by the last frame-to-frame motion (satfeat_match_descriptors; the
 * whole frame when there is no motion yet, or when the radius pass finds no model or fewer than
 * half the last frame's inliers, keeping the pass with more inliers) and estimate the
 * frame-to-frame motion h_prev (satfeat_estimate_motion: PROSAC ordered by 1 / (distance +
 * 0.001), MSAC scoring, fixed seed, least-squares refinement). Predict the reference motion by
 * chaining (h_prev after the last h_ref), match the first frame's keypoints (the reference model,
 * kept from the first frame after creation or reset) around their predicted positions, and, with
 * guided_radius > 0, match every track again within guided_radius of its predicted position (its
 * first-frame position mapped by the predicted h_ref) and estimate h_prev again from those
 * matches. The reference motion h_ref (first frame -> this frame) is estimated from the
 * reference keypoints' and the tracks' first-frame positions together, so it does not accumulate
 * frame-to-frame errors (chained when that fails). With reject_outliers (the default) a match
 * continues its track only when it agrees with h_prev and with h_ref; other tracks are moved to
 * their first-frame position under h_ref (or by h_prev) and count a missed frame; a track ends
 * after more than max_missed missed frames or when it leaves the frame. Unmatched keypoints at
 * least min_birth_distance px from every live track are born as new tracks, in the detector's
 * order (response descending, grid capped), up to max_tracks. Ids come from a 64-bit counter of
 * the tracker and are never reused, not even after satfeat_tracker_reset.
 *
 * Determinism: the output is a pure function of the frames and the parameters: the same frames
 * give the same tracks, bit for bit, on every run, at every thread count and on both backends
 * (detection and matching are bit-identical on CPU and CUDA; everything else runs on the host).
 * Everything is allocated by satfeat_tracker_new; a frame allocates nothing in the tracker (the
 * matcher on a CUDA context allocates its device scratch stream-ordered per call, and
 * satfeat_estimate_motion grows the context's host scratch while the match count grows).
 * ------------------------------------------------------------------------------------------- */

/** Tracker parameters; get the defaults from satfeat_tracker_params_default. */
typedef struct satfeat_tracker_params {
    satfeat_detector_params detector; /**< detector of every frame; max_keypoints must be >= 1
                                           (it sizes the keypoint buffers) and descriptor must be
                                           SURF64 or SURF128 (default: the detector defaults with
                                           grid 8, per_cell 32, max_keypoints 1500, threshold
                                           0.0002) */
    satfeat_match_params match;       /**< track-to-keypoint matching; radius is the search radius
                                           in px around each track's predicted position, 0 = the
                                           whole frame; a frame with no motion estimate before it
                                           (the second, or one after a frame without a model) is
                                           searched whole (default ratio 0.8, mutual 1,
                                           same_laplacian 1, radius 30) */
    satfeat_motion_params motion;     /**< frame-to-frame and reference-to-frame motion (default
                                           satfeat_motion_params_default with threshold 2 px:
                                           homography, PROSAC, fixed seed, refinement) */
    int max_missed;                   /**< a track ends when it has gone unseen for more than this
                                           many consecutive frames, >= 0 (default 5) */
    int max_tracks;                   /**< cap on live tracks, 1 .. 2^24 (default 2000) */
    double min_birth_distance;        /**< an unmatched keypoint becomes a new track only when it is
                                           at least this far (px) from every live track; keypoints
                                           closer than this to a stronger keypoint of the same frame
                                           are dropped before matching; finite and >= 0, 0
                                           disables both (default 4) */
    double guided_radius;             /**< once the frame's motion is estimated, every live track is
                                           matched again within this radius (px) of its position
                                           predicted by that motion (its first-frame position
                                           mapped by h_ref where known) and the motion estimated
                                           again from those matches; finite and >= 0, 0 = no
                                           guided pass (default 6) */
    int reject_outliers;              /**< 1: a match that disagrees with the frame's motion (its
                                           keypoint farther than motion.threshold from the track
                                           mapped by h_prev, or from the track's first-frame
                                           position mapped by h_ref when h_ref was estimated) does
                                           not continue its track, which counts a missed frame;
                                           without a frame motion no match does; 0: every match
                                           continues its track and outliers are only flagged
                                           (default 1) */
} satfeat_tracker_params;

/** One live track as returned for a frame. */
typedef struct satfeat_track {
    uint64_t id;   /**< stable id, 1, 2, ... in birth order, never reused by this tracker */
    double x, y;   /**< position in this frame: the matched keypoint's when seen (missed 0), else
                        the last position moved by this frame's motion (kept when it has none) */
    double size;   /**< keypoint size (filter side L) of the last observation */
    double angle;  /**< keypoint orientation of the last observation, radians in [0, 2*pi) */
    int laplacian; /**< Laplacian sign of the last observation (-1 bright, +1 dark blob) */
    int age;       /**< frames since birth: 0 in the frame that created the track */
    int missed;    /**< consecutive frames unseen: 0 when seen (or born) in this frame */
    int inlier;    /**< 1: matched in this frame and consistent with this frame's motion; 0 for
                        outliers (matched but off the motion, or matched in a frame without a
                        motion), missed tracks and tracks born in this frame */
} satfeat_track;

/** Motion of one frame, returned by satfeat_tracker_track_u8. */
typedef struct satfeat_frame_motion {
    int frame;         /**< 0-based frame index since creation or the last reset */
    int valid;         /**< 1: h_prev was estimated from this frame's matches; 0 on the first frame
                            and when no model was found (h_prev is then the identity) */
    int ref_valid;     /**< 1: h_ref was estimated directly from this frame's matches to the first
                            frame's coordinates; 0: it was chained (h_prev * the last h_ref) or,
                            on the first frame, is the identity */
    int reserved;      /**< always 0 */
    double h_prev[9];  /**< row-major, previous frame -> this frame, h[8] = 1 */
    double h_ref[9];   /**< row-major, first frame -> this frame, h[8] = 1 */
    size_t keypoints;  /**< keypoints of this frame kept for matching (after the thinning) */
    size_t matches;    /**< tracks matched in this frame */
    size_t inliers;    /**< matched tracks consistent with h_prev (0 when not valid) */
    double rms_error;  /**< rms forward error of the h_prev inliers, px (0 when not valid) */
    size_t born;       /**< tracks born in this frame */
    size_t ended;      /**< tracks that ended in this frame (not returned any more) */
} satfeat_frame_motion;

/** Opaque tracker: sized once for a maximum frame, fed one frame at a time. */
typedef struct satfeat_tracker satfeat_tracker;

/** Returns the default tracker parameters (see the fields of satfeat_tracker_params). */
SATFEAT_API satfeat_tracker_params satfeat_tracker_params_default(void);

/**
 * Creates a tracker for frames of up to max_width x max_height pixels on `ctx` (which must
 * outlive it); `params` NULL means the defaults. Allocates its detector (device memory on a CUDA
 * context) and every host buffer a frame needs. SATFEAT_ERR_ARG for a NULL ctx or out, bad
 * sizes or parameters (message in ctx); SATFEAT_ERR_LIMIT, before anything is allocated, when
 * the host buffers that max_tracks and detector.max_keypoints size (2^24 tracks of SURF64 need
 * about 8.8 GB) exceed the context's memory limit (the message names both byte counts);
 * SATFEAT_ERR_ALLOC when memory runs out.
 */
SATFEAT_API satfeat_status satfeat_tracker_new(satfeat_ctx *ctx,
                                               const satfeat_tracker_params *params,
                                               int max_width, int max_height,
                                               satfeat_tracker **out);

/** Destroys a tracker. NULL is allowed. */
SATFEAT_API void satfeat_tracker_delete(satfeat_tracker *tracker);

/**
 * Feeds one 8-bit gray frame in host memory (byte stride >= width) and returns the live tracks
 * after it in ascending id order: *count receives their number, the first min(count, capacity)
 * are written to `tracks` and, when `descriptors` is not NULL, their last observations'
 * descriptors (dim floats each, dim = params.detector.descriptor; `descriptors` must hold
 * capacity * dim floats). `motion` (may be NULL) receives the frame's motion. When count exceeds
 * capacity, SATFEAT_ERR_CAPACITY is returned with the count needed: the frame is still consumed
 * (the tracker's state advanced) and the motion written; `tracks` may be NULL when capacity is 0.
 * Every frame must have the size of the first frame after creation or reset, at most the
 * maximum; another size, a NULL image or count, a NULL tracks with capacity > 0 or a stride
 * below width give SATFEAT_ERR_ARG and leave the tracker unchanged and usable. A detection or
 * matching failure (SATFEAT_ERR_ALLOC, SATFEAT_ERR_CUDA) also leaves the tracks unchanged. A
 * frame without a motion model is no error (motion->valid 0). On a CUDA context the frame is
 * detected on the GPU (the detector's own stream) and matched on the GPU (the context's stream).
 */
SATFEAT_API satfeat_status satfeat_tracker_track_u8(satfeat_tracker *tracker,
                                                    const uint8_t *image, size_t stride,
                                                    int width, int height, satfeat_track *tracks,
                                                    float *descriptors, size_t capacity,
                                                    size_t *count, satfeat_frame_motion *motion);

/**
 * satfeat_tracker_track_u8 for a frame in device memory, on a tracker of a CUDA context (else
 * SATFEAT_ERR_UNSUPPORTED). Detection and matching are queued on `stream` (a cudaStream_t, NULL =
 * legacy default stream) after the work already queued there, so the frame may come from a
 * kernel on that stream; the call synchronises `stream` and returns when the tracks are in host
 * memory. Results are those of satfeat_tracker_track_u8 on the same frame, bit for bit.
 */
SATFEAT_API satfeat_status satfeat_tracker_track_u8_device(satfeat_tracker *tracker,
                                                           const uint8_t *d_image, size_t stride,
                                                           int width, int height,
                                                           satfeat_track *tracks,
                                                           float *descriptors, size_t capacity,
                                                           size_t *count,
                                                           satfeat_frame_motion *motion,
                                                           void *stream);

/**
 * Frames in flight: queues a host frame (8-bit gray, byte stride >= width; copied before the
 * call returns) on the tracker's detector sequence (3 slots). On a CUDA context its upload and
 * detection start at once on the sequence's own stream, so they overlap the host work of the
 * frames before it. When 3 frames are pending, the oldest is finished first into `tracks` /
 * `descriptors` / `capacity` / `count` / `motion` as by satfeat_tracker_pop and *popped is set
 * to 1 (else 0). Frames are consumed in push order with exactly the tracks and motions that
 * satfeat_tracker_track_u8 gives for the same frames. The frame is checked as by
 * satfeat_tracker_track_u8 (its size against the first frame pushed or tracked since creation
 * or reset) before anything changes: a refused frame is not queued and nothing is popped.
 * Returns the popped frame's status (SATFEAT_OK, or SATFEAT_ERR_CAPACITY with the count needed)
 * or the error that kept the new frame from being queued. satfeat_tracker_track_u8 and
 * satfeat_tracker_track_u8_device refuse a frame (SATFEAT_ERR_ARG) while pushed frames are
 * pending; satfeat_tracker_reset finishes and drops them.
 */
SATFEAT_API satfeat_status satfeat_tracker_push_u8(satfeat_tracker *tracker,
                                                   const uint8_t *image, size_t stride, int width,
                                                   int height, satfeat_track *tracks,
                                                   float *descriptors, size_t capacity,
                                                   size_t *count, satfeat_frame_motion *motion,
                                                   int *popped);

/**
 * Finishes the oldest pushed frame: waits for its keypoints, then tracks it and writes the live
 * tracks, descriptors and motion as satfeat_tracker_track_u8 does (SATFEAT_ERR_CAPACITY with the
 * count needed; the frame is consumed either way). SATFEAT_ERR_ARG when no frame is pending or
 * for NULL count / tracks with capacity > 0.
 */
SATFEAT_API satfeat_status satfeat_tracker_pop(satfeat_tracker *tracker, satfeat_track *tracks,
                                               float *descriptors, size_t capacity,
                                               size_t *count, satfeat_frame_motion *motion);

/** Number of frames pushed and not yet popped (0 for NULL). */
SATFEAT_API int satfeat_tracker_pending(const satfeat_tracker *tracker);

/** Host wall-clock microseconds of the last frame a tracker consumed, by stage
 * (satfeat_tracker_stage_times). */
typedef struct satfeat_tracker_times {
    double frame_us;  /**< the whole call */
    double detect_us; /**< detection with orientations and descriptors (on CUDA with its upload
                           and download) and the same-frame thinning */
    double match_us;  /**< every matching pass of the frame (tracks and reference keypoints) */
    double motion_us; /**< every motion estimation of the frame (frame-to-frame and reference) */
    double update_us; /**< the rest: prediction, track update, ends, births, output copy */
    int match_passes; /**< matching calls of the frame */
    int reserved;     /**< always 0 */
} satfeat_tracker_times;

/**
 * Turns the stage timing of frames on (1) or off (0, the default: a frame does no timing work).
 * SATFEAT_ERR_ARG for a NULL tracker or another value.
 */
SATFEAT_API satfeat_status satfeat_tracker_set_profiling(satfeat_tracker *tracker, int on);

/**
 * Writes the stage times of the last frame consumed with profiling on. SATFEAT_ERR_ARG for NULL
 * arguments or when no frame was timed since profiling was turned on.
 */
SATFEAT_API satfeat_status satfeat_tracker_stage_times(const satfeat_tracker *tracker,
                                                       satfeat_tracker_times *out);

/**
 * Forgets every track and the motion history, finishing and dropping pushed frames that are
 * still pending: the next frame is a first frame again (and may have any size up to the
 * maximum). The id counter continues, so ids are never reused.
 */
SATFEAT_API satfeat_status satfeat_tracker_reset(satfeat_tracker *tracker);

/* ---------------------------------------------------------------------------------------------
 * Augmented reality: known planar targets, their homography and the camera's pose (docs/AR.md)
 *
 * Pose convention (that of OpenCV's solvePnP, so cv2.projectPoints draws with it): a world point
 * X maps to the camera as X_cam = R X + t; camera axes x right, y down, z forward; a pose is
 * reported as the Rodrigues vector r of R (radians) and t (metres). World: the target plane
 * z = 0, reference pixel (u, v) (0-based pixel centres) at (u s, v s, 0) with s = the target's
 * width in metres / its reference width in pixels.
 * ------------------------------------------------------------------------------------------- */

/**
 * A pinhole camera with radial distortion: the normalised point (x, y) = (X/Z, Y/Z) of a camera
 * point is distorted to (x, y) * (1 + k1 r^2 + k2 r^4), r^2 = x^2 + y^2, and lands on pixel
 * (fx x_d + cx, fy y_d + cy), pixel centres at integer coordinates (those of the keypoints).
 * The radial factor must grow monotonically over the frame (r + k1 r^3 + k2 r^5 increasing out
 * to the frame's corners) so every pixel has one ray; k1 = k2 = 0 is a pure pinhole.
 */
typedef struct satfeat_ar_camera {
    double fx, fy; /**< focal lengths in pixels, finite and > 0 */
    double cx, cy; /**< principal point in pixels (finite) */
    double k1, k2; /**< radial distortion (finite; 0 = none) */
} satfeat_ar_camera;

/**
 * Intrinsics of a camera whose horizontal field of view (degrees, in (0, 180)) is known but not
 * its calibration: fx = fy = (width / 2) / tan(hfov / 2), the principal point at the image
 * centre ((width - 1) / 2, (height - 1) / 2), no distortion. SATFEAT_ERR_ARG for a NULL out,
 * sizes < 1 or a field of view outside (0, 180).
 */
SATFEAT_API satfeat_status satfeat_ar_camera_from_fov(int width, int height, double hfov_degrees,
                                                      satfeat_ar_camera *out);

/**
 * Projects n world points (xyz, 3 doubles each) through the pose (rvec, tvec) and `camera`
 * (with its distortion) to pixels (uv, 2 doubles each). A point at or behind the camera plane
 * (Z <= 0) gives NaN for both coordinates. SATFEAT_ERR_ARG for NULL arrays (n > 0) or a camera
 * with a non-finite or non-positive focal length.
 */
SATFEAT_API satfeat_status satfeat_ar_project_points(const satfeat_ar_camera *camera,
                                                     const double rvec[3], const double tvec[3],
                                                     const double *xyz, size_t n, double *uv);

/** Opaque target: a reference image's features at several scales with their plane positions. */
typedef struct satfeat_ar_target satfeat_ar_target;

/** How a target is built; get the defaults from satfeat_ar_target_params_default. */
typedef struct satfeat_ar_target_params {
    satfeat_detector_params detector; /**< detector of every scale of the reference (default:
                                           the detector defaults with threshold 0.0002, grid 8,
                                           per_cell 24); its max_keypoints is set per scale */
    double scale_step;                /**< each scale is this factor of the one before, in
                                           [0.3, 0.9] (default 0.7071: half octaves) */
    int min_width;                    /**< no scale narrower than this many pixels, >= 32
                                           (default 80: found down to about that width) */
    int max_features;                 /**< keypoints kept at full scale, >= 16 (default 500);
                                           scale k keeps max(100, max_features * step^k) */
} satfeat_ar_target_params;

/** Facts about a target (satfeat_ar_target_get_info). */
typedef struct satfeat_ar_target_info {
    int width, height;  /**< reference image size in pixels */
    double width_m;     /**< physical width in metres */
    size_t features;    /**< keypoints over all scales */
    int scales;         /**< scales of the reference that were detected */
    int descriptor_dim; /**< 64 or 128 */
} satfeat_ar_target_info;

/** Returns the default target parameters (see satfeat_ar_target_params). */
SATFEAT_API satfeat_ar_target_params satfeat_ar_target_params_default(void);

/**
 * Builds a target from an 8-bit gray reference image (host memory, byte stride >= width, at
 * least 32 x 32) whose printed width is `width_m` metres (finite, > 0): the reference is
 * resampled by area averaging to scales 1, step, step^2, ... down to min_width pixels and each
 * scale detected with descriptors on ctx's backend; keypoints are kept in reference pixel
 * coordinates (pixel centres at integers). `params` NULL means the defaults. SATFEAT_ERR_ARG
 * (message in ctx) for bad arguments, SATFEAT_ERR_NO_MODEL when the reference has fewer than
 * 16 keypoints (a blank or featureless image cannot be found), SATFEAT_ERR_ALLOC.
 */
SATFEAT_API satfeat_status satfeat_ar_target_new(satfeat_ctx *ctx, const uint8_t *image,
                                                 size_t stride, int width, int height,
                                                 double width_m,
                                                 const satfeat_ar_target_params *params,
                                                 satfeat_ar_target **out);

/** Destroys a target. NULL is allowed. */
SATFEAT_API void satfeat_ar_target_delete(satfeat_ar_target *target);

/** Writes a target's facts (SATFEAT_ERR_ARG for NULL arguments). */
SATFEAT_API satfeat_status satfeat_ar_target_get_info(const satfeat_ar_target *target,
                                                      satfeat_ar_target_info *info);

/**
 * Saves a target to a file (the versioned binary format of docs/AR.md: magic, version, sizes,
 * the features, a checksum), with the failure rules of satfeat_image_write_png (a failed write
 * leaves an existing file as it was). `ctx` may be NULL.
 */
SATFEAT_API satfeat_status satfeat_ar_target_save(satfeat_ctx *ctx,
                                                  const satfeat_ar_target *target,
                                                  const char *path);

/**
 * Loads a target saved by satfeat_ar_target_save. The file is checked like any input before
 * anything is allocated from it: wrong magic, an unknown version, a truncated file, counts
 * the file size cannot hold, sizes beyond SATFEAT_IMAGE_MAX_SIDE, non-finite numbers,
 * positions off the reference, a bad Laplacian sign or checksum give SATFEAT_ERR_FORMAT with
 * the reason; SATFEAT_ERR_IO when it cannot be opened (a FIFO or a device is refused, never
 * waited on); SATFEAT_ERR_LIMIT beyond the context's memory limit. On error *out is NULL.
 */
SATFEAT_API satfeat_status satfeat_ar_target_load(satfeat_ctx *ctx, const char *path,
                                                  satfeat_ar_target **out);

/** What a session knows about a target in a frame. */
typedef enum satfeat_ar_state {
    SATFEAT_AR_LOST = 0, /**< not seen: no pose */
    SATFEAT_AR_FOUND,    /**< detected in this frame by matching against the whole target */
    SATFEAT_AR_TRACKED   /**< followed from the previous frame (guided matching) */
} satfeat_ar_state;

/** One target's answer for a frame. Lost: every double is NaN and inliers 0. */
typedef struct satfeat_ar_result {
    satfeat_ar_state state;
    int inliers;      /**< correspondences consistent with the pose */
    double rvec[3];   /**< Rodrigues vector of R, radians */
    double tvec[3];   /**< translation, metres */
    double R[9];      /**< row-major rotation: X_cam = R X + t */
    double h[9];      /**< homography reference pixel -> pixel of the undistorted frame (the
                           frame itself when k1 = k2 = 0), row-major, h[8] = 1, from the pose */
    double reproj_px; /**< rms reprojection error of the inliers, pixels */
} satfeat_ar_result;

/** Session parameters; get the defaults from satfeat_ar_params_default. */
typedef struct satfeat_ar_params {
    satfeat_detector_params detector; /**< detector of every frame (default: the detector
                                           defaults with threshold 0.0002, grid 8, per_cell 32,
                                           max_keypoints 1200) */
    double ratio;          /**< ratio test of every matching pass, in (0, 1] (default 0.8) */
    double threshold;      /**< robust homography inlier threshold, px (default 3) */
    double track_radius;   /**< guided matching radius around the predicted position, px
                                (default 16) */
    int min_inliers_found; /**< inliers a detection needs to be trusted, >= 8 (default 16) */
    int min_inliers_tracked; /**< inliers tracking needs to continue, >= 8 (default 12) */
    double max_reproj_px;  /**< largest rms reprojection error of a trusted pose (default 2.5) */
} satfeat_ar_params;

/** Opaque AR session: targets, a camera, a detector and the per-target state. */
typedef struct satfeat_ar_session satfeat_ar_session;

/** Returns the default session parameters (see satfeat_ar_params). */
SATFEAT_API satfeat_ar_params satfeat_ar_params_default(void);

/**
 * Creates a session for frames of up to max_width x max_height on ctx (detection and matching
 * run on its backend; everything else on the host, so both backends give the same poses) with
 * n_targets targets (1 .. 64; copied, so they may be deleted afterwards) seen through
 * `camera`. SATFEAT_ERR_ARG (message in ctx) for bad arguments, a camera whose distortion folds
 * over inside the frame, or targets of different descriptor sizes than params.detector.
 */
SATFEAT_API satfeat_status satfeat_ar_session_new(satfeat_ctx *ctx,
                                                  const satfeat_ar_target *const *targets,
                                                  int n_targets,
                                                  const satfeat_ar_camera *camera,
                                                  const satfeat_ar_params *params, int max_width,
                                                  int max_height, satfeat_ar_session **out);

/** Destroys a session. NULL is allowed. */
SATFEAT_API void satfeat_ar_session_delete(satfeat_ar_session *session);

/**
 * Processes one 8-bit gray frame (host memory, byte stride >= width, at most the maximum size)
 * and writes one result per target into results[0 .. n_targets-1] (`capacity` >= n_targets,
 * else SATFEAT_ERR_CAPACITY). A target tracked in the previous frame is matched around its
 * predicted position; when that gives too few inliers or too large an error, and for every
 * lost target, the whole target is matched against the frame. A pose is reported only when
 * it is trusted (enough inliers, small reprojection error, the target's outline convex and in
 * front of the camera); otherwise the target is lost in this frame.
 */
SATFEAT_API satfeat_status satfeat_ar_session_process_u8(satfeat_ar_session *session,
                                                         const uint8_t *image, size_t stride,
                                                         int width, int height,
                                                         satfeat_ar_result *results,
                                                         int capacity);

/** Forgets every target's state: the next frame looks for all of them from scratch. */
SATFEAT_API satfeat_status satfeat_ar_session_reset(satfeat_ar_session *session);

#ifdef __cplusplus
}
#endif

#endif /* SATFEAT_H */

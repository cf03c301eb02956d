/* satfeat/core.h - libsatfeat public API: version, status codes, the context (backend, threads,
 * memory limit, stream, last error). Part of satfeat.h, which includes every part; include
 * satfeat.h. */
#ifndef SATFEAT_API_CORE_H
#define SATFEAT_API_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* The library's version (docs/API.md: MAJOR breaks, MINOR adds, PATCH fixes; the shared library
 * is libsatfeat.so.MAJOR). CMake reads these three lines: keep their form. */
#define SATFEAT_VERSION_MAJOR 1
#define SATFEAT_VERSION_MINOR 0
#define SATFEAT_VERSION_PATCH 0

/** A version as one comparable integer: SATFEAT_VERSION >= SATFEAT_VERSION_NUMBER(1, 2, 0). */
#define SATFEAT_VERSION_NUMBER(major, minor, patch) ((major) * 1000000L + (minor) * 1000L + (patch))

/** The version of these headers as one integer (see SATFEAT_VERSION_NUMBER). */
#define SATFEAT_VERSION                                                                           \
    SATFEAT_VERSION_NUMBER(SATFEAT_VERSION_MAJOR, SATFEAT_VERSION_MINOR, SATFEAT_VERSION_PATCH)

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
 * Input files
 *
 * Every file the library reads is opened this way, and clients that read files of their own
 * (lists of frames, configuration) can use the same rules: the open never blocks (a FIFO without
 * a writer or a device that waits for data cannot hang the caller) and anything but a regular
 * file (a FIFO, a character or block device, a socket, a directory) is refused with
 * SATFEAT_ERR_IO and the message "<what>: <path>: is a <kind>, not a regular file". `what` names
 * the reader in messages ("image", "frame list"). `ctx` may be NULL (the message is dropped).
 * ------------------------------------------------------------------------------------------- */

/** Opens `path` for binary reading under the rules above; on success *out is a blocking stream
 *  at offset 0 that the caller fcloses (*out is NULL on failure). */
SATFEAT_API satfeat_status satfeat_file_open_input(satfeat_ctx *ctx, const char *what,
                                                   const char *path, FILE **out);

/** Checks, without opening it, that `path` (links followed) is a regular file the rules above
 *  accept: SATFEAT_OK, or SATFEAT_ERR_IO with the message (missing, or what it is instead). */
SATFEAT_API satfeat_status satfeat_file_check_input(satfeat_ctx *ctx, const char *what,
                                                    const char *path);

#ifdef __cplusplus
}
#endif

#endif

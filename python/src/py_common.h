/* py_common.h - what every file of the satfeat Python extension shares: the Python and NumPy
 * headers (one NumPy API table for the whole module), the module state (exception classes and the
 * structured dtypes) and the helpers that turn Python objects into checked C views and library
 * statuses into Python exceptions. The extension is a client of include/satfeat.h only. */
#ifndef SATFEAT_PY_COMMON_H
#define SATFEAT_PY_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL satfeat_py_ARRAY_API
#ifndef SATFEAT_PY_MODULE_MAIN
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "satfeat.h"

/* One exception class per status (index = status value; index 0 holds the base class Error). */
#define SATFEAT_PY_N_STATUS (SATFEAT_ERR_LIMIT + 1)

/** Everything the module owns, created once at import (PyModuleDef m_size). */
typedef struct satfeat_py_state {
    PyObject *errors[SATFEAT_PY_N_STATUS];
    PyArray_Descr *keypoint_dtype; /**< mirrors satfeat_keypoint field for field */
    PyArray_Descr *match_dtype;    /**< mirrors satfeat_match_pair */
    PyArray_Descr *track_dtype;    /**< mirrors satfeat_track */
    PyTypeObject *track_result_type;    /**< satfeat.TrackResult (results.c) */
    PyTypeObject *motion_estimate_type; /**< satfeat.MotionEstimate (results.c) */
} satfeat_py_state;

/** The state of the module object `module` (satfeat._satfeat). */
satfeat_py_state *satfeat_py_state_of(PyObject *module);

/** Imports satfeat._satfeat and returns a new reference to it (NULL with an exception set). */
PyObject *satfeat_py_module(void);

/* --- errors (errors.c) --------------------------------------------------------------------- */

/** Creates the exception classes and adds them to `module`; 0 on success, -1 on error. */
int satfeat_py_errors_init(PyObject *module, satfeat_py_state *state);

/** Raises the exception of `status` with `message` (the status string when empty); returns NULL. */
PyObject *satfeat_py_raise(PyObject *module, satfeat_status status, const char *message);

/** Copies the context's last error into `buf` (a stable copy to raise after the work). */
void satfeat_py_copy_error(const satfeat_ctx *ctx, char *buf, size_t size);

/** Creates a context of the named backend ("auto", "cpu", "cuda"); raises on failure. */
int satfeat_py_ctx_new(PyObject *module, const char *backend, int device, satfeat_ctx **out);

/* --- threads and memory (limits.c) ----------------------------------------------------------
 *
 * Locking pattern of every object that owns library state (Detector, Tracker, Pool): the
 * object's PyThread lock guards the library object and everything the library call writes;
 * it is only ever taken with the GIL released:
 *
 *     Py_BEGIN_ALLOW_THREADS
 *     PyThread_acquire_lock(self->lock, WAIT_LOCK);
 *     ... library call into per-call buffers, error message copied ...
 *     PyThread_release_lock(self->lock);
 *     Py_END_ALLOW_THREADS
 *
 * A thread that waits for the lock holds no GIL and a thread that holds the lock never asks for
 * the GIL, so the two can never deadlock; results go to buffers of the calling thread (never to
 * the object), so turning them into NumPy arrays afterwards, with the GIL, needs no lock. Fields
 * read by Python-side code (capacity hints, the memory limit's mirror) are only touched with
 * the GIL held. */

/** The library context of an object that owns library state, with the lock that guards it (and
 * the library objects made on it) and the module whose exceptions it raises. */
typedef struct satfeat_py_owner {
    PyObject *module;
    satfeat_ctx *ctx;
    PyThread_type_lock lock;
} satfeat_py_owner;

/** Imports the module, allocates the lock and creates a context of `backend` on `device` with
 * `threads` CPU threads and a memory limit of `limit` bytes (0: the library's default); raises on
 * failure, leaving what was made for satfeat_py_owner_close. 0 on success, -1 on error. */
int satfeat_py_owner_open(satfeat_py_owner *o, const char *backend, int device, int threads,
                          size_t limit);

/** Frees the context and the lock and drops the module (safe on a zeroed or half-opened owner;
 * the library objects made on the context go first). */
void satfeat_py_owner_close(satfeat_py_owner *o);

/** Work done under an owner's lock without the GIL: a library call on `arg`. */
typedef satfeat_status (*satfeat_py_locked_fn)(void *arg);

/** Runs fn(arg) as the locking pattern says (GIL released, lock held); on failure copies the
 * context's error into msg (size bytes) when msg is not NULL. Returns fn's status. */
satfeat_status satfeat_py_owner_call(satfeat_py_owner *o, satfeat_py_locked_fn fn, void *arg,
                                     char *msg, size_t size);

/** The most CPU threads (and CPU pool workers) one object may ask for: the CLI's rule,
 * SATFEAT_PY_THREADS_PER_CORE per online core (sysconf; 1 core when it cannot be read). */
#define SATFEAT_PY_THREADS_PER_CORE 4
int satfeat_py_max_threads(void);

/** Checks a threads= (or workers=) argument named `what` against 0 .. satfeat_py_max_threads();
 * raises ValueError naming the cap otherwise. 0 on success, -1 on error. */
int satfeat_py_check_threads(const char *what, int threads);

/** Converts a memory_limit= argument (None: leave *out alone; an int >= 0, 0 meaning the
 * library's default) into *out. Raises TypeError / ValueError. 0 on success, -1 on error. */
int satfeat_py_memory_limit_arg(PyObject *obj, size_t *out);

/**
 * Checks that `n` items of `each` bytes (computed without overflow) fit in `limit` bytes before
 * they are allocated; raises satfeat.LimitError naming `what` and both sizes otherwise.
 * 0 when they fit, -1 with the error raised.
 */
int satfeat_py_check_bytes(PyObject *module, size_t limit, const char *what, size_t n,
                           size_t each);

/** set_memory_limit(bytes) of an object owning `ctx`: parses `arg` (an int of bytes, 0 for the
 * default; None is a TypeError) and sets the limit with `lock` taken as above; returns the limit
 * in effect, or (size_t)-1 with an exception set. */
size_t satfeat_py_set_memory_limit(PyObject *module, satfeat_ctx *ctx, PyThread_type_lock lock,
                                   PyObject *arg);

/* --- buffers (buffers.c) -------------------------------------------------------------------- */

/** A checked 2-D view of a buffer: rows of `width` contiguous items, `stride` bytes apart. */
typedef struct satfeat_py_plane {
    Py_buffer view;
    const void *data;
    size_t stride;
    int width, height;
    char kind; /**< 'B' (uint8) or 'f' (float32) */
} satfeat_py_plane;

/**
 * Gets a 2-D buffer of uint8 ('B') or, when `kinds` contains 'f', float32 items whose rows are
 * contiguous (strides[1] == itemsize, strides[0] >= width * itemsize): C-contiguous arrays and
 * row slices of them. Raises ValueError naming `what` for other shapes, item types or strides,
 * TypeError for an object without the buffer protocol. 0 on success, -1 on error.
 */
int satfeat_py_plane_get(PyObject *obj, const char *what, const char *kinds,
                         satfeat_py_plane *out);

/**
 * Gets a descriptor matrix: a C-contiguous 2-D float32 buffer of shape (n, 64) or (n, 128),
 * n >= 0 (the (0, 64) array Detector.detect returns for a blank frame is a valid input).
 * ValueError naming `what` otherwise (float64 is named, with the cure), TypeError for an object
 * without the buffer protocol. 0 on success, -1 on error.
 */
int satfeat_py_matrix_get(PyObject *obj, const char *what, satfeat_py_plane *out);

/** Releases a view taken by satfeat_py_plane_get (safe on a zeroed one). */
void satfeat_py_plane_release(satfeat_py_plane *plane);

/**
 * Checks that `obj` is a 1-D C-contiguous NumPy array of dtype `dtype` (the keypoint dtype, say)
 * and returns a new reference to it in *out; raises ValueError naming `what` otherwise.
 */
int satfeat_py_records_get(PyObject *obj, const char *what, PyArray_Descr *dtype,
                           PyArrayObject **out);

/* --- dtypes (dtypes.c) ---------------------------------------------------------------------- */

/** Creates the structured dtypes of the module state; 0 on success, -1 on error. */
int satfeat_py_dtypes_init(PyObject *module, satfeat_py_state *state);

/** A new 1-D array of `n` records of `dtype` holding a copy of `src` (n * itemsize bytes). */
PyObject *satfeat_py_records_new(PyArray_Descr *dtype, const void *src, size_t n);

/* Angles: the library's keypoints and tracks hold radians in [0, 2 pi); the module's records hold
 * degrees in [0, 360), as OpenCV's KeyPoint.angle. */

/** radians * (180 / pi), an exact 360 (rounded up from just below 2 pi) wrapped to 0. */
double satfeat_py_degrees(double radians);

/** A keypoint_dtype array of copies of n keypoints, angles in degrees (NULL with an exception). */
PyObject *satfeat_py_keypoints_new(PyObject *module, const satfeat_keypoint *kp, size_t n);

/** A track_dtype array of copies of n tracks, angles in degrees (NULL with an exception). */
PyObject *satfeat_py_tracks_new(PyObject *module, const satfeat_track *tracks, size_t n);

/**
 * The keypoint_dtype array `obj` (checked as satfeat_py_records_get, its size against the default
 * memory limit) as a malloc'd copy of library keypoints, angles back in radians; *n receives the
 * count. The caller frees it. NULL with the exception raised (ValueError / TypeError naming
 * `what`, LimitError, MemoryError).
 */
satfeat_keypoint *satfeat_py_keypoints_get(PyObject *module, PyObject *obj, const char *what,
                                           size_t *n);

/* --- parameters (params.c) ------------------------------------------------------------------ */

/** Parses a backend name ("auto", "cpu", "cuda"); raises ValueError for others. */
int satfeat_py_parse_backend(const char *name, satfeat_backend *out);

/**
 * Applies the keyword arguments in `kwargs` (may be NULL) that name satfeat_detector_params
 * fields to *p, skipping the names listed in `skip` (NULL-terminated, may be NULL). Raises
 * TypeError for an unknown name or a value of the wrong type. 0 on success, -1 on error.
 */
int satfeat_py_detector_params(PyObject *kwargs, const char *const *skip,
                               satfeat_detector_params *p);

/**
 * A new dict of the entries of `kwargs` (may be NULL) named in `own` (NULL-terminated): a
 * constructor's own keywords, parsed by PyArg_ParseTupleAndKeywords, apart from the detector
 * parameters that satfeat_py_detector_params reads from the same kwargs.
 */
PyObject *satfeat_py_own_kwargs(PyObject *kwargs, const char *const *own);

/** Applies a detector= argument (None: leave *p alone; else a dict of detector parameters, as
 * satfeat_py_detector_params) to *p. Raises TypeError. 0 on success, -1 on error. */
int satfeat_py_detector_dict(PyObject *obj, satfeat_detector_params *p);

/** Settles the optional width and height arguments of `who` (Detector, Tracker, Pool): each
 * None or an int >= 0; neither given becomes 0 x 0, sized by the frames (as are explicit zeros,
 * the library's convention); one alone is a TypeError. 0 on success, -1 on error. */
int satfeat_py_size_args(const char *who, PyObject *width_obj, PyObject *height_obj, int *width,
                         int *height);

/** Parses a motion model name ("homography", "affine", "similarity"); raises ValueError naming
 * `what` for others. 0 on success, -1 on error. */
int satfeat_py_parse_motion_model(const char *what, const char *name, satfeat_motion_model *out);

/** A new dict of the fields of a satfeat_detector_params (descriptor as "surf64" etc.). */
PyObject *satfeat_py_detector_params_dict(const satfeat_detector_params *p);

/* --- feature sets and lists of frames (frames.c): Detector.detect, Pool.detect and
 * Detector.detect_batch ---------------------------------------------------------------------- */

/**
 * The features of `f` as Python objects: the keypoint array, or with want_desc the tuple
 * (keypoints, descriptors float32 n x dim). Their bytes are checked against memory_limit first
 * (LimitError naming `what`). NULL with the exception raised. GIL held.
 */
PyObject *satfeat_py_features_object(PyObject *module, const satfeat_features *f, int want_desc,
                                     size_t memory_limit, const char *what);

/**
 * Detects `n` frames into their results in one library call (pool or batch) for `owner`;
 * releases the GIL itself. On failure writes the library's message into msg (size bytes).
 */
typedef satfeat_status (*satfeat_py_frames_run)(void *owner, const satfeat_image_view *frames,
                                                size_t n, satfeat_frame_result *results,
                                                char *msg, size_t size);

/**
 * Detects the 2-D uint8 images of the sequence `images` through `run` into feature sets the
 * library sizes; the per-frame records and the result arrays are checked against memory_limit
 * bytes (LimitError). Returns the list of keypoint arrays, or (keypoints, descriptors) tuples,
 * in input order; NULL with the exception of the first failed frame raised.
 */
PyObject *satfeat_py_detect_frames(PyObject *module, PyObject *images, int want_desc,
                                   size_t memory_limit, satfeat_py_frames_run run, void *owner);

/* --- named results (results.c) ------------------------------------------------------------- */

/** Creates TrackResult and MotionEstimate and adds them to `module`; 0 on success, -1 on error. */
int satfeat_py_results_init(PyObject *module, satfeat_py_state *state);

/** A TrackResult of the three references (stolen; any NULL: all released, NULL returned with the
 * exception set). */
PyObject *satfeat_py_track_result(PyObject *module, PyObject *tracks, PyObject *motion,
                                  PyObject *descriptors);

/** A MotionEstimate of h and mask (stolen, as above) and the counts of *m. */
PyObject *satfeat_py_motion_estimate(PyObject *module, PyObject *h, PyObject *mask,
                                     const satfeat_motion *m);

/* --- types and functions of the module ------------------------------------------------------ */

extern PyTypeObject satfeat_py_detector_type;
extern PyTypeObject satfeat_py_tracker_type;
/** satfeat.VideoReader (video.c). */
extern PyTypeObject satfeat_py_video_reader_type;
extern PyTypeObject satfeat_py_pool_type;
/** satfeat.ARSession (ar.c). */
extern PyTypeObject satfeat_py_ar_session_type;

PyObject *satfeat_py_sat(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *satfeat_py_load_gray(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *satfeat_py_match(PyObject *module, PyObject *args, PyObject *kwargs);
/** satfeat.estimate_motion (motion.c). */
PyObject *satfeat_py_estimate_motion(PyObject *module, PyObject *args, PyObject *kwargs);

/** Casts a METH_VARARGS | METH_KEYWORDS function to the PyCFunction of a PyMethodDef. */
#define SATFEAT_PY_KW(fn) ((PyCFunction)(void (*)(void))(fn))

#endif /* SATFEAT_PY_COMMON_H */

/* detector.c - satfeat.Detector: a satfeat_detector (and its own context) sized once for a
 * maximum frame and reused for every frame, as in C. detect() releases the GIL for the work and
 * holds the object's lock, so Python threads may share one detector safely (they take turns). */
#include "py_common.h"

#include <stdlib.h>
#include <string.h>

typedef struct detector_object {
    PyObject_HEAD
    PyObject *module;
    satfeat_ctx *ctx;
    satfeat_detector *det;
    PyThread_type_lock lock; /* guards ctx, det and batch: py_common.h, "Locking pattern" */
    satfeat_detector_params params;
    int max_width, max_height, dim;
    size_t memory_limit;  /* mirror of the context's limit for Python-side checks (GIL only) */
    satfeat_batch *batch; /* detect_batch's lanes, made on its first call (NULL before) */
    int batch_lanes;      /* the `lanes` it was made with */
} detector_object;

/* Frees what the object owns (all of it, or what a failed __init__ left). */
static void detector_release(detector_object *self)
{
    satfeat_batch_delete(self->batch); /* before the detector it serves */
    self->batch = NULL;
    satfeat_detector_delete(self->det);
    self->det = NULL;
    satfeat_ctx_delete(self->ctx);
    self->ctx = NULL;
    if (self->lock) PyThread_free_lock(self->lock);
    self->lock = NULL;
    Py_CLEAR(self->module);
}

static void detector_dealloc(detector_object *self)
{
    detector_release(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int detector_init(detector_object *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"width", "height", "backend", "device", "threads", "memory_limit",
                             NULL};
    static const char *const own[] = {"width", "height", "backend", "device", "threads",
                                      "memory_limit", NULL};
    int width = 0, height = 0, device = -1, threads = 0;
    const char *backend = "auto";
    PyObject *limit_obj = Py_None, *w_obj = Py_None, *h_obj = Py_None;
    size_t limit = 0;
    if (self->det) {
        PyErr_SetString(PyExc_RuntimeError, "Detector is already initialised");
        return -1;
    }
    detector_release(self); /* what an earlier, failed __init__ left */
    /* Optional positional width and height, then the detector parameters as keywords. */
    PyObject *known = satfeat_py_own_kwargs(kwargs, own);
    if (!known) goto fail;
    if (!PyArg_ParseTupleAndKeywords(args, known, "|OO$siiO:Detector", kwlist, &w_obj, &h_obj,
                                     &backend, &device, &threads, &limit_obj))
        goto fail;
    if (satfeat_py_size_args("Detector", w_obj, h_obj, &width, &height) < 0 ||
        satfeat_py_check_threads("threads", threads) < 0 ||
        satfeat_py_memory_limit_arg(limit_obj, &limit) < 0)
        goto fail;
    self->params = satfeat_detector_params_default();
    if (satfeat_py_detector_params(kwargs, own, &self->params) < 0) goto fail;
    if (!(self->module = satfeat_py_module())) goto fail;
    if (!(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        goto fail;
    }
    if (satfeat_py_ctx_new(self->module, backend, device, &self->ctx) < 0) goto fail;
    /* The limit first: satfeat_detector_new asks it before allocating the frame buffers. */
    satfeat_status st = satfeat_ctx_set_threads(self->ctx, threads);
    if (st == SATFEAT_OK) st = satfeat_ctx_set_memory_limit(self->ctx, limit);
    if (st == SATFEAT_OK) {
        Py_BEGIN_ALLOW_THREADS
        st = satfeat_detector_new(self->ctx, &self->params, width, height, &self->det);
        Py_END_ALLOW_THREADS
    }
    if (st != SATFEAT_OK) {
        satfeat_py_raise(self->module, st, satfeat_ctx_last_error(self->ctx));
        goto fail;
    }
    self->max_width = width;
    self->max_height = height;
    self->dim = satfeat_detector_descriptor_dim(self->det);
    self->memory_limit = satfeat_ctx_memory_limit(self->ctx);
    Py_DECREF(known);
    return 0;
fail:
    Py_XDECREF(known);
    return -1;
}

/* One detection into `out` (the calling thread's own set, so no other thread's detection can
 * refill it before the copy into NumPy arrays), the GIL released and the detector locked. */
static satfeat_status run_detect(detector_object *self, satfeat_features **out,
                                 const satfeat_py_plane *img, const satfeat_py_plane *mask,
                                 char *msg, size_t msg_size)
{
    satfeat_image_view v = satfeat_image_view_host(img->data, img->width, img->height, img->stride);
    if (mask) {
        v.mask = mask->data;
        v.mask_stride = mask->stride;
    }
    satfeat_status st;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    st = satfeat_detect(self->det, &v, out);
    if (st != SATFEAT_OK) satfeat_py_copy_error(self->ctx, msg, msg_size);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    return st;
}

static PyObject *detector_detect(detector_object *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"image", "descriptors", "mask", NULL};
    PyObject *image, *mask_obj = Py_None;
    int want_desc = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p$O:detect", kwlist, &image, &want_desc,
                                     &mask_obj))
        return NULL;
    if (want_desc && !self->dim) {
        PyErr_SetString(PyExc_ValueError,
                        "descriptors=True needs a detector with descriptor='surf64' or 'surf128'");
        return NULL;
    }
    satfeat_py_plane img, mask;
    satfeat_features *out = NULL;
    memset(&mask, 0, sizeof mask);
    if (satfeat_py_plane_get(image, "image", "B", &img) < 0) return NULL;
    PyObject *result = NULL;
    if (mask_obj != Py_None) {
        if (satfeat_py_plane_get(mask_obj, "mask", "B", &mask) < 0) goto done;
        if (mask.width != img.width || mask.height != img.height) {
            PyErr_Format(PyExc_ValueError, "mask is %d x %d but the image is %d x %d",
                         mask.width, mask.height, img.width, img.height);
            goto done;
        }
    }
    char msg[512] = "";
    satfeat_status st = run_detect(self, &out, &img, mask_obj != Py_None ? &mask : NULL, msg,
                                   sizeof msg);
    if (st != SATFEAT_OK) {
        satfeat_py_raise(self->module, st, msg);
        goto done;
    }
    result = satfeat_py_features_object(self->module, out, want_desc, self->memory_limit,
                                        "Detector.detect: keypoint buffers");
done:
    satfeat_features_delete(out);
    satfeat_py_plane_release(&img);
    satfeat_py_plane_release(&mask);
    return result;
}

/* What run_batch needs: the detector and the lane count of this call. */
typedef struct batch_call {
    detector_object *self;
    int lanes;
} batch_call;

/* Detects n frames through the detector's batch, the GIL released and the detector locked
 * (satfeat_py_frames_run). The batch is (re)made here, under the lock, when it is missing or
 * has another lane count: another thread's detect_batch may be using the current one. */
static satfeat_status run_batch(void *owner, const satfeat_image_view *frames, size_t n,
                                satfeat_frame_result *results, char *msg, size_t size)
{
    const batch_call *call = owner;
    detector_object *self = call->self;
    satfeat_status st = SATFEAT_OK;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    if (!self->batch || self->batch_lanes != call->lanes) {
        satfeat_batch_delete(self->batch);
        self->batch = NULL;
        st = satfeat_batch_new(self->det, call->lanes, &self->batch);
        if (st == SATFEAT_OK) self->batch_lanes = call->lanes;
    }
    if (st == SATFEAT_OK) st = satfeat_batch_detect(self->batch, frames, n, results);
    if (st != SATFEAT_OK) satfeat_py_copy_error(self->ctx, msg, size);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    return st;
}

static PyObject *detector_detect_batch(detector_object *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"images", "descriptors", "lanes", NULL};
    PyObject *images;
    int want_desc = 0, lanes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p$i:detect_batch", kwlist, &images,
                                     &want_desc, &lanes))
        return NULL;
    if (want_desc && !self->dim) {
        PyErr_SetString(PyExc_ValueError,
                        "descriptors=True needs a detector with descriptor='surf64' or 'surf128'");
        return NULL;
    }
    batch_call call = {self, lanes};
    return satfeat_py_detect_frames(self->module, images, want_desc, self->memory_limit,
                                    run_batch, &call);
}

/* set_memory_limit(bytes): the context's limit, then its mirror for the Python-side checks. */
static PyObject *detector_set_memory_limit(detector_object *self, PyObject *arg)
{
    const size_t now = satfeat_py_set_memory_limit(self->module, self->ctx, self->lock, arg);
    if (now == (size_t)-1) return NULL;
    self->memory_limit = now;
    Py_RETURN_NONE;
}

/* Getters of an object whose __init__ failed or was skipped raise instead of reading NULL. */
static int initialised(const detector_object *self)
{
    if (self->det) return 1;
    PyErr_SetString(PyExc_RuntimeError, "Detector.__init__ was not called (or failed)");
    return 0;
}

static PyObject *detector_get_backend(detector_object *self, void *closure)
{
    (void)closure;
    if (!initialised(self)) return NULL;
    return PyUnicode_FromString(satfeat_ctx_backend(self->ctx) == SATFEAT_BACKEND_CUDA ? "cuda"
                                                                                     : "cpu");
}

static PyObject *detector_get_int(detector_object *self, void *closure)
{
    const char *which = closure;
    if (!initialised(self)) return NULL;
    if (!strcmp(which, "width")) return PyLong_FromLong(self->max_width);
    if (!strcmp(which, "height")) return PyLong_FromLong(self->max_height);
    if (!strcmp(which, "device")) return PyLong_FromLong(satfeat_ctx_device(self->ctx));
    if (!strcmp(which, "threads")) return PyLong_FromLong(satfeat_ctx_threads(self->ctx));
    if (!strcmp(which, "memory_limit")) return PyLong_FromSize_t(self->memory_limit);
    return PyLong_FromLong(self->dim);
}

static PyObject *detector_get_params(detector_object *self, void *closure)
{
    (void)closure;
    if (!initialised(self)) return NULL;
    return satfeat_py_detector_params_dict(&self->params);
}

static PyObject *detector_repr(detector_object *self)
{
    if (!self->det) return PyUnicode_FromString("<satfeat.Detector (uninitialised)>");
    const char *backend = satfeat_ctx_backend(self->ctx) == SATFEAT_BACKEND_CUDA ? "cuda" : "cpu";
    if (!self->max_width)
        return PyUnicode_FromFormat("<satfeat.Detector sized by its frames on %s, descriptor %d>",
                                    backend, self->dim);
    return PyUnicode_FromFormat("<satfeat.Detector %dx%d on %s, descriptor %d>", self->max_width,
                                self->max_height, backend, self->dim);
}

/* Methods and properties need an initialised detector. */
static PyObject *detector_detect_checked(detector_object *self, PyObject *args, PyObject *kw)
{
    if (!initialised(self)) return NULL;
    return detector_detect(self, args, kw);
}

static PyObject *detector_detect_batch_checked(detector_object *self, PyObject *args,
                                               PyObject *kw)
{
    if (!initialised(self)) return NULL;
    return detector_detect_batch(self, args, kw);
}

static PyObject *detector_set_memory_limit_checked(detector_object *self, PyObject *arg)
{
    if (!initialised(self)) return NULL;
    return detector_set_memory_limit(self, arg);
}

static PyMethodDef detector_methods[] = {
    {"set_memory_limit", (PyCFunction)detector_set_memory_limit_checked, METH_O,
     "set_memory_limit($self, bytes, /)\n--\n\n"
     "Sets the most host memory, in bytes, that one allocation of this detector may need (0:\n"
     "the library's default, half of the physical memory): the library's limit of its context\n"
     "(satfeat_ctx_set_memory_limit; detect_batch's lanes) and the module's check of each call's\n"
     "result buffers. Beyond it a call raises LimitError (a MemoryError) naming both sizes.\n"
     "Calls already running finish under the old limit."},
    {"detect", SATFEAT_PY_KW(detector_detect_checked), METH_VARARGS | METH_KEYWORDS,
     "detect($self, image, descriptors=False, *, mask=None)\n--\n\n"
     "Detects keypoints in an 8-bit gray image (a 2-D uint8 array with contiguous rows, at most\n"
     "the detector's size). Returns a 1-D array of satfeat.keypoint_dtype records (x, y, size,\n"
     "sigma, response, angle, laplacian, octave, layer, sample_x, sample_y) sorted by response\n"
     "descending, then y, x, size; with descriptors=True a tuple (keypoints, descriptors) where\n"
     "descriptors is a float32 array of shape (n, descriptor_size), unit length rows aligned\n"
     "with the keypoints. `mask` (same shape, uint8) keeps a keypoint only where\n"
     "mask[round(y), round(x)] != 0. The selection follows the detector's parameters: near\n"
     "duplicates, the mask, the per-cell grid cap, then max_keypoints. Results are those of\n"
     "satfeat_detect, bit for bit, on either backend. The GIL is released while\n"
     "the frame is detected."},
    {"detect_batch", SATFEAT_PY_KW(detector_detect_batch_checked), METH_VARARGS | METH_KEYWORDS,
     "detect_batch($self, images, descriptors=False, *, lanes=0)\n--\n\n"
     "Detects every image of the sequence `images` (2-D uint8 arrays with contiguous rows, each\n"
     "at most the detector's size; no masks) in one satfeat_batch_detect call and returns a\n"
     "list in input order: keypoint arrays, or (keypoints, descriptors) tuples, each exactly\n"
     "what detect() returns for that image. On CUDA the frames run concurrently on `lanes`\n"
     "lanes (0: the library's default, 8), each a detector state of its own made on the first\n"
     "call (and again when `lanes` changes); on the CPU they are detected in turn. A frame that\n"
     "fails raises the library's error for the first failed frame (its index in the message).\n"
     "The GIL is released while the frames are detected."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef detector_getset[] = {
    {"backend", (getter)detector_get_backend, NULL, "'cpu' or 'cuda' (AUTO resolved).", NULL},
    {"device", (getter)detector_get_int, NULL, "CUDA device ordinal, -1 on the CPU.", "device"},
    {"width", (getter)detector_get_int, NULL,
     "Largest frame width asked for; 0 for a detector sized by its frames.", "width"},
    {"height", (getter)detector_get_int, NULL,
     "Largest frame height asked for; 0 for a detector sized by its frames.", "height"},
    {"threads", (getter)detector_get_int, NULL, "CPU threads of the context.", "threads"},
    {"memory_limit", (getter)detector_get_int, NULL,
     "The memory limit in bytes (memory_limit=, set_memory_limit()).", "memory_limit"},
    {"descriptor_size", (getter)detector_get_int, NULL,
     "Floats per descriptor: 0, 64 or 128.", "dim"},
    {"params", (getter)detector_get_params, NULL, "The detector parameters as a dict.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject satfeat_py_detector_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "satfeat.Detector",
    .tp_basicsize = sizeof(detector_object),
    .tp_dealloc = (destructor)detector_dealloc,
    .tp_repr = (reprfunc)detector_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "Detector(width=None, height=None, *, backend='auto', device=-1, threads=0,\n"
        "         memory_limit=None, **params)\n--\n\n"
        "Fast-Hessian (SURF-style) detector, with orientations and SURF descriptors, reused for\n"
        "every frame. Without width and height it sizes itself by its frames: the first frame\n"
        "allocates its buffers and a larger one re-allocates them (a stream of one size\n"
        "allocates once). With them it is sized once, here, for frames of up to width x height\n"
        "(a larger frame is an ArgumentError).\n\n"
        "backend 'auto' picks CUDA when `device` (device 0 when negative) is usable, else the\n"
        "CPU; 'cuda' raises NoDeviceError without a device and UnsupportedError in a build\n"
        "without CUDA. threads: CPU threads (0 = the OpenMP default, 1 = serial), at most 4 per\n"
        "online core (the CLI's cap). memory_limit: bytes one allocation may need (None or 0:\n"
        "the library's default, half of the physical memory), asked before the detector's\n"
        "buffers are allocated (LimitError beyond it); see set_memory_limit().\n\n"
        "Thread safety: threads may share one detector. Each call takes the detector's lock\n"
        "with the GIL released, so calls on one detector run one at a time while other Python\n"
        "code runs; every call gets its own result.\n\n"
        "params are the fields of satfeat_detector_params (defaults in brackets):\n"
        "  octaves 1..6 [4], layers 3..6 [6], init_step 1 or 2 [1], threshold >= 0 [0.0004]\n"
        "  (normalised determinant), max_keypoints [0 = no limit], grid and per_cell (at most\n"
        "  per_cell keypoints in each cell of a grid x grid grid) [0, 0], max_offset in (0, 1]\n"
        "  [1], unique_scales [0], upright [0], suppress_duplicates [1], descriptor 'surf64',\n"
        "  'surf128' or 'none' ['surf64'], descriptor_norm 'root' or 'l2' (SURF's unit vector)\n"
        "  ['root'], orientation_refine [1] (the best window's angle refined by the responses\n"
        "  within 30 degrees of it), descriptor_haar [4] (the side of the descriptor's Haar\n"
        "  filters in units of the keypoint scale, 2..4; 3 is SURF's), orientation_filter\n"
        "  'scharr' or 'haar' (SURF's Haar pairs) ['scharr'], orientation_haar [4] (the side\n"
        "  of the orientation's Haar filters, with orientation_filter 'haar').\n"
        "Bad values raise ArgumentError (a ValueError) with the library's message.",
    .tp_methods = detector_methods,
    .tp_getset = detector_getset,
    .tp_init = (initproc)detector_init,
    .tp_new = PyType_GenericNew,
};

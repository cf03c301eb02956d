/* pool.c - satfeat.Pool: a satfeat_pool (one detector per GPU, or per CPU worker) that detects
 * a list of frames spread over its devices and returns the results in input order. */
#include "py_common.h"

#include <stdlib.h>
#include <string.h>

typedef struct pool_object {
    PyObject_HEAD
    PyObject *module;
    satfeat_pool *pool;
    PyThread_type_lock lock;
    int max_width, max_height, dim;
} pool_object;

static void pool_release(pool_object *self)
{
    satfeat_pool_delete(self->pool);
    self->pool = NULL;
    if (self->lock) PyThread_free_lock(self->lock);
    self->lock = NULL;
    Py_CLEAR(self->module);
}

static void pool_dealloc(pool_object *self)
{
    pool_release(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* devices=None, or a sequence of ints, into a malloc'd list (NULL for None). */
static int parse_devices(PyObject *obj, int **out, int *n)
{
    *out = NULL;
    *n = 0;
    if (obj == Py_None) return 0;
    PyObject *seq = PySequence_Fast(obj, "devices must be None or a sequence of device ordinals");
    if (!seq) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    if (len < 1 || len > 1024) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "devices must list 1 to 1024 device ordinals");
        return -1;
    }
    *out = malloc((size_t)len * sizeof **out);
    if (!*out) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        long d = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if ((d == -1 && PyErr_Occurred()) || d < 0 || d > 1 << 20) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "device %ld is not an ordinal", d);
            free(*out);
            *out = NULL;
            Py_DECREF(seq);
            return -1;
        }
        (*out)[i] = (int)d;
    }
    *n = (int)len;
    Py_DECREF(seq);
    return 0;
}

static int pool_init(pool_object *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"width", "height", "backend", "devices", "workers", NULL};
    static const char *const own[] = {"width", "height", "backend", "devices", "workers", NULL};
    if (self->pool) {
        PyErr_SetString(PyExc_RuntimeError, "Pool is already initialised");
        return -1;
    }
    pool_release(self);
    int width = 0, height = 0, workers = 0, *devices = NULL, n_devices = 0, rc = -1;
    const char *backend = "auto";
    PyObject *w_obj = Py_None, *h_obj = Py_None;
    PyObject *dev_obj = Py_None, *known = satfeat_py_own_kwargs(kwargs, own);
    if (!known) return -1;
    if (!PyArg_ParseTupleAndKeywords(args, known, "|OO$sOi:Pool", kwlist, &w_obj, &h_obj,
                                     &backend, &dev_obj, &workers))
        goto done;
    satfeat_detector_params params = satfeat_detector_params_default();
    satfeat_backend b;
    if (satfeat_py_detector_params(kwargs, own, &params) < 0 ||
        satfeat_py_parse_backend(backend, &b) < 0 || parse_devices(dev_obj, &devices, &n_devices) < 0)
        goto done;
    if (satfeat_py_size_args("Pool", w_obj, h_obj, &width, &height) < 0 ||
        satfeat_py_check_threads("workers", workers) < 0)
        goto done;
    if (b == SATFEAT_BACKEND_CPU && devices) {
        PyErr_SetString(PyExc_ValueError, "a CPU pool takes workers=N, not devices");
        goto done;
    }
    if (!(self->module = satfeat_py_module())) goto done;
    if (!(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        goto done;
    }
    char err[512] = "";
    satfeat_status st;
    Py_BEGIN_ALLOW_THREADS
    st = satfeat_pool_new(b, devices, devices ? n_devices : workers, &params, width, height,
                          &self->pool, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (st != SATFEAT_OK) {
        satfeat_py_raise(self->module, st, err);
        goto done;
    }
    self->max_width = width;
    self->max_height = height;
    self->dim = satfeat_pool_descriptor_dim(self->pool);
    rc = 0;
done:
    free(devices);
    Py_DECREF(known);
    return rc;
}

/* Runs the pool over n frames into their results, the GIL released and the pool locked
 * (satfeat_py_frames_run). */
static satfeat_status run(void *owner, const satfeat_image_view *frames, size_t n,
                          satfeat_frame_result *results, char *msg, size_t size)
{
    pool_object *self = owner;
    satfeat_status st;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    st = satfeat_pool_detect(self->pool, frames, n, results);
    if (st != SATFEAT_OK) snprintf(msg, size, "%s", satfeat_pool_last_error(self->pool));
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    return st;
}

static PyObject *pool_detect(pool_object *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"images", "descriptors", NULL};
    PyObject *images;
    int want_desc = 0;
    if (!self->pool) {
        PyErr_SetString(PyExc_RuntimeError, "Pool.__init__ was not called (or failed)");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p:detect", kwlist, &images, &want_desc))
        return NULL;
    if (want_desc && !self->dim) {
        PyErr_SetString(PyExc_ValueError,
                        "descriptors=True needs a pool with descriptor='surf64' or 'surf128'");
        return NULL;
    }
    /* A pool has no context of its own: its buffers answer to the library's default limit. */
    return satfeat_py_detect_frames(self->module, images, want_desc,
                                    satfeat_default_memory_limit(), run, self);
}

static PyObject *pool_get(pool_object *self, void *closure)
{
    if (!self->pool) {
        PyErr_SetString(PyExc_RuntimeError, "Pool.__init__ was not called (or failed)");
        return NULL;
    }
    if (!strcmp(closure, "workers")) return PyLong_FromLong(satfeat_pool_workers(self->pool));
    if (!strcmp(closure, "descriptor_size")) return PyLong_FromLong(self->dim);
    int n = satfeat_pool_workers(self->pool);
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *d = PyLong_FromLong(satfeat_pool_worker_device(self->pool, i));
        if (!d) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, d);
    }
    return list;
}

static PyMethodDef pool_methods[] = {
    {"detect", SATFEAT_PY_KW(pool_detect), METH_VARARGS | METH_KEYWORDS,
     "detect($self, images, descriptors=False)\n--\n\n"
     "Detects the keypoints (and descriptors) of every image of the sequence `images` (2-D uint8\n"
     "arrays with contiguous rows, each at most the pool's size), spread over the pool's\n"
     "devices, and returns a list in input order: keypoint arrays, or (keypoints, descriptors)\n"
     "tuples, each exactly what Detector.detect returns for that image. A frame that fails\n"
     "raises the library's error for the first failed frame (its index in the message). The\n"
     "GIL is released while the frames are detected."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef pool_getset[] = {
    {"workers", (getter)pool_get, NULL, "Number of workers (devices or CPU workers).", "workers"},
    {"devices", (getter)pool_get, NULL, "CUDA device of each worker (-1 for CPU workers).",
     "devices"},
    {"descriptor_size", (getter)pool_get, NULL, "Floats per descriptor: 0, 64 or 128.",
     "descriptor_size"},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject satfeat_py_pool_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "satfeat.Pool",
    .tp_basicsize = sizeof(pool_object),
    .tp_dealloc = (destructor)pool_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "Pool(width=None, height=None, *, backend='auto', devices=None, workers=0, **params)\n"
        "--\n\n"
        "Detectors for frames of up to width x height (without them: each detector sized by its\n"
        "frames, as Detector()) on several devices (satfeat_pool): one\n"
        "context, detector and stream set per CUDA device in `devices` (None: every usable\n"
        "device), or with backend='cpu' `workers` single-threaded CPU workers (0: one per\n"
        "OpenMP thread). detect() hands the frames of a list out dynamically and returns the\n"
        "results in input order. params are the Detector parameters.",
    .tp_methods = pool_methods,
    .tp_getset = pool_getset,
    .tp_init = (initproc)pool_init,
    .tp_new = PyType_GenericNew,
};

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
    size_t cap; /* per-frame keypoint room tried first (grows with what frames needed) */
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
    int width, height, workers = 0, *devices = NULL, n_devices = 0, rc = -1;
    const char *backend = "auto";
    PyObject *dev_obj = Py_None, *known = satfeat_py_own_kwargs(kwargs, own);
    if (!known) return -1;
    if (!PyArg_ParseTupleAndKeywords(args, known, "ii|$sOi:Pool", kwlist, &width, &height,
                                     &backend, &dev_obj, &workers))
        goto done;
    satfeat_detector_params params = satfeat_detector_params_default();
    satfeat_backend b;
    if (satfeat_py_detector_params(kwargs, own, &params) < 0 ||
        satfeat_py_parse_backend(backend, &b) < 0 || parse_devices(dev_obj, &devices, &n_devices) < 0)
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
    self->cap = params.max_keypoints > 0 ? (size_t)params.max_keypoints : 2048;
    rc = 0;
done:
    free(devices);
    Py_DECREF(known);
    return rc;
}

/* Per-call buffers: one result per frame with its own keypoint (and descriptor) room. */
typedef struct call {
    size_t n;
    satfeat_py_plane *planes;
    satfeat_pool_frame *frames;
    satfeat_pool_result *results;
} call;

static void call_free(call *c)
{
    for (size_t i = 0; c->planes && i < c->n; i++) satfeat_py_plane_release(&c->planes[i]);
    for (size_t i = 0; c->results && i < c->n; i++) {
        free(c->results[i].keypoints);
        free(c->results[i].descriptors);
    }
    free(c->planes);
    free(c->frames);
    free(c->results);
}

/* Gives frame i room for `cap` keypoints; -1 with MemoryError. */
static int room(pool_object *self, satfeat_pool_result *r, size_t cap, int want_desc)
{
    free(r->keypoints);
    free(r->descriptors);
    r->keypoints = malloc((cap ? cap : 1) * sizeof *r->keypoints);
    r->descriptors = want_desc ? malloc((cap ? cap : 1) * (size_t)self->dim * sizeof(float)) : NULL;
    r->capacity = cap;
    if (!r->keypoints || (want_desc && !r->descriptors)) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Runs the pool over n frames into their results, the GIL released and the pool locked. */
static satfeat_status run(pool_object *self, const satfeat_pool_frame *frames, size_t n,
                          satfeat_pool_result *results, char *msg, size_t size)
{
    satfeat_status st;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    st = satfeat_pool_detect_u8(self->pool, frames, n, results);
    if (st != SATFEAT_OK) snprintf(msg, size, "%s", satfeat_pool_last_error(self->pool));
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    return st;
}

/* Detects again, with exact room, the frames that had more keypoints than the first try's
 * room; the others keep their results. */
static satfeat_status rerun_overflows(pool_object *self, call *c, int want_desc, char *msg,
                                      size_t size)
{
    size_t m = 0;
    size_t *idx = malloc(c->n * sizeof *idx);
    satfeat_pool_frame *f = malloc(c->n * sizeof *f);
    satfeat_pool_result *r = malloc(c->n * sizeof *r);
    satfeat_status st = SATFEAT_ERR_ALLOC;
    if (!idx || !f || !r) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < c->n; i++) {
        satfeat_pool_result *ri = &c->results[i];
        if (ri->status != SATFEAT_ERR_CAPACITY) continue;
        if (ri->count > self->cap) self->cap = ri->count;
        if (room(self, ri, ri->count, want_desc) < 0) goto done;
        idx[m] = i;
        f[m] = c->frames[i];
        r[m++] = *ri;
    }
    st = run(self, f, m, r, msg, size);
    for (size_t k = 0; k < m; k++) c->results[idx[k]] = r[k];
    /* a frame that failed in the first try for another reason keeps that failure */
    for (size_t i = 0; st == SATFEAT_OK && i < c->n; i++)
        if (c->results[i].status != SATFEAT_OK) {
            st = c->results[i].status;
            snprintf(msg, size, "frame %zu: %s", i, satfeat_status_string(st));
        }
done:
    free(idx);
    free(f);
    free(r);
    return st;
}

static PyObject *results_list(pool_object *self, const call *c, int want_desc)
{
    PyArray_Descr *kp_dtype = satfeat_py_state_of(self->module)->keypoint_dtype;
    PyObject *list = PyList_New((Py_ssize_t)c->n);
    for (size_t i = 0; list && i < c->n; i++) {
        const satfeat_pool_result *r = &c->results[i];
        PyObject *kp = satfeat_py_records_new(kp_dtype, r->keypoints, r->count), *item = kp;
        if (kp && want_desc) {
            npy_intp dims[2] = {(npy_intp)r->count, self->dim};
            PyObject *desc = PyArray_SimpleNew(2, dims, NPY_FLOAT32);
            if (desc && r->count)
                memcpy(PyArray_DATA((PyArrayObject *)desc), r->descriptors,
                       r->count * (size_t)self->dim * sizeof(float));
            item = desc ? PyTuple_Pack(2, kp, desc) : NULL;
            Py_DECREF(kp);
            Py_XDECREF(desc);
        }
        if (!item) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

static PyObject *pool_detect(pool_object *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"images", "descriptors", NULL};
    PyObject *images, *seq = NULL, *result = NULL;
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
    if (!(seq = PySequence_Fast(images, "images must be a sequence of 2-D uint8 arrays")))
        return NULL;
    call c = {(size_t)PySequence_Fast_GET_SIZE(seq), NULL, NULL, NULL};
    c.planes = calloc(c.n ? c.n : 1, sizeof *c.planes);
    c.frames = calloc(c.n ? c.n : 1, sizeof *c.frames);
    c.results = calloc(c.n ? c.n : 1, sizeof *c.results);
    if (!c.planes || !c.frames || !c.results) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < c.n; i++) {
        char what[48];
        snprintf(what, sizeof what, "images[%zu]", i);
        if (satfeat_py_plane_get(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i), what, "B",
                                 &c.planes[i]) < 0 ||
            room(self, &c.results[i], self->cap, want_desc) < 0)
            goto done;
        c.frames[i] = (satfeat_pool_frame){c.planes[i].data, c.planes[i].stride,
                                           c.planes[i].width, c.planes[i].height};
    }
    char msg[600] = "";
    satfeat_status st = run(self, c.frames, c.n, c.results, msg, sizeof msg);
    /* Only overflows (every failed frame's status CAPACITY) are worth a second try. */
    int only_capacity = st == SATFEAT_ERR_CAPACITY;
    for (size_t i = 0; only_capacity && i < c.n; i++)
        only_capacity = c.results[i].status == SATFEAT_OK ||
                        c.results[i].status == SATFEAT_ERR_CAPACITY;
    if (only_capacity) st = rerun_overflows(self, &c, want_desc, msg, sizeof msg);
    if (st != SATFEAT_OK && PyErr_Occurred()) goto done;
    if (st != SATFEAT_OK) {
        satfeat_py_raise(self->module, st, msg);
        goto done;
    }
    result = results_list(self, &c, want_desc);
done:
    call_free(&c);
    Py_DECREF(seq);
    return result;
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
     "detect(images, descriptors=False)\n--\n\n"
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
        "Pool(width, height, *, backend='auto', devices=None, workers=0, **params)\n--\n\n"
        "Detectors for frames of up to width x height on several devices (satfeat_pool): one\n"
        "context, detector and stream set per CUDA device in `devices` (None: every usable\n"
        "device), or with backend='cpu' `workers` single-threaded CPU workers (0: one per\n"
        "OpenMP thread). detect() hands the frames of a list out dynamically and returns the\n"
        "results in input order. params are the Detector parameters.",
    .tp_methods = pool_methods,
    .tp_getset = pool_getset,
    .tp_init = (initproc)pool_init,
    .tp_new = PyType_GenericNew,
};

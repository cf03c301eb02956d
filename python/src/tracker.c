/* tracker.c - satfeat.Tracker: a satfeat_tracker on its own context, fed one frame at a time.
 * track() releases the GIL for the work and holds the object's lock (py_common.h, "Locking
 * pattern"); each call's tracks go to buffers of its own, so threads sharing a tracker take
 * turns and each gets the result of its own frame. */
#include "py_common.h"

#include <stdlib.h>
#include <string.h>

typedef struct tracker_object {
    PyObject_HEAD
    satfeat_py_owner own; /* its lock guards the context and tracker */
    satfeat_tracker *tracker;
    satfeat_tracker_params params;
    int dim;
    size_t memory_limit; /* mirror of the context's limit for Python-side checks (GIL only) */
} tracker_object;

/* Frees what the object owns (all of it, or what a failed __init__ left). */
static void tracker_release(tracker_object *self)
{
    satfeat_tracker_delete(self->tracker);
    self->tracker = NULL;
    satfeat_py_owner_close(&self->own);
}

static void tracker_dealloc(tracker_object *self)
{
    tracker_release(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int parse_model(const char *name, satfeat_motion_model *out)
{
    if (!strcmp(name, "homography")) *out = SATFEAT_MOTION_HOMOGRAPHY;
    else if (!strcmp(name, "affine")) *out = SATFEAT_MOTION_AFFINE;
    else if (!strcmp(name, "similarity")) *out = SATFEAT_MOTION_SIMILARITY;
    else {
        PyErr_Format(PyExc_ValueError,
                     "motion_model must be 'homography', 'affine' or 'similarity', got '%s'", name);
        return -1;
    }
    return 0;
}

static int tracker_init(tracker_object *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"width", "height", "backend", "device", "threads", "detector",
                             "ratio", "mutual", "same_laplacian", "radius", "motion_model",
                             "motion_threshold", "max_missed", "max_tracks",
                             "min_birth_distance", "guided_radius", "reject_outliers",
                             "memory_limit", NULL};
    satfeat_tracker_params *p = &self->params;
    if (self->tracker) {
        PyErr_SetString(PyExc_RuntimeError, "Tracker is already initialised");
        return -1;
    }
    tracker_release(self); /* what an earlier, failed __init__ left */
    *p = satfeat_tracker_params_default();
    int width, height, device = -1, threads = 0;
    const char *backend = "auto", *model = NULL;
    PyObject *det_params = Py_None, *limit_obj = Py_None;
    size_t limit = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ii|$siiOdppdzdiiddpO:Tracker", kwlist, &width,
                                     &height, &backend, &device, &threads, &det_params,
                                     &p->match.ratio, &p->match.mutual,
                                     &p->match.same_laplacian, &p->match.radius, &model,
                                     &p->motion.threshold, &p->max_missed, &p->max_tracks,
                                     &p->min_birth_distance, &p->guided_radius,
                                     &p->reject_outliers, &limit_obj))
        return -1;
    if (satfeat_py_check_threads("threads", threads) < 0 ||
        satfeat_py_memory_limit_arg(limit_obj, &limit) < 0)
        return -1;
    if (model && parse_model(model, &p->motion.model) < 0) return -1;
    if (satfeat_py_detector_dict(det_params, &p->detector) < 0) return -1;
    if (p->max_tracks < 1 || p->max_tracks > (1 << 24)) {
        PyErr_Format(PyExc_ValueError, "max_tracks must be in 1 .. 2^24, got %d", p->max_tracks);
        return -1;
    }
    /* The limit first: satfeat_tracker_new asks it before allocating max_tracks buffers. */
    if (satfeat_py_owner_open(&self->own, backend, device, threads, limit) < 0) return -1;
    satfeat_status st;
    Py_BEGIN_ALLOW_THREADS
    st = satfeat_tracker_new(self->own.ctx, p, width, height, &self->tracker);
    Py_END_ALLOW_THREADS
    if (st != SATFEAT_OK) {
        satfeat_py_raise(self->own.module, st, satfeat_ctx_last_error(self->own.ctx));
        return -1;
    }
    self->dim = (int)p->detector.descriptor;
    self->memory_limit = satfeat_ctx_memory_limit(self->own.ctx);
    return 0;
}

/* The motion of a frame as a dict; h_prev and h_ref as 3 x 3 float64 arrays. */
static PyObject *motion_dict(const satfeat_frame_motion *m)
{
    npy_intp dims[2] = {3, 3};
    PyObject *hp = PyArray_SimpleNew(2, dims, NPY_FLOAT64), *hr = PyArray_SimpleNew(2, dims, NPY_FLOAT64);
    if (!hp || !hr) {
        Py_XDECREF(hp);
        Py_XDECREF(hr);
        return NULL;
    }
    memcpy(PyArray_DATA((PyArrayObject *)hp), m->h_prev, sizeof m->h_prev);
    memcpy(PyArray_DATA((PyArrayObject *)hr), m->h_ref, sizeof m->h_ref);
    return Py_BuildValue("{sisOsOsNsNsnsnsnsdsnsn}", "frame", m->frame, "valid",
                         m->valid ? Py_True : Py_False, "ref_valid",
                         m->ref_valid ? Py_True : Py_False, "h_prev", hp, "h_ref", hr, "keypoints",
                         (Py_ssize_t)m->keypoints, "matches", (Py_ssize_t)m->matches, "inliers",
                         (Py_ssize_t)m->inliers, "rms_error", m->rms_error, "born",
                         (Py_ssize_t)m->born, "ended", (Py_ssize_t)m->ended);
}

static PyObject *tracker_track(tracker_object *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"image", "descriptors", NULL};
    PyObject *image;
    int want_desc = 0;
    if (!self->tracker) {
        PyErr_SetString(PyExc_RuntimeError, "Tracker.__init__ was not called (or failed)");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p:track", kwlist, &image, &want_desc))
        return NULL;
    /* The copies of up to max_tracks tracks this call returns, asked of the memory limit
     * first (the tracker cannot redo a frame). */
    const size_t cap = (size_t)self->params.max_tracks;
    if (satfeat_py_check_bytes(self->own.module, self->memory_limit, "Tracker.track: track buffers",
                               cap, sizeof(satfeat_track) +
                                        (want_desc ? (size_t)self->dim * sizeof(float) : 0)) < 0)
        return NULL;
    satfeat_py_plane img;
    if (satfeat_py_plane_get(image, "image", "B", &img) < 0) return NULL;
    satfeat_frame_motion motion;
    size_t count = 0;
    satfeat_track *buf = NULL;
    float *dbuf = NULL;
    char msg[512] = "";
    satfeat_status st;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->own.lock, WAIT_LOCK);
    const satfeat_image_view v = satfeat_image_view_host(img.data, img.width, img.height,
                                                         img.stride);
    st = satfeat_tracker_track(self->tracker, &v, &motion);
    if (st != SATFEAT_OK) {
        satfeat_py_copy_error(self->own.ctx, msg, sizeof msg);
    } else {
        /* copied under the lock: the tracker's arrays change with the next frame */
        const satfeat_track *tr = satfeat_tracker_tracks(self->tracker, &count);
        const size_t dbytes = count * (size_t)self->dim * sizeof *dbuf;
        buf = malloc((count ? count : 1) * sizeof *buf);
        dbuf = want_desc ? malloc(dbytes ? dbytes : 1) : NULL;
        if (!buf || (want_desc && !dbuf)) {
            st = SATFEAT_ERR_ALLOC;
        } else {
            if (count) memcpy(buf, tr, count * sizeof *buf);
            if (want_desc && count)
                memcpy(dbuf, satfeat_tracker_track_descriptors(self->tracker), dbytes);
        }
    }
    PyThread_release_lock(self->own.lock);
    Py_END_ALLOW_THREADS
    satfeat_py_plane_release(&img);
    if (st == SATFEAT_ERR_ALLOC && !msg[0]) {
        free(buf);
        free(dbuf);
        return PyErr_NoMemory();
    }
    if (st != SATFEAT_OK) return satfeat_py_raise(self->own.module, st, msg);
    PyObject *tracks = satfeat_py_tracks_new(self->own.module, buf, count);
    PyObject *mot = motion_dict(&motion), *desc = NULL, *result = NULL;
    if (tracks && mot && want_desc) {
        npy_intp dims[2] = {(npy_intp)count, self->dim};
        desc = PyArray_SimpleNew(2, dims, NPY_FLOAT32);
        if (desc && count)
            memcpy(PyArray_DATA((PyArrayObject *)desc), dbuf,
                   count * (size_t)self->dim * sizeof(float));
        if (desc) result = PyTuple_Pack(3, tracks, desc, mot);
    } else if (tracks && mot) {
        result = PyTuple_Pack(2, tracks, mot);
    }
    Py_XDECREF(tracks);
    Py_XDECREF(mot);
    Py_XDECREF(desc);
    free(buf);
    free(dbuf);
    return result;
}

static satfeat_status tracker_reset_locked(void *tracker)
{
    return satfeat_tracker_reset(tracker);
}

static PyObject *tracker_reset(tracker_object *self, PyObject *unused)
{
    (void)unused;
    if (!self->tracker) {
        PyErr_SetString(PyExc_RuntimeError, "Tracker.__init__ was not called (or failed)");
        return NULL;
    }
    const satfeat_status st = satfeat_py_owner_call(&self->own, tracker_reset_locked,
                                                    self->tracker, NULL, 0);
    if (st != SATFEAT_OK) return satfeat_py_raise(self->own.module, st, "tracker reset failed");
    Py_RETURN_NONE;
}

static PyObject *tracker_set_memory_limit(tracker_object *self, PyObject *arg)
{
    if (!self->tracker) {
        PyErr_SetString(PyExc_RuntimeError, "Tracker.__init__ was not called (or failed)");
        return NULL;
    }
    const size_t now = satfeat_py_set_memory_limit(self->own.module, self->own.ctx,
                                                   self->own.lock, arg);
    if (now == (size_t)-1) return NULL;
    self->memory_limit = now;
    Py_RETURN_NONE;
}

static PyObject *tracker_get_memory_limit(tracker_object *self, void *closure)
{
    (void)closure;
    if (!self->tracker) {
        PyErr_SetString(PyExc_RuntimeError, "Tracker.__init__ was not called (or failed)");
        return NULL;
    }
    return PyLong_FromSize_t(self->memory_limit);
}

static PyMethodDef tracker_methods[] = {
    {"track", SATFEAT_PY_KW(tracker_track), METH_VARARGS | METH_KEYWORDS,
     "track(image, descriptors=False)\n--\n\n"
     "Feeds one 8-bit gray frame (2-D uint8, contiguous rows; every frame the size of the first\n"
     "after creation or reset) and returns (tracks, motion), or (tracks, descriptors, motion)\n"
     "with descriptors=True. tracks: the live tracks in ascending id order, an array of\n"
     "satfeat.track_dtype records (id, x, y, size, angle, laplacian, age, missed, inlier);\n"
     "descriptors: float32 (n, dim), each track's last observation. motion: a dict with frame,\n"
     "valid, ref_valid, h_prev and h_ref (3 x 3, previous frame -> this frame and first frame ->\n"
     "this frame), keypoints, matches, inliers, rms_error, born, ended. The output is a pure\n"
     "function of the frames and the parameters (satfeat_tracker_track). The GIL is released\n"
     "while the frame is tracked."},
    {"reset", (PyCFunction)tracker_reset, METH_NOARGS,
     "reset()\n--\n\n"
     "Forgets every track and the motion history: the next frame is a first frame again (any\n"
     "size up to the maximum). Ids continue, so they are never reused."},
    {"set_memory_limit", (PyCFunction)tracker_set_memory_limit, METH_O,
     "set_memory_limit(bytes)\n--\n\n"
     "Sets the most host memory, in bytes, one allocation of this tracker may need (0: the\n"
     "library's default, half of the physical memory): the context's limit and the check of\n"
     "each track() call's buffers (max_tracks tracks). Beyond it LimitError (a MemoryError)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef tracker_getset[] = {
    {"memory_limit", (getter)tracker_get_memory_limit, NULL,
     "The memory limit in bytes (memory_limit=, set_memory_limit()).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject satfeat_py_tracker_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "satfeat.Tracker",
    .tp_basicsize = sizeof(tracker_object),
    .tp_dealloc = (destructor)tracker_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "Tracker(width, height, *, backend='auto', device=-1, threads=0, detector=None,\n"
        "        ratio=0.8, mutual=True, same_laplacian=True, radius=30, motion_model=\n"
        "        'homography', motion_threshold=2, max_missed=5, max_tracks=2000,\n"
        "        min_birth_distance=4, guided_radius=6, reject_outliers=True,\n"
        "        memory_limit=None)\n--\n\n"
        "Feature tracker over a frame sequence (satfeat_tracker) for frames of up to width x\n"
        "height. Each frame: detect keypoints with descriptors, predict every track by the last\n"
        "frame-to-frame motion, match the tracks' descriptors against the keypoints within\n"
        "`radius` px of the predictions (the whole frame when that loses the motion), estimate\n"
        "the motion robustly (PROSAC + MSAC, fixed seed), match again within `guided_radius` px\n"
        "of each track's position under that motion, estimate the reference motion (first frame\n"
        "-> this frame) from the tracks and the first frame's keypoints, and update, end and give\n"
        "birth to tracks; with `reject_outliers` only matches that agree with both motions\n"
        "continue their tracks. `detector` is a dict of Detector parameters (default: the\n"
        "detector defaults with grid 8, per_cell 32, max_keypoints 1500, threshold 0.0002;\n"
        "descriptor must be 'surf64' or 'surf128'). Ids are never reused.\n\n"
        "threads: at most 4 per online core. memory_limit: bytes one allocation may need (None\n"
        "or 0: the library's default), asked before the max_tracks buffers are allocated\n"
        "(LimitError beyond it). Threads may share a tracker: calls take turns (the lock is\n"
        "taken with the GIL released) and each gets the result of its own frame.",
    .tp_methods = tracker_methods,
    .tp_getset = tracker_getset,
    .tp_init = (initproc)tracker_init,
    .tp_new = PyType_GenericNew,
};

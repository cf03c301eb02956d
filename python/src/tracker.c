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
    satfeat_tracker *tracker; /* NULL until the first frame when the frames size it */
    satfeat_tracker_params params;
    int width, height; /* the maximum frame asked for; 0 x 0: the first frame's size */
    int dim;
    size_t memory_limit; /* mirror of the context's limit for Python-side checks (GIL only) */
} tracker_object;

/* Calls of an object whose __init__ failed or was skipped raise instead of reading NULL (the
 * tracker itself may still be NULL: it waits for the first frame). */
static int initialised(const tracker_object *self)
{
    if (self->own.ctx) return 1;
    PyErr_SetString(PyExc_RuntimeError, "Tracker.__init__ was not called (or failed)");
    return 0;
}

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

static int tracker_init(tracker_object *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"width", "height", "backend", "device", "threads", "detector",
                             "ratio", "mutual", "same_laplacian", "radius", "motion_model",
                             "motion_threshold", "max_missed", "max_tracks",
                             "min_birth_distance", "guided_radius", "reject_outliers",
                             "memory_limit", "birth_confirm_radius", "max_birth_size",
                             "continue_threshold", NULL};
    satfeat_tracker_params *p = &self->params;
    if (self->own.ctx) {
        PyErr_SetString(PyExc_RuntimeError, "Tracker is already initialised");
        return -1;
    }
    tracker_release(self); /* what an earlier, failed __init__ left */
    *p = satfeat_tracker_params_default();
    int width = 0, height = 0, device = -1, threads = 0;
    const char *backend = "auto", *model = NULL;
    PyObject *det_params = Py_None, *limit_obj = Py_None, *w_obj = Py_None, *h_obj = Py_None;
    size_t limit = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO$siiOdppdzdiiddpOddd:Tracker", kwlist, &w_obj,
                                     &h_obj, &backend, &device, &threads, &det_params,
                                     &p->match.ratio, &p->match.mutual,
                                     &p->match.same_laplacian, &p->match.radius, &model,
                                     &p->motion.threshold, &p->max_missed, &p->max_tracks,
                                     &p->min_birth_distance, &p->guided_radius,
                                     &p->reject_outliers, &limit_obj,
                                     &p->birth_confirm_radius, &p->max_birth_size,
                                     &p->continue_threshold))
        return -1;
    if (satfeat_py_size_args("Tracker", w_obj, h_obj, &width, &height) < 0 ||
        satfeat_py_check_threads("threads", threads) < 0 ||
        satfeat_py_memory_limit_arg(limit_obj, &limit) < 0)
        return -1;
    if (model && satfeat_py_parse_motion_model("motion_model", model, &p->motion.model) < 0)
        return -1;
    if (satfeat_py_detector_dict(det_params, &p->detector) < 0) return -1;
    if (p->max_tracks < 1 || p->max_tracks > (1 << 24)) {
        PyErr_Format(PyExc_ValueError, "max_tracks must be in 1 .. 2^24, got %d", p->max_tracks);
        return -1;
    }
    /* The limit first: satfeat_tracker_new asks it before allocating max_tracks buffers. */
    if (satfeat_py_owner_open(&self->own, backend, device, threads, limit) < 0) {
        tracker_release(self); /* an object without a context counts as never initialised */
        return -1;
    }
    /* Sized by its frames: the parameters (and the memory limit of the max_tracks buffers) are
     * checked now by a 1 x 1 tracker made and dropped; the real one comes with the first frame. */
    satfeat_status st;
    satfeat_tracker *probe = NULL;
    Py_BEGIN_ALLOW_THREADS
    st = satfeat_tracker_new(self->own.ctx, p, width ? width : 1, height ? height : 1,
                             width ? &self->tracker : &probe);
    satfeat_tracker_delete(probe);
    Py_END_ALLOW_THREADS
    if (st != SATFEAT_OK) {
        satfeat_py_raise(self->own.module, st, satfeat_ctx_last_error(self->own.ctx));
        tracker_release(self);
        return -1;
    }
    self->width = width;
    self->height = height;
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
    /* frame counted from 1, as `satfeat track` numbers the frames of a sequence */
    return Py_BuildValue("{sisOsOsNsNsnsnsnsdsnsn}", "frame", m->frame + 1, "valid",
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
    if (!initialised(self)) return NULL;
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
    st = SATFEAT_OK;
    if (!self->tracker) /* sized by its frames: this first frame sizes it */
        st = satfeat_tracker_new(self->own.ctx, &self->params, img.width, img.height,
                                 &self->tracker);
    if (st == SATFEAT_OK) st = satfeat_tracker_track(self->tracker, &v, &motion);
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
    PyObject *mot = motion_dict(&motion), *desc = Py_None;
    Py_INCREF(desc);
    if (want_desc) {
        npy_intp dims[2] = {(npy_intp)count, self->dim};
        Py_SETREF(desc, PyArray_SimpleNew(2, dims, NPY_FLOAT32));
        if (desc && count)
            memcpy(PyArray_DATA((PyArrayObject *)desc), dbuf,
                   count * (size_t)self->dim * sizeof(float));
    }
    free(buf);
    free(dbuf);
    return satfeat_py_track_result(self->own.module, tracks, mot, desc);
}

/* Under the lock: a tracker still waiting for its first frame has nothing to forget. */
static satfeat_status tracker_reset_locked(void *arg)
{
    const tracker_object *self = arg;
    return self->tracker ? satfeat_tracker_reset(self->tracker) : SATFEAT_OK;
}

static PyObject *tracker_reset(tracker_object *self, PyObject *unused)
{
    (void)unused;
    if (!initialised(self)) return NULL;
    const satfeat_status st = satfeat_py_owner_call(&self->own, tracker_reset_locked, self, NULL,
                                                    0);
    if (st != SATFEAT_OK) return satfeat_py_raise(self->own.module, st, "tracker reset failed");
    Py_RETURN_NONE;
}

static PyObject *tracker_set_memory_limit(tracker_object *self, PyObject *arg)
{
    if (!initialised(self)) return NULL;
    const size_t now = satfeat_py_set_memory_limit(self->own.module, self->own.ctx,
                                                   self->own.lock, arg);
    if (now == (size_t)-1) return NULL;
    self->memory_limit = now;
    Py_RETURN_NONE;
}

static PyObject *tracker_get(tracker_object *self, void *closure)
{
    const char *which = closure;
    if (!initialised(self)) return NULL;
    if (!strcmp(which, "width")) return PyLong_FromLong(self->width);
    if (!strcmp(which, "height")) return PyLong_FromLong(self->height);
    return PyLong_FromSize_t(self->memory_limit);
}

static PyMethodDef tracker_methods[] = {
    {"track", SATFEAT_PY_KW(tracker_track), METH_VARARGS | METH_KEYWORDS,
     "track($self, image, descriptors=False)\n--\n\n"
     "Feeds one 8-bit gray frame (2-D uint8, contiguous rows; every frame the size of the first\n"
     "after creation or reset; a tracker made without width and height is sized by its first\n"
     "frame) and returns a satfeat.TrackResult, always the same shape: a named pair\n"
     "(tracks, motion), so `tracks, motion = tracker.track(frame)`, with the attribute\n"
     "`descriptors` (float32 (n, dim), each track's last observation, with descriptors=True;\n"
     "else None). tracks: the live tracks in ascending id order, an array of\n"
     "satfeat.track_dtype records (id, x, y, size, angle in degrees, laplacian, age, missed,\n"
     "inlier). motion: a dict with frame (counted from 1 since creation or reset, as\n"
     "`satfeat track` numbers frames), valid, ref_valid, h_prev and h_ref (3 x 3, previous\n"
     "frame -> this frame and first frame -> this frame), keypoints, matches, inliers,\n"
     "rms_error, born, ended. The output is a pure function of the frames and the parameters\n"
     "(satfeat_tracker_track). The GIL is released while the frame is tracked."},
    {"reset", (PyCFunction)tracker_reset, METH_NOARGS,
     "reset($self)\n--\n\n"
     "Forgets every track and the motion history: the next frame is a first frame again (any\n"
     "size up to the maximum: width x height, or the first frame's size when that sized the\n"
     "tracker). Ids continue, so they are never reused."},
    {"set_memory_limit", (PyCFunction)tracker_set_memory_limit, METH_O,
     "set_memory_limit($self, bytes, /)\n--\n\n"
     "Sets the most host memory, in bytes, one allocation of this tracker may need (0: the\n"
     "library's default, half of the physical memory): the context's limit and the check of\n"
     "each track() call's buffers (max_tracks tracks). Beyond it LimitError (a MemoryError)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef tracker_getset[] = {
    {"memory_limit", (getter)tracker_get, NULL,
     "The memory limit in bytes (memory_limit=, set_memory_limit()).", "memory_limit"},
    {"width", (getter)tracker_get, NULL,
     "Largest frame width asked for; 0 when the first frame sizes the tracker.", "width"},
    {"height", (getter)tracker_get, NULL,
     "Largest frame height asked for; 0 when the first frame sizes the tracker.", "height"},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject satfeat_py_tracker_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "satfeat.Tracker",
    .tp_basicsize = sizeof(tracker_object),
    .tp_dealloc = (destructor)tracker_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "Tracker(width=None, height=None, *, backend='auto', device=-1, threads=0,\n"
        "        detector=None, ratio=0.8, mutual=True, same_laplacian=True, radius=30,\n"
        "        motion_model='homography', motion_threshold=2, max_missed=30, max_tracks=2000,\n"
        "        min_birth_distance=4, guided_radius=6, reject_outliers=True,\n"
        "        memory_limit=None, birth_confirm_radius=2, max_birth_size=0,\n"
        "        continue_threshold=0)\n--\n\n"
        "Feature tracker over a frame sequence (satfeat_tracker) for frames of up to width x\n"
        "height; without them the first frame sizes it (then frames after reset() may be at most\n"
        "that size). The parameters are checked here either way. Each frame: detect keypoints with descriptors, predict every track by the last\n"
        "frame-to-frame motion, match the tracks' descriptors against the keypoints within\n"
        "`radius` px of the predictions (the whole frame when that loses the motion), estimate\n"
        "the motion robustly (PROSAC + MSAC, fixed seed), match again within `guided_radius` px\n"
        "of each track's position under that motion, estimate the reference motion (first frame\n"
        "-> this frame) from the tracks and the first frame's keypoints, and update, end and give\n"
        "birth to tracks; with `reject_outliers` only matches that agree with both motions\n"
        "continue their tracks. An unmatched keypoint starts a track only when the previous frame\n"
        "had a keypoint within `birth_confirm_radius` px of it under the motion (0: off) and its\n"
        "size is at most `max_birth_size` (0: no cap). With `continue_threshold` in (0, the\n"
        "detector threshold) the detector also reports keypoints down to that response: they\n"
        "start no track and move no motion, but a track left unseen is matched once more against\n"
        "them within `guided_radius` and continued when the keypoint agrees with both motions.\n"
        "`detector` is a dict of Detector parameters applied over the tracker's (default: the\n"
        "detector defaults with grid 8, per_cell 32, max_keypoints 1500, threshold 0.0002,\n"
        "descriptor_norm 'l2', orientation_refine 0, descriptor_haar and orientation_haar 3,\n"
        "orientation_filter 'haar': the settings the tracks were measured with; descriptor\n"
        "must be 'surf64' or 'surf128'). Ids are never reused.\n\n"
        "threads: at most 4 per online core. memory_limit: bytes one allocation may need (None\n"
        "or 0: the library's default), asked before the max_tracks buffers are allocated\n"
        "(LimitError beyond it). Threads may share a tracker: calls take turns (the lock is\n"
        "taken with the GIL released) and each gets the result of its own frame.",
    .tp_methods = tracker_methods,
    .tp_getset = tracker_getset,
    .tp_init = (initproc)tracker_init,
    .tp_new = PyType_GenericNew,
};

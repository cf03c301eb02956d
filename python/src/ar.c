/* ar.c - satfeat.ARSession: an AR session (satfeat_ar_session) on its own context: known planar
 * targets and the camera's pose in every frame, in OpenCV's conventions (rvec, tvec, camera
 * matrix, distortion coefficients) so cv2.projectPoints draws with the poses. process() releases
 * the GIL for the work and holds the object's lock (py_common.h, "Locking pattern"); each call's
 * results go to a buffer of its own, so threads sharing a session take turns. */
#include "py_common.h"

#include <math.h>
#include <string.h>

/* The session's limit on targets (satfeat_ar_session_new). */
#define AR_MAX_TARGETS 64

typedef struct ar_object {
    PyObject_HEAD
    satfeat_py_owner own; /* its lock guards the context and session */
    satfeat_ar_session *session;
    satfeat_ar_camera camera;
    int n_targets;
} ar_object;

static void ar_release(ar_object *self)
{
    satfeat_ar_session_delete(self->session);
    self->session = NULL;
    satfeat_py_owner_close(&self->own);
}

static void ar_dealloc(ar_object *self)
{
    ar_release(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Reads `n` finite doubles from a sequence-like object (any shape with n elements) into out. */
static int read_doubles(PyObject *obj, const char *what, int n, double *out)
{
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_FLOAT64, 0, 2,
                                                        NPY_ARRAY_CARRAY | NPY_ARRAY_FORCECAST);
    if (!a) {
        PyErr_Format(PyExc_TypeError, "%s must be an array of numbers", what);
        return -1;
    }
    if (PyArray_SIZE(a) != n) {
        PyErr_Format(PyExc_ValueError, "%s must have %d elements, got %zd", what, n,
                     (Py_ssize_t)PyArray_SIZE(a));
        Py_DECREF(a);
        return -1;
    }
    memcpy(out, PyArray_DATA(a), (size_t)n * sizeof(double));
    Py_DECREF(a);
    for (int k = 0; k < n; k++)
        if (!isfinite(out[k])) {
            PyErr_Format(PyExc_ValueError, "%s must be finite", what);
            return -1;
        }
    return 0;
}

/* The camera from camera_matrix (3 x 3: fx 0 cx; 0 fy cy; 0 0 1) or fov, and dist_coeffs (None,
 * or OpenCV's k1, k2[, p1, p2[, k3]] with only k1 and k2 allowed to be non-zero). */
static int parse_camera(PyObject *K, PyObject *dist, double fov, int width, int height,
                        satfeat_ar_camera *c)
{
    if ((K == Py_None) == (fov <= 0.0)) {
        PyErr_SetString(PyExc_ValueError, "give either camera_matrix or fov (degrees)");
        return -1;
    }
    if (K != Py_None) {
        double m[9];
        if (read_doubles(K, "camera_matrix", 9, m) < 0) return -1;
        if (m[1] != 0.0 || m[3] != 0.0 || m[6] != 0.0 || m[7] != 0.0 || m[8] != 1.0 ||
            !(m[0] > 0.0) || !(m[4] > 0.0)) {
            PyErr_SetString(PyExc_ValueError, "camera_matrix must be [[fx, 0, cx], [0, fy, cy], "
                                              "[0, 0, 1]] with fx, fy > 0");
            return -1;
        }
        *c = (satfeat_ar_camera){m[0], m[4], m[2], m[5], 0.0, 0.0};
    } else if (satfeat_ar_camera_from_fov(width, height, fov, c) != SATFEAT_OK) {
        PyErr_SetString(PyExc_ValueError, "fov must be in (0, 180) degrees");
        return -1;
    }
    if (dist == Py_None) return 0;
    double d[5] = {0, 0, 0, 0, 0};
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(dist, NPY_FLOAT64, 0, 2,
                                                        NPY_ARRAY_CARRAY | NPY_ARRAY_FORCECAST);
    if (!a) {
        PyErr_SetString(PyExc_TypeError, "dist_coeffs must be an array of numbers");
        return -1;
    }
    const npy_intp n = PyArray_SIZE(a);
    Py_DECREF(a);
    if (n != 2 && n != 4 && n != 5) {
        PyErr_Format(PyExc_ValueError, "dist_coeffs must have 2, 4 or 5 elements (k1, k2, p1, "
                                       "p2, k3), got %zd", (Py_ssize_t)n);
        return -1;
    }
    if (read_doubles(dist, "dist_coeffs", (int)n, d) < 0) return -1;
    if (d[2] != 0.0 || d[3] != 0.0 || d[4] != 0.0) {
        PyErr_SetString(PyExc_ValueError, "only radial k1, k2 distortion is modelled: p1, p2 and "
                                          "k3 must be 0");
        return -1;
    }
    c->k1 = d[0], c->k2 = d[1];
    return 0;
}

/* Builds target k from a (image, width_m) pair or loads it from a target file path. */
static int make_target(ar_object *self, PyObject *item, int k,
                       const satfeat_ar_target_params *tp, satfeat_ar_target **out)
{
    satfeat_status st;
    PyObject *image = NULL;
    double width_m = 0.0;
    if (PyUnicode_Check(item) || PyBytes_Check(item) || PyObject_HasAttrString(item, "__fspath__")) {
        PyObject *bytes = NULL;
        if (!PyUnicode_FSConverter(item, &bytes)) return -1;
        const char *path = PyBytes_AS_STRING(bytes);
        Py_BEGIN_ALLOW_THREADS
        st = satfeat_ar_target_load(self->own.ctx, path, out);
        Py_END_ALLOW_THREADS
        Py_DECREF(bytes);
    } else {
        if (!PyArg_ParseTuple(item, "Od;each target is (image, width_m) or a target file path",
                              &image, &width_m))
            return -1;
        satfeat_py_plane img;
        if (satfeat_py_plane_get(image, "target image", "B", &img) < 0) return -1;
        Py_BEGIN_ALLOW_THREADS
        st = satfeat_ar_target_new(self->own.ctx, img.data, img.stride, img.width, img.height,
                                   width_m, tp, out);
        Py_END_ALLOW_THREADS
        satfeat_py_plane_release(&img);
    }
    if (st != SATFEAT_OK) {
        char msg[600];
        snprintf(msg, sizeof msg, "target %d: %s", k, satfeat_ctx_last_error(self->own.ctx));
        satfeat_py_raise(self->own.module, st, msg);
        return -1;
    }
    return 0;
}

/* Builds the targets of the list and the session. */
static int make_session(ar_object *self, PyObject *targets, const satfeat_ar_params *p, int width,
                        int height)
{
    PyObject *seq = PySequence_Fast(targets, "targets must be a list");
    if (!seq) return -1;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > AR_MAX_TARGETS) {
        PyErr_Format(PyExc_ValueError, "1 .. %d targets, got %zd", AR_MAX_TARGETS, n);
        Py_DECREF(seq);
        return -1;
    }
    satfeat_ar_target *t[AR_MAX_TARGETS] = {NULL};
    satfeat_ar_target_params tp = satfeat_ar_target_params_default();
    tp.detector.descriptor = p->detector.descriptor;
    tp.detector.upright = p->detector.upright;
    int rc = 0;
    for (Py_ssize_t k = 0; k < n && rc == 0; k++)
        rc = make_target(self, PySequence_Fast_GET_ITEM(seq, k), (int)k, &tp, &t[k]);
    Py_DECREF(seq);
    if (rc == 0) {
        satfeat_status st;
        Py_BEGIN_ALLOW_THREADS
        st = satfeat_ar_session_new(self->own.ctx, (const satfeat_ar_target *const *)t, (int)n,
                                    &self->camera, p, width, height, &self->session);
        Py_END_ALLOW_THREADS
        if (st != SATFEAT_OK) {
            satfeat_py_raise(self->own.module, st, satfeat_ctx_last_error(self->own.ctx));
            rc = -1;
        }
    }
    for (Py_ssize_t k = 0; k < n; k++) satfeat_ar_target_delete(t[k]);
    self->n_targets = (int)n;
    return rc;
}

static int ar_init(ar_object *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"targets", "width", "height", "camera_matrix", "dist_coeffs", "fov",
                             "backend", "device", "threads", "detector", "ratio",
                             "min_inliers", "max_reproj_px", "photometric", "memory_limit",
                             NULL};
    if (self->session) {
        PyErr_SetString(PyExc_RuntimeError, "ARSession is already initialised");
        return -1;
    }
    ar_release(self); /* what an earlier, failed __init__ left */
    satfeat_ar_params p = satfeat_ar_params_default();
    PyObject *targets, *K = Py_None, *dist = Py_None, *det_params = Py_None, *limit_obj = Py_None;
    int width, height, device = -1, threads = 0, min_inliers = p.min_inliers_found;
    double fov = 0.0;
    const char *backend = "auto";
    size_t limit = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oii|$OOdsiiOdidiO:ARSession", kwlist,
                                     &targets, &width, &height, &K, &dist, &fov, &backend,
                                     &device, &threads, &det_params, &p.ratio, &min_inliers,
                                     &p.max_reproj_px, &p.photometric, &limit_obj))
        return -1;
    p.min_inliers_found = min_inliers;
    if (satfeat_py_check_threads("threads", threads) < 0 ||
        satfeat_py_memory_limit_arg(limit_obj, &limit) < 0)
        return -1;
    if (width < 1 || height < 1) {
        PyErr_Format(PyExc_ValueError, "width and height must be >= 1, got %d x %d", width,
                     height);
        return -1;
    }
    if (parse_camera(K, dist, fov, width, height, &self->camera) < 0) return -1;
    if (satfeat_py_detector_dict(det_params, &p.detector) < 0) return -1;
    if (satfeat_py_owner_open(&self->own, backend, device, threads, limit) < 0) return -1;
    return make_session(self, targets, &p, width, height);
}

/* A new float64 array of `shape` (ndim 1 or 2) holding a copy of v. */
static PyObject *array_of(const double *v, int ndim, npy_intp r, npy_intp c)
{
    npy_intp dims[2] = {r, c};
    PyObject *a = PyArray_SimpleNew(ndim, dims, NPY_FLOAT64);
    if (a) memcpy(PyArray_DATA((PyArrayObject *)a), v, (size_t)(r * c) * sizeof(double));
    return a;
}

/* One target's result as a dict: state, inliers, reproj_px, and rvec (3, 1), tvec (3, 1), R
 * (3, 3), H (3, 3) as float64 arrays, or None for each when the target is lost. */
static PyObject *result_dict(const satfeat_ar_result *r)
{
    static const char *const states[] = {"lost", "found", "tracked"};
    PyObject *rvec = Py_None, *tvec = Py_None, *R = Py_None, *H = Py_None;
    const int posed = r->state != SATFEAT_AR_LOST;
    if (posed) {
        rvec = array_of(r->rvec, 2, 3, 1);
        tvec = array_of(r->tvec, 2, 3, 1);
        R = array_of(r->R, 2, 3, 3);
        H = array_of(r->h, 2, 3, 3);
    } else {
        Py_INCREF(rvec), Py_INCREF(tvec), Py_INCREF(R), Py_INCREF(H);
    }
    if (!rvec || !tvec || !R || !H) {
        Py_XDECREF(rvec), Py_XDECREF(tvec), Py_XDECREF(R), Py_XDECREF(H);
        return NULL;
    }
    return Py_BuildValue("{sssisdsNsNsNsN}", "state", states[r->state], "inliers", r->inliers,
                         "reproj_px", r->reproj_px, "rvec", rvec, "tvec", tvec, "R", R, "H", H);
}

/* One process() call's work, done under the session's lock. */
typedef struct ar_process_call {
    satfeat_ar_session *session;
    satfeat_image_view view;
    satfeat_ar_result *res; /* AR_MAX_TARGETS entries */
} ar_process_call;

static satfeat_status ar_process_locked(void *arg)
{
    ar_process_call *c = arg;
    return satfeat_ar_session_process(c->session, &c->view, c->res, AR_MAX_TARGETS);
}

static satfeat_status ar_reset_locked(void *session)
{
    return satfeat_ar_session_reset(session);
}

static PyObject *ar_process(ar_object *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"image", NULL};
    PyObject *image;
    if (!self->session) {
        PyErr_SetString(PyExc_RuntimeError, "ARSession.__init__ was not called (or failed)");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:process", kwlist, &image)) return NULL;
    satfeat_py_plane img;
    if (satfeat_py_plane_get(image, "image", "B", &img) < 0) return NULL;
    satfeat_ar_result res[AR_MAX_TARGETS];
    char msg[512] = "";
    ar_process_call call = {self->session, satfeat_image_view_host(img.data, img.width, img.height,
                                                                   img.stride), res};
    const satfeat_status st = satfeat_py_owner_call(&self->own, ar_process_locked, &call, msg,
                                                    sizeof msg);
    satfeat_py_plane_release(&img);
    if (st != SATFEAT_OK) return satfeat_py_raise(self->own.module, st, msg);
    PyObject *list = PyList_New(self->n_targets);
    for (int k = 0; list && k < self->n_targets; k++) {
        PyObject *d = result_dict(&res[k]);
        if (!d) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, k, d);
    }
    return list;
}

static PyObject *ar_reset(ar_object *self, PyObject *unused)
{
    (void)unused;
    if (!self->session) {
        PyErr_SetString(PyExc_RuntimeError, "ARSession.__init__ was not called (or failed)");
        return NULL;
    }
    const satfeat_status st = satfeat_py_owner_call(&self->own, ar_reset_locked, self->session,
                                                    NULL, 0);
    if (st != SATFEAT_OK) return satfeat_py_raise(self->own.module, st, "ARSession reset failed");
    Py_RETURN_NONE;
}

static PyObject *ar_camera_matrix(ar_object *self, void *closure)
{
    (void)closure;
    const satfeat_ar_camera *c = &self->camera;
    const double m[9] = {c->fx, 0, c->cx, 0, c->fy, c->cy, 0, 0, 1};
    return array_of(m, 2, 3, 3);
}

static PyObject *ar_dist_coeffs(ar_object *self, void *closure)
{
    (void)closure;
    const double d[5] = {self->camera.k1, self->camera.k2, 0, 0, 0};
    return array_of(d, 2, 5, 1);
}

static PyObject *ar_n_targets(ar_object *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(self->n_targets);
}

static PyMethodDef ar_methods[] = {
    {"process", SATFEAT_PY_KW(ar_process), METH_VARARGS | METH_KEYWORDS,
     "process($self, image)\n--\n\n"
     "Processes one 8-bit gray frame (2-D uint8, contiguous rows, at most width x height) and\n"
     "returns one dict per target, in the order of `targets`: state ('found': detected in this\n"
     "frame, 'tracked': followed from the previous frame, 'lost'), inliers, reproj_px (rms\n"
     "reprojection error, px; nan when lost), and rvec (3, 1) and tvec (3, 1) (OpenCV's\n"
     "solvePnP convention: X_cam = R X + t; cv2.projectPoints(X, rvec, tvec, camera_matrix,\n"
     "dist_coeffs) draws with them), R (3, 3) and H (3, 3, reference pixel -> undistorted\n"
     "frame pixel), each None when the target is lost. The GIL is released during the work."},
    {"reset", (PyCFunction)ar_reset, METH_NOARGS,
     "reset($self)\n--\n\n"
     "Forgets every target's state: the next frame looks for all of them from scratch."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef ar_getset[] = {
    {"camera_matrix", (getter)ar_camera_matrix, NULL,
     "The camera's 3 x 3 intrinsic matrix [[fx, 0, cx], [0, fy, cy], [0, 0, 1]] (float64).", NULL},
    {"dist_coeffs", (getter)ar_dist_coeffs, NULL,
     "OpenCV's distortion coefficients (k1, k2, p1, p2, k3) as a (5, 1) float64 array.", NULL},
    {"n_targets", (getter)ar_n_targets, NULL, "The number of targets.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject satfeat_py_ar_session_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "satfeat.ARSession",
    .tp_basicsize = sizeof(ar_object),
    .tp_dealloc = (destructor)ar_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "ARSession(targets, width, height, *, camera_matrix=None, dist_coeffs=None, fov=None,\n"
        "          backend='auto', device=-1, threads=0, detector=None, ratio=0.8,\n"
        "          min_inliers=16, max_reproj_px=2, photometric=True, memory_limit=None)\n--\n\n"
        "Finds known planar targets in frames of up to width x height and the camera's pose\n"
        "relative to each (satfeat_ar_session, docs/AR.md). targets: a list (1 .. 64) of\n"
        "(image, width_m) pairs, image a 2-D uint8 reference picture and width_m its printed\n"
        "width in metres, or paths of target files (satfeat_ar_target_save). World: the target's\n"
        "plane z = 0, reference pixel (u, v) at (u s, v s, 0), s = width_m / image width.\n"
        "The camera: camera_matrix [[fx, 0, cx], [0, fy, cy], [0, 0, 1]] (pixel centres at\n"
        "integer coordinates, as OpenCV) or fov, the horizontal field of view in degrees (the\n"
        "principal point at the frame's centre); dist_coeffs as OpenCV's (k1, k2[, p1, p2[, k3]])\n"
        "with only k1, k2 non-zero. detector: a dict of Detector parameters for the frames\n"
        "(default: threshold 0.0001, grid 8, per_cell 32, max_keypoints 2400); its descriptor\n"
        "and upright apply to the targets too. min_inliers: the inliers a detection needs.\n"
        "photometric: True (1) refines each trusted pose by aligning the frame's pixels to the\n"
        "target and lets them settle a pose the features leave open (a small target's tilt),\n"
        "False (0) keeps the features' pose; another value is an ArgumentError.\n"
        "threads: at most 4 per online core. Threads may share a session: calls take turns (the\n"
        "lock is taken with the GIL released), each gets the result of its own frame, and the\n"
        "session's tracking state follows the order in which the calls ran.",
    .tp_methods = ar_methods,
    .tp_getset = ar_getset,
    .tp_init = (initproc)ar_init,
    .tp_new = PyType_GenericNew,
};

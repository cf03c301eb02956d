/* motion.c - satfeat.estimate_motion: the robust motion between two keypoint arrays through their
 * matches, satfeat_estimate_motion_matches on a CPU context made for the call (the estimator
 * runs on the CPU whatever the backend). Returns a MotionEstimate (results.c). */
#include "py_common.h"

#include <stdlib.h>
#include <string.h>

/* seed=: None keeps the library's fixed seed; else an int in 0 .. 2^64 - 1. */
static int parse_seed(PyObject *obj, uint64_t *seed)
{
    if (obj == Py_None) return 0;
    const unsigned long long v = PyLong_Check(obj) ? PyLong_AsUnsignedLongLong(obj) : 0;
    if (!PyLong_Check(obj) || (v == (unsigned long long)-1 && PyErr_Occurred())) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "seed must be None or an int in 0 .. 2**64 - 1");
        return -1;
    }
    *seed = (uint64_t)v;
    return 0;
}

/* The call's inputs and outputs, owned by estimate_motion. */
typedef struct motion_call {
    satfeat_keypoint *kp1, *kp2;
    size_t n1, n2;
    PyArrayObject *matches;
    uint8_t *mask;
    satfeat_ctx *ctx;
} motion_call;

/* The library work, the GIL released: the arrays as feature sets and a match list (copies; the
 * estimator reads positions only, so the sets carry no descriptors and a 1 x 1 image size). */
static satfeat_status run(motion_call *c, const satfeat_motion_params *mp, satfeat_motion *out,
                          char *msg, size_t size)
{
    satfeat_features *f1 = NULL, *f2 = NULL;
    satfeat_matches *list = NULL;
    const size_t n = (size_t)PyArray_DIM(c->matches, 0);
    satfeat_status st = satfeat_features_new(&f1);
    if (st == SATFEAT_OK) st = satfeat_features_new(&f2);
    if (st == SATFEAT_OK) st = satfeat_matches_new(&list);
    if (st == SATFEAT_OK)
        st = satfeat_features_assign(f1, c->kp1, NULL, c->n1, SATFEAT_DESCRIPTOR_NONE, 1, 1);
    if (st == SATFEAT_OK)
        st = satfeat_features_assign(f2, c->kp2, NULL, c->n2, SATFEAT_DESCRIPTOR_NONE, 1, 1);
    if (st == SATFEAT_OK) st = satfeat_matches_assign(list, PyArray_DATA(c->matches), n);
    if (st != SATFEAT_OK) {
        snprintf(msg, size, "estimate_motion: cannot copy the inputs");
    } else {
        st = satfeat_estimate_motion_matches(c->ctx, f1, f2, list, mp, out, c->mask);
        if (st != SATFEAT_OK) satfeat_py_copy_error(c->ctx, msg, size);
    }
    satfeat_matches_delete(list);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    return st;
}

/* The MotionEstimate of a successful call: h as float64 (3, 3), the mask as bool (n,). */
static PyObject *result_of(PyObject *module, const satfeat_motion *m, const uint8_t *mask,
                           size_t n)
{
    npy_intp hd[2] = {3, 3}, md[1] = {(npy_intp)n};
    PyObject *h = PyArray_SimpleNew(2, hd, NPY_FLOAT64);
    PyObject *flags = PyArray_SimpleNew(1, md, NPY_BOOL);
    if (h) memcpy(PyArray_DATA((PyArrayObject *)h), m->h, sizeof m->h);
    if (flags && n) memcpy(PyArray_DATA((PyArrayObject *)flags), mask, n); /* 0 / 1 bytes */
    return satfeat_py_motion_estimate(module, h, flags, m);
}

PyObject *satfeat_py_estimate_motion(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"kp1",        "kp2",  "matches", "model", "threshold",
                             "max_iterations", "confidence", "seed", "refine", NULL};
    PyObject *o1, *o2, *om, *seed_obj = Py_None, *result = NULL;
    const char *model = "homography";
    satfeat_motion_params mp = satfeat_motion_params_default();
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|$sdidOp:estimate_motion", kwlist, &o1,
                                     &o2, &om, &model, &mp.threshold, &mp.max_iterations,
                                     &mp.confidence, &seed_obj, &mp.refine))
        return NULL;
    if (satfeat_py_parse_motion_model("model", model, &mp.model) < 0 ||
        parse_seed(seed_obj, &mp.seed) < 0)
        return NULL;
    motion_call c;
    memset(&c, 0, sizeof c);
    if (satfeat_py_records_get(om, "matches", satfeat_py_state_of(module)->match_dtype,
                               &c.matches) < 0 ||
        !(c.kp1 = satfeat_py_keypoints_get(module, o1, "kp1", &c.n1)) ||
        !(c.kp2 = satfeat_py_keypoints_get(module, o2, "kp2", &c.n2)) ||
        satfeat_py_ctx_new(module, "cpu", -1, &c.ctx) < 0)
        goto done;
    const size_t n = (size_t)PyArray_DIM(c.matches, 0);
    if (satfeat_py_check_bytes(module, satfeat_ctx_memory_limit(c.ctx), "estimate_motion: mask",
                               n, 1) < 0)
        goto done;
    if (!(c.mask = malloc(n ? n : 1))) {
        PyErr_NoMemory();
        goto done;
    }
    satfeat_motion out;
    char msg[512] = "";
    satfeat_status st;
    Py_BEGIN_ALLOW_THREADS
    st = run(&c, &mp, &out, msg, sizeof msg);
    Py_END_ALLOW_THREADS
    if (st != SATFEAT_OK) satfeat_py_raise(module, st, msg);
    else result = result_of(module, &out, c.mask, n);
done:
    satfeat_ctx_delete(c.ctx);
    free(c.mask);
    free(c.kp1);
    free(c.kp2);
    Py_XDECREF(c.matches);
    return result;
}

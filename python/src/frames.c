/* frames.c - feature sets as Python objects (Detector.detect) and a list of frames detected in
 * one library call (satfeat_pool_detect for Pool.detect, satfeat_batch_detect for
 * Detector.detect_batch): the views, the per-frame results and the NumPy arrays in input
 * order. The library sizes every feature set, so nothing is guessed or detected twice. */
#include "py_common.h"

#include <stdlib.h>
#include <string.h>

PyObject *satfeat_py_features_object(PyObject *module, const satfeat_features *f, int want_desc,
                                     size_t memory_limit, const char *what)
{
    const size_t n = satfeat_features_count(f);
    const int dim = (int)satfeat_features_descriptor_kind(f);
    const size_t each = sizeof(satfeat_keypoint) + (want_desc ? (size_t)dim * sizeof(float) : 0);
    if (satfeat_py_check_bytes(module, memory_limit, what, n, each) < 0) return NULL;
    PyObject *kp = satfeat_py_keypoints_new(module, satfeat_features_keypoints(f), n);
    if (!kp || !want_desc) return kp;
    npy_intp dims[2] = {(npy_intp)n, dim};
    PyObject *desc = PyArray_SimpleNew(2, dims, NPY_FLOAT32);
    if (!desc) {
        Py_DECREF(kp);
        return NULL;
    }
    if (n)
        memcpy(PyArray_DATA((PyArrayObject *)desc), satfeat_features_descriptors(f),
               n * (size_t)dim * sizeof(float));
    PyObject *pair = PyTuple_Pack(2, kp, desc);
    Py_DECREF(kp);
    Py_DECREF(desc);
    return pair;
}

/* Per-call records: the planes, their views and one result per frame. */
typedef struct call {
    size_t n;
    satfeat_py_plane *planes;
    satfeat_image_view *frames;
    satfeat_frame_result *results;
} call;

static void call_free(call *c)
{
    for (size_t i = 0; c->planes && i < c->n; i++) satfeat_py_plane_release(&c->planes[i]);
    for (size_t i = 0; c->results && i < c->n; i++) satfeat_features_delete(c->results[i].features);
    free(c->planes);
    free(c->frames);
    free(c->results);
}

static PyObject *results_list(PyObject *module, const call *c, int want_desc, size_t limit)
{
    size_t total = 0; /* the arrays of every frame together answer to the limit */
    for (size_t i = 0; i < c->n; i++) total += satfeat_features_count(c->results[i].features);
    const int dim = c->n ? (int)satfeat_features_descriptor_kind(c->results[0].features) : 0;
    if (satfeat_py_check_bytes(module, limit, "detection of a list of frames: result arrays", total,
                               sizeof(satfeat_keypoint) +
                                   (want_desc ? (size_t)dim * sizeof(float) : 0)) < 0)
        return NULL;
    PyObject *list = PyList_New((Py_ssize_t)c->n);
    for (size_t i = 0; list && i < c->n; i++) {
        PyObject *item =
            satfeat_py_features_object(module, c->results[i].features, want_desc, limit, "frame");
        if (!item) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

PyObject *satfeat_py_detect_frames(PyObject *module, PyObject *images, int want_desc,
                                   size_t memory_limit, satfeat_py_frames_run run, void *owner)
{
    PyObject *seq, *result = NULL;
    if (!(seq = PySequence_Fast(images, "images must be a sequence of 2-D uint8 arrays")))
        return NULL;
    call c = {(size_t)PySequence_Fast_GET_SIZE(seq), NULL, NULL, NULL};
    const size_t each =
        sizeof(satfeat_py_plane) + sizeof(satfeat_image_view) + sizeof(satfeat_frame_result);
    if (satfeat_py_check_bytes(module, memory_limit, "detection of a list of frames: records",
                               c.n, each) < 0) {
        Py_DECREF(seq);
        return NULL;
    }
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
                                 &c.planes[i]) < 0)
            goto done;
        c.frames[i] = satfeat_image_view_host(c.planes[i].data, c.planes[i].width,
                                              c.planes[i].height, c.planes[i].stride);
    }
    char msg[600] = "";
    satfeat_status st = run(owner, c.frames, c.n, c.results, msg, sizeof msg);
    if (st != SATFEAT_OK) {
        satfeat_py_raise(module, st, msg);
        goto done;
    }
    result = results_list(module, &c, want_desc, memory_limit);
done:
    call_free(&c);
    Py_DECREF(seq);
    return result;
}

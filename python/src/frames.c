/* frames.c - a list of frames detected in one library call (satfeat_pool_detect_u8 for
 * Pool.detect, satfeat_batch_detect_u8 for Detector.detect_batch): the per-frame buffers, a
 * second try with exact room for the frames whose keypoints did not fit, and the results as
 * NumPy arrays in input order. */
#include "py_common.h"

#include <stdlib.h>
#include <string.h>

/* Per-call buffers: one result per frame with its own keypoint (and descriptor) room. */
typedef struct call {
    size_t n;
    int dim;
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

/* Gives a frame's result room for `cap` keypoints; -1 with MemoryError. */
static int room(const call *c, satfeat_pool_result *r, size_t cap, int want_desc)
{
    free(r->keypoints);
    free(r->descriptors);
    r->keypoints = malloc((cap ? cap : 1) * sizeof *r->keypoints);
    r->descriptors = want_desc ? malloc((cap ? cap : 1) * (size_t)c->dim * sizeof(float)) : NULL;
    r->capacity = cap;
    if (!r->keypoints || (want_desc && !r->descriptors)) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Detects again, with exact room, the frames that had more keypoints than the first try's
 * room (*cap grows to the largest count); the others keep their results. */
static satfeat_status rerun_overflows(call *c, int want_desc, size_t *cap,
                                      satfeat_py_frames_run run, void *owner, char *msg,
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
        if (ri->count > *cap) *cap = ri->count;
        if (room(c, ri, ri->count, want_desc) < 0) goto done;
        idx[m] = i;
        f[m] = c->frames[i];
        r[m++] = *ri;
    }
    st = run(owner, f, m, r, msg, size);
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

static PyObject *results_list(PyObject *module, const call *c, int want_desc)
{
    PyArray_Descr *kp_dtype = satfeat_py_state_of(module)->keypoint_dtype;
    PyObject *list = PyList_New((Py_ssize_t)c->n);
    for (size_t i = 0; list && i < c->n; i++) {
        const satfeat_pool_result *r = &c->results[i];
        PyObject *kp = satfeat_py_records_new(kp_dtype, r->keypoints, r->count), *item = kp;
        if (kp && want_desc) {
            npy_intp dims[2] = {(npy_intp)r->count, c->dim};
            PyObject *desc = PyArray_SimpleNew(2, dims, NPY_FLOAT32);
            if (desc && r->count)
                memcpy(PyArray_DATA((PyArrayObject *)desc), r->descriptors,
                       r->count * (size_t)c->dim * sizeof(float));
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

PyObject *satfeat_py_detect_frames(PyObject *module, PyObject *images, int want_desc, int dim,
                                   size_t *cap, size_t memory_limit, satfeat_py_frames_run run,
                                   void *owner)
{
    PyObject *seq, *result = NULL;
    if (!(seq = PySequence_Fast(images, "images must be a sequence of 2-D uint8 arrays")))
        return NULL;
    call c = {(size_t)PySequence_Fast_GET_SIZE(seq), dim, NULL, NULL, NULL};
    /* Every frame gets its first room at once: the list's length sets the total. */
    const size_t each = *cap * (sizeof(satfeat_keypoint) + (want_desc ? (size_t)dim * 4 : 0)) +
                        sizeof(satfeat_py_plane) + sizeof(satfeat_pool_frame) +
                        sizeof(satfeat_pool_result);
    if (satfeat_py_check_bytes(module, memory_limit, "detection of a list of frames: buffers",
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
                                 &c.planes[i]) < 0 ||
            room(&c, &c.results[i], *cap, want_desc) < 0)
            goto done;
        c.frames[i] = (satfeat_pool_frame){c.planes[i].data, c.planes[i].stride,
                                           c.planes[i].width, c.planes[i].height};
    }
    char msg[600] = "";
    satfeat_status st = run(owner, c.frames, c.n, c.results, msg, sizeof msg);
    /* Only overflows (every failed frame's status CAPACITY) are worth a second try. */
    int only_capacity = st == SATFEAT_ERR_CAPACITY;
    for (size_t i = 0; only_capacity && i < c.n; i++)
        only_capacity = c.results[i].status == SATFEAT_OK ||
                        c.results[i].status == SATFEAT_ERR_CAPACITY;
    if (only_capacity) st = rerun_overflows(&c, want_desc, cap, run, owner, msg, sizeof msg);
    if (st != SATFEAT_OK && PyErr_Occurred()) goto done;
    if (st != SATFEAT_OK) {
        satfeat_py_raise(module, st, msg);
        goto done;
    }
    result = results_list(module, &c, want_desc);
done:
    call_free(&c);
    Py_DECREF(seq);
    return result;
}

/* dtypes.c - NumPy structured dtypes that mirror the library's result structs byte for byte
 * (field offsets from offsetof, itemsize from sizeof), so results are copied out with one memcpy;
 * the one conversion is the angle of keypoints and tracks, radians in the library and degrees at
 * the Python surface (OpenCV's KeyPoint convention), both ways. */
#include "py_common.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* 180 / pi and pi / 180 in double, the values Python's 180 / math.pi and math.pi / 180 give. */
#define DEG_PER_RAD (180.0 / 3.14159265358979323846)
#define RAD_PER_DEG (3.14159265358979323846 / 180.0)

typedef struct field {
    const char *name;
    const char *format; /* NumPy type string: "f8", "i4", ... */
    size_t offset;
} field;

/* A dtype from a field table: numpy.dtype({'names', 'formats', 'offsets', 'itemsize'}). */
static PyArray_Descr *make_dtype(const field *f, size_t n, size_t itemsize)
{
    PyObject *names = PyList_New((Py_ssize_t)n), *formats = PyList_New((Py_ssize_t)n);
    PyObject *offsets = PyList_New((Py_ssize_t)n), *spec = NULL;
    PyArray_Descr *descr = NULL;
    if (!names || !formats || !offsets) goto done;
    for (size_t i = 0; i < n; i++) {
        PyObject *a = PyUnicode_FromString(f[i].name), *b = PyUnicode_FromString(f[i].format);
        PyObject *c = PyLong_FromSize_t(f[i].offset);
        if (!a || !b || !c) {
            Py_XDECREF(a);
            Py_XDECREF(b);
            Py_XDECREF(c);
            goto done;
        }
        PyList_SET_ITEM(names, (Py_ssize_t)i, a);
        PyList_SET_ITEM(formats, (Py_ssize_t)i, b);
        PyList_SET_ITEM(offsets, (Py_ssize_t)i, c);
    }
    spec = Py_BuildValue("{sOsOsOsn}", "names", names, "formats", formats, "offsets", offsets,
                         "itemsize", (Py_ssize_t)itemsize);
    if (spec && !PyArray_DescrConverter(spec, &descr)) descr = NULL;
done:
    Py_XDECREF(names);
    Py_XDECREF(formats);
    Py_XDECREF(offsets);
    Py_XDECREF(spec);
    return descr;
}

#define FIELD(type, name, format) {#name, format, offsetof(type, name)}

int satfeat_py_dtypes_init(PyObject *module, satfeat_py_state *state)
{
    const field kp[] = {
        FIELD(satfeat_keypoint, x, "f8"),        FIELD(satfeat_keypoint, y, "f8"),
        FIELD(satfeat_keypoint, size, "f8"),     FIELD(satfeat_keypoint, sigma, "f8"),
        FIELD(satfeat_keypoint, response, "f8"), FIELD(satfeat_keypoint, angle, "f8"),
        FIELD(satfeat_keypoint, laplacian, "i4"), FIELD(satfeat_keypoint, octave, "i4"),
        FIELD(satfeat_keypoint, layer, "i4"),    FIELD(satfeat_keypoint, sample_x, "i4"),
        FIELD(satfeat_keypoint, sample_y, "i4"),
    };
    const field match[] = {
        FIELD(satfeat_match_pair, query, "i4"),
        FIELD(satfeat_match_pair, train, "i4"),
        FIELD(satfeat_match_pair, distance, "f4"),
    };
    const field track[] = {
        FIELD(satfeat_track, id, "u8"),       FIELD(satfeat_track, x, "f8"),
        FIELD(satfeat_track, y, "f8"),        FIELD(satfeat_track, size, "f8"),
        FIELD(satfeat_track, angle, "f8"),    FIELD(satfeat_track, laplacian, "i4"),
        FIELD(satfeat_track, age, "i4"),      FIELD(satfeat_track, missed, "i4"),
        FIELD(satfeat_track, inlier, "i4"),
    };
    state->keypoint_dtype = make_dtype(kp, sizeof kp / sizeof kp[0], sizeof(satfeat_keypoint));
    state->match_dtype =
        make_dtype(match, sizeof match / sizeof match[0], sizeof(satfeat_match_pair));
    state->track_dtype = make_dtype(track, sizeof track / sizeof track[0], sizeof(satfeat_track));
    if (!state->keypoint_dtype || !state->match_dtype || !state->track_dtype) return -1;
    if (PyModule_AddObjectRef(module, "keypoint_dtype", (PyObject *)state->keypoint_dtype) < 0 ||
        PyModule_AddObjectRef(module, "match_dtype", (PyObject *)state->match_dtype) < 0 ||
        PyModule_AddObjectRef(module, "track_dtype", (PyObject *)state->track_dtype) < 0)
        return -1;
    return 0;
}

PyObject *satfeat_py_records_new(PyArray_Descr *dtype, const void *src, size_t n)
{
    npy_intp dims[1] = {(npy_intp)n};
    Py_INCREF(dtype); /* PyArray_NewFromDescr steals it */
    PyObject *a = PyArray_NewFromDescr(&PyArray_Type, dtype, 1, dims, NULL, NULL, 0, NULL);
    if (a && n) memcpy(PyArray_DATA((PyArrayObject *)a), src, n * (size_t)dtype->elsize);
    return a;
}

double satfeat_py_degrees(double radians)
{
    const double d = radians * DEG_PER_RAD;
    return d >= 360.0 ? d - 360.0 : d; /* an angle just below 2 pi may round up to 360 */
}

PyObject *satfeat_py_keypoints_new(PyObject *module, const satfeat_keypoint *kp, size_t n)
{
    PyObject *a = satfeat_py_records_new(satfeat_py_state_of(module)->keypoint_dtype, kp, n);
    satfeat_keypoint *out = a ? PyArray_DATA((PyArrayObject *)a) : NULL;
    for (size_t i = 0; out && i < n; i++) out[i].angle = satfeat_py_degrees(out[i].angle);
    return a;
}

PyObject *satfeat_py_tracks_new(PyObject *module, const satfeat_track *tracks, size_t n)
{
    PyObject *a = satfeat_py_records_new(satfeat_py_state_of(module)->track_dtype, tracks, n);
    satfeat_track *out = a ? PyArray_DATA((PyArrayObject *)a) : NULL;
    for (size_t i = 0; out && i < n; i++) out[i].angle = satfeat_py_degrees(out[i].angle);
    return a;
}

satfeat_keypoint *satfeat_py_keypoints_get(PyObject *module, PyObject *obj, const char *what,
                                           size_t *n)
{
    PyArrayObject *arr = NULL;
    if (satfeat_py_records_get(obj, what, satfeat_py_state_of(module)->keypoint_dtype, &arr) < 0)
        return NULL;
    *n = (size_t)PyArray_DIM(arr, 0);
    satfeat_keypoint *kp = NULL;
    if (satfeat_py_check_bytes(module, satfeat_default_memory_limit(), what, *n, sizeof *kp) == 0) {
        kp = malloc(*n ? *n * sizeof *kp : 1);
        if (!kp) PyErr_NoMemory();
    }
    if (kp && *n) {
        memcpy(kp, PyArray_DATA(arr), *n * sizeof *kp);
        for (size_t i = 0; i < *n; i++) kp[i].angle *= RAD_PER_DEG;
    }
    Py_DECREF(arr);
    return kp;
}

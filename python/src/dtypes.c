/* dtypes.c - NumPy structured dtypes that mirror the library's result structs byte for byte
 * (field offsets from offsetof, itemsize from sizeof), so results are copied out with one memcpy
 * and read back into the library (match keypoints) without conversion. */
#include "py_common.h"

#include <stddef.h>
#include <string.h>

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

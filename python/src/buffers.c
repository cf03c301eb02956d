/* buffers.c - Python buffers as checked C views: images (2-D uint8 or float32 with contiguous
 * rows, so OpenCV images and NumPy slices of rows work without a copy) and record arrays
 * (keypoints, descriptors) with the exact dtype the library's structs have. */
#include "py_common.h"

#include <limits.h>
#include <string.h>

/* The item kind of a buffer format ("B", "<B", "=f", ...): 0 when it is not a single item. */
static char format_kind(const char *format)
{
    if (!format) return 'B'; /* no format requested or given means unsigned bytes */
    if (*format && strchr("@=<>!|", *format)) format++;
    if (format[0] && !format[1]) return format[0];
    return 0;
}

int satfeat_py_plane_get(PyObject *obj, const char *what, const char *kinds,
                         satfeat_py_plane *out)
{
    memset(out, 0, sizeof *out);
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "%s must be a 2-D array or buffer (a NumPy array, an OpenCV image), not %.80s",
                     what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (PyObject_GetBuffer(obj, &out->view, PyBUF_RECORDS_RO) < 0) return -1;
    const Py_buffer *v = &out->view;
    char kind = format_kind(v->format);
    const char *err = NULL;
    char msg[200];
    if (v->ndim != 2) {
        snprintf(msg, sizeof msg, "%s must be 2-D (height, width), got %d dimension(s)", what,
                 v->ndim);
        err = msg;
    } else if (!kind || !strchr(kinds, kind) || v->itemsize != (kind == 'B' ? 1 : 4)) {
        snprintf(msg, sizeof msg, "%s must hold %s, got items of format '%s' (%zd bytes)", what,
                 strchr(kinds, 'f') ? "uint8 or float32" : "uint8", v->format ? v->format : "B",
                 v->itemsize);
        err = msg;
    } else if (v->shape[0] < 1 || v->shape[1] < 1 || v->shape[0] > INT_MAX ||
               v->shape[1] > INT_MAX) {
        snprintf(msg, sizeof msg, "%s must be at least 1 x 1 and below 2^31 a side, got %zd x %zd",
                 what, v->shape[0], v->shape[1]);
        err = msg;
    } else if (v->strides[1] != v->itemsize || v->strides[0] < v->shape[1] * v->itemsize ||
               v->strides[0] % v->itemsize) {
        snprintf(msg, sizeof msg,
                 "%s must have contiguous rows (strides (>= %zd, %zd)), got strides (%zd, %zd); "
                 "numpy.ascontiguousarray() makes such a copy",
                 what, v->shape[1] * v->itemsize, v->itemsize, v->strides[0], v->strides[1]);
        err = msg;
    }
    if (err) {
        PyErr_SetString(PyExc_ValueError, err);
        satfeat_py_plane_release(out);
        return -1;
    }
    out->data = v->buf;
    out->stride = (size_t)v->strides[0];
    out->height = (int)v->shape[0];
    out->width = (int)v->shape[1];
    out->kind = kind;
    return 0;
}

void satfeat_py_plane_release(satfeat_py_plane *plane)
{
    if (plane->view.obj) PyBuffer_Release(&plane->view);
    memset(plane, 0, sizeof *plane);
}

int satfeat_py_records_get(PyObject *obj, const char *what, PyArray_Descr *dtype,
                           PyArrayObject **out)
{
    *out = NULL;
    if (!PyArray_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a NumPy array, not %.80s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyArrayObject *a = (PyArrayObject *)obj;
    if (PyArray_NDIM(a) != 1 || !PyArray_EquivTypes(PyArray_DESCR(a), dtype) ||
        !PyArray_IS_C_CONTIGUOUS(a)) {
        PyErr_Format(PyExc_ValueError,
                     "%s must be a 1-D C-contiguous array of the dtype the library returns "
                     "(as from Detector.detect), got a %d-D array of dtype %R",
                     what, PyArray_NDIM(a), (PyObject *)PyArray_DESCR(a));
        return -1;
    }
    Py_INCREF(obj);
    *out = a;
    return 0;
}

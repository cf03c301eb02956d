/* buffers.c - Python buffers as checked C views: images (2-D uint8 or float32 with contiguous
 * rows, so OpenCV images and NumPy slices of rows work without a copy) and record arrays
 * (keypoints, descriptors) with the exact dtype the library's structs have. */
#include "py_common.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

/* The item kind of a buffer format ("B", "<B", "=f", ...): 0 when it is not a single item. */
static char format_kind(const char *format)
{
    if (!format) return 'B'; /* no format requested or given means unsigned bytes */
    if (*format && strchr("@=<>!|", *format)) format++;
    if (format[0] && !format[1]) return format[0];
    return 0;
}

/* A NumPy-style name of a buffer format, for messages ("float64" for 'd'); the format itself
 * when it is no single number (a structured or object item). */
static const char *format_name(const char *format, Py_ssize_t itemsize)
{
    static const struct {
        char kind;
        const char *name;
    } names[] = {{'?', "bool"},    {'b', "int8"},    {'B', "uint8"},   {'h', "int16"},
                 {'H', "uint16"},  {'i', "int32"},   {'I', "uint32"},  {'e', "float16"},
                 {'f', "float32"}, {'d', "float64"}, {'g', "longdouble"}, {'O', "object"}};
    const char kind = format_kind(format);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (kind == names[i].kind) return names[i].name;
    if (kind == 'l' || kind == 'q') return itemsize == 8 ? "int64" : "int32";
    if (kind == 'L' || kind == 'Q') return itemsize == 8 ? "uint64" : "uint32";
    return format ? format : "B";
}

int satfeat_py_matrix_get(PyObject *obj, const char *what, satfeat_py_plane *out)
{
    memset(out, 0, sizeof *out);
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "%s must be a float32 array of shape (n, 64) or (n, 128), not %.80s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (PyObject_GetBuffer(obj, &out->view, PyBUF_RECORDS_RO) < 0) return -1;
    const Py_buffer *v = &out->view;
    char msg[240] = "";
    if (format_kind(v->format) != 'f' || v->itemsize != 4)
        snprintf(msg, sizeof msg, "%s: descriptors must be float32 (got %s); use "
                 ".astype(np.float32)", what, format_name(v->format, v->itemsize));
    else if (v->ndim != 2)
        snprintf(msg, sizeof msg, "%s must be a float32 array of shape (n, 64) or (n, 128), got "
                 "%d dimension(s)", what, v->ndim);
    else if (v->shape[1] != 64 && v->shape[1] != 128)
        snprintf(msg, sizeof msg, "%s must be a float32 array of shape (n, 64) or (n, 128), got "
                 "shape (%zd, %zd)", what, v->shape[0], v->shape[1]);
    else if (v->shape[0] > INT_MAX)
        snprintf(msg, sizeof msg, "%s has %zd rows, more than 2^31 - 1", what, v->shape[0]);
    else if (v->shape[0] > 0 && (v->strides[1] != 4 || v->strides[0] != 4 * v->shape[1]))
        snprintf(msg, sizeof msg, "%s must be C-contiguous, got strides (%zd, %zd); "
                 "numpy.ascontiguousarray() makes such a copy", what, v->strides[0],
                 v->strides[1]);
    else if (v->shape[0] > 0 && (uintptr_t)v->buf % 4)
        snprintf(msg, sizeof msg, "%s is not aligned to its 4-byte items (a view at an odd byte "
                 "offset); .copy() makes an aligned array", what);
    if (msg[0]) {
        PyErr_SetString(PyExc_ValueError, msg);
        satfeat_py_plane_release(out);
        return -1;
    }
    out->data = v->buf;
    out->stride = 4 * (size_t)v->shape[1];
    out->height = (int)v->shape[0];
    out->width = (int)v->shape[1];
    out->kind = 'f';
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
    } else if ((uintptr_t)v->buf % (uintptr_t)v->itemsize) {
        /* the library reads float32 through float pointers: a misaligned one is undefined */
        snprintf(msg, sizeof msg,
                 "%s is not aligned to its %zd-byte items (a view at an odd byte offset); "
                 ".copy() makes an aligned array", what, v->itemsize);
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
    if ((uintptr_t)PyArray_DATA(a) % 8) {
        /* the records hold doubles read in place by the library (a frombuffer view at an odd
         * offset would be undefined behaviour there) */
        PyErr_Format(PyExc_ValueError,
                     "%s is not aligned to 8 bytes (a view at an odd byte offset); .copy() makes "
                     "an aligned array", what);
        return -1;
    }
    Py_INCREF(obj);
    *out = a;
    return 0;
}

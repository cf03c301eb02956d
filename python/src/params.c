/* params.c - keyword arguments as library parameters: the satfeat_detector_params fields by
 * name (Detector(..., threshold=0.001, grid=8, per_cell=32, descriptor="surf128",
 * descriptor_norm="l2", orientation_filter="haar")), and the backend names. Ranges are the
 * library's to check: a bad value comes back as ArgumentError with the library's message when
 * the detector is created. */
#include "py_common.h"

#include <limits.h>
#include <stddef.h>
#include <string.h>

typedef struct param_field {
    const char *name;
    char type; /* 'i' int, 'd' double */
    size_t offset;
} param_field;

#define PARAM(name, type) {#name, type, offsetof(satfeat_detector_params, name)}

static const param_field fields[] = {
    PARAM(octaves, 'i'),       PARAM(layers, 'i'),        PARAM(init_step, 'i'),
    PARAM(threshold, 'd'),     PARAM(max_keypoints, 'i'), PARAM(grid, 'i'),
    PARAM(per_cell, 'i'),      PARAM(max_offset, 'd'),    PARAM(unique_scales, 'i'),
    PARAM(upright, 'i'),       PARAM(suppress_duplicates, 'i'), PARAM(orientation_refine, 'i'),
    PARAM(descriptor_haar, 'i'), PARAM(orientation_haar, 'i'),
};

int satfeat_py_parse_backend(const char *name, satfeat_backend *out)
{
    if (!strcmp(name, "auto")) *out = SATFEAT_BACKEND_AUTO;
    else if (!strcmp(name, "cpu")) *out = SATFEAT_BACKEND_CPU;
    else if (!strcmp(name, "cuda")) *out = SATFEAT_BACKEND_CUDA;
    else {
        PyErr_Format(PyExc_ValueError, "backend must be 'auto', 'cpu' or 'cuda', got '%s'", name);
        return -1;
    }
    return 0;
}

/* descriptor= accepts "surf64", "surf128", "none" or the float count 64, 128, 0. */
static int parse_descriptor(PyObject *v, satfeat_descriptor_kind *out)
{
    if (PyUnicode_Check(v)) {
        const char *s = PyUnicode_AsUTF8(v);
        if (!s) return -1;
        if (!strcmp(s, "surf64")) *out = SATFEAT_DESCRIPTOR_SURF64;
        else if (!strcmp(s, "surf128")) *out = SATFEAT_DESCRIPTOR_SURF128;
        else if (!strcmp(s, "none")) *out = SATFEAT_DESCRIPTOR_NONE;
        else goto bad;
        return 0;
    }
    if (PyLong_Check(v) && !PyBool_Check(v)) {
        long n = PyLong_AsLong(v);
        if (n == -1 && PyErr_Occurred()) return -1;
        if (n != 0 && n != 64 && n != 128) goto bad;
        *out = (satfeat_descriptor_kind)n;
        return 0;
    }
bad:
    PyErr_Format(PyExc_ValueError, "descriptor must be 'surf64', 'surf128', 'none' (or 64, 128, 0), "
                                   "got %R", v);
    return -1;
}

/* name= accepts the string a (0) or b (1): returns the index, or -1 with a ValueError set. */
static int parse_word(PyObject *v, const char *name, const char *a, const char *b)
{
    const char *s = PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
    if (PyUnicode_Check(v) && !s) return -1;
    if (s && !strcmp(s, a)) return 0;
    if (s && !strcmp(s, b)) return 1;
    PyErr_Format(PyExc_ValueError, "%s must be '%s' or '%s', got %R", name, a, b, v);
    return -1;
}

static int set_field(const param_field *f, PyObject *v, satfeat_detector_params *p)
{
    char *base = (char *)p + f->offset;
    if (f->type == 'd') {
        if (!PyFloat_Check(v) && !PyLong_Check(v)) {
            PyErr_Format(PyExc_TypeError, "%s must be a number, not %.80s", f->name,
                         Py_TYPE(v)->tp_name);
            return -1;
        }
        double d = PyFloat_AsDouble(v);
        if (d == -1.0 && PyErr_Occurred()) return -1;
        memcpy(base, &d, sizeof d);
        return 0;
    }
    if (!PyLong_Check(v)) { /* bool is an int: upright=True works */
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.80s", f->name, Py_TYPE(v)->tp_name);
        return -1;
    }
    long n = PyLong_AsLong(v);
    if (n == -1 && PyErr_Occurred()) return -1;
    if (n < INT_MIN || n > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "%s = %ld does not fit in a C int", f->name, n);
        return -1;
    }
    int i = (int)n;
    memcpy(base, &i, sizeof i);
    return 0;
}

static int skipped(const char *name, const char *const *skip)
{
    for (; skip && *skip; skip++)
        if (!strcmp(name, *skip)) return 1;
    return 0;
}

int satfeat_py_detector_params(PyObject *kwargs, const char *const *skip,
                               satfeat_detector_params *p)
{
    if (!kwargs) return 0;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
        const char *name = PyUnicode_AsUTF8(key);
        if (!name) return -1;
        if (skipped(name, skip)) continue;
        if (!strcmp(name, "descriptor")) {
            if (parse_descriptor(value, &p->descriptor) < 0) return -1;
            continue;
        }
        if (!strcmp(name, "descriptor_norm")) {
            const int k = parse_word(value, "descriptor_norm", "root", "l2");
            if (k < 0) return -1;
            p->descriptor_norm = k ? SATFEAT_DESCRIPTOR_NORM_L2 : SATFEAT_DESCRIPTOR_NORM_ROOT;
            continue;
        }
        if (!strcmp(name, "orientation_filter")) {
            const int k = parse_word(value, "orientation_filter", "scharr", "haar");
            if (k < 0) return -1;
            p->orientation_filter = k ? SATFEAT_ORIENTATION_HAAR : SATFEAT_ORIENTATION_SCHARR;
            continue;
        }
        const param_field *f = NULL;
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
            if (!strcmp(fields[i].name, name)) f = &fields[i];
        if (!f) {
            PyErr_Format(PyExc_TypeError, "unknown detector parameter '%s'", name);
            return -1;
        }
        if (set_field(f, value, p) < 0) return -1;
    }
    return 0;
}

int satfeat_py_detector_dict(PyObject *obj, satfeat_detector_params *p)
{
    if (obj == Py_None) return 0;
    if (!PyDict_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "detector must be a dict of detector parameters");
        return -1;
    }
    return satfeat_py_detector_params(obj, NULL, p);
}

PyObject *satfeat_py_detector_params_dict(const satfeat_detector_params *p)
{
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const char *base = (const char *)p + fields[i].offset;
        PyObject *v;
        if (fields[i].type == 'd') {
            double x;
            memcpy(&x, base, sizeof x);
            v = PyFloat_FromDouble(x);
        } else {
            int x;
            memcpy(&x, base, sizeof x);
            v = PyLong_FromLong(x);
        }
        if (!v || PyDict_SetItemString(d, fields[i].name, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(v);
    }
    const char *desc = p->descriptor == SATFEAT_DESCRIPTOR_SURF64    ? "surf64"
                       : p->descriptor == SATFEAT_DESCRIPTOR_SURF128 ? "surf128"
                                                                     : "none";
    const char *const names[3][2] = {
        {"descriptor", desc},
        {"descriptor_norm", p->descriptor_norm == SATFEAT_DESCRIPTOR_NORM_L2 ? "l2" : "root"},
        {"orientation_filter",
         p->orientation_filter == SATFEAT_ORIENTATION_HAAR ? "haar" : "scharr"}};
    for (int i = 0; i < 3; i++) {
        PyObject *v = PyUnicode_FromString(names[i][1]);
        if (!v || PyDict_SetItemString(d, names[i][0], v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(v);
    }
    return d;
}

PyObject *satfeat_py_own_kwargs(PyObject *kwargs, const char *const *own)
{
    PyObject *known = PyDict_New();
    for (; known && kwargs && *own; own++) {
        PyObject *v = PyDict_GetItemString(kwargs, *own);
        if (v && PyDict_SetItemString(known, *own, v) < 0) Py_CLEAR(known);
    }
    return known;
}

/* One side: None -> -1, else an int in 0 .. INT_MAX. */
static int size_side(const char *who, const char *name, PyObject *obj, int *out)
{
    if (obj == Py_None) {
        *out = -1;
        return 0;
    }
    const long v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: %s must be >= 0, got %ld", who, name, v);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int satfeat_py_size_args(const char *who, PyObject *width_obj, PyObject *height_obj, int *width,
                         int *height)
{
    if (size_side(who, "width", width_obj, width) < 0 ||
        size_side(who, "height", height_obj, height) < 0)
        return -1;
    if ((*width < 0) != (*height < 0)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: give width and height, or neither (then its frames size it)", who);
        return -1;
    }
    if (*width < 0) *width = *height = 0;
    return 0;
}

int satfeat_py_parse_motion_model(const char *what, const char *name, satfeat_motion_model *out)
{
    if (!strcmp(name, "homography")) *out = SATFEAT_MOTION_HOMOGRAPHY;
    else if (!strcmp(name, "affine")) *out = SATFEAT_MOTION_AFFINE;
    else if (!strcmp(name, "similarity")) *out = SATFEAT_MOTION_SIMILARITY;
    else {
        PyErr_Format(PyExc_ValueError, "%s must be 'homography', 'affine' or 'similarity', got '%s'",
                     what, name);
        return -1;
    }
    return 0;
}

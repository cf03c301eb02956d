/* functions.c - the module-level calls: satfeat.sat (summed area table), satfeat.load_gray
 * (image file to 8-bit gray) and satfeat.match (descriptor matching). Each creates a context for
 * the call, releases the GIL for the work and raises the library's message on failure. */
#include "py_common.h"

#include <stdlib.h>
#include <string.h>

PyObject *satfeat_py_sat(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"image", "backend", "device", NULL};
    PyObject *image;
    const char *backend = "cpu";
    int device = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$si:sat", kwlist, &image, &backend, &device))
        return NULL;
    satfeat_py_plane img;
    if (satfeat_py_plane_get(image, "image", "Bf", &img) < 0) return NULL;
    satfeat_ctx *ctx = NULL;
    PyObject *table = NULL;
    if (satfeat_py_ctx_new(module, backend, device, &ctx) < 0) goto done;
    if (satfeat_py_check_bytes(module, satfeat_ctx_memory_limit(ctx), "sat: the table",
                               ((size_t)img.height + 1) * ((size_t)img.width + 1), 4) < 0)
        goto done;
    npy_intp dims[2] = {(npy_intp)img.height + 1, (npy_intp)img.width + 1};
    table = PyArray_SimpleNew(2, dims, img.kind == 'B' ? NPY_UINT32 : NPY_FLOAT32);
    if (!table) goto done;
    void *dst = PyArray_DATA((PyArrayObject *)table);
    size_t dst_stride = 4 * ((size_t)img.width + 1);
    satfeat_status st;
    char msg[512] = "";
    Py_BEGIN_ALLOW_THREADS
    if (img.kind == 'B')
        st = satfeat_sat_u8(ctx, img.data, img.stride, img.width, img.height, dst, dst_stride,
                            SATFEAT_SAT_AUTO);
    else
        st = satfeat_sat_f32(ctx, img.data, img.stride, img.width, img.height, dst, dst_stride,
                             SATFEAT_SAT_AUTO);
    if (st != SATFEAT_OK) satfeat_py_copy_error(ctx, msg, sizeof msg);
    Py_END_ALLOW_THREADS
    if (st != SATFEAT_OK) {
        Py_CLEAR(table);
        satfeat_py_raise(module, st, msg);
    }
done:
    satfeat_ctx_delete(ctx);
    satfeat_py_plane_release(&img);
    return table;
}

PyObject *satfeat_py_load_gray(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"path", NULL};
    PyObject *path_bytes = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&:load_gray", kwlist, PyUnicode_FSConverter,
                                     &path_bytes))
        return NULL;
    const char *path = PyBytes_AS_STRING(path_bytes);
    PyObject *image = NULL;
    satfeat_ctx *ctx = NULL;
    satfeat_image_info info;
    char msg[512] = "";
    satfeat_status st;
    if (satfeat_py_ctx_new(module, "cpu", -1, &ctx) < 0) goto done;
    Py_BEGIN_ALLOW_THREADS
    st = satfeat_image_read_info(ctx, path, &info);
    if (st != SATFEAT_OK) satfeat_py_copy_error(ctx, msg, sizeof msg);
    Py_END_ALLOW_THREADS
    if (st != SATFEAT_OK) {
        satfeat_py_raise(module, st, msg);
        goto done;
    }
    npy_intp dims[2] = {info.height, info.width};
    image = PyArray_SimpleNew(2, dims, NPY_UINT8);
    if (!image) goto done;
    uint8_t *dst = PyArray_DATA((PyArrayObject *)image);
    Py_BEGIN_ALLOW_THREADS
    st = satfeat_image_read_gray8(ctx, path, dst, (size_t)info.width, info.width, info.height);
    if (st != SATFEAT_OK) satfeat_py_copy_error(ctx, msg, sizeof msg);
    Py_END_ALLOW_THREADS
    if (st != SATFEAT_OK) {
        Py_CLEAR(image);
        satfeat_py_raise(module, st, msg);
    }
done:
    satfeat_ctx_delete(ctx);
    Py_DECREF(path_bytes);
    return image;
}

/* Keypoints for the gates: the caller's (checked against n, angles converted) or zeroed ones
 * (no gate reads them then). A malloc'd array the caller frees; NULL with an exception. */
static satfeat_keypoint *get_keypoints(PyObject *module, PyObject *obj, const char *what, size_t n)
{
    if (obj == Py_None) {
        if (satfeat_py_check_bytes(module, satfeat_default_memory_limit(), "match: keypoints",
                                   n, sizeof(satfeat_keypoint)) < 0)
            return NULL;
        satfeat_keypoint *kp = calloc(n ? n : 1, sizeof *kp);
        if (!kp) PyErr_NoMemory();
        return kp;
    }
    size_t count = 0;
    satfeat_keypoint *kp = satfeat_py_keypoints_get(module, obj, what, &count);
    if (kp && count != n) {
        PyErr_Format(PyExc_ValueError, "%s has %zu keypoints but its descriptors have %zu rows",
                     what, count, n);
        free(kp);
        return NULL;
    }
    return kp;
}

PyObject *satfeat_py_match(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"d1", "d2", "ratio", "mutual", "kp1", "kp2", "same_laplacian",
                             "radius", "backend", "device", NULL};
    PyObject *o1, *o2, *ok1 = Py_None, *ok2 = Py_None, *result = NULL;
    satfeat_match_params mp = satfeat_match_params_default();
    const char *backend = "cpu";
    int device = -1, same_lap = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|dp$OOpdsi:match", kwlist, &o1, &o2,
                                     &mp.ratio, &mp.mutual, &ok1, &ok2, &same_lap, &mp.radius,
                                     &backend, &device))
        return NULL;
    /* The keypoints carry the Laplacian signs: given, the gate is on (the library's default);
     * without them it cannot apply. One list alone is a mistake, not a reason to drop it. */
    const int have_kp = ok1 != Py_None && ok2 != Py_None;
    if ((ok1 != Py_None) != (ok2 != Py_None)) {
        PyErr_SetString(PyExc_ValueError, "pass both kp1 and kp2 (or neither)");
        return NULL;
    }
    mp.same_laplacian = same_lap >= 0 ? same_lap : have_kp;
    if ((mp.same_laplacian || mp.radius > 0) && !have_kp) {
        PyErr_SetString(PyExc_ValueError,
                        "same_laplacian and radius need the keypoints: pass kp1 and kp2");
        return NULL;
    }
    satfeat_py_plane d1, d2;
    memset(&d2, 0, sizeof d2);
    satfeat_keypoint *kp1 = NULL, *kp2 = NULL;
    satfeat_ctx *ctx = NULL;
    satfeat_features *f1 = NULL, *f2 = NULL;
    satfeat_matches *matches = NULL;
    if (satfeat_py_matrix_get(o1, "d1", &d1) < 0) return NULL;
    if (satfeat_py_matrix_get(o2, "d2", &d2) < 0) goto done;
    if (d1.width != d2.width) {
        PyErr_Format(PyExc_ValueError, "d1 has %d columns but d2 has %d", d1.width, d2.width);
        goto done;
    }
    size_t n1 = (size_t)d1.height, n2 = (size_t)d2.height;
    if (!(kp1 = get_keypoints(module, ok1, "kp1", n1)) ||
        !(kp2 = get_keypoints(module, ok2, "kp2", n2)))
        goto done;
    if (satfeat_py_ctx_new(module, backend, device, &ctx) < 0) goto done;
    if (satfeat_py_check_bytes(module, satfeat_ctx_memory_limit(ctx), "match: results", n1,
                               sizeof(satfeat_match_pair)) < 0)
        goto done;
    if (d1.width != 64 && d1.width != 128) {
        char why[64];
        snprintf(why, sizeof why, "match: dim %d is not 64 or 128", d1.width);
        satfeat_py_raise(module, SATFEAT_ERR_ARG, why);
        goto done;
    }
    char msg[512] = "";
    satfeat_status st;
    Py_BEGIN_ALLOW_THREADS
    /* The arrays as feature sets (copies; the matcher reads no image size, so 1 x 1). */
    const satfeat_descriptor_kind kind = (satfeat_descriptor_kind)d1.width;
    st = satfeat_features_new(&f1);
    if (st == SATFEAT_OK) st = satfeat_features_new(&f2);
    if (st == SATFEAT_OK) st = satfeat_features_assign(f1, kp1, d1.data, n1, kind, 1, 1);
    if (st == SATFEAT_OK) st = satfeat_features_assign(f2, kp2, d2.data, n2, kind, 1, 1);
    if (st == SATFEAT_OK) {
        st = satfeat_match(ctx, f1, f2, &mp, &matches);
        if (st != SATFEAT_OK) satfeat_py_copy_error(ctx, msg, sizeof msg);
    }
    Py_END_ALLOW_THREADS
    if (st != SATFEAT_OK) satfeat_py_raise(module, st, msg);
    else
        result = satfeat_py_records_new(satfeat_py_state_of(module)->match_dtype,
                                        satfeat_matches_data(matches),
                                        satfeat_matches_count(matches));
done:
    satfeat_matches_delete(matches);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    free(kp1);
    free(kp2);
    satfeat_ctx_delete(ctx);
    satfeat_py_plane_release(&d1);
    satfeat_py_plane_release(&d2);
    return result;
}

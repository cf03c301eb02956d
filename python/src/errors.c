/* errors.c - library statuses as Python exceptions: one class per satfeat_status, all derived
 * from satfeat.Error and from the built-in exception a Python user would catch for that kind of
 * failure (ValueError for bad arguments, OSError for files, MemoryError for allocation...). */
#include "py_common.h"

#include <string.h>

typedef struct error_class {
    satfeat_status status;
    const char *name;    /* qualified name */
    PyObject *const *builtin; /* second base (NULL: Error only) */
    const char *doc;
} error_class;

int satfeat_py_errors_init(PyObject *module, satfeat_py_state *state)
{
    const error_class classes[] = {
        {SATFEAT_ERR_ARG, "satfeat.ArgumentError", &PyExc_ValueError,
         "SATFEAT_ERR_ARG: an argument is invalid (zero size, bad stride, bad parameter)."},
        {SATFEAT_ERR_ALLOC, "satfeat.AllocationError", &PyExc_MemoryError,
         "SATFEAT_ERR_ALLOC: host or device memory could not be allocated."},
        {SATFEAT_ERR_OVERFLOW, "satfeat.SizeOverflowError", &PyExc_OverflowError,
         "SATFEAT_ERR_OVERFLOW: a size is too large to be represented or allocated."},
        {SATFEAT_ERR_IO, "satfeat.FileIOError", &PyExc_OSError,
         "SATFEAT_ERR_IO: a file could not be opened, read or written."},
        {SATFEAT_ERR_FORMAT, "satfeat.FormatError", &PyExc_ValueError,
         "SATFEAT_ERR_FORMAT: a file is malformed, truncated or of an unsupported kind."},
        {SATFEAT_ERR_CUDA, "satfeat.CudaError", &PyExc_RuntimeError,
         "SATFEAT_ERR_CUDA: a CUDA call failed; the message names it."},
        {SATFEAT_ERR_NO_DEVICE, "satfeat.NoDeviceError", &PyExc_RuntimeError,
         "SATFEAT_ERR_NO_DEVICE: the CUDA backend was asked for but no usable device exists."},
        {SATFEAT_ERR_UNSUPPORTED, "satfeat.UnsupportedError", &PyExc_RuntimeError,
         "SATFEAT_ERR_UNSUPPORTED: the operation is not available in this build or backend."},
        {SATFEAT_ERR_CAPACITY, "satfeat.CapacityError", NULL,
         "SATFEAT_ERR_CAPACITY: an output buffer is too small."},
        {SATFEAT_ERR_NO_MODEL, "satfeat.NoModelError", NULL,
         "SATFEAT_ERR_NO_MODEL: robust estimation found no model the data supports."},
        {SATFEAT_ERR_LIMIT, "satfeat.LimitError", &PyExc_MemoryError,
         "SATFEAT_ERR_LIMIT: the call would need more host memory than the object's memory\n"
         "limit (memory_limit=, set_memory_limit()); the message gives both sizes."},
    };
    state->errors[0] = PyErr_NewExceptionWithDoc(
        "satfeat.Error",
        "Base class of every libsatfeat error. `status` holds the satfeat_status value and "
        "`status_name` its description (satfeat_status_string); the message is the library's.",
        NULL, NULL);
    if (!state->errors[0] || PyModule_AddObjectRef(module, "Error", state->errors[0]) < 0)
        return -1;
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        const error_class *c = &classes[i];
        PyObject *bases = c->builtin ? PyTuple_Pack(2, state->errors[0], *c->builtin)
                                     : PyTuple_Pack(1, state->errors[0]);
        if (!bases) return -1;
        PyObject *cls = PyErr_NewExceptionWithDoc(c->name, c->doc, bases, NULL);
        Py_DECREF(bases);
        if (!cls) return -1;
        state->errors[c->status] = cls;
        if (PyModule_AddObjectRef(module, strchr(c->name, '.') + 1, cls) < 0) return -1;
    }
    return 0;
}

PyObject *satfeat_py_raise(PyObject *module, satfeat_status status, const char *message)
{
    satfeat_py_state *state = satfeat_py_state_of(module);
    PyObject *cls = NULL;
    if (state && (int)status > 0 && (int)status < SATFEAT_PY_N_STATUS)
        cls = state->errors[status];
    if (!cls) cls = state ? state->errors[0] : PyExc_RuntimeError;
    const char *text = message && message[0] ? message : satfeat_status_string(status);
    PyObject *exc = PyObject_CallFunction(cls, "s", text);
    if (!exc) return NULL;
    PyObject *code = PyLong_FromLong((long)status);
    PyObject *name = PyUnicode_FromString(satfeat_status_string(status));
    if (!code || !name || PyObject_SetAttrString(exc, "status", code) < 0 ||
        PyObject_SetAttrString(exc, "status_name", name) < 0) {
        Py_XDECREF(code);
        Py_XDECREF(name);
        Py_DECREF(exc);
        return NULL;
    }
    Py_DECREF(code);
    Py_DECREF(name);
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
    return NULL;
}

void satfeat_py_copy_error(const satfeat_ctx *ctx, char *buf, size_t size)
{
    const char *m = ctx ? satfeat_ctx_last_error(ctx) : "";
    snprintf(buf, size, "%s", m ? m : "");
}

int satfeat_py_ctx_new(PyObject *module, const char *backend, int device, satfeat_ctx **out)
{
    satfeat_backend b;
    if (satfeat_py_parse_backend(backend, &b) < 0) return -1;
    satfeat_status st;
    Py_BEGIN_ALLOW_THREADS
    st = satfeat_ctx_new(out, b, device);
    Py_END_ALLOW_THREADS
    if (st != SATFEAT_OK) {
        char msg[160];
        snprintf(msg, sizeof msg, "cannot create a %s context on device %d: %s", backend, device,
                 satfeat_status_string(st));
        satfeat_py_raise(module, st, msg);
        return -1;
    }
    return 0;
}

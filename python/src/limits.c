/* limits.c - what a Python caller may ask of the machine: the thread cap (the CLI's rule, so
 * Detector(threads=4096) cannot start thousands of threads) and the memory budget checks that
 * come before every allocation whose size a Python argument sets (the library's own limit,
 * satfeat_ctx_memory_limit, so Python and C share one number). */
#define _DEFAULT_SOURCE /* sysconf(_SC_NPROCESSORS_ONLN) */
#include "py_common.h"

#include <stdint.h>
#include <unistd.h>

int satfeat_py_max_threads(void)
{
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const long n = cores >= 1 && cores <= 1024 ? cores : 1; /* as cli/cli_number.c */
    return (int)(SATFEAT_PY_THREADS_PER_CORE * n);
}

int satfeat_py_check_threads(const char *what, int threads)
{
    const int hi = satfeat_py_max_threads();
    if (threads >= 0 && threads <= hi) return 0;
    PyErr_Format(PyExc_ValueError,
                 "%s must be in 0 .. %d (at most %d per online core, %d cores), got %d", what, hi,
                 SATFEAT_PY_THREADS_PER_CORE, hi / SATFEAT_PY_THREADS_PER_CORE, threads);
    return -1;
}

int satfeat_py_memory_limit_arg(PyObject *obj, size_t *out)
{
    if (!obj || obj == Py_None) return 0;
    if (!PyLong_Check(obj) || PyBool_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "memory_limit must be an int (bytes), not %.80s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    const size_t v = PyLong_AsSize_t(obj);
    if (v == (size_t)-1 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError,
                            "memory_limit must be a byte count >= 0 that fits in a size_t "
                            "(0: the library's default)");
        }
        return -1;
    }
    *out = v;
    return 0;
}

int satfeat_py_check_bytes(PyObject *module, size_t limit, const char *what, size_t n,
                           size_t each)
{
    if (each && n > SIZE_MAX / each) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s: %zu items of %zu bytes do not fit in a size_t", what, n,
                 each);
        satfeat_py_raise(module, SATFEAT_ERR_OVERFLOW, msg);
        return -1;
    }
    const size_t bytes = n * each;
    if (bytes <= limit) return 0;
    char msg[256];
    snprintf(msg, sizeof msg, "%s need %zu bytes, above the memory limit of %zu bytes", what,
             bytes, limit);
    satfeat_py_raise(module, SATFEAT_ERR_LIMIT, msg);
    return -1;
}

size_t satfeat_py_set_memory_limit(PyObject *module, satfeat_ctx *ctx, PyThread_type_lock lock,
                                   PyObject *arg)
{
    size_t bytes = 0;
    if (arg == Py_None) {
        PyErr_SetString(PyExc_TypeError, "memory_limit must be an int (bytes), not None");
        return (size_t)-1;
    }
    if (satfeat_py_memory_limit_arg(arg, &bytes) < 0) return (size_t)-1;
    satfeat_status st;
    size_t now = 0;
    char msg[512] = "";
    /* The context is the library object's: change it only between two calls (the lock). */
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(lock, WAIT_LOCK);
    st = satfeat_ctx_set_memory_limit(ctx, bytes);
    if (st == SATFEAT_OK) now = satfeat_ctx_memory_limit(ctx);
    else satfeat_py_copy_error(ctx, msg, sizeof msg);
    PyThread_release_lock(lock);
    Py_END_ALLOW_THREADS
    if (st != SATFEAT_OK) {
        satfeat_py_raise(module, st, msg);
        return (size_t)-1;
    }
    return now;
}

int satfeat_py_owner_open(satfeat_py_owner *o, const char *backend, int device, int threads,
                          size_t limit)
{
    if (!(o->module = satfeat_py_module())) return -1;
    if (!(o->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        return -1;
    }
    if (satfeat_py_ctx_new(o->module, backend, device, &o->ctx) < 0) return -1;
    satfeat_status st = satfeat_ctx_set_threads(o->ctx, threads);
    if (st == SATFEAT_OK) st = satfeat_ctx_set_memory_limit(o->ctx, limit);
    if (st != SATFEAT_OK) {
        satfeat_py_raise(o->module, st, satfeat_ctx_last_error(o->ctx));
        return -1;
    }
    return 0;
}

void satfeat_py_owner_close(satfeat_py_owner *o)
{
    satfeat_ctx_delete(o->ctx);
    o->ctx = NULL;
    if (o->lock) PyThread_free_lock(o->lock);
    o->lock = NULL;
    Py_CLEAR(o->module);
}

satfeat_status satfeat_py_owner_call(satfeat_py_owner *o, satfeat_py_locked_fn fn, void *arg,
                                     char *msg, size_t size)
{
    satfeat_status st;
    /* Never wait for the lock with the GIL held: its holder may be waiting for the GIL. */
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(o->lock, WAIT_LOCK);
    st = fn(arg);
    if (st != SATFEAT_OK && msg) satfeat_py_copy_error(o->ctx, msg, size);
    PyThread_release_lock(o->lock);
    Py_END_ALLOW_THREADS
    return st;
}

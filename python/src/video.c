/* video.c - satfeat.VideoReader: the frames of a video file (satfeat_video_*) as 2-D uint8 NumPy
 * arrays, an iterator and a context manager. Reads release the GIL and hold the object's lock, so
 * one reader may be shared by threads (each frame goes to one of them). */
#include "py_common.h"

#include <string.h>

typedef struct video_object {
    PyObject_HEAD
    PyObject *module;
    satfeat_ctx *ctx;
    satfeat_video *video;
    PyThread_type_lock lock;
    satfeat_video_info info;
    long long frames; /* most frames to hand out, -1 = to the end */
    long long step;
    long long handed;
} video_object;

/* Frees what the object owns (all of it, or what a failed __init__ left). */
static void video_release(video_object *self)
{
    satfeat_video_delete(self->video);
    self->video = NULL;
    satfeat_ctx_delete(self->ctx);
    self->ctx = NULL;
    if (self->lock) PyThread_free_lock(self->lock);
    self->lock = NULL;
    Py_CLEAR(self->module);
}

static void video_dealloc(video_object *self)
{
    video_release(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int video_init(video_object *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"path", "start", "frames", "step", "threads", NULL};
    PyObject *path_obj = NULL, *frames_obj = Py_None;
    long long start = 0, step = 1;
    int threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|LOLi:VideoReader", kwlist,
                                     PyUnicode_FSConverter, &path_obj, &start, &frames_obj,
                                     &step, &threads))
        return -1;
    video_release(self);
    self->frames = -1;
    if (frames_obj != Py_None) {
        self->frames = PyLong_AsLongLong(frames_obj);
        if (self->frames == -1 && PyErr_Occurred()) {
            Py_DECREF(path_obj);
            return -1;
        }
    }
    if (start < 0 || step < 1 || (frames_obj != Py_None && self->frames < 0)) {
        Py_DECREF(path_obj);
        PyErr_SetString(PyExc_ValueError, "VideoReader: start must be >= 0, step >= 1 and frames "
                                          "None or >= 0");
        return -1;
    }
    self->step = step;
    self->handed = 0;
    if (!(self->module = satfeat_py_module()) || !(self->lock = PyThread_allocate_lock())) {
        Py_DECREF(path_obj);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return -1;
    }
    if (satfeat_py_ctx_new(self->module, "cpu", -1, &self->ctx) < 0) {
        Py_DECREF(path_obj);
        return -1;
    }
    const char *path = PyBytes_AS_STRING(path_obj);
    satfeat_status st = satfeat_ctx_set_threads(self->ctx, threads);
    Py_BEGIN_ALLOW_THREADS
    if (st == SATFEAT_OK) st = satfeat_video_open(self->ctx, path, 0, &self->video);
    if (st == SATFEAT_OK) st = satfeat_video_get_info(self->video, &self->info);
    if (st == SATFEAT_OK && start > 0) st = satfeat_video_seek(self->video, start);
    Py_END_ALLOW_THREADS
    Py_DECREF(path_obj);
    if (st != SATFEAT_OK) {
        satfeat_py_raise(self->module, st, satfeat_ctx_last_error(self->ctx));
        video_release(self);
        return -1;
    }
    return 0;
}

/* Raises ValueError for a closed (or never opened) reader; 0 when open. */
static int check_open(video_object *self)
{
    if (self->video) return 0;
    PyErr_SetString(PyExc_ValueError, "I/O operation on a closed VideoReader");
    return -1;
}

static PyObject *video_next(video_object *self)
{
    if (check_open(self) < 0) return NULL;
    if (self->frames >= 0 && self->handed >= self->frames) return NULL; /* StopIteration */
    npy_intp dims[2] = {self->info.height, self->info.width};
    PyObject *arr = PyArray_SimpleNew(2, dims, NPY_UINT8);
    if (!arr) return NULL;
    uint8_t *dst = PyArray_DATA((PyArrayObject *)arr);
    char msg[512] = "";
    int got = 0;
    satfeat_status st = SATFEAT_OK;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    if (self->handed > 0 && self->step > 1)
        st = satfeat_video_seek(self->video, satfeat_video_tell(self->video) + self->step - 1);
    if (st == SATFEAT_OK)
        st = satfeat_video_read_gray8(self->video, dst, (size_t)self->info.width, &got);
    if (st != SATFEAT_OK) satfeat_py_copy_error(self->ctx, msg, sizeof msg);
    if (st == SATFEAT_OK && got) self->handed++;
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    if (st != SATFEAT_OK || !got) {
        Py_DECREF(arr);
        return st != SATFEAT_OK ? satfeat_py_raise(self->module, st, msg) : NULL;
    }
    return arr;
}

static PyObject *video_close(video_object *self, PyObject *unused)
{
    (void)unused;
    if (self->lock) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(self->lock, WAIT_LOCK); /* a read in another thread finishes first */
        Py_END_ALLOW_THREADS
        satfeat_video_delete(self->video);
        self->video = NULL;
        PyThread_release_lock(self->lock);
    }
    Py_RETURN_NONE;
}

static PyObject *video_enter(video_object *self, PyObject *unused)
{
    (void)unused;
    if (check_open(self) < 0) return NULL;
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *video_exit(video_object *self, PyObject *args)
{
    (void)args;
    PyObject *r = video_close(self, NULL);
    Py_XDECREF(r);
    if (!r) return NULL;
    Py_RETURN_FALSE;
}

static PyObject *video_iter(video_object *self)
{
    if (check_open(self) < 0) return NULL;
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *get_width(video_object *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(self->info.width);
}

static PyObject *get_height(video_object *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(self->info.height);
}

static PyObject *get_frame_count(video_object *self, void *closure)
{
    (void)closure;
    if (self->info.frame_count <= 0) Py_RETURN_NONE;
    return PyLong_FromLongLong(self->info.frame_count);
}

static PyObject *get_fps(video_object *self, void *closure)
{
    (void)closure;
    if (self->info.fps <= 0) Py_RETURN_NONE;
    return PyFloat_FromDouble(self->info.fps);
}

static PyObject *get_codec(video_object *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(self->info.codec);
}

static PyObject *get_position(video_object *self, void *closure)
{
    (void)closure;
    if (check_open(self) < 0) return NULL;
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    const long long at = (long long)satfeat_video_tell(self->video);
    PyThread_release_lock(self->lock);
    return PyLong_FromLongLong(at);
}

static PyObject *get_closed(video_object *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(self->video == NULL);
}

static PyGetSetDef video_getset[] = {
    {"width", (getter)get_width, NULL, "frame width in pixels", NULL},
    {"height", (getter)get_height, NULL, "frame height in pixels", NULL},
    {"frame_count", (getter)get_frame_count, NULL,
     "frames in the file as the container says (stored, or duration x fps: an estimate), None "
     "when unknown; not reduced by start, frames or step", NULL},
    {"fps", (getter)get_fps, NULL, "frames per second, None when unknown", NULL},
    {"codec", (getter)get_codec, NULL, "FFmpeg's short codec name", NULL},
    {"position", (getter)get_position, NULL,
     "the video's 0-based number of the frame the next read would return", NULL},
    {"closed", (getter)get_closed, NULL, "True after close()", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef video_methods[] = {
    {"close", (PyCFunction)video_close, METH_NOARGS,
     "close($self)\n--\n\nCloses the file (again: nothing). Reading after it raises ValueError."},
    {"__enter__", (PyCFunction)video_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)video_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

PyTypeObject satfeat_py_video_reader_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "satfeat.VideoReader",
    .tp_basicsize = sizeof(video_object),
    .tp_dealloc = (destructor)video_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "VideoReader(path, start=0, frames=None, step=1, threads=0)\n--\n\n"
        "The frames of a local video file (satfeat_video_*: FFmpeg) as 2-D uint8 arrays of\n"
        "height x width, 8-bit gray (a gray source bit for bit, a YUV source's luma expanded to\n"
        "full range). Iterating yields the video's frames start, start+step, ... (0-based), at\n"
        "most `frames` of them (None: to the end). A context manager; close() ends it. Errors\n"
        "raise the module's exceptions: FileIOError for a missing file or a FIFO, FormatError\n"
        "for a non-video, a corrupt or truncated stream, UnsupportedError when the library was\n"
        "built without video support. Reads release the GIL and hold the reader's lock, so\n"
        "threads may share a reader (each frame goes to one of them).",
    .tp_methods = video_methods,
    .tp_getset = video_getset,
    .tp_init = (initproc)video_init,
    .tp_new = PyType_GenericNew,
    .tp_iter = (getiterfunc)video_iter,
    .tp_iternext = (iternextfunc)video_next,
};

/* module.c - the extension module satfeat._satfeat: its state, its functions with their
 * docstrings, its types and the import-time set-up (NumPy API, exceptions, dtypes). The Python
 * package satfeat re-exports all of it. */
#define SATFEAT_PY_MODULE_MAIN
#include "py_common.h"

static PyObject *py_version(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyUnicode_FromString(satfeat_version_string());
}

static PyObject *py_has_cuda_build(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyBool_FromLong(satfeat_has_cuda_build());
}

static PyObject *py_cuda_device_count(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    int n;
    Py_BEGIN_ALLOW_THREADS
    n = satfeat_cuda_device_count();
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(n);
}

static PyObject *py_detector_defaults(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    satfeat_detector_params p = satfeat_detector_params_default();
    return satfeat_py_detector_params_dict(&p);
}

static PyMethodDef module_methods[] = {
    {"sat", SATFEAT_PY_KW(satfeat_py_sat), METH_VARARGS | METH_KEYWORDS,
     "sat(image, *, backend='cpu', device=-1)\n--\n\n"
     "Summed area table of a 2-D image: uint8 -> uint32, float32 -> float32. The table has\n"
     "(height+1) x (width+1) entries: row 0 and column 0 are zero and entry [y, x] is the sum of\n"
     "the pixels with x' < x and y' < y, so any box sum is four reads (the layout of OpenCV's\n"
     "cv::integral). uint32 sums wrap modulo 2^32, so a box sum taken from four entries is\n"
     "exact whenever the true sum fits in 32 bits; float32 tables are accumulated in double on\n"
     "the CPU and rounded once per entry (docs/PRECISION.md). Any 2-D buffer with contiguous\n"
     "rows is accepted (a NumPy array, an OpenCV image, a row slice). backend 'cuda' runs on the\n"
     "GPU with bit-identical uint32 results. The GIL is released during the work."},
    {"load_gray", SATFEAT_PY_KW(satfeat_py_load_gray), METH_VARARGS | METH_KEYWORDS,
     "load_gray(path)\n--\n\n"
     "Reads a PNG, JPEG, PGM or PPM file (recognised by content, not name) as 8-bit gray: a uint8\n"
     "array of shape (height, width). Samples are scaled to 8 bits by round(v * 255 / maxval),\n"
     "colour becomes gray by Y = (77 R + 150 G + 29 B + 128) >> 8, alpha is ignored; a JPEG\n"
     "gives its decoder's luma channel, upright by its EXIF orientation.\n"
     "FileIOError (an OSError) when the file cannot be read, FormatError (a ValueError) when it\n"
     "is malformed or of another kind, SizeOverflowError above 65536 a side or 2^30 pixels."},
    {"match", SATFEAT_PY_KW(satfeat_py_match), METH_VARARGS | METH_KEYWORDS,
     "match(d1, d2, ratio=0.8, mutual=True, *, kp1=None, kp2=None, same_laplacian=None,\n"
     "      radius=0.0, backend='cpu', device=-1)\n--\n\n"
     "Brute-force matching of descriptors d1 (n1 x dim) against d2 (n2 x dim), float32,\n"
     "C-contiguous, dim 64 or 128. For each query the nearest train descriptor (squared L2 in a\n"
     "fixed order of operations, ties to the smaller index) is kept when Lowe's ratio test\n"
     "passes (best < ratio^2 * second on squared distances; ratio 1 disables it) and, with\n"
     "mutual, when the query is also the train's nearest. Pass kp1 and kp2 (the keypoint arrays\n"
     "the descriptors came with) whenever you have them: the Laplacian-sign gate (compare only\n"
     "keypoints of the same sign, the C library's default) is then on unless same_laplacian=False,\n"
     "and radius > 0 keeps only train keypoints within radius px of the query's position. Without\n"
     "keypoints the signs are unknown, so there is no gate (plain nearest neighbours); one of the\n"
     "two alone is a ValueError.\n"
     "Returns an array of satfeat.match_dtype records (query, train, distance) in ascending\n"
     "query order, at most one per query: satfeat_match bit for bit."},
    {"estimate_motion", SATFEAT_PY_KW(satfeat_py_estimate_motion), METH_VARARGS | METH_KEYWORDS,
     "estimate_motion(kp1, kp2, matches, *, model='homography', threshold=3.0,\n"
     "                max_iterations=2000, confidence=0.999, seed=None, refine=True)\n--\n\n"
     "The 2-D motion that maps keypoints kp1 onto kp2 (keypoint_dtype arrays, as detect()\n"
     "gives them) through their matches (a match_dtype array, as match(d1, d2, ...) gives:\n"
     "query indexes kp1, train kp2): satfeat_estimate_motion_matches, bit for bit. Samples are\n"
     "minimal (4 matches for a homography, 3 affine, 2 similarity), drawn PROSAC-fashion, the\n"
     "closest descriptors first (quality 1 / (distance + 0.001)), from a seeded generator (None:\n"
     "the library's fixed seed), scored by MSAC with `threshold` px on the forward error; the\n"
     "best model is refined on its inliers (least squares, Levenberg-Marquardt for the\n"
     "homography) unless refine=False. model: 'homography', 'affine' or 'similarity'.\n"
     "Returns a satfeat.MotionEstimate, the pair (h, mask) as cv2.findHomography gives (H,\n"
     "mask): h float64 (3, 3) with h[2, 2] = 1 (last row 0 0 1 for affine and similarity), mask\n"
     "bool (n,) in match order; its attributes inliers, rms_error (px) and iterations.\n"
     "NoModelError when no model has at least twice the minimal sample of inliers (fewer\n"
     "matches included); ArgumentError for bad parameters or a match outside the keypoint\n"
     "arrays. Runs on the CPU; the GIL is released during the work."},
    {"version", py_version, METH_NOARGS,
     "version()\n--\n\nThe library version as 'MAJOR.MINOR.PATCH'."},
    {"has_cuda_build", py_has_cuda_build, METH_NOARGS,
     "has_cuda_build()\n--\n\nTrue when this build of the library contains the CUDA backend."},
    {"cuda_device_count", py_cuda_device_count, METH_NOARGS,
     "cuda_device_count()\n--\n\nThe number of usable CUDA devices (0 without any or without CUDA)."},
    {"detector_defaults", py_detector_defaults, METH_NOARGS,
     "detector_defaults()\n--\n\nThe default detector parameters as a dict (the keywords of "
     "Detector)."},
    {NULL, NULL, 0, NULL},
};

static int module_traverse(PyObject *module, visitproc visit, void *arg)
{
    satfeat_py_state *s = satfeat_py_state_of(module);
    if (!s) return 0;
    for (int i = 0; i < SATFEAT_PY_N_STATUS; i++) Py_VISIT(s->errors[i]);
    Py_VISIT(s->keypoint_dtype);
    Py_VISIT(s->match_dtype);
    Py_VISIT(s->track_dtype);
    Py_VISIT(s->track_result_type);
    Py_VISIT(s->motion_estimate_type);
    return 0;
}

static int module_clear(PyObject *module)
{
    satfeat_py_state *s = satfeat_py_state_of(module);
    if (!s) return 0;
    for (int i = 0; i < SATFEAT_PY_N_STATUS; i++) Py_CLEAR(s->errors[i]);
    Py_CLEAR(s->keypoint_dtype);
    Py_CLEAR(s->match_dtype);
    Py_CLEAR(s->track_dtype);
    Py_CLEAR(s->track_result_type);
    Py_CLEAR(s->motion_estimate_type);
    return 0;
}

static void module_free(void *module)
{
    module_clear((PyObject *)module);
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "satfeat._satfeat",
    .m_doc = "The C extension behind the satfeat package (see help(satfeat)).",
    .m_size = sizeof(satfeat_py_state),
    .m_methods = module_methods,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

satfeat_py_state *satfeat_py_state_of(PyObject *module)
{
    return module ? (satfeat_py_state *)PyModule_GetState(module) : NULL;
}

PyObject *satfeat_py_module(void)
{
    PyObject *m = PyState_FindModule(&module_def);
    if (m) {
        Py_INCREF(m);
        return m;
    }
    return PyImport_ImportModule("satfeat._satfeat");
}

PyMODINIT_FUNC PyInit__satfeat(void);

PyMODINIT_FUNC PyInit__satfeat(void)
{
    import_array();
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    satfeat_py_state *s = satfeat_py_state_of(m);
    if (satfeat_py_errors_init(m, s) < 0 || satfeat_py_dtypes_init(m, s) < 0 ||
        satfeat_py_results_init(m, s) < 0 ||
        PyType_Ready(&satfeat_py_detector_type) < 0 || PyType_Ready(&satfeat_py_tracker_type) < 0 ||
        PyType_Ready(&satfeat_py_pool_type) < 0 || PyType_Ready(&satfeat_py_video_reader_type) < 0 ||
        PyType_Ready(&satfeat_py_ar_session_type) < 0 ||
        PyModule_AddObjectRef(m, "Detector", (PyObject *)&satfeat_py_detector_type) < 0 ||
        PyModule_AddObjectRef(m, "Tracker", (PyObject *)&satfeat_py_tracker_type) < 0 ||
        PyModule_AddObjectRef(m, "Pool", (PyObject *)&satfeat_py_pool_type) < 0 ||
        PyModule_AddObjectRef(m, "VideoReader", (PyObject *)&satfeat_py_video_reader_type) < 0 ||
        PyModule_AddObjectRef(m, "ARSession", (PyObject *)&satfeat_py_ar_session_type) < 0 ||
        PyModule_AddStringConstant(m, "__version__", satfeat_version_string()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

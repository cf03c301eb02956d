/* results.c - the named results of the calls that give more than one object: TrackResult
 * (Tracker.track) and MotionEstimate (estimate_motion). Each is a struct sequence whose tuple
 * part is the pair most code unpacks (tracks, motion / h, mask, as cv2.findHomography gives
 * H, mask) and whose other fields are attributes only, so a call has one return shape whatever
 * its keywords ask for. */
#include "py_common.h"

static PyStructSequence_Field track_fields[] = {
    {"tracks", "the live tracks: satfeat.track_dtype records in ascending id order"},
    {"motion", "the frame's motion: a dict (frame, valid, ref_valid, h_prev, h_ref, keypoints,\n"
               "matches, inliers, rms_error, born, ended)"},
    {"descriptors", "float32 (n, dim): each track's last descriptor, with descriptors=True; else\n"
                    "None (an attribute, not part of the pair)"},
    {NULL, NULL},
};

static PyStructSequence_Desc track_desc = {
    "satfeat.TrackResult",
    "What Tracker.track returns: the pair (tracks, motion) with the attribute descriptors.",
    track_fields,
    2,
};

static PyStructSequence_Field motion_fields[] = {
    {"h", "float64 (3, 3): the map from kp1's positions to kp2's, h[2, 2] = 1"},
    {"mask", "bool (n,): True for each match that is an inlier under h, in match order"},
    {"inliers", "the number of inliers (an attribute, not part of the pair)"},
    {"rms_error", "root mean square forward error of the inliers in px (an attribute)"},
    {"iterations", "samples drawn (an attribute)"},
    {NULL, NULL},
};

static PyStructSequence_Desc motion_desc = {
    "satfeat.MotionEstimate",
    "What estimate_motion returns: the pair (h, mask), as cv2.findHomography gives H, mask,\n"
    "with the attributes inliers, rms_error and iterations.",
    motion_fields,
    2,
};

int satfeat_py_results_init(PyObject *module, satfeat_py_state *state)
{
    state->track_result_type = PyStructSequence_NewType(&track_desc);
    state->motion_estimate_type = PyStructSequence_NewType(&motion_desc);
    if (!state->track_result_type || !state->motion_estimate_type) return -1;
    if (PyModule_AddObjectRef(module, "TrackResult", (PyObject *)state->track_result_type) < 0 ||
        PyModule_AddObjectRef(module, "MotionEstimate",
                              (PyObject *)state->motion_estimate_type) < 0)
        return -1;
    return 0;
}

/* A new struct sequence of `type` holding the n references in items (stolen, NULL allowed:
 * then they are all released and NULL is returned with the exception already set). */
static PyObject *pack(PyTypeObject *type, PyObject **items, int n)
{
    PyObject *r = NULL;
    int complete = 1;
    for (int i = 0; i < n; i++) complete &= items[i] != NULL;
    if (complete) r = PyStructSequence_New(type);
    for (int i = 0; i < n; i++) {
        if (r) PyStructSequence_SetItem(r, i, items[i]); /* steals it */
        else Py_XDECREF(items[i]);
    }
    return r;
}

PyObject *satfeat_py_track_result(PyObject *module, PyObject *tracks, PyObject *motion,
                                  PyObject *descriptors)
{
    PyObject *items[] = {tracks, motion, descriptors};
    return pack(satfeat_py_state_of(module)->track_result_type, items, 3);
}

PyObject *satfeat_py_motion_estimate(PyObject *module, PyObject *h, PyObject *mask,
                                     const satfeat_motion *m)
{
    PyObject *items[] = {h, mask, PyLong_FromSize_t(m->inliers), PyFloat_FromDouble(m->rms_error),
                         PyLong_FromLong(m->iterations)};
    return pack(satfeat_py_state_of(module)->motion_estimate_type, items, 5);
}

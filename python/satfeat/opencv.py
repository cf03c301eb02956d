"""Conversions between satfeat's record arrays and OpenCV's cv2.KeyPoint / cv2.DMatch lists, so
our features go into cv2.drawKeypoints, cv2.drawMatches, cv2.BFMatcher results and back.

The fields map one to one, because our keypoints already follow OpenCV's SURF conventions:

    KeyPoint.pt        (x, y)      pixel centres at integer coordinates, as ours
    KeyPoint.size      size        the Fast-Hessian filter side L in pixels, the value OpenCV's
                                   SURF puts there (it rounds it to an integer; ours is the
                                   interpolated L); sigma = 1.2 * size / 9
    KeyPoint.angle     angle       degrees in [0, 360), clockwise from the x axis on screen
                                   (atan2 of the y-down gradient sums, as OpenCV's SURF); an
                                   upright keypoint has 0 (OpenCV's upright SURF reports 270)
    KeyPoint.response  response    the normalised determinant (not OpenCV's scale: docs/PYTHON.md,
                                   "hessianThreshold")
    KeyPoint.octave    octave      0-based octave, as OpenCV's SURF
    KeyPoint.class_id  laplacian   the Laplacian sign (-1 bright blob, +1 dark blob), where
                                   OpenCV's SURF puts it

    DMatch.queryIdx, trainIdx, distance  <->  query, train, distance

cv2 stores float32, so a round trip rounds x, y, size, angle and response to float32. cv2 is
imported only by the calls that build cv2 objects (to_cv_*), and only then needed.
"""
import numpy as np

from ._satfeat import keypoint_dtype, match_dtype, track_dtype

__all__ = ["to_cv_keypoints", "from_cv_keypoints", "to_cv_matches", "from_cv_matches"]


def _cv2(what):
    """OpenCV's module, or an ImportError that says what needs it and how to get it."""
    try:
        import cv2
    except ImportError as e:
        raise ImportError(f"satfeat.{what} needs OpenCV's Python module cv2, which is not "
                          "installed (Debian: apt-get install python3-opencv; pip: opencv-python); "
                          "satfeat itself does not need it") from e
    return cv2


def _f32(column):
    """A column as the float32 values cv2 will store, as Python floats."""
    return np.asarray(column, dtype=np.float32).tolist()


def to_cv_keypoints(keypoints):
    """A list of cv2.KeyPoint from keypoint_dtype records (Detector.detect) or track_dtype
    records (Tracker.track: response and octave 0), field for field as the module docstring
    says. An angle that rounds up to 360 in float32 becomes 0."""
    cv2 = _cv2("to_cv_keypoints")
    kp = np.asarray(keypoints)
    if kp.dtype not in (keypoint_dtype, track_dtype) or kp.ndim != 1:
        raise ValueError("to_cv_keypoints takes a 1-D array of satfeat.keypoint_dtype or "
                         f"satfeat.track_dtype records, got {kp.ndim}-D {kp.dtype}")
    n = len(kp)
    angle = np.asarray(kp["angle"], dtype=np.float32)
    angle[angle >= np.float32(360)] -= np.float32(360)
    is_kp = kp.dtype == keypoint_dtype
    response = _f32(kp["response"]) if is_kp else [0.0] * n
    octave = kp["octave"].tolist() if is_kp else [0] * n
    return [cv2.KeyPoint(x, y, size, a, r, o, c) for x, y, size, a, r, o, c in zip(
        _f32(kp["x"]), _f32(kp["y"]), _f32(kp["size"]), angle.tolist(), response, octave,
        kp["laplacian"].tolist())]


def from_cv_keypoints(keypoints):
    """keypoint_dtype records from a sequence of cv2.KeyPoint (any detector's). sigma is
    1.2 * size / 9; an angle of -1 (OpenCV's "not applicable") becomes 0 and others are taken
    modulo 360; laplacian is class_id (other detectors than SURF leave -1 there, so their
    keypoints all count as one sign for match()'s gate); octave is copied as it is (SIFT packs
    its layer into it); layer, sample_x and sample_y, which OpenCV does not have, are 0. Needs no
    cv2 (the objects are read by their attributes)."""
    kps = list(keypoints)
    out = np.zeros(len(kps), dtype=keypoint_dtype)
    if not kps:
        return out
    out["x"] = [k.pt[0] for k in kps]
    out["y"] = [k.pt[1] for k in kps]
    out["size"] = [k.size for k in kps]
    out["sigma"] = out["size"] * 1.2 / 9.0
    out["response"] = [k.response for k in kps]
    angle = np.array([k.angle for k in kps], dtype=np.float64)
    angle[angle < 0] = 0.0
    out["angle"] = np.mod(angle, 360.0)
    out["laplacian"] = [k.class_id for k in kps]
    out["octave"] = [k.octave for k in kps]
    return out


def to_cv_matches(matches):
    """A list of cv2.DMatch(queryIdx=query, trainIdx=train, distance) from match_dtype records
    (satfeat.match), in their order; imgIdx is 0."""
    cv2 = _cv2("to_cv_matches")
    m = np.asarray(matches)
    if m.dtype != match_dtype or m.ndim != 1:
        raise ValueError("to_cv_matches takes a 1-D array of satfeat.match_dtype records, got "
                         f"{m.ndim}-D {m.dtype}")
    return [cv2.DMatch(q, t, d) for q, t, d in zip(m["query"].tolist(), m["train"].tolist(),
                                                   m["distance"].tolist())]


def from_cv_matches(matches):
    """match_dtype records from a sequence of cv2.DMatch (BFMatcher.match, say; for knnMatch
    pick one DMatch per query first), in their order, for estimate_motion. Needs no cv2."""
    ms = list(matches)
    out = np.zeros(len(ms), dtype=match_dtype)
    if ms:
        out["query"] = [m.queryIdx for m in ms]
        out["train"] = [m.trainIdx for m in ms]
        out["distance"] = [m.distance for m in ms]
    return out

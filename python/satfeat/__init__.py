"""libsatfeat from Python: summed area tables, SURF-style keypoints and descriptors, matching,
robust motion and tracking, on the CPU or on CUDA GPUs.

The work is done by the C library (include/satfeat.h) through the extension satfeat._satfeat;
results are bit for bit those of the C calls. Images are any 2-D uint8 buffer with contiguous
rows (a NumPy array, an OpenCV image, a row slice of either); the GIL is released while the
library works, so threads run in parallel.

    sat(image)                         summed area table (uint8 -> uint32, float32 -> float32)
    load_gray(path)                    PNG / JPEG / PGM / PPM file -> uint8 (height, width)
    VideoReader(path, start, frames, step)  a video file's frames -> uint8 (height, width) each
    Detector(width=None, height=None, ...)  Fast-Hessian keypoints (+ SURF descriptors) per
                                       frame; without a size it sizes itself by its frames
    match(d1, d2, ratio, mutual, kp1=, kp2=)  brute-force descriptor matching (the Laplacian
                                       gate on whenever kp1 and kp2 are given)
    estimate_motion(kp1, kp2, matches, model=...)  robust homography / affine / similarity:
                                       (h, mask) like cv2.findHomography
    Tracker(width=None, height=None, ...)   frame-to-frame tracking; track() gives a TrackResult
                                       (tracks, motion), motion["frame"] counted from 1 as the CLI
    Pool(width=None, height=None, ...) a list of frames spread over several GPUs (or CPU workers)
    ARSession(targets, width, height, camera_matrix=...)  known planar targets and the camera's
                                       pose per frame (rvec, tvec as cv2.solvePnP gives them)
    to_cv_keypoints / from_cv_keypoints / to_cv_matches / from_cv_matches
                                       cv2.KeyPoint and cv2.DMatch lists (cv2 optional)
    python3 -m satfeat.batch ...       features of an image collection on a Dask cluster

Conventions, as OpenCV's: positions in pixels with pixel centres at integer coordinates; a
keypoint's `size` is the filter side L in pixels (OpenCV's SURF KeyPoint.size); `angle` (of
keypoints and tracks) is in degrees in [0, 360), clockwise from the x axis on screen (OpenCV's
KeyPoint.angle; the C library holds radians, the module converts both ways); `laplacian` is the
Laplacian sign (OpenCV's SURF puts it in class_id). `threshold` is not cv2's hessianThreshold
(docs/PYTHON.md has the measured correspondence).

Every library failure raises a subclass of satfeat.Error that also derives from the matching
built-in exception (ArgumentError is a ValueError, FileIOError an OSError, AllocationError and
LimitError MemoryErrors, ...), with the library's message and the status in `.status`.
Type stubs (satfeat/__init__.pyi, PEP 561) describe the whole API for editors and type checkers.
"""
import sys as _sys

try:
    from ._satfeat import (  # noqa: F401  (re-exported API)
        AllocationError,
        ARSession,
        ArgumentError,
        CapacityError,
        CudaError,
        Detector,
        Error,
        FileIOError,
        FormatError,
        LimitError,
        MotionEstimate,
        NoDeviceError,
        NoModelError,
        Pool,
        SizeOverflowError,
        Tracker,
        TrackResult,
        UnsupportedError,
        VideoReader,
        __version__,
        cuda_device_count,
        detector_defaults,
        estimate_motion,
        has_cuda_build,
        keypoint_dtype,
        load_gray,
        match,
        match_dtype,
        sat,
        track_dtype,
        version,
    )
except ImportError as _e:  # another interpreter than the one the module was built for
    raise ImportError(
        f"satfeat: cannot load its C extension in {_sys.executable} ({_e}); it needs NumPy and "
        "the interpreter CMake built it for (Debian's /usr/bin/python3 unless -DPython3_EXECUTABLE "
        "said otherwise; docs/PYTHON.md)") from _e

from .opencv import from_cv_keypoints, from_cv_matches, to_cv_keypoints, to_cv_matches  # noqa: E402

__all__ = [
    "AllocationError", "ARSession", "ArgumentError", "CapacityError", "CudaError", "Detector", "Error",
    "FileIOError", "FormatError", "LimitError", "MotionEstimate", "NoDeviceError", "NoModelError",
    "Pool", "SizeOverflowError", "TrackResult", "Tracker", "UnsupportedError", "VideoReader",
    "cuda_device_count", "detector_defaults", "estimate_motion", "from_cv_keypoints",
    "from_cv_matches", "has_cuda_build", "keypoint_dtype", "load_gray", "match", "match_dtype",
    "sat", "to_cv_keypoints", "to_cv_matches", "track_dtype", "version",
]

#!/usr/bin/env python3
"""opencv_features.py - OpenCV's features of the evaluation sequences, for satfeat_eval_quality
--features (docs/EVALUATION.md). A measuring tool only: Debian's python3-opencv, never a
dependency of the library (run it with /usr/bin/python3).

Every image keeps its TARGET strongest keypoints, as libsatfeat's images do (threshold 0, then
max_keypoints): SIFT with contrastThreshold 0 and ORB with fastThreshold 1 through
nfeatures=TARGET, KAZE and AKAZE detected with threshold 1e-5 and cut to the TARGET largest
responses before their descriptors are computed (their default thresholds leave a few hundred
keypoints on the softer sets). `siftdefault` is SIFT at its default contrastThreshold (0.04)
with nfeatures=TARGET: at most TARGET, fewer on soft images. SURF is not in Debian's OpenCV build (non-free module).

File format of DIR/SET/frameK.feat: the line "satfeat-features N DIM KIND" (KIND f32: DIM
float32 values per keypoint; bits: DIM bytes, Hamming distance), then N records of five
little-endian float64 (x, y, size, angle in radians, response), then the N descriptors.

usage: /usr/bin/python3 opencv_features.py OUTDIR METHOD[,METHOD...] SETDIR... [--target 2000]
"""
import argparse
import os
import sys

import cv2
import numpy as np


def detector(method, target):
    if method == "sift":
        return cv2.SIFT_create(nfeatures=target, contrastThreshold=0.0), False
    if method == "siftdefault":
        return cv2.SIFT_create(nfeatures=target), False
    if method == "orb":
        return cv2.ORB_create(nfeatures=target, fastThreshold=1), False
    if method == "akaze":
        return cv2.AKAZE_create(threshold=1e-5), True
    if method == "kaze":
        return cv2.KAZE_create(threshold=1e-5), True
    raise SystemExit("unknown method %s" % method)


def features(img, method, target):
    det, cut = detector(method, target)
    kps = det.detect(img, None)
    if cut:
        kps = sorted(kps, key=lambda k: -k.response)[:target]
    kps, desc = det.compute(img, kps)
    if desc is None:
        desc = np.zeros((0, 32), np.uint8)
    return kps, desc


def write(path, kps, desc):
    binary = desc.dtype == np.uint8
    rec = np.array([[k.pt[0], k.pt[1], k.size, np.deg2rad(k.angle) if k.angle >= 0 else 0.0,
                     k.response] for k in kps], dtype="<f8").reshape(-1, 5)
    with open(path, "wb") as f:
        f.write(b"satfeat-features %d %d %s\n" % (len(kps), desc.shape[1] if len(kps) else 1,
                                                   b"bits" if binary else b"f32"))
        f.write(rec.tobytes())
        f.write(np.ascontiguousarray(desc, dtype=np.uint8 if binary else "<f4").tobytes())


def frames(d):
    if os.path.exists(os.path.join(d, "img1.pgm")):
        return [os.path.join(d, "img%d.pgm" % k) for k in range(1, 7)]
    return [os.path.join(d, "frame%03d.png" % k) for k in range(1, 7)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("methods")
    ap.add_argument("sets", nargs="+")
    ap.add_argument("--target", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    cv2.setNumThreads(a.threads)
    for method in a.methods.split(","):
        for s in a.sets:
            name = os.path.basename(os.path.normpath(s))
            out = os.path.join(a.outdir, method, name)
            os.makedirs(out, exist_ok=True)
            for k, path in enumerate(frames(s), 1):
                img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
                if img is None:
                    sys.exit("cannot read %s" % path)
                kps, desc = features(img, method, a.target)
                write(os.path.join(out, "frame%03d.feat" % k), kps, desc)


if __name__ == "__main__":
    main()

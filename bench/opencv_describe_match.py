#!/usr/bin/env python3
"""OpenCV's descriptor and matching times beside libsatfeat's (docs/BENCHMARKS.md).

A measuring tool only (Debian's python3-opencv; never a dependency of the library). Resizes an
image to 1920x1080, detects about 2000 SIFT keypoints, then times SIFT's descriptor computation
on them and a brute-force 2-NN match of 2000 x 2000 float descriptors (BFMatcher, L2), with the
given thread count, median of N runs. SURF is not in Debian's OpenCV build (non-free).

usage: /usr/bin/python3 bench/opencv_describe_match.py IMAGE [--threads 2] [--runs 11]
"""
import argparse
import statistics
import time

import cv2
import numpy as np


def median_ms(fn, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("image")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=11)
    a = ap.parse_args()
    cv2.setNumThreads(a.threads)
    img = cv2.imread(a.image, cv2.IMREAD_GRAYSCALE)
    img = cv2.resize(img, (1920, 1080), interpolation=cv2.INTER_LINEAR)
    sift = cv2.SIFT_create(nfeatures=2000)
    kps = sift.detect(img, None)
    _, desc = sift.compute(img, kps)
    n = len(kps)
    t_desc = median_ms(lambda: sift.compute(img, kps), a.runs)
    orb = cv2.ORB_create(nfeatures=2000)
    okps = orb.detect(img, None)
    t_orb = median_ms(lambda: orb.compute(img, okps), a.runs)
    rng = np.random.default_rng(1)
    d64a = rng.standard_normal((2000, 64)).astype(np.float32)
    d64b = rng.standard_normal((2000, 64)).astype(np.float32)
    bf = cv2.BFMatcher(cv2.NORM_L2)
    t_match64 = median_ms(lambda: bf.knnMatch(d64a, d64b, k=2), a.runs)
    t_match128 = median_ms(lambda: bf.knnMatch(desc[:2000], desc[:2000], k=2), a.runs)
    print(f"OpenCV {cv2.__version__}, {a.threads} threads, 1920x1080, median of {a.runs}")
    print(f"SIFT descriptors of {n} keypoints: {t_desc:.2f} ms")
    print(f"ORB descriptors of {len(okps)} keypoints: {t_orb:.2f} ms")
    print(f"BFMatcher knnMatch k=2, 2000 x 2000 x 64 float: {t_match64:.2f} ms")
    print(f"BFMatcher knnMatch k=2, {min(n, 2000)} x {min(n, 2000)} x 128 float (SIFT): {t_match128:.2f} ms")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""CPU SAT of libsatfeat against OpenCV's cv2.integral (CV_32S), in one process.

Usage: python3 bench/cpu_sat_vs_opencv.py BUILD_DIR [--size N] [--threads T] [--repeat R]

Loads BUILD_DIR/libsatfeat.so through ctypes, builds one random N x N u8 image, and times a plain
memory copy of the same bytes (N*N u8 read + (N+1)^2 u32 written, numpy, one thread),
libsatfeat's CPU SAT with T threads, cv2.integral with cv2.setNumThreads(T) into a preallocated
table, and cv2.integral as usually called from Python (a new table each call, page faults
included). The four are run in interleaved rounds, so that load from other processes hits them
alike; medians of R rounds. Checks that both tables are identical before printing the figures.
"""
import argparse
import ctypes
import statistics
import time

import cv2
import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=15)
    a = ap.parse_args()

    lib = ctypes.CDLL(f"{a.build_dir}/libsatfeat.so")
    lib.satfeat_ctx_new.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_int]
    lib.satfeat_ctx_set_threads.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.satfeat_ctx_delete.argtypes = [ctypes.c_void_p]
    lib.satfeat_sat_u8.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                   ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    ctx = ctypes.c_void_p()
    assert lib.satfeat_ctx_new(ctypes.byref(ctx), 1, 0) == 0  # SATFEAT_BACKEND_CPU
    assert lib.satfeat_ctx_set_threads(ctx, a.threads) == 0
    cv2.setNumThreads(a.threads)

    n = a.size
    img = np.random.default_rng(1).integers(0, 256, size=(n, n), dtype=np.uint8)
    ours = np.empty((n + 1, n + 1), dtype=np.uint32)
    theirs = np.empty((n + 1, n + 1), dtype=np.int32)
    copy_src = np.ones(n * n + (n + 1) * (n + 1) * 4, dtype=np.uint8)
    copy_dst = np.empty_like(copy_src)

    def run_ours():
        st = lib.satfeat_sat_u8(ctx, img.ctypes.data, n, n, n, ours.ctypes.data, (n + 1) * 4, 1)
        assert st == 0

    def run_cv():
        cv2.integral(img, theirs, cv2.CV_32S)

    def run_copy():
        np.copyto(copy_dst, copy_src)

    def run_cv_alloc():
        cv2.integral(img, sdepth=cv2.CV_32S)

    run_ours()
    run_cv()
    assert np.array_equal(ours.view(np.int32), theirs), "tables differ"
    runs = {"copy": run_copy, "ours": run_ours, "cv": run_cv, "cv_alloc": run_cv_alloc}
    times = {k: [] for k in runs}
    for f in runs.values():
        f()  # warm-up
    for _ in range(a.repeat):
        for k, f in runs.items():
            t0 = time.perf_counter()
            f()
            times[k].append((time.perf_counter() - t0) * 1e3)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"size {n}x{n} u8 -> 32-bit, threads {a.threads}, median of {a.repeat} interleaved rounds")
    print(f"memory copy of the same bytes      : {med['copy']:8.2f} ms")
    print(f"libsatfeat CPU SAT                 : {med['ours']:8.2f} ms  ({med['ours'] / med['copy']:.2f}x copy)")
    print(f"cv2.integral, preallocated table   : {med['cv']:8.2f} ms  ({med['cv'] / med['copy']:.2f}x copy)")
    print(f"cv2.integral, new table each call  : {med['cv_alloc']:8.2f} ms")
    print(f"speed-up over OpenCV (preallocated): {med['cv'] / med['ours']:8.2f}x")
    print(f"speed-up over OpenCV (new table)   : {med['cv_alloc'] / med['ours']:8.2f}x")
    lib.satfeat_ctx_delete(ctx)


if __name__ == "__main__":
    main()

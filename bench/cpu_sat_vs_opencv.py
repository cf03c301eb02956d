#!/usr/bin/env python3
"""CPU SAT of libsatfeat against OpenCV's cv2.integral (CV_32S), in one process.

Usage: python3 bench/cpu_sat_vs_opencv.py BUILD_DIR [--size N] [--threads T] [--repeat R]

Loads BUILD_DIR/libsatfeat.so through ctypes, builds one random N x N u8 image, and times (median
of R runs, output buffers reused so page faults are not counted): a plain memory copy of the same
bytes (N*N u8 read + (N+1)^2 u32 written), libsatfeat's CPU SAT with T threads, and cv2.integral
with cv2.setNumThreads(T). Checks that both tables are identical before printing the figures.
"""
import argparse
import ctypes
import statistics
import time

import cv2
import numpy as np


def median_ms(fn, repeat):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


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

    run_ours()
    run_cv()
    assert np.array_equal(ours.view(np.int32), theirs), "tables differ"
    t_copy = median_ms(run_copy, a.repeat)
    t_ours = median_ms(run_ours, a.repeat)
    t_cv = median_ms(run_cv, a.repeat)
    print(f"size {n}x{n} u8 -> 32-bit, threads {a.threads}, median of {a.repeat} runs")
    print(f"memory copy of the same bytes : {t_copy:8.2f} ms")
    print(f"libsatfeat CPU SAT            : {t_ours:8.2f} ms  ({t_ours / t_copy:.2f}x copy)")
    print(f"cv2.integral CV_32S           : {t_cv:8.2f} ms  ({t_cv / t_copy:.2f}x copy)")
    print(f"speed-up over OpenCV          : {t_cv / t_ours:8.2f}x")
    lib.satfeat_ctx_delete(ctx)


if __name__ == "__main__":
    main()

"""Which satfeat `threshold` gives as many keypoints as OpenCV's SURF with hessianThreshold=h?

Debian's cv2 has no xfeatures2d (SURF is in OpenCV's non-free part), so OpenCV's detector is
modelled here from its definitions (opencv_contrib modules/xfeatures2d/src/surf.cpp, OpenCV 4):
the integral of the 8-bit image (intensities 0..255); filter sizes (9 + 6 l) * 2^o for layers
l = 0 .. nOctaveLayers + 1, sampled every 2^o pixels; the 9 x 9 box patterns scaled by
round(size / 9 * corner) with each box weighted by its own weight over its own area (a box
filter of means, not of sums); det = Dxx Dyy - 0.81 Dxy^2 in float; strict 3x3x3 maxima on the
middle layers with det > hessianThreshold; the quadratic fit in (x, y, scale) kept when no
offset exceeds 1. Orientation-time deletions (keypoints whose whole orientation window lies
outside the image) are not modelled; the fit is solved in double, not float, so a maximum
whose offset lies within rounding of 1 may count differently.

satfeat's response is the same determinant of box filters of sums, normalised by L^4 with
intensities in [0, 1] (include/satfeat/detect.h), with Bay's filter shapes at every size and
Bay's sizes per octave. The two agree up to a constant only where the shapes do and the
maximum is a blob (Dxy ~ 0): at L = 9, det_cv = response * 255^2 * (81 / 15)^2. They differ
elsewhere, so the correspondence is measured: for each image and h, the satfeat threshold
whose keypoint count equals the model's (between the N-th and N+1-th largest response of a
low-threshold run: the count above t is a function of t alone, since the selection keeps a
keypoint whenever it keeps every stronger one).

Before measuring, the script checks its box-filter code against the library: satfeat's
response recomputed here from the image's summed area table equals, bit for bit, the
`response` of every keypoint the library returns for the first image.

usage: PYTHONPATH=build/python python3 bench/hessian_threshold_study.py [IMAGE...]
(default: data/photos/*.jpg, data/scene.png, data/dune/frame001.png)
"""
import glob
import os
import sys

import numpy as np

import satfeat

H_VALUES = (100, 400, 1000)
OCTAVES, OCTAVE_LAYERS = 4, 3  # cv2.xfeatures2d.SURF_create's defaults
LOW = 1e-6                     # the satfeat threshold of the low-threshold runs

# OpenCV's 9 x 9 patterns: (x1, y1, x2, y2, weight), boxes [x1, x2) x [y1, y2) from the corner
DXX = ((0, 2, 3, 7, 1), (3, 2, 6, 7, -2), (6, 2, 9, 7, 1))
DYY = ((2, 0, 7, 3, 1), (2, 3, 7, 6, -2), (2, 6, 7, 9, 1))
DXY = ((1, 1, 4, 4, 1), (5, 1, 8, 4, -1), (1, 5, 4, 8, -1), (5, 5, 8, 8, 1))


def box(table, y0, x0, y1, x1, ny, nx, step):
    """Box sums [x0, x1) x [y0, y1) (relative to each sample's corner) at ny x nx samples `step`
    apart, corners at (i * step, j * step) of the table: int64."""
    def at(y, x):
        return table[y:y + step * (ny - 1) + 1:step, x:x + step * (nx - 1) + 1:step]
    return at(y1, x1) - at(y0, x1) - at(y1, x0) + at(y0, x0)


def opencv_layer(table, size, step):
    """OpenCV's det of one layer, on its (rows / step, cols / step) grid (0 where unset)."""
    rows, cols = table.shape[0] - 1, table.shape[1] - 1
    ny, nx = 1 + (rows - size) // step, 1 + (cols - size) // step
    ratio = np.float32(size) / np.float32(9)

    def pattern(boxes):
        d = np.zeros((ny, nx))
        for x1, y1, x2, y2, w in boxes:
            c = [int(np.rint(ratio * np.float32(v))) for v in (x1, y1, x2, y2)]
            weight = np.float32(w) / np.float32((c[2] - c[0]) * (c[3] - c[1]))
            d += box(table, c[1], c[0], c[3], c[2], ny, nx, step) * np.float64(weight)
        return d.astype(np.float32)

    dx, dy, dxy = pattern(DXX), pattern(DYY), pattern(DXY)
    det = np.zeros((rows // step, cols // step), np.float32)
    m = (size // 2) // step
    det[m:m + ny, m:m + nx] = dx * dy - np.float32(0.81) * dxy * dxy
    return det


def fit_ok(n9):
    """OpenCV's interpolation test on stacked 3 x 3 x 3 neighbourhoods (k, 3, 3, 3)."""
    c = n9[:, 1, 1, 1]
    b = -np.stack([(n9[:, 1, 1, 2] - n9[:, 1, 1, 0]) / 2, (n9[:, 1, 2, 1] - n9[:, 1, 0, 1]) / 2,
                   (n9[:, 2, 1, 1] - n9[:, 0, 1, 1]) / 2], axis=1)
    dxx = n9[:, 1, 1, 0] - 2 * c + n9[:, 1, 1, 2]
    dyy = n9[:, 1, 0, 1] - 2 * c + n9[:, 1, 2, 1]
    dss = n9[:, 0, 1, 1] - 2 * c + n9[:, 2, 1, 1]
    dxy = (n9[:, 1, 2, 2] - n9[:, 1, 2, 0] - n9[:, 1, 0, 2] + n9[:, 1, 0, 0]) / 4
    dxs = (n9[:, 2, 1, 2] - n9[:, 2, 1, 0] - n9[:, 0, 1, 2] + n9[:, 0, 1, 0]) / 4
    dys = (n9[:, 2, 2, 1] - n9[:, 2, 0, 1] - n9[:, 0, 2, 1] + n9[:, 0, 0, 1]) / 4
    a = np.stack([np.stack([dxx, dxy, dxs], 1), np.stack([dxy, dyy, dys], 1),
                  np.stack([dxs, dys, dss], 1)], 1).astype(np.float64)
    ok = np.abs(np.linalg.det(a)) > 0
    x = np.zeros_like(b, dtype=np.float64)
    x[ok] = np.linalg.solve(a[ok], b[ok].astype(np.float64)[..., None])[..., 0]
    return ok & np.any(x != 0, axis=1) & np.all(np.abs(x) <= 1, axis=1)


def opencv_responses(table):
    """det of every keypoint OpenCV's fast-Hessian keeps at hessianThreshold min(H_VALUES)."""
    rows, cols = table.shape[0] - 1, table.shape[1] - 1
    out = []
    for o in range(OCTAVES):
        step = 1 << o
        sizes = [(9 + 6 * layer) << o for layer in range(OCTAVE_LAYERS + 2)]
        dets = [opencv_layer(table, s, step) if s <= min(rows, cols) else None for s in sizes]
        for layer in range(1, OCTAVE_LAYERS + 1):
            if dets[layer + 1] is None:
                continue
            lr, lc = rows // step, cols // step
            m = (sizes[layer + 1] // 2) // step + 1
            if lr - m <= m or lc - m <= m:
                continue
            cube = np.stack([dets[layer - 1], dets[layer], dets[layer + 1]])
            ii, jj = np.nonzero(cube[1, m:lr - m, m:lc - m] > min(H_VALUES))
            ii, jj = ii + m, jj + m
            n9 = np.stack([cube[:, ii + di, jj + dj] for di in (-1, 0, 1) for dj in (-1, 0, 1)],
                          axis=-1).transpose(1, 0, 2).reshape(-1, 3, 3, 3)
            centre = n9[:, 1, 1, 1]
            others = n9.reshape(len(n9), 27)
            strict = np.all(np.delete(others, 13, axis=1) < centre[:, None], axis=1)
            keep = strict.copy()
            if strict.any():
                keep = np.zeros_like(strict)
                keep[strict] = fit_ok(n9[strict])
            out.append(centre[keep])
    return np.sort(np.concatenate(out))[::-1] if out else np.zeros(0, np.float32)


def satfeat_response(table, kp):
    """satfeat's response of keypoint `kp`, recomputed from the table with Bay's shapes."""
    lobe = (2 << int(kp["octave"])) * (int(kp["layer"]) + 1) + 1
    step = 1 << int(kp["octave"])
    x, y = int(kp["sample_x"]) * step, int(kp["sample_y"]) * step
    r, h, side = (3 * lobe - 1) // 2, (lobe - 1) // 2, 3 * lobe
    t = table.astype(np.int64)

    def s(y0, y1, x0, x1):
        return int(t[y1, x1] - t[y0, x1] - t[y1, x0] + t[y0, x0])

    dyy = s(y - r, y + r + 1, x - lobe + 1, x + lobe) - 3 * s(y - h, y + h + 1, x - lobe + 1, x + lobe)
    dxx = s(y - lobe + 1, y + lobe, x - r, x + r + 1) - 3 * s(y - lobe + 1, y + lobe, x - h, x + h + 1)
    dxy = (s(y - lobe, y, x - lobe, x) + s(y + 1, y + lobe + 1, x + 1, x + lobe + 1)
           - s(y - lobe, y, x + 1, x + lobe + 1) - s(y + 1, y + lobe + 1, x - lobe, x))
    return (100 * dxx * dyy - 81 * dxy * dxy) / (100 * 255 ** 2 * side ** 4)  # one rounding


def our_responses(img, **params):
    kp = satfeat.Detector(backend="cpu", threshold=LOW, descriptor="none", **params).detect(img)
    return kp, np.sort(kp["response"])[::-1]


def matching_threshold(ours, n):
    """A threshold with exactly n of the (descending) responses above it; NaN when the model
    found no keypoint (any threshold above the largest response matches) or more than ours."""
    if n == 0 or n >= len(ours):
        return float("nan")
    return float(np.sqrt(ours[n - 1] * ours[n]))


def main(paths):
    configs = (("default", {}), ("opencv-like", {"layers": OCTAVE_LAYERS + 2,
                                                  "suppress_duplicates": 0}))
    rows = []
    for k, path in enumerate(paths):
        img = satfeat.load_gray(path)
        table = satfeat.sat(img).astype(np.int64)
        cv = opencv_responses(table)
        entry = {"name": os.path.basename(path), "size": img.shape[::-1]}
        for name, params in configs:
            kp, ours = our_responses(img, **params)
            if k == 0 and name == "default":
                sample = kp[:: max(1, len(kp) // 500)]
                bad = [i for i, p in enumerate(sample) if satfeat_response(table, p) != p["response"]]
                assert not bad, f"box code disagrees with the library on {len(bad)} keypoints"
                print(f"check: {len(sample)} keypoints of {entry['name']}: responses recomputed "
                      "bit for bit", file=sys.stderr)
            for h in H_VALUES:
                n = int(np.count_nonzero(cv > h))
                entry[(name, h)] = (n, matching_threshold(ours, n))
        rows.append(entry)
        print(f"{entry['name']}: " + ", ".join(
            f"h={h}: {entry[('default', h)][0]} kp, t={entry[('default', h)][1]:.3g} / "
            f"{entry[('opencv-like', h)][1]:.3g}" for h in H_VALUES), file=sys.stderr)
    print(f"{len(rows)} images; NaN thresholds (no model keypoint) are left out of the medians")
    print("| hessianThreshold | OpenCV-model keypoints (median, range) | satfeat threshold, "
          "default detector (median, range) | h / threshold (median over images) | satfeat "
          "threshold, layers=5 suppress_duplicates=0 (median, range) |")
    print("| --- | --- | --- | --- | --- |")

    def spread(t):
        return f"{np.nanmedian(t):.2e} ({np.nanmin(t):.2e} - {np.nanmax(t):.2e})"

    for h in H_VALUES:
        counts = [r[("default", h)][0] for r in rows]
        t_def = np.array([r[("default", h)][1] for r in rows])
        t_cv = np.array([r[("opencv-like", h)][1] for r in rows])
        print(f"| {h} | {int(np.median(counts))} ({min(counts)} - {max(counts)}) | "
              f"{spread(t_def)} | {np.nanmedian(h / t_def):.2g} | {spread(t_cv)} |")


if __name__ == "__main__":
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    args = sys.argv[1:] or (sorted(glob.glob(os.path.join(here, "data", "photos", "*.jpg")))
                            + [os.path.join(here, "data", "scene.png"),
                               os.path.join(here, "data", "dune", "frame001.png")])
    main(args)

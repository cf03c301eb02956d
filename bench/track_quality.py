#!/usr/bin/python3
"""track_quality.py - tracking quality of libsatfeat against OpenCV on sequences with ground truth.

Measures, on each sequence (frames 1..N and homographies H1tok, Oxford format):
  * libsatfeat: `satfeat track --motion` (the CLI; its output is parsed);
  * OpenCV pyramidal Lucas-Kanade: goodFeaturesToTrack + calcOpticalFlowPyrLK frame to frame,
    with a forward-backward check and replenishment up to the same count;
  * OpenCV ORB + findHomography(RANSAC), frame 1 matched directly to frame k.
OpenCV (Debian's python3-opencv) and numpy are measuring tools only, never dependencies (--no-opencv
runs without OpenCV).

Figures (docs/QUALITY.md, "Tracking"):
  steps    track observations in frame k after the track's birth frame b (libsatfeat: seen in k,
           not predicted); a step is correct when the position lies within 2 px of the birth
           position mapped by H1tok * inverse(H1tob).
  length   frames from birth to the last observation, mean and median over all tracks.
  correct length  frames from birth to the last observation before the track's first wrong
           step (> 2 px), mean over all tracks: how long a track lasts while it is right (LK
           keeps points that drift; this counts them only up to where they leave the truth).
  switches steps whose error grows from < 2 px (the track's previous observation; the birth
           counts as 0) to > 5 px: the track jumped to another structure.
  corner   the estimated frame 1 -> k homography (libsatfeat: h_ref; LK: findHomography RANSAC on
           the tracked points' first-frame coordinates -> their positions; ORB: frame 1 -> k
           matches) against H1tok on the image's four corners (0,0) (w-1,0) (w-1,h-1) (0,h-1),
           frames 2..N: the mean over frames and corners, the mean over frames of the worst
           corner, and the largest.
  ORB      has no tracks: its "steps" are its frame 1 -> k matches (correct within 2 px).
Counts: OpenCV's LK corner count and ORB's nfeatures are set to the number of tracks libsatfeat
starts in frame 1 of the sequence.

usage: bench/track_quality.py [--satfeat build/cli/satfeat] [--boat DIR] [--threads N]
                              [--seq DIR]... [--no-shipped] [--no-opencv]
"""
import argparse
import os
import statistics
import subprocess
import sys

import numpy as np

cv2 = None  # OpenCV, imported only for its rows (--no-opencv runs without it)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_h(path):
    with open(path) as f:
        v = [float(t) for t in f.read().split()]
    if len(v) != 9:
        raise ValueError(f"{path}: expected 9 numbers")
    return np.array(v).reshape(3, 3)


def generated_sequence(directory):
    """(name, frames, truth) of a tools/gen_sequence.c directory (frameNNN.png, H1toNNNp)."""
    frames, truth, k = [], [], 1
    while os.path.exists(os.path.join(directory, f"frame{k:03d}.png")):
        frames.append(os.path.join(directory, f"frame{k:03d}.png"))
        truth.append(read_h(os.path.join(directory, f"H1to{k:03d}p")))
        k += 1
    if not frames:
        raise ValueError(f"{directory}: no frame001.png")
    return (os.path.basename(os.path.normpath(directory)), frames, truth)


def sequences(boat_dir, extra_dirs, shipped):
    """(name, frame paths, truth homographies frame 1 -> k) of the sequences that exist."""
    out = []
    if shipped:
        out.append(generated_sequence(os.path.join(REPO, "data", "dune")))
    if boat_dir and os.path.exists(os.path.join(boat_dir, "img1.pgm")):
        frames = [os.path.join(boat_dir, f"img{k}.pgm") for k in range(1, 7)]
        truth = [np.eye(3)] + [read_h(os.path.join(boat_dir, f"H1to{k}p")) for k in range(2, 7)]
        out.append(("boat", frames, truth))
    out.extend(generated_sequence(d) for d in extra_dirs)
    return out


def image_size(path):
    """(width, height) from a PNG or binary PGM header."""
    with open(path, "rb") as f:
        head = f.read(64)
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    if head[:2] == b"P5":
        fields, tok, in_comment = [], b"", False
        for c in head[2:]:
            ch = bytes([c])
            if in_comment:
                in_comment = ch != b"\n"
            elif ch == b"#":
                in_comment = True
            elif ch.isspace():
                if tok:
                    fields.append(int(tok))
                    tok = b""
                if len(fields) == 2:
                    return fields[0], fields[1]
            else:
                tok += ch
    raise ValueError(f"{path}: not a PNG or binary PGM")


def apply_h(h, x, y):
    v = h @ np.array([x, y, 1.0])
    return v[0] / v[2], v[1] / v[2]


def corner_errors(h_est, h_true, w, hgt):
    """Errors (px) of the four image corners mapped by h_est against h_true."""
    errs = []
    for cx, cy in ((0, 0), (w - 1, 0), (w - 1, hgt - 1), (0, hgt - 1)):
        if h_est is None:
            errs.append(float("inf"))
            continue
        ax, ay = apply_h(h_est, cx, cy)
        bx, by = apply_h(h_true, cx, cy)
        errs.append(float(np.hypot(ax - bx, ay - by)))
    return errs


class Score:
    """Accumulates steps, track lengths, switches and corner errors of one method."""

    def __init__(self, truth):
        self.truth = truth
        self.steps = self.good = self.switches = 0
        self.birth = {}   # id -> (frame index, x, y)
        self.last = {}    # id -> last observed frame index
        self.last_ok = {}  # id -> last observed frame index before the first wrong step
        self.prev_err = {}
        self.corners = []  # per frame 2..N: four corner errors

    def observe(self, tid, k, x, y):
        """Observation of track tid in frame index k (0-based); the first one is its birth."""
        if tid not in self.birth:
            self.birth[tid] = (k, x, y)
            self.last[tid] = k
            self.last_ok[tid] = k
            self.prev_err[tid] = 0.0
            return
        b, bx, by = self.birth[tid]
        m = self.truth[k] @ np.linalg.inv(self.truth[b])
        u, v = apply_h(m, bx, by)
        e = float(np.hypot(x - u, y - v))
        self.steps += 1
        self.good += e <= 2.0
        if e <= 2.0 and self.last_ok[tid] == self.last[tid]:
            self.last_ok[tid] = k
        if self.prev_err[tid] < 2.0 and e > 5.0:
            self.switches += 1
        self.prev_err[tid] = e
        self.last[tid] = k

    def row(self):
        lens = [self.last[t] - self.birth[t][0] + 1 for t in self.birth]
        ok_lens = [self.last_ok[t] - self.birth[t][0] + 1 for t in self.birth]
        flat = [e for c in self.corners for e in c]
        worst = [max(c) for c in self.corners]
        return {
            "steps": self.steps,
            "correct": self.good / self.steps if self.steps else float("nan"),
            "tracks": len(lens),
            "len_mean": statistics.mean(lens) if lens else float("nan"),
            "len_median": statistics.median(lens) if lens else float("nan"),
            "len_ok_mean": statistics.mean(ok_lens) if ok_lens else float("nan"),
            "switches": self.switches,
            "corner_mean": statistics.mean(flat) if flat else float("nan"),
            "corner_worst_mean": statistics.mean(worst) if worst else float("nan"),
            "corner_max": max(worst) if worst else float("nan"),
        }


def run_satfeat(exe, frames, truth, size, threads, extra):
    cmd = [exe, "track", "--motion", "--backend", "cpu", "--threads", str(threads)] + extra + frames
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    s = Score(truth)
    first_count = 0
    for line in out.splitlines():
        t = line.split()
        if line.startswith("# motion frame"):
            k = int(t[3]) - 1
            href = np.array([float(v) for v in t[13:22]]).reshape(3, 3)
            if k > 0:
                s.corners.append(corner_errors(href, truth[k], *size))
            continue
        if line.startswith("#"):
            continue
        k, tid, x, y = int(t[0]) - 1, int(t[1]), float(t[2]), float(t[3])
        missed = int(t[7])
        if k == 0:
            first_count += 1
        if missed == 0:
            s.observe(tid, k, x, y)
    return s.row(), first_count, " ".join(os.path.relpath(c, REPO) if os.path.exists(c) and
                                          c.startswith(REPO) else c for c in cmd)


def run_lk(frames, truth, count, size):
    """Pyramidal LK frame to frame with a forward-backward check, replenished to `count`."""
    w, h = size
    lk = dict(winSize=(21, 21), maxLevel=3,
              criteria=(cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 0.01))
    gftt = dict(qualityLevel=0.001, minDistance=4, blockSize=7)
    s = Score(truth)
    prev = cv2.imread(frames[0], cv2.IMREAD_GRAYSCALE)
    pts = cv2.goodFeaturesToTrack(prev, maxCorners=count, **gftt).reshape(-1, 2)
    ids = list(range(len(pts)))
    ref = pts.copy()  # first-frame coordinates of each point (birth mapped by inv(h_ref))
    next_id = len(pts)
    for i, p in zip(ids, pts):
        s.observe(i, 0, float(p[0]), float(p[1]))
    h_ref = np.eye(3)
    for k in range(1, len(frames)):
        cur = cv2.imread(frames[k], cv2.IMREAD_GRAYSCALE)
        keep_ids, keep_pts, keep_ref = [], np.zeros((0, 2), np.float32), np.zeros((0, 2), np.float32)
        if len(pts):
            p0 = pts.reshape(-1, 1, 2).astype(np.float32)
            p1, st1, _ = cv2.calcOpticalFlowPyrLK(prev, cur, p0, None, **lk)
            pb, st2, _ = cv2.calcOpticalFlowPyrLK(cur, prev, p1, None, **lk)
            fb = np.linalg.norm((p0 - pb).reshape(-1, 2), axis=1)
            p1 = p1.reshape(-1, 2)
            ok = ((st1.ravel() == 1) & (st2.ravel() == 1) & (fb < 1.0) & (p1[:, 0] >= 0) &
                  (p1[:, 1] >= 0) & (p1[:, 0] <= w - 1) & (p1[:, 1] <= h - 1))
            keep_ids = [i for i, o in zip(ids, ok) if o]
            keep_pts = p1[ok]
            keep_ref = ref[ok]
        for i, p in zip(keep_ids, keep_pts):
            s.observe(i, k, float(p[0]), float(p[1]))
        est = None
        if len(keep_pts) >= 4:
            est, _ = cv2.findHomography(keep_ref, keep_pts, cv2.RANSAC, 3.0)
        if est is not None:
            h_ref = est
        s.corners.append(corner_errors(h_ref, truth[k], w, h))
        # replenish away from the surviving points
        need = count - len(keep_pts)
        if need > 0:
            mask = np.full((h, w), 255, np.uint8)
            for p in keep_pts:
                cv2.circle(mask, (int(round(p[0])), int(round(p[1]))), 4, 0, -1)
            new = cv2.goodFeaturesToTrack(cur, maxCorners=need, mask=mask, **gftt)
            if new is not None:
                new = new.reshape(-1, 2)
                inv = np.linalg.inv(h_ref)
                new_ref = np.array([apply_h(inv, p[0], p[1]) for p in new], np.float32)
                for p in new:
                    s.observe(next_id, k, float(p[0]), float(p[1]))
                    keep_ids.append(next_id)
                    next_id += 1
                keep_pts = np.vstack([keep_pts, new]).astype(np.float32)
                keep_ref = np.vstack([keep_ref, new_ref]).astype(np.float32)
        ids, pts, ref, prev = keep_ids, keep_pts, keep_ref, cur
    return s.row()


def run_orb(frames, truth, count, size):
    """ORB on frame 1 and frame k, cross-checked Hamming matches, findHomography RANSAC."""
    w, h = size
    orb = cv2.ORB_create(nfeatures=count)
    bf = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True)
    img1 = cv2.imread(frames[0], cv2.IMREAD_GRAYSCALE)
    kp1, d1 = orb.detectAndCompute(img1, None)
    s = Score(truth)
    for k in range(1, len(frames)):
        img = cv2.imread(frames[k], cv2.IMREAD_GRAYSCALE)
        kp2, d2 = orb.detectAndCompute(img, None)
        matches = bf.match(d1, d2) if d1 is not None and d2 is not None else []
        src = np.float32([kp1[m.queryIdx].pt for m in matches])
        dst = np.float32([kp2[m.trainIdx].pt for m in matches])
        for a, b in zip(src, dst):
            u, v = apply_h(truth[k], a[0], a[1])
            s.steps += 1
            s.good += float(np.hypot(b[0] - u, b[1] - v)) <= 2.0
        est = None
        if len(matches) >= 4:
            est, _ = cv2.findHomography(src, dst, cv2.RANSAC, 3.0)
        s.corners.append(corner_errors(est, truth[k], w, h))
    r = s.row()
    r.update(tracks=None, len_mean=None, len_median=None, len_ok_mean=None, switches=None)
    return r


def fmt(v, spec):
    if v is None:
        return "-"
    return format(v, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--satfeat", default=os.path.join(REPO, "build", "cli", "satfeat"))
    ap.add_argument("--boat", default=os.path.join(os.path.dirname(REPO), "shared", "data",
                                                    "oxford-boat"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--satfeat-extra", action="append", default=[],
                    help="'NAME=ARGS': an extra libsatfeat row with these track flags")
    ap.add_argument("--seq", action="append", default=[],
                    help="another sequence directory as tools/gen_sequence.c writes it")
    ap.add_argument("--no-shipped", action="store_true", help="skip data/dune")
    ap.add_argument("--no-opencv", action="store_true", help="libsatfeat rows only")
    args = ap.parse_args()
    if not args.no_opencv:
        global cv2
        import cv2
        print(f"OpenCV {cv2.__version__}, numpy {np.__version__}", file=sys.stderr)
    print("| sequence | method | steps | correct (2 px) | tracks | length mean | median | "
          "correct length mean | id switches | corner mean px | worst corner mean px | "
          "worst corner max px |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    variants = [("libsatfeat", [])]
    for v in args.satfeat_extra:
        name, _, flags = v.partition("=")
        variants.append((name, flags.split()))
    for name, frames, truth in sequences(args.boat, args.seq, not args.no_shipped):
        size = image_size(frames[0])
        rows = []
        count = None
        for vname, flags in variants:
            row, first, cmd = run_satfeat(args.satfeat, frames, truth, size, args.threads, flags)
            print(f"{name}: {cmd}", file=sys.stderr)
            count = count or first
            rows.append((vname, row))
        if not args.no_opencv:
            rows.append((f"OpenCV LK ({count} corners)", run_lk(frames, truth, count, size)))
            rows.append((f"OpenCV ORB ({count}) + findHomography",
                         run_orb(frames, truth, count, size)))
        for method, r in rows:
            print(f"| {name} | {method} | {r['steps']} | {100 * r['correct']:.2f}% | "
                  f"{fmt(r['tracks'], 'd')} | {fmt(r['len_mean'], '.2f')} | "
                  f"{fmt(r['len_median'], '.1f')} | {fmt(r['len_ok_mean'], '.2f')} | "
                  f"{fmt(r['switches'], 'd')} | "
                  f"{r['corner_mean']:.3f} | {r['corner_worst_mean']:.3f} | {r['corner_max']:.3f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""defaults_study.py - repeatability of detector configurations on several sequences, to choose
the detector's defaults on evidence (docs/QUALITY.md has the tables and the exact commands).

Protocol, per sequence and configuration:
  * the threshold is tuned so that image 1 gets TARGET keypoints or just fewer: image 1 is
    detected once at a very low threshold, the threshold is put between the TARGET-th and the
    (TARGET+1)-th response (extrema are strict maxima above the threshold, so this is exact; grid
    caps are replayed on the sorted list), and one more detection checks the count;
    configurations given with a threshold ("threshold=T") are run at T instead;
  * `satfeat eval IMG1 IMGk H1tok` (the Mikolajczyk et al. protocol) for k = 2..6;
  * on the image-1 keypoints: near duplicates (another keypoint within 0.5 sigma of it, sizes
    within 1.3x of each other) and spread (cells of a 16 x 12 grid holding a keypoint).
Optionally (--sift) OpenCV's SIFT with nfeatures=TARGET on the same pairs, scored by the very
same evaluator through bench/eval_keypoints.c (python3-opencv is a measuring tool only).

Sequences: the Oxford layout (img1.pgm .. img6.pgm, H1to2p .. H1to6p) or the layout that
tools/gen_sequence.c writes (frame001.png .., H1to002p ..).

Only the standard library (numpy is not needed); subprocesses run --jobs at a time.
"""
import argparse
import concurrent.futures as cf
import csv
import math
import os
import subprocess
import sys

CONFIGS = {
    # name: detector options (the library's defaults unless named)
    "defaults": "",
    "L6o1u0": "--layers 6 --max-offset 1 --unique-scales 0",
    "L6o1u1": "--layers 6 --max-offset 1 --unique-scales 1",
    "L5o1u0": "--layers 5 --max-offset 1 --unique-scales 0",
    "L5o1u1": "--layers 5 --max-offset 1 --unique-scales 1",
    "L4o1u0": "--layers 4 --max-offset 1 --unique-scales 0",
    "L4o1u1": "--layers 4 --max-offset 1 --unique-scales 1",
    "L6o05u0": "--layers 6 --max-offset 0.5 --unique-scales 0",
    "L6o05u1": "--layers 6 --max-offset 0.5 --unique-scales 1",
    "L6o1u0s2": "--layers 6 --max-offset 1 --unique-scales 0 --init-step 2",
    "L6o1u1s2": "--layers 6 --max-offset 1 --unique-scales 1 --init-step 2",
    "L6o1u0O3": "--layers 6 --max-offset 1 --unique-scales 0 --octaves 3",
    "L6o1u0O5": "--layers 6 --max-offset 1 --unique-scales 0 --octaves 5",
    "L6o1u1O5": "--layers 6 --max-offset 1 --unique-scales 1 --octaves 5",
    "L6o1u0g8": "--layers 6 --max-offset 1 --unique-scales 0 --grid 8 --per-cell 48",
    "L6o1u1g8": "--layers 6 --max-offset 1 --unique-scales 1 --grid 8 --per-cell 48",
    "L3o1u0": "--layers 3 --max-offset 1 --unique-scales 0",
    "L6o075u0": "--layers 6 --max-offset 0.75 --unique-scales 0",
    "L6o075u1": "--layers 6 --max-offset 0.75 --unique-scales 1",
    # measuring only: the same detections with near duplicates removed afterwards (not an option
    # of the library): do the duplicates pay for themselves?
    "L6o1u0+dedup": "--layers 6 --max-offset 1 --unique-scales 0 dedup",
    "L4o1u0+dedup": "--layers 4 --max-offset 1 --unique-scales 0 dedup",
    "L6o1u0+dedupfine": "--layers 6 --max-offset 1 --unique-scales 0 dedupfine",
}


def sequence_files(d):
    """(img1, [(imgk, Hk), ...]) of an Oxford-style or gen_sequence-style folder."""
    if os.path.exists(os.path.join(d, "img1.pgm")):
        return (os.path.join(d, "img1.pgm"),
                [(os.path.join(d, "img%d.pgm" % k), os.path.join(d, "H1to%dp" % k))
                 for k in range(2, 7)])
    return (os.path.join(d, "frame001.png"),
            [(os.path.join(d, "frame%03d.png" % k), os.path.join(d, "H1to%03dp" % k))
             for k in range(2, 7)])


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd), r.stderr.strip()))
    return r.stdout


def detect(binary, img, opts, threshold):
    """Keypoints of `satfeat detect` as tuples (x, y, size, response, sigma)."""
    out = run([binary, "detect", img, "--threads", "1"] + opts + ["--threshold", repr(threshold)])
    kps = []
    for line in out.splitlines():
        if not line or line[0] == "#":
            continue
        f = line.split()
        kps.append((float(f[0]), float(f[1]), float(f[2]), float(f[3]), float(f[4]), int(f[6])))
    return kps


def image_size(path):
    """Width and height of a PNG or binary PGM from its header."""
    with open(path, "rb") as f:
        head = f.read(512)
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    tok = []
    for line in head.split(b"\n"):
        tok += line.split(b"#")[0].split()
    return int(tok[1]), int(tok[2])


def option_value(opts, name, default):
    return int(opts[opts.index(name) + 1]) if name in opts else default


def tune_threshold(binary, img, opts, target):
    """Threshold giving `target` keypoints on img or just fewer (see the module doc)."""
    low = detect(binary, img, opts, 1e-6)
    grid = option_value(opts, "--grid", 0)
    per_cell = option_value(opts, "--per-cell", 0)
    w, h = image_size(img)
    order = sorted(low, key=lambda k: -k[3])
    kept = []
    cells = {}
    for k in order:
        if grid:
            c = (min(grid - 1, int(math.floor(k[0] + 0.5) * grid // w)),
                 min(grid - 1, int(math.floor(k[1] + 0.5) * grid // h)))
            if cells.get(c, 0) >= per_cell:
                continue
            cells[c] = cells.get(c, 0) + 1
        kept.append(k[3])
    if len(kept) <= target:
        return 1e-6
    a, b = kept[target - 1], kept[target]  # a >= b; threshold in [b, a) keeps exactly target
    t = 0.5 * (a + b) if a > b else a
    return t


def duplicates_and_spread(kps, w, h):
    """(fraction of keypoints with a near duplicate, fraction of 16 x 12 cells occupied)."""
    n = len(kps)
    if n == 0:
        return 0.0, 0.0
    bucket = {}
    for i, k in enumerate(kps):
        bucket.setdefault((int(k[0] // 8), int(k[1] // 8)), []).append(i)
    dup = 0
    for i, k in enumerate(kps):
        bx, by = int(k[0] // 8), int(k[1] // 8)
        found = False
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for j in bucket.get((bx + dx, by + dy), []):
                    if j == i:
                        continue
                    q = kps[j]
                    d = math.hypot(k[0] - q[0], k[1] - q[1])
                    r = max(k[2], q[2]) / min(k[2], q[2])
                    if d < 0.5 * min(k[4], q[4]) and r < 1.3:
                        found = True
        dup += found
    cells = {(min(15, int(k[0] * 16 // w)), min(11, int(k[1] * 12 // h))) for k in kps}
    return dup / n, len(cells) / 192.0


def dedup(kps, finest=False):
    """Greedy, strongest first (finest=True: finest octave first, then strongest): drops a
    keypoint when a kept one lies within 0.5 sigma of it with sizes within 1.3x (the
    near-duplicate rule above). A post-filter for measuring only."""
    kept, bucket = [], {}
    for k in sorted(kps, key=(lambda k: (k[5], -k[3])) if finest else (lambda k: -k[3])):
        bx, by = int(k[0] // 8), int(k[1] // 8)
        near = False
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for q in bucket.get((bx + dx, by + dy), []):
                    if (math.hypot(k[0] - q[0], k[1] - q[1]) < 0.5 * min(k[4], q[4]) and
                            max(k[2], q[2]) / min(k[2], q[2]) < 1.3):
                        near = True
        if not near:
            kept.append(k)
            bucket.setdefault((bx, by), []).append(k)
    return kept


def write_kps(kps, path):
    with open(path, "w") as f:
        for k in kps:
            f.write("%.3f %.3f %.3f %.6e %.4f\n" % k[:5])


def parse_eval(out):
    r = {}
    for line in out.splitlines():
        f = line.split()
        if f[0] == "keypoints":
            r["n1"], r["n2"] = int(f[1]), int(f[2])
        elif f[0] == "correspondences":
            r["corr"] = int(f[1])
        elif f[0] == "repeatability":
            r["rep"] = float(f[1])
    return r


def study_one(binary, seq, cname, copts, target, evalkp=None, tmp=None):
    img1, pairs = sequence_files(seq)
    opts = [o for o in copts.split() if not o.startswith("threshold=") and not o.startswith("dedup")]
    fixed = [o for o in copts.split() if o.startswith("threshold=")]
    if "dedup" in copts.split() or "dedupfine" in copts.split():
        return study_dedup(binary, seq, cname, opts, target, evalkp, tmp,
                           "dedupfine" in copts.split())
    t = float(fixed[0].split("=")[1]) if fixed else tune_threshold(binary, img1, opts, target)
    kps = detect(binary, img1, opts, t)
    w, h = image_size(img1)
    dup, spread = duplicates_and_spread(kps, w, h)
    row = {"sequence": os.path.basename(seq.rstrip("/")), "config": cname, "options": " ".join(opts),
           "threshold": "%.9g" % t, "kp1": len(kps), "dup": "%.3f" % dup, "spread": "%.3f" % spread}
    for k, (imgk, hk) in enumerate(pairs, start=2):
        r = parse_eval(run([binary, "eval", img1, imgk, hk, "--threads", "1"] + opts +
                           ["--threshold", repr(t)]))
        row["rep%d" % k] = "%.4f" % r["rep"]
        row["n%d" % k] = r["n2"]
    row["mean"] = "%.4f" % (sum(float(row["rep%d" % k]) for k in range(2, 7)) / 5)
    return row


def study_dedup(binary, seq, cname, opts, target, evalkp, tmp, finest=False):
    """Like study_one, with near duplicates removed from both lists by dedup() before the
    threshold is tuned and before the evaluation (through eval_keypoints)."""
    img1, pairs = sequence_files(seq)
    low = detect(binary, img1, opts, 1e-6)
    resp = sorted((k[3] for k in low), reverse=True)
    lo, hi = 0, len(resp) - 1  # threshold index: dedup of kps above resp[i] has <= target
    cnt = lambda i: len(dedup([k for k in low if k[3] > resp[i]], finest))
    if cnt(hi) <= target:
        t = 1e-6
    else:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if cnt(mid) <= target:
                lo = mid
            else:
                hi = mid
        t = resp[lo]
    kps = dedup(detect(binary, img1, opts, t), finest)
    name = "%s_%s" % (os.path.basename(seq.rstrip("/")), cname)
    k1 = os.path.join(tmp, name + "_1.txt")
    write_kps(kps, k1)
    w, h = image_size(img1)
    dup, spread = duplicates_and_spread(kps, w, h)
    row = {"sequence": os.path.basename(seq.rstrip("/")), "config": cname,
           "options": " ".join(opts) + " + near-duplicate post-filter",
           "threshold": "%.9g" % t, "kp1": len(kps), "dup": "%.3f" % dup, "spread": "%.3f" % spread}
    for k, (imgk, hk) in enumerate(pairs, start=2):
        kk = os.path.join(tmp, "%s_%d.txt" % (name, k))
        write_kps(dedup(detect(binary, imgk, opts, t), finest), kk)
        r = parse_eval(run([evalkp, img1, k1, imgk, kk, hk]))
        row["rep%d" % k] = "%.4f" % r["rep"]
        row["n%d" % k] = r["n2"]
    row["mean"] = "%.4f" % (sum(float(row["rep%d" % k]) for k in range(2, 7)) / 5)
    return row


def sift_one(evalkp, seq, target, tmp):
    """OpenCV SIFT at a response threshold tuned like ours: image 1 keeps its `target` strongest
    keypoints (contrastThreshold lowered so that enough are found), every image keeps the
    keypoints above that response."""
    import cv2  # measuring tool only
    img1, pairs = sequence_files(seq)
    sift = cv2.SIFT_create(nfeatures=0, contrastThreshold=0.001)

    def kps_of(img):
        return sift.detect(cv2.imread(img, cv2.IMREAD_GRAYSCALE), None)

    def write(kp, path, t):
        kp = [k for k in kp if k.response > t]
        with open(path, "w") as f:
            for k in kp:
                f.write("%.3f %.3f %.3f\n" % (k.pt[0], k.pt[1], k.size))
        return kp

    name = os.path.basename(seq.rstrip("/"))
    all1 = kps_of(img1)
    resp = sorted((k.response for k in all1), reverse=True)
    t = 0.0 if len(resp) <= target else 0.5 * (resp[target - 1] + resp[target])
    k1 = os.path.join(tmp, name + "_sift1.txt")
    kps1 = write(all1, k1, t)
    w, h = image_size(img1)
    ks = [(k.pt[0], k.pt[1], k.size, k.response, 1.2 * k.size / 9) for k in kps1]
    dup, spread = duplicates_and_spread(ks, w, h)
    row = {"sequence": name, "config": "opencv-sift", "options": "cv2.SIFT_create(contrastThreshold=0.001), response > t",
           "threshold": "%.6g" % t, "kp1": len(kps1), "dup": "%.3f" % dup, "spread": "%.3f" % spread}
    for k, (imgk, hk) in enumerate(pairs, start=2):
        kk = os.path.join(tmp, "%s_sift%d.txt" % (name, k))
        write(kps_of(imgk), kk, t)
        r = parse_eval(run([evalkp, img1, k1, imgk, kk, hk]))
        row["rep%d" % k] = "%.4f" % r["rep"]
        row["n%d" % k] = r["n2"]
    row["mean"] = "%.4f" % (sum(float(row["rep%d" % k]) for k in range(2, 7)) / 5)
    return row


FIELDS = ["sequence", "config", "options", "threshold", "kp1", "dup", "spread",
          "rep2", "rep3", "rep4", "rep5", "rep6", "mean", "n2", "n3", "n4", "n5", "n6"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="build/cli/satfeat")
    ap.add_argument("--target", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--configs", default="defaults,L6o1u0",
                    help="comma list of names from CONFIGS or NAME=OPTIONS (use threshold=T "
                         "for a fixed threshold)")
    ap.add_argument("--csv", required=True, help="append rows here")
    ap.add_argument("--sift", action="store_true", help="also OpenCV SIFT (needs python3-opencv)")
    ap.add_argument("sequences", nargs="+")
    a = ap.parse_args()
    configs = []
    for c in a.configs.split(","):
        if "=" in c.split(" ")[0] and not c.startswith("threshold="):
            n, o = c.split("=", 1)
            configs.append((n, o))
        else:
            configs.append((c, CONFIGS[c]))
    jobs = []
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "satfeat-study-%d" % os.getpid())
    os.makedirs(tmp, exist_ok=True)
    evalkp = os.path.join(tmp, "eval_keypoints")
    lib = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(a.bin))), "libsatfeat.a")
    run(["cc", "-O2", "-std=c11", "-I" + os.path.join(root, "include"),
         os.path.join(here, "eval_keypoints.c"), lib, "-lpng", "-lz", "-lm", "-fopenmp",
         "-o", evalkp])
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for seq in a.sequences:
            for n, o in configs:
                jobs.append(ex.submit(study_one, a.bin, seq, n, o, a.target, evalkp, tmp))
        if a.sift:
            for seq in a.sequences:
                jobs.append(ex.submit(sift_one, evalkp, seq, a.target, tmp))
        new = not os.path.exists(a.csv)
        with open(a.csv, "a", newline="") as f:
            wr = csv.DictWriter(f, FIELDS)
            if new:
                wr.writeheader()
            for j in cf.as_completed(jobs):
                row = j.result()
                wr.writerow(row)
                f.flush()
                print("%-22s %-10s t=%-12s kp=%-5s dup=%s spread=%s rep %s %s %s %s %s mean %s" % (
                    row["sequence"], row["config"], row["threshold"], row["kp1"], row["dup"],
                    row["spread"], row["rep2"], row["rep3"], row["rep4"], row["rep5"], row["rep6"],
                    row["mean"]), flush=True)


if __name__ == "__main__":
    sys.exit(main())

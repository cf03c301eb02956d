#!/usr/bin/python3
"""ar_opencv_anchor.py - the OpenCV anchors of the AR evaluation (docs/AR.md, "Measured").

On a folder written by satfeat_gen_ar_sequence (frameNNN.png, camera.txt, poses.txt with the
exact poses and the visible fraction of the target), runs per frame

  sift     SIFT on the frame, 2-NN brute-force matching against the reference's SIFT with
           Lowe's ratio 0.8, cv2.findHomography RANSAC (3 px), then cv2.solvePnP with
           SOLVEPNP_IPPE on the homography's inliers;
  sift-lk  the same detection, then the inliers followed frame to frame by pyramidal
           Lucas-Kanade (cv2.calcOpticalFlowPyrLK, 21 x 21 window, 3 levels, a forward-backward
           check of 1 px), a RANSAC homography over the followed points and IPPE on its inliers;
           it detects again when the followed inliers fall under half of those of the last
           detection or under --min-inliers,

and prints one `result` line per method with the measures of satfeat_ar_eval
(tests/ar_sequence_eval.c defines them; they are computed here the same way): recall over the
frames with >= 50% of the target visible (and correct recall: the poses within 5 degrees and 5%
of the distance of the truth), false poses on the frames with none of it visible,
rotation error (degrees) and translation error (% of the distance) median (element n / 2 of the
sorted errors) and 90th percentile (element 9n / 10), re-entries and the most visible frames
from a re-entry to the next pose, and frames per second of the method alone (reading excluded).
Keypoints are undistorted (cv2.undistortPoints with the camera's k1, k2) before the homography,
so both use the pinhole model as satfeat's session does. A pose is reported when the homography
has at least --min-inliers inliers (default 15, as satfeat's 16 for a detection).

usage: /usr/bin/python3 bench/ar_opencv_anchor.py --dir DIR --photo REF --target-width M
                                                  [--name LABEL] [--methods sift,sift-lk]
"""
import argparse
import math
import os
import sys
import time

import cv2
import numpy as np


def read_sequence(d):
    with open(os.path.join(d, "camera.txt")) as f:
        fx, fy, cx, cy, k1, k2 = (float(v) for v in f.read().split())
    K = np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]], dtype=np.float64)
    dist = np.array([k1, k2, 0, 0, 0], dtype=np.float64)
    truth = []
    with open(os.path.join(d, "poses.txt")) as f:
        for line in f:
            v = line.split()
            if not v:
                continue
            t = np.array([float(x) for x in v[1:4]])
            R, _ = cv2.Rodrigues(np.array([float(x) for x in v[4:7]]))
            truth.append((int(v[0]), R, t, float(v[7])))
    return K, dist, truth


# a correct pose: within these of the truth (tests/ar_sequence_eval.h's AR_SEQ_CORRECT_*)
CORRECT_DEG, CORRECT_REL = 5.0, 0.05


class Measures:
    """The bookkeeping of tests/ar_sequence_eval.c's acc_add / acc_finish."""

    def __init__(self):
        self.frames = self.visible = self.posed = self.correct = self.absent = self.false = 0
        self.reentries = self.recover = 0
        self.waiting, self.was_visible = -1, True
        self.rot, self.tr = [], []

    def add(self, R_true, t_true, vis, pose):
        self.frames += 1
        posed = pose is not None
        if vis == 0.0:
            self.absent += 1
            self.false += posed
        visible = vis >= 0.5
        if visible and not self.was_visible:
            self.waiting = 0
            self.reentries += 1
        if self.waiting >= 0:
            if posed:
                self.recover = max(self.recover, self.waiting)
                self.waiting = -1
            elif visible:
                self.waiting += 1
        self.was_visible = visible
        if visible:
            self.visible += 1
            if posed:
                self.posed += 1
                R, t = pose
                c = (np.trace(R_true.T @ R) - 1.0) / 2.0
                self.rot.append(math.degrees(math.acos(max(-1.0, min(1.0, c)))))
                self.tr.append(np.linalg.norm(t_true - t) / np.linalg.norm(t_true))
                self.correct += self.rot[-1] <= CORRECT_DEG and self.tr[-1] <= CORRECT_REL

    def line(self, name, method, seconds):
        self.recover = max(self.recover, self.waiting)
        rot, tr = sorted(self.rot), sorted(self.tr)
        n = len(rot)
        med = lambda a: a[n // 2] if n else 0.0  # noqa: E731
        p90 = lambda a: a[(9 * n) // 10] if n else 0.0  # noqa: E731
        recall = self.posed / self.visible if self.visible else 1.0
        recall_correct = self.correct / self.visible if self.visible else 1.0
        fps = self.frames / seconds if seconds > 0 else 0.0
        return (f"result seq={name} method={method} frames={self.frames} visible={self.visible} "
                f"posed={self.posed} recall={recall:.4f} correct={self.correct} "
                f"recall_correct={recall_correct:.4f} absent={self.absent} false={self.false} "
                f"other=0 targets=1 rot_med={med(rot):.4f} rot_p90={p90(rot):.4f} "
                f"tr_med={100 * med(tr):.4f} tr_p90={100 * p90(tr):.4f} "
                f"reentries={self.reentries} recover={self.recover} fps={fps:.2f} digest=-")


class Anchor:
    def __init__(self, ref, width_m, K, dist, min_inliers, lk):
        self.sift = cv2.SIFT_create()
        self.matcher = cv2.BFMatcher(cv2.NORM_L2)
        kp, self.ref_desc = self.sift.detectAndCompute(ref, None)
        s = width_m / ref.shape[1]
        self.ref_px = np.array([k.pt for k in kp], dtype=np.float64).reshape(-1, 2)
        self.ref_obj = np.hstack([self.ref_px * s, np.zeros((len(kp), 1))])
        self.K, self.dist, self.min_inliers, self.lk = K, dist, min_inliers, lk
        self.prev = None  # LK state: previous frame, its points (frame pixels), their indices
        self.det_inliers = 0

    def undistort(self, pts):
        return cv2.undistortPoints(pts.reshape(-1, 1, 2), self.K, self.dist,
                                   P=self.K).reshape(-1, 2)

    def pose(self, idx, pts):
        """Homography RANSAC over reference -> undistorted frame points, IPPE on its inliers;
        (R, t, inlier mask) or None."""
        if len(idx) < max(4, self.min_inliers):
            return None
        und = self.undistort(pts)
        H, mask = cv2.findHomography(self.ref_px[idx], und, cv2.RANSAC, 3.0)
        if H is None:
            return None
        mask = mask.ravel().astype(bool)
        if mask.sum() < self.min_inliers:
            return None
        ok, rvec, tvec = cv2.solvePnP(self.ref_obj[idx][mask], und[mask], self.K, None,
                                      flags=cv2.SOLVEPNP_IPPE)
        if not ok:
            return None
        R, _ = cv2.Rodrigues(rvec)
        return R, tvec.ravel(), mask

    def detect(self, frame):
        kp, desc = self.sift.detectAndCompute(frame, None)
        if desc is None or len(kp) < 2 or self.ref_desc is None or len(self.ref_desc) < 2:
            return None
        idx, pts = [], []
        for m in self.matcher.knnMatch(desc, self.ref_desc, k=2):
            if len(m) == 2 and m[0].distance < 0.8 * m[1].distance:
                idx.append(m[0].trainIdx)
                pts.append(kp[m[0].queryIdx].pt)
        if not idx:
            return None
        idx, pts = np.array(idx), np.array(pts, dtype=np.float64)
        r = self.pose(idx, pts)
        if r is None:
            return None
        return r[0], r[1], idx[r[2]], pts[r[2]]

    def follow(self, frame):
        prev_img, prev_pts, idx = self.prev
        p0 = prev_pts.astype(np.float32).reshape(-1, 1, 2)
        lk = dict(winSize=(21, 21), maxLevel=3,
                  criteria=(cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 0.01))
        p1, st, _ = cv2.calcOpticalFlowPyrLK(prev_img, frame, p0, None, **lk)
        if p1 is None:
            return None
        back, st2, _ = cv2.calcOpticalFlowPyrLK(frame, prev_img, p1, None, **lk)
        good = (st.ravel() == 1) & (st2.ravel() == 1) & \
            (np.linalg.norm((back - p0).reshape(-1, 2), axis=1) < 1.0)
        pts = p1.reshape(-1, 2)[good].astype(np.float64)
        r = self.pose(idx[good], pts)
        if r is None or r[2].sum() < max(self.min_inliers, self.det_inliers // 2):
            return None
        return r[0], r[1], idx[good][r[2]], pts[r[2]]

    def process(self, frame):
        r = self.follow(frame) if (self.lk and self.prev is not None) else None
        if r is None:
            r = self.detect(frame)
            if r is not None:
                self.det_inliers = len(r[2])
        self.prev = (frame, r[3], r[2]) if (self.lk and r is not None) else None
        return None if r is None else (r[0], r[1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--photo", required=True)
    ap.add_argument("--target-width", type=float, required=True)
    ap.add_argument("--name", default=None)
    ap.add_argument("--methods", default="sift,sift-lk")
    ap.add_argument("--min-inliers", type=int, default=15)
    a = ap.parse_args()
    cv2.setNumThreads(2)
    K, dist, truth = read_sequence(a.dir)
    ref = cv2.imread(a.photo, cv2.IMREAD_GRAYSCALE)
    if ref is None:
        sys.exit(f"cannot read {a.photo}")
    frames = []
    for k, _, _, _ in truth:
        img = cv2.imread(os.path.join(a.dir, f"frame{k:03d}.png"), cv2.IMREAD_GRAYSCALE)
        if img is None:
            sys.exit(f"cannot read frame {k} in {a.dir}")
        frames.append(img)
    name = a.name or os.path.basename(os.path.normpath(a.dir))
    for method in a.methods.split(","):
        anchor = Anchor(ref, a.target_width, K, dist, a.min_inliers, method == "sift-lk")
        m, seconds = Measures(), 0.0
        for (k, R, t, vis), img in zip(truth, frames):
            t0 = time.perf_counter()
            pose = anchor.process(img)
            seconds += time.perf_counter() - t0
            m.add(R, t, vis, pose)
        print(m.line(name, method, seconds), flush=True)


if __name__ == "__main__":
    main()

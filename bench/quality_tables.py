#!/usr/bin/env python3
"""quality_tables.py - Markdown tables of docs/QUALITY.md from the CSV files that
bench/defaults_study.py writes.

usage: quality_tables.py CSV... [--surf .73,.68,.63,.67,.39]
Prints, per sequence, one row per configuration (threshold, image-1 keypoints, near-duplicate
fraction, grid spread, repeatability 1->2 .. 1->6, mean), then a summary: mean repeatability per
configuration and sequence, its mean over the sequences, and on how many sequences each
configuration is at least as repeatable (by the mean) as OpenCV SIFT.
Standard library only.
"""
import csv
import sys


def main():
    args = sys.argv[1:]
    rows = []
    for path in args:
        with open(path, newline="") as f:
            rows += list(csv.DictReader(f))
    seqs = []
    configs = []
    for r in rows:
        if r["sequence"] not in seqs:
            seqs.append(r["sequence"])
        if r["config"] not in configs:
            configs.append(r["config"])
    by = {(r["sequence"], r["config"]): r for r in rows}
    for s in seqs:
        print("\n#### %s\n" % s)
        print("| configuration | threshold | kps img1 | dup | spread | 1->2 | 1->3 | 1->4 | 1->5 | 1->6 | mean |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for c in sorted(configs, key=lambda c: -float(by[(s, c)]["mean"]) if (s, c) in by else 0):
            r = by.get((s, c))
            if not r:
                continue
            reps = " | ".join("%.3f" % float(r["rep%d" % k]) for k in range(2, 7))
            print("| %s | %s | %s | %s | %s | %s | %.3f |" % (c, r["threshold"], r["kp1"], r["dup"],
                                                          r["spread"], reps, float(r["mean"])))
    print("\n#### Summary: mean repeatability (1->2 .. 1->6) per sequence\n")
    print("| configuration | " + " | ".join(seqs) + " | mean | >= SIFT on |")
    print("|---|" + "---|" * (len(seqs) + 2))
    summary = []
    for c in configs:
        vals = [float(by[(s, c)]["mean"]) if (s, c) in by else None for s in seqs]
        got = [v for v in vals if v is not None]
        wins = sum(1 for s, v in zip(seqs, vals) if v is not None and (s, "opencv-sift") in by
                   and v >= float(by[(s, "opencv-sift")]["mean"]))
        nsift = sum(1 for s, v in zip(seqs, vals) if v is not None and (s, "opencv-sift") in by)
        summary.append((sum(got) / len(got), c, vals, wins, nsift))
    for m, c, vals, wins, nsift in sorted(summary, reverse=True):
        cells = " | ".join("%.3f" % v if v is not None else "-" for v in vals)
        print("| %s | %s | %.3f | %s |" % (c, cells, m,
                                           "%d/%d" % (wins, nsift) if c != "opencv-sift" else "-"))


if __name__ == "__main__":
    sys.exit(main())

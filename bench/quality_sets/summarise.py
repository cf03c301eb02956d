#!/usr/bin/env python3
"""summarise.py - the tables of docs/EVALUATION.md from satfeat_eval_quality's TSV rows.

For each measure (repeatability, matching score, precision) and each method: the mean over
the five pairs of every set, then the mean over the tuning sets, the worst tuning set, the mean
over the held-out sets and boat (the Oxford sequence, when it was evaluated).
Standard library only.

usage: summarise.py TSV... [--measures rep,score,precision] [--sets]
  --sets  also print the per-set tables
"""
import csv
import sys

NAMES = {"rep": "repeatability", "score": "matching score", "precision": "precision"}


def load(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            rows += list(csv.DictReader(f, delimiter="\t"))
    return rows


def per_set(rows, measure):
    """{(method, set): (role, mean over pairs)} in first-seen order."""
    acc = {}
    for r in rows:
        key = (r["method"], r["set"])
        acc.setdefault(key, [r["role"], []])[1].append(float(r[measure]))
    return {k: (v[0], sum(v[1]) / len(v[1])) for k, v in acc.items()}


def summary(ps, methods):
    out = {}
    for m in methods:
        tun = [(v, s) for (mm, s), (role, v) in ps.items() if mm == m and role == "tuning"]
        ho = [v for (mm, s), (role, v) in ps.items() if mm == m and role == "heldout"]
        boat = [v for (mm, s), (role, v) in ps.items() if mm == m and role == "boat"]
        worst = min(tun) if tun else (float("nan"), "-")
        out[m] = (sum(v for v, _ in tun) / len(tun) if tun else float("nan"), worst,
                  sum(ho) / len(ho) if ho else float("nan"), boat[0] if boat else float("nan"),
                  len(tun), len(ho))
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show_sets = "--sets" in sys.argv
    measures = ["rep", "score", "precision"]
    rows = load(args)
    methods = []
    sets = []
    for r in rows:
        if r["method"] not in methods:
            methods.append(r["method"])
        if (r["set"], r["role"]) not in sets:
            sets.append((r["set"], r["role"]))
    for meas in measures:
        ps = per_set(rows, meas)
        sm = summary(ps, methods)
        print("\n%s (mean of pairs 1->2 .. 1->6):\n" % NAMES[meas])
        print("| method | tuning mean | worst tuning set | held-out mean | boat |")
        print("|---|---|---|---|---|")
        for m in methods:
            t, (wv, ws), h, b, nt, nh = sm[m]
            print("| %s | %.3f | %.3f (%s) | %.3f | %.3f |" % (m, t, wv, ws, h, b))
        if show_sets:
            print("\n| set | role | " + " | ".join(methods) + " |")
            print("|---|---|" + "---|" * len(methods))
            for s, role in sets:
                cells = ["%.3f" % ps[(m, s)][1] if (m, s) in ps else "-" for m in methods]
                print("| %s | %s | %s |" % (s, role, " | ".join(cells)))


if __name__ == "__main__":
    sys.exit(main())

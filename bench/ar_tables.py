#!/usr/bin/python3
"""ar_tables.py - the markdown tables of docs/AR.md ("Measured") from the `result` lines of
satfeat_ar_eval and bench/ar_opencv_anchor.py (bench/ar_tables.sh runs them).

usage: ar_tables.py SEQUENCES.txt RESULTS.txt
SEQUENCES.txt: `name photo width_m path frames tune|held` per line. One table per measure, rows
the sequences used in tuning, their mean and worst, then the held-out ones, their mean and
worst; columns satfeat (CPU), OpenCV SIFT per frame, SIFT + LK."""
import math
import os
import sys

METHODS = [("ours", "satfeat"), ("sift", "SIFT"), ("sift-lk", "SIFT + LK")]


def read(seq_path, res_path):
    seqs = []
    with open(seq_path) as f:
        for line in f:
            v = line.split()
            if v:
                seqs.append(dict(name=v[0], photo=os.path.basename(v[1]), width=v[2], path=v[3],
                                 frames=v[4], set=v[5]))
    res = {}
    with open(res_path) as f:
        for line in f:
            if line.startswith("result "):
                kv = dict(x.split("=", 1) for x in line.split()[1:])
                res[(kv["seq"], kv["method"])] = kv
    return seqs, res


# measure: (title, cell text of a result, value for mean/worst or None, worst is max?)
def num(kv, key):
    return float(kv[key])


def posed(kv):
    return int(kv["posed"]) > 0


MEASURES = [
    ("Recall (frames with >= 50% of the target visible that get a pose)",
     lambda kv: f"{num(kv, 'recall'):.3f}", lambda kv: num(kv, "recall"), False, ".3f"),
    ("Correct recall (frames with >= 50% of the target visible that get a pose within 5 degrees "
     "and 5% of the distance of the truth)",
     lambda kv: f"{num(kv, 'recall_correct'):.3f}", lambda kv: num(kv, "recall_correct"), False,
     ".3f"),
    ("False poses (poses on frames with none of the target visible, of such frames)",
     lambda kv: f"{kv['false']} of {kv['absent']}", lambda kv: num(kv, "false"), True, ".2f"),
    ("Rotation error, degrees: median / 90th percentile (mean and worst: of the medians)",
     lambda kv: f"{num(kv, 'rot_med'):.2f} / {num(kv, 'rot_p90'):.2f}" if posed(kv) else "no pose",
     lambda kv: num(kv, "rot_med") if posed(kv) else math.inf, True, ".2f"),
    ("Translation error, % of the distance: median / 90th percentile (mean and worst: of the "
     "medians)",
     lambda kv: f"{num(kv, 'tr_med'):.2f} / {num(kv, 'tr_p90'):.2f}" if posed(kv) else "no pose",
     lambda kv: num(kv, "tr_med") if posed(kv) else math.inf, True, ".2f"),
    ("Frames to recover after re-entry (most over the re-entries; - when none)",
     lambda kv: kv["recover"] if int(kv["reentries"]) else "-",
     lambda kv: num(kv, "recover") if int(kv["reentries"]) else None, True, ".1f"),
    ("Frames per second (the method alone, reading excluded; this machine's load varies)",
     lambda kv: f"{num(kv, 'fps'):.1f}", lambda kv: num(kv, "fps"), False, ".1f"),
]


def summary(label, rows, res, value, worst_is_max, fmt):
    cells = []
    for m, _ in METHODS:
        vals = [value(res[(s["name"], m)]) for s in rows if (s["name"], m) in res]
        vals = [v for v in vals if v is not None]
        if not vals:
            cells.append(("-", "-"))
            continue
        finite = [v for v in vals if math.isfinite(v)]
        mean = format(sum(finite) / len(finite), fmt) if finite else "-"
        if len(finite) < len(vals):
            mean += f" ({len(vals) - len(finite)} without pose)"
        w = max(vals) if worst_is_max else min(vals)
        cells.append((mean, "no pose" if not math.isfinite(w) else format(w, fmt)))
    return [f"| **{label} mean** | | | " + " | ".join(c[0] for c in cells) + " |",
            f"| **{label} worst** | | | " + " | ".join(c[1] for c in cells) + " |"]


def main():
    seqs, res = read(sys.argv[1], sys.argv[2])
    out = []
    for title, cell, value, worst_is_max, fmt in MEASURES:
        out.append(f"**{title}**\n")
        out.append("| sequence | target | path (frames) | " +
                   " | ".join(t for _, t in METHODS) + " |")
        out.append("|---|---|---|" + "---|" * len(METHODS))
        for group, label in (("tune", "tuning"), ("held", "held-out")):
            rows = [s for s in seqs if s["set"] == group]
            if group == "held":
                out.append("| *held out* | | | " + " | ".join("" for _ in METHODS) + " |")
            for s in rows:
                cells = [cell(res[(s["name"], m)]) if (s["name"], m) in res else "-"
                         for m, _ in METHODS]
                out.append(f"| {s['name']} | {s['photo']} ({s['width']} m) | "
                           f"{s['path']} ({s['frames']}) | " + " | ".join(cells) + " |")
            out += summary(label, rows, res, value, worst_is_max, fmt)
        out.append("")
    multi = [s for s in seqs if (s["name"], "ours-10") in res and (s["name"], "ours") in res]
    if multi:
        out.append("**More targets: satfeat (CPU) with 1 and with 10 targets in the session "
                   "(9 of them never in view) on the same frames**\n")
        out.append("| sequence | frames/s, 1 target | frames/s, 10 targets | time ratio | "
                   "recall 1 / 10 | poses of the 9 absent targets |")
        out.append("|---|---|---|---|---|---|")
        for s in multi:
            one, ten = res[(s["name"], "ours")], res[(s["name"], "ours-10")]
            ratio = num(one, "fps") / num(ten, "fps") if num(ten, "fps") > 0 else math.inf
            out.append(f"| {s['name']} | {num(one, 'fps'):.1f} | {num(ten, 'fps'):.1f} | "
                       f"{ratio:.2f} | {num(one, 'recall'):.3f} / {num(ten, 'recall'):.3f} | "
                       f"{ten['other']} |")
        out.append("")
    out.append("**Digest of satfeat's poses (FNV-1a 64 of satfeat_ar_eval's pose lines; "
               "`--backend cuda` must print the same)**\n")
    out.append("| sequence | digest |")
    out.append("|---|---|")
    for s in seqs:
        if (s["name"], "ours") in res:
            out.append(f"| {s['name']} | `{res[(s['name'], 'ours')]['digest']}` |")
    out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""summarise_analysis.py - the "where matches are lost" table of docs/EVALUATION.md from the rows
that `satfeat_eval_quality --analyse FILE` writes (one row a pair).

Per set, and over all tuning and all held-out sets: partners / min(n1, n2) and each loss as a
fraction of the partners, from the counts summed over the pairs; the orientation, scale and
distance columns are the means over the pairs of the per-pair medians (and fractions).
Standard library only.

usage: summarise_analysis.py ANALYSIS.tsv
"""
import csv
import sys

LOSSES = ["ok", "lost_laplacian", "lost_nn_orientation", "lost_nn_descriptor", "lost_ratio",
          "lost_mutual"]
MEDIANS = ["ori_med_deg", "ori_within10", "scale_med_log2", "d_true_med", "d_false_med",
           "true_nearer"]


def row(label, role, rows):
    min_n = sum(int(r["min_n"]) for r in rows)
    partners = sum(int(r["partners"]) for r in rows)
    cells = [label, role, "%.3f" % (partners / min_n if min_n else 0.0)]
    for c in LOSSES:
        cells.append("%.3f" % (sum(int(r[c]) for r in rows) / partners if partners else 0.0))
    mean = {c: sum(float(r[c]) for r in rows) / len(rows) for c in MEDIANS}
    cells += ["%.1f" % mean["ori_med_deg"], "%.3f" % mean["ori_within10"],
              "%.3f" % mean["scale_med_log2"],
              "%.3f / %.3f" % (mean["d_true_med"], mean["d_false_med"]),
              "%.3f" % mean["true_nearer"]]
    return "| " + " | ".join(cells) + " |"


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    with open(argv[1], newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    sets = {}
    for r in rows:
        sets.setdefault((r["set"], r["role"]), []).append(r)
    print("| set | role | partner within 3 px / min(n1,n2) | matched | lost: Laplacian gate | "
          "lost: NN wrong, orientation error > 20 deg | lost: NN wrong, orientation within 20 deg | "
          "lost: ratio test | lost: mutual check | median orientation error (deg) | "
          "orientation within 10 deg | median scale error (log2) | "
          "median distance true / nearest false | true nearer than every false |")
    print("|" + "---|" * 14)
    for (name, role), rs in sorted(sets.items(), key=lambda s: (s[0][1] == "boat", s[0][0])):
        print(row(name, role, rs))
    for role, label in (("tuning", "**all tuning sets**"), ("heldout", "**all held-out sets**")):
        rs = [r for r in rows if r["role"] == role]
        if rs:
            print(row(label, role, rs))


if __name__ == "__main__":
    main(sys.argv)

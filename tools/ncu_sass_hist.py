#!/usr/bin/env python3
"""ncu_sass_hist.py - where a kernel's instructions go: reads the CSV of
`ncu --import REPORT --page source --csv --print-source sass` on standard input and prints the
executed instructions and stall samples per SASS opcode, the code regions (instructions that run
equally often) by their share, the hottest instructions, then (where the CSV has the memory
columns) each memory opcode's L1 work: shared-memory wavefronts against the conflict-free ideal,
global tag requests and L2 sectors.
Usage: ncu --import r.ncu-rep --page source --csv --print-source sass | tools/ncu_sass_hist.py [N]
"""
import csv
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def main():
    top = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    rows = [r for r in csv.reader(sys.stdin)]
    head = next((i for i, r in enumerate(rows) if "Source" in r), None)
    if head is None:
        sys.exit("no 'Source' column in the input")
    cols = rows[head]
    src = cols.index("Source")
    exe = next((i for i, c in enumerate(cols) if c.startswith("Instructions Executed")), None)
    stall = next((i for i, c in enumerate(cols) if c.startswith("Warp Stall Sampling (All")), None)
    if exe is None:
        sys.exit("no 'Instructions Executed' column; columns: " + ", ".join(cols))
    by_op, lines = {}, []
    for r in rows[head + 1:]:
        if len(r) <= max(src, exe):
            continue
        text = r[src].strip()
        op = opcode(text, 1)
        e = number(r[exe])
        s = number(r[stall]) if stall is not None and stall < len(r) else 0.0
        t = by_op.setdefault(op, [0.0, 0.0])
        t[0] += e
        t[1] += s
        lines.append((e, s, text))
    total = sum(v[0] for v in by_op.values()) or 1.0
    stalls = sum(v[1] for v in by_op.values()) or 1.0
    print("opcode executed(warp-inst) share stall-share")
    for op, (e, s) in sorted(by_op.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"{op:12s} {e:14.0f} {100 * e / total:6.2f}% {100 * s / stalls:6.2f}%")
    print(f"total {total:.0f}")
    print("code regions (instructions executed the same number of times), largest first:")
    regions = {}
    for e, s, text in lines:
        reg = regions.setdefault(e, [0, 0.0, text])
        reg[0] += 1
        reg[1] += s
    for e, (n, s, first) in sorted(regions.items(), key=lambda kv: -kv[0] * kv[1][0])[:top // 2]:
        print(f"{e:12.0f} x {n:5d} instructions = {100 * e * n / total:6.2f}%  stall {100 * s / stalls:6.2f}%  first: {first}")
    print("hottest instructions by stall samples:")
    for e, s, text in sorted(lines, key=lambda x: -x[1])[:top]:
        print(f"{s:8.0f} {e:12.0f}  {text}")
    memory_by_opcode(rows, head, src)


MEMORY_COLUMNS = ("L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal", "L1 Tag Requests Global",
                  "L2 Theoretical Sectors Global")


def opcode(text, parts):
    """The opcode of a SASS line without its predicate, with its first `parts` dot-separated
    parts (1: the bare opcode; 3: with its width, e.g. LDS.128)."""
    words = text.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return ".".join(words[0].split(".")[:parts]) if words else "?"


def memory_by_opcode(rows, head, src):
    """The L1 work of each memory opcode (with its width): shared-memory wavefronts against the
    conflict-free ideal, global tag requests and L2 sectors, when the CSV has those columns."""
    cols = rows[head]
    idx = [cols.index(c) if c in cols else None for c in MEMORY_COLUMNS]
    if all(i is None for i in idx):
        return
    by_op = {}
    for r in rows[head + 1:]:
        if len(r) <= src:
            continue
        op = opcode(r[src], 3)
        vals = [number(r[i]) if i is not None and i < len(r) else 0.0 for i in idx]
        if not any(vals):
            continue
        t = by_op.setdefault(op, [0.0] * len(vals))
        for k, v in enumerate(vals):
            t[k] += v
    print("memory opcodes: shared wavefronts (ideal), global L1 tag requests, L2 sectors, millions:")
    for op, v in sorted(by_op.items(), key=lambda kv: -(kv[1][0] + kv[1][2]))[:12]:
        print(f"{op:20s} {v[0] / 1e6:8.2f} ({v[1] / 1e6:6.2f}) {v[2] / 1e6:8.2f} {v[3] / 1e6:8.2f}")


if __name__ == "__main__":
    main()

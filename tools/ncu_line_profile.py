#!/usr/bin/env python3
"""ncu_line_profile.py - where a kernel's instructions and stalls go, by source line.

Joins two files that tools/device-line-profile.sh writes on the GPU machine:
  - the CSV of `ncu --import R --page source --csv --print-source sass` (per SASS instruction:
    address, instructions executed, warp stall samples), and
  - `nvdisasm -g -c` of the same build's cubin (per instruction offset: the source file and line
    it came from, the innermost inlined one).
The kernel's first instruction in the CSV is offset 0 of its function in the disassembly. Prints
the source lines with the largest share of executed warp instructions, with their share of the
stall samples and the line's text from SRC_DIR; then, where the CSV has the per-reason stall
columns (stall_*), the overall stall reasons and the lines with the most stall samples with
their main reasons (a barrier's wait is charged to the first instruction after it).

Usage: ncu_line_profile.py SASS_CSV DISASM KERNEL_SUBSTRING SRC_DIR [N]
"""
import collections
import csv
import os
import re
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def line_of_offsets(disasm, kernel):
    """Offset -> (file name, line) for the function whose section name contains `kernel`."""
    inside, where, table = False, None, {}
    with open(disasm) as f:
        for text in f:
            if text.startswith("//---------------------"):
                inside = kernel in text
                continue
            if not inside:
                continue
            m = re.match(r'\s*//## File "([^"]+)", line (\d+)', text)
            if m:
                where = (os.path.basename(m.group(1)), int(m.group(2)))
                continue
            m = re.match(r"\s*/\*([0-9a-f]{4,})\*/", text)
            if m:
                table[int(m.group(1), 16)] = where
    return table


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    sass_csv, disasm, kernel, src_dir = sys.argv[1:5]
    top = int(sys.argv[5]) if len(sys.argv) > 5 else 40
    where = line_of_offsets(disasm, kernel)
    if not where:
        sys.exit("no function matching %r in %s" % (kernel, disasm))
    with open(sass_csv) as f:
        rows = list(csv.reader(f))
    head = next((i for i, r in enumerate(rows) if "Address" in r and "Source" in r), None)
    if head is None:
        sys.exit("no 'Address' / 'Source' columns in " + sass_csv)
    cols = rows[head]
    addr = cols.index("Address")
    exe = next(i for i, c in enumerate(cols) if c.startswith("Instructions Executed"))
    stall = next(i for i, c in enumerate(cols) if c.startswith("Warp Stall Sampling (All"))
    data = [r for r in rows[head + 1:] if len(r) > exe and r[addr].startswith("0x")]
    base = int(data[0][addr], 16)
    per = collections.defaultdict(lambda: [0.0, 0.0])
    reasons = [(i, c[len("stall_"):]) for i, c in enumerate(cols)
               if c.startswith("stall_") and "Not Issued" not in c]
    why = collections.defaultdict(collections.Counter)  # line -> stall reason -> samples
    total = [0.0, 0.0]
    unmapped = 0
    for r in data:
        key = where.get(int(r[addr], 16) - base)
        unmapped += key is None
        e, s = number(r[exe]), number(r[stall])
        per[key][0] += e
        per[key][1] += s
        total[0] += e
        total[1] += s
        for i, name in reasons:
            if i < len(r):
                why[key][name] += number(r[i])
    print("instructions %.0f, stall samples %.0f, SASS rows %d (%d without a line)"
          % (total[0], total[1], len(data), unmapped))
    print(" inst%  stall%  line")
    sources = {}
    for key, (e, s) in sorted(per.items(), key=lambda kv: -kv[1][0])[:top]:
        text = ""
        if key:
            if key[0] not in sources:
                path = os.path.join(src_dir, key[0])
                sources[key[0]] = open(path).read().split("\n") if os.path.exists(path) else []
            lines = sources[key[0]]
            text = lines[key[1] - 1].strip()[:72] if 0 < key[1] <= len(lines) else ""
        label = "%s:%d" % key if key else "?"
        print("%6.2f %7.2f  %-26s %s" % (100 * e / total[0], 100 * s / max(total[1], 1), label, text))
    if not reasons:
        return
    # where the warps wait: the lines with the most stall samples and their main reasons (a
    # barrier's wait is charged to the first instruction after it)
    overall = collections.Counter()
    for c in why.values():
        overall.update(c)
    print("stall reasons, all lines: " + ", ".join(
        "%s %.1f%%" % (n, 100 * v / max(total[1], 1)) for n, v in overall.most_common(8)))
    print("stall%  line                        main reasons (% of all samples)")
    for key, (e, s) in sorted(per.items(), key=lambda kv: -kv[1][1])[:top // 2]:
        label = "%s:%d" % key if key else "?"
        main_reasons = ", ".join("%s %.1f" % (n, 100 * v / max(total[1], 1))
                                 for n, v in why[key].most_common(3) if v > 0)
        print("%6.2f  %-27s %s" % (100 * s / max(total[1], 1), label, main_reasons))


if __name__ == "__main__":
    main()

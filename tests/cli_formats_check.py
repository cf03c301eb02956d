#!/usr/bin/env python3
"""Reads `satfeat detect` output back in one format and compares it with the library's own lists.

usage: cli_formats_check.py FORMAT REFERENCE FILE...
  FORMAT     text, csv, json or oxford
  REFERENCE  the output of cli_reference_keypoints (exact hexadecimal numbers)
  FILE...    the command's output: one file holding every frame, or (oxford, --out-dir) one
             file per frame in frame order
csv, json and oxford must give back every number exactly (descriptors as float32); text must
equal the reference printed at text's documented precision. Exits 1 naming the first mismatch.
Standard library only.
"""
import csv
import json
import struct
import sys

FIELDS = ("x", "y", "size", "response", "sigma", "angle")
INTS = ("laplacian", "octave", "layer")


def keypoint(floats, ints, desc):
    """A keypoint dict from its six doubles, three ints and descriptor values (all parsed)."""
    kp = dict(zip(FIELDS, floats))
    kp.update(zip(INTS, ints))
    kp["desc"] = list(desc)
    return kp


def f32(v):
    """The float32 nearest to v, as a Python float."""
    return struct.unpack("f", struct.pack("f", v))[0]


def read_reference(path):
    """[(frame, [keypoint dict])] from cli_reference_keypoints."""
    frames = []
    with open(path) as f:
        for line in f:
            t = line.split()
            if t[0] == "frame":
                frames.append((int(t[1]), []))
                continue
            frames[-1][1].append(keypoint(map(float.fromhex, t[:6]), map(int, t[6:9]),
                                          map(float.fromhex, t[9:])))
    return frames


def read_text(paths):
    frames = []
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.startswith("# frame "):
                    frames.append((int(line.split()[2]), []))
                elif not line.startswith("#"):
                    t = line.split()
                    frames[-1][1].append({"text": t[:5], "ints": [int(v) for v in t[5:8]],
                                          "desc": [float(v) for v in t[8:]]})
    return frames


def read_csv(paths):
    frames = []
    for path in paths:
        with open(path, newline="") as f:
            rows = csv.reader(f)
            head = next(rows)
            want = ["frame", "image", *FIELDS, *INTS]
            if head[:11] != want:
                sys.exit(f"{path}: header {head[:11]}, expected {want}")
            for r in rows:
                k = int(r[0])
                if not frames or frames[-1][0] != k:
                    frames.append((k, []))
                frames[-1][1].append(keypoint(map(float, r[2:8]), map(int, r[8:11]),
                                              map(float, r[11:])))
    return frames


def read_json(paths):
    frames = []
    for path in paths:
        with open(path) as f:
            for line in f:
                o = json.loads(line)
                cols = o["keypoints"]
                n = o["count"]
                kps = []
                for i in range(n):
                    desc = o["descriptors"][i] if "descriptors" in o else []
                    kps.append(keypoint((float(cols[n][i]) for n in FIELDS),
                                        (int(cols[n][i]) for n in INTS), map(float, desc)))
                frames.append((o["frame"], kps))
    return frames


def read_oxford(paths):
    frames = []
    for k, path in enumerate(paths, 1):
        with open(path) as f:
            version = f.readline().strip()
            n = int(f.readline())
            kps = []
            for _ in range(n):
                t = f.readline().split()
                kps.append({"x": float(t[0]), "y": float(t[1]), "abc": [float(v) for v in t[2:5]],
                            "desc": [float(v) for v in t[5:]], "version": version})
            if f.read().strip():
                sys.exit(f"{path}: more lines than the count {n}")
        frames.append((k, kps))
    return frames


def expect(cond, what):
    if not cond:
        sys.exit("mismatch: " + what)


def compare(fmt, got, ref):
    expect(len(got) == len(ref), f"{len(got)} frames read, {len(ref)} in the reference")
    total = 0
    for (gk, gkps), (rk, rkps) in zip(got, ref):
        expect(gk == rk, f"frame {gk} where frame {rk} was expected")
        expect(len(gkps) == len(rkps), f"frame {gk}: {len(gkps)} keypoints, reference {len(rkps)}")
        for i, (g, r) in enumerate(zip(gkps, rkps)):
            where = f"frame {gk} keypoint {i}"
            if fmt == "text":
                want = ["%.3f" % r["x"], "%.3f" % r["y"], "%.3f" % r["size"], "%.6e" % r["response"],
                        "%.4f" % r["sigma"]]
                expect(g["text"] == want, f"{where}: {g['text']} != {want}")
                expect(g["ints"] == [r[n] for n in INTS], f"{where}: {g['ints']}")
            elif fmt == "oxford":
                expect((g["x"], g["y"]) == (r["x"], r["y"]), f"{where}: position")
                radius = 0.5 * r["size"]
                a = 1.0 / (radius * radius)
                expect(g["abc"] == [a, 0.0, a], f"{where}: {g['abc']} != {[a, 0.0, a]}")
                want_version = str(len(r["desc"])) if r["desc"] else "1.0"
                expect(g["version"] == want_version, f"version line {g['version']}")
            else:
                for name in FIELDS + INTS:
                    expect(g[name] == r[name], f"{where}: {name} {g[name]!r} != {r[name]!r}")
            expect([f32(v) for v in g["desc"]] == r["desc"], f"{where}: descriptor")
            total += 1
    print(f"{fmt}: {len(got)} frames, {total} keypoints equal to the library's")


def main():
    fmt, ref, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    readers = {"text": read_text, "csv": read_csv, "json": read_json, "oxford": read_oxford}
    compare(fmt, readers[fmt](files), read_reference(ref))


if __name__ == "__main__":
    main()

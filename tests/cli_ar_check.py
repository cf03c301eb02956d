"""cli_ar_check.py - `satfeat ar` on a rendered sequence with exact poses (satfeat_gen_ar_sequence):
the output format of the CLI contract, the states, nan pose fields exactly where the target is
lost, no pose on frames without the target, and the pose errors against poses.txt.

usage: cli_ar_check.py SATFEAT GEN_AR_SEQUENCE REF WORKDIR PATH FRAMES [--fov DEG] [--draw]
                       [--absent] [--tracked] [--min-recall R] [--photometric 0|1]
Exit 0 pass, 1 fail (the reason printed)."""
import math
import os
import shutil
import subprocess
import sys

FIELDS = "frame target state tx ty tz rx ry rz inliers reproj_px".split()


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def rodrigues(r):
    """The rotation matrix of a Rodrigues vector (rows)."""
    th = math.sqrt(sum(v * v for v in r))
    if th < 1e-15:
        return [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    k = [v / th for v in r]
    c, s = math.cos(th), math.sin(th)
    K = [[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]]
    return [[(1 if i == j else 0) * c + s * K[i][j] + (1 - c) * k[i] * k[j] for j in range(3)]
            for i in range(3)]


def angle_deg(a, b):
    """The angle of the rotation between two rotation matrices."""
    tr = sum(a[i][j] * b[i][j] for i in range(3) for j in range(3))
    return math.degrees(math.acos(max(-1.0, min(1.0, (tr - 1) / 2))))


def parse(text, frames):
    rows = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        f = line.split(" ")
        if len(f) != len(FIELDS):
            fail(f"line of {len(f)} fields: {line!r}")
        k, t, state = int(f[0]), int(f[1]), f[2]
        if t != 0 or not 1 <= k <= frames or k in rows:
            fail(f"bad frame/target numbering: {line!r}")
        if state not in ("found", "tracked", "lost"):
            fail(f"bad state: {line!r}")
        inl = int(f[9])
        vals = f[3:9] + [f[10]]
        if state == "lost":
            if vals != ["nan"] * 7 or inl != 0:
                fail(f"a lost target must have nan pose fields and 0 inliers: {line!r}")
        elif any(v == "nan" for v in vals) or inl < 8:
            fail(f"a posed target needs finite fields and inliers: {line!r}")
        rows[k] = (state, [float(v) for v in f[3:9]], inl, float(f[10]))
    if sorted(rows) != list(range(1, frames + 1)):
        fail(f"frames {sorted(rows)} instead of 1..{frames}")
    return rows


def main():
    sat, gen, ref, work, path, frames = sys.argv[1:7]
    frames = int(frames)
    extra = sys.argv[7:]
    seq = os.path.join(work, f"seq_{path}_{frames}")
    if not os.path.exists(os.path.join(seq, "poses.txt")):
        os.makedirs(seq, exist_ok=True)
        subprocess.run([gen, ref, "0.3", path, seq, "--frames", str(frames), "--supersample",
                        "2"], check=True)
    cam = [float(v) for v in open(os.path.join(seq, "camera.txt")).read().split()]
    cmd = [sat, "ar", "--target", ref, "--target-width", "0.3", seq, "--backend", "cpu",
           "--threads", "2", "-q"]
    if "--fov" in extra:
        cmd += ["--fov", extra[extra.index("--fov") + 1]]
    else:
        cmd += ["--camera", ",".join(repr(v) for v in cam[:4])]
    if cam[4] != 0 or cam[5] != 0:
        cmd += ["--distortion", f"{cam[4]!r},{cam[5]!r}"]
    if "--photometric" in extra:
        cmd += ["--photometric", extra[extra.index("--photometric") + 1]]
    draw = os.path.join(work, f"draw_{path}") if "--draw" in extra else None
    if draw:
        shutil.rmtree(draw, ignore_errors=True)
        cmd += ["--draw", draw]
    p = subprocess.run(cmd, capture_output=True, text=True)
    sys.stderr.write(p.stderr)
    if p.returncode != 0:
        fail(f"exit {p.returncode}: {' '.join(cmd)}")
    head = p.stdout.splitlines()[:4]
    if not (head[0] == f"# satfeat ar: {frames} frames, 1 targets" and
            head[1].startswith("# target 0 ") and head[2].startswith("# camera fx ") and
            head[3] == "# frame target state " + " ".join(FIELDS[3:])):
        fail(f"header: {head}")
    rows = parse(p.stdout, frames)
    if draw and len([n for n in os.listdir(draw) if n.endswith(".png")]) != frames:
        fail(f"--draw wrote {os.listdir(draw)}")
    rot, tr, visible, posed, false_poses = [], [], 0, 0, 0
    states = {"found": 0, "tracked": 0, "lost": 0}
    for line in open(os.path.join(seq, "poses.txt")):
        f = line.split()
        k, t, r, vis = int(f[0]), [float(v) for v in f[1:4]], [float(v) for v in f[4:7]], float(f[7])
        state, pose, _, _ = rows[k]
        states[state] += 1
        if vis == 0 and state != "lost":
            false_poses += 1
        if vis >= 0.5:
            visible += 1
            if state != "lost":
                posed += 1
                rot.append(angle_deg(rodrigues(r), rodrigues(pose[3:])))
                d = math.sqrt(sum(v * v for v in t))
                tr.append(math.sqrt(sum((a - b) ** 2 for a, b in zip(t, pose[:3]))) / d)
    rot.sort()
    tr.sort()
    print(f"{path}: {frames} frames, states {states}, recall {posed}/{visible}, false poses "
          f"{false_poses}, rotation median {rot[len(rot) // 2]:.3f} max {rot[-1]:.3f} deg, "
          f"translation median {100 * tr[len(tr) // 2]:.3f}% max {100 * tr[-1]:.3f}%")
    if false_poses:
        fail("a pose on a frame without the target")
    if states["found"] < 1 or ("--tracked" in extra and states["tracked"] < 1):
        fail("expected found (and with --tracked, tracked) frames")
    min_recall = float(extra[extra.index("--min-recall") + 1]) if "--min-recall" in extra else 0.8
    if posed < min_recall * visible:
        fail(f"recall below {min_recall}")
    if rot[len(rot) // 2] > 0.5 or tr[len(tr) // 2] > 0.01:
        fail("median pose error above 0.5 degree or 1% of the distance")
    if "--absent" in extra and states["lost"] < 1:
        fail("the sequence should have frames without the target")
    print("ok")


main()

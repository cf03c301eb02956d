"""Helpers of the batch tool's suites (test_batch_hostile.py, test_batch_chaos.py): generated
frames, a PNG writer for large legal images, the command line in a subprocess, file comparison."""
import os
import struct
import subprocess
import sys
import zlib

import h5py

from satfeat import features_h5


def gen_frames(tool, data_dir, folder, frames, size="160x120"):
    """`frames` frames of tools/gen_sequence.c from data/scene.png into `folder` (PNG)."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(tool("SATFEAT_GEN_SEQUENCE")), str(data_dir / "scene.png"), str(folder),
                    "--frames", str(frames), "--size", size],
                   check=True, stdout=subprocess.DEVNULL)
    for h in folder.glob("H1to*"):
        h.unlink()
    return sorted(folder.glob("*.png"))


def write_gray_png(path, width, height):
    """A legal 8-bit gray PNG of a repeating ramp, compressed row by row (a 16384x16384 one is
    2.6 MB on disk and 256 MiB decoded)."""
    def chunk(tag, data):
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data)))
    row = b"\x00" + bytes((x * 7) & 0xFF for x in range(width))  # filter byte 0, then pixels
    comp = zlib.compressobj(1)
    body = b"".join(comp.compress(row) for _ in range(height)) + comp.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body)
                + chunk(b"IEND", b""))


def cli(args, timeout=120, **kwargs):
    """python3 -m satfeat.batch ARGS, CPU backend, no progress bar; the CompletedProcess."""
    cmd = [sys.executable, "-m", "satfeat.batch", "--backend", "cpu", "--no-progress"]
    cmd += [os.fsdecode(a) for a in args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)


def assert_file_equals(path, reference):
    """The features file at `path` holds exactly `reference`'s images ({name: datasets}), array
    for array, byte for byte."""
    with h5py.File(path, "r") as f:
        assert sorted(features_h5.names_in(f)) == sorted(reference)
        for name, want in reference.items():
            got = features_h5.read_image(f, name)
            assert sorted(got) == sorted(want), name
            for key in want:
                assert got[key].dtype == want[key].dtype, (name, key)
                assert got[key].tobytes() == want[key].tobytes(), (name, key)

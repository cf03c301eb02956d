"""satfeat.batch on a Dask LocalCluster of 2 worker processes over generated images: the output
equals the serial extraction, runs restart where they stopped, bad images are listed without
stopping the run, and a worker killed mid-run leaves every image in the output exactly once."""
import json
import os
import signal
import subprocess
import sys
import time

import h5py
import numpy as np
import pytest

from satfeat import batch, features_h5

N_IMAGES = 24


@pytest.fixture(scope="module")
def images(tool, data_dir, tmp_path_factory):
    """24 generated 320x240 frames (tools/gen_sequence.c from data/scene.png) and 2 bad files."""
    root = tmp_path_factory.mktemp("images")
    good = root / "seq"
    good.mkdir()
    subprocess.run([str(tool("SATFEAT_GEN_SEQUENCE")), str(data_dir / "scene.png"), str(good),
                    "--frames", str(N_IMAGES), "--size", "320x240"],
                   check=True, stdout=subprocess.DEVNULL)
    for h in good.glob("H1to*"):
        h.unlink()
    bad = root / "bad"
    bad.mkdir()
    (bad / "truncated.png").write_bytes((good / "frame001.png").read_bytes()[:300])
    (bad / "text.pgm").write_bytes(b"this is not an image\n")
    good_items = batch.list_images([good])
    assert len(good_items) == N_IMAGES
    return {"good": good_items, "bad": batch.list_images([bad]), "root": root}


@pytest.fixture(scope="module")
def serial(images):
    return batch.extract_serial(images["good"], backend="cpu", threads=1)


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as c:
        yield c


def assert_output_equals(path, serial, names):
    with h5py.File(path, "r") as f:
        stored = sorted(features_h5.names_in(f))
        assert stored == sorted(names)
        for name in names:
            got = features_h5.read_image(f, name)
            want = serial[name]
            assert sorted(got) == sorted(want)
            for key in want:
                assert got[key].dtype == want[key].dtype, (name, key)
                assert got[key].tobytes() == want[key].tobytes(), (name, key)


def test_equals_serial_and_lists_bad_images(images, serial, client, tmp_path):
    out = tmp_path / "features.h5"
    items = images["good"] + images["bad"]
    summary = batch.run(items, out, client, backend="cpu", chunk=3, progress=False)
    assert summary["written"] == N_IMAGES and summary["skipped"] == 0
    assert [f["image"] for f in summary["failed"]] == ["text.pgm", "truncated.png"]
    assert "FormatError" in summary["failed"][0]["error"]
    assert json.loads(open(batch.failures_path(out)).read()) == summary["failed"]
    assert_output_equals(out, serial, [n for n, _ in images["good"]])
    with h5py.File(out, "r") as f:  # the hloc layout
        g = f["frame001.png"]
        n = g["keypoints"].shape[0]
        assert n > 20 and g["keypoints"].shape == (n, 2) and g["scores"].shape == (n,)
        assert g["descriptors"].shape == (64, n) and list(g["image_size"][()]) == [320, 240]


def test_restart_skips_what_is_there(images, serial, client, tmp_path):
    out = tmp_path / "features.h5"
    first = batch.run(images["good"][:10], out, client, backend="cpu", progress=False)
    assert first["written"] == 10
    with h5py.File(out, "a") as f:  # an image group left incomplete by an interrupted writer
        f.create_group("frame020.png").create_dataset("keypoints", data=np.zeros((1, 2)))
    second = batch.run(images["good"], out, client, backend="cpu", progress=False)
    assert second["skipped"] == 10 and second["written"] == N_IMAGES - 10
    assert_output_equals(out, serial, [n for n, _ in images["good"]])
    third = batch.run(images["good"], out, client, backend="cpu", progress=False)
    assert third["written"] == 0 and third["skipped"] == N_IMAGES


def test_worker_killed_mid_run(images, serial, client, tmp_path):
    out = tmp_path / "features.h5"
    before = client.run(os.getpid)
    killed = []

    def kill_one(done, total):
        if not killed:
            pid = sorted(before.values())[0]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            assert done < total  # mid-run: chunks were still queued or running

    summary = batch.run(images["good"], out, client, backend="cpu", chunk=1, progress=False,
                        on_result=kill_one)
    assert killed and summary["written"] == N_IMAGES and not summary["failed"]
    assert_output_equals(out, serial, [n for n, _ in images["good"]])
    deadline = time.monotonic() + 30  # the nanny brings a new worker process up
    while time.monotonic() < deadline:
        after = client.run(os.getpid)
        if len(after) == 2 and killed[0] not in after.values():
            break
        time.sleep(0.2)
    assert killed[0] not in client.run(os.getpid).values()


def test_command_line(images, tmp_path):
    out = tmp_path / "cli.h5"
    bad = images["root"] / "bad"
    env = dict(os.environ)
    cmd = [sys.executable, "-m", "satfeat.batch", str(images["root"] / "seq"), str(bad),
           "-o", str(out), "--workers", "1", "--backend", "cpu", "--no-progress",
           "--param", "max_keypoints=30"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stderr  # two bad images
    assert f"{N_IMAGES} written, 0 already present, 2 failed of {N_IMAGES + 2}" in r.stdout
    assert "failed: bad/truncated.png: FormatError" in r.stdout  # names relative to the root
    with h5py.File(out, "r") as f:
        assert len(features_h5.names_in(f)) == N_IMAGES
        assert max(f[n]["keypoints"].shape[0] for n in features_h5.names_in(f)) == 30
    r = subprocess.run(cmd[:-2] + ["--chunk", "0"], env=env, capture_output=True, text=True)
    assert r.returncode == 2 and "--chunk" in r.stderr


def test_progress_bar_draws_only_on_a_terminal():
    import io

    from satfeat.progress import ProgressBar

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    term, pipe = Terminal(), io.StringIO()
    for stream in (term, pipe):
        bar = ProgressBar(10, label="x", stream=stream)
        bar.advance(3)
        bar.close()
    assert "\rx [#########" in term.getvalue() and "3/10" in term.getvalue()
    assert term.getvalue().endswith("\n") and pipe.getvalue() == ""


def test_devices_a_worker_owns(monkeypatch):
    import satfeat

    assert batch._devices("cpu", "0", split=True) == [-1]
    monkeypatch.setattr(satfeat, "cuda_device_count", lambda: 2)
    assert batch._devices("auto") == [0, 1]          # every device it sees
    assert batch._devices("cuda", "3", split=True) == [1]  # LocalCluster worker 3 of 2 GPUs
    assert batch._devices("cuda", "tcp://h:1", split=True) == [0, 1]
    assert batch._devices("cpu", "0", split=True) == [-1]
    monkeypatch.setattr(satfeat, "cuda_device_count", lambda: 0)
    assert batch._devices("auto", "1", split=True) == [-1]


def test_an_output_that_is_not_hdf5_is_left_alone(images, client, tmp_path):
    out = tmp_path / "features.h5"
    out.write_bytes(b"precious, not HDF5")
    with pytest.raises(OSError, match="left as it is"):
        batch.run(images["good"][:2], out, client, backend="cpu", progress=False)
    r = subprocess.run([sys.executable, "-m", "satfeat.batch", str(images["root"] / "seq"),
                        "-o", str(out), "--workers", "1", "--backend", "cpu"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "is not an HDF5 file" in r.stderr
    assert out.read_bytes() == b"precious, not HDF5"

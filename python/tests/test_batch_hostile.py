"""satfeat.batch against hostile collections and outputs: names that clash or are not
UTF-8, a second run on a locked output, a stale lock, HDF5's own lock, outputs that cannot be
written, failures kept across runs, the worker's memory limit handed to the detectors, the
provenance attributes. Refusals must come before any work: those runs name a scheduler address
where nothing listens, so a tool that started its cluster first would fail with a traceback."""
import datetime
import json
import os
import shutil
import socket
import subprocess

import h5py
import numpy as np
import pytest

import satfeat
from satfeat import batch, features_h5
from satfeat.output_lock import OutputLock, lock_path

from batch_util import assert_file_equals, cli, gen_frames

NOWHERE = ["--scheduler", "tcp://127.0.0.1:9"]  # nothing listens: any cluster use fails


@pytest.fixture(scope="module")
def frames(tool, data_dir, tmp_path_factory):
    return gen_frames(tool, data_dir, tmp_path_factory.mktemp("frames"), 4)


@pytest.fixture(autouse=True)
def quick_connect(monkeypatch):
    """A tool that does reach for the scheduler gives up in 3 s instead of 30 s."""
    monkeypatch.setenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "3s")
    monkeypatch.delenv("HDF5_USE_FILE_LOCKING", raising=False)


def refused(r, *texts):
    """A run that stopped with exit status 1 and a message, no traceback."""
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    for text in texts:
        assert text in r.stderr, r.stderr


@pytest.fixture(scope="module")
def two_folders(frames, tmp_path_factory):
    """A/x.png and B/x.png (different images, one file name), extracted by one command line run
    with one worker."""
    root = tmp_path_factory.mktemp("twofolders")
    for folder, frame in (("A", frames[0]), ("B", frames[1])):
        (root / "in" / folder).mkdir(parents=True)
        shutil.copy(frame, root / "in" / folder / "x.png")
    out = root / "f.h5"
    r = cli([root / "in" / "A", root / "in" / "B", "-o", out, "--workers", "1",
             "--param", "max_keypoints=50"])
    return {"root": root, "out": out, "run": r}


def test_same_file_name_in_two_folders_gives_two_images(two_folders):
    r, root = two_folders["run"], two_folders["root"]
    assert r.returncode == 0, r.stderr
    names = [n for n, _ in batch.list_images([root / "in" / "A", root / "in" / "B"])]
    assert names == ["A/x.png", "B/x.png"]  # relative to the deepest common folder
    ref = batch.extract_serial(batch.list_images([root / "in"]), params={"max_keypoints": 50})
    assert_file_equals(two_folders["out"], ref)


def test_file_and_groups_carry_provenance(two_folders):
    assert two_folders["run"].returncode == 0
    with h5py.File(two_folders["out"], "r") as f:
        want = dict(satfeat.detector_defaults(), max_keypoints=50, descriptor="surf64")
        for obj in (f, f["A/x.png"], f["B/x.png"]):
            assert obj.attrs["satfeat_version"] == satfeat.version()
            assert json.loads(obj.attrs["satfeat_params"]) == want
            assert obj.attrs["satfeat_descriptor"] == "surf64"
            assert obj.attrs["satfeat_angles"] == "degrees"
            created = datetime.datetime.fromisoformat(obj.attrs["satfeat_created"])
            assert created.utcoffset() == datetime.timedelta(0)
            age = datetime.datetime.now(datetime.timezone.utc) - created
            assert datetime.timedelta(0) <= age < datetime.timedelta(minutes=10)
        command = json.loads(f.attrs["satfeat_command"])
        assert "-o" in command and "max_keypoints=50" in command
        assert f.attrs["satfeat_root"] == str(two_folders["root"] / "in")
        assert "satfeat_command" not in f["A/x.png"].attrs


def test_image_suffixes_in_any_case(tmp_path):
    for name in ("a.PNG", "b.Jpg", "c.jpeg", "d.pgm", "e.PPM", "f.pnm", "g.txt", "h.png.bak"):
        (tmp_path / name).write_bytes(b"")
    assert [n for n, _ in batch.list_images([tmp_path])] == ["a.PNG", "b.Jpg", "c.jpeg",
                                                             "d.pgm", "e.PPM", "f.pnm"]


def test_other_detector_parameters_are_refused_before_work(two_folders):
    """One file, one set of parameters: a rerun with another max_keypoints is refused."""
    root = two_folders["root"]
    r = cli([root / "in" / "A", root / "in" / "B", "-o", two_folders["out"],
             "--param", "max_keypoints=60"] + NOWHERE)
    refused(r, "holds features of other detector parameters")
    r = cli([root / "in" / "A", root / "in" / "B", "-o", two_folders["out"],
             "--param", "max_keypoints=50"] + NOWHERE)
    assert r.returncode == 0 and "0 written, 2 already present" in r.stdout, r.stderr


def test_angles_are_degrees_and_radian_files_are_refused_before_work(two_folders, tmp_path):
    """`angles` holds degrees, as the keypoint records do; a file whose images say nothing of
    their unit (written before degrees, so radians) gets no degrees added to it."""
    with h5py.File(two_folders["out"], "r") as f:
        angles = f["A/x.png/angles"][()]
    assert np.all((angles >= 0) & (angles < 360)) and angles.max() > 7
    out = tmp_path / "old.h5"
    shutil.copy(two_folders["out"], out)
    with h5py.File(out, "a") as f:
        del f["B/x.png"].attrs["satfeat_angles"]
    root = two_folders["root"]
    r = cli([root / "in" / "A", root / "in" / "B", "-o", out,
             "--param", "max_keypoints=50"] + NOWHERE)
    refused(r, "1 images whose angles are in radians", "B/x.png")


def test_clashing_names_stop_the_run_before_any_work(frames, tmp_path):
    """Items (the run() API takes any) with one name twice, or a name that is a folder of
    another: refused by prepare, before the output is even created."""
    out = tmp_path / "f.h5"
    items = [("a.png", str(frames[0])), ("a.png/b.png", str(frames[1]))]
    with pytest.raises(batch.NamesError,
                       match="a.png .the inputs. is also a folder of a.png/b.png .the inputs."):
        batch.prepare(items, out)
    with pytest.raises(batch.NamesError, match="x.png: 2 inputs have this name"):
        batch.prepare([("x.png", str(frames[0])), ("x.png", str(frames[1]))], out)
    assert not out.exists() and not os.path.exists(lock_path(out))


def test_stored_image_group_is_never_deleted(frames, tmp_path):
    """The output holds a.png/b.png; a run whose inputs name an image a.png is refused before
    any work, and write_image refuses to replace a group that holds other images."""
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(frames[0], src / "a.png")
    out = tmp_path / "f.h5"
    stored = batch.extract_serial([("a.png/b.png", str(frames[1]))])
    with h5py.File(out, "w") as f:
        features_h5.write_image(f, "a.png/b.png", stored["a.png/b.png"])
    r = cli([src, "-o", out, "--workers", "1"])
    refused(r, "a.png (the inputs) is also a folder of a.png/b.png (the output)")
    assert_file_equals(out, stored)
    with h5py.File(out, "a") as f:
        with pytest.raises(ValueError, match="holds other images"):
            features_h5.write_image(f, "a.png", stored["a.png/b.png"])
    assert_file_equals(out, stored)


def test_name_that_is_not_utf8_is_refused_before_work(frames, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(frames[0], src / "ok.png")
    shutil.copy(frames[1], os.path.join(os.fsencode(src), b"caf\xe9.png"))
    out = tmp_path / "f.h5"
    r = cli([src, "-o", out, "--workers", "1"])
    refused(r, "not UTF-8", "caf\\xe9.png")
    assert not out.exists()


def test_second_run_on_a_locked_output_is_refused(frames, tmp_path):
    out = tmp_path / "f.h5"
    with OutputLock(out):
        r = cli([frames[0], "-o", out, "--workers", "1"])
        assert os.path.exists(lock_path(out))  # not removed by the refused run
    refused(r, f"{out} is in use by {socket.gethostname()} pid {os.getpid()} (since ")
    assert not out.exists() and not os.path.exists(lock_path(out))


def test_lock_of_another_host_is_not_taken_over(frames, tmp_path):
    out = tmp_path / "f.h5"
    with open(lock_path(out), "w") as f:
        json.dump({"host": "elsewhere.invalid", "pid": 1, "since": "2026-11-27T00:00:00+00:00"},
                  f)
    r = cli([frames[0], "-o", out] + NOWHERE)
    refused(r, f"{out} is in use by elsewhere.invalid pid 1 (since 2026-11-27T00:00:00+00:00)")
    assert os.path.exists(lock_path(out))


def test_stale_lock_is_taken_over_and_removed_at_exit(frames, tmp_path):
    dead = subprocess.Popen(["true"])
    dead.wait()  # its pid is no longer running (nor reused this soon, almost surely)
    out = tmp_path / "f.h5"
    with open(lock_path(out), "w") as f:
        json.dump({"host": socket.gethostname(), "pid": dead.pid, "since": "earlier"}, f)
    r = cli([frames[0], frames[1], "-o", out, "--workers", "1"])
    assert r.returncode == 0, r.stderr
    assert f"taking over the lock of {socket.gethostname()} pid {dead.pid}" in r.stderr
    assert not os.path.exists(lock_path(out))
    with h5py.File(out, "r") as f:
        assert sorted(features_h5.names_in(f)) == [frames[0].name, frames[1].name]


def test_hdf5_lock_of_a_reader_gets_the_right_advice(frames, tmp_path):
    out = tmp_path / "f.h5"
    with h5py.File(out, "w") as f:
        f.attrs["x"] = 1
    with h5py.File(out, "r"):  # HDF5's lock: a reader holds the file
        r = cli([frames[0], "-o", out, "--workers", "1"])
    refused(r, "is open in another process")
    assert "move it away" not in r.stderr
    assert not os.path.exists(lock_path(out))


def _immutable(path, on):
    """Makes `path` read-only even for root (chattr +i), or writable again."""
    if os.geteuid() != 0:
        os.chmod(path, (0o555 if os.path.isdir(path) else 0o444) if on else 0o755)
        return
    if subprocess.run(["chattr", "+i" if on else "-i", str(path)]).returncode != 0:
        pytest.skip("chattr failed: no read-only file can be made as root here")


@pytest.mark.parametrize("case", ["missing folder", "read-only folder", "read-only file"])
def test_unwritable_output_fails_before_the_cluster(frames, tmp_path, case):
    folder = tmp_path / "out"
    folder.mkdir()
    out = folder / "f.h5"
    if case == "missing folder":
        out = tmp_path / "nope" / "f.h5"
        want = "the folder"
    elif case == "read-only folder":
        want = "is " + str(folder) + " writable?"
    else:
        with h5py.File(out, "w"):
            pass
        want = "is read-only"
    target = folder if case == "read-only folder" else out
    if case != "missing folder":
        _immutable(target, True)
    try:
        r = cli([frames[0], "-o", out] + NOWHERE)
    finally:
        if case != "missing folder":
            _immutable(target, False)
    refused(r, want)


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GiB",
                      dashboard_address=None) as cluster, Client(cluster) as c:
        yield c


def test_failed_images_are_skipped_on_rerun_unless_retried(frames, client, tmp_path):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"")
    items = [(f.name, str(f)) for f in frames[:2]] + [("bad.png", str(bad))]
    out = tmp_path / "f.h5"
    first = batch.run(items, out, client, backend="cpu", progress=False)
    assert first["written"] == 2 and [e["image"] for e in first["failed"]] == ["bad.png"]
    shutil.copy(frames[2], bad)  # now a good image: still skipped until asked
    second = batch.run(items, out, client, backend="cpu", progress=False)
    assert second["written"] == 0 and second["skipped"] == 2 and second["skipped_failed"] == 1
    assert [e["image"] for e in second["failed"]] == ["bad.png"]
    assert json.load(open(batch.failures_path(out)))[0]["image"] == "bad.png"
    third = batch.run(items, out, client, backend="cpu", progress=False, retry_failed=True)
    assert third["written"] == 1 and third["failed"] == []
    assert json.load(open(batch.failures_path(out))) == []
    with h5py.File(out, "r") as f:
        assert sorted(features_h5.names_in(f)) == ["bad.png"] + [f.name for f in frames[:2]]


def test_worker_memory_limit_reaches_the_detectors(frames, client, tmp_path, monkeypatch):
    out = tmp_path / "f.h5"
    batch.run([(frames[0].name, str(frames[0]))], out, client, backend="cpu", progress=False)

    def pool_limit():
        from distributed import get_worker

        return get_worker().plugins[batch.PLUGIN_NAME].pool.memory_limit

    assert set(client.run(pool_limit).values()) == {1 << 30}
    # how a pool hands it to Detector: only when the extension has set_memory_limit
    made = []

    class Recorder:
        def __init__(self, w, h, **kwargs):
            self.width, self.height = w, h
            made.append(kwargs)

        def detect(self, image, descriptors):
            return None

    monkeypatch.setattr(satfeat, "Detector", Recorder)
    image = np.zeros((20, 30), np.uint8)
    batch.DetectorPool("cpu", [-1], {}, 1, memory_limit=1 << 30).detect(image)
    assert "memory_limit" not in made[-1]
    Recorder.set_memory_limit = lambda self, n: None
    batch.DetectorPool("cpu", [-1], {}, 1, memory_limit=1 << 30).detect(image)
    assert 0 < made[-1]["memory_limit"] < 0.95 * (1 << 30)
    batch.DetectorPool("cpu", [-1], {}, 1, memory_limit=0).detect(image)
    assert "memory_limit" not in made[-1]


def test_sigterm_waits_for_the_write_in_progress():
    """A SIGTERM inside critical() (a chunk's write) is raised when the block ends, as exit
    status 143; outside, at once."""
    import signal

    from satfeat.interrupts import Interrupted, Interrupts

    steps = []
    with Interrupts() as interrupts:
        with pytest.raises(Interrupted) as stopped:
            with interrupts.critical():
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(1000):  # the handler runs between bytecodes: give it many
                    steps.append(1)
                steps.append("end of the block")
        assert steps[-1] == "end of the block" and stopped.value.code == 143
        with pytest.raises(Interrupted):
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1000):
                steps.append(2)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL

"""satfeat.batch under fire: a collection of 26 small frames with bad files (a truncated
PNG, an empty file, a FIFO, a text file) and one poison image (a legal 16384x16384 PNG, 256 MiB
decoded, under a worker memory limit of 300 MB: Dask's nanny terminates the worker reading it,
every time) is extracted by the command line tool (LocalCluster: 2 worker processes, 1 thread
each) over several runs; in each run but the last, a worker is SIGKILLed and/or the client
SIGTERMed at random times (seeded). The runs must leave the file a clean extraction would, image
for image and array for array, and the failures file must list exactly the bad files and the
poison, the poison as "killed its worker twice"."""
import os
import random
import signal
import subprocess
import sys
import time

import h5py
import psutil
import pytest

from satfeat import batch, failures_file, features_h5
from satfeat.output_lock import lock_path

from batch_util import assert_file_equals, gen_frames, write_gray_png

SEED = 34
MAX_CHAOS_RUNS = 6
BAD = {"bad/truncated.png", "bad/empty.png", "bad/fifo.png", "bad/text.pgm", "poison/huge.png"}


@pytest.fixture(scope="module")
def collection(tool, data_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("chaos")
    frames = gen_frames(tool, data_dir, root / "in" / "seq", 26)
    (root / "in" / "bad").mkdir()
    (root / "in" / "bad" / "truncated.png").write_bytes(frames[0].read_bytes()[:200])
    (root / "in" / "bad" / "empty.png").write_bytes(b"")
    os.mkfifo(root / "in" / "bad" / "fifo.png")
    (root / "in" / "bad" / "text.pgm").write_bytes(b"not an image\n")
    (root / "in" / "poison").mkdir()
    write_gray_png(root / "in" / "poison" / "huge.png", 16384, 16384)
    return root


def _workers(client_pid):
    """The worker processes of the client's LocalCluster (children started by its nannies)."""
    try:
        kids = psutil.Process(client_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    found = []
    for p in kids:
        try:
            if "spawn_main" in " ".join(p.cmdline()):
                found.append(p)
        except psutil.Error:
            pass
    return found


def _progress(out):
    """What the output holds: (images stored whole, images listed as failed)."""
    present = 0
    if out.exists():
        with h5py.File(out, "r") as f:  # never left unreadable
            present = len(features_h5.names_in(f))
    return present, len(failures_file.load(out))


def _run(root, out, plan):
    """One command line run. `plan`: (saves, action) pairs: after the run has rewritten its
    failures file `saves` times (it does after every chunk), SIGKILL one of its workers
    ("worker") or SIGTERM the client ("client"). Returns (exit status, what was done, stdout,
    stderr)."""
    cmd = [sys.executable, "-m", "satfeat.batch", str(root / "in"), "-o", str(out),
           "--workers", "2", "--threads-per-worker", "1", "--memory-limit", "300MB",
           "--chunk", "2", "--backend", "cpu", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    record = failures_file.failures_path(out)

    def stamp():
        try:
            st = os.stat(record)
            return st.st_ino, st.st_mtime_ns  # a new file (renamed over the old) each save
        except FileNotFoundError:
            return None

    done, saves, last = [], 0, stamp()
    try:
        for when, what in sorted(plan, key=lambda p: (p[0], p[1] != "worker")):
            while proc.poll() is None and saves < when:
                now = stamp()
                if now != last:
                    saves, last = saves + 1, now
                time.sleep(0.01)
            if proc.poll() is not None:
                break
            if what == "worker":
                workers = _workers(proc.pid)
                if workers:
                    random.Random(when).choice(workers).kill()
                    done.append(f"SIGKILL worker after {saves} saves")
            else:
                proc.send_signal(signal.SIGTERM)
                done.append(f"SIGTERM client after {saves} saves")
        stdout, stderr = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        try:  # whatever the run started and left behind (its session: this test's processes)
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return proc.returncode, done, stdout, stderr


def test_runs_under_fire_end_as_a_clean_run(collection, tmp_path):
    items = batch.list_images([collection / "in"])
    good = [(n, p) for n, p in items if n not in BAD]
    assert len(good) == 26 and len(items) == 31
    reference = batch.extract_serial(good, backend="cpu", threads=1)
    rng = random.Random(SEED)
    out = tmp_path / "features.h5"
    log = []
    for _ in range(MAX_CHAOS_RUNS):
        present, failed = _progress(out)
        chunks = (len(items) - present - failed + 1) // 2
        if chunks < 3:
            break
        # the client stopped within the first half of what is left, a worker killed before
        plan = [(rng.randint(1, chunks // 2), "client")]
        if rng.random() < 0.75:
            plan.append((rng.randint(1, plan[0][0]), "worker"))
        rc, done, stdout, stderr = _run(collection, out, plan)
        log.append((rc, done, _progress(out)))
        assert rc in (143, 1), (log, stderr[-3000:])
        assert not os.path.exists(lock_path(out)), log  # removed at exit, also on SIGTERM
    assert sum(1 for rc, _, _ in log if rc == 143) >= 2, log  # the chaos did stop runs
    rc, done, stdout, stderr = _run(collection, out, [])
    log.append((rc, done, _progress(out)))
    print(log)
    assert rc == 1 and "5 failed of 31 images" in stdout, (log, stderr[-3000:])
    assert not os.path.exists(lock_path(out))
    assert_file_equals(out, reference)
    failures = failures_file.load(out)
    assert set(failures) == BAD, log
    assert failures["poison/huge.png"].startswith("killed its worker twice (memory limit "), \
        failures
    assert "FormatError" in failures["bad/text.pgm"]

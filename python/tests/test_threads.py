"""Threads sharing satfeat objects: every call of every thread must return exactly what the same
call returns single-threaded. Each thread works on images of its own, so a result copied from
another thread's frame (or a scratch buffer reallocated under a running detection) shows as a
mismatch, or, in the sanitizer builds, as an ASan or TSan report. ctest runs this file in the
plain build, under ASan and under TSan (docs/TESTING.md); SATFEAT_STRESS_ROUNDS scales it."""
import os
import threading

import numpy as np
import pytest

import satfeat

THREADS = 8
ROUNDS = int(os.environ.get("SATFEAT_STRESS_ROUNDS", "6"))
W, H = 320, 240


@pytest.fixture(scope="module")
def images(data_dir):
    """THREADS distinct 320x240 frames: windows of scene.png and dune frames, and a noise frame
    with several thousand keypoints (so a shared detector must grow its room mid-run)."""
    scene = satfeat.load_gray(data_dir / "scene.png")
    out = []
    for k in range(THREADS - 3):
        y, x = 17 * k, 41 * k
        out.append(np.ascontiguousarray(scene[y:y + H, x:x + W]))
    for k in (1, 4):
        dune = satfeat.load_gray(data_dir / "dune" / f"frame00{k}.png")
        out.append(np.ascontiguousarray(dune[100:100 + H, 200:200 + W]))
    out.append(np.random.default_rng(11).integers(0, 256, (H, W), dtype=np.uint8))
    return out


def run_threads(work, n=THREADS):
    """Runs work(i) on n threads started together; re-raises the first exception."""
    barrier = threading.Barrier(n)
    errors = []

    def body(i):
        try:
            barrier.wait()
            work(i)
        except BaseException as e:  # reported in the main thread
            errors.append(e)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def make_detector():
    # threads=1: the frames of different Python threads overlap; OpenMP inside is not the point
    return satfeat.Detector(W, H, backend="cpu", threads=1, threshold=0.0001)


def serial_features(images):
    det = make_detector()
    return [det.detect(img, descriptors=True) for img in images]


def test_many_keypoints_need_growth(images):
    """The noise frame needs more than the first room (1024) of a fresh detector's scratch."""
    assert len(make_detector().detect(images[-1])) > 2048


def test_shared_detector(images):
    """One detector per round shared by all threads (a fresh one each round), next to one
    detector per thread: every result equals the serial one."""
    want = serial_features(images)
    bad = []
    for _ in range(ROUNDS):
        shared = make_detector()

        def work(i):
            own = make_detector()
            for k in range(4):
                img = images[(i + k) % len(images)]
                det = shared if k % 2 == 0 else own
                kp, desc = det.detect(img, descriptors=True)
                ref = want[(i + k) % len(images)]
                if kp.tobytes() != ref[0].tobytes() or desc.tobytes() != ref[1].tobytes():
                    bad.append((i, k, len(kp), len(ref[0])))
                if det.detect(img).tobytes() != ref[0].tobytes():
                    bad.append((i, k, "keypoints only"))

        run_threads(work)
    assert not bad, f"{len(bad)} of {ROUNDS * THREADS * 8} calls returned another frame: {bad[:5]}"


def test_shared_detector_batch_and_detect(images):
    """detect_batch and detect on one detector from several threads at once."""
    want = serial_features(images)
    det = make_detector()
    bad = []

    def work(i):
        for _ in range(2):
            if i % 2:
                got = det.detect_batch(images[i:] + images[:i], descriptors=True)
                order = list(range(i, len(images))) + list(range(i))
            else:
                got = [det.detect(images[i], descriptors=True)]
                order = [i]
            for j, (kp, desc) in zip(order, got):
                if kp.tobytes() != want[j][0].tobytes() or desc.tobytes() != want[j][1].tobytes():
                    bad.append((i, j))

    run_threads(work)
    assert not bad


def test_shared_pool(images):
    want = serial_features(images)
    pool = satfeat.Pool(W, H, backend="cpu", workers=2, threshold=0.0001)
    bad = []

    def work(i):
        for _ in range(2):
            got = pool.detect([images[i], images[(i + 3) % len(images)]], descriptors=True)
            for j, (kp, desc) in zip((i, (i + 3) % len(images)), got):
                if kp.tobytes() != want[j][0].tobytes() or desc.tobytes() != want[j][1].tobytes():
                    bad.append((i, j))

    run_threads(work)
    assert not bad


def test_match_and_sat_from_threads(images):
    """The module functions (a context per call) from all threads at once."""
    feats = serial_features(images)
    n = len(images)
    want_m = [satfeat.match(feats[i][1], feats[(i + 1) % n][1], ratio=0.9) for i in range(n)]
    want_s = [satfeat.sat(img) for img in images]
    bad = []

    def work(i):
        for _ in range(ROUNDS):
            m = satfeat.match(feats[i][1], feats[(i + 1) % n][1], ratio=0.9)
            if m.tobytes() != want_m[i].tobytes():
                bad.append(("match", i))
            if not np.array_equal(satfeat.sat(images[i]), want_s[i]):
                bad.append(("sat", i))

    run_threads(work)
    assert not bad


def test_shared_tracker(data_dir):
    """All threads feed one tracker frames of their own: each call's result (frame number from
    its motion) must equal what a serial tracker gives when fed the same frames in that order.
    The shared tracker has no size: the first call to take its lock makes it."""
    frames = [np.ascontiguousarray(satfeat.load_gray(data_dir / "dune" / f"frame00{k}.png")
                                   [100:100 + H, 200:200 + W]) for k in range(1, 5)]
    params = dict(backend="cpu", threads=1, max_tracks=3000)
    shared = satfeat.Tracker(**params)  # sized by the first frame: made under the lock
    got = {}
    lock = threading.Lock()

    def work(i):
        for k in range(3):
            j = (i + k) % len(frames)
            tracks, motion = result = shared.track(frames[j], descriptors=True)
            desc = result.descriptors
            with lock:
                got[motion["frame"]] = (j, tracks, desc)

    run_threads(work, n=4)
    assert sorted(got) == list(range(1, 13))  # every call was a frame of its own
    serial = satfeat.Tracker(W, H, **params)
    for f in range(1, 13):
        j, tracks, desc = got[f]
        want = serial.track(frames[j], descriptors=True)
        want_tracks, want_desc, motion = want.tracks, want.descriptors, want.motion
        assert motion["frame"] == f
        assert tracks.tobytes() == want_tracks.tobytes() and desc.tobytes() == want_desc.tobytes()


def test_per_thread_trackers(data_dir):
    frames = [np.ascontiguousarray(satfeat.load_gray(data_dir / "dune" / f"frame00{k}.png")
                                   [80:80 + H, 150:150 + W]) for k in range(1, 6)]

    def run(order):
        tr = satfeat.Tracker(W, H, backend="cpu", threads=1)
        return [tr.track(frames[j])[0].tobytes() for j in order]

    orders = [[(i + k) % 5 for k in range(4)] for i in range(4)]
    want = [run(o) for o in orders]
    got = [None] * 4

    def work(i):
        got[i] = run(orders[i])

    run_threads(work, n=4)
    assert got == want

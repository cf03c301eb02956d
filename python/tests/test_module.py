"""satfeat from Python against the C library: the same tables, keypoints, descriptors, matches and
tracks, bit for bit, plus the ways an image may be handed over (slices, other buffers)."""
import threading

import numpy as np
import pytest

import satfeat
from conftest import python_angles


def same_records(a, b):
    """Field-by-field byte equality of two structured arrays (NaN-safe, -0.0-strict)."""
    assert a.dtype.names == b.dtype.names
    assert len(a) == len(b)
    for name in a.dtype.names:
        assert a[name].tobytes() == b[name].tobytes(), name


def test_version_and_build():
    assert satfeat.version() == satfeat.__version__
    assert satfeat.version().count(".") == 2
    assert isinstance(satfeat.has_cuda_build(), bool)
    assert satfeat.cuda_device_count() >= 0


def test_dtypes_mirror_the_c_structs():
    assert satfeat.keypoint_dtype.itemsize == 80
    assert satfeat.match_dtype.itemsize == 12
    assert satfeat.keypoint_dtype.names[:3] == ("x", "y", "size")


def test_sat_equals_c(reference):
    img = satfeat.load_gray(reference["img1"])
    table = satfeat.sat(img)
    h, w = img.shape
    assert table.shape == (h + 1, w + 1) and table.dtype == np.uint32
    ref = np.fromfile(reference["dir"] / "sat1.u32", dtype=np.uint32).reshape(h + 1, w + 1)
    assert np.array_equal(table, ref)
    # and against NumPy's own cumulative sums (exact in uint64 at this size)
    cs = np.zeros((h + 1, w + 1), np.uint64)
    cs[1:, 1:] = img.astype(np.uint64).cumsum(0).cumsum(1)
    assert np.array_equal(table.astype(np.uint64), cs)


def test_sat_float32():
    rng = np.random.default_rng(1)
    img = rng.random((37, 53), dtype=np.float32)
    table = satfeat.sat(img)
    assert table.dtype == np.float32 and table.shape == (38, 54)
    ref = np.zeros((38, 54))
    ref[1:, 1:] = img.astype(np.float64).cumsum(0).cumsum(1)
    assert np.array_equal(table, ref.astype(np.float32))  # double sums, one rounding per entry


def test_detect_equals_c(reference):
    ref_dir = reference["dir"]
    for k, path in ((1, reference["img1"]), (2, reference["img2"])):
        img = satfeat.load_gray(path)
        det = satfeat.Detector(img.shape[1], img.shape[0], backend="cpu")
        kp, desc = det.detect(img, descriptors=True)
        ref_kp = python_angles(np.fromfile(ref_dir / f"kp{k}.bin", dtype=satfeat.keypoint_dtype))
        ref_desc = np.fromfile(ref_dir / f"desc{k}.f32", dtype=np.float32).reshape(-1, 64)
        assert len(kp) > 100
        same_records(kp, ref_kp)
        assert np.all((kp["angle"] >= 0) & (kp["angle"] < 360)) and kp["angle"].max() > 7
        assert desc.dtype == np.float32 and desc.tobytes() == ref_desc.tobytes()
        assert det.detect(img).tobytes() == kp.tobytes()  # keypoints only: the same list


def test_match_equals_c(reference):
    ref_dir = reference["dir"]
    kp1 = python_angles(np.fromfile(ref_dir / "kp1.bin", dtype=satfeat.keypoint_dtype))
    kp2 = python_angles(np.fromfile(ref_dir / "kp2.bin", dtype=satfeat.keypoint_dtype))
    d1 = np.fromfile(ref_dir / "desc1.f32", dtype=np.float32).reshape(-1, 64)
    d2 = np.fromfile(ref_dir / "desc2.f32", dtype=np.float32).reshape(-1, 64)
    m = satfeat.match(d1, d2, kp1=kp1, kp2=kp2)
    ref = np.fromfile(ref_dir / "match.bin", dtype=satfeat.match_dtype)
    assert len(m) > 50
    same_records(m, ref)
    assert np.all(np.diff(m["query"]) > 0)


def test_match_without_keypoints_is_plain_nearest_neighbour():
    rng = np.random.default_rng(2)
    d2 = rng.standard_normal((40, 64)).astype(np.float32)
    d1 = d2[::-1] + np.float32(0.001)
    m = satfeat.match(d1, d2, ratio=1.0, mutual=False)
    assert np.array_equal(m["query"], np.arange(40))
    assert np.array_equal(m["train"], np.arange(40)[::-1])


def test_laplacian_gate_is_on_whenever_keypoints_are_given():
    """With kp1 and kp2 only keypoints of one Laplacian sign are compared (the C default);
    same_laplacian=False or no keypoints: every pair is."""
    rng = np.random.default_rng(3)
    d = rng.standard_normal((30, 64)).astype(np.float32)
    kp1 = np.zeros(30, satfeat.keypoint_dtype)
    kp1["laplacian"] = 1
    kp2 = kp1.copy()
    kp2["laplacian"][::2] = -1
    gated = satfeat.match(d, d, kp1=kp1, kp2=kp2)
    assert np.array_equal(gated["query"], np.arange(1, 30, 2))
    assert np.array_equal(gated["train"], gated["query"])
    assert len(satfeat.match(d, d, kp1=kp1, kp2=kp2, same_laplacian=False)) == 30
    assert len(satfeat.match(d, d)) == 30


def test_tracker_equals_c(reference):
    img1 = satfeat.load_gray(reference["img1"])
    img2 = satfeat.load_gray(reference["img2"])
    tr = satfeat.Tracker(img1.shape[1], img1.shape[0], backend="cpu")
    first = tr.track(img1)
    tracks1, motion1 = first  # one shape: the pair (tracks, motion), descriptors an attribute
    assert isinstance(first, satfeat.TrackResult) and len(first) == 2
    assert first.tracks is tracks1 and first.motion is motion1 and first.descriptors is None
    assert motion1["frame"] == 1 and not motion1["valid"] and len(tracks1) > 0  # as the CLI's
    second = tr.track(img2, descriptors=True)
    tracks2, motion2 = second
    want = python_angles(np.fromfile(reference["dir"] / "tracks.bin", dtype=satfeat.track_dtype))
    same_records(tracks2, want)
    assert np.all((tracks2["angle"] >= 0) & (tracks2["angle"] < 360))
    assert second.descriptors.shape == (len(tracks2), 64)
    assert motion2["frame"] == 2 and motion2["valid"] and motion2["h_prev"].shape == (3, 3)
    tr.reset()
    tracks3, motion3 = tr.track(img1)
    assert motion3["frame"] == 1 and tracks3["id"].min() > tracks2["id"].max()


def test_objects_size_themselves_on_first_use(reference, data_dir):
    """Detector(), Tracker() and Pool() without width and height: the results of sized ones."""
    img1 = satfeat.load_gray(reference["img1"])
    img2 = satfeat.load_gray(reference["img2"])
    h, w = img1.shape
    sized = satfeat.Detector(w, h, backend="cpu")
    det = satfeat.Detector(backend="cpu")
    assert (det.width, det.height) == (0, 0) and "sized by its frames" in repr(det)
    small = np.ascontiguousarray(img1[:200, :300])
    for img in (small, img1, small):  # grows for the larger frame, then takes the small again
        a, b = det.detect(img, descriptors=True), sized.detect(img, descriptors=True)
        assert a[0].tobytes() == b[0].tobytes() and a[1].tobytes() == b[1].tobytes()
    big = np.ascontiguousarray(np.tile(img1, (2, 1)))
    assert len(det.detect(big)) > len(sized.detect(img1))
    with pytest.raises(satfeat.ArgumentError):
        sized.detect(big)  # an explicit size stays the maximum
    pool = satfeat.Pool(backend="cpu", workers=2)
    assert [k.tobytes() for k in pool.detect([small, img1])] == \
        [sized.detect(small).tobytes(), sized.detect(img1).tobytes()]
    tr, ref = satfeat.Tracker(backend="cpu"), satfeat.Tracker(w, h, backend="cpu")
    assert (tr.width, tr.height) == (0, 0)
    tr.reset()  # before any frame: nothing to forget
    for img in (img1, img2):
        got, want = tr.track(img), ref.track(img)
        assert got.tracks.tobytes() == want.tracks.tobytes()
        assert got.motion["h_prev"].tobytes() == want.motion["h_prev"].tobytes()
    tr.reset()
    assert tr.track(small).motion["frame"] == 1  # after reset: up to the first frame's size
    tr.reset()
    with pytest.raises(satfeat.ArgumentError):
        tr.track(big)
    with pytest.raises(TypeError, match="give width and height, or neither"):
        satfeat.Detector(640)
    with pytest.raises(TypeError, match="give width and height, or neither"):
        satfeat.Tracker(height=480)
    with pytest.raises(ValueError, match="width must be >= 0"):
        satfeat.Pool(-5, 10)
    with pytest.raises(ValueError):  # the parameters are checked at once, not at the first frame
        satfeat.Tracker(backend="cpu", guided_radius=-1.0)


def test_tracker_outlier_options(reference):
    """guided_radius and reject_outliers reach the C tracker: with the defaults no track seen
    after its birth is an outlier; without rejection and guided pass some are (flagged)."""
    img1 = satfeat.load_gray(reference["img1"])
    img2 = satfeat.load_gray(reference["img2"])

    def outlier_steps(**kw):
        tr = satfeat.Tracker(img1.shape[1], img1.shape[0], backend="cpu", **kw)
        tr.track(img1)
        tracks, _ = tr.track(img2)
        seen = tracks[(tracks["age"] > 0) & (tracks["missed"] == 0)]
        return len(seen), int(np.count_nonzero(seen["inlier"] == 0))

    seen, out = outlier_steps()
    assert seen > 100 and out == 0
    seen, out = outlier_steps(guided_radius=0.0, reject_outliers=False)
    assert seen > 100 and out > 0
    with pytest.raises(ValueError):
        satfeat.Tracker(64, 48, backend="cpu", guided_radius=-1.0)


def test_views_and_other_buffers_give_the_same_keypoints(data_dir):
    img = satfeat.load_gray(data_dir / "scene.png")
    det = satfeat.Detector(640, 480, backend="cpu", descriptor="none")
    window = img[40:300, 100:500]  # a row slice: row stride 640, not C-contiguous
    assert not window.flags.c_contiguous
    a = det.detect(window)
    b = det.detect(np.ascontiguousarray(window))
    assert len(a) > 10 and a.tobytes() == b.tobytes()
    c = det.detect(memoryview(bytearray(np.ascontiguousarray(window).tobytes())).cast(
        "B", window.shape))
    assert c.tobytes() == a.tobytes()


def test_descriptor_norm(data_dir):
    # root (the default): the signed square root of the L1-normalised SURF (l2) values
    img = satfeat.load_gray(data_dir / "scene.png")
    root = satfeat.Detector(640, 480, backend="cpu", max_keypoints=100)
    l2 = satfeat.Detector(640, 480, backend="cpu", max_keypoints=100, descriptor_norm="l2")
    assert root.params["descriptor_norm"] == "root" and l2.params["descriptor_norm"] == "l2"
    ka, da = root.detect(img, descriptors=True)
    kb, db = l2.detect(img, descriptors=True)
    assert len(ka) == 100 and ka.tobytes() == kb.tobytes()
    u = db.astype(np.float64)
    want = np.sign(u) * np.sqrt(np.abs(u) / np.abs(u).sum(axis=1, keepdims=True))
    assert np.max(np.abs(want - da)) < 2e-6
    assert np.allclose(np.linalg.norm(da, axis=1), 1.0, atol=1e-5)


def test_orientation_filter(data_dir):
    # the same keypoints; the Scharr filter (the default) and SURF's Haar pairs give other angles
    img = satfeat.load_gray(data_dir / "scene.png")
    scharr = satfeat.Detector(640, 480, backend="cpu", max_keypoints=100)
    haar = satfeat.Detector(640, 480, backend="cpu", max_keypoints=100, orientation_filter="haar")
    assert scharr.params["orientation_filter"] == "scharr"
    assert haar.params["orientation_filter"] == "haar"
    ka = scharr.detect(img)
    kb = haar.detect(img)
    assert len(ka) == 100 and np.array_equal(ka["x"], kb["x"]) and np.array_equal(ka["y"], kb["y"])
    assert np.count_nonzero(ka["angle"] != kb["angle"]) > 50


def test_mask_and_parameters(data_dir):
    img = satfeat.load_gray(data_dir / "scene.png")
    det = satfeat.Detector(640, 480, backend="cpu", max_keypoints=50, threshold=0.001,
                           descriptor="surf128", upright=True)
    assert det.descriptor_size == 128 and det.params["max_keypoints"] == 50
    kp, desc = det.detect(img, descriptors=True)
    assert len(kp) == 50 and desc.shape == (50, 128) and np.all(kp["angle"] == 0)
    mask = np.zeros_like(img)
    mask[:, :320] = 1
    left = det.detect(img, mask=mask)
    assert len(left) > 0 and np.all(np.floor(left["x"] + 0.5) < 320)


def test_threads_share_a_detector(data_dir):
    """The GIL is released and the detector's lock serialises the frames: every thread sees the
    same list as a serial call."""
    img = satfeat.load_gray(data_dir / "scene.png")
    det = satfeat.Detector(640, 480, backend="cpu", threads=1)
    want = det.detect(img, descriptors=True)
    results, errors = [], []

    def work():
        try:
            for _ in range(3):
                results.append(det.detect(img, descriptors=True))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 12
    for kp, desc in results:
        assert kp.tobytes() == want[0].tobytes() and desc.tobytes() == want[1].tobytes()


def test_help_reads_like_the_header():
    assert "Fast-Hessian" in satfeat.Detector.__doc__
    assert "summed area table" in satfeat.sat.__doc__.lower()
    assert "ratio" in satfeat.match.__doc__
    assert satfeat.detector_defaults()["threshold"] == 0.0004


def test_docs_example(tmp_path, monkeypatch):
    """The complete example of docs/PYTHON.md runs as written (from the repository root)."""
    from conftest import REPO

    text = (REPO / "docs" / "PYTHON.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(REPO)
    code = code.replace('"matches.png"', repr(str(tmp_path / "matches.png")))
    exec(compile(code, "docs/PYTHON.md", "exec"), {})


def test_opencv_images_work_as_they_are(data_dir):
    cv2 = pytest.importorskip("cv2")
    img = cv2.imread(str(data_dir / "scene.png"), cv2.IMREAD_GRAYSCALE)
    det = satfeat.Detector(640, 480, backend="cpu")
    assert det.detect(img).tobytes() == det.detect(satfeat.load_gray(data_dir / "scene.png")).tobytes()
    assert np.array_equal(satfeat.sat(img), cv2.integral(img).astype(np.uint32))


def test_cuda_equals_cpu(data_dir):
    """On a machine with a GPU: the CUDA detector, matcher and table give the CPU's bits."""
    if satfeat.cuda_device_count() == 0:
        pytest.skip("no CUDA device")
    img = satfeat.load_gray(data_dir / "dune" / "frame001.png")
    h, w = img.shape
    cpu = satfeat.Detector(w, h, backend="cpu").detect(img, descriptors=True)
    gpu_det = satfeat.Detector(w, h, backend="cuda", device=0)
    assert gpu_det.backend == "cuda" and gpu_det.device == 0
    gpu = gpu_det.detect(img, descriptors=True)
    assert gpu[0].tobytes() == cpu[0].tobytes() and gpu[1].tobytes() == cpu[1].tobytes()
    assert np.array_equal(satfeat.sat(img, backend="cuda"), satfeat.sat(img))
    m_cpu = satfeat.match(cpu[1], cpu[1][::-1].copy(), ratio=1.0)
    m_gpu = satfeat.match(cpu[1], cpu[1][::-1].copy(), ratio=1.0, backend="cuda")
    assert m_gpu.tobytes() == m_cpu.tobytes()
    pool = satfeat.Pool(w, h, backend="cuda")  # every device
    assert pool.devices == list(range(satfeat.cuda_device_count()))
    for kp, desc in pool.detect([img] * 5, descriptors=True):
        assert kp.tobytes() == cpu[0].tobytes() and desc.tobytes() == cpu[1].tobytes()
    for kp, desc in gpu_det.detect_batch([img] * 5, descriptors=True, lanes=3):
        assert kp.tobytes() == cpu[0].tobytes() and desc.tobytes() == cpu[1].tobytes()


def test_pool_returns_each_frame_as_a_detector_would(data_dir):
    base = satfeat.load_gray(data_dir / "scene.png")
    frames = [np.ascontiguousarray(np.roll(base, 17 * k, axis=1)) for k in range(7)]
    frames[3] = frames[3][:400, :500]  # smaller frames are fine
    det = satfeat.Detector(640, 480, backend="cpu", threads=1)
    pool = satfeat.Pool(640, 480, backend="cpu", workers=3, max_keypoints=0)
    assert pool.workers == 3 and pool.devices == [-1, -1, -1] and pool.descriptor_size == 64
    got = pool.detect(frames, descriptors=True)
    assert len(got) == len(frames)
    for frame, (kp, desc) in zip(frames, got):
        want_kp, want_desc = det.detect(frame, descriptors=True)
        assert len(kp) > 300
        assert kp.tobytes() == want_kp.tobytes() and desc.tobytes() == want_desc.tobytes()
    small = satfeat.Pool(640, 480, backend="cpu", workers=2, max_keypoints=100)
    small_got = small.detect(frames[:2])
    assert [len(k) for k in small_got] == [100, 100]
    assert pool.detect([]) == []


def test_detect_batch_returns_each_frame_as_detect_would(data_dir):
    base = satfeat.load_gray(data_dir / "scene.png")
    frames = [np.ascontiguousarray(np.roll(base, 23 * k, axis=0)) for k in range(5)]
    frames[2] = frames[2][50:350, 20:600]  # a smaller frame and a row slice (stride > width)
    det = satfeat.Detector(640, 480, backend="cpu", threads=1)
    got = det.detect_batch(frames, descriptors=True)
    assert len(got) == len(frames)
    for frame, (kp, desc) in zip(frames, got):
        want_kp, want_desc = det.detect(frame, descriptors=True)
        assert len(kp) > 100
        assert kp.tobytes() == want_kp.tobytes() and desc.tobytes() == want_desc.tobytes()
    assert [k.tobytes() for k in det.detect_batch(frames, lanes=2)] == [k.tobytes() for k, _ in got]
    assert det.detect_batch([]) == []
    rng = np.random.default_rng(7)  # more keypoints than the first try's room: retried
    noisy = rng.integers(0, 256, (480, 640), dtype=np.uint8)
    many = satfeat.Detector(640, 480, backend="cpu", threshold=0.0001)
    want = many.detect(noisy)
    assert len(want) > 2048
    assert [k.tobytes() for k in many.detect_batch([noisy, noisy])] == [want.tobytes()] * 2
    with pytest.raises(satfeat.ArgumentError, match="frame 1"):
        det.detect_batch([frames[0], np.zeros((481, 640), np.uint8)])
    with pytest.raises(ValueError, match=r"images\[0\] must hold uint8"):
        det.detect_batch([np.zeros((48, 64), np.float32)])
    with pytest.raises(satfeat.ArgumentError, match="lanes"):
        det.detect_batch(frames, lanes=65)
    with pytest.raises(ValueError, match="descriptors=True"):
        satfeat.Detector(64, 48, backend="cpu", descriptor="none").detect_batch([], descriptors=True)


def test_pool_retries_frames_with_many_keypoints():
    rng = np.random.default_rng(5)
    noisy = rng.integers(0, 256, (480, 640), dtype=np.uint8)  # thousands of keypoints
    pool = satfeat.Pool(640, 480, backend="cpu", workers=2, threshold=0.0001)
    det = satfeat.Detector(640, 480, backend="cpu", threshold=0.0001)
    want = det.detect(noisy)
    assert len(want) > 2048  # more than the pool's first room
    got = pool.detect([noisy, noisy[:10, :10].copy(), noisy])
    assert got[0].tobytes() == want.tobytes() and got[2].tobytes() == want.tobytes()
    assert len(got[1]) == 0


def test_pool_errors():
    pool = satfeat.Pool(64, 48, backend="cpu", workers=2)
    with pytest.raises(satfeat.ArgumentError, match="frame 1 "):
        pool.detect([np.zeros((48, 64), np.uint8), np.zeros((48, 65), np.uint8)])
    with pytest.raises(ValueError, match=r"images\[0\] must hold uint8"):
        pool.detect([np.zeros((48, 64), np.float32)])
    with pytest.raises(ValueError, match="not devices"):
        satfeat.Pool(64, 48, backend="cpu", devices=[0])
    if satfeat.cuda_device_count() == 0:
        with pytest.raises(satfeat.NoDeviceError if satfeat.has_cuda_build()
                           else satfeat.UnsupportedError):
            satfeat.Pool(64, 48, backend="cuda")

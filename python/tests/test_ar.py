"""satfeat.ARSession: poses on a rendered sequence with exact poses (satfeat_gen_ar_sequence),
OpenCV's conventions (cv2.projectPoints with rvec, tvec, camera_matrix and dist_coeffs lands on
the session's homography), errors, and threads sharing a session."""
import math
import os
import subprocess
import threading

import numpy as np
import pytest

import satfeat

W, H = 640, 480


@pytest.fixture(scope="module")
def sequence(data_dir, tmp_path_factory):
    """12 frames of the 'sample' path (distortion, a 6-DoF camera) of data/dune/frame001.png as a
    0.3 m target: (reference, frames, camera row fx fy cx cy k1 k2, poses rows)."""
    gen = os.environ.get("SATFEAT_GEN_AR_SEQUENCE")
    if not gen:
        pytest.skip("SATFEAT_GEN_AR_SEQUENCE is not set (run the suite through ctest)")
    out = tmp_path_factory.mktemp("ar")
    ref = data_dir / "dune" / "frame001.png"
    subprocess.run([gen, str(ref), "0.3", "sample", str(out), "--frames", "12",
                    "--supersample", "2"], check=True)
    frames = [satfeat.load_gray(str(out / f"frame{k:03d}.png")) for k in range(1, 13)]
    camera = np.loadtxt(out / "camera.txt")
    poses = np.loadtxt(out / "poses.txt", ndmin=2)
    return satfeat.load_gray(str(ref)), frames, camera, poses


def make_session(seq, **kw):
    ref, _, cam, _ = seq
    K = np.array([[cam[0], 0, cam[2]], [0, cam[1], cam[3]], [0, 0, 1]])
    return satfeat.ARSession([(ref, 0.3)], W, H, camera_matrix=K, dist_coeffs=cam[4:6],
                             backend="cpu", threads=2, **kw)


def rotation(r):
    r = np.asarray(r, dtype=np.float64).reshape(3)
    th = np.linalg.norm(r)
    if th < 1e-15:
        return np.eye(3)
    k = r / th
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(th) * K + (1 - math.cos(th)) * K @ K


def test_poses_against_ground_truth(sequence):
    _, frames, _, poses = sequence
    s = make_session(sequence)
    assert s.n_targets == 1
    rot, tr, states = [], [], []
    for img, gt in zip(frames, poses):
        (res,) = s.process(img)
        states.append(res["state"])
        if res["state"] == "lost":
            assert res["rvec"] is None and res["tvec"] is None and math.isnan(res["reproj_px"])
            assert res["inliers"] == 0
            continue
        assert res["rvec"].shape == (3, 1) and res["tvec"].shape == (3, 1)
        assert res["R"].shape == (3, 3) and res["H"].shape == (3, 3)
        np.testing.assert_allclose(rotation(res["rvec"]), res["R"], atol=1e-9)
        if gt[7] >= 0.5:
            dR = rotation(gt[4:7]).T @ res["R"]
            rot.append(math.degrees(math.acos(min(1.0, (np.trace(dR) - 1) / 2))))
            tr.append(np.linalg.norm(res["tvec"].ravel() - gt[1:4]) / np.linalg.norm(gt[1:4]))
    assert "found" in states  # frames far apart: each is found anew
    assert len(rot) >= 0.6 * np.sum(poses[:, 7] >= 0.5)
    assert np.median(rot) < 0.5 and np.median(tr) < 0.01


def test_opencv_projects_with_the_pose(sequence):
    cv2 = pytest.importorskip("cv2")
    ref, frames, _, _ = sequence
    s = make_session(sequence)
    res = None
    for img in frames:
        (res,) = s.process(img)
        if res["state"] != "lost":
            break
    assert res["state"] != "lost"
    # reference pixels (u, v) sit at world (u s, v s, 0); H maps them to the undistorted frame,
    # so undistorting cv2.projectPoints' pixels must land on H's
    sc = 0.3 / ref.shape[1]
    uv = np.array([[10.0, 20.0], [600.0, 30.0], [320.0, 400.0], [50.0, 450.0]])
    world = np.hstack([uv * sc, np.zeros((4, 1))])
    px, _ = cv2.projectPoints(world, res["rvec"], res["tvec"], s.camera_matrix, s.dist_coeffs)
    und = cv2.undistortPoints(px, s.camera_matrix, s.dist_coeffs, P=s.camera_matrix)
    h = res["H"] @ np.vstack([uv.T, np.ones(4)])
    np.testing.assert_allclose(und.reshape(4, 2), (h[:2] / h[2]).T, atol=1e-3)


def test_fov_and_reset(sequence):
    ref, frames, _, _ = sequence
    s = satfeat.ARSession([(ref, 0.3)], W, H, fov=60.0, backend="cpu")
    K = s.camera_matrix
    assert K[0, 0] == pytest.approx(0.5 * W / math.tan(math.radians(30)))
    assert (K[0, 2], K[1, 2]) == (0.5 * (W - 1), 0.5 * (H - 1))
    assert s.dist_coeffs.shape == (5, 1) and not s.dist_coeffs.any()
    s.process(frames[0])
    s.reset()


def test_photometric(sequence):
    """photometric=False (the features' pose alone) and True (the default: refined by the
    frame's pixels) both run and pose the target; anything but 0 or 1 is the library's
    SATFEAT_ERR_ARG."""
    _, frames, _, _ = sequence
    for flag in (False, True):
        s = make_session(sequence, photometric=flag)
        results = [s.process(img)[0] for img in frames]
        posed = [r for r in results if r["state"] != "lost"]
        assert posed, f"photometric={flag}: no pose in {len(frames)} frames"
        for r in posed:
            assert r["tvec"].shape == (3, 1) and math.isfinite(r["reproj_px"])
    for flag in (0, 1):  # a bool-like int, as the C field
        make_session(sequence, photometric=flag).process(frames[0])
    for bad in (2, -1):
        with pytest.raises(ValueError, match="photometric") as e:
            make_session(sequence, photometric=bad)
        assert isinstance(e.value, satfeat.ArgumentError)
    with pytest.raises(TypeError):
        make_session(sequence, photometric="yes")


def test_errors(sequence):
    ref, frames, cam, _ = sequence
    K = np.array([[500.0, 0, 320], [0, 500, 240], [0, 0, 1]])
    with pytest.raises(ValueError, match="either camera_matrix or fov"):
        satfeat.ARSession([(ref, 0.3)], W, H)
    with pytest.raises(ValueError, match="camera_matrix must be"):
        satfeat.ARSession([(ref, 0.3)], W, H, camera_matrix=np.eye(3) * 2)
    with pytest.raises(ValueError, match="p1, p2 and k3 must be 0"):
        satfeat.ARSession([(ref, 0.3)], W, H, camera_matrix=K, dist_coeffs=[0, 0, 0.1, 0, 0])
    with pytest.raises(ValueError, match="1 .. 64 targets"):
        satfeat.ARSession([], W, H, camera_matrix=K)
    with pytest.raises(satfeat.ArgumentError, match="width"):
        satfeat.ARSession([(ref, -1.0)], W, H, camera_matrix=K)
    with pytest.raises(satfeat.NoModelError):
        satfeat.ARSession([(np.zeros((100, 100), np.uint8), 0.3)], W, H, camera_matrix=K)
    with pytest.raises(satfeat.FileIOError):
        satfeat.ARSession(["/nonexistent/target.sft"], W, H, camera_matrix=K)
    with pytest.raises(TypeError):
        satfeat.ARSession([(ref,)], W, H, camera_matrix=K)
    s = satfeat.ARSession([(ref, 0.3)], W, H, camera_matrix=K, backend="cpu")
    with pytest.raises(satfeat.ArgumentError, match="1x1 .. 640x480"):
        s.process(np.zeros((H + 1, W), np.uint8))
    with pytest.raises(ValueError):
        s.process(np.zeros((H, W), np.float64))
    uninit = satfeat.ARSession.__new__(satfeat.ARSession)
    with pytest.raises(RuntimeError, match="not called"):
        uninit.process(frames[0])


def test_threads_share_a_session(sequence):
    """Threads take turns on one session: every call returns a complete answer for its frame,
    and the same frame sequence run serially on a fresh session gives the same poses."""
    _, frames, _, _ = sequence
    probe = make_session(sequence)
    frame = next(f for f in frames if probe.process(f)[0]["state"] != "lost")
    s = make_session(sequence)
    out = [None] * 6
    errors = []

    def work(i):
        try:
            out[i] = s.process(frame)[0]
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    ref_session = make_session(sequence)
    serial = [ref_session.process(frame)[0] for _ in range(6)]
    # the same frame six times: found, then tracked; the threads' answers are the serial ones
    for a in out + serial:
        assert a["state"] in ("found", "tracked")
    np.testing.assert_allclose(sorted(a["tvec"][2, 0] for a in out),
                               sorted(a["tvec"][2, 0] for a in serial), rtol=0, atol=0)

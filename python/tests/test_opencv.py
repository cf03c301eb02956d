"""satfeat's records and OpenCV's cv2.KeyPoint / cv2.DMatch: the field mapping, round trips, the
angle convention (degrees, OpenCV's direction) on a rotated image, OpenCV's own matcher and
drawing on our features, and a clear error without cv2."""
import sys
import types

import numpy as np
import pytest

import satfeat


@pytest.fixture(scope="module")
def features(data_dir):
    img = satfeat.load_gray(data_dir / "dune" / "frame001.png")
    kp, desc = satfeat.Detector(backend="cpu").detect(img, descriptors=True)
    return img, kp, desc


def f32(values):
    return np.asarray(values, np.float32).astype(np.float64)


def test_keypoints_map_field_for_field(features):
    cv2 = pytest.importorskip("cv2")
    _, kp, _ = features
    cv = satfeat.to_cv_keypoints(kp)
    assert len(cv) == len(kp) > 100 and all(isinstance(k, cv2.KeyPoint) for k in cv)
    assert np.array_equal([k.pt for k in cv], np.stack([f32(kp["x"]), f32(kp["y"])], 1))
    assert np.array_equal([k.size for k in cv], f32(kp["size"]))
    assert np.array_equal([k.angle for k in cv], f32(kp["angle"]))
    assert np.array_equal([k.response for k in cv], f32(kp["response"]))
    assert [k.octave for k in cv] == kp["octave"].tolist()
    assert [k.class_id for k in cv] == kp["laplacian"].tolist()
    assert set(kp["laplacian"].tolist()) == {-1, 1}
    angles = np.array([k.angle for k in cv])
    assert angles.min() >= 0 and angles.max() < 360 and angles.max() > 180


def test_keypoint_round_trips(features):
    pytest.importorskip("cv2")
    _, kp, _ = features
    back = satfeat.from_cv_keypoints(satfeat.to_cv_keypoints(kp))
    assert back.dtype == satfeat.keypoint_dtype and len(back) == len(kp)
    for name in ("x", "y", "size", "angle", "response"):  # float32 in cv2
        assert np.array_equal(back[name], f32(kp[name])), name
    for name in ("laplacian", "octave"):
        assert np.array_equal(back[name], kp[name]), name
    assert np.allclose(back["sigma"], kp["sigma"], rtol=1e-6)
    assert not back["layer"].any() and not back["sample_x"].any() and not back["sample_y"].any()
    cv = satfeat.to_cv_keypoints(back)  # cv2 -> records -> cv2 is exact
    again = satfeat.to_cv_keypoints(satfeat.from_cv_keypoints(cv))
    assert [(k.pt, k.size, k.angle, k.response, k.octave, k.class_id) for k in again] == \
        [(k.pt, k.size, k.angle, k.response, k.octave, k.class_id) for k in cv]
    assert len(satfeat.to_cv_keypoints(kp[:0])) == 0 and len(satfeat.from_cv_keypoints([])) == 0


def test_other_detectors_keypoints_and_edge_angles():
    cv2 = pytest.importorskip("cv2")
    orb = [cv2.KeyPoint(10.5, 20.25, 31.0, -1.0, 0.5, 3, -1),  # OpenCV's "no angle"
           cv2.KeyPoint(1.0, 2.0, 9.0, 359.5, 0.0, 0, 1)]
    rec = satfeat.from_cv_keypoints(orb)
    assert rec["angle"].tolist() == [0.0, 359.5] and rec["laplacian"].tolist() == [-1, 1]
    assert rec["sigma"][0] == 31.0 * 1.2 / 9.0 and rec["octave"].tolist() == [3, 0]
    near = np.zeros(1, satfeat.keypoint_dtype)
    near["angle"] = np.nextafter(360.0, 0.0)  # rounds up to 360 in float32
    assert satfeat.to_cv_keypoints(near)[0].angle == 0.0
    tracks = np.zeros(2, satfeat.track_dtype)
    tracks["x"], tracks["size"], tracks["angle"], tracks["laplacian"] = [3, 4], 15, 90, [1, -1]
    cv = satfeat.to_cv_keypoints(tracks)
    assert [(k.pt[0], k.size, k.angle, k.class_id, k.response) for k in cv] == \
        [(3.0, 15.0, 90.0, 1, 0.0), (4.0, 15.0, 90.0, -1, 0.0)]
    with pytest.raises(ValueError, match="keypoint_dtype or satfeat.track_dtype"):
        satfeat.to_cv_keypoints(np.zeros(3))
    with pytest.raises(ValueError, match="match_dtype"):
        satfeat.to_cv_matches(np.zeros(3))


def test_angles_follow_opencv_on_a_rotated_image(data_dir):
    """Rotating the image content by +30 degrees (counter-clockwise on screen, as
    cv2.getRotationMatrix2D) turns every keypoint by -30 in OpenCV's clockwise degrees."""
    cv2 = pytest.importorskip("cv2")
    img = satfeat.load_gray(data_dir / "dune" / "frame001.png")
    rot = cv2.getRotationMatrix2D((320.0, 240.0), 30.0, 1.0)
    turned = cv2.warpAffine(img, rot, (640, 480), flags=cv2.INTER_LINEAR)
    det = satfeat.Detector(backend="cpu")
    kp1, d1 = det.detect(img, descriptors=True)
    kp2, d2 = det.detect(turned, descriptors=True)
    m = satfeat.match(d1, d2, kp1=kp1, kp2=kp2)
    p1 = np.c_[kp1["x"], kp1["y"], np.ones(len(kp1))][m["query"]] @ rot.T
    good = np.hypot(*(p1 - np.c_[kp2["x"], kp2["y"]][m["train"]]).T) < 2  # true matches
    assert np.count_nonzero(good) > 100
    a1 = np.array([k.angle for k in satfeat.to_cv_keypoints(kp1[m["query"][good]])])
    a2 = np.array([k.angle for k in satfeat.to_cv_keypoints(kp2[m["train"][good]])])
    turn = (a2 - a1 + 180.0) % 360.0 - 180.0
    assert abs(np.median(turn) + 30.0) < 5.0  # measured: -32.2 (orientation noise)


def test_matches_round_trip_and_opencv_tools(features, tmp_path):
    """cv2.BFMatcher on our descriptors, its DMatches into estimate_motion, ours into
    cv2.drawMatches."""
    cv2 = pytest.importorskip("cv2")
    img, kp, desc = features
    m = satfeat.match(desc, desc[::-1].copy(), ratio=1.0)
    cv = satfeat.to_cv_matches(m)
    assert [(d.queryIdx, d.trainIdx, d.distance) for d in cv] == \
        [(q, t, d) for q, t, d in m.tolist()]
    assert satfeat.from_cv_matches(cv).tobytes() == m.tobytes()
    assert satfeat.from_cv_matches([]).dtype == satfeat.match_dtype
    img2 = np.ascontiguousarray(np.roll(img, (7, -5), axis=(0, 1)))
    kp2, desc2 = satfeat.Detector(backend="cpu").detect(img2, descriptors=True)
    bf = cv2.BFMatcher(cv2.NORM_L2, crossCheck=True).match(desc, desc2)
    h, mask = satfeat.estimate_motion(kp, kp2, satfeat.from_cv_matches(bf), model="similarity")
    assert np.allclose(h, [[1, 0, -5], [0, 1, 7], [0, 0, 1]], atol=0.05)
    drawn = cv2.drawMatches(img, satfeat.to_cv_keypoints(kp), img2,
                            satfeat.to_cv_keypoints(kp2), bf[:20], None)
    assert drawn.shape[:2] == (480, 1280)


def test_without_opencv_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "cv2", None)  # import cv2 now raises ImportError
    kp = np.zeros(2, satfeat.keypoint_dtype)
    with pytest.raises(ImportError, match="to_cv_keypoints needs OpenCV.*python3-opencv"):
        satfeat.to_cv_keypoints(kp)
    with pytest.raises(ImportError, match="to_cv_matches needs OpenCV"):
        satfeat.to_cv_matches(np.zeros(2, satfeat.match_dtype))
    fake = types.SimpleNamespace(pt=(1.0, 2.0), size=9.0, angle=45.0, response=0.01, octave=0,
                                 class_id=1)
    rec = satfeat.from_cv_keypoints([fake])  # reading needs no cv2
    assert rec["x"][0] == 1.0 and rec["angle"][0] == 45.0
    pair = types.SimpleNamespace(queryIdx=0, trainIdx=1, distance=0.5)
    assert satfeat.from_cv_matches([pair]).tolist() == [(0, 1, 0.5)]

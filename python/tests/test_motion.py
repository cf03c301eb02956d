"""satfeat.estimate_motion against the C call satfeat_estimate_motion_matches (bit for bit, from
python/tests/ref_features.c on the same keypoints and matches), its result's one shape, and its
errors."""
import numpy as np
import pytest

import satfeat
from conftest import python_angles

# A motion file of ref_features.c: h, then inliers, rms_error, iterations.
MOTION_RECORD = np.dtype([("h", "<f8", (9,)), ("inliers", "<u8"), ("rms_error", "<f8"),
                          ("iterations", "<i8")])


def reference_inputs(ref_dir):
    """The C side's keypoints (as the module gives them: degrees) and matches."""
    kp1 = python_angles(np.fromfile(ref_dir / "kp1.bin", dtype=satfeat.keypoint_dtype))
    kp2 = python_angles(np.fromfile(ref_dir / "kp2.bin", dtype=satfeat.keypoint_dtype))
    matches = np.fromfile(ref_dir / "match.bin", dtype=satfeat.match_dtype)
    return kp1, kp2, matches


@pytest.mark.parametrize("name, kwargs", [
    ("homography", {}),
    ("affine", {"model": "affine", "threshold": 2.0, "seed": 7}),
])
def test_estimate_motion_equals_c(reference, name, kwargs):
    kp1, kp2, matches = reference_inputs(reference["dir"])
    want = np.fromfile(reference["dir"] / f"motion_{name}.bin", dtype=MOTION_RECORD)[0]
    want_mask = np.fromfile(reference["dir"] / f"mask_{name}.u8", dtype=np.uint8)
    got = satfeat.estimate_motion(kp1, kp2, matches, **kwargs)
    h, mask = got  # the pair, as cv2.findHomography's (H, mask)
    assert isinstance(got, satfeat.MotionEstimate) and len(got) == 2
    assert h.dtype == np.float64 and h.shape == (3, 3)
    assert h.tobytes() == want["h"].tobytes()
    assert mask.dtype == np.bool_ and mask.shape == (len(matches),)
    assert np.array_equal(mask.view(np.uint8), want_mask)
    assert got.inliers == want["inliers"] == np.count_nonzero(mask)
    assert got.rms_error == want["rms_error"] and got.iterations == want["iterations"]
    assert len(matches) > 50 and got.inliers > len(matches) // 2
    if name == "affine":
        assert np.array_equal(h[2], [0.0, 0.0, 1.0])


def test_detect_match_estimate_finds_the_true_motion(data_dir):
    """The whole Python pipeline on a dune pair: the estimate maps the frame's corners within
    1.5 px of the ground truth (data/dune/H1to005p). The corners lie outside the keypoints'
    hull, so their error is noise of the fit: 291 inliers, 0.65 px rms with the descriptor Haar
    side 3s or 4s, largest corner error 0.88 or 1.36 px."""
    img1 = satfeat.load_gray(data_dir / "dune" / "frame001.png")
    img2 = satfeat.load_gray(data_dir / "dune" / "frame005.png")
    det = satfeat.Detector(backend="cpu")
    kp1, d1 = det.detect(img1, descriptors=True)
    kp2, d2 = det.detect(img2, descriptors=True)
    m = satfeat.match(d1, d2, kp1=kp1, kp2=kp2)
    h, mask = satfeat.estimate_motion(kp1, kp2, m)
    truth = np.loadtxt(data_dir / "dune" / "H1to005p")
    corners = np.array([[0, 0, 1], [639, 0, 1], [0, 479, 1], [639, 479, 1]], float)

    def mapped(hm):
        q = corners @ hm.T
        return q[:, :2] / q[:, 2:]

    assert np.max(np.hypot(*(mapped(h) - mapped(truth)).T)) < 1.5
    similarity = satfeat.estimate_motion(kp1, kp2, m, model="similarity", refine=False)
    a, b = similarity.h[0, 0], similarity.h[1, 0]
    assert similarity.h[1, 1] == a and similarity.h[0, 1] == -b  # rotation and uniform scale
    assert similarity.iterations >= 1 and similarity.inliers >= 4


def test_estimate_motion_errors():
    kp = np.zeros(10, satfeat.keypoint_dtype)
    kp["x"] = np.arange(10) * 7.0
    kp["y"] = np.arange(10) % 3 * 11.0
    m = np.zeros(3, satfeat.match_dtype)
    m["query"] = m["train"] = [0, 1, 2]
    with pytest.raises(satfeat.NoModelError):  # fewer matches than the inlier minimum
        satfeat.estimate_motion(kp, kp, m)
    with pytest.raises(satfeat.NoModelError):
        satfeat.estimate_motion(kp, kp, np.zeros(0, satfeat.match_dtype))
    outside = m.copy()
    outside["train"][2] = 10
    with pytest.raises(satfeat.ArgumentError, match="outside the sets"):
        satfeat.estimate_motion(kp, kp, outside)
    with pytest.raises(satfeat.ArgumentError, match="threshold"):
        satfeat.estimate_motion(kp, kp, m, threshold=0.0)
    with pytest.raises(satfeat.ArgumentError):
        satfeat.estimate_motion(kp, kp, m, confidence=1.0)
    with pytest.raises(ValueError, match="model must be 'homography', 'affine' or 'similarity'"):
        satfeat.estimate_motion(kp, kp, m, model="projective")
    with pytest.raises(ValueError, match="seed must be None or an int"):
        satfeat.estimate_motion(kp, kp, m, seed=-1)
    with pytest.raises(ValueError, match="seed must be None or an int"):
        satfeat.estimate_motion(kp, kp, m, seed=2**64)
    with pytest.raises(ValueError, match="matches must be a 1-D C-contiguous array"):
        satfeat.estimate_motion(kp, kp, np.zeros((3, 3), np.int32))
    with pytest.raises(ValueError, match="kp2 must be a 1-D C-contiguous array"):
        satfeat.estimate_motion(kp, np.zeros(10), m)
    with pytest.raises(TypeError):
        satfeat.estimate_motion(kp, kp, m, 3.0)  # the parameters are keywords

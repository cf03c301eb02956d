"""Bad input from Python: clear ValueErrors for shapes, item types and strides, and every library
status raised as its own exception class with the library's message."""
import os

import numpy as np
import pytest

import satfeat


@pytest.fixture()
def det():
    return satfeat.Detector(64, 48, backend="cpu")


@pytest.mark.parametrize("image, words", [
    (np.zeros((48, 64), np.float32), "uint8"),
    (np.zeros((48, 64), np.uint16), "uint8"),
    (np.zeros((48, 64, 3), np.uint8), "2-D"),
    (np.zeros(64, np.uint8), "2-D"),
    (np.zeros((48, 64), np.uint8).T, "contiguous rows"),
    (np.zeros((48, 128), np.uint8)[:, ::2], "contiguous rows"),
    (np.zeros((0, 64), np.uint8), "at least 1 x 1"),
])
def test_bad_images_are_value_errors(det, image, words):
    with pytest.raises(ValueError, match=words):
        det.detect(image)


def test_not_a_buffer_is_a_type_error(det):
    with pytest.raises(TypeError, match="2-D array or buffer"):
        det.detect([[0] * 64] * 48)


def test_frame_larger_than_the_detector(det):
    with pytest.raises(satfeat.ArgumentError, match="65x48") as e:
        det.detect(np.zeros((48, 65), np.uint8))
    assert isinstance(e.value, ValueError) and e.value.status == 1
    assert e.value.status_name == "invalid argument"
    assert len(det.detect(np.zeros((48, 64), np.uint8))) == 0  # still usable


def test_bad_parameters_carry_the_library_message():
    with pytest.raises(satfeat.ArgumentError, match="octaves"):
        satfeat.Detector(64, 48, backend="cpu", octaves=9)
    with pytest.raises(TypeError, match="unknown detector parameter 'treshold'"):
        satfeat.Detector(64, 48, treshold=0.1)
    with pytest.raises(ValueError, match="backend must be"):
        satfeat.Detector(64, 48, backend="gpu")
    with pytest.raises(ValueError, match="descriptor must be"):
        satfeat.Detector(64, 48, descriptor="sift")
    with pytest.raises(ValueError, match="descriptor_norm must be"):
        satfeat.Detector(64, 48, descriptor_norm="l1")
    with pytest.raises(ValueError, match="orientation_filter must be"):
        satfeat.Detector(64, 48, orientation_filter="sobel")
    with pytest.raises(ValueError, match="descriptors=True needs"):
        satfeat.Detector(64, 48, descriptor="none").detect(np.zeros((48, 64), np.uint8),
                                                            descriptors=True)


def test_cuda_without_a_device_or_build():
    if satfeat.cuda_device_count() > 0:
        pytest.skip("a CUDA device is present")
    want = satfeat.NoDeviceError if satfeat.has_cuda_build() else satfeat.UnsupportedError
    with pytest.raises(want, match="cuda context"):
        satfeat.Detector(64, 48, backend="cuda")
    assert len(satfeat.Detector(64, 48, backend="auto").detect(np.zeros((48, 64), np.uint8))) == 0


def test_files(tmp_path, data_dir):
    with pytest.raises(satfeat.FileIOError, match="missing.png") as e:
        satfeat.load_gray(tmp_path / "missing.png")
    assert isinstance(e.value, OSError)
    with pytest.raises(satfeat.FormatError, match="not a PNG, JPEG, PGM or PPM") as e:
        satfeat.load_gray(data_dir / "README.md")
    assert isinstance(e.value, ValueError)
    bad = tmp_path / "truncated.png"
    bad.write_bytes((data_dir / "scene.png").read_bytes()[:2000])
    with pytest.raises(satfeat.FormatError):
        satfeat.load_gray(bad)
    huge = tmp_path / "huge.pgm"
    huge.write_bytes(b"P5 70000 10 255\n")
    with pytest.raises(satfeat.SizeOverflowError):
        satfeat.load_gray(huge)


def test_match_checks():
    d = np.zeros((5, 64), np.float32)
    with pytest.raises(ValueError, match=r"\(n, 64\) or \(n, 128\)"):
        satfeat.match(np.zeros((5, 32), np.float32), d)
    with pytest.raises(ValueError, match="float32"):
        satfeat.match(d.astype(np.float64), d)
    with pytest.raises(ValueError, match="d1 has 64 columns but d2 has 128"):
        satfeat.match(d, np.zeros((5, 128), np.float32))
    with pytest.raises(satfeat.ArgumentError, match="ratio"):
        satfeat.match(d, d, ratio=1.5)
    with pytest.raises(ValueError, match="pass kp1 and kp2"):
        satfeat.match(d, d, radius=5.0)
    with pytest.raises(ValueError, match="pass kp1 and kp2"):
        satfeat.match(d, d, same_laplacian=True)
    one = np.zeros(5, satfeat.keypoint_dtype)
    with pytest.raises(ValueError, match=r"pass both kp1 and kp2 \(or neither\)"):
        satfeat.match(d, d, kp1=one)
    with pytest.raises(ValueError, match=r"pass both kp1 and kp2 \(or neither\)"):
        satfeat.match(d, d, kp2=one, same_laplacian=False)
    kp = np.zeros(4, satfeat.keypoint_dtype)
    with pytest.raises(ValueError, match="kp1 has 4 keypoints"):
        satfeat.match(d, d, kp1=kp, kp2=kp)
    with pytest.raises(ValueError, match="dtype the library returns"):
        satfeat.match(d, d, kp1=np.zeros(5), kp2=np.zeros(5))


def test_tracker_checks():
    with pytest.raises(satfeat.ArgumentError):
        satfeat.Tracker(64, 48, backend="cpu", detector={"descriptor": "none"})
    with pytest.raises(satfeat.ArgumentError):  # checked before the first frame sizes it
        satfeat.Tracker(backend="cpu", max_missed=-1)
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(satfeat.ArgumentError, match="birth_confirm_radius"):
            satfeat.Tracker(64, 48, backend="cpu", birth_confirm_radius=bad)
        with pytest.raises(satfeat.ArgumentError, match="max_birth_size"):
            satfeat.Tracker(64, 48, backend="cpu", max_birth_size=bad)
        with pytest.raises(satfeat.ArgumentError, match="continue_threshold"):
            satfeat.Tracker(64, 48, backend="cpu", continue_threshold=bad)
    tr = satfeat.Tracker(64, 48, backend="cpu")
    tr.track(np.zeros((48, 64), np.uint8))
    with pytest.raises(satfeat.ArgumentError):
        tr.track(np.zeros((40, 64), np.uint8))  # another size than the first frame
    t = satfeat.Tracker.__new__(satfeat.Tracker)
    for call in (lambda: t.track(np.zeros((4, 4), np.uint8)), t.reset, lambda: t.memory_limit):
        with pytest.raises(RuntimeError, match="__init__"):
            call()
    with pytest.raises(satfeat.ArgumentError):  # a failed __init__ leaves it uninitialised
        t.__init__(backend="cpu", max_missed=-1)
    with pytest.raises(RuntimeError, match="__init__"):
        t.track(np.zeros((4, 4), np.uint8))
    t.__init__(backend="cpu")  # and may be called again
    assert t.track(np.zeros((48, 64), np.uint8)).motion["frame"] == 1


def test_uninitialised_objects_raise():
    d = satfeat.Detector.__new__(satfeat.Detector)
    with pytest.raises(RuntimeError, match="__init__"):
        d.detect(np.zeros((4, 4), np.uint8))
    with pytest.raises(RuntimeError, match="__init__"):
        _ = d.backend


def test_init_again_after_a_failed_init():
    d = satfeat.Detector.__new__(satfeat.Detector)
    with pytest.raises(satfeat.ArgumentError):
        d.__init__(64, 48, backend="cpu", octaves=0)
    d.__init__(64, 48, backend="cpu")
    assert d.width == 64
    with pytest.raises(RuntimeError, match="already initialised"):
        d.__init__(64, 48)


def test_threads_are_capped_like_the_cli():
    cap = 4 * os.sysconf("SC_NPROCESSORS_ONLN")  # cli_max_threads: 4 per online core
    assert satfeat.Detector(64, 48, backend="cpu", threads=cap).threads == cap
    for make in (lambda n: satfeat.Detector(64, 48, backend="cpu", threads=n),
                 lambda n: satfeat.Tracker(64, 48, backend="cpu", threads=n),
                 lambda n: satfeat.Pool(64, 48, backend="cpu", workers=n)):
        with pytest.raises(ValueError, match=f"in 0 .. {cap} .*got {cap + 1}"):
            make(cap + 1)
        with pytest.raises(ValueError, match="got -1"):
            make(-1)


def test_memory_limits():
    default = satfeat.Detector(64, 48, backend="cpu").memory_limit
    assert default > 0
    with pytest.raises(satfeat.LimitError, match=r"detector: 4000x4000 frames need \d+ bytes, "
                                                 r"above the memory limit of 1048576 bytes") as e:
        satfeat.Detector(4000, 4000, backend="cpu", memory_limit=1 << 20)
    assert isinstance(e.value, MemoryError) and e.value.status_name
    with pytest.raises(satfeat.LimitError, match="16777216 tracks.*above the memory limit"):
        satfeat.Tracker(640, 480, backend="cpu", max_tracks=2 ** 24, memory_limit=1 << 30)
    det = satfeat.Detector(64, 48, backend="cpu", memory_limit=1 << 24)
    assert det.memory_limit == 1 << 24
    img = np.zeros((48, 64), np.uint8)
    noise = np.random.default_rng(0).integers(0, 256, (48, 64), dtype=np.uint8)
    det.set_memory_limit(200)  # below the arrays of the keypoints found in the noise
    assert det.memory_limit == 200
    assert len(det.detect(img)) == 0  # nothing found: nothing to hold
    with pytest.raises(satfeat.LimitError, match="Detector.detect: keypoint buffers need"):
        det.detect(noise)
    with pytest.raises(satfeat.LimitError, match="list of frames"):
        det.detect_batch([noise])
    det.set_memory_limit(0)  # the default again
    assert det.memory_limit == default and len(det.detect(noise)) * 64 > 200
    tr = satfeat.Tracker(64, 48, backend="cpu", memory_limit=1 << 24)
    tr.set_memory_limit(1000)
    with pytest.raises(satfeat.LimitError, match="Tracker.track: track buffers need 112000 bytes"):
        tr.track(img)
    for bad, exc in (("1", TypeError), (-1, ValueError), (2 ** 70, ValueError), (True, TypeError)):
        with pytest.raises(exc, match="memory_limit"):
            satfeat.Detector(64, 48, backend="cpu", memory_limit=bad)
        with pytest.raises(exc, match="memory_limit"):
            tr.set_memory_limit(bad)

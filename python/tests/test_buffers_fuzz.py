"""A seeded fuzz of the module's buffer layer (python/src/buffers.c, dtypes.c): arrays of every
NumPy numeric kind, bool, object and structured items, 0-d to 4-d, zero-size, with negative
strides, steps, Fortran order, byte-offset views, read-only and misaligned memory, handed to
every call that takes arrays. Each call must either give exactly what it gives for an aligned
C-contiguous copy of the same array, or raise TypeError / ValueError; anything else (another
exception, a crash of the interpreter) fails. SATFEAT_FUZZ_CASES sets the case count."""
import os

import numpy as np
import pytest

import satfeat

CASES = int(os.environ.get("SATFEAT_FUZZ_CASES", "800"))
W, H = 64, 48

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float16, np.float32, np.float64, np.longdouble, np.complex64,
          np.complex128, object, np.dtype([("a", "u1"), ("b", "f4")]), np.dtype([("v", "u1")])]
LAYOUTS = ["c", "fortran", "neg_rows", "neg_cols", "step_rows", "step_cols", "window",
           "readonly", "misaligned", "memoryview", "list"]


def values(rng, shape, dtype):
    """A C-contiguous array of `shape` and `dtype` with varied contents (a smooth-ish image for
    uint8, so detections find keypoints)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype == object:
        return np.array(list(rng.integers(0, 255, n)), dtype=object).reshape(shape)
    if dtype.names:
        a = np.zeros(shape, dtype)
        for name in dtype.names:
            a[name] = rng.integers(0, 255, shape)
        return a
    if dtype.kind in "fc":
        return rng.standard_normal(shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 255), shape, endpoint=True).astype(dtype)


def layout(rng, base, how):
    """`base` (C order) presented another way, holding the same values."""
    if how == "fortran":
        return np.asfortranarray(base)
    if base.ndim >= 1 and how == "neg_rows":
        return np.ascontiguousarray(base[::-1])[::-1]
    if base.ndim >= 2 and how == "neg_cols":
        return np.ascontiguousarray(base[:, ::-1])[:, ::-1]
    if base.ndim >= 1 and how == "step_rows":
        big = np.repeat(base, 2, axis=0)
        return big[::2]
    if base.ndim >= 2 and how == "step_cols":
        big = np.repeat(base, 2, axis=1)
        return big[:, ::2]
    if base.ndim >= 2 and how == "window":  # a byte-offset view whose rows are contiguous
        big = np.zeros((base.shape[0] + 3, base.shape[1] + 5) + base.shape[2:], base.dtype)
        big[1:1 + base.shape[0], 2:2 + base.shape[1]] = base
        return big[1:1 + base.shape[0], 2:2 + base.shape[1]]
    if how == "readonly":
        a = base.copy()
        a.flags.writeable = False
        return a
    if how == "misaligned" and base.dtype != object:
        raw = bytearray(base.nbytes + 1)
        a = np.frombuffer(raw, base.dtype, count=base.size, offset=1).reshape(base.shape)
        a[...] = base
        return a
    if how == "memoryview" and base.dtype != object and not base.dtype.names:
        return memoryview(base)
    if how == "list":
        return base.tolist()
    return base


def random_case(rng, target):
    """(array, its plain copy or None when it is no buffer, a description); `target` ("image" or
    "matrix") biases the case towards what the call takes, so both outcomes occur often."""
    kind = rng.integers(4)
    if kind == 0:  # anything: any dtype, 0-d .. 4-d, zero-size allowed
        dtype = DTYPES[rng.integers(len(DTYPES))]
        shape = tuple(int(rng.choice([0, 1, 2, 3, 5, 48])) for _ in range(rng.integers(5)))
    elif target == "image":  # mostly of the right item type, often the detector's full size
        dtype = [np.uint8, np.uint8, np.uint8, np.float32, np.int8, np.uint16][rng.integers(6)]
        shape = (H, W) if rng.integers(2) else (int(rng.integers(0, H + 3)),
                                                  int(rng.integers(0, W + 3)))
    else:  # descriptor matrices, mostly of the right widths
        dtype = [np.float32, np.float32, np.float32, np.float64, np.float16, np.int32][
            rng.integers(6)]
        shape = (int(rng.integers(0, 40)), int(rng.choice([64, 64, 128, 63, 0])))
    base = values(rng, shape, dtype)
    # half the cases in a layout the module takes as it is (given the right shape and items)
    plain_layouts = ["c", "readonly", "memoryview", "window" if target == "image" else "c"]
    how = LAYOUTS[rng.integers(len(LAYOUTS))] if rng.integers(2) else plain_layouts[
        rng.integers(4)]
    arr = layout(rng, base, how)
    plain = None if isinstance(arr, list) else np.array(np.asarray(arr), order="C", copy=True)
    return arr, plain, f"{np.dtype(dtype)} {shape} {how}"


def same(a, b):
    """Equal results: arrays (bytes), lists and tuples of arrays, or dicts of them."""
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and \
            a.tobytes() == b.tobytes()
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def check(call, arr, plain, what):
    """call(arr) equals call(plain), or raises TypeError / ValueError (also for the copy when the
    input itself was refused only for its layout: the copy is the accepted form)."""
    try:
        got = call(arr)
    except (TypeError, ValueError) as e:
        assert str(e), what
        return "refused"
    assert plain is not None, f"{what}: a non-buffer was accepted"
    want = call(plain)
    assert same(got, want), what
    return "accepted"


@pytest.fixture(scope="module")
def objects():
    return {
        "det": satfeat.Detector(W, H, backend="cpu", threads=1, threshold=0.0001),
        "pool": satfeat.Pool(W, H, backend="cpu", workers=1, threshold=0.0001),
    }


def test_fuzz_every_array_argument(objects):
    rng = np.random.default_rng(20261127)
    det, pool = objects["det"], objects["pool"]
    good_img = values(rng, (H, W), np.uint8)
    good_desc = rng.standard_normal((9, 64)).astype(np.float32)
    kp_good, desc_good = det.detect(good_img, descriptors=True)

    def tracked(img):
        tr = satfeat.Tracker(W, H, backend="cpu", threads=1)
        tracks, motion = result = tr.track(img, descriptors=True)
        desc = result.descriptors
        motion = {k: v for k, v in motion.items()}
        return tracks, desc, motion

    calls = {
        "sat": satfeat.sat,
        "detect": lambda x: det.detect(x),
        "detect+desc": lambda x: det.detect(x, descriptors=True),
        "mask": lambda x: det.detect(good_img, mask=x),
        "detect_batch": lambda x: det.detect_batch([good_img, x]),
        "pool": lambda x: pool.detect([x]),
        "track": tracked,
        "match d1": lambda x: satfeat.match(x, good_desc, ratio=1.0, mutual=False),
        "match d2": lambda x: satfeat.match(good_desc, x, ratio=1.0, mutual=False),
        "match kp1": lambda x: satfeat.match(desc_good, desc_good, kp1=x, kp2=kp_good),
    }
    outcomes = {name: {"accepted": 0, "refused": 0} for name in calls}
    names = list(calls)
    for i in range(CASES):
        name = names[i % len(names)]
        arr, plain, what = random_case(rng, "matrix" if name.startswith("match") else "image")
        if name == "match kp1" and rng.integers(2):  # keypoint records in odd layouts
            arr = layout(rng, kp_good.copy(), LAYOUTS[rng.integers(len(LAYOUTS))])
            plain = None if isinstance(arr, list) else np.array(np.asarray(arr), copy=True)
            what = f"keypoints {getattr(arr, 'shape', None)}"
        outcomes[name][check(calls[name], arr, plain, f"case {i} {name}: {what}")] += 1
    # the fuzz reached both outcomes of every call (else it tests less than it claims)
    for name, n in outcomes.items():
        assert n["refused"] > 0, (name, outcomes)
        if name != "match kp1":
            assert n["accepted"] > 0, (name, outcomes)


def test_misaligned_and_empty_inputs_are_named():
    raw = bytearray(4 * 64 * 3 + 1)
    d = np.frombuffer(raw, np.float32, count=64 * 3, offset=1).reshape(3, 64)
    with pytest.raises(ValueError, match="aligned"):
        satfeat.match(d, d)
    with pytest.raises(ValueError, match="aligned"):
        satfeat.sat(np.frombuffer(bytearray(4 * 12 + 1), np.float32, count=12, offset=1)
                    .reshape(3, 4))
    with pytest.raises(ValueError, match=r"must be float32 \(got float64\).*astype\(np.float32\)"):
        satfeat.match(np.zeros((2, 64)), np.zeros((2, 64), np.float32))
    empty = np.zeros((0, 64), np.float32)
    for a, b in ((empty, empty), (empty, d.copy()), (d.copy(), empty)):
        m = satfeat.match(a, b)
        assert m.dtype == satfeat.match_dtype and m.shape == (0,)
    det = satfeat.Detector(W, H, backend="cpu")
    kp, desc = det.detect(np.zeros((H, W), np.uint8), descriptors=True)  # a blank frame
    assert desc.shape == (0, 64) and desc.dtype == np.float32
    assert satfeat.match(desc, desc, kp1=kp, kp2=kp).shape == (0,)
    with pytest.raises(satfeat.ArgumentError, match="ratio"):  # parameters still checked
        satfeat.match(empty, empty, ratio=5.0)

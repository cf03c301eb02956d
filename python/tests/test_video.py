"""satfeat.VideoReader on files written at test time by tests/make_test_video.c (libavcodec's
FFV1 encoder, so the frames are exact): pixels, attributes, start/frames/step, the context
manager, threads sharing a reader, and hostile inputs (FIFO, non-video, truncated, missing)."""
import os
import subprocess
import threading

import numpy as np
import pytest

import satfeat

N, W, H = 12, 160, 120
MAKER = os.environ.get("SATFEAT_MAKE_TEST_VIDEO")
pytestmark = pytest.mark.skipif(not MAKER, reason="built without video support (no make_test_video)")


@pytest.fixture(scope="module")
def vdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("video")
    subprocess.run([MAKER, str(d), str(N), str(W), str(H)], check=True)
    return d


def png(vdir, k):
    """Frame k (0-based) as the fixture program wrote it to a PNG file."""
    return satfeat.load_gray(str(vdir / f"frame{k + 1:03d}.png"))


def test_every_frame_exact(vdir):
    with satfeat.VideoReader(str(vdir / "video.mkv")) as r:
        assert (r.width, r.height, r.frame_count, r.codec) == (W, H, N, "ffv1")
        assert r.fps == pytest.approx(25.0)
        frames = list(r)
        assert r.position == N
    assert len(frames) == N
    for k, f in enumerate(frames):
        assert f.dtype == np.uint8 and f.shape == (H, W)
        np.testing.assert_array_equal(f, png(vdir, k))


def test_start_frames_step(vdir):
    got = list(satfeat.VideoReader(vdir / "video.nut", start=3, frames=4, step=2))
    assert len(got) == 4
    for f, k in zip(got, (3, 5, 7, 9)):
        np.testing.assert_array_equal(f, png(vdir, k))
    assert len(list(satfeat.VideoReader(str(vdir / "video.mkv"), start=10))) == 2
    assert list(satfeat.VideoReader(str(vdir / "video.mkv"), start=50)) == []
    assert list(satfeat.VideoReader(str(vdir / "video.mkv"), frames=0)) == []
    for bad in ({"start": -1}, {"step": 0}, {"frames": -2}):
        with pytest.raises(ValueError):
            satfeat.VideoReader(str(vdir / "video.mkv"), **bad)


def test_close(vdir):
    r = satfeat.VideoReader(str(vdir / "video.mkv"))
    next(r)
    r.close()
    r.close()
    assert r.closed
    with pytest.raises(ValueError, match="closed"):
        next(r)
    with satfeat.VideoReader(str(vdir / "video.mkv")) as r2:
        pass
    assert r2.closed


def test_threads_share_a_reader(vdir):
    r = satfeat.VideoReader(str(vdir / "video.mkv"))
    seen = []
    lock = threading.Lock()

    def work():
        for f in r:
            with lock:
                seen.append(f)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == N  # every frame once, whole
    want = {png(vdir, k).tobytes() for k in range(N)}
    assert {f.tobytes() for f in seen} == want


def test_hostile(vdir):
    with pytest.raises(satfeat.FileIOError, match="is a FIFO, not a regular file"):
        satfeat.VideoReader(str(vdir / "fifo.mkv"))
    with pytest.raises(satfeat.FormatError, match="not a video FFmpeg can read"):
        satfeat.VideoReader(str(vdir / "notes.mkv"))
    with pytest.raises(satfeat.FileIOError):
        satfeat.VideoReader(str(vdir / "missing.mkv"))
    with pytest.raises(satfeat.ArgumentError, match="URLs"):
        satfeat.VideoReader("http://example.com/clip.mkv")
    r = satfeat.VideoReader(str(vdir / "truncated.mkv"))
    with pytest.raises(satfeat.FormatError, match="truncated or damaged"):
        for _ in r:
            pass

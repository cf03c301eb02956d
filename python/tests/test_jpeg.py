"""load_gray reads JPEG through the library: the pixels of a colour JPEG equal those
libjpeg's own decoder gives for it (the PGM written beside it by satfeat_test_jpeg_fixture);
the format is recognised by content; a truncated file raises FormatError."""
import subprocess

import numpy as np
import pytest

import satfeat


@pytest.fixture(scope="module")
def jpeg_and_pgm(tool, data_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("jpeg")
    jpg, pgm = out / "scene.jpg", out / "scene.pgm"
    subprocess.run([str(tool("SATFEAT_JPEG_FIXTURE")), str(data_dir / "scene.png"), str(jpg),
                    str(pgm)], check=True)
    return jpg, pgm


def test_load_gray_reads_jpeg(jpeg_and_pgm):
    jpg, pgm = jpeg_and_pgm
    img = satfeat.load_gray(str(jpg))
    ref = satfeat.load_gray(str(pgm))
    assert img.dtype == np.uint8
    assert img.shape == ref.shape == (480, 640)
    assert np.array_equal(img, ref)


def test_jpeg_magic_not_name(jpeg_and_pgm, tmp_path):
    jpg, _ = jpeg_and_pgm
    renamed = tmp_path / "photo.png"
    renamed.write_bytes(jpg.read_bytes())
    assert np.array_equal(satfeat.load_gray(str(renamed)), satfeat.load_gray(str(jpg)))


def test_truncated_jpeg_is_a_format_error(jpeg_and_pgm, tmp_path):
    jpg, _ = jpeg_and_pgm
    cut = tmp_path / "cut.jpg"
    data = jpg.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(satfeat.FormatError, match="truncated JPEG"):
        satfeat.load_gray(str(cut))

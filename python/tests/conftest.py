"""Shared fixtures of the satfeat pytest suites: paths handed over by ctest (tests/tests_python.cmake)
through the environment, with fallbacks for a run by hand from the repository root."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def _env_path(name, default):
    value = os.environ.get(name)
    return pathlib.Path(value) if value else default


@pytest.fixture(scope="session")
def data_dir():
    """The repository's data/ folder (scene.png, dune/)."""
    return _env_path("SATFEAT_TEST_DATA_DIR", REPO / "data")


@pytest.fixture(scope="session")
def tool():
    """Path of a built helper program, from its environment variable (skips when unset)."""
    def find(var):
        value = os.environ.get(var)
        if not value:
            pytest.skip(f"{var} is not set (run the suite through ctest)")
        return pathlib.Path(value)
    return find


@pytest.fixture(scope="session")
def reference(tool, data_dir, tmp_path_factory):
    """The C library's raw results on dune frames 1 and 2 (python/tests/ref_features.c)."""
    out = tmp_path_factory.mktemp("ref")
    img1, img2 = data_dir / "dune" / "frame001.png", data_dir / "dune" / "frame002.png"
    subprocess.run([str(tool("SATFEAT_REF_FEATURES")), str(img1), str(img2), str(out)],
                   check=True)
    return {"dir": out, "img1": img1, "img2": img2}


def python_angles(records):
    """Raw library records (keypoints or tracks, angle in radians) as the module returns them:
    the angle in degrees, radians * (180 / pi) with an exact 360 wrapped to 0 (python/src/dtypes.c)."""
    out = records.copy()
    deg = out["angle"] * (180.0 / np.pi)
    deg[deg >= 360.0] -= 360.0
    out["angle"] = deg
    return out

#!/bin/sh
# python_pip_install.sh - `pip install .` of this checkout into a scratch --target directory,
# offline (--no-index --no-build-isolation, Debian's setuptools), packaging the extension of the
# already built CMake tree (setup.py's SATFEAT_CMAKE_BUILD_DIR); then, from another directory
# with only that target on the path, imports satfeat, detects keypoints in data/scene.png and
# checks that the type stubs (__init__.pyi, py.typed) were installed.
# usage: python_pip_install.sh PYTHON SOURCE_DIR CMAKE_BUILD_DIR WORK_DIR
set -eu
py=$1 src=$2 tree=$3 work=$4
rm -rf "$work"
mkdir -p "$work/site" "$work/elsewhere"
"$py" -m pip --version >"$work/pip.log" 2>&1 ||
  { echo "pip is missing for $py (Debian: apt-get install python3-pip)"; exit 1; }
SATFEAT_CMAKE_BUILD_DIR=$tree "$py" -m pip install --no-index \
  --no-build-isolation --no-deps --no-cache-dir --disable-pip-version-check \
  --target "$work/site" "$src" >"$work/pip.log" 2>&1 ||
  { cat "$work/pip.log"; echo "pip install failed"; exit 1; }
tail -n 1 "$work/pip.log"
cd "$work/elsewhere"
PYTHONPATH="$work/site" PYTHONNOUSERSITE=1 "$py" - "$work/site" "$src/data/scene.png" <<'PY'
import os, sys
import satfeat
site, scene = sys.argv[1], sys.argv[2]
assert os.path.dirname(os.path.dirname(os.path.abspath(satfeat.__file__))) == site, satfeat.__file__
img = satfeat.load_gray(scene)
kp = satfeat.Detector(img.shape[1], img.shape[0], backend="cpu").detect(img)
assert len(kp) > 100, len(kp)
package = os.path.dirname(os.path.abspath(satfeat.__file__))
for typed in ("__init__.pyi", "py.typed"):  # the type stubs travel with the package
    assert os.path.isfile(os.path.join(package, typed)), typed
print("satfeat %s from %s: %d keypoints in %s" % (satfeat.version(), satfeat.__file__, len(kp), scene))
PY

#!/bin/sh
# Installs what is missing (Debian 12, as root), builds libsatfeat and runs the main job on the
# bundled data: the summed area table and the Fast-Hessian keypoints of data/scene.png, then
# the descriptor matches of two frames of data/dune evaluated against their true homography.
# Usage: tools/quick-start.sh            (from the repository root)
set -eu
cd "$(dirname "$0")/.."
deps_env=$(sh tools/install-deps.sh python3-dev python3-numpy) # fails the script when apt fails
eval "$deps_env"
cmake -S . -B build -DSATFEAT_BUILD_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
./build/cli/satfeat --version
./build/cli/satfeat sat data/scene.png
echo
echo "satfeat detect data/scene.png (the 10 strongest of $(./build/cli/satfeat detect data/scene.png | tail -n +2 | wc -l) keypoints):"
./build/cli/satfeat detect data/scene.png --max-keypoints 10
echo
echo "satfeat match data/dune/frame001.png data/dune/frame005.png -H data/dune/H1to005p (summary):"
./build/cli/satfeat match data/dune/frame001.png data/dune/frame005.png -H data/dune/H1to005p |
  grep '^#'
echo
echo "the Python module (docs/PYTHON.md): PYTHONPATH=build/python /usr/bin/python3 -c 'import satfeat'"
PYTHONPATH=build/python /usr/bin/python3 -c "import satfeat; print('satfeat', satfeat.version(), 'from', satfeat.__file__)"

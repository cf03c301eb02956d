#!/bin/sh
# Installs what is missing (Debian 12, as root), builds libsatfeat and runs the main job on the
# bundled data: the summed area table and the Fast-Hessian keypoints of data/scene.png (written
# to build/quick-start/), then the descriptor matches of two frames of data/dune evaluated
# against their true homography; ends by saying where the output is and how to draw it.
# Usage: tools/quick-start.sh            (from the repository root)
set -eu
cd "$(dirname "$0")/.."
deps_env=$(sh tools/install-deps.sh python3-dev python3-numpy libavformat-dev libavcodec-dev \
  libswscale-dev libavutil-dev) # fails the script when apt fails
eval "$deps_env"
cmake -S . -B build -DSATFEAT_BUILD_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
./build/cli/satfeat --version
./build/cli/satfeat sat data/scene.png
echo
out=build/quick-start
mkdir -p "$out"
./build/cli/satfeat detect data/scene.png -o "$out/scene-keypoints.txt"
echo "satfeat detect data/scene.png -o $out/scene-keypoints.txt" \
  "($(grep -vc '^#' "$out/scene-keypoints.txt") keypoints; the 10 strongest):"
grep -v '^#' "$out/scene-keypoints.txt" | head -n 10
echo
echo "satfeat match data/dune/frame001.png data/dune/frame005.png -H data/dune/H1to005p (summary):"
./build/cli/satfeat match data/dune/frame001.png data/dune/frame005.png -H data/dune/H1to005p |
  grep '^#'
echo
echo "the Python module (docs/PYTHON.md): PYTHONPATH=build/python /usr/bin/python3 -c 'import satfeat'"
PYTHONPATH=build/python /usr/bin/python3 -c "import satfeat; print('satfeat', satfeat.version(), 'from', satfeat.__file__)"
echo "Output: the keypoints of data/scene.png are in $out/scene-keypoints.txt"
echo "(x y size response sigma laplacian octave layer, strongest first; --format csv|json|oxford for others)."
echo "Draw them:  ./build/cli/satfeat draw data/scene.png -o $out/scene-keypoints.png"

#!/bin/sh
# Installs what is missing (Debian 12, as root), builds libsatfeat, installs it (the `satfeat`
# command, the library, headers and the Python package) into PREFIX, and runs the main job on
# the bundled data: the summed area table and the Fast-Hessian keypoints of data/scene.png
# (written to build/quick-start/), then the descriptor matches of two frames of data/dune
# evaluated against their true homography; ends by saying where the output is and how to draw it.
# Usage: tools/quick-start.sh            (from the repository root)
#        SATFEAT_PREFIX=DIR tools/quick-start.sh   (install there instead of /usr/local)
set -eu
cd "$(dirname "$0")/.."
prefix=${SATFEAT_PREFIX:-/usr/local}
t0=$(date +%s)
minutes() { echo "$(( ($(date +%s) - $1) / 60 )) min $(( ($(date +%s) - $1) % 60 )) s"; }

echo "quick-start: checking the Debian packages (apt-get installs the missing ones)"
deps_env=$(sh tools/install-deps.sh python3-dev python3-numpy libavformat-dev libavcodec-dev \
  libswscale-dev libavutil-dev libopencv-dev) # fails the script when apt fails
eval "$deps_env"

# The durations were measured on a 2-core machine busy with other builds (README, "Quick start").
if command -v nvcc >/dev/null 2>&1 || [ -n "${CUDACXX:-}" ]; then
  echo "quick-start: building (CUDA found: CPU and CUDA backends); this took 14 minutes on a" \
    "busy 2-core machine; log in build/quick-start-build.log"
else
  echo "quick-start: building (CUDA not found: CPU backend only); this took 2.5 minutes on a" \
    "busy 2-core machine; log in build/quick-start-build.log"
fi
mkdir -p build
t=$(date +%s)
{ cmake -S . -B build -DSATFEAT_BUILD_TESTS=OFF &&
  cmake --build build -j"$(nproc 2>/dev/null || echo 2)"; } >build/quick-start-build.log 2>&1 ||
  { tail -n 40 build/quick-start-build.log; echo "quick-start: the build failed (build/quick-start-build.log)"; exit 1; }
grep "libsatfeat: CUDA backend" build/quick-start-build.log || true
echo "quick-start: built in $(minutes "$t"); installing into $prefix"
cmake --install build --prefix "$prefix" >build/quick-start-install.log
[ "$prefix" = /usr/local ] && command -v ldconfig >/dev/null 2>&1 && ldconfig
satfeat="$prefix/bin/satfeat"
case ":$PATH:" in
*":$prefix/bin:"*) satfeat=satfeat ;;
*) echo "quick-start: $prefix/bin is not on PATH; the commands below name $satfeat" ;;
esac
echo
"$satfeat" --version
"$satfeat" sat data/scene.png
echo
out=build/quick-start
mkdir -p "$out"
"$satfeat" detect data/scene.png -o "$out/scene-keypoints.txt"
echo "$satfeat detect data/scene.png -o $out/scene-keypoints.txt" \
  "($(grep -vc '^#' "$out/scene-keypoints.txt") keypoints; the 10 strongest):"
grep -v '^#' "$out/scene-keypoints.txt" | head -n 10
echo
echo "$satfeat match data/dune/frame001.png data/dune/frame005.png -H data/dune/H1to005p (summary):"
"$satfeat" match data/dune/frame001.png data/dune/frame005.png -H data/dune/H1to005p |
  grep '^#'
echo
pysite=$(ls -d "$prefix"/lib/python3*/*-packages 2>/dev/null | head -n 1)
if [ -n "$pysite" ] && [ -d "$pysite/satfeat" ]; then
  if [ "$prefix" = /usr/local ]; then
    echo "the Python module (docs/PYTHON.md): /usr/bin/python3 -c 'import satfeat'"
    (cd / && /usr/bin/python3 -c "import satfeat; print('satfeat', satfeat.version(), 'from', satfeat.__file__)")
  else
    echo "the Python module (docs/PYTHON.md): PYTHONPATH=$pysite /usr/bin/python3 -c 'import satfeat'"
    (cd / && PYTHONPATH="$pysite" /usr/bin/python3 -c "import satfeat; print('satfeat', satfeat.version(), 'from', satfeat.__file__)")
  fi
fi
echo "Output: the keypoints of data/scene.png are in $out/scene-keypoints.txt"
echo "(x y size response sigma laplacian octave layer, strongest first; --format csv|json|oxford for others)."
echo "Draw them:  $satfeat draw data/scene.png -o $out/scene-keypoints.png"
echo "quick-start: done in $(minutes "$t0")"

#!/bin/sh
# Installs what is missing (Debian 12, as root), builds libsatfeat and runs the main job on the
# bundled image data/scene.png: its summed area table, then its Fast-Hessian keypoints.
# Usage: tools/quick-start.sh            (from the repository root)
set -eu
cd "$(dirname "$0")/.."
need=""
for p in build-essential cmake pkg-config libpng-dev zlib1g-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
  echo "installing:$need"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends $need >/dev/null
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ] && [ -z "${CUDACXX:-}" ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
cmake -S . -B build -DSATFEAT_BUILD_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
./build/src/cli/satfeat --version
./build/src/cli/satfeat sat data/scene.png
echo
echo "satfeat detect data/scene.png (the 10 strongest of $(./build/src/cli/satfeat detect data/scene.png | tail -n +2 | wc -l) keypoints):"
./build/src/cli/satfeat detect data/scene.png --max-keypoints 10

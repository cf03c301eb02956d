#!/bin/sh
# Installs what is missing (Debian 12, as root), then builds libsatfeat twice (a release build
# and an AddressSanitizer + UBSan build, both with warnings as errors and with the CUDA backend
# when nvcc is present) and runs the whole cmocka suite through ctest in each; then a small
# ThreadSanitizer build runs the threaded tests (ctest -L tsan); then runs the libFuzzer
# harnesses for a bounded time each (tools/fuzz.sh, clang; docs/TESTING.md).
# Usage: tools/test-all.sh            (from the repository root; SATFEAT_WITH_CUDA=OFF to skip CUDA)
set -eu
cd "$(dirname "$0")/.."

# python3: CLI format and tty tests; libjpeg-turbo-progs: djpeg, which test_image_jpeg compares
# the JPEG reader with (skipped without it); clang + libclang-rt + libomp: the fuzzers (tools/fuzz.sh);
# the Python module and its tests: Debian's interpreter (/usr/bin/python3) with NumPy, pytest,
# h5py and Dask distributed (CMake uses /usr/bin/python3 even when a pyenv python3 comes first);
# libjpeg-turbo-progs: djpeg, the reference decoder of test_image_jpeg; FFmpeg's libav*: video
# input and its tests (encoded at test time) and the video fuzzer.
deps_env=$(sh tools/install-deps.sh libcmocka-dev python3 libjpeg-turbo-progs clang libclang-rt-14-dev \
  libomp-14-dev python3-dev python3-numpy python3-pytest python3-h5py python3-distributed \
  libavformat-dev libavcodec-dev libswscale-dev libavutil-dev) # fails the script when apt fails
eval "$deps_env"

jobs=$(nproc 2>/dev/null || echo 2)
# The CUDA runtime maps memory where ASan keeps its shadow gap; leaks inside libgomp/cudart
# at exit are not ours to fix, the suppressions file names them.
export ASAN_OPTIONS="protect_shadow_gap=0:detect_leaks=1:abort_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tools/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

status=0
for cfg in release sanitize; do
  dir=build-ci-$cfg
  extra=""
  [ "$cfg" = sanitize ] && extra="-DSATFEAT_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo"
  echo "=== $cfg build"
  cmake -S . -B "$dir" -DSATFEAT_WARNINGS_AS_ERRORS=ON -DSATFEAT_WITH_CUDA="${SATFEAT_WITH_CUDA:-AUTO}" $extra >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; exit 1; }
  grep "libsatfeat: CUDA backend" "$dir.configure.log" || true
  cmake --build "$dir" -j"$jobs"
  if [ "$cfg" = release ]; then
    echo "=== install, then build the examples against the installed package (CMake and pkg-config)"
    rm -rf "$dir/prefix" "$dir/examples"
    cmake --install "$dir" --prefix "$PWD/$dir/prefix" >/dev/null
    cmake -S examples -B "$dir/examples" -DCMAKE_PREFIX_PATH="$PWD/$dir/prefix" >/dev/null
    cmake --build "$dir/examples" >/dev/null
    test -f "$dir/prefix/share/man/man1/satfeat.1" || { echo "satfeat(1) was not installed"; exit 1; }
    "$dir/examples/detect_one" data/scene.png | grep -q ' keypoints$'
    "$dir/examples/detect_one_static" data/scene.png | grep -q ' keypoints$'
    "$dir/examples/box_filter" data/scene.png 4 "$dir/examples/scene_box4.png"
    "$dir/cli/satfeat" sat "$dir/examples/scene_box4.png" --backend cpu --repeat 1 | grep -q '(640x480)'
    "$dir/examples/box_mean" data/scene.png 100 100 64 64
    "$dir/examples/track_keypoints" data/scene.png data/scene.png
    "$dir/examples/track" data/dune/frame00[1-5].png >"$dir/examples/track.out"
    grep -q '^5 ' "$dir/examples/track.out" # frame 5 has tracks
    ar="$dir/examples/planar_ar_frames"
    rm -rf "$ar" && mkdir -p "$ar"
    "$dir/examples/planar_ar" "$ar" data/dune/frame00[1-5].png
    [ "$(ls "$ar" | wc -l)" -eq 5 ] || { echo "planar_ar: expected 5 PNG frames in $ar"; exit 1; }
    pc="$PWD/$dir/prefix/lib/pkgconfig"
    # shellcheck disable=SC2046
    cc -std=c11 -o "$dir/examples/box_mean_pc" examples/box_mean.c \
      $(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs satfeat) -Wl,-rpath,"$PWD/$dir/prefix/lib"
    "$dir/examples/box_mean_pc" data/scene.png 100 100 64 64
    for ex in detect_one box_filter; do
      # shellcheck disable=SC2046
      cc -std=c11 -o "$dir/examples/${ex}_pc" "examples/$ex.c" \
        $(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs satfeat) -Wl,-rpath,"$PWD/$dir/prefix/lib"
    done
    "$dir/examples/detect_one_pc" data/scene.png | grep -q ' keypoints$'
    "$dir/examples/box_filter_pc" data/scene.png 2 "$dir/examples/scene_box2.png" >/dev/null
    # shellcheck disable=SC2046
    cc -std=c11 -o "$dir/examples/track_pc" examples/track.c \
      $(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs satfeat) -Wl,-rpath,"$PWD/$dir/prefix/lib"
    "$dir/examples/track_pc" data/dune/frame001.png data/dune/frame002.png >/dev/null
    # static through pkg-config: --static lists the archive's own needs, -l:libsatfeat.a picks
    # the archive over the shared library (README, "Using the installed library")
    # shellcheck disable=SC2046
    cc -std=c11 -o "$dir/examples/detect_one_pc_static" examples/detect_one.c \
      $(PKG_CONFIG_PATH="$pc" pkg-config --static --cflags --libs satfeat | sed 's/-lsatfeat\b/-l:libsatfeat.a/')
    "$dir/examples/detect_one_pc_static" data/scene.png | grep -q ' keypoints$'
    ! ldd "$dir/examples/detect_one_pc_static" | grep -q libsatfeat || { echo "detect_one_pc_static links libsatfeat.so"; exit 1; }
    echo "=== the installed Python package, imported from the prefix (docs/PYTHON.md)"
    pysite=$(ls -d "$PWD/$dir"/prefix/lib/python3*/*-packages)
    (cd / && PYTHONPATH="$pysite" /usr/bin/python3 -c \
      "import satfeat; assert satfeat.__file__.startswith('$pysite'); print('satfeat', satfeat.version(), 'from', satfeat.__file__)")
  fi
  echo "=== $cfg tests"
  (cd "$dir" && ctest --output-on-failure -j"$jobs") || status=1
done
# A third, small build: ThreadSanitizer over the library (without OpenMP, CPU only) and the
# Python extension, only what the threaded tests (label tsan) need (docs/TESTING.md).
echo "=== tsan build (library, extension, threaded tests)"
dir=build-ci-tsan
cmake -S . -B "$dir" -DSATFEAT_WARNINGS_AS_ERRORS=ON -DSATFEAT_WITH_CUDA=OFF -DSATFEAT_TSAN=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
cmake --build "$dir" -j"$jobs" --target satfeat_python satfeat_py_ref_features test_threads_ctx
echo "=== tsan tests"
(cd "$dir" && ctest --output-on-failure -L tsan) || status=1
echo "=== fuzz (tools/fuzz.sh, ${SATFEAT_FUZZ_SECONDS:-60}s per harness)"
sh tools/fuzz.sh || status=1
exit $status

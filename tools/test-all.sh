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
# input and its tests (encoded at test time) and the video fuzzer; pip, setuptools, wheel and
# venv: `pip install .` (ctest python_pip_install, and the virtual environment below);
# libopencv-dev: the OpenCV adapter's test and example (tests/cpp, SATFEAT_WITH_OPENCV=ON here).
deps_env=$(sh tools/install-deps.sh libcmocka-dev python3 libjpeg-turbo-progs clang libclang-rt-14-dev \
  libomp-14-dev python3-dev python3-numpy python3-pytest python3-h5py python3-distributed \
  python3-pip python3-setuptools python3-wheel python3-venv \
  libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libopencv-dev) # fails the script when apt fails
eval "$deps_env"

jobs=$(nproc 2>/dev/null || echo 2)
# The CUDA runtime maps memory where ASan keeps its shadow gap; leaks inside libgomp/cudart
# at exit are not ours to fix, the suppressions file names them.
export ASAN_OPTIONS="protect_shadow_gap=0:detect_leaks=1:abort_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tools/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

status=0
t_all=$(date +%s)
# "(NAME took M min S s)" since the date +%s stamp $2
took() { echo "=== $1 took $(( ($(date +%s) - $2) / 60 )) min $(( ($(date +%s) - $2) % 60 )) s"; }
# Runs one example with its output in $ex/NAME.log; fails the script, showing the log, when it
# fails or no line of its output matches PATTERN.
ex_run() {
  name=$1 pattern=$2
  shift 2
  if ! "$@" >"$ex/$name.log" 2>&1; then
    cat "$ex/$name.log"; echo "example $name failed"; exit 1
  fi
  grep -q -- "$pattern" "$ex/$name.log" ||
    { cat "$ex/$name.log"; echo "example $name: no line matches '$pattern'"; exit 1; }
  echo "example $name: ok ($ex/$name.log)"
}
if [ "${SATFEAT_WITH_CUDA:-AUTO}" != OFF ] && { command -v nvcc >/dev/null 2>&1 || [ -n "${CUDACXX:-}" ]; }; then
  cuda="CUDA found: both builds compile the CUDA backend too, which takes longer"
else
  cuda="CUDA not found or off: CPU backend only"
fi
echo "test-all: a release build and an ASan/UBSan build, each with the whole ctest suite; a TSan"
echo "build with the threaded tests; then fuzzing, ${SATFEAT_FUZZ_SECONDS:-60} s per harness (9 harnesses"
echo "with FFmpeg, 8 without). $cuda. Each phase prints how long it took."
for cfg in release sanitize; do
  t=$(date +%s)
  dir=build-ci-$cfg
  extra=""
  [ "$cfg" = sanitize ] && extra="-DSATFEAT_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo"
  echo "=== $cfg build"
  cmake -S . -B "$dir" -DSATFEAT_WARNINGS_AS_ERRORS=ON -DSATFEAT_WITH_CUDA="${SATFEAT_WITH_CUDA:-AUTO}" \
    -DSATFEAT_WITH_OPENCV=ON $extra >"$dir.configure.log" 2>&1 ||
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
    # every example writes to its own log in $ex (ex_run), the test log gets one line each
    ex="$dir/examples"
    ex_run detect_one ' keypoints$' "$ex/detect_one" data/scene.png
    ex_run detect_one_static ' keypoints$' "$ex/detect_one_static" data/scene.png
    ex_run box_filter 'blurred with a 9x9 box' "$ex/box_filter" data/scene.png 4 "$ex/scene_box4.png"
    ex_run sat_of_box_filter '(640x480)' "$dir/cli/satfeat" sat "$ex/scene_box4.png" --backend cpu --repeat 1
    ex_run box_mean 'box mean' "$ex/box_mean" data/scene.png 100 100 64 64
    ex_run first_program '^inliers: ' "$ex/first_program" data/dune/frame001.png data/dune/frame002.png
    ex_run track_keypoints 'keypoints, strongest at' "$ex/track_keypoints" data/scene.png data/scene.png
    ex_run track '^5 ' "$ex/track" data/dune/frame00[1-5].png # frame 5 has tracks
    ar="$ex/planar_ar_frames"
    rm -rf "$ar" && mkdir -p "$ar"
    ex_run planar_ar '^frame 5 ' "$ex/planar_ar" "$ar" data/dune/frame00[1-5].png
    [ "$(ls "$ar" | wc -l)" -eq 5 ] || { echo "planar_ar: expected 5 PNG frames in $ar"; exit 1; }
    ov="$ex/ar_overlay_frames" # the AR sample: the target found, 18 frames written
    rm -rf "$ov" && mkdir -p "$ov"
    ex_run ar_overlay '^frame [0-9]* found t ' "$ex/ar_overlay" data/photos/Astronaut.jpg 0.2 \
      "$(tr ' ' , <data/ar_sample/camera.txt)" "$ov" data/ar_sample/frame*.png
    [ "$(ls "$ov" | wc -l)" -eq 18 ] || { echo "ar_overlay: expected 18 PNG frames in $ov"; exit 1; }
    pc="$PWD/$dir/prefix/lib/pkgconfig"
    # shellcheck disable=SC2046
    cc -std=c11 -o "$ex/box_mean_pc" examples/box_mean.c \
      $(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs satfeat) -Wl,-rpath,"$PWD/$dir/prefix/lib"
    ex_run box_mean_pc 'box mean' "$ex/box_mean_pc" data/scene.png 100 100 64 64
    for name in detect_one box_filter; do
      # shellcheck disable=SC2046
      cc -std=c11 -o "$ex/${name}_pc" "examples/$name.c" \
        $(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs satfeat) -Wl,-rpath,"$PWD/$dir/prefix/lib"
    done
    ex_run detect_one_pc ' keypoints$' "$ex/detect_one_pc" data/scene.png
    ex_run box_filter_pc 'blurred with a 5x5 box' "$ex/box_filter_pc" data/scene.png 2 "$ex/scene_box2.png"
    # shellcheck disable=SC2046
    cc -std=c11 -o "$ex/track_pc" examples/track.c \
      $(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs satfeat) -Wl,-rpath,"$PWD/$dir/prefix/lib"
    ex_run track_pc '^2 ' "$ex/track_pc" data/dune/frame001.png data/dune/frame002.png
    # static through pkg-config: --static lists the archive's own needs, -l:libsatfeat.a picks
    # the archive over the shared library (README, "Using the installed library")
    # shellcheck disable=SC2046
    cc -std=c11 -o "$ex/detect_one_pc_static" examples/detect_one.c \
      $(PKG_CONFIG_PATH="$pc" pkg-config --static --cflags --libs satfeat | sed 's/-lsatfeat\b/-l:libsatfeat.a/')
    ex_run detect_one_pc_static ' keypoints$' "$ex/detect_one_pc_static" data/scene.png
    ! ldd "$ex/detect_one_pc_static" | grep -q libsatfeat || { echo "detect_one_pc_static links libsatfeat.so"; exit 1; }
    echo "=== C++ (satfeat.hpp, the OpenCV adapter) against the installed package: the examples,"
    echo "    the same through pkg-config, and tests/cpp as a project of its own (docs/CPP.md)"
    ex_run first_program_cpp '^inliers: ' "$ex/first_program_cpp" data/dune/frame001.png data/dune/frame002.png
    ex_run opencv_swap '^inliers: ' "$ex/opencv_swap" data/dune/frame001.png data/dune/frame005.png \
      "$ex/opencv_swap_matches.png"
    # shellcheck disable=SC2046
    c++ -std=c++17 -o "$ex/first_program_cpp_pc" examples/first_program.cpp \
      $(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs satfeat) -Wl,-rpath,"$PWD/$dir/prefix/lib"
    ex_run first_program_cpp_pc '^inliers: ' "$ex/first_program_cpp_pc" data/dune/frame001.png data/dune/frame002.png
    # shellcheck disable=SC2046
    c++ -std=c++17 -o "$ex/opencv_swap_pc" examples/opencv_swap.cpp \
      $(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs satfeat opencv4) -Wl,-rpath,"$PWD/$dir/prefix/lib"
    ex_run opencv_swap_pc '^inliers: ' "$ex/opencv_swap_pc" data/dune/frame001.png data/dune/frame005.png
    cpp="$dir/cpp-installed"
    rm -rf "$cpp"
    { cmake -S tests/cpp -B "$cpp" -DCMAKE_PREFIX_PATH="$PWD/$dir/prefix" -DSATFEAT_WITH_OPENCV=ON &&
      cmake --build "$cpp" -j"$jobs" && (cd "$cpp" && ctest --output-on-failure); } >"$cpp.log" 2>&1 ||
      { tail -n 40 "$cpp.log"; echo "tests/cpp against the installed package failed ($cpp.log)"; exit 1; }
    grep "tests passed" "$cpp.log"
    echo "=== the installed Python package, imported from the prefix (docs/PYTHON.md)"
    pysite=$(ls -d "$PWD/$dir"/prefix/lib/python3*/*-packages)
    (cd / && PYTHONPATH="$pysite" /usr/bin/python3 -c \
      "import satfeat; assert satfeat.__file__.startswith('$pysite'); print('satfeat', satfeat.version(), 'from', satfeat.__file__)")
    echo "=== pip install . into a fresh virtual environment (--system-site-packages: Debian's"
    echo "    NumPy), offline with Debian's setuptools; setup.py builds through CMake (docs/PYTHON.md)"
    venv="$PWD/$dir/venv"
    rm -rf "$venv"
    /usr/bin/python3 -m venv --system-site-packages "$venv"
    SATFEAT_CMAKE_ARGS="-DSATFEAT_WITH_CUDA=${SATFEAT_WITH_CUDA:-AUTO}" "$venv/bin/python" -m pip \
      install --no-index --no-build-isolation --no-deps . >"$dir/pip-install.log" 2>&1 ||
      { tail -n 40 "$dir/pip-install.log"; echo "pip install . failed ($dir/pip-install.log)"; exit 1; }
    scene="$PWD/data/scene.png"
    (cd / && "$venv/bin/python" -c "import satfeat, sys
assert satfeat.__file__.startswith(sys.prefix), satfeat.__file__
img = satfeat.load_gray('$scene')
kp = satfeat.Detector(img.shape[1], img.shape[0]).detect(img)
assert len(kp) > 100
print('pip-installed satfeat', satfeat.version(), 'from', satfeat.__file__, len(kp), 'keypoints')")
  fi
  echo "=== $cfg tests"
  (cd "$dir" && ctest --output-on-failure -j"$jobs") || status=1
  took "$cfg build and tests" "$t"
done
t=$(date +%s)
# A third, small build: ThreadSanitizer over the library (without OpenMP, CPU only) and the
# Python extension, only what the threaded tests (label tsan) need (docs/TESTING.md).
echo "=== tsan build (library, extension, threaded tests)"
dir=build-ci-tsan
cmake -S . -B "$dir" -DSATFEAT_WARNINGS_AS_ERRORS=ON -DSATFEAT_WITH_CUDA=OFF -DSATFEAT_TSAN=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
cmake --build "$dir" -j"$jobs" --target satfeat_python satfeat_py_ref_features test_threads_ctx test_trackers_many test_pool
echo "=== tsan tests"
(cd "$dir" && ctest --output-on-failure -L tsan) || status=1
took "tsan build and tests" "$t"
t=$(date +%s)
echo "=== fuzz (tools/fuzz.sh, ${SATFEAT_FUZZ_SECONDS:-60}s per harness)"
sh tools/fuzz.sh || status=1
took "fuzzing" "$t"
took "test-all" "$t_all"
exit $status

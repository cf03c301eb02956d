#!/bin/sh
# gpu_detect_check.sh - on a GPU machine: build, run the GPU tests, the CUDA detector tests under
# compute-sanitizer (memcheck, racecheck, synccheck; small inputs) and, with an image argument,
# the detector benchmark. Logs go to $OUT (or ./gpu-logs). Usage: tools/gpu_detect_check.sh
# [DEPS_PREFIX] [BOAT_IMAGE]
set -u
out=${OUT:-gpu-logs}
mkdir -p "$out"
out=$(cd "$out" && pwd)
deps=${1:-}
img=${2:-}
cmake -B build -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DSATFEAT_WARNINGS_AS_ERRORS=ON >"$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build -j16 >"$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
(cd build && ctest --output-on-failure -L gpu >"$out/ctest_gpu.log" 2>&1)
grep -E "tests passed|tests failed|Failed|Skipped|\*\*\*" "$out/ctest_gpu.log"
grep -E "identical keypoints|SKIPPED|FAILED|ERROR" build/Testing/Temporary/LastTest.log 2>/dev/null | head -6
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$san" ] && [ -z "${NO_SAN:-}" ]; then
  for tool in memcheck racecheck synccheck; do
    for t in test_detect_cuda_equal test_detect_cuda_api; do
      SATFEAT_TEST_SMALL=1 timeout ${SAN_TIMEOUT:-90} "$san" --tool $tool --error-exitcode 9 build/tests/$t \
        >"$out/san_${tool}_$t.log" 2>&1
      echo "sanitizer $tool $t: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san_${tool}_$t.log" | tail -1)"
    done
  done
else
  echo "no compute-sanitizer"
fi
if [ -n "$img" ]; then
  build/src/cli/satfeat bench detect "$img" --csv "$out/bench_detect.csv" >"$out/bench.log" 2>&1
  echo "bench rc=$?"; cat "$out/bench.log"
fi

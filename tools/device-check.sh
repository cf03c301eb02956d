#!/bin/sh
# The whole GPU check in one go, for a machine with a CUDA device (see docs/BENCHMARKS.md):
# build, the full test suite, `satfeat bench sat`, `satfeat bench detect IMAGE`, then
# compute-sanitizer (memcheck, racecheck, synccheck) on every GPU test with small inputs.
# usage: tools/device-check.sh [DEPS_PREFIX] [BENCH_IMAGE]     logs go to $OUT (or ./gpu-logs)
set -u
out=${OUT:-gpu-logs}
mkdir -p "$out"
out=$(cd "$out" && pwd)
logs=$(mktemp -d) # build and sanitizer logs: only their summaries are printed
deps=${1:-}
img=${2:-}
sh tools/device-build.sh "$deps" "$logs" >"$out/device.txt" || { cat "$out/device.txt"; exit 1; }
cat "$out/device.txt"

echo "== ctest (all tests)"
(cd build && ctest --output-on-failure -j4 >"$out/ctest.log" 2>&1)
grep -E "tests passed|tests failed|\*\*\*" "$out/ctest.log"

echo "== bench sat"
build/cli/satfeat bench sat --csv "$out/bench_sat.csv" >"$out/bench_sat.log" 2>&1
echo "rc=$?"; cat "$out/bench_sat.log"
if [ -n "$img" ]; then
  echo "== bench detect"
  build/cli/satfeat bench detect "$img" --csv "$out/bench_detect.csv" >"$out/bench_detect.log" 2>&1
  echo "rc=$?"; cat "$out/bench_detect.log"
fi

san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$san" ] && [ -z "${NO_SAN:-}" ]; then
  echo "== compute-sanitizer (SATFEAT_TEST_SMALL=1)"
  for t in test_sat_cuda test_sat_cuda_f32 test_sat_cuda_stress test_detect_cuda_equal test_detect_cuda_api; do
    for tool in memcheck racecheck synccheck; do
      SATFEAT_TEST_SMALL=1 timeout "${SAN_TIMEOUT:-120}" "$san" --tool $tool --error-exitcode 9 \
        "build/tests/$t" >"$logs/san_${tool}_$t.log" 2>&1
      rc=$?
      echo "$tool $t: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/san_${tool}_$t.log" | tail -1)"
      [ $rc -eq 0 ] || tail -15 "$logs/san_${tool}_$t.log"
    done
  done
fi


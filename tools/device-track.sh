#!/bin/sh
# The tracker's GPU check in one go, on a machine with a CUDA device (docs/BENCHMARKS.md,
# "Tracking"): build, the whole test suite, compute-sanitizer memcheck on the CUDA tracker test,
# then satfeat_bench_track on a 1920x1080 sequence rendered from PHOTO (a PPM) and on data/dune,
# on the CUDA backend (host and device frames) and on the CPU with 2 threads.
# usage: tools/device-track.sh DEPS_PREFIX PHOTO.ppm       logs go to $OUT (or ./gpu-logs)
set -u
out=${OUT:-gpu-logs}
mkdir -p "$out"
deps=$1
photo=$2
sh tools/device-build.sh "$deps" "$out" >"$out/device.txt" || { cat "$out/device.txt"; exit 1; }
cat "$out/device.txt"

echo "== ctest (all tests)"
(cd build && ctest --output-on-failure -j8 >"$out/ctest.log" 2>&1)
grep -E "tests passed|tests failed|\*\*\*|Passed .*tracker" "$out/ctest.log"
grep -E "^(dune|translate|jump|gpu|cuda|tracker)" build/Testing/Temporary/LastTest.log | head -20

echo "== bench (1080p sequence rendered from $photo)"
seq=$(mktemp -d)
build/tools/satfeat_gen_sequence "$photo" "$seq" --size 1920x1080 --frames 30 >/dev/null
for args in "--backend cuda" "--backend cuda --no-guided"; do
  echo "-- $args, 1920x1080"
  build/bench/satfeat_bench_track $args --passes 4 "$seq"/frame*.png
done
echo "-- --backend cuda, 640x480 (data/dune)"
build/bench/satfeat_bench_track --backend cuda --passes 4 data/dune/frame*.png
echo "-- --backend cpu --threads 2, 640x480 (data/dune)"
build/bench/satfeat_bench_track --backend cpu --threads 2 --passes 3 data/dune/frame*.png

san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$san" ] && [ -z "${NO_SAN:-}" ]; then
  echo "== compute-sanitizer memcheck test_tracker_cuda"
  timeout "${SAN_TIMEOUT:-240}" "$san" --tool memcheck --error-exitcode 9 build/tests/test_tracker_cuda \
    >"$out/san_memcheck_tracker.log" 2>&1
  echo "rc=$? $(grep -E 'ERROR SUMMARY' "$out/san_memcheck_tracker.log" | tail -1)"
fi

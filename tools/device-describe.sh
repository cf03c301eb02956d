#!/bin/sh
# Orientation and descriptor kernels on the GPU machine in one call (docs/BENCHMARKS.md,
# "Descriptors"): builds the CLI and the describe tests (with line information), runs test_describe_math,
# test_describe_cuda (bit identity with the CPU, kernel timings in index and spatial order) and
# test_detect_cuda_features, `satfeat bench detect` with and without descriptors, Nsight Compute
# of the orientation and descriptor kernels on a 1080p image, and compute-sanitizer on
# test_describe_cuda. Logs go to $OUT (or ./gpu-logs).
# usage: tools/device-describe.sh DEPS_PREFIX IMAGE_850x680 IMAGE_1080P
set -u
dest=${OUT:-gpu-logs}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
deps=$1 img=$2 img1080=$3
CUDAFLAGS=-lineinfo sh tools/device-build.sh "$deps" "$dest" satfeat_cli test_describe_math \
  test_describe_cuda test_detect_cuda_features || exit 1
for t in test_describe_math test_describe_cuda test_detect_cuda_features; do
  timeout 100 "build/tests/$t" >"$dest/$t.log" 2>&1
  echo "$t: rc=$?"; grep -E "GPU |FAILED|ERROR|differs|angle CPU" "$dest/$t.log" | head -20
done
for d in "" --descriptors; do
  timeout 90 build/cli/satfeat bench detect "$img" --frames 200 $d >"$dest/bench$d.log" 2>&1
  echo "bench detect $d: rc=$?"; cat "$dest/bench$d.log"
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
if [ -n "$ncu" ] && [ -z "${NO_NCU:-}" ]; then
  timeout 120 "$ncu" --set full --import-source yes -k "regex:orient_kernel|describe_kernel" -c 2 -f \
    -o "$dest/ncu_describe" build/cli/satfeat detect --backend cuda --descriptors "$img1080" \
    -o "$dest/kp.txt" >"$dest/ncu.run.log" 2>&1
  echo "ncu: rc=$?"
  "$ncu" --import "$dest/ncu_describe.ncu-rep" --page details --print-summary none >"$dest/ncu.txt" 2>&1
  grep -E "^  [a-z_]+.*\(|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Throughput|Hit Rate|Warp Cycles Per Issued|Block Limit (Reg|Shared)" "$dest/ncu.txt" | head -60
fi
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$san" ] && [ -z "${NO_SAN:-}" ]; then
  for tool in ${SAN_TOOLS:-memcheck racecheck synccheck}; do
    SATFEAT_TEST_SMALL=1 timeout "${SAN_TIMEOUT:-60}" "$san" --tool $tool --error-exitcode 9 \
      build/tests/test_describe_cuda >"$dest/san_$tool.log" 2>&1
    echo "$tool test_describe_cuda: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$dest/san_$tool.log" | tail -1)"
  done
fi
exit 0

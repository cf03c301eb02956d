#!/bin/sh
# The whole GPU verification of a tree in one device call of under ten minutes, on a machine with
# a CUDA device (docs/TESTING.md, docs/BENCHMARKS.md): build; the GPU tests (ctest -L gpu) beside
# compute-sanitizer on the kernel tests (memcheck, racecheck, synccheck with small inputs), six
# at a time; then alone (they fill the device memory, which makes every other process's
# allocations fail) the tests that provoke CUDA errors, under memcheck with API-error reports
# off and under ctest; then alone on the GPU the SKSS-LB stress program and the benchmarks (detector with the defaults and issue 12's
# baseline set, SAT, one-device pool, batches; with FRAME_IMAGE set, ncu's time of every kernel
# of one frame of that image). Summaries are printed; every log goes into $OUT/logs.tgz
# (or ./gpu-logs/logs.tgz). STRESS_LAUNCHES: launches of the first stress run (1500).
# usage: [FRAME_IMAGE=IMG] tools/device-verify.sh DEPS_PREFIX BENCH_IMAGE
set -u
. tools/device-logs.sh
device_logs logs.tgz
out=$logs_dir
deps=$1 img=$2
sh tools/device-build.sh "$deps" "$out" || exit 1
build/cli/satfeat --version | head -3

san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
jobs=$(mktemp)
for t in test_sat_cuda test_sat_cuda_f32 test_sat_seam_cuda test_detect_cuda_equal test_detect_cuda_api \
         test_detect_cuda_features test_describe_cuda test_match_cuda test_tracker_cuda test_batch_cuda; do
  echo "memcheck $t" >>"$jobs"
done
for t in test_sat_cuda test_detect_cuda_api test_describe_cuda test_match_cuda; do echo "racecheck $t" >>"$jobs"; done
for t in test_sat_cuda test_detect_cuda_equal test_detect_cuda_api test_describe_cuda test_match_cuda; do
  echo "synccheck $t" >>"$jobs"
done

echo "== ctest -L gpu, beside compute-sanitizer (6 at a time, SATFEAT_TEST_SMALL=1, 150 s each)"
(cd build && timeout 300 ctest -L gpu -E "skss_stress_short|test_cuda_oom|test_cuda_faults" \
   --output-on-failure -j2 >"$out/ctest.log" 2>&1) &
ct=$!
if [ -n "$san" ]; then
  export san out
  run_san() {
    xargs -P "$1" -L 1 sh -c '
    tool=$0 t=$1 extra=""
    [ "$tool" = memcheck-noapi ] && tool=memcheck && extra="--report-api-errors no --leak-check full"
    log="$out/san_${0}_$t.log"
    SATFEAT_TEST_SMALL=1 timeout 150 "$san" --tool $tool $extra --error-exitcode 9 "build/tests/$t" >"$log" 2>&1
    rc=$?
    echo "$0 $t: rc=$rc $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)"
  ' | sort
  }
  run_san 6 <"$jobs"
fi
wait $ct
grep -E "tests passed|tests failed|\(Failed|Timeout|Not Run" "$out/ctest.log"

echo "== the tests that provoke CUDA errors, alone"
if [ -n "$san" ]; then
  printf 'memcheck-noapi test_cuda_oom\nmemcheck-noapi test_cuda_faults\n' | run_san 1
fi
(cd build && timeout 200 ctest -R "test_cuda_oom|test_cuda_faults" --output-on-failure >"$out/ctest_faults.log" 2>&1)
grep -E "tests passed|tests failed|\(Failed|Timeout" "$out/ctest_faults.log"

echo "== SKSS-LB stress (tools/skss_stress), alone on the GPU"
for args in "--launches ${STRESS_LAUNCHES:-1500} --max-side 1024 --free-sms 2" "--launches 30 --max-side 4096 --free-sms 1 --seed 9 --timeout-ms 60000"; do
  s0=$(date +%s)
  timeout 150 build/tools/skss_stress $args >"$out/stress_$s0.log" 2>&1
  echo "skss_stress $args: rc=$? in $(( $(date +%s) - s0 )) s: $(tail -1 "$out/stress_$s0.log")"
done

echo "== bench detect (defaults)"
timeout 60 build/cli/satfeat bench detect "$img" --frames 500 2>&1 | tail -6
echo "== bench detect (4 layers, no duplicate suppression, upright)"
timeout 60 build/cli/satfeat bench detect "$img" --frames 500 --layers 4 --suppress-duplicates 0 --upright 1 2>&1 | tail -5
echo "== bench sat"
timeout 60 build/cli/satfeat bench sat --sizes 1024,4096,8192,16384,1920x1080 2>&1
echo "== pool on one device"
timeout 40 build/bench/satfeat_bench_pool --devices 0 --frames 128 --size 1920x1080 --repeat 3 2>&1 | tail -3
echo "== bench batch (32 frames a call; defaults, then issue 12's baseline set)"
timeout 90 build/cli/satfeat bench batch "$img" --backend cuda --lanes 1,4,8,16 2>&1 | tail -14
timeout 60 build/cli/satfeat bench batch "$img" --backend cuda --lanes 8 --layers 4 \
  --suppress-duplicates 0 --upright 1 2>&1 | tail -5
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
if [ -n "$ncu" ] && [ -n "${FRAME_IMAGE:-}" ]; then
  echo "== every kernel of one frame of $FRAME_IMAGE (ncu gpu__time_duration, us)"
  sh tools/ncu-frame-times.sh "$ncu" build/cli/satfeat "$FRAME_IMAGE" "$out" frame
fi

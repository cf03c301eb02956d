#!/bin/sh
# The whole GPU verification of a tree in one command, on a machine with a CUDA device
# (docs/TESTING.md, docs/BENCHMARKS.md): build, the whole test suite, compute-sanitizer over the
# GPU tests (memcheck on every one, racecheck / synccheck / initcheck on the kernel tests, small
# inputs; the tests that provoke allocation failures with API-error reports off), the SKSS-LB
# stress program alone on the GPU before them, and the one-device pool rate. Every step has a time limit so the whole run
# ends inside ten minutes; summaries are printed, logs go to $OUT (or ./gpu-logs).
# usage: tools/device-verify.sh DEPS_PREFIX
set -u
dest=${OUT:-gpu-logs}
mkdir -p "$dest"
out=$(mktemp -d) # every log; packed into $dest/logs.tgz at the end
trap 'tar czf "$dest/logs.tgz" -C "$out" . 2>/dev/null' EXIT
deps=$1
sh tools/device-build.sh "$deps" "$out" || exit 1
build/cli/satfeat --version | head -4

echo "== ctest (all tests)"
(cd build && timeout 240 ctest --output-on-failure -j8 >"$out/ctest.log" 2>&1)
cp "$out/ctest.log" "$dest/ctest.log"
grep -E "tests passed|tests failed|\(Failed|Timeout|Not Run" "$out/ctest.log"
grep -A30 "The following tests did not run" "$out/ctest.log" | head -20

echo "== SKSS-LB stress (tools/skss_stress), alone on the GPU"
for args in "--launches 1000 --max-side 1024 --free-sms 2" "--launches 600 --max-side 2048 --free-sms 1 --seed 7" \
            "--launches 150 --max-side 4096 --free-sms 0 --seed 9"; do
  s0=$(date +%s)
  timeout 90 build/tools/skss_stress $args >"$out/stress_$s0.log" 2>&1
  echo "skss_stress $args: rc=$? in $(( $(date +%s) - s0 )) s: $(tail -1 "$out/stress_$s0.log")"
done

san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$san" ]; then
  echo "== compute-sanitizer (SATFEAT_TEST_SMALL=1, 4 at a time, 120 s each)"
  jobs=$(mktemp)
  for t in test_sat_cuda test_sat_cuda_f32 test_sat_seam_cuda test_detect_cuda_equal test_detect_cuda_api \
           test_detect_cuda_features test_describe_cuda test_match_cuda test_tracker_cuda test_pool_cuda \
           test_detect_profile_cuda; do
    echo "memcheck $t" >>"$jobs"
  done
  for t in test_sat_cuda test_detect_cuda_equal; do echo "racecheck $t" >>"$jobs"; done
  for t in test_sat_cuda test_detect_cuda_equal test_describe_cuda test_match_cuda; do
    echo "synccheck $t" >>"$jobs"
  done
  for t in test_sat_cuda test_detect_cuda_api test_match_cuda; do echo "initcheck $t" >>"$jobs"; done
  echo "memcheck-noapi test_cuda_oom" >>"$jobs"
  echo "memcheck-noapi test_cuda_faults" >>"$jobs"
  echo "memcheck test_cuda_oom" >>"$jobs"
  export san out
  xargs -P 4 -L 1 sh -c '
    tool=$0 t=$1 extra=""
    [ "$tool" = memcheck-noapi ] && tool=memcheck && extra="--report-api-errors no --leak-check full"
    log="$out/san_${0}_$t.log"
    SATFEAT_TEST_SMALL=1 timeout 120 "$san" --tool $tool $extra --error-exitcode 9 "build/tests/$t" >"$log" 2>&1
    rc=$?
    echo "$0 $t: rc=$rc $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1) $(grep -c "cudaErrorMemoryAllocation" "$log") alloc-error reports"
  ' <"$jobs" | sort
fi

echo "== pool on one device (the two-GPU rate needs a 2-GPU machine)"
timeout 60 build/tools/satfeat_bench_pool --devices 0 --frames 128 --size 1920x1080 --repeat 3 2>&1 | tail -6

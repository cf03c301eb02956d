#!/bin/sh
# Builds the libFuzzer harnesses (tests/fuzz: the PNG, PGM/PPM and JPEG readers, detect +
# describe on the CPU, matching and motion, the tracker, the CLI list-file parser, the homography
# reader and the CLI's check, the AR target file loader, the video frame source when FFmpeg is
# found) with clang, ASan and
# UBSan, and runs each for a bounded time on its seed corpus. Fails when any harness reports a
# finding (crash, sanitizer report, leak, timeout or a broken invariant); the input that
# triggered it is kept in build-fuzz/run-<harness>/findings/.
# Every finding, once fixed, becomes a regression file: copy it to
# tests/fuzz/regressions/<harness>/, where ctest (fuzz_replay_<harness>) replays it in every build.
# Usage: tools/fuzz.sh   (SATFEAT_FUZZ_SECONDS=60 per harness by default;
#        SATFEAT_FUZZ_HARNESSES="video" runs only those)
set -eu
cd "$(dirname "$0")/.."
secs=${SATFEAT_FUZZ_SECONDS:-60}
jobs=$(nproc 2>/dev/null || echo 2)
dir=build-fuzz
cmake -S . -B "$dir" -DCMAKE_C_COMPILER=clang -DSATFEAT_FUZZ=ON -DSATFEAT_WITH_CUDA=OFF \
  -DSATFEAT_BUILD_CLI=OFF -DSATFEAT_WARNINGS_AS_ERRORS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
harnesses="png pnm jpeg detect match_motion tracker list homography ar_target"
if grep -q "libsatfeat: video (FFmpeg) ON" "$dir.configure.log"; then
  harnesses="$harnesses video"
fi
harnesses=${SATFEAT_FUZZ_HARNESSES:-$harnesses}
targets=$(for h in $harnesses; do printf "fuzz_%s " "$h"; done)
cmake --build "$dir" -j"$jobs" --target $targets
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$PWD/tools/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# OpenMP's idle threads would otherwise spin between the many tiny parallel regions of a run
# and take half of the machine's time from the fuzzer (measured: half the CPU time an input).
export OMP_WAIT_POLICY=passive
status=0
for h in $harnesses; do
  work="$dir/run-$h"
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/findings"
  echo "=== fuzz_$h for ${secs}s"
  rc=0
  TMPDIR="$work" "$dir/tests/fuzz_$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/findings/" -print_final_stats=1 \
    "$work/corpus" "tests/fuzz/corpus/$h" >"$work/log" 2>&1 || rc=$?
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|Done [0-9]+ runs" "$work/log" || true
  if [ "$rc" -ne 0 ] || [ -n "$(ls -A "$work/findings")" ]; then
    echo "fuzz_$h: FINDING (exit $rc); input(s) in $work/findings, log $work/log:"
    tail -40 "$work/log"
    status=1
  fi
done
exit $status

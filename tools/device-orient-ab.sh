#!/bin/sh
# A detector kernel, before against after, in one GPU call (docs/BENCHMARKS.md, "Detector"): the
# orientation kernel by default, KERNEL=fh_octave (an ncu -k regex) for the octave kernel. Builds
# two source trees side by side (with line information), runs the GPU tests TESTS (default: the
# describe, detector and batch tests) of the new tree, `satfeat bench detect` of the old and new
# tree alternately (ROUNDS times each; with BENCH2="flags" a second pass with those detector
# flags, e.g. issue 12's baseline set), `satfeat bench batch` of the new tree, Nsight Compute
# source-level counters of the kernel in both trees at 1080p (SASS histogram by
# tools/ncu_sass_hist.py; NO_NCU=1 skips it) and compute-sanitizer memcheck, racecheck and
# synccheck on the new tree's SAN_TEST (default test_describe_cuda; SAN=1). Logs and the per-SASS CSVs are packed
# into $OUT/logs.tgz (or ./gpu-logs/logs.tgz).
# usage: tools/device-orient-ab.sh DEPS_PREFIX OLD_TREE NEW_TREE IMAGE IMAGE_1080P
set -u
. tools/device-logs.sh
device_logs logs.tgz "*.ncu-rep"
dest=$logs_dir
trap 'exit 143' TERM
deps=$1 old=$2 new=$3 img=$4 img1080=$5
kernel=${KERNEL:-orient_kernel}
tests=${TESTS:-test_describe_math test_describe_cuda test_detect_cuda_features test_detect_cuda_equal test_batch_cuda}
mkdir -p "$dest/old" "$dest/new"
(cd "$old" && CUDAFLAGS=-lineinfo sh tools/device-build.sh "$deps" "$dest/old" satfeat_cli) \
  >"$dest/old/build.out" 2>&1 &
# shellcheck disable=SC2086
(cd "$new" && CUDAFLAGS=-lineinfo sh tools/device-build.sh "$deps" "$dest/new" satfeat_cli \
  $tests) >"$dest/new/build.out" 2>&1
rn=$?
wait $!
ro=$?
echo "build old rc=$ro new rc=$rn"; cat "$dest/old/build.out" "$dest/new/build.out"
[ "$ro" = 0 ] && [ "$rn" = 0 ] || exit 1
for t in $tests; do
  timeout 100 "$new/build/tests/$t" >"$dest/new/$t.log" 2>&1
  echo "$t: rc=$? $(grep -cE '^\[       OK' "$dest/new/$t.log") ok"
  grep -E "GPU |FAILED|ERROR|differs" "$dest/new/$t.log" | head -12
done
for r in $(seq "${ROUNDS:-2}"); do
  for side in old new; do
    tree=$old
    [ $side = new ] && tree=$new
    timeout 60 "$tree/build/cli/satfeat" bench detect "$img" --frames 500 \
      >"$dest/$side/bench$r.log" 2>&1
    echo "== bench detect $side round $r: rc=$?"; cat "$dest/$side/bench$r.log"
    if [ -n "${BENCH2:-}" ]; then
      # shellcheck disable=SC2086
      timeout 60 "$tree/build/cli/satfeat" bench detect "$img" --frames 500 $BENCH2 \
        >"$dest/$side/bench2_$r.log" 2>&1
      echo "== bench detect $BENCH2 $side round $r: rc=$?"; cat "$dest/$side/bench2_$r.log"
    fi
  done
done
timeout 60 "$new/build/cli/satfeat" bench batch "$img" --backend cuda --lanes 8 \
  >"$dest/new/batch.log" 2>&1
echo "== bench batch new: rc=$?"; cat "$dest/new/batch.log"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
if [ -n "$ncu" ] && [ -z "${NO_NCU:-}" ]; then
  for side in old new; do
    tree=$old
    [ $side = new ] && tree=$new
    timeout 90 "$ncu" --section SpeedOfLight --section Occupancy --section LaunchStats \
      --section WarpStateStats --section SchedulerStats --section InstructionStats \
      --section MemoryWorkloadAnalysis --section SourceCounters --import-source yes \
      -k "regex:$kernel" -c 1 -f -o "$dest/$side/ncu" \
      "$tree/build/cli/satfeat" detect --backend cuda "$img1080" -o "$dest/$side/kp.txt" \
      >"$dest/$side/ncu.run.log" 2>&1
    echo "== ncu $side: rc=$?"
    "$ncu" --import "$dest/$side/ncu.ncu-rep" --page details --print-summary none \
      >"$dest/$side/ncu.txt" 2>&1
    grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Throughput|Hit Rate|Warp Cycles Per Issued|Executed Instructions  |Issue Slots Busy|Block Limit|Shared Memory Config|Dynamic Shared" \
      "$dest/$side/ncu.txt" | head -30
    "$ncu" --import "$dest/$side/ncu.ncu-rep" --page source --csv --print-source sass \
      >"$dest/$side/sass.csv" 2>"$dest/$side/sass.err"
    python3 "$new/tools/ncu_sass_hist.py" 60 <"$dest/$side/sass.csv" >"$dest/$side/sass_hist.txt" 2>&1
    head -120 "$dest/$side/sass_hist.txt"
  done
fi
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$san" ] && [ -n "${SAN:-}" ]; then
  for tool in memcheck racecheck synccheck; do
    t=${SAN_TEST:-test_describe_cuda}
    SATFEAT_TEST_SMALL=1 timeout 90 "$san" --tool $tool --error-exitcode 9 \
      "$new/build/tests/$t" >"$dest/new/san_$tool.log" 2>&1
    echo "$tool $t: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$dest/new/san_$tool.log" | tail -1)"
  done
fi
exit 0

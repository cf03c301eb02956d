#!/bin/sh
# Before/after of a detector change in one device call (docs/BENCHMARKS.md, issue 12 sections):
# builds this tree ("new", with -lineinfo) and each given tree archive (`git archive --format=
# tar.gz` of the tree before the change) side by side, runs the GPU tests of TESTS (a ctest regex,
# built by BUILD_TESTS) on "new", then `satfeat bench detect IMAGE --frames 500 $BENCH_ARGS` on
# every tree alternately, twice each. NCU=1: Nsight Compute source counters of the new octave
# kernel at 1080p (IMG1080) with the SASS histogram of tools/ncu_sass_hist.py; NCU_FRAME=IMAGE:
# ncu's time of every kernel of one frame of IMAGE on every tree. Logs go to $OUT/logs.tgz (or
# ./gpu-logs/logs.tgz).
# usage: tools/device-detect-ab.sh DEPS_PREFIX IMAGE IMG1080 [TREE.tgz ...]
set -u
deps=$1 img=$2 img1080=$3
shift 3
L=$(mktemp -d)
dest=${OUT:-gpu-logs}
mkdir -p "$dest"
trap 'tar czf "$dest/logs.tgz" -C "$L" --exclude="*.ncu-rep" .' EXIT
names="new"
for t in "$@"; do
  n=$(basename "$t" .tgz); names="$names $n"
  rm -rf "/tmp/t_$n"; mkdir -p "/tmp/t_$n"; tar xzf "$t" -C "/tmp/t_$n"
done
# shellcheck disable=SC2086
( CUDAFLAGS=-lineinfo sh tools/device-build.sh "$deps" "$L" satfeat_cli ${BUILD_TESTS:-} \
    >"$L/build_new.txt" 2>&1; echo "build new rc=$?" ) &
for t in "$@"; do
  n=$(basename "$t" .tgz)
  ( cd "/tmp/t_$n" && mkdir -p "$L/$n" &&
    sh tools/device-build.sh "$deps" "$L/$n" satfeat_cli >"$L/build_$n.txt" 2>&1
    echo "build $n rc=$?" ) &
done
wait
if [ -n "${TESTS:-}" ]; then
  (cd build && timeout 200 ctest -R "$TESTS" --output-on-failure -j4 >"$L/ctest.log" 2>&1)
  grep -E "tests passed|tests failed|\(Failed|Timeout|Passed|Skipped" "$L/ctest.log" | head -30
fi
cli() { [ "$1" = new ] && echo build/cli/satfeat || echo "/tmp/t_$1/build/cli/satfeat"; }
for round in 1 2; do
  for n in $names; do
    echo "== $n round $round"
    # shellcheck disable=SC2086
    timeout 100 "$(cli "$n")" bench detect "$img" --frames 500 ${BENCH_ARGS:-} \
      >"$L/bench_${n}_$round.log" 2>&1
    grep -E "^ *[0-9]+x[0-9]+|size" "$L/bench_${n}_$round.log"
  done
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
if [ -n "${NCU:-}" ] && [ -n "$ncu" ]; then
  timeout 150 "$ncu" --section SourceCounters --section WarpStateStats --section Occupancy \
    --section SpeedOfLight --import-source yes -k regex:fh_octave -c 1 -f -o "$L/oct" \
    build/cli/satfeat detect --backend cuda "$img1080" -o "$L/kp.txt" >"$L/ncu.run.log" 2>&1
  echo "ncu rc=$?"
  "$ncu" --import "$L/oct.ncu-rep" --page source --csv --print-source sass >"$L/oct_sass.csv" 2>&1
  python3 tools/ncu_sass_hist.py 60 <"$L/oct_sass.csv" >"$L/oct_hist.txt" 2>&1
  head -75 "$L/oct_hist.txt"
  "$ncu" --import "$L/oct.ncu-rep" --page details >"$L/oct_details.txt" 2>&1
  grep -E "Duration|Registers|Throughput|Achieved Occ" "$L/oct_details.txt"
fi
if [ -n "${NCU_FRAME:-}" ] && [ -n "$ncu" ]; then
  for n in $names; do
    timeout 120 "$ncu" --metrics gpu__time_duration.sum -f -o "$L/frame_$n" \
      "$(cli "$n")" detect --backend cuda "$NCU_FRAME" -o "$L/kp.txt" >"$L/frame_$n.run.log" 2>&1
    echo "== per-kernel ($n): min max mean us"
    "$ncu" --import "$L/frame_$n.ncu-rep" --print-summary per-kernel 2>&1 |
      grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" | sed 's/(satfeat_fh[^)]*)//; s/  */ /g' |
      paste - - | awk '{print $1, $(NF-2), $(NF-1), $NF}' | head -30
  done
fi
exit 0

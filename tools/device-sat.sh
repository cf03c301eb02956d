#!/bin/sh
# The GPU SAT alone in one device call (docs/BENCHMARKS.md, "GPU SAT"): builds only the SAT
# targets for Hopper, runs the SAT GPU tests, `satfeat bench sat`, and with NCU=1 Nsight Compute
# of SKSS-LB (NCU_CASES, default "8192 u8,8192 f32,1920x1080 u8"); TUNE=N runs
# bench/sat_cuda_tune N. With SANITIZE=1, compute-sanitizer memcheck, racecheck and synccheck on
# the small SAT tests (SAN_TESTS, default all three; SAN_LIMIT seconds each), and with STRESS=1
# tools/skss_stress (STRESS_LAUNCHES, default 1000). AB="DEFS1,DEFS2" builds satfeat_cli again
# once per set of nvcc defines (build-ab1, ...; e.g. a -D that selects a kernel variant behind an
# #ifndef, such as a SATFEAT_SAT_TUNE_* constant of sat/sat_tuning.h) and runs `satfeat bench sat`
# alternately on those and build, twice each. Compile each define set locally first: a variant
# that does not build ends the call before anything runs. OLD=TARBALL (a `git archive` of another
# tree, e.g. main) builds that tree's satfeat_cli in build-old and benches it in the same rotation.
# TESTS overrides the SAT GPU tests run (empty: none).
# Logs go to $OUT (or ./gpu-logs).
# usage: tools/device-sat.sh DEPS_PREFIX
set -u
dest=${OUT:-gpu-logs}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
deps=$1
tests=${TESTS-test_sat_cuda test_sat_cuda_f32 test_sat_cuda_large test_sat_seam_cuda test_sat_cuda_stress}
here=$(pwd)
# AB: comma-separated nvcc define sets, one extra build (build-ab1, build-ab2, ...) each
ab_builds=""
if [ -n "${AB:-}" ]; then
  i=0
  IFS=,
  for defs in $AB; do
    i=$((i + 1))
    mkdir -p "$dest/ab$i"
    echo "build-ab$i: $defs"
    CUDAFLAGS="-lineinfo $defs" BUILD_DIR=build-ab$i \
      sh tools/device-build.sh "$deps" "$dest/ab$i" satfeat_cli >"$dest/ab$i/out.log" 2>&1 &
    ab_builds="$ab_builds build-ab$i"
  done
  unset IFS
fi
if [ -n "${OLD:-}" ]; then
  rm -rf "$here/../old-tree" && mkdir -p "$here/../old-tree" && tar xzf "$OLD" -C "$here/../old-tree" || exit 1
  mkdir -p "$dest/old"
  (cd "$here/../old-tree" && CUDAFLAGS=-lineinfo BUILD_DIR="$here/build-old" \
    sh tools/device-build.sh "$deps" "$dest/old" satfeat_cli >"$dest/old/out.log" 2>&1) &
  ab_builds="$ab_builds build-old"
fi
# shellcheck disable=SC2086
CUDAFLAGS=-lineinfo sh tools/device-build.sh "$deps" "$dest" satfeat_cli sat_cuda_tune skss_stress $tests ||
  exit 1
wait
for b in $ab_builds; do
  [ -x "$b/cli/satfeat" ] || { echo "$b failed"; cat "$dest/${b#build-}/out.log"; exit 1; }
done

if [ -n "$tests" ]; then
  echo "== tests"
  (cd build && timeout ${CTEST_LIMIT:-200} ctest -j5 --output-on-failure -R "^($(echo $tests | tr ' ' '|'))$" \
    >"$dest/ctest.log" 2>&1); echo "ctest rc=$?"; grep -E "tests passed|Failed|Passed|\*\*\*" "$dest/ctest.log" | head -20
fi

sizes=${SIZES:-256,1024,4096,8192,16384,1920x1080}
if [ -n "$ab_builds" ]; then
  for round in 1 2; do
    for b in $ab_builds build; do
      echo "== bench sat $b (round $round)"
      timeout 60 "$b/cli/satfeat" bench sat --sizes "$sizes" --csv "$dest/bench_sat-$b-$round.csv" \
        >"$dest/bench_sat-$b-$round.log" 2>&1
      echo "rc=$?"; grep -E "copy-floor|SKSS-LB" "$dest/bench_sat-$b-$round.log"
    done
  done
else
  echo "== bench sat"
  timeout 120 build/cli/satfeat bench sat --sizes "$sizes" --csv "$dest/bench_sat.csv" >"$dest/bench_sat.log" 2>&1
  echo "rc=$?"; cat "$dest/bench_sat.log"
fi

if [ -n "${TUNE:-}" ]; then
  echo "== sat_cuda_tune"
  timeout 150 build/bench/sat_cuda_tune "$TUNE" >"$dest/tune.log" 2>&1
  echo "rc=$?"; cat "$dest/tune.log"
fi

if [ -n "${STRESS:-}" ]; then
  echo "== SKSS-LB stress"
  timeout 60 build/tools/skss_stress --launches "${STRESS_LAUNCHES:-1000}" --max-side 1024 --free-sms 2 \
    >"$dest/stress.log" 2>&1
  echo "skss_stress rc=$?: $(tail -1 "$dest/stress.log")"
fi

if [ -n "${SANITIZE:-}" ]; then
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
  for tool in memcheck racecheck synccheck; do
    for t in ${SAN_TESTS:-test_sat_cuda test_sat_cuda_f32 test_sat_seam_cuda}; do
      SATFEAT_TEST_SMALL=1 timeout "${SAN_LIMIT:-100}" "$cs" --tool "$tool" "build/tests/$t" >"$dest/cs-$tool-$t.log" 2>&1
      echo "$tool $t rc=$?: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazards" "$dest/cs-$tool-$t.log" | tail -1)"
    done
  done
fi

if [ -n "${NCU:-}" ]; then
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
  sec="--section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section InstructionStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
  IFS=,
  for c in ${NCU_CASES:-8192 u8,8192 f32,1920x1080 u8}; do
    IFS=' '
    set -- $c
    # shellcheck disable=SC2086
    timeout 60 "$ncu" $sec -k regex:skss -c 1 build/cli/satfeat bench sat --sizes "$1" --types "$2" \
      >"$dest/ncu-$1-$2.txt" 2>&1
    echo "ncu $1 $2 rc=$?"
    grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Executed Instructions  |Warp Cycles Per Issued|Block Limit Reg|Block Limit Shared" \
      "$dest/ncu-$1-$2.txt" | head -24
    grep -E "issue_stalled" "$dest/ncu-$1-$2.txt" | awk '$NF + 0 >= 0.3 {print "    " $1, $NF}' 
  done
fi
exit 0

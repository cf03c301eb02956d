#!/bin/bash
# Build, test and benchmark on the device machine in one go (see docs/BENCHMARKS.md).
# Usage: bench/device_run.sh [build] [test] [tune] [bench] [torch] [sanitize]; logs go to $OUT.
set -o pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
here=$(pwd)
for step in "$@"; do
  case $step in
    build)
      cmake -B build -DCMAKE_PREFIX_PATH="$here/../deps/usr" -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DSATFEAT_WARNINGS_AS_ERRORS=ON >/dev/null && cmake --build build -j16 2>&1 | grep -E "error|warning|Error" ; true ;;
    test)
      (cd build && LD_LIBRARY_PATH="$here/../deps/usr/lib:$LD_LIBRARY_PATH" ctest --output-on-failure -L gpu --timeout 200) 2>&1 | tee "$OUT/ctest_gpu.log" | tail -40 ;;
    tune)
      ./build/tests/sat_cuda_tune 2>&1 | tee "$OUT/tune.log" ;;
    bench)
      ./build/src/cli/satfeat bench sat --csv "$OUT/bench_sat.csv" 2>&1 | tee "$OUT/bench_sat.log" ;;
    torch)
      PYTHONUNBUFFERED=1 python3 bench/torch_cumsum.py --csv "$OUT/torch_cumsum.csv" 2>&1 | tee "$OUT/torch_cumsum.log" ;;
    sanitize)
      for tool in memcheck racecheck synccheck; do
        for t in test_sat_cuda test_sat_cuda_f32 test_sat_cuda_stress; do
          echo "== $tool $t"
          SATFEAT_TEST_SMALL=1 LD_LIBRARY_PATH="$here/../deps/usr/lib:$LD_LIBRARY_PATH" \
            compute-sanitizer --tool $tool --error-exitcode 9 ./build/tests/$t 2>&1 | tail -4
          echo "rc=$?"
        done
      done 2>&1 | tee "$OUT/sanitizer.log" ;;
  esac
done

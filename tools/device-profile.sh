#!/bin/sh
# Performance evidence in one device call (docs/BENCHMARKS.md): build with line information,
# `satfeat bench detect` and `satfeat bench sat`, then Nsight Compute on the detector's kernels
# at 1920x1080 and on the SAT kernels at 8192^2 and 1920x1080. Reports (.ncu-rep) and text
# summaries are packed into $OUT/logs.tgz (or ./gpu-logs/logs.tgz). Optional: STRESS=1 runs
# tools/skss_stress first; TESTS=REGEX runs those ctest tests after the build; NO_SAT=1 skips the
# SAT benchmark and profiles.
# usage: tools/device-profile.sh DEPS_PREFIX IMAGE_850x680 IMAGE_1080P
set -u
. tools/device-logs.sh
device_logs logs.tgz "*.ncu-rep" # every log and report; only logs.tgz comes back
dest=$logs_dir
deps=$1 img=$2 img1080=$3
CUDAFLAGS=-lineinfo sh tools/device-build.sh "$deps" "$dest" || exit 1
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)

if [ -n "${STRESS:-}" ]; then
  echo "== SKSS-LB stress"
  s0=$(date +%s)
  timeout 60 build/tools/skss_stress --launches 1000 --max-side 1024 --free-sms 2 >"$dest/stress.log" 2>&1
  echo "skss_stress: rc=$? in $(( $(date +%s) - s0 )) s"
  tail -3 "$dest/stress.log"
fi

if [ -n "${TESTS:-}" ]; then
  echo "== ctest -R $TESTS"
  (cd build && timeout 200 ctest -R "$TESTS" --output-on-failure -j4 >"$dest/ctest.log" 2>&1)
  grep -E "tests passed|tests failed|\(Failed|Timeout|\*\*\*" "$dest/ctest.log"
fi

echo "== bench detect"
timeout 150 build/cli/satfeat bench detect "$img" --frames 1000 --csv "$dest/bench_detect.csv" \
  >"$dest/bench_detect.log" 2>&1
echo "rc=$?"; cat "$dest/bench_detect.log"
echo "== bench detect, the configuration of issue 12's baseline (4 layers, no duplicate suppression, upright)"
timeout 150 build/cli/satfeat bench detect "$img" --frames 1000 --layers 4 --suppress-duplicates 0 \
  --upright 1 --csv "$dest/bench_detect_l4.csv" >"$dest/bench_detect_l4.log" 2>&1
echo "rc=$?"; cat "$dest/bench_detect_l4.log"
if [ -z "${NO_SAT:-}" ]; then
echo "== bench sat"
timeout 120 build/cli/satfeat bench sat --sizes 1024,4096,8192,16384,1920x1080 \
  --csv "$dest/bench_sat.csv" >"$dest/bench_sat.log" 2>&1
echo "rc=$?"; cat "$dest/bench_sat.log"
fi

[ -n "$ncu" ] || { echo "no ncu"; exit 0; }
prof() { # name kernel-regex count command...
  name=$1 k=$2 c=$3; shift 3
  timeout 120 "$ncu" --set full --import-source yes -k "regex:$k" -c "$c" -f -o "$dest/$name" "$@" \
    >"$dest/$name.run.log" 2>&1
  echo "ncu $name: rc=$?"
  "$ncu" --import "$dest/$name.ncu-rep" --page details --print-summary none >"$dest/$name.txt" 2>&1
  grep -E "^  [a-z_]+.*\(|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Block Limit" "$dest/$name.txt" | head -60
}
prof octave1080 "fh_octave_kernel" 1 build/cli/satfeat detect --backend cuda "$img1080" -o "$dest/kp.txt"
grep -E -A40 "Section: (Compute Workload|Warp State|Instruction Stat|Memory Workload Analysis Tables)" \
  "$dest/octave1080.txt" | grep -v "^ *-*$" | head -150
echo "== every kernel of one 1080p frame (ncu duration)"
sh tools/ncu-frame-times.sh "$ncu" build/cli/satfeat "$img1080" "$dest" frame1080
if [ -z "${NO_SAT:-}" ]; then
prof skss8192 "skss" 1 build/cli/satfeat bench sat --sizes 8192 --types u8
prof skss1080 "skss" 1 build/cli/satfeat bench sat --sizes 1920x1080 --types u8
fi
exit 0

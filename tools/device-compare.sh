#!/bin/sh
# A change against its base on one GPU, in one device call: builds BEFORE_TREE (an export of the
# base commit) and this tree with tools/device-build.sh, then prints
#  - satfeat_hash_outputs of both trees (tables and keypoints on the CPU: must be identical);
#  - this tree's satfeat_hash_pipeline (descriptors, matches, motions, tracks) on the CPU and on
#    CUDA (must be identical to each other; the lead compares them with the base's CPU digests);
#  - ctest -L gpu of this tree, and compute-sanitizer memcheck on the GPU tests of the API;
#  - `satfeat bench detect` (with and without descriptors) and `satfeat bench sat` of both trees,
#    interleaved before / after twice, so both see the same card in the same state.
# Every log goes to $OUT (or ./gpu-logs).
# usage: tools/device-compare.sh DEPS_PREFIX BEFORE_TREE IMAGE [PIPELINE_IMAGE...]
set -u
deps=$1 before=$2 img=$3
shift 3
out=${OUT:-./gpu-logs}
mkdir -p "$out/before" "$out/after"
(cd "$before" && sh tools/device-build.sh "$deps" "$out/before" satfeat_cli satfeat_hash_outputs) ||
  exit 1
sh tools/device-build.sh "$deps" "$out/after" || exit 1
b=$before/build/cli/satfeat a=build/cli/satfeat

echo "== satfeat_hash_outputs (CPU tables and keypoints), before vs after"
"$before/build/tools/satfeat_hash_outputs" "$img" >"$out/hash_outputs_before.txt" 2>&1
build/tools/satfeat_hash_outputs "$img" >"$out/hash_outputs_after.txt" 2>&1
# every case of the base must give the same digest (the tree may have added cases)
grep -v TOTAL "$out/hash_outputs_before.txt" >"$out/hash_cases_before.txt"
same=$(grep -cFx -f "$out/hash_cases_before.txt" "$out/hash_outputs_after.txt")
echo "$same of $(wc -l <"$out/hash_cases_before.txt") base cases identical after"

echo "== satfeat_hash_pipeline (descriptors, matches, motions, tracks), CPU vs CUDA"
for backend in cpu cuda; do
  build/tools/satfeat_hash_pipeline --backend $backend "$img" "$@" \
    >"$out/hash_pipeline_$backend.txt" 2>&1
done
cmp -s "$out/hash_pipeline_cpu.txt" "$out/hash_pipeline_cuda.txt" && echo "identical:" ||
  echo "DIFFERENT:"
tail -1 "$out/hash_pipeline_cpu.txt" "$out/hash_pipeline_cuda.txt"

echo "== ctest -L gpu"
(cd build && timeout 420 ctest -L gpu -E skss_stress_short -j2 --output-on-failure \
   >"$out/ctest_gpu.log" 2>&1)
grep -E "tests passed|tests failed|\(Failed|Timeout" "$out/ctest_gpu.log"
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$san" ]; then
  for t in test_detect_cuda_api test_match_cuda test_tracker_cuda; do
    SATFEAT_TEST_SMALL=1 timeout 150 "$san" --tool memcheck --error-exitcode 9 "build/tests/$t" \
      >"$out/memcheck_$t.log" 2>&1
    echo "memcheck $t: rc=$? $(grep "ERROR SUMMARY" "$out/memcheck_$t.log" | tail -1)"
  done
fi

for round in 1 2; do
  for side in before after; do
    bin=$a
    [ $side = before ] && bin=$b
    echo "== round $round, $side: bench detect (defaults, keypoints)"
    timeout 60 "$bin" bench detect "$img" --frames 200 2>&1 | tail -5
    echo "== round $round, $side: bench detect --descriptors"
    timeout 60 "$bin" bench detect "$img" --frames 200 --descriptors 2>&1 | tail -5
    echo "== round $round, $side: bench sat"
    timeout 60 "$bin" bench sat --sizes 1920x1080,4096,8192,16384 2>&1 | tail -6
  done
done

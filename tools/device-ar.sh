#!/bin/sh
# The AR session on the GPU machine, in one call (docs/AR.md, "CPU and GPU, speed"): builds
# this tree (tools/device-build.sh), runs the GPU tests and compute-sanitizer's memcheck on the
# device-view AR test, renders seven sequences of bench/ar_tables.sh and a 1280x720 one, and
# runs satfeat_ar_eval on each with 2 threads and --profile, once on the CPU and twice on CUDA
# (then dune-sample with 10 targets): recall, frames/s, stage means and the pose digest, which
# must be the same on both backends.
# usage: sh tools/device-ar.sh DEPS_PREFIX LOGDIR
set -u
deps=$1
L=$2; mkdir -p "$L"
sh tools/device-build.sh "$deps" "$L" || exit 1
lscpu | grep -E 'Model name|^CPU\(s\)' | head -2
export LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu"
(cd build && timeout 300 ctest -L gpu -E skss_stress_short -j4 --output-on-failure > $L/ctest_gpu.log 2>&1; grep -E 'tests passed|tests failed|\(Failed\)' $L/ctest_gpu.log)
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_ar_photo_cuda > $L/memcheck.log 2>&1; echo "memcheck rc=$?"; tail -1 $L/memcheck.log
W=${AR_DEVICE_WORK:-/tmp/satfeat-ar-device}; mkdir -p $W
SEQ="dune-sample:data/dune/frame001.png:0.3:sample:60 astronaut-sample:data/photos/Astronaut.jpg:0.2:sample:18 coffee-occlusion:data/photos/Coffee.jpg:0.3:occlusion:30 garden-approach:data/photos/Garden.jpg:0.3:approach:40 rocket-approach:data/photos/Rocket.jpg:0.3:approach:40 twowings-leave:data/photos/TwoWings.jpg:0.5:leave:40 raindrops-approach:data/photos/RainDrops.jpg:0.3:approach:40"
for q in $SEQ; do
  IFS=: read n ph w path fr <<E2
$q
E2
  mkdir -p $W/$n; build/tools/satfeat_gen_ar_sequence $ph $w $path $W/$n --frames $fr > /dev/null &
done
mkdir -p $W/dune-720; build/tools/satfeat_gen_ar_sequence data/dune/frame001.png 0.3 sample $W/dune-720 --frames 60 --size 1280x720 > /dev/null &
wait
run() { # name photo width backend [extra]
  n=$1 ph=$2 w=$3 b=$4; shift 4
  r=$(build/bench/satfeat_ar_eval --dir $W/$n --photo $ph --target-width $w --name $n --backend $b --threads 2 --profile "$@" 2>&1)
  echo "$n $b $* | $(echo "$r" | grep -o 'recall=[^ ]*') $(echo "$r" | grep -o 'fps=[^ ]*') $(echo "$r" | grep '^stages' | cut -d' ' -f4-) $(echo "$r" | grep -o 'digest=[^ ]*')"
}
for q in $SEQ dune-720:data/dune/frame001.png:0.3:x:0; do
  IFS=: read n ph w path fr <<E2
$q
E2
  run $n $ph $w cpu; run $n $ph $w cuda; run $n $ph $w cuda
done
for b in cpu cuda cuda; do run dune-sample data/dune/frame001.png 0.3 $b --targets 10; done

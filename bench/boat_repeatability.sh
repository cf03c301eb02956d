#!/bin/sh
# Repeatability of the detector on the Oxford boat sequence at a fixed keypoint count.
# usage: bench/boat_repeatability.sh SATFEAT_BINARY BOAT_DIR TARGET_COUNT [DETECTOR OPTIONS...]
# Finds (by bisection on a log scale) the threshold at which img1 yields TARGET_COUNT keypoints
# or just fewer, then prints that threshold, the count and `satfeat eval` for 1->2 .. 1->6.
set -eu
bin=$1 dir=$2 target=$3
shift 3
count() { "$bin" detect "$dir/img1.pgm" "$@" | tail -n +2 | wc -l; }
lo=0.000001 hi=0.1
i=0
while [ $i -lt 24 ]; do
  mid=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.9g", sqrt(a * b) }')
  if [ "$(count "$@" --threshold "$mid")" -gt "$target" ]; then lo=$mid; else hi=$mid; fi
  i=$((i + 1))
done
n=$(count "$@" --threshold "$hi")
printf 'options: %s\nthreshold %s -> %s keypoints on img1\n' "$*" "$hi" "$n"
for k in 2 3 4 5 6; do
  r=$("$bin" eval "$dir/img1.pgm" "$dir/img$k.pgm" "$dir/H1to${k}p" "$@" --threshold "$hi" |
      awk '/^repeatability/ { print $2 }')
  printf '1->%s %s\n' "$k" "$r"
done

#!/bin/sh
# Nsight Compute's time of every kernel of one frame: runs `SATFEAT detect --backend cuda IMAGE`
# under `ncu --metrics gpu__time_duration.sum` (report LOGDIR/NAME.ncu-rep) and prints one line a
# kernel: its name, then the min, max and mean time in us. Used by tools/device-profile.sh and
# tools/device-verify.sh.
# usage: tools/ncu-frame-times.sh NCU SATFEAT IMAGE LOGDIR NAME
set -u
ncu=$1 satfeat=$2 img=$3 dir=$4 name=$5
timeout 120 "$ncu" --metrics gpu__time_duration.sum -f -o "$dir/$name" \
  "$satfeat" detect --backend cuda "$img" -o "$dir/$name.kp.txt" >"$dir/$name.run.log" 2>&1
"$ncu" --import "$dir/$name.ncu-rep" --print-summary per-kernel 2>&1 |
  grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" | sed 's/(satfeat_fh[^)]*)//; s/  */ /g' |
  paste - - | awk '{print $1, $(NF-2), $(NF-1), $NF}' | head -30

#!/bin/sh
# defaults_study.sh - reproduces the tables of docs/QUALITY.md: renders the six evaluation
# sequences (not shipped) with tools/gen_sequence.sh, then runs bench/defaults_study.py on the
# Oxford boat sequence (2000 keypoints on img1) and on them (1000 keypoints on frame 1, the same
# density on 640 x 480), with OpenCV SIFT for comparison when python3-opencv is installed.
# usage: bench/defaults_study.sh BOAT_DIR [WORK_DIR] [CONFIGS]
#   CONFIGS: comma list of names from bench/defaults_study.py (default: all)
# Needs build/cli/satfeat and build/tools/satfeat_gen_sequence (cmake --build build
# --target satfeat_cli satfeat_gen_sequence). Uses 2 processes at a time; about 40 CPU-minutes
# for all configurations.
set -eu
boat=$1
work=${2:-/tmp/satfeat-defaults-study}
py=${PYTHON:-python3}
configs=${3:-$($py -c "import sys; sys.path.insert(0, 'bench'); import defaults_study as d; print(','.join(d.CONFIGS))")}
sift=
$py -c "import cv2" 2>/dev/null && sift=--sift
mkdir -p "$work"
seqs=
for spec in LadyBird:rotation GreenMeadow:zoom RainDrops:viewpoint Blinds:blur Garden:light YellowFlower:track; do
  photo=${spec%%:*} motion=${spec##*:}
  name=$(echo "$photo" | tr 'A-Z' 'a-z')-$motion
  [ -f "$work/$name/H1to006p" ] ||
    tools/gen_sequence.sh build/tools/satfeat_gen_sequence "$work/$name" "$photo.jpg" \
      --motion "$motion" --frames 6 --seed 7
  seqs="$seqs $work/$name"
done
rm -f "$work/boat.csv" "$work/gen.csv"
$py bench/defaults_study.py --jobs 2 --target 2000 --configs "$configs" $sift --csv "$work/boat.csv" "$boat"
$py bench/defaults_study.py --jobs 2 --target 1000 --configs "$configs" $sift --csv "$work/gen.csv" $seqs
$py bench/quality_tables.py "$work/boat.csv" "$work/gen.csv"

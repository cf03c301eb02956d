#!/bin/sh
# run_eval.sh - the whole evaluation of docs/EVALUATION.md: renders the sets from data/photos,
# evaluates libsatfeat (options passed through to satfeat_eval_quality, e.g. --norm root) and,
# with python3-opencv installed and OPENCV=1, OpenCV SIFT, AKAZE, KAZE and ORB, then prints the
# tables. Boat is added when BOAT (default /work/shared/data/oxford-boat) exists.
# usage: bench/quality_sets/run_eval.sh BUILD_DIR WORK_DIR [satfeat_eval_quality options]
set -eu
build=$1 work=$2
shift 2
here=$(dirname "$0")
mkdir -p "$work"
[ -f "$work/sets/sets.tsv" ] || "$build/bench/quality_sets/satfeat_eval_make_sets" "$here/../../data/photos" "$work/sets"
sets=$(tail -n +2 "$work/sets/sets.tsv" | cut -f1 | sed "s#^#$work/sets/#")
boat=${BOAT:-/work/shared/data/oxford-boat}
[ -f "$boat/img1.pgm" ] && sets="$sets $boat"
"$build/bench/quality_sets/satfeat_eval_quality" "$@" $sets > "$work/libsatfeat.tsv"
tsvs="$work/libsatfeat.tsv"
if [ "${OPENCV:-0}" = 1 ]; then
  /usr/bin/python3 "$here/opencv_features.py" "$work/opencv" sift,akaze,kaze,orb $sets
  for m in sift akaze kaze orb; do
    "$build/bench/quality_sets/satfeat_eval_quality" --method "opencv-$m" --features "$work/opencv/$m" $sets > "$work/$m.tsv"
    tsvs="$tsvs $work/$m.tsv"
  done
fi
python3 "$here/summarise.py" --sets $tsvs

#!/bin/sh
# quality_sets_test.sh - the ctest of the evaluation harness: renders one set at half size twice
# (the bytes must be equal: the sets are deterministic), evaluates it twice with --check (the
# harness's matcher must give satfeat_eval_matching's numbers; the two runs must print the same
# rows), checks that the lever recomputation (levers.h) at the library's settings reproduces the
# library's angles and descriptors, and checks that the numbers are sane: every pair has keypoints, repeatability and score
# in (0, 1], precision above 0.5 on the first pair, and the summary prints a tuning mean.
# usage: quality_sets_test.sh BIN_DIR PHOTO_DIR TMP_DIR
set -eu
bin=$1 photos=$2 tmp=$3
rm -rf "$tmp"
mkdir -p "$tmp"
"$bin/satfeat_eval_make_sets" "$photos" "$tmp/a" --only rot90-wood --shrink 2
"$bin/satfeat_eval_make_sets" "$photos" "$tmp/b" --only rot90-wood --shrink 2
for f in frame001.png frame004.png frame006.png H1to006p role; do
  cmp "$tmp/a/rot90-wood/$f" "$tmp/b/rot90-wood/$f"
done
"$bin/satfeat_eval_quality" --check --target 400 --threads 2 --analyse "$tmp/an1.tsv" "$tmp/a/rot90-wood" > "$tmp/r1.tsv"
"$bin/satfeat_eval_quality" --check --target 400 --threads 1 --analyse "$tmp/an2.tsv" "$tmp/b/rot90-wood" > "$tmp/r2.tsv"
cmp "$tmp/r1.tsv" "$tmp/r2.tsv"
cmp "$tmp/an1.tsv" "$tmp/an2.tsv"
# the lever recomputation at the library's settings equals the library (root and L2)
"$bin/satfeat_eval_quality" --target 400 --lever bins=72 "$tmp/a/rot90-wood" > "$tmp/r3.tsv" 2> "$tmp/e3.txt"
cmp "$tmp/r1.tsv" "$tmp/r3.tsv"
"$bin/satfeat_eval_quality" --target 400 --descriptor-norm l2 --lever bins=72 "$tmp/a/rot90-wood" > "$tmp/r4.tsv" 2> "$tmp/e4.txt"
if grep -q differ "$tmp/e3.txt" "$tmp/e4.txt"; then cat "$tmp/e3.txt" "$tmp/e4.txt"; exit 1; fi
awk -F'\t' 'NR > 1 {
  if ($5 < 100 || $6 < 100) { print "too few keypoints: " $0; bad = 1 }
  if (!($8 > 0 && $8 <= 1) || !($13 > 0 && $13 <= 1)) { print "out of range: " $0; bad = 1 }
  if ($4 == "1-2" && !($14 > 0.5)) { print "precision: " $0; bad = 1 }
  n++ }
  END { if (n != 5) { print "expected 5 pairs, got " n; bad = 1 } exit bad }' "$tmp/r1.tsv"
# a method that finds no keypoints (a feature file may then name any descriptor kind) scores 0
mkdir -p "$tmp/empty/rot90-wood"
printf 'satfeat-features 0 1 bits\n' > "$tmp/empty/rot90-wood/frame001.feat"
for k in 2 3 4 5 6; do printf 'satfeat-features 0 128 f32\n' > "$tmp/empty/rot90-wood/frame00$k.feat"; done
"$bin/satfeat_eval_quality" --method none --features "$tmp/empty" "$tmp/a/rot90-wood" > "$tmp/r5.tsv"
awk -F'\t' 'NR > 1 { n++; if ($5 != 0 || $13 != 0) bad = 1 } END { exit (n != 5 || bad) }' "$tmp/r5.tsv"
python3 "$(dirname "$0")/summarise.py" "$tmp/r1.tsv" | grep -q "| libsatfeat | 0\."
echo "quality sets: ok"

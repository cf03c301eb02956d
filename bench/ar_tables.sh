#!/bin/sh
# ar_tables.sh - the AR evaluation tables of docs/AR.md ("Measured"), in one command:
#   sh bench/ar_tables.sh [BUILD_DIR]      (default build; run from the repository's root)
# Builds satfeat_gen_ar_sequence and satfeat_ar_eval in BUILD_DIR (configured already), renders
# every sequence below into $AR_TABLES_WORK (default /tmp/satfeat-ar-tables), runs satfeat's
# session (backend $AR_TABLES_BACKEND, default cpu; the context's default threads) and the
# OpenCV anchors (bench/ar_opencv_anchor.py, Debian's python3-opencv) on the same frames, writes
# $AR_TABLES_WORK/results.txt (the `result` lines) and $AR_TABLES_WORK/tables.md (the markdown
# of docs/AR.md), which it also prints. Took about 10 minutes on 2 shared cores when it had 14
# of its 19 sequences (rendering about 40% of it).
set -eu
build=${1:-build}
work=${AR_TABLES_WORK:-/tmp/satfeat-ar-tables}
py=/usr/bin/python3
backend=${AR_TABLES_BACKEND:-cpu}
cmake --build "$build" --target satfeat_gen_ar_sequence satfeat_ar_eval >/dev/null
mkdir -p "$work"
: >"$work/results.txt"
# name photo width_m path frames set (tune: used while tuning the engine; held: never tuned on).
# storm-approach (Storm.jpg, 0.3 m) is not listed: neither satfeat nor either anchor poses any
# of its frames.
cat >"$work/sequences.txt" <<'SEQ'
dune-approach data/dune/frame001.png 0.3 approach 40 tune
astronaut-leave data/photos/Astronaut.jpg 0.25 leave 40 tune
coffee-occlusion data/photos/Coffee.jpg 0.3 occlusion 30 tune
garden-perspective data/photos/Garden.jpg 0.4 perspective 30 tune
wood-blur data/photos/Wood.jpg 0.3 blur 30 tune
ladybird-light data/photos/LadyBird.jpg 0.3 light 30 tune
dune-sample data/dune/frame001.png 0.3 sample 60 tune
astronaut-sample data/photos/Astronaut.jpg 0.2 sample 18 tune
greenmeadow-orbit data/photos/GreenMeadow.jpg 0.3 orbit 36 tune
rocket-approach data/photos/Rocket.jpg 0.3 approach 40 tune
blinds-approach data/photos/Blinds.jpg 0.3 approach 40 tune
garden-approach data/photos/Garden.jpg 0.3 approach 40 tune
wood-approach data/photos/Wood.jpg 0.3 approach 40 tune
coffee-approach data/photos/Coffee.jpg 0.3 approach 40 tune
aqua-sample data/photos/Aqua.jpg 0.3 sample 60 held
twowings-leave data/photos/TwoWings.jpg 0.5 leave 40 held
yellowflower-handheld data/photos/YellowFlower.jpg 0.3 handheld 40 held
freshflower-perspective data/photos/FreshFlower.jpg 0.3 perspective 30 held
raindrops-approach data/photos/RainDrops.jpg 0.3 approach 40 held
SEQ
start=$(date +%s)
while read -r name photo width path frames _set <&3; do
  dir="$work/$name"
  rm -rf "$dir" && mkdir -p "$dir"
  "$build/tools/satfeat_gen_ar_sequence" "$photo" "$width" "$path" "$dir" --frames "$frames"
  "$build/bench/satfeat_ar_eval" --dir "$dir" --photo "$photo" --target-width "$width" \
    --name "$name" --backend "$backend" --poses "$dir/ours-poses.txt" |
    sed 's/method=ours-[a-z]*/method=ours/' | tee -a "$work/results.txt"
  "$py" bench/ar_opencv_anchor.py --dir "$dir" --photo "$photo" --target-width "$width" \
    --name "$name" | tee -a "$work/results.txt"
done 3<"$work/sequences.txt"
# the cost of more targets: the same frames with 10 targets in the session (9 never in view)
for name in astronaut-sample dune-sample; do
  photo=$(awk -v n="$name" '$1 == n { print $2 }' "$work/sequences.txt")
  width=$(awk -v n="$name" '$1 == n { print $3 }' "$work/sequences.txt")
  "$build/bench/satfeat_ar_eval" --dir "$work/$name" --photo "$photo" --target-width "$width" \
    --name "$name" --backend "$backend" --targets 10 | sed 's/method=ours-[a-z]*/method=ours-10/' |
    tee -a "$work/results.txt"
done
echo "ar_tables: $(( $(date +%s) - start )) s" >&2
# a program that failed inside a pipeline left its line out
want=$(( 3 * $(wc -l <"$work/sequences.txt") + 2 ))
got=$(grep -c '^result ' "$work/results.txt" || true)
[ "$got" -eq "$want" ] || { echo "ar_tables: $got result lines, expected $want" >&2; exit 1; }
"$py" bench/ar_tables.py "$work/sequences.txt" "$work/results.txt" >"$work/tables.md"
cat "$work/tables.md"

#!/bin/sh
# readme_commands.sh - runs README.md's command lines as written: the lines of every ```sh block
# that follows a "<!-- readme-commands -->" line (blank and comment lines skipped, a trailing
# backslash joins the next line). Each line is one ctest (tests_readme.cmake), run by `sh -c` in
# a fresh scratch directory that holds `data` (the repository's data/) and, when present,
# `../shared/data` (the shared data), with the built `satfeat` first on PATH, as after the quick start.
#   readme_commands.sh count README.md          prints the number of command lines
#   readme_commands.sh show README.md K         prints line K
#   readme_commands.sh run README.md K SATFEAT_DIR DATA_DIR SHARED_DIR WORK_DIR
# A line that needs what this machine lacks exits 77 (ctest: Skipped) naming it: a CUDA device
# (--backend cuda, --devices, bench), the shared data (../shared), video input (a video file).
set -eu

extract() {
  awk '
    /<!-- readme-commands -->/ { armed = 1; next }
    armed && /^```sh[ \t]*$/ { inblock = 1; armed = 0; next }
    inblock && /^```/ { inblock = 0; next }
    inblock {
      line = cont $0
      cont = ""
      if (line ~ /\\$/) { cont = substr(line, 1, length(line) - 1); next }
      if (line ~ /^[ \t]*(#.*)?$/) next
      print line
    }' "$1"
}

mode=$1
readme=$2
case $mode in
count) extract "$readme" | wc -l | tr -d ' '; exit 0 ;;
show) extract "$readme" | sed -n "$3p"; exit 0 ;;
run) ;;
*) echo "usage: readme_commands.sh count|show|run README.md ..." >&2; exit 2 ;;
esac

k=$3 bindir=$4 data=$5 shared=$6 work=$7
line=$(extract "$readme" | sed -n "${k}p")
[ -n "$line" ] || { echo "README.md has no command line $k"; exit 1; }
echo "README command $k: $line"

version=$("$bindir/satfeat" --version)
case $line in
*"--backend cuda"* | *"--devices"* | *"satfeat bench"*)
  if ! printf '%s\n' "$version" | grep -q '[1-9][0-9]* CUDA devices\{0,1\} found'; then
    echo "needs a CUDA device: skipped"
    exit 77
  fi ;;
esac
case $line in
*../shared*)
  [ -d "$shared" ] || { echo "needs the shared data ($shared): skipped"; exit 77; } ;;
esac
case $line in
*.mp4* | *.mkv* | *.avi* | *.mov* | *.webm* | *.nut* | *.y4m*)
  if printf '%s\n' "$version" | grep -q 'video input (FFmpeg): not built'; then
    echo "needs video input (FFmpeg): skipped"
    exit 77
  fi ;;
esac

rm -rf "$work"
mkdir -p "$work/repo"
ln -s "$data" "$work/repo/data"
if [ -d "$shared" ]; then
  mkdir -p "$work/shared"
  ln -s "$shared" "$work/shared/data"
fi
cd "$work/repo"
PATH="$bindir:$PATH"
export PATH
found=$(command -v satfeat)
[ "$found" = "$bindir/satfeat" ] || { echo "satfeat resolves to $found, not $bindir/satfeat"; exit 1; }
status=0
sh -c "$line" || status=$?
if [ "$status" -ne 0 ]; then
  echo "README command $k failed with exit status $status"
  exit 1
fi
echo "README command $k: ok"

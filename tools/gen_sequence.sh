#!/bin/sh
# gen_sequence.sh - fetches a photograph from a Debian package and renders an image sequence
# with known homographies from it (tools/gen_sequence.c; see data/README.md).
#
# usage: tools/gen_sequence.sh GENERATOR OUTDIR [PHOTO] [generator options...]
#   GENERATOR  the built satfeat_gen_sequence (build/tools/satfeat_gen_sequence)
#   OUTDIR     created if missing; frameNNN.png and H1toNNNp are written there
#   PHOTO      file name in mate-backgrounds' nature/ folder (default RainDrops.jpg)
# With no options after PHOTO it renders the shipped data/raindrops sequence:
#   tools/gen_sequence.sh build/tools/satfeat_gen_sequence data/raindrops
# Needs apt-get (Debian's archive), dpkg-deb and djpeg (package libjpeg-turbo-progs).
set -eu
gen=$1 out=$2
photo=${3:-RainDrops.jpg}
[ $# -ge 3 ] && shift 3 || shift $#
pkg=mate-backgrounds
ver=1.26.0-1 # Debian 12 (bookworm); the photographs are GPL-2+ (see the package's copyright)
cache=${SATFEAT_SEQ_CACHE:-${TMPDIR:-/tmp}/satfeat-seq-cache}
mkdir -p "$cache" "$out"
deb=$(ls "$cache"/${pkg}_*.deb 2>/dev/null | head -n 1 || true)
if [ -z "$deb" ]; then
  (cd "$cache" && apt-get download "$pkg=$ver" >/dev/null 2>&1 || apt-get download "$pkg")
  deb=$(ls "$cache"/${pkg}_*.deb | head -n 1)
fi
src="$cache/x/usr/share/backgrounds/mate/nature/$photo"
[ -f "$src" ] || dpkg-deb -x "$deb" "$cache/x"
command -v djpeg >/dev/null || { echo "gen_sequence.sh: djpeg missing (apt-get install libjpeg-turbo-progs)" >&2; exit 1; }
ppm="$cache/${photo%.*}.ppm"
djpeg -pnm -outfile "$ppm" "$src"
"$gen" "$ppm" "$out" "$@"

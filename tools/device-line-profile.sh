#!/bin/sh
# Where a detector kernel's instructions and stalls go, by source line, in one GPU call
# (docs/BENCHMARKS.md, "Detector"): builds the tree with line information, runs
# Nsight Compute's source counters on one launch of the kernel (KERNEL, an ncu -k regex; default
# fh_octave) while `satfeat detect` runs on IMAGE, exports the per-SASS CSV, disassembles the
# kernel's cubin with line information (nvdisasm -g) and joins the two
# (tools/ncu_line_profile.py). The report and the raw files go into $OUT/line-profile.tgz (or
# ./gpu-logs/line-profile.tgz).
# usage: [KERNEL=regex] [OBJ=name.cu.o] tools/device-line-profile.sh DEPS_PREFIX IMAGE
set -u
. tools/device-logs.sh
device_logs line-profile.tgz
dest=$logs_dir
deps=$1 img=$2
kernel=${KERNEL:-fh_octave}
obj=${OBJ:-octave_kernel.cu.o}
cuda=$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")
ncu=$(command -v ncu || echo "$cuda/ncu")
CUDAFLAGS=-lineinfo sh tools/device-build.sh "$deps" "$dest" satfeat_cli >"$dest/build.out" 2>&1 ||
  { cat "$dest/build.out"; exit 1; }
"$ncu" --section SpeedOfLight --section WarpStateStats --section SourceCounters \
  --import-source yes -k "regex:$kernel" -c 1 -f -o "$dest/k" \
  build/cli/satfeat detect --backend cuda "$img" -o "$dest/kp.txt" >"$dest/ncu.run.log" 2>&1 ||
  { tail -20 "$dest/ncu.run.log"; exit 1; }
"$ncu" --import "$dest/k.ncu-rep" --page source --csv --print-source sass >"$dest/sass.csv"
"$ncu" --import "$dest/k.ncu-rep" --page details --print-summary none >"$dest/details.txt" 2>&1
rm -f "$dest/k.ncu-rep"
o=$(find build -name "$obj" | head -1)
[ -n "$o" ] || { echo "no $obj under build/"; exit 1; }
mkdir -p "$dest/cubin"
(cd "$dest/cubin" && "$cuda/cuobjdump" -xelf all "$OLDPWD/$o" >/dev/null)
for c in "$dest"/cubin/*.cubin; do "$cuda/nvdisasm" -g -c "$c" >>"$dest/disasm.txt"; done
rm -rf "$dest/cubin"
python3 tools/ncu_line_profile.py "$dest/sass.csv" "$dest/disasm.txt" "$kernel" detect 60 |
  tee "$dest/lines.txt"
gzip -9 "$dest/sass.csv" "$dest/disasm.txt"

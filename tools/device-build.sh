#!/bin/sh
# The GPU machine's build, shared by tools/device-check.sh, device-track.sh and device-verify.sh:
# configures build/ for Hopper (sm_90) with warnings as errors and the staged test dependencies,
# builds on every core, prints the device. Logs go to LOGDIR; on failure their tail is printed
# and the exit status is 1.
# usage: tools/device-build.sh DEPS_PREFIX LOGDIR
set -u
deps=$1
logs=$2
cmake -B build -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DSATFEAT_WARNINGS_AS_ERRORS=ON >"$logs/cmake.log" 2>&1 || { tail -30 "$logs/cmake.log"; exit 1; }
cmake --build build -j"$(nproc)" >"$logs/build.log" 2>&1 || { grep -E "error" "$logs/build.log" | head -30; exit 1; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

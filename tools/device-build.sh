#!/bin/sh
# The GPU machine's build, shared by the tools/device-*.sh scripts: configures build/ for Hopper
# (sm_90) with warnings as errors, the staged test dependencies and the nvcc flags in $CUDAFLAGS
# (e.g. -lineinfo for Nsight Compute's source view), builds the given targets (all without any)
# on every core, prints the device. Logs go to LOGDIR; on failure their tail is printed and the
# exit status is 1. BUILD_DIR names the build folder (default build).
# usage: [CUDAFLAGS=...] [BUILD_DIR=...] tools/device-build.sh DEPS_PREFIX LOGDIR [TARGET...]
set -u
deps=$1
logs=$2
shift 2
cmake -B "${BUILD_DIR:-build}" -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCMAKE_CUDA_FLAGS="${CUDAFLAGS:-}" -DSATFEAT_WARNINGS_AS_ERRORS=ON >"$logs/cmake.log" 2>&1 ||
  { tail -30 "$logs/cmake.log"; exit 1; }
targets=""
[ $# -gt 0 ] && targets="--target $*"
# shellcheck disable=SC2086
cmake --build "${BUILD_DIR:-build}" -j"$(nproc)" $targets >"$logs/build.log" 2>&1 ||
  { grep -E "error" "$logs/build.log" | head -30; exit 1; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader || true

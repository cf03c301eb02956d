#!/bin/sh
# Installs the Debian 12 packages libsatfeat needs that are missing (as root), and prints
# "export CUDACXX=..." when nvcc sits outside PATH in /usr/local/cuda/bin (eval it).
# usage: tools/install-deps.sh [extra packages...]
set -eu
need=""
for p in build-essential cmake pkg-config libpng-dev libjpeg62-turbo-dev zlib1g-dev "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
  echo "installing:$need" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends $need >/dev/null
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ] && [ -z "${CUDACXX:-}" ]; then
  echo "export CUDACXX=/usr/local/cuda/bin/nvcc"
fi

#!/bin/sh
# Installs the Debian 12 packages libsatfeat needs that are missing (as root), and prints
# "export CUDACXX=..." when nvcc sits outside PATH in /usr/local/cuda/bin (eval it).
# Progress goes to stderr. When another apt or dpkg holds the package locks (an unattended
# upgrade, a second terminal), it waits for them, up to 10 minutes, instead of failing.
# usage: tools/install-deps.sh [extra packages...]
set -eu
need=""
for p in build-essential cmake pkg-config libpng-dev libjpeg62-turbo-dev zlib1g-dev "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done

# apt-get with its lock waits: DPkg::Lock::Timeout covers dpkg's locks; the package lists'
# lock (apt-get update) is retried here every 10 s while its error says the lock is held.
apt_wait() {
  waited=0
  while :; do
    if out=$(apt-get -o DPkg::Lock::Timeout=600 "$@" 2>&1); then return 0; fi
    case $out in
    *"Could not get lock"* | *"Unable to lock"* | *"Unable to acquire"*) ;;
    *) printf '%s\n' "$out" >&2; return 1 ;;
    esac
    if [ "$waited" -ge 600 ]; then
      printf '%s\n' "$out" "gave up after waiting 10 minutes for the package lock" >&2
      return 1
    fi
    [ "$waited" -eq 0 ] && echo "another apt or dpkg holds the package lock: waiting for it (up to 10 minutes)" >&2
    sleep 10
    waited=$((waited + 10))
  done
}

if [ -n "$need" ]; then
  echo "installing with apt-get (time depends on the mirror):$need" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt_wait update -qq
  # shellcheck disable=SC2086
  apt_wait install -y -qq --no-install-recommends $need
  echo "packages installed" >&2
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ] && [ -z "${CUDACXX:-}" ]; then
  echo "export CUDACXX=/usr/local/cuda/bin/nvcc"
fi

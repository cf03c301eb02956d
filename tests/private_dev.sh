#!/bin/sh
# private_dev.sh - runs a command with a private /dev: a new mount namespace (unshare -m as
# root, else unshare -rm) with a tmpfs on /dev holding fresh full (1,7) and null (1,3) nodes, so
# a test may write to /dev/full or /dev/null, or even replace them, without touching the
# machine's. Exits 77 (ctest skip) when the namespace or the nodes cannot be made.
#   private_dev.sh COMMAND [ARGS...]
if [ "$1" = --inside ]; then
  shift
  mount -t tmpfs -o mode=755 tmpfs /dev 2>/dev/null || { echo "private_dev: cannot mount a tmpfs on /dev: skipped"; exit 77; }
  mknod -m 666 /dev/full c 1 7 && mknod -m 666 /dev/null c 1 3 || { echo "private_dev: cannot make device nodes: skipped"; exit 77; }
  SATFEAT_PRIVATE_DEV=1 exec "$@"
fi
if [ "$(id -u)" = 0 ]; then opts=-m; else opts=-rm; fi
unshare $opts --propagation private true 2>/dev/null || { echo "private_dev: unshare $opts not allowed here: skipped"; exit 77; }
exec unshare $opts --propagation private "$0" --inside "$@"

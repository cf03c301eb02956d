"""The batch tool's own lock on its output: OUTPUT.lock, created with O_EXCL, holding the host,
the pid, the process's creation time and the start time of the run that holds it.

HDF5's file locking cannot be relied on (it is switched off with HDF5_USE_FILE_LOCKING=FALSE on
many shared file systems, and then two writers silently corrupt the file), so the tool takes a
lock of its own before it opens the output:

- a second run on the same output refuses: "OUTPUT is in use by HOST pid PID (since TIME)";
- a lock left by a run that died (same host, that pid no longer running, or running but a newer
  process with the same pid) is taken over, with a note on stderr;
- a lock of another host is never taken over (its pid cannot be checked from here): remove it
  by hand when that run is known to be gone;
- two runs that find the same stale lock at the same instant are not told apart (each removes
  it; the later one may remove the earlier one's new lock): a race of milliseconds after a crash.

The lock is removed when the holder releases it (the tool does so in a `finally`, which a SIGTERM
also reaches: satfeat.interrupts). Within one process the lock is re-entrant, so satfeat.batch.run
called by main (which took the lock before starting the cluster) does not refuse itself.
"""
import datetime
import json
import os
import socket
import sys

_held = {}  # lock path -> times taken by this process


class LockError(Exception):
    """The output is locked by another run, or its lock cannot be made or read."""


def lock_path(output):
    """Where the lock of `output` lives (beside it, so every host that sees the file sees it)."""
    return str(output) + ".lock"


def _process_created(pid):
    """The creation time of process `pid` (seconds since the epoch), None when unknown;
    tells a run's process from a later one that got the same pid."""
    try:
        import psutil

        return psutil.Process(pid).create_time()
    except Exception:  # psutil missing, or the process is gone
        return None


def _alive(pid, created):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        pass
    now = _process_created(pid)
    return created is None or now is None or abs(now - created) < 1.0


class OutputLock:
    """`with OutputLock(output):` holds OUTPUT.lock for the block (raises LockError)."""

    def __init__(self, output):
        self.path = lock_path(output)
        self.output = str(output)

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()

    def acquire(self):
        if _held.get(self.path):
            _held[self.path] += 1
            return
        for _ in range(2):  # the second try follows the removal of a stale lock
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                self._take_over_if_stale()
                continue
            except OSError as e:
                raise LockError(f"cannot create {self.path} ({e.strerror}): is "
                                f"{os.path.dirname(os.path.abspath(self.path))} writable?") from e
            me = {"host": socket.gethostname(), "pid": os.getpid(),
                  "pid_created": _process_created(os.getpid()),
                  "since": datetime.datetime.now(datetime.timezone.utc).isoformat(
                      timespec="seconds")}
            with os.fdopen(fd, "w") as f:
                json.dump(me, f)
            _held[self.path] = 1
            return
        raise LockError(f"{self.path}: taken by another run while this one took over a stale "
                        "lock; try again")

    def _take_over_if_stale(self):
        try:
            with open(self.path) as f:
                holder = json.load(f)
            host, pid = holder["host"], int(holder["pid"])
        except FileNotFoundError:
            return  # released meanwhile: try again
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise LockError(f"{self.path} exists but cannot be read ({e}); if no run is using "
                            f"{self.output}, remove it") from e
        if host != socket.gethostname() or _alive(pid, holder.get("pid_created")):
            raise LockError(f"{self.output} is in use by {host} pid {pid} (since "
                            f"{holder.get('since', '?')}); if that run is gone, remove "
                            f"{self.path}")
        print(f"note: {self.path}: taking over the lock of {host} pid {pid} (since "
              f"{holder.get('since', '?')}), which is no longer running", file=sys.stderr)
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    def release(self):
        count = _held.get(self.path, 0)
        if count > 1:
            _held[self.path] = count - 1
            return
        if count == 1:
            del _held[self.path]
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass

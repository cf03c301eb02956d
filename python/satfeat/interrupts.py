"""SIGTERM and SIGINT as exceptions that unwind the batch tool (its `finally` blocks close the
cluster, the HDF5 file and remove the output's lock), but never in the middle of writing one
chunk's results: a signal that comes inside `critical()` is held until the block ends.

Python runs signal handlers in the main thread between bytecodes, so a handler that raises could
otherwise land between two datasets of one image group, or inside h5py's close; blocking the
signal with pthread_sigmask would not do, because the client's other threads (Dask's event loop)
could still receive it.
"""
import contextlib
import signal
import sys
import threading


class Interrupted(SystemExit):
    """Raised in the main thread for SIGTERM / SIGINT; exits with 128 + the signal's number."""


class Interrupts:
    """Installs the handlers on enter and restores the previous ones on exit."""

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __init__(self):
        self.depth, self.pending, self.previous = 0, None, {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():  # elsewhere signal() raises
            for s in self.SIGNALS:
                self.previous[s] = signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc):
        for s, handler in self.previous.items():
            signal.signal(s, handler)

    def _handle(self, signum, frame):
        if self.depth:
            self.pending = signum
        else:
            self._raise(signum)

    @staticmethod
    def _raise(signum):
        print(f"python3 -m satfeat.batch: {signal.Signals(signum).name}: stopping (what was "
              "written stays; a rerun goes on from there)", file=sys.stderr)
        raise Interrupted(128 + signum)

    @contextlib.contextmanager
    def critical(self):
        """A block that a signal does not interrupt; a signal received inside is raised after."""
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if not self.depth and self.pending is not None:
                signum, self.pending = self.pending, None
                self._raise(signum)


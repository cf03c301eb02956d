"""A one-line progress bar for terminals: done / total, rate and time left, redrawn in place.
Silent when the stream is not a terminal (logs and tests stay clean)."""
import sys
import time


class ProgressBar:
    """Draws `label [#####.....] done/total  rate/s  eta` on `stream` when it is a TTY."""

    def __init__(self, total, label="features", stream=None, width=30):
        self.total = max(int(total), 0)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.done = 0
        self.start = time.monotonic()
        self.enabled = hasattr(self.stream, "isatty") and self.stream.isatty()

    def advance(self, n=1):
        """Counts n more items done and redraws."""
        self.done += n
        self._draw()

    def close(self):
        """Ends the line the bar was drawn on."""
        if self.enabled:
            self._draw()
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self):
        if not self.enabled:
            return
        frac = self.done / self.total if self.total else 1.0
        filled = int(round(frac * self.width))
        elapsed = time.monotonic() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else float("nan")
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (self.width - filled)}] "
            f"{self.done}/{self.total}  {rate:.1f}/s  eta {eta:.0f}s ")
        self.stream.flush()

"""grade-all's progress: done/total, elapsed and time left, on one line of a terminal (a line every few seconds otherwise)."""

from __future__ import annotations

import sys
import time

from ...results.text import clean_name


class Progress:
    """done/total, elapsed and time left, on one line of a terminal (a line every few seconds otherwise)."""

    def __init__(self, total: int, stream=sys.stderr, enabled: bool = True):
        self.total, self.stream, self.enabled = total, stream, enabled
        self.started = time.monotonic()
        self.done = 0
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self._last_line = 0.0

    def step(self, label: str = "") -> None:
        self.done += 1
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.started
        left = elapsed / self.done * (self.total - self.done)
        width = 30
        filled = int(width * self.done / self.total)
        bar = "#" * filled + "-" * (width - filled)
        line = (
            f"[{bar}] {self.done}/{self.total}  {clock(elapsed)} elapsed, {clock(left)} left  {clean_name(label, 40)}"
        )
        if self.tty:
            self.stream.write("\r" + line[:110].ljust(110))
            if self.done == self.total:
                self.stream.write("\n")
        elif self.done == self.total or time.monotonic() - self._last_line > 5 or self.done == 1:
            self.stream.write(line + "\n")
            self._last_line = time.monotonic()
        self.stream.flush()


def clock(seconds: float) -> str:
    """Seconds as m:ss."""
    minutes, seconds = divmod(int(seconds + 0.5), 60)
    return f"{minutes}:{seconds:02d}"

"""Progress of a batch run on stderr: a tqdm bar on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO

#: Seconds between plain progress lines (when stderr is not a terminal).
LINE_EVERY_S = 10.0


class Progress:
    """Counts finished inputs and sentences; shows papers, sentences/s and time left.

    ``mode``: ``"bar"`` (tqdm), ``"lines"`` (a line every :data:`LINE_EVERY_S` seconds),
    ``"off"``; ``"auto"`` picks the bar when ``stream`` is a terminal.
    """

    def __init__(self, total: int, mode: str = "auto", stream: TextIO | None = None,
                 every: float = LINE_EVERY_S) -> None:
        self.stream = stream or sys.stderr
        if mode == "auto":
            mode = "bar" if _isatty(self.stream) else "lines"
        self.mode = mode
        self.total = total
        self.done = 0
        self.sentences = 0
        self.every = every
        self.start = self._last = time.monotonic()
        self._bar = None
        if mode == "bar":
            import tqdm

            tqdm.tqdm.monitor_interval = 0  # no monitor thread: worker processes fork
            self._bar = tqdm.tqdm(total=total, unit="file", file=self.stream,
                                  desc="[coresc] annotating", dynamic_ncols=True,
                                  smoothing=0.1)

    def update(self, sentences: int) -> None:
        self.done += 1
        self.sentences += sentences
        if self._bar is not None:
            self._bar.set_postfix_str(f"{self.rate():,.0f} sentences/s", refresh=False)
            self._bar.update(1)
        elif self.mode == "lines":
            now = time.monotonic()
            if now - self._last >= self.every and self.done < self.total:
                self._last = now
                print(f"[coresc] {self.line()}", file=self.stream, flush=True)

    def rate(self) -> float:
        return self.sentences / max(time.monotonic() - self.start, 1e-9)

    def line(self) -> str:
        secs = time.monotonic() - self.start
        left = secs / max(self.done, 1) * (self.total - self.done)
        return (f"{self.done}/{self.total} files, {self.sentences:,} sentences, "
                f"{self.rate():,.0f} sentences/s, {_fmt(left)} left")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _fmt(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"

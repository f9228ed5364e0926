"""Progress lines of training and loading (stderr, never stdout)."""

from __future__ import annotations

import sys


def log(msg: str) -> None:
    """Progress goes to stderr, never stdout."""
    print(f"[coresc] {msg}", file=sys.stderr, flush=True)


def _fmt_time(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"

"""Small helpers shared by the experiment modules: progress lines, durations, JSON files."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _progress(msg: str) -> None:
    print(f"[coresc] {msg}", file=sys.stderr, flush=True)


def _fmt_duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False, default=str) + "\n",
                    encoding="utf-8")

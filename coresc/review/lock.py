"""The review lock: one ``coresc review`` per folder and annotator."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import UsageError
from .store import STATE_DIR


class Lock:
    """``.review/lock`` holding this process's id: one ``coresc review`` per folder and
    annotator. A lock left by a process that is gone (killed) is taken over."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / STATE_DIR / "lock"

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                pid = self._holder()
                if pid is not None and _alive(pid):
                    raise UsageError(f"{self.path.parent.parent}: another coresc review "
                                     f"(process {pid}) is using this folder for this "
                                     "annotator; stop it first") from None
                self.path.unlink(missing_ok=True)  # stale: its process is gone
                continue
            with os.fdopen(fd, "w") as fh:
                fh.write(f"{os.getpid()}\n")
            return
        raise UsageError(f"{self.path}: cannot take the review lock")

    def _holder(self) -> int | None:
        try:
            return int(self.path.read_text().strip())
        except (OSError, ValueError):
            return None

    def release(self) -> None:
        if self._holder() == os.getpid():
            self.path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True

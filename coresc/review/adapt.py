"""Switching to an adapted model while the review goes on.

``coresc train FILES --from MODEL -o DIR/ANNOTATOR-adapted-model`` runs as a child process
on the saved files of the papers with reviewed sentences (their gold is what a person
reviewed; see :mod:`.store`); MODEL is the model the review started with, so each
adaptation learns from all the reviewed papers at once instead of stacking on the last
one. When it succeeds, every sentence not yet reviewed gets the adapted model's labels;
reviewed sentences keep the person's.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..document import Paper
from ..errors import UsageError
from .store import ReviewStore

#: How many lines of the training's output are kept for the page.
LOG_LINES = 40


class Adapter:
    """One adaptation at a time; its state for ``GET /api/adapt``."""

    def __init__(self, store: ReviewStore, base_model: str, out: Path,
                 load: Callable[[str], Callable[[list[Paper]], None]]) -> None:
        self.store = store
        self.base_model = base_model
        self.out = out
        self.load = load
        self.state = "idle"
        self.message = ""
        self.log: list[str] = []
        self.command: list[str] = []
        self._lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def status(self) -> dict[str, Any]:
        return {"state": self.state, "message": self.message, "log": self.log[-LOG_LINES:],
                "command": self.command, "model": str(self.out)}

    def start(self) -> dict[str, Any]:
        """Start the training (unless one runs); :class:`UsageError` with nothing reviewed."""
        with self._lock:
            if self.state == "running":
                return self.status()
            if self.store.adjudicating:
                raise UsageError("an adjudication has no model to adapt: the labels are "
                                 "the annotators'")
            files = [str(r.out) for r in self.store.papers if r.decisions]
            if not files:
                raise UsageError("nothing reviewed yet: review some sentences before "
                                 "adapting the model")
            self.command = self.train_command(files)
            self.state, self.message, self.log = "running", "training", []
            self.thread = threading.Thread(target=self._run, daemon=True)
            self.thread.start()
            return self.status()

    def train_command(self, files: list[str]) -> list[str]:
        """``coresc train FILES --from MODEL -o OUT`` in this Python."""
        return [sys.executable, "-m", "coresc", "train", *files, "--from", self.base_model,
                "-o", str(self.out)]

    def _run(self) -> None:
        try:
            proc = subprocess.Popen(self.command, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
            for line in proc.stdout:
                if line.strip():
                    self.log.append(line.rstrip())
                    self.message = line.strip()[:200]
            if proc.wait() != 0:
                self._fail(self.log[-1] if self.log else f"coresc train exited {proc.returncode}")
                return
            self.message = "annotating the unreviewed sentences with the adapted model"
            changed = self.store.reannotate(self.load(str(self.out)), str(self.out))
            self.state = "done"
            self.message = (f"the adapted model ({self.out}) now labels the unreviewed "
                            f"sentences; {changed} of them changed their primary label")
        except Exception as exc:  # the page must hear of any failure, not a silent thread
            self._fail(f"{type(exc).__name__}: {exc}")

    def _fail(self, message: str) -> None:
        self.state, self.message = "failed", message

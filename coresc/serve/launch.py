"""Start ``coresc serve`` (or ``coresc review``) in a child process and wait until it
listens: for scripts that drive a real server (the tests, benchmarks/serve_load.py,
benchmarks/review_paint.py)."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

_LISTENING = re.compile(r"on (http://\S+/) ")


class Server:
    """A running ``coresc VERB --port 0 ARGS`` (VERB: serve, or review); ``url`` ends in
    ``/``. Use as a context manager: leaving it stops the server (SIGINT, as Ctrl-C) and
    its workers; :meth:`kill` ends it at once (SIGKILL, as a crash)."""

    def __init__(self, args: Sequence[str] = (), env: dict[str, str] | None = None,
                 start_timeout: float = 120.0, verb: str = "serve") -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "coresc", verb, "--port", "0", *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **(env or {})})
        self.lines: list[str] = []
        self.url = self._await_url(start_timeout)

    def _await_url(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        stream = self.process.stderr
        while time.monotonic() < deadline:
            ready, _, _ = select.select([stream], [], [], 0.5)
            if ready:
                line = stream.readline()
                if not line and self.process.poll() is not None:
                    break
                self.lines.append(line)
                found = _LISTENING.search(line)
                if found:
                    # keep reading its log, or a full pipe would stall the server
                    threading.Thread(target=self._drain, daemon=True).start()
                    return found.group(1)
        self.stop()
        raise RuntimeError("the server did not start: " + "".join(self.lines).strip())

    def _drain(self) -> None:
        for line in self.process.stderr:
            self.lines = [*self.lines[-500:], line]

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def kill(self) -> int:
        """End the server at once, as a crash would (no clean-up runs)."""
        self.process.kill()
        return self.process.wait()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

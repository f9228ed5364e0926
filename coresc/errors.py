"""Errors that the command line reports as one line, without a traceback."""

from __future__ import annotations

from pathlib import Path


class CorescError(Exception):
    """Base class for errors shown to the user as a single line."""


class InputError(CorescError):
    """A file that cannot be read as a paper: names the file and the problem."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


class UsageError(CorescError):
    """Arguments or configuration that do not make sense together."""


class OutputError(CorescError):
    """An output that cannot be written: names the path and the reason."""

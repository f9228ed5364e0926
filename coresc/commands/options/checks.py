"""The one rule every output option and bounded number meets before any work: the
``type=`` of such options (:class:`Output`, :class:`BoundedInt`, :class:`FiniteFloat`)
and :func:`check_arguments`, which :func:`coresc.cli.main` calls between parsing and
running."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Iterable
from pathlib import Path

from ...errors import UsageError

#: Folders no output belongs in: the kernel's views of processes and devices.
FORBIDDEN_ROOTS = (Path("/proc"), Path("/sys"))


class Output:
    """The ``type`` of an option naming what a verb writes: ``kind`` is "file",
    "folder" or "file or folder". Parsing keeps the text; :func:`check_arguments`
    checks it."""

    __name__ = "output"  # argparse names the type in its messages

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __call__(self, value: str) -> str:
        return value

    def __repr__(self) -> str:
        return f"Output({self.kind!r})"


OUTPUT_FILE = Output("file")
OUTPUT_DIR = Output("folder")
OUTPUT_ANY = Output("file or folder")


class BoundedInt:
    """The ``type`` of an integer option with a range (``high`` None: no upper bound)."""

    __name__ = "int"

    def __init__(self, low: int, high: int | None = None) -> None:
        self.low, self.high = low, high

    def __call__(self, value: str) -> int:
        return int(value)

    def check(self, flag: str, value: int) -> None:
        if value < self.low or (self.high is not None and value > self.high):
            wanted = (f"at least {self.low}" if self.high is None
                      else f"from {self.low} to {self.high}")
            raise UsageError(f"{flag} {value}: must be {wanted}")

    def __repr__(self) -> str:
        return f"BoundedInt({self.low}, {self.high})"


#: ``--budget``: papers to choose.
BUDGET = BoundedInt(1)


class FiniteFloat:
    """The ``type`` of a number option: NaN and the infinities are no setting (issue 42:
    ``--c1 nan`` passed every ``< 0`` test and was taken)."""

    __name__ = "float"

    def __call__(self, value: str) -> float:
        return float(value)

    def check(self, flag: str, value: float) -> None:
        if not math.isfinite(value):
            raise UsageError(f"{flag} {value}: must be a finite number")

    def __repr__(self) -> str:
        return "FiniteFloat()"


#: ``type=`` of every option that takes a number with a fraction.
FLOAT = FiniteFloat()


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Check a parsed verb's bounded numbers and output targets before any work.

    * an output may not be an empty or blank name, lie inside ``/proc`` or ``/sys``, sit
      under a file, be the wrong kind (a folder where a file is written, or the reverse),
      be in a folder that cannot be written, or be an input: by resolved path or as the
      same file (links count), a file inside an input folder counting as an input; every
      other argument naming an existing path is an input;
    * a number must lie in its range (``--budget`` >= 1, ...), and be finite.

    Raises :class:`UsageError` (one line, exit 2). ``tests/test_output_rule.py`` finds
    every verb's output options and runs each through the same hostile set.
    """
    outputs, inputs = [], []
    for action in parser._actions:
        value = getattr(args, action.dest, None)
        flag = action.option_strings[-1] if action.option_strings else action.dest
        if value is None:
            continue
        if isinstance(action.type, (BoundedInt, FiniteFloat)):
            for v in value if isinstance(value, list) else [value]:
                action.type.check(flag, v)
        elif isinstance(action.type, Output):
            outputs.append((flag, value, action.type.kind))
        else:
            inputs += [v for v in (value if isinstance(value, list) else [value])
                       if isinstance(v, str) and v not in ("", "-") and path_exists(v)]
    for flag, value, kind in outputs:
        check_output(flag, value, kind, inputs)


def check_output(flag: str, out: str, kind: str, inputs: Iterable[str | Path]) -> None:
    """One output target against the rule; :class:`UsageError` naming it when it breaks."""
    from ...batch.outputs import is_url
    from ...writers import STDOUT_NAMES, refuse_overwriting_inputs

    if kind != "folder" and out in STDOUT_NAMES:
        return
    if not out.strip():
        raise UsageError(f"{flag} {out!r}: an empty or blank name names no {kind}")
    if kind == "file or folder" and is_url(out):
        return  # a cluster's shared store (annotate --scheduler): checked where it is opened
    try:
        if "\0" in out:
            raise ValueError("a NUL character")
        os.fsencode(out)
    except (ValueError, UnicodeError) as exc:
        raise UsageError(f"{flag} {out!r}: not a file name ({exc})") from None
    path = Path(out)
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):  # a loop of links
        raise UsageError(f"{out}: cannot write (a loop of symbolic links)") from None
    for root in FORBIDDEN_ROOTS:
        if any(p == root or root in p.parents
               for p in (resolved, Path(os.path.abspath(out)))):
            raise UsageError(f"{out}: cannot write inside {root} (the kernel's view of the "
                             "system, not a place for output)")
    _check_kind(out, path, kind)
    _check_writable(out, resolved if path.is_dir() else resolved.parent)
    if path.is_dir():  # a verb writing into a folder checks the names it plans there
        return
    refuse_overwriting_inputs(out, inputs)


def _check_kind(out: str, path: Path, kind: str) -> None:
    from ...writers import check_output_path

    check_output_path(out)  # a file where a folder should be, names too long
    if kind == "file" and path.is_dir():
        raise UsageError(f"{out}: is a folder; a file is written here")
    if kind == "folder" and path.exists() and not path.is_dir():
        raise UsageError(f"{out}: exists and is not a folder")


def _check_writable(out: str, folder: Path) -> None:
    """The nearest existing folder on the way to ``out`` can be written in."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{out}: cannot write ({folder} is not writable)")


def path_exists(value: str) -> bool:
    """Whether ``value`` names anything, a dangling link included (False for a name no
    file can have)."""
    try:
        return os.path.lexists(value)
    except (OSError, ValueError):  # a NUL byte, a name too long
        return False

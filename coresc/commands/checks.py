"""What every verb's arguments must satisfy before any work starts.

A verb declares an option that names something it writes with ``type=OUTPUT_FILE``,
``OUTPUT_DIR`` or ``OUTPUT_ANY`` (a file or a folder, the verb decides), and a bounded
number with ``type=BoundedInt(low, high)``. :func:`check_arguments` (called by
:func:`coresc.cli.main` between parsing and running) applies one rule to them all, so a
verb cannot forget it and a bad target is refused before minutes of work, in one line
with exit 2:

* an output may not be an empty or blank name, lie inside ``/proc`` or ``/sys``, sit
  under a file, be the wrong kind (a folder where a file is written, or the reverse),
  be in a folder that cannot be written, or be an input (by resolved path or as the same
  file: links count; a file inside an input folder counts);
* a number must lie in its range (``--seed`` >= 0, ``--resamples`` 100..100000, ...).

``tests/test_output_rule.py`` finds every verb's output options and runs each through
the same hostile set.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from pathlib import Path

from ..errors import UsageError

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


#: ``--seed``: numpy's generators take no negative seed.
SEED = BoundedInt(0, 2**32 - 1)
#: ``--resamples``: fewer than 100 give no usable interval; the resampling tables grow
#: with it (10^7 needed 5.6 GB), so 100,000 (about 6 s and 60 MB) is the most.
RESAMPLES = BoundedInt(100, 100_000)
#: ``--budget``: papers to choose.
BUDGET = BoundedInt(1)


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Every bounded number and every output target of a parsed verb (see the module)."""
    outputs, inputs = [], []
    for action in parser._actions:
        value = getattr(args, action.dest, None)
        flag = action.option_strings[-1] if action.option_strings else action.dest
        if value is None:
            continue
        if isinstance(action.type, BoundedInt):
            for v in value if isinstance(value, list) else [value]:
                action.type.check(flag, v)
        elif isinstance(action.type, Output):
            outputs.append((flag, value, action.type.kind))
        else:
            inputs += [v for v in (value if isinstance(value, list) else [value])
                       if isinstance(v, str) and v not in ("", "-") and _exists(v)]
    for flag, value, kind in outputs:
        check_output(flag, value, kind, inputs)


def check_output(flag: str, out: str, kind: str, inputs: Iterable[str | Path]) -> None:
    """One output target against the rule; :class:`UsageError` naming it when it breaks."""
    from ..writers import STDOUT_NAMES, refuse_overwriting_inputs

    if kind != "folder" and out in STDOUT_NAMES:
        return
    if not out.strip():
        raise UsageError(f"{flag} {out!r}: an empty or blank name names no {kind}")
    path = Path(out)
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):  # a loop of links
        raise UsageError(f"{out}: cannot write (a loop of symbolic links)") from None
    for root in FORBIDDEN_ROOTS:
        if resolved == root or root in resolved.parents:
            raise UsageError(f"{out}: cannot write inside {root} (the kernel's view of the "
                             "system, not a place for output)")
    _check_kind(out, path, kind)
    _check_writable(out, resolved if path.is_dir() else resolved.parent)
    refuse_overwriting_inputs(out, inputs)


def _check_kind(out: str, path: Path, kind: str) -> None:
    from ..writers import check_output_path

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


def _exists(value: str) -> bool:
    try:
        return os.path.lexists(value)
    except (OSError, ValueError):  # a NUL byte, a name too long
        return False

"""Writers: turn annotated :class:`~coresc.document.Paper` objects into files.

Every file the tool writes goes through :func:`atomic_output`: the data is written to
a temporary file beside the target and renamed over it only when complete, so an
interrupted or failed run never leaves a half-written file, and an input file is
never overwritten.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from ..errors import UsageError


def refuse_overwriting_inputs(out: str | Path, inputs: Iterable[str | Path]) -> None:
    """Raise :class:`UsageError` when ``out`` is one of the input files."""
    target = Path(out).resolve()
    for inp in inputs:
        if Path(inp).resolve() == target:
            raise UsageError(f"{out}: output would overwrite an input file")


@contextlib.contextmanager
def atomic_output(path: str | Path, mode: str = "w",
                  encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file beside ``path``; rename it to ``path`` on success only."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        binary = "b" in mode
        with os.fdopen(fd, mode, encoding=None if binary else encoding,
                       newline=None if binary else "") as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise

"""The child process that reads one PDF: ``python -m coresc.readers.pdf.child WHAT
MEGABYTES SECONDS PARENT`` (started by :func:`coresc.readers.pdf.run_child`).

The whole reading happens here, not only PDFium's part: the glyphs (``extract.py``), and
for ``WHAT`` = ``parts`` the columns, reading order and structure (``layout.py``,
``structure.py``). A crash, a hang or a bomb in the C library, and a layout that a
hostile page makes slow or large, are then bounded alike, on every route (the command
line, its worker processes, Dask worker threads, ``serve``): the memory by
``RLIMIT_AS`` (``MEGABYTES``), the time by the parent's timeout and by this process's
own CPU-time limit (``RLIMIT_CPU``, a little over ``SECONDS``), and the process dies
with its parent (Linux's ``PR_SET_PDEATHSIG``; ``PARENT`` is the parent's process id,
to see whether it died before that took effect).

Reads the PDF's bytes on standard input and writes one JSON document on standard
output: ``{"pages": ...}`` (``extract.py``'s) for ``pages``, ``{"parts": [part, ...],
"n_pages": n, "counts": [characters, line length]}`` and extract's ``left_out`` and
``unmapped`` (a part as
:class:`~coresc.readers.pdf.structure.Part`'s fields; the counts as
:func:`~coresc.readers.pdf.quality.text_layer_counts` gives them) for ``parts``, or
``{"error": "one line"}``; for ``parts`` also ``glyphs``, each page's size, turn and
glyphs, from which :mod:`~coresc.readers.pdf.boxes` finds the sentences on the pages.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
from dataclasses import asdict

#: Seconds of CPU time the child may use beyond its wall-clock limit before the kernel
#: stops it (the parent's timeout normally comes first).
CPU_SLACK_S = 2

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Have the kernel kill this process when its parent ends (SIGTERM, SIGKILL, a
    crash); end now if the parent is already gone. Nothing where ``prctl`` is missing
    (not Linux): the CPU-time limit still ends the process."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return
    except (OSError, AttributeError, TypeError):  # TypeError: Windows has no CDLL(None)
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def limit_cpu(seconds: float) -> None:
    """At most ``seconds`` (rounded up, plus :data:`CPU_SLACK_S`) of CPU time: SIGXCPU,
    then SIGKILL a little later."""
    try:
        import resource
    except ImportError:  # Windows: the parent's timeout still holds
        return
    soft = math.ceil(seconds) + CPU_SLACK_S
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU,
                           (soft, soft + CPU_SLACK_S if hard == resource.RLIM_INFINITY
                            else hard))
    except (ValueError, OSError):
        pass


def limit_memory(megabytes: int) -> None:
    """At most ``megabytes`` of address space (``RLIMIT_AS``; never above the hard
    limit already set)."""
    try:
        import resource
    except ImportError:  # Windows: the parent's timeout still holds
        return
    limit = megabytes * 1024 * 1024
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):
        pass


def read(data: bytes, what: str) -> dict:
    """The answer for ``what`` (``pages`` or ``parts``) about a PDF's bytes."""
    from . import layout_parts
    from .extract import extract
    from .quality import text_layer_counts

    out = extract(data)
    if what == "pages":
        return out
    pages = out["pages"]
    parts = layout_parts(pages, out.get("outline"))
    return {"parts": [asdict(p) for p in parts], "n_pages": out["n_pages"],
            "counts": list(text_layer_counts(pages)),
            "glyphs": [{k: p[k] for k in ("w", "h", "turn", "glyphs", "xs")} for p in pages],
            **{k: out[k] for k in ("left_out", "unmapped") if k in out}}


def main() -> int:
    what, megabytes, seconds, parent = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), \
        int(sys.argv[4])
    die_with_parent(parent)
    limit_cpu(seconds)
    data = sys.stdin.buffer.read()
    import pypdfium2  # noqa: F401  (loaded before the cap: its library maps a lot)

    from .extract import ExtractError

    limit_memory(megabytes)
    try:
        out = read(data, what)
    except ExtractError as exc:
        out = {"error": str(exc)}
    except MemoryError:
        out = {"error": f"needs more than {megabytes} MB to read (a decompression bomb?)"}
    sys.stdout.write(json.dumps(out, ensure_ascii=True, separators=(",", ":")))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

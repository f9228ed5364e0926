"""PDFs read without a server: the text layer's glyphs laid out into a paper.

:func:`pdf_tree` reads a PDF's bytes into TEI that :func:`coresc.readers.read_pdf` makes
a :class:`~coresc.document.Paper` of. In a child process (``child.py``: a crash, a hang
or a bomb in the C library, and a page laid out slowly, stay there, bounded in time and
memory, and the child dies with its parent): PDFium (pypdfium2, a core dependency)
gives the glyphs with their positions and fonts (``extract.py``); ``layout.py`` and
``xycut.py`` find the columns and the reading order; ``structure.py`` the title,
abstract, headings, paragraphs and captions, leaving out running heads, authors, small
print, tables and back matter. Here, ``tei.py`` writes them as TEI of GROBID's shape,
which the TEI reader reads as it reads GROBID's. GROBID (``--grobid``) remains the
better reader where one runs: it is trained on the layouts of many publishers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from ...errors import InputError
from ...limits import TIMEOUT_ENV, PaperTimeout, paper_timeout
from .layout import Line, page_lines, restyle, run_body_size
from .margins import drop_line_numbers, repeated_margins
from .structure import Part, body_size, classify, make_blocks
from .tei import build_tei

#: What ``Paper.meta["pdf_reader"]`` and the TEI header name.
READER = "coresc-pdf (pypdfium2)"

#: Seconds (without a per-paper limit) and megabytes the child reading one PDF may take.
CHILD_SECONDS = 120.0
CHILD_MEGABYTES = 768
#: The child process's module (``python -m``).
CHILD_MODULE = "coresc.readers.pdf.child"

#: Set once the notice has been shown, so that worker processes do not show it again.
NOTICE_ENV = "CORESC_PDF_NOTICE_SHOWN"

__all__ = ["NOTICE_ENV", "READER", "extract_pages", "layout_parts", "pdf_notice", "pdf_reading",
           "pdf_tree", "run_child"]


def pdf_notice() -> None:
    """Say once per run, on standard error, which reader reads PDFs and what GROBID gives."""
    if os.environ.get(NOTICE_ENV):
        return
    os.environ[NOTICE_ENV] = "1"
    sys.stderr.write(f"coresc: PDFs are read by the embedded reader ({READER}); "
                     f"--grobid URL reads them with GROBID's structure instead\n")


def extract_pages(data: bytes, name: str | Path, timeout: float | None = None) -> dict:
    """The glyph runs of each page (``extract.py``'s JSON), read in a child process (see
    :func:`run_child`)."""
    return run_child(data, name, "pages", timeout)


def run_child(data: bytes, name: str | Path, what: str, timeout: float | None = None) -> dict:
    """``child.py``'s answer about a PDF (``what``: ``pages`` or ``parts``), read in a
    child process that may take ``timeout`` seconds (default: the per-paper time limit,
    else :data:`CHILD_SECONDS`) and :data:`CHILD_MEGABYTES` of memory, and that dies
    with this process. Raises :class:`InputError` with one line."""
    seconds, too_long = _time_limit(timeout)
    cmd = [sys.executable, "-m", CHILD_MODULE, what, str(CHILD_MEGABYTES), f"{seconds!r}",
           str(os.getpid())]
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[3])
    env["PYTHONPATH"] = package_root + os.pathsep + env.get("PYTHONPATH", "")
    try:
        done = subprocess.run(cmd, input=data, capture_output=True, env=env,
                              timeout=seconds, check=False)
    except subprocess.TimeoutExpired:
        raise PaperTimeout(name, too_long) from None
    if hasattr(signal, "SIGXCPU") and done.returncode == -signal.SIGXCPU:  # its CPU limit
        raise PaperTimeout(name, too_long)
    if done.returncode != 0:
        raise InputError(name, _child_failure(done.returncode, done.stderr))
    try:
        out = json.loads(done.stdout)
    except ValueError:
        raise InputError(name, "the PDF reader gave no answer (it stopped early)") from None
    if "error" in out:
        raise InputError(name, str(out["error"]))
    return out


def _time_limit(timeout: float | None) -> tuple[float, str]:
    """The seconds reading a PDF may take, and what to say when it takes longer."""
    if timeout is not None:
        return timeout, f"took longer than {timeout:g} s to read as a PDF"
    limit = paper_timeout()
    if limit:
        return limit, (f"took longer than {limit:g} s to read as a PDF (the limit: "
                       f"--paper-timeout or {TIMEOUT_ENV})")
    return CHILD_SECONDS, (f"took longer than {CHILD_SECONDS:g} s to read as a PDF (the "
                           f"embedded reader's limit; --paper-timeout sets another)")


def _child_failure(code: int, stderr: bytes) -> str:
    """The one line for a child that ended without its JSON: by signal, out of memory, or
    on an error of coresc's own reader (a bug, never the user's to fix)."""
    text = stderr.decode("utf-8", "replace").strip()
    last = (text.splitlines() or [""])[-1]
    if "No module named 'pypdfium2'" in last or "No module named pypdfium2" in last:
        return "reading PDFs needs pypdfium2: pip install pypdfium2 (or give --grobid URL)"
    if code == -signal.SIGKILL:
        return ("the PDF reader was killed (SIGKILL) from outside coresc (the system's "
                "out-of-memory killer, or a user): try again, or with more memory free")
    if code < 0 or "MemoryError" in last or "bad_alloc" in last:
        return (f"the PDF reader stopped on it ({_signal_name(-code) if code < 0 else 'memory'})"
                f": the PDF is damaged, or needs more than {CHILD_MEGABYTES} MB to read "
                f"(a decompression bomb?)")
    if "Traceback" in text:
        return (f"coresc's PDF reader failed on it ({last[:120]}): a bug in coresc, please "
                f"report it with the PDF; --grobid URL reads it with GROBID")
    return f"the PDF reader failed ({last[:120] or f'exit {code}'})"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def layout_parts(pages: list[dict], outline: list[list] | None = None):
    """The parts of the paper (:class:`~coresc.readers.pdf.structure.Part`) from the pages'
    runs, in reading order; ``outline``: the PDF's bookmarks, which name headings."""
    restyle(pages)
    drop_line_numbers(pages)
    size = run_body_size(pages)
    per_page = [page_lines(p, i, size) for i, p in enumerate(pages)]
    margins = repeated_margins(per_page, [p["h"] for p in pages])
    lines: list[Line] = [ln for page in per_page for ln in page if id(ln) not in margins
                         and not _line_number(ln)]
    body = body_size(lines)
    blocks = make_blocks(lines, body)
    return classify(blocks, body, outline)


def no_body_text(found: dict) -> str:
    """Why a PDF's text layer gave no body text, in one line: said outright when most of
    its characters come from fonts with no Unicode map (codes, not letters)."""
    unmapped = found.get("unmapped", 0)
    chars = found["counts"][0]
    if unmapped and 2 * unmapped >= chars:
        return (f"no body text found in the PDF's text layer: {unmapped:,} of its {chars:,} "
                f"characters are in fonts with no Unicode map (their letters are guessed "
                f"from glyph names or codes); run OCR on it (e.g. ocrmypdf --force-ocr), or "
                f"read it with --grobid")
    return "no body text found in the PDF's text layer"


def _line_number(line: Line) -> bool:
    """A line number in the margin, or another lone number (a page or equation number)."""
    text = line.text.strip("() ")
    return text.isdigit() and len(text) <= 4


def pdf_tree(data: bytes, name: str | Path, timeout: float | None = None):
    """A PDF's bytes as TEI of GROBID's shape (an lxml ``ElementTree``; see the module's
    docstring), which the TEI reader makes a paper of; what the reader left out, in its
    header's ``<note type="left-out">``. Raises :class:`InputError`."""
    return pdf_reading(data, name, timeout)[0]


def pdf_reading(data: bytes, name: str | Path, timeout: float | None = None):
    """:func:`pdf_tree`'s TEI, with the text layer's characters and the length of its
    lines (``quality.text_layer_counts``), from which the reading's quality is judged,
    and each page's glyphs (:mod:`~coresc.readers.pdf.boxes` finds sentences by them).
    Both come from the child (``child.py``): this process builds only the TEI."""
    found = run_child(data, name, "parts", timeout)
    parts = [Part(**p) for p in found["parts"]]
    if not any(p.kind == "para" for p in parts):
        raise InputError(name, no_body_text(found))
    text_chars, line_chars = found["counts"]
    tree = build_tei(parts, READER, found.get("left_out", ()))
    return tree, text_chars, line_chars, found.get("glyphs", [])

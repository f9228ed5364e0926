"""PDFs read without a server: the text layer's glyphs laid out into a paper.

:func:`pdf_tree` reads a PDF's bytes into TEI that :func:`coresc.readers.read_pdf` makes
a :class:`~coresc.document.Paper` of: PDFium
(pypdfium2, a core dependency) gives the glyphs with their positions and fonts in a child
process (``extract.py``: a crash, a hang or a bomb in the C library stays there, bounded
in time and memory); ``layout.py`` and ``xycut.py`` find the columns and the reading
order;
``structure.py`` the title, abstract, headings, paragraphs and captions, leaving out
running heads, authors, small print, tables and back matter; ``tei.py`` writes them as
TEI of GROBID's shape, which the TEI reader reads as it reads GROBID's. GROBID
(``--grobid``) remains the better reader where one runs: it is trained on the layouts of
many publishers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from ...errors import InputError
from ...limits import paper_timeout
from .layout import (
    Line,
    drop_line_numbers,
    page_lines,
    repeated_margins,
    restyle,
    run_body_size,
)
from .quality import text_layer_counts
from .structure import body_size, classify, make_blocks
from .tei import build_tei

#: What ``Paper.meta["pdf_reader"]`` and the TEI header name.
READER = "coresc-pdf (pypdfium2)"

#: Seconds and megabytes the child reading one PDF may take.
CHILD_SECONDS = 120.0
CHILD_MEGABYTES = 768

#: Set once the notice has been shown, so that worker processes do not show it again.
NOTICE_ENV = "CORESC_PDF_NOTICE_SHOWN"

__all__ = ["NOTICE_ENV", "READER", "extract_pages", "layout_parts", "pdf_notice", "pdf_reading",
           "pdf_tree"]


def pdf_notice() -> None:
    """Say once per run, on standard error, which reader reads PDFs and what GROBID gives."""
    if os.environ.get(NOTICE_ENV):
        return
    os.environ[NOTICE_ENV] = "1"
    sys.stderr.write(f"coresc: PDFs are read by the embedded reader ({READER}); "
                     f"--grobid URL reads them with GROBID's structure instead\n")


def extract_pages(data: bytes, name: str | Path, timeout: float | None = None) -> dict:
    """The glyph runs of each page (``extract.py``'s JSON), read in a child process that
    may take ``timeout`` seconds (default: the per-paper time limit, at most
    :data:`CHILD_SECONDS`)."""
    if timeout is None:  # the per-paper limit (--paper-timeout), when it is shorter
        timeout = min(paper_timeout() or CHILD_SECONDS, CHILD_SECONDS)
    cmd = [sys.executable, "-m", "coresc.readers.pdf.extract", str(CHILD_MEGABYTES)]
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[3])
    env["PYTHONPATH"] = package_root + os.pathsep + env.get("PYTHONPATH", "")
    try:
        done = subprocess.run(cmd, input=data, capture_output=True, env=env,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise InputError(name, f"took longer than {timeout:g} s to read as a PDF (the "
                               f"limit: --paper-timeout, at most {CHILD_SECONDS:g} s)") from None
    if done.returncode != 0:
        raise InputError(name, _child_failure(done.returncode, done.stderr))
    try:
        out = json.loads(done.stdout)
    except ValueError:
        raise InputError(name, "the PDF reader gave no answer (it stopped early)") from None
    if "error" in out:
        raise InputError(name, str(out["error"]))
    return out


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
    chars = sum(len(r[6].replace(" ", "")) for page in found["pages"] for r in page["runs"])
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
    lines (``quality.text_layer_counts``), from which the reading's quality is judged."""
    found = extract_pages(data, name, timeout)
    pages = found["pages"]
    parts = layout_parts(pages, found.get("outline"))
    if not any(p.kind == "para" for p in parts):
        raise InputError(name, no_body_text(found))
    return (build_tei(parts, READER, found.get("left_out", ())), *text_layer_counts(pages))

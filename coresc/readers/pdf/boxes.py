"""Each sentence of a paper read from a PDF, found on its pages: one box per line
fragment, so that writers can highlight it (``annotate --to pdf``), give its GROBID
``coords`` (TEI) and draw it over the rendered page (``view``, ``review``).

The reading (``child.py``) gives each page's glyphs with their edges, in content order
(``extract.py``'s ``glyphs``). A sentence's text, made from the same glyphs by the
layout, the TEI and the splitter, is matched against them after both are normalised to
letters and digits only (casefolded, accents and ligatures taken apart): hyphens at line
ends, spaces and punctuation then agree whatever the layout did with them. The match
goes on from where the last sentence ended, and jumps where the text does (the next
column, the next page, over a figure's caption or a superscript the sentence left out).
"""

from __future__ import annotations

import base64
import unicodedata
from array import array
from collections.abc import Iterable

from ...document import FORMULA_TEXT, PDF_PAGES, Paper

#: Letters a piece of a sentence is looked for by, at most; a shorter rest of a sentence
#: is looked for whole.
PROBE = 16
#: Normalised characters ahead of the last match searched first (the same column and
#: the next); further away, the whole document is searched.
NEAR = 4_000
#: Occurrences of a probe compared, at most, when it is found more than once far away.
MAX_CANDIDATES = 64

__all__ = ["locate_sentences", "norm"]


def norm(text: str) -> str:
    """``text`` as letters and digits only: casefolded, accents and ligatures taken apart."""
    out = unicodedata.normalize("NFKD", text).casefold()
    return "".join(ch for ch in out if ch.isalnum())


def _norm_char(ch: str) -> str:
    """:func:`norm` of one character, quick for ASCII (most of a paper's millions)."""
    if ch.isascii():
        return ch.lower() if ch.isalnum() else ""
    return norm(ch)


class _Stream:
    """The document's glyphs as one normalised string, each of its characters pointing
    at its glyph: its run (line) and the glyph's edges, kept in arrays (a document of
    millions of characters takes a few bytes each)."""

    def __init__(self, pages: list[dict]) -> None:
        chars: list[str] = []
        self.run = array("l")  # each character's run
        self.x = array("f")  # each character's left and right edges in turn
        self.lines: list[tuple[int, float, float]] = []  # each run's page, y0, y1
        for page, found in enumerate(pages):
            edges = array("f", base64.b64decode(found.get("xs", "")))
            k = 0
            for y0, y1, text in found.get("glyphs", ()):
                run = len(self.lines)
                self.lines.append((page, y0, y1))
                for ch in text:
                    for c in _norm_char(ch):
                        chars.append(c)
                        self.run.append(run)
                        self.x.extend(edges[2 * k:2 * k + 2])
                    k += 1
        self.text = "".join(chars)


def _common(a: str, i: int, b: str, j: int) -> int:
    """How many characters ``a[i:]`` and ``b[j:]`` share at their start (compared in
    halving steps: a long sentence is matched in a few slices, not letter by letter)."""
    n, step = 0, 64
    while step:
        piece = a[i + n:i + n + step]
        if len(piece) == step and piece == b[j + n:j + n + step]:
            n += step
        else:
            step //= 2
    return n


def _find(stream: str, want: str, q: int, cursor: int) -> tuple[int, int]:
    """Where ``want[q:]`` goes on in ``stream``: the start and length of its longest
    match, near ``cursor`` first; ``(-1, 0)`` when its next letters are nowhere. A
    shorter probe, looked for near the cursor only, finds a piece cut short by
    something the page has and the sentence has not (a formula's glyphs)."""
    probe = want[q:q + PROBE]
    at = _near(stream, probe, cursor)
    if at < 0:
        at = _far(stream, want, q, probe)
    for size in (8, 4):
        if at >= 0 or len(probe) <= size:
            break
        at = _near(stream, want[q:q + size], cursor)
    return (at, _common(want, q, stream, at)) if at >= 0 else (-1, 0)


def _near(stream: str, probe: str, cursor: int) -> int:
    if stream.startswith(probe, cursor):
        return cursor
    return stream.find(probe, cursor, cursor + NEAR + len(probe))


def _far(stream: str, want: str, q: int, probe: str) -> int:
    """The occurrence of ``probe`` anywhere in ``stream`` that goes on longest as
    ``want[q:]`` does (the first :data:`MAX_CANDIDATES` looked at)."""
    best, best_n, start = -1, 0, 0
    for _ in range(MAX_CANDIDATES):
        at = stream.find(probe, start)
        if at < 0:
            break
        n = _common(want, q, stream, at)
        if n > best_n:
            best, best_n = at, n
        start = at + 1
    return best


def _pieces(stream: str, want: str, cursor: int) -> tuple[list[tuple[int, int]], int]:
    """The spans of ``stream`` that make up ``want``, and where the match ended."""
    spans: list[tuple[int, int]] = []
    q = 0
    while q < len(want):
        at, n = _find(stream, want, q, cursor)
        if at < 0 or n == 0:
            q += 1  # a letter the page does not have (a formula's, a layout's guess)
            continue
        spans.append((at, at + n))
        q += n
        cursor = at + n
    return spans, cursor


def _boxes(stream: _Stream, spans: Iterable[tuple[int, int]]) -> list[tuple]:
    """One box ``(page, x0, y0, x1, y1)`` per line fragment the spans cover: glyphs of one
    run joined, and runs side by side on one line; a jump between spans starts a new box,
    so that what lies between (a superscript the sentence left out) is not covered."""
    boxes: list[list] = []
    last_run, last_end = -1, -1
    for a, b in spans:
        jumped = a != last_end
        last_end = b
        for i in range(a, b):
            run, x0, x1 = stream.run[i], stream.x[2 * i], stream.x[2 * i + 1]
            if run == last_run and not jumped:
                box = boxes[-1]
                box[1], box[3] = min(box[1], x0), max(box[3], x1)
                continue
            page, y0, y1 = stream.lines[run]
            if boxes and not jumped and _beside(boxes[-1], page, x0, y0, y1):
                box = boxes[-1]
                box[2], box[3], box[4] = min(box[2], y0), max(box[3], x1), max(box[4], y1)
            else:
                boxes.append([page, x0, y0, x1, y1])
            last_run, jumped = run, False
    return [(box[0], *(round(v, 1) for v in box[1:])) for box in boxes]


def _beside(box: list, page: int, x0: float, y0: float, y1: float) -> bool:
    """Whether a run starting at ``x0`` goes on the line of ``box`` (same page, the same
    height, a gap of at most two line heights to its right)."""
    height = box[4] - box[2]
    overlap = min(box[4], y1) - max(box[2], y0)
    return (box[0] == page and overlap > 0.5 * min(height, y1 - y0)
            and -1 <= x0 - box[3] <= 2 * height)


def locate_sentences(paper: Paper, pages: list[dict]) -> None:
    """Give each sentence of ``paper`` its boxes (``Sentence.boxes``) on ``pages`` (the
    reading's ``glyphs``, see the module's docstring), and ``paper.meta``'s
    :data:`~coresc.document.PDF_PAGES` the pages' sizes and turns."""
    stream = _Stream(pages)
    cursor = 0
    for sent in paper.sentences():
        want = norm(sent.text.replace(FORMULA_TEXT, " "))
        if not want:
            continue
        spans, cursor = _pieces(stream.text, want, cursor)
        sent.boxes = tuple(_boxes(stream, spans))
    paper.meta[PDF_PAGES] = [[p["w"], p["h"], *p.get("turn", (0, 1.0))] for p in pages]

"""Split a paragraph element's text into sentences and wrap each in a new ``<s>`` element.

The readers for sources without sentence markup (JATS, Elsevier) call
:func:`wrap_sentences` on each paragraph-like element. Its content is flattened (inline
markup such as ``italic``, ``xref``, ``sup`` contributes its text), the flat text is split
by :mod:`coresc.split`, and the element's content is rebuilt with one ``<s>`` per
sentence around exactly the text and inline elements of that sentence. Whitespace between
sentences stays outside the ``<s>`` elements. A boundary that would fall inside an inline
element moves to after it, so no inline element is ever cut.

Block children (display formulas, nested lists, figures...) are never put inside an
``<s>``: they end the run of text before them and are returned to the caller in their
place, which decides whether to read them (nested paragraphs) or skip them (formulas).

The invariant the writers and the pre-split reader rely on: ``clean_text`` of all the
character data inside each new ``<s>`` equals the sentence text returned for it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass

from lxml import etree

from ..split import split_offsets


@dataclass
class _Piece:
    kind: str  # "text", "inline" or "block"
    start: int  # offset in the run's flat text
    end: int
    text: str = ""
    el: etree._Element | None = None


class _Appender:
    """Appends text and elements to a parent in document order (text or last tail)."""

    def __init__(self, parent: etree._Element) -> None:
        self.parent = parent
        self.last: etree._Element | None = None

    def text(self, s: str) -> None:
        if not s:
            return
        if self.last is None:
            self.parent.text = (self.parent.text or "") + s
        else:
            self.last.tail = (self.last.tail or "") + s

    def element(self, el: etree._Element) -> None:
        self.parent.append(el)
        self.last = el


def flat_text(el: etree._Element) -> str:
    """An element's character data, markup dropped (its own tail excluded)."""
    if not isinstance(el.tag, str):
        return ""  # comments and processing instructions carry no text
    # the text serialiser gives "".join(el.itertext(tag=etree.Element)) ten times faster
    return etree.tostring(el, method="text", encoding=str, with_tail=False)


def _runs(container: etree._Element, is_block: Callable[[etree._Element], bool],
          text_of: Callable[[etree._Element], str] = flat_text,
          ) -> list[list[_Piece] | etree._Element]:
    """The container's content as text runs (lists of pieces) and block elements.

    ``text_of`` gives an inline child's text as the splitter should see it (a reader
    may show a formula as a placeholder); the element itself is moved, never rewritten.
    """
    runs: list[list[_Piece] | etree._Element] = []
    run: list[_Piece] = []
    pos = 0

    def add_text(s: str | None) -> None:
        nonlocal pos
        if s:
            run.append(_Piece("text", pos, pos + len(s), text=s))
            pos += len(s)

    add_text(container.text)
    for child in container:
        if isinstance(child.tag, str) and is_block(child):
            runs.append(run)
            runs.append(child)
            run, pos = [], 0
        else:
            t = text_of(child)
            run.append(_Piece("inline", pos, pos + len(t), text=t, el=child))
            pos += len(t)
        add_text(child.tail)
    runs.append(run)
    return runs


def _spans(flat: str, pieces: list[_Piece], split: bool) -> list[tuple[int, int]]:
    """Sentence spans of a run, moved so that no inline element is cut.

    A boundary inside an inline element moves to after it; if what follows then cannot
    start a sentence (lower case, punctuation), the boundary is dropped instead.
    """
    stripped = flat.strip()
    if not stripped:
        return []
    first = len(flat) - len(flat.lstrip())
    last = first + len(stripped)
    raw = split_offsets(flat) if split else [(first, last)]
    inlines = [p for p in pieces if p.kind == "inline" and p.end > p.start]
    cuts = []
    for _, b in raw[:-1]:
        for p in inlines:
            if p.start < b < p.end:
                b = p.end
                rest = flat[b:].lstrip()[:1]
                if not rest or rest.islower() or rest in ",;:)]":
                    b = -1
                break
        if b > (cuts[-1] if cuts else first) and b < last:
            cuts.append(b)
    bounds = [first, *cuts, last]
    spans = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        a = _skip_space(flat, a, b, inlines)
        if flat[a:b].strip():
            spans.append((a, b))
    return spans


def _skip_space(flat: str, a: int, b: int, inlines: list[_Piece]) -> int:
    """Move a span start past whitespace that lies in plain text (not in an element)."""
    while a < b and flat[a].isspace() and not any(p.start <= a < p.end for p in inlines):
        a += 1
    return a


def _emit(pieces: list[_Piece], lo: int, hi: int, out: _Appender, last: bool,
          ends: list[int] | None = None) -> None:
    """Move the content in ``[lo, hi)`` of a run to ``out`` (``last``: run's final range).

    ``ends`` (the pieces' end offsets, non-decreasing) lets the scan skip the pieces
    that end before ``lo``: they contribute nothing to the range.
    """
    first = bisect_left(ends, lo) if ends is not None else 0
    for i in range(first, len(pieces)):
        p = pieces[i]
        if p.start > hi:
            break  # pieces are in order: nothing later starts inside [lo, hi]
        if p.kind == "text":
            a, b = max(lo, p.start), min(hi, p.end)
            if a < b:
                out.text(p.text[a - p.start:b - p.start])
        elif lo <= p.start < hi or (last and p.start == hi):
            out.element(p.el)


def wrap_sentences(container: etree._Element, is_block: Callable[[etree._Element], bool],
                   split: bool = True,
                   text_of: Callable[[etree._Element], str] = flat_text,
                   ) -> list[tuple[str, etree._Element]]:
    """Wrap the sentences of ``container`` in new ``<s>`` elements, in place.

    Returns the content in reading order as ``("s", element)`` for each new sentence
    element and ``("block", element)`` for each block child. ``split=False`` wraps each
    run whole (a title is one sentence). The ``<s>`` elements get no ``sid``: the reader
    numbers them over the whole document. ``text_of``: see :func:`_runs`.
    """
    runs = _runs(container, is_block, text_of)
    ns = container.nsmap.get(None)
    s_tag = f"{{{ns}}}s" if ns else "s"
    for child in list(container):  # the runs hold every tail, so detach them all
        container.remove(child)
        child.tail = None
    container.text = None
    out = _Appender(container)
    items: list[tuple[str, etree._Element]] = []
    for run in runs:
        if isinstance(run, etree._Element):
            out.element(run)
            items.append(("block", run))
            continue
        flat = "".join(p.text for p in run)
        spans = _spans(flat, run, split)
        ends = [p.end for p in run]
        pos = 0
        for a, b in spans:
            _emit(run, pos, a, out, False, ends)
            s = etree.Element(s_tag)
            _emit(run, a, b, _Appender(s), False, ends)
            out.element(s)
            items.append(("s", s))
            pos = b
        _emit(run, pos, len(flat), out, True, ends)
    return items


"""The parts of a paper read from its PDF, as TEI of the shape GROBID writes: the title
in the header, the abstract (with its headed parts) in ``profileDesc``, the body as
nested ``div`` elements with ``head`` (a heading's number in ``@n``), ``p`` paragraphs,
sections after the references (appendices, online methods) in ``back/div[@type="annex"]``,
and each caption as a ``figure`` (its label as ``head``, its text as ``figDesc``) where
the reader met it. The TEI reader then reads it as it reads GROBID's, so a PDF's
sentences, sections and features are made by the same code whichever route read it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from lxml import etree

from ...tei import TEI_NS
from .extract import SUP_CLOSE, SUP_OPEN
from .layout import unmark
from .structure import Part

_T = f"{{{TEI_NS}}}"
# Characters XML cannot hold (controls, lone surrogates, U+FFFE/FFFF), dropped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _sub(parent: etree._Element, name: str, text: str | None = None, **attrs: str):
    el = etree.SubElement(parent, _T + name, {k: v for k, v in attrs.items() if v})
    if text is not None:
        el.text = _NOT_XML.sub("", unmark(text))
    return el


_SUP = re.compile(f"{SUP_OPEN}(.*?){SUP_CLOSE}", re.S)
# Superscript numbers that cite: "12", "3,5", "4-7", "22, 25, 38" (not "-3" or "2" of a unit).
_CITES = re.compile(r"^\s*\d{1,3}(?:\s*[,\u2013\u2014-]\s*\d{1,3})*\s*$")
_UNIT = re.compile(r"(?:^|\W)(?:[mkcµunp]?m|[mkµ]?[gls]|mol|h|R|r|x|n|p|[A-Z][a-z]?\d*|\d)$")


#: How much of the text before a superscript is looked at to tell a unit's power ("m2")
#: from a citation: a unit is a short word; a longer window would make a paragraph of
#: many superscripts quadratic.
_UNIT_WINDOW = 64


def _marked_text(el: etree._Element, text: str) -> None:
    """``text`` into ``el``, each superscript citation number as ``<ref type="bibr">`` (as
    GROBID marks citations) and other superscripts as plain text."""
    text = _NOT_XML.sub("", text)
    pieces: list[str] = []  # text since the last ref: set once, as el's text or its tail
    last: etree._Element | None = None
    before = ""  # the end of the plain text so far (see _UNIT_WINDOW)
    seen = 0  # plain characters so far
    pos = 0

    def close(ref: etree._Element | None) -> etree._Element | None:
        if last is None:
            el.text = "".join(pieces)
        else:
            last.tail = "".join(pieces) or None
        pieces.clear()
        return ref

    for m in _SUP.finditer(text):
        plain, inner = unmark(text[pos:m.start()]), m.group(1)
        pieces.append(plain)
        bare = _bare(plain)  # unmark() leaves a stray close mark: the window must not
        seen += len(bare)
        before = (before + bare)[-_UNIT_WINDOW:]
        # "^" must not match where the window was cut: a letter stands in for the rest
        window = before if seen <= _UNIT_WINDOW else "a" + before
        if _CITES.match(inner) and not _UNIT.search(window):
            for k, piece in enumerate(re.split(r"(\d+)", inner)):
                if k % 2:
                    last = close(etree.SubElement(el, _T + "ref", type="bibr"))
                    last.text = piece
                else:
                    pieces.append(piece)
        else:
            pieces.append(unmark(inner))
        bare = _bare(inner)
        seen += len(bare)
        before = (before + bare)[-_UNIT_WINDOW:]
        pos = m.end()
    pieces.append(unmark(text[pos:]))
    close(None)


def _bare(text: str) -> str:
    return text.replace(SUP_OPEN, "").replace(SUP_CLOSE, "")


def _add(where: etree._Element, part: Part) -> None:
    if part.kind == "para":
        _marked_text(_sub(where, "p"), part.text)
    elif part.kind == "caption":
        figure = _sub(where, "figure")
        if part.label:
            _sub(figure, "head", part.label)
        if part.text:
            _marked_text(_sub(figure, "figDesc"), part.text)


#: The type of the header's notes that say what the PDF reader left out.
LEFT_OUT = "left-out"


def build_tei(parts: list[Part], reader: str,
              left_out: Iterable[str] = ()) -> etree._ElementTree:
    """A TEI document holding ``parts`` (``reader`` names the PDF reader in the header;
    ``left_out``: lines saying what it did not read, as header notes)."""
    root = etree.Element(_T + "TEI", nsmap={None: TEI_NS})
    header = _sub(root, "teiHeader")
    file_desc = _sub(header, "fileDesc")
    stmt = _sub(file_desc, "titleStmt")
    title = next((p.text for p in parts if p.kind == "title"), "")
    if title:
        _sub(stmt, "title", title, level="a", type="main")
    notes = list(left_out)
    if notes:
        held = _sub(file_desc, "notesStmt")
        for note in notes:
            _sub(held, "note", note, type=LEFT_OUT)
    app = _sub(_sub(_sub(header, "encodingDesc"), "appInfo"), "application", ident=reader)
    _sub(app, "label", reader)
    profile = _sub(header, "profileDesc")
    text = _sub(root, "text")
    body = _sub(text, "body")
    abstract: etree._Element | None = None
    in_abstract: etree._Element | None = None  # where abstract text goes
    stack: list[tuple[int, etree._Element]] = []  # open body divs: (level, element)
    in_back = False
    for part in parts:
        if part.kind == "title":
            continue
        if part.kind == "abstract":
            abstract = in_abstract = _sub(profile, "abstract")
            continue
        if part.zone == "abstract" and abstract is not None:
            if part.kind == "heading":
                in_abstract = _sub(abstract, "div")
                _sub(in_abstract, "head", part.text)
            else:
                _add(in_abstract, part)
            continue
        if part.zone == "back" and not in_back:  # after the references: GROBID's annex
            body, stack, in_back = _sub(_sub(text, "back"), "div", type="annex"), [], True
        if part.kind == "heading":
            while stack and (stack[-1][0] >= part.level or not stack[-1][0]):
                stack.pop()
            div = _sub(stack[-1][1] if stack else body, "div")
            _sub(div, "head", part.text, n=part.number)
            stack.append((part.level, div))
        else:
            if not stack:  # text before any heading: a div with no head, as GROBID has it
                stack.append((0, _sub(body, "div")))  # (a figure in it stays in its place)
            _add(stack[-1][1], part)
    return etree.ElementTree(root)


def note_quality(tree: etree._ElementTree, quality: dict) -> None:
    """The reading's quality figures (:mod:`~coresc.readers.pdf.quality`) as a note in
    the TEI header's ``fileDesc/notesStmt``, as JSON."""
    file_desc = tree.getroot().find(f"{_T}teiHeader/{_T}fileDesc")
    if file_desc is None:
        return
    notes = file_desc.find(_T + "notesStmt")
    if notes is None:
        notes = _sub(file_desc, "notesStmt")
    _sub(notes, "note", json.dumps(quality, sort_keys=True), type="reading-quality")

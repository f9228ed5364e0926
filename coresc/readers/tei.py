"""Reader for TEI XML as GROBID writes it (the usual route from a PDF), and for the TEI
that coresc writes back.

What is read, in reading order:

* the title: ``teiHeader/fileDesc/titleStmt/title`` (``type="main"`` first), one sentence;
* the abstract: ``teiHeader/profileDesc/abstract`` (and an abstract in ``text/front``),
  its paragraphs, and its headed ``div`` parts as sub-sections of type ``abstract``;
* the body: ``div``/``head`` give the sections. GROBID writes its sections flat and
  keeps their numbers in ``head/@n`` ("2.1"), so the number gives the depth (2.1 lies
  under the last 2) and is never part of the heading; an unnumbered ``div`` among
  numbered ones is a sibling of the section before it, and a ``div`` without ``head``
  continues it. Nested ``div`` elements nest. ``p``, list items and quotes give the
  paragraphs; a body paragraph that starts like a caption ("Figure 2: ...", which GROBID
  sometimes leaves in the text) is a caption;
* captions: each ``figure``'s ``head`` (unless it is only a label such as "Table 1:")
  and ``figDesc`` are caption sentences, read where the figure sits. GROBID puts its
  figures and tables after the last section: they form a section "Figures and tables".

* back sections: each ``back/div[@type="annex"]`` (appendices, online methods: the
  paper's own text after its references) is read as the body is, after it.

Not read: the rest of ``back`` (acknowledgements, references), notes (footnotes), table
cells, and the header's metadata (authors, affiliations, keywords, dates).

Formulas show as ``[formula]`` in a sentence's text. A display formula that sits inside a
sentence ("... is defined as <formula/> where x is ...": the paragraph before it does
not end a sentence, or the one after it carries on in lower case) is moved into the
paragraph before it, and a paragraph that carries on is joined to it, so the sentence is
read whole. ``ref type="bibr"`` counts citations.

Sentences: GROBID's own ``<s>`` elements (its ``segmentSentences`` option) are kept as
they are; text outside them, and every paragraph without them, is split by
:mod:`coresc.split` and wrapped in new ``<s n="N">`` elements. A sentence's ``sid`` is
its number in reading order (the ``n`` of the ones coresc wraps). CoreSC labels that
coresc wrote on an ``<s>`` (see :mod:`coresc.tei`) are read back: with scores as
predictions, without as gold.
"""

from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from ..document import FORMULA_TEXT, Label, Paper, Prediction, clean_text
from ..errors import InputError
from ..tei import read_labels
from ..xmlsafe import localname
from . import paper_id_from_path
from ._build import SplitState, finish

#: Children of a paragraph that end its text run (never part of a new sentence).
BLOCK_TAGS = frozenset({"p", "ab", "list", "figure", "table", "div", "s", "lg", "quote",
                        "floatingText", "listBibl"})
#: Never read as text (beyond the blocks above).
SKIPPED = frozenset({"head", "note", "formula", "table", "listBibl", "bibl", "biblStruct",
                     "graphic", "label", "back", "desc"})
#: Inline elements whose text is not part of the sentence (footnotes).
SILENT = frozenset({"note"})

# A float head that is only its label: "Figure 1:", "Table 2 :", "Fig. 3.", "".
# (in the languages the PDF reader knows captions in: "Abbildung 1:", "Рис. 1:", "图 1:")
_FLOAT_LABEL = re.compile(r"^(?:(?:fig(?:ure)?|figura|figuur|abb(?:ildung)?|tab(?:le|ela|la|"
                          r"elle|leau|ella|el)?|quadro|cuadro|gr[áa]fico|scheme|chart|plate|"
                          r"box|algorithm|рис(?:унок)?|таблица|图|表|図)s?"
                          r"\.?\s*[A-Z]?\d*[A-Za-z]?\s*[:.|]?)?$", re.I)
# A body paragraph that is a caption GROBID did not recognise: "Figure 2: The model".
_CAPTION_START = re.compile(r"^(?:fig(?:ure)?\.?|table)\s*\d+[a-z]?\s*[:.]\s", re.I)
# GROBID's section numbers: "2", "2.1", "2.1.", "A.3", "IV".
_SECTION_NUMBER = re.compile(r"^[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*\.?$")
_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*$")


def tei_text(el: etree._Element) -> str:
    """An element's text as a sentence shows it: formulas as ``[formula]``, notes dropped."""
    if not isinstance(el.tag, str):
        return ""
    name = localname(el)
    if name == "formula":
        return FORMULA_TEXT
    if name in SILENT:
        return ""
    parts = [el.text or ""]
    for child in el:
        parts.append(tei_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _is_block(el: etree._Element) -> bool:
    return localname(el) in BLOCK_TAGS


def _child(el: etree._Element | None, name: str) -> etree._Element | None:
    if el is None:
        return None
    return next((c for c in el if localname(c) == name), None)


def _has_s(el: etree._Element) -> bool:
    return next(el.iter("{*}s"), None) is not None


class _TeiState(SplitState):
    """Sentence building with TEI's text (formula placeholders), ``n`` numbers and the
    CoreSC labels coresc wrote on an existing ``<s>``."""

    text_of = staticmethod(tei_text)
    sid_attr = "n"

    def labels_of(self, s: etree._Element) -> tuple[list[Label], list[Prediction]]:
        return read_labels(s)


# ------------------------------------------------------------------ formulas


def _element_sibling(el: etree._Element, forward: bool) -> etree._Element | None:
    sib = el.getnext() if forward else el.getprevious()
    while sib is not None and not isinstance(sib.tag, str):
        sib = sib.getnext() if forward else sib.getprevious()
    return sib


def _plain_p(el: etree._Element | None) -> bool:
    return el is not None and localname(el) == "p" and not _has_s(el)


def _continues(text: str) -> bool:
    """Whether a paragraph's text carries on a sentence ("where x is ...", ", and ...")."""
    first = text.lstrip()[:1]
    return bool(first) and (first.islower() or first in ",;:.)]")


def _append_text(p: etree._Element, text: str) -> None:
    if len(p):
        p[-1].tail = (p[-1].tail or "") + text
    else:
        p.text = (p.text or "") + text


def _last_text(p: etree._Element) -> str:
    return (p[-1].tail or "") if len(p) else (p.text or "")


def join_formulas(container: etree._Element) -> None:
    """Move each display formula that sits inside a sentence into the paragraph before it.

    The paragraph after the formula is joined too when it carries the sentence on.
    Paragraphs GROBID already split into ``<s>`` are left alone.
    """
    for f in [c for c in container if localname(c) == "formula"]:
        prev = _element_sibling(f, forward=False)
        if not _plain_p(prev):
            continue
        nxt = _element_sibling(f, forward=True)
        carry_on = _plain_p(nxt) and _continues(tei_text(nxt))
        if _SENTENCE_END.search(tei_text(prev).rstrip()) and not carry_on:
            continue
        if f.tail and f.tail.strip():
            prev.tail = (prev.tail or "") + f.tail
        container.remove(f)
        if _last_text(prev)[-1:] not in ("", " ", "\n", "\t"):
            _append_text(prev, " ")
        f.tail = None
        prev.append(f)
        if carry_on:
            _append_text(prev, " " + (nxt.text or "").lstrip())
            for child in list(nxt):
                prev.append(child)  # moves the child with its tail
            if nxt.tail and nxt.tail.strip():
                prev.tail = (prev.tail or "") + nxt.tail
            container.remove(nxt)


# ------------------------------------------------------------------ reading


class _Reader:
    def __init__(self) -> None:
        self.state = _TeiState()
        self.open_at: dict[int, int] = {}  # depth -> last flat section opened at it
        self.last_flat: int | None = None
        self.floats: int | None = None  # the open "Figures and tables" section

    # -- containers ----------------------------------------------------------------
    def container(self, el: etree._Element, zone: str, outer: int | None) -> None:
        """Read the block content of ``el`` (body, div, abstract, figDesc, list ...)."""
        join_formulas(el)
        for child in el:
            if isinstance(child.tag, str):
                self.block(child, zone, outer)

    def block(self, el: etree._Element, zone: str, outer: int | None) -> None:
        name = localname(el)
        if name in ("p", "ab", "item"):
            self.paragraph(el, zone)
        elif name == "div":
            self.section(el, zone, outer)
        elif name == "figure":
            self.figure(el)
        elif name == "s":
            self.state.add_s(el, zone, el, existing=True)
        elif name == "quote" and not any(localname(c) in ("p", "ab", "lg") for c in el):
            self.paragraph(el, zone)
        elif name not in SKIPPED:
            self.container(el, zone, outer)  # lists, quotes, line groups, unknown wrappers

    def paragraph(self, p: etree._Element, zone: str, split: bool = True) -> None:
        if zone == "body" and _CAPTION_START.match(clean_text(tei_text(p))):
            zone = "caption"
        self.state.paragraph(p, zone, _is_block, lambda b: self.inner_block(b, zone, p), split)

    def inner_block(self, el: etree._Element, zone: str, p: etree._Element) -> None:
        """A block inside a paragraph: an existing sentence, a float or nested content."""
        if localname(el) == "s":
            self.state.add_s(el, zone, p, existing=True)
        else:
            self.block(el, zone, self.state.current)

    # -- sections ------------------------------------------------------------------
    def section(self, div: etree._Element, zone: str, outer: int | None) -> None:
        st = self.state
        head = _child(div, "head")
        if head is None:  # a headless div continues the section it follows
            self.container(div, zone, outer)
            return
        heading = clean_text(tei_text(head))
        if zone == "abstract":
            depth, parent, stype = st.builder.sections[outer].depth + 1, outer, "abstract"
        elif outer is None:
            depth, parent = self._flat_place(head.get("n"))
            stype = None
        else:
            depth, parent, stype = st.builder.sections[outer].depth + 1, outer, None
        idx = st.open(heading, stype, depth, parent)
        if outer is None and zone != "abstract":
            self.last_flat = idx
            self.open_at[depth] = idx
            for d in [d for d in self.open_at if d > depth]:
                del self.open_at[d]
        self.container(div, zone, idx)
        st.enter(idx if outer is None else outer)

    def _flat_place(self, number: str | None) -> tuple[int, int | None]:
        """Depth and parent of a top-level ``div`` from GROBID's number (``n="2.1"``)."""
        number = (number or "").strip()
        if number and _SECTION_NUMBER.match(number):
            depth = number.rstrip(".").count(".") + 1
        elif self.last_flat is not None:
            depth = self.state.builder.sections[self.last_flat].depth
        else:
            depth = 1
        return depth, self.open_at.get(depth - 1) if depth > 1 else None

    # -- floats --------------------------------------------------------------------
    def figure(self, fig: etree._Element) -> None:
        """A figure or table: its head (unless only a label) and figDesc are captions."""
        for child in fig:
            name = localname(child)
            if name == "head" and not _FLOAT_LABEL.match(clean_text(tei_text(child))):
                self.paragraph(child, "caption")
            elif name == "figDesc":
                if any(localname(c) in ("p", "div", "s") for c in child):
                    self.container(child, "caption", self.state.current)
                else:
                    self.paragraph(child, "caption")
            elif name == "figure":
                self.figure(child)

    def body(self, body: etree._Element) -> None:
        join_formulas(body)
        for child in body:
            if not isinstance(child.tag, str):
                continue
            if localname(child) == "figure":
                if self.floats is None:  # floats GROBID moved after the sections
                    self.floats = self.state.open("Figures and tables", "other", 1, None)
                self.state.enter(self.floats)
                self.figure(child)
            elif localname(child) in ("div", "p", "ab", "list", "quote", "s"):
                if self.floats is not None:
                    self.state.enter(self.last_flat)
                self.floats = None
                self.block(child, "body", None)

    # -- front matter --------------------------------------------------------------
    def title(self, header: etree._Element | None) -> None:
        stmt = _child(_child(header, "fileDesc"), "titleStmt")
        titles = [t for t in (stmt if stmt is not None else []) if localname(t) == "title"
                  and clean_text(tei_text(t))]
        if not titles:
            return
        title = next((t for t in titles if t.get("type") == "main"), titles[0])
        self.state.open("Title", "title", 0, None)
        self.paragraph(title, "title", split=False)
        self.state.enter(None)

    def abstracts(self, root: etree._Element) -> None:
        found = root.findall("{*}teiHeader/{*}profileDesc/{*}abstract")
        front = _child(_child(root, "text"), "front")
        if front is not None:
            found += [el for el in front.iter("{*}abstract", "{*}div")
                      if localname(el) == "abstract" or el.get("type") == "abstract"]
        for abstract in found:
            idx = self.state.open("Abstract", "abstract", 0, None)
            self.container(abstract, "abstract", idx)
        self.state.enter(None)


def read_tei(path: str | Path, tree: etree._ElementTree) -> Paper:
    """Read a parsed TEI document (GROBID's or coresc's), wrapping new sentences in ``<s n>``."""
    root = tree.getroot()
    if localname(root) == "teiCorpus":
        raise InputError(path, "a teiCorpus (several TEI documents in one file) is not "
                               "read; give one TEI file per paper")
    paper = Paper(id=paper_id_from_path(path), source_format="tei",
                  source_path=str(path), tree=tree)
    reader = _Reader()
    reader.title(_child(root, "teiHeader"))
    reader.abstracts(root)
    text = _child(root, "text")
    body = _child(text, "body")
    if body is not None:
        reader.body(body)
    back = _child(text, "back")
    for annex in back if back is not None else ():
        if isinstance(annex.tag, str) and localname(annex) == "div" and \
                annex.get("type") == "annex":
            reader.body(annex)
    return finish(paper, reader.state)

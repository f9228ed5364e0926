"""Reader for documents whose sentences are already marked up as ``<s>``.

This covers the ART corpus (SciXML, ``annotationART`` wrapping each sentence), the
Multi-CoreSC / SAPIENTA mode2 format (empty ``CoreSc1``..``CoreSc3`` elements inside the
``<s>``, before a ``<text>`` child or mixed into the text) in its SciXML-like and
JATS-like layouts, and SAPIENTA's output for the OA-STM papers, whose headings are
bare text between sentences.

Structure is read from whatever surrounds the sentences:

* section containers (``DIV``, ``SEC``, ``sec``, ``section``) open a section whose
  heading is their first heading child (``HEADER``, ``TITLE``, ``title``, ``h1``-``h6``);
* flat headings (``h2``-``h6`` after the first child, as in the CRA corpus) open a
  subsection that lasts until the next flat heading or the container's end;
* ``TITLE`` under the root and ``article-title`` under ``title-group`` are the title,
  ``ABSTRACT``/``abstract`` the abstract;
* the nearest ``P``/``p`` ancestor is a sentence's paragraph (ART nests ``P``);
* ``caption`` (and ``fig``/``table-wrap``) mark caption sentences;
* bare text between sentences directly inside ``BODY`` is a heading.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lxml import etree

from ..citations import count_citations_markup, count_citations_text
from ..document import (
    Label,
    Paper,
    Paragraph,
    Prediction,
    Section,
    Sentence,
    clean_text,
    heading_type,
    prune_sections,
)
from ..xmlsafe import localname
from . import paper_id_from_path

SECTION_TAGS = {"DIV", "SEC", "sec", "section", "abstract-sec"}
HEADING_TAGS = {"HEADER", "TITLE", "title", "section-title", "h1", "h2", "h3", "h4", "h5",
                "h6"}
FLAT_HEADING_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
ABSTRACT_TAGS = {"ABSTRACT", "abstract", "AbstractText"}
PARA_TAGS = {"P", "p", "region", "para", "simple-para"}
CAPTION_TAGS = {"caption", "CAPTION", "fig", "table-wrap", "TABLE", "FIGURE"}
BARE_HEADING_PARENTS = {"BODY", "body", "OTHER"}
LABEL_TAGS = {"CoreSc1": 1, "CoreSc2": 2, "CoreSc3": 3}
MAX_BARE_HEADING_WORDS = 12


def _own_elements(s: etree._Element) -> Iterator[etree._Element]:
    """The elements inside an ``<s>``, but not inside an ``<s>`` nested in it (whose
    text is part of the outer sentence, as the TEI reader has it, and labels are not)."""
    for child in s:
        if localname(child) == "s":
            continue
        yield child
        yield from _own_elements(child)


def _label_elements(s: etree._Element) -> list[etree._Element]:
    """``annotationART`` / ``CoreSc1``..``CoreSc3`` elements of an ``<s>``, by rank."""
    ranked = []
    for el in _own_elements(s):
        name = localname(el)
        rank = 1 if name == "annotationART" else LABEL_TAGS.get(name)
        if rank is not None and el.get("type"):
            ranked.append((rank, el))
    ranked.sort(key=lambda pair: pair[0])
    return [el for _, el in ranked]


def _score(el: etree._Element) -> float | None:
    try:
        return float(el.get("score"))
    except (TypeError, ValueError):
        return None


def sentence_labels(s: etree._Element) -> tuple[list[Label], list[Prediction]]:
    """Gold labels and predictions inside an ``<s>``, ranked.

    Labels that carry a numeric ``score`` attribute were written by ``coresc annotate``
    and read back as predictions; all other ``annotationART``/``CoreSc*`` are gold.
    """
    els = _label_elements(s)
    scores = [_score(el) for el in els]
    if els and all(sc is not None for sc in scores):
        return [], [Prediction(el.get("type"), sc) for el, sc in zip(els, scores, strict=True)]
    gold = [Label(code=el.get("type"), concept_id=el.get("conceptID"),
                  novelty=el.get("novelty"), advantage=el.get("advantage")) for el in els]
    return gold, []


def withheld_label(s: etree._Element) -> Prediction | None:
    """The label ``annotate --min-score`` kept back from an ``<s>`` (``CoreScWithheld``)."""
    for el in _own_elements(s):
        if localname(el) == "CoreScWithheld" and el.get("type") and _score(el) is not None:
            return Prediction(el.get("type"), _score(el))
    return None


def marked_no_label(s: etree._Element) -> bool:
    """Whether a person marked an ``<s>`` as having no CoreSC label (``CoreScNone``)."""
    return any(localname(el) == "CoreScNone" for el in _own_elements(s))


def sentence_text(s: etree._Element) -> str:
    """All character data of the sentence, inline markup flattened."""
    return clean_text("".join(s.itertext(tag=(etree.Element,))) if len(s) else (s.text or ""))


class _Builder:
    """Collects sections, paragraphs and sentences while the tree is walked."""

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.stack: list[int] = []  # open section containers, innermost last
        self.current: int | None = None
        self.last_para_key: dict[int, object] = {}

    def open(self, heading: str, stype: str | None, depth: int, parent: int | None) -> int:
        if stype is None:
            stype = heading_type(heading)
            if stype == "other" and parent is not None:
                stype = self.sections[parent].type
        self.sections.append(Section(heading=heading, type=stype, depth=depth, parent=parent))
        self.current = len(self.sections) - 1
        return self.current

    def add(self, sentence: Sentence, para_key: object) -> None:
        if self.current is None:
            self.open("", "other", 1, None)
        sec = self.sections[self.current]
        if self.last_para_key.get(self.current) is not para_key or not sec.paragraphs:
            sec.paragraphs.append(Paragraph())
            self.last_para_key[self.current] = para_key
        sec.paragraphs[-1].sentences.append(sentence)

    def pruned(self) -> list[Section]:
        """Sections that hold sentences or enclose some, with parents remapped."""
        return prune_sections(self.sections)


def _heading_of(container: etree._Element) -> tuple[str, etree._Element | None]:
    for child in container:
        if localname(child) in HEADING_TAGS:
            return clean_text("".join(child.itertext(tag=(etree.Element,)))), child
        if localname(child) not in ("label", "LABEL"):
            break
    return "", None


def _is_paper_title(el: etree._Element) -> bool:
    name = localname(el)
    parent = el.getparent()
    pname = localname(parent) if parent is not None else ""
    return ((name == "TITLE" and pname in ("PAPER", ""))
            or (name == "article-title" and pname == "title-group")
            or (name == "title" and pname == "head"))  # Elsevier ce:title in head


def _zone(ancestors: list[str]) -> str:
    if any(a in CAPTION_TAGS for a in ancestors):
        return "caption"
    if "title" in ancestors:
        return "title"
    if "abstract" in ancestors:
        return "abstract"
    return "body"


def read_presplit(path: str | Path, tree: etree._ElementTree) -> Paper:
    """Read a parsed pre-split document into a :class:`Paper`."""
    builder = _Builder()
    root = tree.getroot()
    container_of: dict[etree._Element, int] = {}  # section container -> its section index
    markers: list[str] = []  # "title" / "abstract" / caption tags currently open
    n_auto = 0
    inside: etree._Element | None = None  # the open <s>: nothing inside it is structure

    for event, el in etree.iterwalk(root, events=("start", "end")):
        name = localname(el)
        if not name or (inside is not None and el is not inside):
            continue  # a nested <s> is part of the sentence around it (text merged)
        if event == "start":
            if name == "s":
                n_auto += 1
                builder.add(_sentence(el, markers, n_auto), _para_key(el))
                inside = el
                continue
            _open_structure(builder, el, name, container_of, markers)
        else:
            inside = None  # this end is the open <s>'s, if any: those inside it were skipped
            _close_structure(builder, el, name, container_of, markers)
            if name == "s":
                _bare_heading(builder, el.tail, el.getparent())
        if name in BARE_HEADING_PARENTS and event == "start":
            _bare_heading(builder, el.text, el)

    sections = builder.pruned()
    title = " ".join(s.text for sec in sections if sec.type == "title" for s in sec.sentences())
    mode2 = root.find("mode2")
    paper = Paper(
        id=paper_id_from_path(path),
        title=title,
        source_format="art" if next(root.iter("annotationART"), None) is not None else "mode2",
        source_path=str(path),
        sections=sections,
        tree=tree,
    )
    if mode2 is not None and mode2.get("name"):
        paper.meta["mode2_name"] = mode2.get("name")
    return paper


def _para_key(s: etree._Element) -> object:
    el = s.getparent()
    while el is not None:
        if localname(el) in PARA_TAGS:
            return el
        if localname(el) in SECTION_TAGS or localname(el) in ABSTRACT_TAGS:
            return el
        el = el.getparent()
    return None


def _sentence(s: etree._Element, markers: list[str], index: int) -> Sentence:
    text = sentence_text(s)
    cites = count_citations_markup(s)
    gold, pred = sentence_labels(s)
    return Sentence(
        sid=s.get("sid") or str(index),
        text=text,
        zone=_zone(markers),
        n_citations=count_citations_text(text) if cites is None else cites,
        gold=gold,
        pred=pred,
        withheld=None if pred else withheld_label(s),
        no_label=not gold and not pred and marked_no_label(s),
        element=s,
    )


def _open_structure(builder: _Builder, el, name: str, container_of, markers) -> None:
    parent = builder.stack[-1] if builder.stack else None
    if _is_paper_title(el):
        markers.append("title")
        builder.open("Title", "title", 0, None)
    elif name in ABSTRACT_TAGS:
        markers.append("abstract")
        idx = builder.open("Abstract", "abstract", 0, None)
        builder.stack.append(idx)
        container_of[el] = idx
    elif name in SECTION_TAGS:
        heading, _ = _heading_of(el)
        depth = 1 + sum(1 for i in builder.stack if builder.sections[i].depth > 0)
        # Parts of a structured abstract are still abstract, whatever their heading.
        stype = "abstract" if "abstract" in markers else None
        idx = builder.open(heading, stype, depth, parent)
        builder.stack.append(idx)
        container_of[el] = idx
    elif name in FLAT_HEADING_TAGS and builder.stack:
        owner = builder.stack[-1]
        _, first = _heading_of(el.getparent())
        if first is not el:
            sec = builder.sections[owner]
            text = clean_text("".join(el.itertext(tag=(etree.Element,))))
            builder.open(text, None, sec.depth + 1, owner)
    elif name in CAPTION_TAGS:
        markers.append(name)


def _close_structure(builder: _Builder, el, name: str, container_of, markers) -> None:
    if _is_paper_title(el):
        markers.remove("title")
        builder.current = builder.stack[-1] if builder.stack else None
    elif el in container_of:
        if name in ABSTRACT_TAGS:
            markers.remove("abstract")
        builder.stack.pop()
        builder.current = builder.stack[-1] if builder.stack else None
    elif name in CAPTION_TAGS:
        markers.remove(name)


def _bare_heading(builder: _Builder, text: str | None, parent) -> None:
    """SAPIENTA's OA-STM output keeps headings as bare text between sentences."""
    if not text or not text.strip() or parent is None:
        return
    if localname(parent) not in BARE_HEADING_PARENTS:
        return
    line = clean_text(text.strip().splitlines()[0])
    if not line or len(line.split()) > MAX_BARE_HEADING_WORDS:
        return
    stype = heading_type(line)
    top = [i for i, s in enumerate(builder.sections) if s.depth == 1]
    if stype == "other" and top:
        builder.open(line, None, 2, top[-1])
    else:
        builder.open(line, stype, 1, None)

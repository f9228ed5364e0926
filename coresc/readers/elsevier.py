"""Reader for Elsevier full-text XML (``xocs:doc`` / ``ja:article`` with ``ce:`` content).

What is read, in reading order:

* the title: ``ce:title`` in the article's ``head`` (one sentence);
* the author abstract: ``ce:abstract`` with ``class="author"`` (or no class), its
  ``ce:abstract-sec`` parts and ``ce:simple-para`` paragraphs. Highlights
  (``author-highlights``), graphical abstracts and teasers are not the paper's prose:
  they are skipped and named in ``Paper.meta["skipped_abstracts"]``;
* the body: ``ce:sections`` / ``ce:section`` / ``ce:section-title`` nesting gives the
  sections, ``ce:para`` the paragraphs (theorems ``ce:enunciation``, lists and text
  boxes are read too), then the appendices (``ce:appendices``, type ``appendix``);
* captions: figures and tables live apart in ``ce:floats``; each float's ``ce:caption``
  (and table ``ce:legend``) is read right after the paragraph holding its first
  ``ce:float-anchor``, so caption sentences sit in the section that shows the float.
  Floats never anchored come last, in a section "Figures and tables".

Skipped: acknowledgements, the bibliography and everything in ``tail``, display
formulas, table bodies, footnotes. ``ce:cross-ref(s)`` to bibliography entries count
citations. Each sentence is wrapped in a new ``<s sid="N">`` inserted into the tree
(in the document's default namespace, so it serialises as a plain ``<s>``).
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from ..document import Paper, clean_text
from ..xmlsafe import localname
from . import paper_id_from_path
from ._build import NestedReader, finish

ARTICLE_TAGS = ("article", "simple-article", "converted-article", "book-review", "exam")
#: Children of a paragraph that end its text run and are not part of any sentence.
BLOCK_TAGS = frozenset({
    "para", "simple-para", "display", "list", "def-list", "enunciation", "displayed-quote",
    "textbox", "figure", "table", "formula", "footnote", "e-component", "section",
    "nomenclature", "glossary", "bibliography", "preformat", "float-anchor-group",
})
PARA_TAGS = frozenset({"para", "simple-para"})
CAPTIONED = frozenset({"figure", "table", "e-component", "chem", "textbox"})
#: Never read: labels, formulas, notes, table bodies, back matter.
SKIPPED = frozenset({
    "section-title", "label", "formula", "footnote", "bibliography", "acknowledgment",
    "tgroup", "link", "table-footnote", "inter-ref", "alt-text", "source", "keywords",
    "further-reading", "glossary", "nomenclature", "biography",
})
MAIN_ABSTRACT_CLASSES = (None, "", "author")


def _is_block(el: etree._Element) -> bool:
    return localname(el) in BLOCK_TAGS


def _child(el: etree._Element, name: str) -> etree._Element | None:
    return next((c for c in el if localname(c) == name), None)


def _text(el: etree._Element | None) -> str:
    return "" if el is None else clean_text("".join(el.itertext(tag=(etree.Element,))))


class _Reader(NestedReader):
    def __init__(self, floats: dict[str, etree._Element]) -> None:
        super().__init__()
        self.floats = floats  # id -> float element not read yet

    def block(self, el: etree._Element, zone: str) -> None:
        name = localname(el)
        if name == "section" or name == "abstract-sec":
            self.section(el, zone)
        elif name in PARA_TAGS:
            self.paragraph(el, zone)
        elif name in CAPTIONED:
            self.captioned(el, zone)
        elif name == "display":
            for child in el:
                if localname(child) in CAPTIONED:
                    self.captioned(child, zone)
        elif name not in SKIPPED:
            self.container(el, zone)  # sections, list items, enunciations, textbox bodies

    def section(self, sec: etree._Element, zone: str, stype: str | None = None) -> None:
        if zone == "abstract":
            stype = "abstract"
        self.nested(sec, _text(_child(sec, "section-title")), stype, zone)

    def paragraph(self, para: etree._Element, zone: str) -> None:
        anchors = [a.get("refid") for a in para.iter("{*}float-anchor")]
        self.state.paragraph(para, zone, _is_block, lambda block: self.block(block, zone))
        for refid in anchors:
            fl = self.floats.pop(refid, None)
            if fl is not None:
                self.captioned(fl, zone)

    def captioned(self, el: etree._Element, zone: str) -> None:
        """A float: its caption (and table legend) paragraphs are caption sentences."""
        if localname(el) == "textbox":
            body = _child(el, "textbox-body")
            if body is not None:
                self.container(body, zone)
        for child in el:
            if localname(child) in ("caption", "legend"):
                for part in child:
                    if localname(part) in PARA_TAGS:
                        self.state.paragraph(part, "caption", _is_block,
                                             lambda block: self.block(block, "caption"))

    def head(self, head: etree._Element, paper: Paper) -> None:
        title = _child(head, "title")
        if title is not None:
            self.state.title(title, _is_block)
        skipped = []
        for abstract in head.iter("{*}abstract"):
            kind = abstract.get("class")
            if kind not in MAIN_ABSTRACT_CLASSES:
                skipped.append(kind)
                continue
            self.stack = [self.state.open("Abstract", "abstract", 0, None)]
            for part in abstract:
                if localname(part) == "abstract-sec":
                    # A single untitled part is the whole abstract, not a sub-section.
                    if _child(part, "section-title") is None or len(abstract) <= 2:
                        self.container(part, "abstract")
                    else:
                        self.section(part, "abstract")
            self.stack = []
        if skipped:
            paper.meta["skipped_abstracts"] = skipped
        self.state.enter(None)

    def body(self, body: etree._Element) -> None:
        for child in body:
            name = localname(child)
            if name == "sections":
                self.container(child, "body")
            elif name == "appendices":
                for sec in child:
                    if localname(sec) == "section":
                        self.section(sec, "body", "appendix")
            self.state.enter(None)


def _article(root: etree._Element) -> etree._Element:
    if localname(root) in ARTICLE_TAGS:
        return root
    return next(root.iter(*(f"{{*}}{tag}" for tag in ARTICLE_TAGS)), root)


def read_elsevier(path: str | Path, tree: etree._ElementTree) -> Paper:
    """Read a parsed Elsevier full-text document, wrapping each sentence in ``<s sid>``."""
    article = _article(tree.getroot())
    paper = Paper(id=paper_id_from_path(path), source_format="elsevier",
                  source_path=str(path), tree=tree)
    floats = {}
    for fl_group in (c for c in article if localname(c) == "floats"):
        for fl in fl_group:
            if isinstance(fl.tag, str) and fl.get("id"):
                floats[fl.get("id")] = fl
    reader = _Reader(floats)
    head = _child(article, "head")
    if head is not None:
        reader.head(head, paper)
    body = _child(article, "body")
    if body is not None:
        reader.body(body)
    if reader.floats:  # floats no paragraph points at
        reader.state.open("Figures and tables", "other", 1, None)
        for fl in list(reader.floats.values()):
            reader.captioned(fl, "body")
    return finish(paper, reader.state)

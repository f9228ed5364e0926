"""Reader for JATS / NLM articles (PubMed Central ``.nxml``, eLife, PLoS, BMC).

What is read, in reading order:

* the title: ``article-title`` in the article's own ``title-group`` (one sentence);
* the main abstract(s): ``abstract`` without ``abstract-type``, with its ``sec``
  parts as sub-sections of type ``abstract``. Other abstracts (eLife's digest
  ``executive-summary``, PLoS's author ``summary``, ``teaser``, ``toc``) re-tell the
  abstract for lay readers and are not part of the paper's argument: they are skipped
  and named in ``Paper.meta["skipped_abstracts"]``;
* the body: ``sec``/``title`` nesting gives the sections (depth 1 at the top; a
  heading that says nothing inherits its parent's type), ``p`` the paragraphs, and the
  ``caption`` (title and paragraphs) of each ``fig``, ``table-wrap`` and
  ``supplementary-material`` gives caption sentences, in the section where the float
  sits. ``boxed-text``, lists and quotes are read like the body.

Skipped: ``back`` (acknowledgements, references, footnotes, appendices), every
``sub-article`` (eLife's peer reviews and author responses), display formulas, table
bodies. Inline markup (``italic``, ``sup``, ``xref``, ``inline-formula`` ...) is
flattened into the sentence text; ``xref ref-type="bibr"`` counts citations.

Each sentence is wrapped in a new ``<s sid="N">`` inserted into the tree.
"""

from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from ..document import Paper, clean_text
from ..xmlsafe import localname
from . import paper_id_from_path
from ._build import NestedReader, finish
from .jats_meta import article_meta
from .pmc import jats_licence

#: Children of a paragraph that end its text run and are not part of any sentence.
BLOCK_TAGS = frozenset({
    "p", "sec", "list", "def-list", "disp-quote", "boxed-text", "fig", "fig-group",
    "table-wrap", "table-wrap-group", "supplementary-material", "disp-formula",
    "disp-formula-group", "table", "graphic", "media", "preformat", "code", "array",
    "chem-struct-wrap", "statement", "speech", "verse-group", "fn", "fn-group",
    "ref-list", "alternatives", "attrib", "permissions",
})
#: Floats whose caption is read.
CAPTIONED = frozenset({"fig", "table-wrap", "supplementary-material", "fig-group",
                       "table-wrap-group", "chem-struct-wrap"})
#: Never read (beyond the blocks above): labels, formulas, tables, notes.
SKIPPED = frozenset({
    "title", "label", "disp-formula", "disp-formula-group", "table", "graphic", "media",
    "preformat", "code", "array", "fn", "fn-group", "ref-list", "alternatives", "attrib",
    "permissions", "sub-article", "response", "table-wrap-foot", "object-id", "sec-meta",
    "tex-math", "inline-graphic",
})


# eLife ends captions and sections with a paragraph holding only the part's DOI ("DOI:
# ..."), PLOS's early papers their captions with the bare DOI.
_DOI_ONLY = re.compile(r"^\s*(?:DOI:\s*\S+|(?:doi:\s*)?10\.\d{4,}/\S+)\s*$")


def _is_doi_line(p: etree._Element) -> bool:
    return bool(_DOI_ONLY.match("".join(p.itertext(tag=(etree.Element,)))))


def _is_block(el: etree._Element) -> bool:
    return localname(el) in BLOCK_TAGS


def _title_text(el: etree._Element | None) -> str:
    return "" if el is None else clean_text("".join(el.itertext(tag=(etree.Element,))))


def _child(el: etree._Element, name: str) -> etree._Element | None:
    return next((c for c in el if localname(c) == name), None)


class _Reader(NestedReader):
    # -- containers ----------------------------------------------------------------
    def section(self, sec: etree._Element, zone: str) -> None:
        title = _title_text(_child(sec, "title"))
        if zone == "abstract" and not title:
            # a part of the abstract with no title (PLOS Medicine's pointer to the
            # Editors' Summary) is no section its reader sees: it carries on the part
            # before it
            outer = self.state.current
            self.state.enter(len(self.state.builder.sections) - 1)
            self.container(sec, zone)
            self.state.enter(outer)
            return
        self.nested(sec, title, "abstract" if zone == "abstract" else None, zone)

    def paragraph(self, p: etree._Element, zone: str) -> None:
        if _is_doi_line(p):
            return
        self.state.paragraph(p, zone, _is_block, lambda block: self.block(block, zone))

    def block(self, el: etree._Element, zone: str) -> None:
        """One block element: a section, paragraph or float, or a container of them
        (list, list-item, disp-quote, def-list ...); skipped matter is left out."""
        name = localname(el)
        if name == "p":
            self.paragraph(el, zone)
        elif name == "sec":
            self.section(el, zone)
        elif name in CAPTIONED or name == "boxed-text":
            self.captioned(el, zone)
        elif name not in SKIPPED:
            self.container(el, zone)

    def captioned(self, el: etree._Element, zone: str) -> None:
        """A float: its caption's title and paragraphs are caption sentences."""
        for child in el:
            name = localname(child)
            if name == "caption":
                for part in child:
                    if localname(part) in ("title", "p") and not _is_doi_line(part):
                        self.state.paragraph(part, "caption", _is_block,
                                             lambda block: self.block(block, "caption"))
            elif name in CAPTIONED:
                self.captioned(child, zone)
            elif localname(el) == "boxed-text" and name in ("sec", "p", "list"):
                self.block(child, zone)

    # -- front matter --------------------------------------------------------------
    def front(self, root: etree._Element, paper: Paper) -> None:
        meta = root.find("front/article-meta")
        if meta is None:
            return
        title = meta.find("title-group/article-title")
        if title is not None:
            self.state.title(title, _is_block)
        skipped = []
        for abstract in meta.findall("abstract"):
            kind = abstract.get("abstract-type")
            if kind:
                skipped.append(kind)
                continue
            self.stack = [self.state.open("Abstract", "abstract", 0, None)]
            self.container(abstract, "abstract")
            self.stack = []
        if skipped:
            paper.meta["skipped_abstracts"] = skipped
        self.state.enter(None)


def read_jats(path: str | Path, tree: etree._ElementTree) -> Paper:
    """Read a parsed JATS/NLM article, wrapping each sentence in a new ``<s sid>``."""
    root = tree.getroot()
    paper = Paper(id=paper_id_from_path(path), source_format="jats",
                  source_path=str(path), tree=tree)
    paper.meta.update(article_meta(root))  # identifiers, journal, year: provenance
    paper.meta.update(jats_licence(root))  # its licence (--licence)
    reader = _Reader()
    reader.front(root, paper)
    body = _child(root, "body")
    if body is not None:
        reader.container(body, "body")
    floats = _child(root, "floats-group")
    if floats is not None:  # floats kept apart from the body: their captions come last
        reader.state.open("Figures and tables", "other", 1, None)
        reader.container(floats, "body")
    return finish(paper, reader.state)

"""Shared state of the readers that split sentences themselves (JATS, Elsevier, TEI).

Wraps the pre-split reader's section builder with sentence numbering: every sentence
wrapped in a new ``<s>`` gets ``sid`` 1..n over the document in reading order.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from lxml import etree

from ..citations import count_citations_markup, count_citations_text
from ..document import Label, Paper, Prediction, Sentence, clean_text
from ._wrap import flat_text, wrap_sentences
from .presplit import _Builder


class SplitState:
    """Sections being built plus the running sentence number.

    ``text_of(element)`` is an element's text as a sentence shows it (default: all its
    character data); ``sid_attr`` is the attribute that numbers each new ``<s>``.
    """

    text_of: Callable[[etree._Element], str] = staticmethod(flat_text)
    sid_attr = "sid"

    def __init__(self) -> None:
        self.builder = _Builder()
        self.n = 0

    def open(self, heading: str, stype: str | None, depth: int, parent: int | None) -> int:
        """Open a section (``stype=None``: from the heading, else inherited) and enter it."""
        return self.builder.open(heading, stype, depth, parent)

    def enter(self, index: int | None) -> None:
        """Make ``index`` (``None``: no section) the section new sentences go to."""
        self.builder.current = index

    @property
    def current(self) -> int | None:
        return self.builder.current

    def add_s(self, s: etree._Element, zone: str, para_key: object,
              existing: bool = False) -> None:
        """Number an ``<s>`` and add its sentence to the current section.

        A new ``<s>`` gets its number in ``sid_attr``; an ``existing`` one (the source's
        own sentence markup) is left as it is and its labels are read (:meth:`labels_of`).
        """
        text = clean_text(self.text_of(s))
        if not text:
            return
        self.n += 1
        if existing:
            gold, pred = self.labels_of(s)
        else:
            gold, pred = [], []
            s.set(self.sid_attr, str(self.n))
        cites = count_citations_markup(s)
        self.builder.add(Sentence(
            sid=str(self.n), text=text, zone=zone,
            n_citations=count_citations_text(text) if cites is None else cites,
            gold=gold, pred=pred, element=s,
        ), para_key)

    def labels_of(self, s: etree._Element) -> tuple[list[Label], list[Prediction]]:
        """The labels an existing ``<s>`` carries: ``(gold, pred)`` (none here)."""
        return [], []

    def paragraph(self, el: etree._Element, zone: str, is_block: Callable[[etree._Element], bool],
                  on_block: Callable[[etree._Element], None], split: bool = True) -> None:
        """Split ``el`` into sentences; hand each block child to ``on_block`` in order."""
        for kind, item in wrap_sentences(el, is_block, split=split, text_of=self.text_of):
            if kind == "s":
                self.add_s(item, zone, el)
            else:
                on_block(item)

    def title(self, el: etree._Element, is_block: Callable[[etree._Element], bool]) -> None:
        """Open the paper's Title section with ``el`` as one unsplit sentence run."""
        self.open("Title", "title", 0, None)
        self.paragraph(el, "title", is_block, lambda block: None, split=False)

    def sections(self):
        return self.builder.pruned()


class NestedReader(ABC):
    """A reader of nested section elements (JATS, Elsevier): a sentence state and the
    enclosing sections; a subclass reads one block element in :meth:`block`."""

    def __init__(self) -> None:
        self.state = SplitState()
        self.stack: list[int] = []  # enclosing sections, innermost last

    @abstractmethod
    def block(self, el: etree._Element, zone: str) -> None:
        """Read one block element (a section, paragraph, float ...)."""

    def container(self, el: etree._Element, zone: str) -> None:
        """Read the block content of ``el`` (body, sec, list, boxed-text ...)."""
        for child in el:
            if isinstance(child.tag, str):
                self.block(child, zone)

    def nested(self, sec: etree._Element, heading: str, stype: str | None, zone: str) -> None:
        """Read ``sec`` as a section one level below the enclosing one, then step out."""
        st = self.state
        outer = self.stack[-1] if self.stack else None
        depth = 1 if outer is None else st.builder.sections[outer].depth + 1
        self.stack.append(st.open(heading, stype, depth, outer))
        self.container(sec, zone)
        self.stack.pop()
        st.enter(outer)


def finish(paper: Paper, state: SplitState) -> Paper:
    """``paper`` with the sections built, titled by the text of its title sections."""
    paper.sections = state.sections()
    paper.title = " ".join(s.text for sec in paper.sections if sec.type == "title"
                           for s in sec.sentences())
    return paper

"""The one document model: every reader produces it, every writer consumes it.

A :class:`Paper` is a flat list of :class:`Section` objects in reading order (the
title and abstract are sections too, of type ``title`` and ``abstract``); each section
holds :class:`Paragraph` objects, which hold :class:`Sentence` objects. Nesting of
sections is kept as ``depth`` (1 = top level) and ``parent`` (index of the enclosing
section in ``Paper.sections``), which is all the features need and keeps iteration
simple.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

#: Where a sentence sits in the paper.
ZONES = ("title", "abstract", "body", "caption")

#: The id of a paper read from standard input (the readers give it; the HTML view does not
#: show it as a title).
STDIN_ID = "stdin"

#: What no output can hold of a name: lone surrogates (a file name's bytes that are not
#: UTF-8 reach Python as U+DC80-U+DCFF), and what XML cannot hold (C0 controls other than
#: tab, newline and carriage return; U+FFFE, U+FFFF).
_UNWRITABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def name_text(name: str) -> str:
    """A file name as text every output can hold.

    A name whose bytes are not UTF-8 reaches Python with each such byte as a lone
    surrogate (``os.fsdecode``'s ``surrogateescape``), which no UTF-8 file, XML or JSON
    can hold: each becomes ``\\xNN``, as ``ls -b`` shows it (``paper-\\xff``), so two
    such names stay two; a control character becomes ``\\xNN`` too, any other lone
    surrogate or non-character ``\\uNNNN``. Any other name is returned as it is.
    """
    return _UNWRITABLE.sub(_escaped, name)


def _escaped(match: re.Match) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


#: The ``Paper.meta`` key of a paper read from a PDF's pages: ``[[width, height, degrees,
#: scale], ...]`` in points, as shown (the page's ``/Rotate`` and the scale of a tiny
#: page), by which ``Sentence.boxes`` are placed.
PDF_PAGES = "pdf_pages"
#: The ``Paper.meta`` key of the bytes of the PDF a paper was read from (the PDF writer
#: adds its highlights to them).
PDF_SOURCE = "pdf_source"


#: Normalised heading types, see :func:`heading_type`.
SECTION_TYPES = (
    "title", "abstract", "introduction", "background", "methods", "results",
    "discussion", "conclusion", "model", "acknowledgements", "appendix", "other",
)

# First match wins, so "Results and discussion" is results (as SAPIENTA does, but
# with a fixed order rather than dict order). Patterns match at word starts.
_HEADING_RULES: tuple[tuple[str, str], ...] = (
    ("abstract", r"abstract|summary of the (paper|article)"),
    ("acknowledgements", r"acknowledg|funding|competing interest|conflicts? of interest"
                         r"|author contributions?"),
    ("appendix", r"appendix|supplementary|supporting information"),
    ("introduction", r"intro"),
    ("background", r"background|previous work|related work|literature review|overview"),
    ("methods", r"method|material|experiment|procedure|protocol|study design|"
                r"statistic|sample|data (collection|analysis)|analysis|synthes|preparation|"
                r"measurement|instrument|reagent|subjects|participants|patients|population"),
    ("results", r"result|finding|evaluation|performance"),
    ("discussion", r"discussion"),
    ("conclusion", r"conclu|summary|outlook|future work|implication"),
    ("model", r"model|theor|calculation|computational|simulation|formalism|framework"),
)
_HEADING_PATTERNS = tuple((t, re.compile(r"\b(?:" + p + ")", re.I)) for t, p in _HEADING_RULES)


def heading_type(heading: str) -> str:
    """Map a section heading to one of :data:`SECTION_TYPES` (never ``title``).

    ``"3. Results and Discussion"`` -> ``"results"``; ``"Reagents"`` -> ``"methods"``;
    an empty or unmatched heading gives ``"other"`` (callers may then inherit the
    enclosing section's type).
    """
    for stype, pattern in _HEADING_PATTERNS:
        if pattern.search(heading):
            return stype
    return "other"


#: Texts longer than this are cleaned a block at a time (see :func:`clean_text`).
_BLOCK = 65_536


def clean_text(text: str) -> str:
    """Collapse runs of whitespace to one space and strip the ends."""
    # str.split() is 4x faster than re.sub (they agree on every code point), but it makes
    # an object per word, as re.sub makes a piece per run: 800 MB for a 50 MB paragraph.
    # A long text is cleaned a block at a time instead.
    if len(text) <= _BLOCK:
        return " ".join(text.split())
    out: list[str] = []
    space = False  # whether whitespace came since the last word written
    for start in range(0, len(text), _BLOCK):
        block = text[start:start + _BLOCK]
        words = " ".join(block.split())
        if words:
            # a block that starts inside a word continues it; after whitespace, a space
            out.append(" " + words if out and (space or block[0].isspace()) else words)
            space = block[-1].isspace()
        else:
            space = True
    return "".join(out)


# The classes a paper holds one of per sentence have slots: a file of a million short
# paragraphs makes a million of each, and a slotted object has no per-object dict.


@dataclass(slots=True)
class Label:
    """One gold (or consensus) label of a sentence, with the guidelines' attributes."""

    code: str
    concept_id: str | None = None
    novelty: str | None = None
    advantage: str | None = None


@dataclass(slots=True)
class Prediction:
    """One predicted label with its score (a probability in [0, 1])."""

    label: str
    score: float


@dataclass(slots=True)
class Sentence:
    """A sentence and everything a feature extractor or writer needs to know of it.

    ``gold`` and ``pred`` are ranked lists of at most three entries, primary first.
    ``withheld`` is the primary label a score threshold (``annotate --min-score``) kept
    back: the sentence is then left without a label (``pred`` empty).
    ``no_label``: a person decided that the sentence has no CoreSC label at all
    (acknowledgements, funding; ``coresc review``); ``gold`` is then empty, and every
    reader of gold skips it as it skips an unlabelled sentence.
    ``element`` is the source XML element (lxml) the sentence came from, or ``None``
    for sources without one (plain text, JSONL); writers use it to put annotations
    back in place. It is never serialised.
    ``boxes``: where a sentence read from a PDF stands on its pages, one box per line
    fragment, ``(page index, x0, y0, x1, y1)`` in PDF points on the page as shown (y
    upwards from its bottom; the pages in ``Paper.meta[PDF_PAGES]``); empty for other
    sources.
    """

    sid: str
    text: str
    zone: str = "body"
    n_citations: int = 0
    gold: list[Label] = field(default_factory=list)
    pred: list[Prediction] = field(default_factory=list)
    withheld: Prediction | None = None
    no_label: bool = False
    element: Any = field(default=None, repr=False, compare=False)
    boxes: tuple = field(default=(), repr=False, compare=False)

    @property
    def gold_codes(self) -> list[str]:
        """The gold label codes, primary first (empty when unlabelled)."""
        return [lab.code for lab in self.gold]

    @property
    def annotated(self) -> bool:
        """Whether a model has labelled the sentence (or left it without a label)."""
        return bool(self.pred) or self.withheld is not None

    @property
    def pred_codes(self) -> list[str]:
        """The predicted label codes, primary first (empty when not annotated)."""
        return [p.label for p in self.pred]


@dataclass(slots=True)
class Paragraph:
    """A run of sentences that the source keeps together."""

    sentences: list[Sentence] = field(default_factory=list)


@dataclass
class Section:
    """A headed part of the paper.

    ``type`` is the normalised heading type (:data:`SECTION_TYPES`); a subsection whose
    own heading says nothing ("Reagents" says methods, "3.2 Samples" does too, but
    "Compound 4" says nothing) inherits the type of its parent. ``depth`` is 0 for the
    title and abstract, 1 for top-level body sections, 2 and more below.
    """

    heading: str
    type: str
    depth: int = 1
    parent: int | None = None
    paragraphs: list[Paragraph] = field(default_factory=list)

    def sentences(self) -> Iterator[Sentence]:
        for para in self.paragraphs:
            yield from para.sentences


def prune_sections(sections: list[Section]) -> list[Section]:
    """The sections that hold sentences or enclose some, with ``parent`` indexes remapped.

    A kept section whose parent is dropped hangs from the nearest kept ancestor.
    """
    needed: set[int] = set()
    for i, sec in enumerate(sections):
        if any(para.sentences for para in sec.paragraphs):
            j: int | None = i
            while j is not None and j not in needed:
                needed.add(j)
                j = sections[j].parent
    keep = sorted(needed)
    new_index = {old: new for new, old in enumerate(keep)}
    out = []
    for i in keep:
        sec = sections[i]
        parent = sec.parent
        while parent is not None and parent not in new_index:
            parent = sections[parent].parent
        sec.parent = new_index.get(parent) if parent is not None else None
        out.append(sec)
    return out


# A supporting-information file stub standing alone: "(DOC)", "(TIF)", "(XLSX)", "(PDF, ZIP)".
_FILE_STUB = re.compile(r"^\(\s*[A-Z][A-Z0-9]{1,4}(?:\s*[,;/]\s*[A-Z][A-Z0-9]{1,4})*\s*\)\.?$")


def is_file_stub(text: str) -> bool:
    """Whether ``text`` is only a file-type stub such as ``"(DOC)"``: not a sentence.

    Journals (PLoS above all) end each supporting-information caption with the file's
    type in brackets, on its own.
    """
    return bool(_FILE_STUB.match(text.strip()))


#: What a formula contributes to the text of the sentence it sits in (the TEI reader
#: writes it where GROBID put a ``<formula>``).
FORMULA_TEXT = "[formula]"


def nothing_to_label(sentence: Sentence) -> bool:
    """An empty sentence (an empty ``<s>``, ``""`` in JSONL) or one that is only formulas:
    no words a label could be given for."""
    return not sentence.text.replace(FORMULA_TEXT, "").strip()


@dataclass
class Paper:
    """A whole paper as one reader produced it.

    ``tree`` is the parsed source document (an lxml ``ElementTree``) when the source
    was XML, so a writer can add annotations to it and keep everything else as is.
    """

    id: str
    title: str = ""
    source_format: str = ""
    source_path: str | None = None
    sections: list[Section] = field(default_factory=list)
    tree: Any = field(default=None, repr=False, compare=False)
    meta: dict[str, Any] = field(default_factory=dict)

    def sentences(self) -> list[Sentence]:
        """All sentences in reading order."""
        return [s for sec in self.sections for s in sec.sentences()]

    def paragraphs(self) -> Iterator[tuple[Section, Paragraph]]:
        for sec in self.sections:
            for para in sec.paragraphs:
                yield sec, para

    def __len__(self) -> int:
        return sum(len(p.sentences) for _, p in self.paragraphs())

    def release_source(self) -> bool:
        """Let go of the source tree and the sentences' elements (an output that does not
        put labels back into the XML needs neither); whether there was a tree.

        A tree of a big XML input takes more memory than the rest of the paper: about
        860 bytes per sentence of a file of one-sentence paragraphs, 625 for the rest.
        """
        had = self.tree is not None
        self.tree = None
        for sent in self.sentences():
            sent.element = None
        return had

    def drop_sentences(self, unwanted: Callable[[Sentence], bool]) -> int:
        """Remove the sentences for which ``unwanted`` is true; return how many went.

        Paragraphs and sections left without sentences go too (see :func:`prune_sections`).
        """
        dropped = 0
        for sec in self.sections:
            for para in sec.paragraphs:
                kept = [s for s in para.sentences if not unwanted(s)]
                dropped += len(para.sentences) - len(kept)
                para.sentences = kept
            sec.paragraphs = [para for para in sec.paragraphs if para.sentences]
        if dropped:
            self.sections = prune_sections(self.sections)
        return dropped

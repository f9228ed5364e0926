"""A paper laid out as one plain text, with every passage's and sentence's place in it.

BioC, W3C Web Annotation and PubAnnotation all point at a sentence by its position in
a text. They share this one layout so the same sentence has the same offsets in all
three: a passage is a paragraph (its sentences joined by one space), passages are
joined by one newline, and offsets count Unicode code points (Python ``str`` indexes:
what the ``bioc`` package and PubAnnotation count) from the start of the paper's text.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..document import Paper, Paragraph, Section, Sentence

#: Between two sentences of a passage, and between two passages.
SENTENCE_GAP = " "
PASSAGE_GAP = "\n"


@dataclass(frozen=True)
class Placed:
    """A sentence and where its text lies in the paper's text: ``text[start:end]``."""

    sentence: Sentence
    start: int
    end: int


@dataclass(frozen=True)
class Passage:
    """A paragraph: its section, its offset in the paper's text, its own text and its
    sentences (offsets in the paper's text, not the passage's)."""

    section: Section
    paragraph: Paragraph
    offset: int
    text: str
    sentences: tuple[Placed, ...]


def passages(paper: Paper) -> Iterator[Passage]:
    """The paper's paragraphs in reading order, placed in its text (see the module)."""
    offset = 0
    for sec, para in paper.paragraphs():
        if not para.sentences:
            continue
        placed, pos = [], offset
        for sent in para.sentences:
            placed.append(Placed(sent, pos, pos + len(sent.text)))
            pos += len(sent.text) + len(SENTENCE_GAP)
        text = SENTENCE_GAP.join(s.text for s in para.sentences)
        yield Passage(sec, para, offset, text, tuple(placed))
        offset += len(text) + len(PASSAGE_GAP)


def paper_text(paper: Paper) -> str:
    """The whole text the offsets count in: the passages joined by :data:`PASSAGE_GAP`."""
    return PASSAGE_GAP.join(p.text for p in passages(paper))


def placed_sentences(paper: Paper) -> Iterator[Placed]:
    """Every sentence with its place in :func:`paper_text`, in reading order."""
    for passage in passages(paper):
        yield from passage.sentences

"""Reader for plain text: paragraphs separated by blank lines.

* The first non-empty line is the title when it is short (at most
  :data:`MAX_TITLE_WORDS` words) and does not end with a full stop; it is then its own
  title section.
* A paragraph that is a single short line without a final full stop and looks like a
  heading ("Abstract", "1. Introduction", "2.3 Cell culture", "Methods") opens a
  section; numbered headings give the depth ("2.3" is depth 2). The paragraphs under an
  "Abstract" heading are the abstract.
* Every other paragraph is split into sentences; lines inside a paragraph are joined.

Text sources have no tree: ``Paper.tree`` and ``Sentence.element`` are ``None``;
citations are counted from the text ("[3,4]", "(Smith et al., 2003)").
"""

from __future__ import annotations

import re
from pathlib import Path

from ..citations import count_citations_text
from ..document import (
    Paper,
    Paragraph,
    Section,
    Sentence,
    clean_text,
    heading_type,
    prune_sections,
)
from ..errors import InputError
from ..split import split
from . import paper_id_from_path

MAX_TITLE_WORDS = 25
MAX_HEADING_WORDS = 10
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_NUMBERED = re.compile(r"^(?P<num>(?:\d+|[IVX]+|[A-Z])(?:\.\d+)*)\.?\s+(?P<text>\S.*)$")


def _heading(par: str) -> tuple[str, int] | None:
    """``(heading, depth)`` when the paragraph is a heading line, else ``None``."""
    if "\n" in par or par.endswith((".", "?", "!", ":", ";", ",")):
        return None
    words = par.split(maxsplit=MAX_HEADING_WORDS)  # not a list of a long paragraph's words
    if not words or len(words) > MAX_HEADING_WORDS:
        return None
    m = _NUMBERED.match(par)
    if m:
        depth = m.group("num").count(".") + 1
        return m.group("text"), depth
    if heading_type(par) != "other" and par[0].isupper():
        return par, 1
    return None


def read_text(path: str | Path, text: str) -> Paper:
    """Read a plain-text paper into a :class:`Paper` (``tree`` is ``None``)."""
    paras = [p.strip() for p in _BLANK_LINE.split(text.replace("\r\n", "\n"))]
    paras = [p for p in paras if p]
    if not paras:
        raise InputError(path, "no text found")
    paper = Paper(id=paper_id_from_path(path), source_format="text", source_path=str(path))
    sections: list[Section] = []
    first_line, _, rest = paras[0].partition("\n")
    first_line = clean_text(first_line)
    if len(first_line.split(maxsplit=MAX_TITLE_WORDS)) <= MAX_TITLE_WORDS \
            and not first_line.endswith("."):
        paper.title = first_line
        sections.append(Section("Title", "title", 0, None, [Paragraph([_sentence(
            1, first_line, "title")])]))
        paras = ([rest.strip()] if rest.strip() else []) + paras[1:]
    n = len(sections)
    current: Section | None = None
    open_at: dict[int, int] = {}  # depth -> index of the last section opened at it
    for par in paras:
        head = _heading(clean_text(par) if "\n" not in par else par)
        if head is not None:
            current = _open(sections, open_at, *head)
            continue
        if current is None:
            current = Section("", "other", 1, None)
            sections.append(current)
        zone = "abstract" if current.type == "abstract" else "body"
        sents = []
        for s in split(clean_text(par)):
            n += 1
            sents.append(_sentence(n, s, zone))
        current.paragraphs.append(Paragraph(sents))
    paper.sections = prune_sections(sections)
    return paper


def _sentence(n: int, text: str, zone: str) -> Sentence:
    return Sentence(sid=str(n), text=text, zone=zone, n_citations=count_citations_text(text))


def _open(sections: list[Section], open_at: dict[int, int], heading: str, depth: int) -> Section:
    stype = heading_type(heading)
    parent = open_at.get(depth - 1) if depth > 1 else None
    if stype == "abstract":
        depth, parent = 0, None
    elif stype == "other" and parent is not None:
        stype = sections[parent].type
    sections.append(Section(heading, stype, depth, parent))
    open_at[depth] = len(sections) - 1
    for d in [d for d in open_at if d > depth]:
        del open_at[d]
    return sections[-1]

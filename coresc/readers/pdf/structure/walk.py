"""The walk over the classified blocks that makes the paper's parts: where the abstract
starts and ends, which headings open back matter to leave out, paragraphs carried on
across columns and pages, captions put after the paragraph they interrupt, and run-in
headings."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..extract import SUP_CLOSE, SUP_OPEN
from ..layout import Line, unmark
from .blocks import Block, join_lines, resolve_hyphens
from .patterns import (
    ABSTRACT,
    ABSTRACT_PART,
    APPENDIX,
    BACK,
    CAPTION,
    CONTENTS,
    DOI_TAIL,
    ENDS,
    FRONT_LABEL,
    KEYWORDS,
    SENTENCE_END,
    TOP,
)


@dataclass
class Part:
    """One part of the paper in reading order, as the TEI is built from it."""

    kind: str  # title, abstract, heading, para, caption
    text: str  # a paragraph's or caption's with its superscripts marked
    level: int = 1
    number: str = ""
    label: str = ""  # a caption's label ("Figure 2.")
    zone: str = "body"  # abstract, body, or back (a section after the references)


def walk_parts(blocks: list[Block], body: float) -> list[Part]:
    parts: list[Part] = []
    state = _Walk(body)
    state.abstract_ahead = any(b.first.page <= 1 and ABSTRACT.match(b.text()) and
                               (b.kind == "heading" or b.first.bold > 0.5) for b in blocks)
    for block in blocks:
        state.take(block, parts)
    state.flush(parts)  # a caption after the paper's last paragraph
    for part, text in zip(parts, resolve_hyphens([p.text for p in parts]), strict=True):
        part.text = text
    return parts


class _Walk:
    """Walks the blocks in order, keeping where it is: before the abstract, in it, in
    the body, or under a back-matter heading (until a heading as high as that one)."""

    def __init__(self, body: float) -> None:
        self.body = body
        self.where = "front"
        self.skip_level: int | None = None  # under a back heading of this level
        self.ended = False  # in the references (up to a back section: APPENDIX)
        self.back = False  # in a section after the references
        self.abstracts = 0
        self.last_para: Part | None = None
        self.pending: list[Part] = []  # captions met inside a paragraph
        self.level = 1
        self.abstract_ahead = False  # an abstract heading is still to come
        self.body_heads = 0  # main headings of the body met ("Introduction", "2 Methods")
        self.last_caption: Part | None = None
        self.unfinished: Part | None = None  # the last paragraph, cut mid-sentence
        self.abstract_look: tuple[float, float] | None = None  # its size and width

    def take(self, block: Block, parts: list[Part]) -> None:
        if block.kind == "drop":
            return
        if self.ended:
            if block.kind != "heading" or not _back_section(block):
                return  # the reference list
            self.ended, self.back, self.skip_level = False, True, None
        text = block.text()
        if block.kind == "title":
            parts.append(Part("title", text))
            return
        if block.kind == "heading":
            self.heading(block, parts)
            return
        if self.skip_level is not None:
            return
        marked = block.marked()
        if self.abstracts and not self.body_heads and _opens_abstract(block, text):
            self.skip_level = 1  # the abstract again in another language (JATS's
            return  # trans-abstract, which the XML readers leave out too)
        if self.where == "front":
            texts = self.front(block, text, marked, parts)
            if texts is None:
                return
            text, marked = texts
        if block.kind == "caption":
            self.caption(block, marked, parts)
            return
        if block.kind == "caption+":
            if self.last_caption is not None:
                self.last_caption.text = DOI_TAIL.sub("", join_lines(
                    [self.last_caption.text, marked], mark=True)).strip()
            return
        label = FRONT_LABEL.match(text)
        if label and block.first.page <= 1 and (
                block.kind != "body" or text[label.end():].lstrip()[:1] == ":") \
                or KEYWORDS.match(text):
            return
        if block.kind == "small" and self.where != "abstract":
            return
        if self.where == "abstract" and self.abstract_over(block):
            self.where = "body"  # an introduction with no heading after the abstract
            self.flush(parts)
            self.unfinished = None
        self.paragraph(block, marked, parts)

    def front(self, block: Block, text: str, marked: str,
              parts: list[Part]) -> tuple[str, str] | None:
        """A block before the abstract or the body: where either starts, it is read on
        (its text, the "Abstract" opening it taken off), else it is left out (None)."""
        m = ABSTRACT.match(text)
        if m and block.first.page <= 1 and _opens_abstract(block, text):
            self.start_abstract(parts)
            m_marked = ABSTRACT.match(marked)
            text = text[m.end():].strip()
            marked = marked[m_marked.end():].strip() if m_marked else marked
            return (text, marked) if text else None
        if self.abstract_ahead:
            return None  # authors, affiliations, dates, notes before the abstract
        if block.first.page == 0 and ABSTRACT_PART.match(text) and _run_in(block):
            self.start_abstract(parts)  # a structured abstract with no heading
        elif block.first.page <= 1 and _unheaded_abstract(block, text, self.body):
            self.start_abstract(parts)  # set apart by a smaller size alone
        elif _body_like(block, text, self.body):
            self.where = "body"  # a paper without an abstract: its text has begun
        else:
            return None  # authors, affiliations, dates, notes on the first page
        return text, marked

    def abstract_over(self, block: Block) -> bool:
        """Whether a block of the body's size after the abstract's first is set otherwise
        than the abstract (another size, or another width): the body has begun."""
        if self.abstract_look is None:
            self.abstract_look = (block.size, _width(block))
            return False
        size, width = self.abstract_look
        if block.kind != "body" or abs(block.size - self.body) > 0.6:
            return False
        wide = _width(block)
        if abs(block.size - size) > 0.4 or (
                width > 0 and wide > 0 and abs(wide - width) > 1.5 * self.body):
            return True
        # set exactly as the body (article's two columns): an abstract is one paragraph
        # as a rule, and an indented paragraph after it opens the body (a second one of
        # the abstract, set so, is read as the body's: the page cannot tell them apart)
        return _indented(block) and _run_in(block) is None and abs(size - self.body) <= 0.4

    def start_abstract(self, parts: list[Part]) -> None:
        self.abstracts += 1
        self.abstract_ahead = False
        if self.abstracts > 1:  # a second abstract: the paper's translation of its own
            self.skip_level = 1
            return
        self.where = "abstract"
        parts.append(Part("abstract", "Abstract", zone="abstract"))
        self.last_para = None

    def heading(self, block: Block, parts: list[Part]) -> None:
        text = block.heading_text
        level = block.level
        if self.skip_level is not None and level > self.skip_level:
            return
        self.skip_level = None
        self.flush(parts)
        self.unfinished = None
        if _abstract_heading(text) and (
                self.where in ("front", "abstract") or not self.body_heads):
            self.start_abstract(parts)  # a second one: its translation, left out
            return
        if KEYWORDS.match(text):
            self.skip_level = level
            return
        if ENDS.match(text):
            self.ended = True
            return
        if BACK.match(text) or CONTENTS.match(text):
            self.skip_level = level
            return
        if self.where == "front" and block.first.page == 0 and not TOP.match(text) \
                and not block.number and not block.outlined:
            return  # a heading-like line among the authors
        if self.where == "abstract" and level > 1 and not TOP.match(text):
            parts.append(Part("heading", text, level=2, zone="abstract"))
        else:
            self.where = "body"
            self.body_heads += bool(TOP.match(text) or block.number)
            parts.append(Part("heading", text, level=level, number=block.number,
                              zone=self.zone))
        self.level = level
        self.last_para = None

    def caption(self, block: Block, text: str, parts: list[Part]) -> None:
        """A caption; ``text`` keeps its superscript marks."""
        m = CAPTION.match(text)
        label, rest = (m.group(1), text[m.end():]) if m else ("", text)
        rest = DOI_TAIL.sub("", rest)
        part = Part("caption", rest.strip(), label=label.strip(), zone=self.zone)
        self.last_caption = part
        if self.last_para is not None:
            self.pending.append(part)  # after the paragraph it interrupts
        else:
            parts.append(part)

    @property
    def zone(self) -> str:
        return "abstract" if self.where == "abstract" else "back" if self.back else "body"

    def paragraph(self, block: Block, text: str, parts: list[Part]) -> None:
        """A paragraph, or more of the last one; ``text`` keeps its superscript marks."""
        run_in = _run_in(block)
        if run_in and self.where in ("abstract", "body"):
            head, rest = run_in
            self.flush(parts)
            level = 2 if self.where == "abstract" else self.level + 1
            parts.append(Part("heading", head, level=level, zone=self.zone))
            text = rest
            self.last_para = None
            if not text:
                return
        inline = _inline_parts(block, text) if self.where == "abstract" else []
        if inline:
            text = inline.pop(0)[1]
        last = self.last_para
        if self.unfinished is not None and text[:1].islower() and _carries_on(
                self.unfinished.text, text, block):
            # the rest of a sentence that a float, a footnote or a page's furniture cut
            self.unfinished.text = join_lines([self.unfinished.text, text], mark=True)
            self.last_para = self.unfinished
            self.unfinished = None
            return
        if last is not None and block.continues and _carries_on(last.text, text, block):
            last.text = join_lines([last.text, text], mark=True)
            return
        self.flush(parts)
        self.last_para = Part("para", text, zone=self.zone)
        parts.append(self.last_para)
        for head, rest in inline:  # a structured abstract's parts set inline
            parts.append(Part("heading", head, level=2, zone=self.zone))
            self.last_para = Part("para", rest, zone=self.zone)
            parts.append(self.last_para)
        # (not a page's foot line, nor a box set smaller that interrupts the body's text)
        if self.unfinished is None or len(block.lines) > 2 and abs(block.size - self.body) <= 0.6:
            cut = not _ends_sentence(self.last_para.text)
            self.unfinished = self.last_para if cut else None

    def flush(self, parts: list[Part]) -> None:
        parts.extend(self.pending)
        self.pending = []
        self.last_para = None


def _indented(block: Block) -> bool:
    """Whether a block's first line is indented in its column (a paragraph's indent)."""
    line = block.first
    return 0.6 * line.size < line.x0 - line.col_left < 5 * line.size


def _width(block: Block) -> float:
    """How wide a block of two or more lines is set (0 for one line: it may be short)."""
    if len(block.lines) < 2:
        return 0.0
    return max(ln.x1 for ln in block.lines) - min(ln.x0 for ln in block.lines)


def _abstract_heading(text: str) -> bool:
    """Whether a heading is the abstract's name alone ("Abstract", "Zusammenfassung"),
    not a section such as "Summary of results"."""
    m = ABSTRACT.match(text)
    return m is not None and m.end() >= len(text.rstrip(".: "))


def _opens_abstract(block: Block, text: str) -> bool:
    """Whether a block opens with "Abstract" set apart: bold, in capitals, or a bold
    run-in word ("Abstract. We ...")."""
    line = block.first
    return bool(ABSTRACT.match(text)) and (
        line.bold > 0.5 or line.text[:8].isupper()
        or bool(ABSTRACT.match(unmark(line.bold_prefix()).strip())))


def _unheaded_abstract(block: Block, text: str, body: float) -> bool:
    """An abstract with no heading, set smaller than the body before it begins (revtex,
    acmart's acmsmall): running text of several lines, no e-mail, no front label."""
    return body - 2.5 <= block.size <= body - 0.5 and len(block.lines) >= 3 and \
        len(text) > 300 and text.count(". ") >= 2 and "@" not in text and \
        not FRONT_LABEL.match(text)


def _back_section(block: Block) -> bool:
    """Whether a heading after the references opens a section of the paper's own text:
    an appendix ("Appendix A", "A. Proofs"), online or supplementary methods."""
    text = block.heading_text or block.text()
    lettered = bool(block.number) and block.number[:1] in "ABCDEFGH" and block.level == 1
    return bool(APPENDIX.match(text)) or lettered


def _body_like(block: Block, text: str, body: float) -> bool:
    """Running text of the body's size: several lines or long, with sentences, no e-mail."""
    return abs(block.size - body) <= 0.6 and (len(block.lines) >= 3 or len(text) > 250) \
        and text.count(". ") >= 1 and "@" not in text and not FRONT_LABEL.match(text)


def _carries_on(before: str, text: str, block: Block) -> bool:
    line = block.first
    if line.x0 - line.col_left > 0.6 * line.size:
        return False  # indented: a new paragraph
    if before.rstrip().endswith(":") and text[:1].isupper() and line.bold_prefix().strip():
        return False  # "... two tasks:" then "**Co-Views** Our ...": an item of its own
    return text[:1].islower() or not _ends_sentence(before) or \
        before.endswith(("-", "\u00ad"))


_SUPERSCRIPT = re.compile(f"{SUP_OPEN}[^{SUP_CLOSE}]*{SUP_CLOSE}\\s*$")


def _ends_sentence(marked: str) -> bool:
    """Whether marked text ends a sentence, a footnote mark after its stop aside."""
    return bool(SENTENCE_END.search(unmark(_SUPERSCRIPT.sub("", marked.rstrip()))))


def _run_in(block: Block) -> tuple[str, str] | None:
    """A bold phrase opening a paragraph, ending in a stop or colon or followed by a new
    sentence: (heading, rest)."""
    wrapped = _wrapped_run_in(block)
    if wrapped is not None:
        return wrapped
    line = block.first
    prefix = line.bold_prefix().strip()
    if not prefix or len(prefix) >= len(line.text.strip()) - 1:
        return None
    # (a head may open in lower case: a gene's name, "emm-types and emm-patterns")
    if len(prefix.split()) > 10 or not (prefix[:1].isupper() or len(prefix.split()) >= 2) \
            or prefix.split()[-1].lower() in _OPEN_ENDED:
        return None  # "sampled populations of": a bold caption title's next line
    after = line.marked[len(line.bold_prefix()):].lstrip()
    stops = prefix.endswith((".", ":", "\u2014")) or after.startswith((".", ":", "\u2014"))
    # without a stop: a phrase of a few words, then a new sentence ("Patients The ...")
    opens = after[:1].isupper() or after[:1].isdigit()  # "New sub-types 8 new ..."
    if not stops and not (2 <= len(prefix.split()) <= 8 and opens
                          and not SENTENCE_END.search(prefix)):
        return None
    head = unmark(prefix).rstrip(".:\u2014 ")
    if ABSTRACT.fullmatch(head):
        return None  # "Abstract\u2014" opening the abstract (IEEE): no part of its own
    rest = block.marked()[len(line.bold_prefix()):].lstrip().lstrip(".:\u2014").strip()
    return head, rest


def _wrapped_run_in(block: Block) -> tuple[str, str] | None:
    """A run-in head that fills its first line in bold and ends a few bold words into
    the second ("... clinical presentation and site / **preference** emm pattern A-C
    strains are ..."): (heading, rest), or None."""
    if len(block.lines) < 2:
        return None
    first, second = block.lines[0], block.lines[1]
    if len(first.bold_prefix()) < len(first.marked) or not bold_lead(second):
        return None
    more = second.bold_prefix()
    head = unmark(join_lines([first.marked, more.strip()], mark=True)).rstrip(".:\u2014 ")
    if len(head.split()) > 12 or head.split()[-1].lower() in _OPEN_ENDED:
        return None
    rest = join_lines([second.marked[len(more):].lstrip()] +
                      [ln.marked for ln in block.lines[2:]], mark=True)
    return head, rest.lstrip(".:\u2014 ").strip()


def bold_lead(line: Line) -> bool:
    """Whether a line opens with a few bold words and goes on in another style (the end
    of a run-in head wrapped onto it)."""
    prefix = line.bold_prefix().strip()
    return 0 < len(prefix.split()) <= 4 and len(prefix) < len(line.text.strip()) - 1


#: Words a heading does not end on.
_OPEN_ENDED = frozenset("a an and as at between by for from in into of on or the to with "
                        "de da do das dos e em et la le les el los y und der die von".split())

_INLINE_HEAD = re.compile(r"[A-Z\u00c0-\u00dd][^\W\d_]+(?:[ /&,-]+[^\W\d_]+){0,4}[.:]")


def _inline_parts(block: Block, text: str) -> list[tuple[str, str]]:
    """A paragraph of a structured abstract cut where a bold part name stands inside a
    line after a sentence ("... understood. **Methods and Findings.** We ..."):
    ``[("", before), (head, text), ...]``, or [] where there is none."""
    heads = []
    for line in block.lines:
        pos = 0
        for count, bold, *_ in line.styles:
            piece = unmark(line.marked[pos:pos + count]).strip()
            if bold and pos and _INLINE_HEAD.fullmatch(piece):
                heads.append(piece)
            pos += count
    found: list[tuple[str, str]] = [("", text)]
    for head in heads:
        before = found[-1][1]
        at = before.find(" " + head + " ")
        if at <= 0 or not _ends_sentence(before[:at]):
            continue
        found[-1] = (found[-1][0], before[:at].strip())
        found.append((head.rstrip(".:"), before[at + len(head) + 1:].strip()))
    return found if len(found) > 1 else []

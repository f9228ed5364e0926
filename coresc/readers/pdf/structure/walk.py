"""The walk over the classified blocks that makes the paper's parts: where the abstract
starts and ends, which headings open back matter to leave out, paragraphs carried on
across columns and pages, captions put after the paragraph they interrupt, and run-in
headings."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .blocks import HYPHEN_JOIN, Block, join_lines, resolve_hyphens
from .cues import (
    abstract_heading,
    back_section,
    body_like,
    body_measure,
    carries_on,
    ends_sentence,
    indented,
    inline_parts,
    opens_abstract,
    run_in_head,
    set_width,
    unheaded_abstract,
)
from .patterns import (
    ABSTRACT,
    ABSTRACT_PART,
    BACK,
    CAPTION,
    CONTENTS,
    DOI_TAIL,
    ENDS,
    ENUMERATOR,
    FRONT_LABEL,
    KEYWORDS,
    NUMBER,
    TOP,
)

#: A summary set in a box among the body's columns (PLOS's Author Summary): left out
#: as the XML leaves it, up to the first block outside its box.
_SUMMARY_BOX = re.compile(r"^author summary$", re.I)


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
    state = _Walk(body, {b.first.page for b in blocks if b.contents}, body_measure(blocks, body))
    state.abstract_ahead = any(b.first.page <= 1 and ABSTRACT.match(b.text()) and
                               (b.kind == "heading" or b.first.bold > 0.5) for b in blocks)
    for block in blocks:
        state.take(block, parts)
    state.flush(parts)  # a caption after the paper's last paragraph
    state.add_boxes(parts)
    for part, text in zip(parts, resolve_hyphens([p.text for p in parts]), strict=True):
        part.text = text.replace("\u00ad", "")
    return parts


# A reference entry's opening: its number, or a surname and initials ("Cohen D, ...",
# "Cohen, D.").
_ENTRY = re.compile(r"^(?:\[?\d{1,3}[.\]]|[A-Z][\w'\u2019-]+,?\s+(?:[A-Z]\.?\s*){1,3}[,.])")


def _unnamed(text: str, marked: str) -> tuple[str, str]:
    """An abstract's text (and its marked text) without the "Abstract" opening it."""
    m, m_marked = ABSTRACT.match(text), ABSTRACT.match(marked)
    return text[m.end():].strip(), marked[m_marked.end():].strip() if m_marked else marked


def _after_keywords(block: Block) -> Block | None:
    """The lines of a block after its opening keywords (they run on while a line ends in
    a comma or semicolon) where they hold running text, else None."""
    k = 1
    while k < len(block.lines) and block.lines[k - 1].text.rstrip().endswith((",", ";")):
        k += 1
    rest = Block(lines=block.lines[k:], kind=block.kind)
    text = rest.text() if rest.lines else ""
    return rest if len(text) >= 100 and ". " in text + " " else None


def _cut_marked(block: Block, text: str) -> str:
    """A wrapped heading's ``text`` with :data:`HYPHEN_JOIN` where a hyphen was taken
    out at a line's end, so that the paper's own spelling decides, as in its paragraphs
    ("Non-" / "target effects": "Non-target" where the paper writes it so)."""
    if len(block.lines) < 2:
        return text
    marked = join_lines([ln.text for ln in block.lines], mark=True)
    if HYPHEN_JOIN not in marked:
        return text
    # (the marked text differs from ``text``'s source only by the marks between letters)
    found = re.search(f"{HYPHEN_JOIN}?".join(map(re.escape, text)), marked)
    return found.group(0) if found else text


class _Walk:
    """Walks the blocks in order, keeping where it is: before the abstract, in it, in
    the body, or under a back-matter heading (until a heading as high as that one)."""

    def __init__(self, body: float, toc_pages: set[int] | None = None,
                 measure: float = 0.0) -> None:
        self.body = body
        self.measure = measure  # the width the body's columns are set at
        self.where = "front"
        self.skip_level: int | None = None  # under a back heading of this level
        # what is skipped where running text ends it: "keywords", "contents" or ""
        self.skipping = ""
        self.toc_pages = toc_pages or set()  # pages holding a table of contents' entries
        self.bold_abstract = False  # the abstract is a paragraph set in bold (Nature)
        self.after_refs: Block | None = None  # a heading after the references, pending
        self.contents_at = -1  # the page of a table of contents' heading
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
        self.boxes: list[Part] = []  # boxes' titles and paragraphs, read after the body
        self.box_at: tuple[int, int] | None = None  # where a skipped summary box is set

    def take(self, block: Block, parts: list[Part]) -> None:
        if block.kind == "drop":
            return
        if self.ended and not self.back_section_opens(block, parts):
            return  # the reference list
        text = block.text()
        if KEYWORDS.match(text) and block.kind == "body":
            block = _after_keywords(block)  # (JMLR: the introduction set on under them)
            if block is None:
                return
            text = block.text()
            if self.where in ("front", "abstract"):
                self.where = "body"  # keywords close the abstract
                self.flush(parts)
                self.unfinished = None
        if block.kind == "title":
            parts.append(Part("title", text))
            return
        if block.kind == "heading":
            self.heading(block, parts)
            return
        if self.skip_level is not None and self.skipping and \
                block.kind == "body" and body_like(block, text, self.body):
            # an introduction with no heading after the keywords (MNRAS's "Key words:
            # ...") or a table of contents
            self.skip_level, self.skipping = None, ""
            self.where = "body"
            self.flush(parts)
            self.unfinished = None
        if self.skip_level is not None:
            if self.box_at is None or (block.first.page, block.first.column) == self.box_at:
                return
            self.skip_level = None  # the text goes on after PLOS's Author Summary box
        self.box_at = None
        marked = block.marked()
        if self.abstracts and not self.body_heads and opens_abstract(block, text):
            self.skip_level = 1  # the abstract again in another language (JATS's
            return  # trans-abstract, which the XML readers leave out too)
        if self.where == "front":
            texts = self.front(block, text, marked, parts)
            if texts is None:
                return
            text, marked = texts
        if block.boxed:
            self.box(block, marked)
            return
        if block.kind == "caption":
            self.caption(marked, parts)
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

    def back_section_opens(self, block: Block, parts: list[Part]) -> bool:
        """Whether ``block``, after the references, opens a section of the paper's own
        text: a heading named so (an appendix, online methods), or any heading that
        running text follows (Nature's methods, under their own titles)."""
        if block.kind == "heading" and back_section(block):
            self.ended, self.back, self.skip_level, self.after_refs = False, True, None, None
            return True
        if block.kind == "heading":
            self.after_refs = block
            return False
        head, self.after_refs = self.after_refs, None
        text = block.text()
        # (running text, not an entry: a double-spaced page may set each line apart)
        if head is None or block.kind != "body" or abs(block.size - self.body) > 0.6 or \
                len(text) < 40 or _ENTRY.match(text) or "@" in text:
            return False
        self.ended, self.back, self.skip_level = False, True, None
        self.heading(head, parts)
        return True

    def front(self, block: Block, text: str, marked: str,
              parts: list[Part]) -> tuple[str, str] | None:
        """A block before the abstract or the body: where either starts, it is read on
        (its text, the "Abstract" opening it taken off), else it is left out (None)."""
        named = ABSTRACT.match(text) is not None
        if named and block.first.page <= 1 and opens_abstract(block, text):
            self.start_abstract(parts)
            text, marked = _unnamed(text, marked)
            return (text, marked) if text else None
        if self.abstract_ahead:
            return None  # authors, affiliations, dates, notes before the abstract
        if block.first.page == 0 and ABSTRACT_PART.match(text) and run_in_head(block):
            self.start_abstract(parts)  # a structured abstract with no heading
        elif block.first.page <= 1 and unheaded_abstract(block, text, self.body):
            self.start_abstract(parts)  # set apart by a smaller size alone
            if named:  # (named at its start, run in: amsart's "ABSTRACT. Biofilms ...")
                text, marked = _unnamed(text, marked)
        elif not body_like(block, text, self.body):
            return None  # authors, affiliations, dates, notes on the first page
        elif block.first.page <= 1 and block.bold >= 0.9:
            self.start_abstract(parts)  # Nature's: the first paragraph, set in bold
            self.bold_abstract = True
        elif block.first.page <= 1 and self.front_matter(block):
            self.start_abstract(parts)  # an abstract with no heading
        else:
            self.where = "body"  # a paper without an abstract: its text has begun
        return text, marked

    def front_matter(self, block: Block) -> bool:
        """Whether running text before any heading is set apart from the body as front
        matter: at another width than the body's columns (across the page over them,
        AIP's; beside the authors, ASME's), or before a table of contents (a thesis's)."""
        return bool(self.measure) and abs(set_width(block) - self.measure) > 3 * self.body \
            or bool(self.toc_pages) and min(self.toc_pages) > block.first.page

    def abstract_over(self, block: Block) -> bool:
        """Whether a block of the body's size after the abstract's first is set otherwise
        than the abstract (another size, or another width): the body has begun."""
        if self.bold_abstract and block.bold < 0.3 and block.kind == "body":
            return True  # the text after an abstract set in bold
        if self.abstract_look is None:
            self.abstract_look = (block.size, set_width(block))
            return False
        size, width = self.abstract_look
        if block.kind != "body" or abs(block.size - self.body) > 0.6:
            return False
        wide = set_width(block)
        if abs(block.size - size) > 0.4 or (
                width > 0 and wide > 0 and abs(wide - width) > 1.5 * self.body):
            return True
        # set exactly as the body (article's two columns): an abstract is one paragraph
        # as a rule, and an indented paragraph after it opens the body (a second one of
        # the abstract, set so, is read as the body's: the page cannot tell them apart)
        return indented(block) and run_in_head(block) is None and abs(size - self.body) <= 0.4

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
        # (an entry of the contents set as a heading, "1 Introduction", on its pages)
        entry = self.skipping == "contents" and (
            block.first.page in self.toc_pages or block.first.page == self.contents_at)
        if self.skip_level is not None and (level > self.skip_level or entry):
            return
        self.skip_level, self.skipping = None, ""
        self.flush(parts)
        self.unfinished = None
        if abstract_heading(text) and (
                self.where in ("front", "abstract") or not self.body_heads):
            self.start_abstract(parts)  # a second one: its translation, left out
            return
        if KEYWORDS.match(text):
            self.skip_level, self.skipping = level, "keywords"
            return
        if ENDS.match(text):
            self.add_boxes(parts)
            self.ended = True
            return
        if BACK.match(text) or CONTENTS.match(text):
            self.skip_level = level
            self.skipping = "contents" if CONTENTS.match(text) else ""
            self.contents_at = block.first.page
            if _SUMMARY_BOX.match(text):
                self.box_at = (block.first.page, block.first.column)
            return
        if self.where == "front" and block.first.page == 0 and not TOP.match(text) \
                and not block.number and not block.outlined:
            return  # a heading-like line among the authors
        if self.where == "abstract" and level > 1 and not TOP.match(text):
            parts.append(Part("heading", text, level=2, zone="abstract"))
        else:
            self.where = "body"
            self.body_heads += bool(TOP.match(text) or block.number)
            parts.append(Part("heading", _cut_marked(block, text), level=level,
                              number=block.number, zone=self.zone))
        self.level = level
        self.last_para = None

    def box(self, block: Block, text: str) -> None:
        """A box's title or paragraph: kept apart, and read after the body, where the
        XML (JATS's floating ``boxed-text``) has it, so that the box does not cut the
        paragraphs it is set among."""
        if block.kind == "caption":
            self.boxes.append(self.caption_part(text))
            return
        last = self.boxes[-1] if self.boxes else None
        if last is not None and last.kind == "para" and text[:1].islower() and \
                not ends_sentence(last.text):
            last.text = join_lines([last.text, text], mark=True)  # across a column
        else:
            self.boxes.append(Part("para", text, zone=self.zone))

    def add_boxes(self, parts: list[Part]) -> None:
        """The boxes kept apart, under a heading with no text (as the XML has them)."""
        if self.boxes:
            self.flush(parts)
            parts.append(Part("heading", "", level=1, zone=self.zone))
            parts.extend(self.boxes)
            self.boxes = []

    def caption_part(self, text: str) -> Part:
        """A caption's part; ``text`` keeps its superscript marks."""
        m = CAPTION.match(text)
        label, rest = (m.group(1), text[m.end():]) if m else ("", text)
        rest = DOI_TAIL.sub("", rest)
        self.last_caption = Part("caption", rest.strip(), label=label.strip(), zone=self.zone)
        return self.last_caption

    def caption(self, text: str, parts: list[Part]) -> None:
        """A caption, put after the paragraph it interrupts."""
        part = self.caption_part(text)
        if self.last_para is not None:
            self.pending.append(part)  # after the paragraph it interrupts
        else:
            parts.append(part)

    @property
    def zone(self) -> str:
        return "abstract" if self.where == "abstract" else "back" if self.back else "body"

    def paragraph(self, block: Block, text: str, parts: list[Part]) -> None:
        """A paragraph, or more of the last one; ``text`` keeps its superscript marks."""
        run_in = run_in_head(block)
        if run_in and self.where in ("abstract", "body"):
            head, rest = run_in
            self.flush(parts)
            level = 2 if self.where == "abstract" else self.level + 1
            number = NUMBER.match(head + " ")  # "2.1. Reagents": its number apart
            if number and number.end() < len(head):
                head = head[number.end():]
            parts.append(Part("heading", head, level=level, zone=self.zone,
                              number=number.group(1) if number else ""))
            text = rest
            self.last_para = None
            if not text:
                return
        inline = inline_parts(block, text) if self.where == "abstract" else []
        if inline:
            text = inline.pop(0)[1]
        last = self.last_para
        if self.unfinished is not None and text[:1].islower() and carries_on(
                self.unfinished.text, text, block):
            # the rest of a sentence that a float, a footnote or a page's furniture cut
            self.unfinished.text = join_lines([self.unfinished.text, text], mark=True)
            self.last_para = self.unfinished
            self.unfinished = None
            return
        if last is not None and block.continues and carries_on(last.text, text, block):
            last.text = join_lines([last.text, text], mark=True)
            return
        self.flush(parts)
        text = ENUMERATOR.sub("", text, count=1)  # a list item's number, as the XML has it
        self.last_para = Part("para", text, zone=self.zone)
        parts.append(self.last_para)
        for head, rest in inline:  # a structured abstract's parts set inline
            parts.append(Part("heading", head, level=2, zone=self.zone))
            self.last_para = Part("para", rest, zone=self.zone)
            parts.append(self.last_para)
        # (not a page's foot line, nor a box set smaller that interrupts the body's text)
        if self.unfinished is None or len(block.lines) > 2 and abs(block.size - self.body) <= 0.6:
            cut = not ends_sentence(self.last_para.text)
            self.unfinished = self.last_para if cut else None

    def flush(self, parts: list[Part]) -> None:
        parts.extend(self.pending)
        self.pending = []
        self.last_para = None

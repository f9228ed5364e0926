"""From lines in reading order to the parts of a paper: its title, abstract, headed
sections, paragraphs and captions, with what is not the paper's text left out.

Left out: running heads and feet, page and line numbers, the author and affiliation
block, footnotes and other small print, tables, figure text, keywords, and everything
under a back-matter heading (references, acknowledgements, funding, declarations ...).
Headings are lines set apart from the body text by weight, size or capitals, short and
not ending like a sentence, or numbered ("2.1 Data"); a bold phrase that opens a
paragraph ("Background: ...") is a run-in heading. A heading's level comes from its
number, else from how its style ranks against the style of the paper's main headings.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from .layout import Line, unmark

_NUMBER = re.compile(r"^((?:\d{1,2}|[IVX]{1,4}|[A-H])(?:\.\d{1,2}){0,3})\.?\s+(?=\S)")
_CAPTION = re.compile(
    r"^((?:supplementary\s+|suppl\.\s+)?(?:fig(?:ure)?s?|fig|table|tabela|tabla|quadro|cuadro|"
    r"gr[áa]fico|scheme|chart|plate|box|figura|algorithm)\.?\s*"
    r"(?:S?\d{1,3}[A-Za-z]?|[IVX]{1,4})(?:\s*[.:|\u2014\u2013-])?)\s*(?=\S|$)", re.I)
_ABSTRACT = re.compile(r"^(?:abstract|summary|resumo|resumen|r[ée]sum[ée])\b\s*[.:\u2014-]?\s*",
                       re.I)
# The first part of a structured abstract that has no "Abstract" heading.
_ABSTRACT_PART = re.compile(r"^(?:background|objectives?|purpose|aims?|context|"
                            r"introduction|rationale)\b", re.I)
_KEYWORDS = re.compile(r"^(?:key\s*-?\s*words?|palavras[- ]chave|palabras[- ]clave|"
                       r"descritores|descriptores|index terms|subjects?)\b", re.I)
# Back matter skipped to the next heading as high (the references, _ENDS, end the paper).
_BACK = re.compile(
    r"^(?:acknowledg|agradecimentos?|agradecimientos?|"
    r"funding|financiamento|financiaci[óo]n|fomento|author'?s?'? contributions?|"
    r"contribui[çc]|competing interests?|conflicts? of interests?|conflito|"
    r"conflicto|declarations?|additional files?|abbreviations|list of abbreviations|availability|"
    r"data availability|ethics approval|consent for publication|author details|"
    r"publisher'?s note|editors'? summary|author summary|notes?$|endnotes|footnotes|"
    r"about the authors?|how to cite|cite this|orcid|disclosure|financial disclosure)",
    re.I)
_ENDS = re.compile(r"^(?:references?|bibliography|literature cited|works cited|"
                   r"refer[êe]ncias|referencias|bibliograf)", re.I)
# Labelled front matter that sits among the abstract and first columns.
_FRONT_LABEL = re.compile(
    r"^(?:citation|academic editor|editor|received|accepted|published|copyright|"
    r"funding|competing interests|abbreviations|e-?mail|correspond|\*\s*e-?mail|"
    r"open access|doi|issn|how to cite|recebido|aceito|aprovado|publicado|"
    r"recibido|aceptado|article info|keywords?|data availability|licen[sc]e|"
    r"this is an open|\u00a9|\(c\)|edited by|reviewed by|submitted)\b", re.I)
_SMALL_PRINT = re.compile(r"^(?:source|fonte|fuente|note|nota|notes|abbreviations?)\s*:", re.I)
# A caption's own DOI at its end (PLOS, eLife): not part of its text, as in their XML.
_DOI_TAIL = re.compile(r"\s*(?:doi|DOI):\s*10\.\S+\s*$")
_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*$")


@dataclass
class Block:
    """Consecutive lines of one style that the layout keeps together."""

    lines: list[Line] = field(default_factory=list)
    kind: str = "body"  # body, heading, caption, title, drop
    level: int = 0
    number: str = ""
    continues: bool = False  # carries on the paragraph before it (across a column or page)
    heading_text: str = ""

    @property
    def first(self) -> Line:
        return self.lines[0]

    @property
    def size(self) -> float:
        sizes = Counter()
        for line in self.lines:
            sizes[line.size] += len(line.text)
        return sizes.most_common(1)[0][0]

    @property
    def bold(self) -> float:
        n = sum(len(line.text) for line in self.lines) or 1
        return sum(line.bold * len(line.text) for line in self.lines) / n

    @property
    def italic(self) -> float:
        n = sum(len(line.text) for line in self.lines) or 1
        return sum(line.italic * len(line.text) for line in self.lines) / n

    def text(self) -> str:
        return join_lines([line.text for line in self.lines])

    def marked(self) -> str:
        """The text with its superscripts marked."""
        return join_lines([line.marked for line in self.lines])


def join_lines(texts: list[str]) -> str:
    """Lines joined into running text, words broken at line ends joined again."""
    out = ""
    for text in texts:
        text = text.strip()
        if not text:
            continue
        if not out:
            out = text
        elif out.endswith("\u00ad"):
            out = out[:-1] + text
        elif out.endswith("-") and len(out) > 1 and out[-2].isalpha() and text[:1].islower():
            out = out[:-1] + text
        else:
            out = out + " " + text
    return out.replace("\u00ad", "")


def body_size(lines: list[Line]) -> float:
    """The size of the body text: the size most characters are set in."""
    sizes: Counter = Counter()
    for line in lines:
        sizes[round(line.size * 2) / 2] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def make_blocks(lines: list[Line], body: float) -> list[Block]:
    """Lines grouped into blocks: a block ends where the spacing, size, weight, column or
    page changes, or where an indented line starts a new paragraph."""
    blocks: list[Block] = []
    prev: Line | None = None
    for line in lines:
        if prev is None or _breaks(prev, line, body):
            blocks.append(Block())
            if prev is not None and ((prev.page, prev.column) != (line.page, line.column)
                                     or line.column >= 0 and prev.band != line.band):
                blocks[-1].continues = True  # a candidate, decided later
        blocks[-1].lines.append(line)
        prev = line
    return blocks


def _breaks(prev: Line, line: Line, body: float) -> bool:
    if (prev.page, prev.column) != (line.page, line.column):
        return True
    if line.column >= 0 and prev.band != line.band:
        return True
    size = max(prev.size, line.size)
    if prev.bottom - line.top > 0.45 * size or line.top > prev.top + 0.5 * size:
        return True
    if abs(prev.size - line.size) > 0.6:
        return True
    if prev.bold >= 0.6 and line.bold < 0.3 or prev.bold < 0.3 and line.bold >= 0.6:
        return True
    indent = line.x0 - line.col_left
    prev_indent = prev.x0 - prev.col_left
    if 0.6 * body < indent < 5 * body and prev_indent < 0.3 * body:
        return True  # a first-line indent starts a paragraph
    if _CAPTION.match(line.text) and _SENTENCE_END.search(prev.text):
        return True
    short = prev.x1 < line.col_right - 2.5 * body
    return short and bool(_SENTENCE_END.search(prev.text)) and indent < 0.3 * body \
        and prev_indent < 0.3 * body and line.gaps == 0 and prev.gaps == 0 and \
        line.column >= 0 and _looks_new(line)


def _looks_new(line: Line) -> bool:
    first = line.text[:1]
    return first.isupper() or first.isdigit()


@dataclass
class Part:
    """One part of the paper in reading order, as the TEI is built from it."""

    kind: str  # title, abstract, heading, para, caption
    text: str  # a paragraph's or caption's with its superscripts marked
    level: int = 1
    number: str = ""
    label: str = ""  # a caption's label ("Figure 2.")
    zone: str = "body"  # abstract or body


def classify(blocks: list[Block], body: float) -> list[Part]:
    """The paper's parts from its blocks (see the module's docstring)."""
    _find_title(blocks, body)
    for block in blocks:
        if block.kind == "title":
            continue
        _kind_of(block, body)
    _caption_runs(blocks, body)
    for block, after in zip(blocks, blocks[1:], strict=False):
        last = block.lines[-1]
        if block.kind == "heading" and after.text()[:1].islower() and \
                last.x1 >= last.col_right - 2 * last.size:
            block.kind = "body"  # a full line that runs on into the next: no heading
    _levels(blocks, body)
    return _parts(blocks, body)


def _caption_runs(blocks: list[Block], body: float) -> None:
    """The blocks that carry on a caption set smaller than the body (its description
    after its bold title) are the caption's too (kind ``caption+``)."""
    caption: Block | None = None
    for block in blocks:
        if block.kind == "caption":
            caption = block if block.size < body - 0.3 else None
        elif caption is not None and block.kind in ("body", "small") and \
                abs(block.size - caption.size) <= 0.3 and _right_below(caption, block):
            block.kind = "caption+"
            caption = block
        else:
            caption = None


def _right_below(above: Block, block: Block) -> bool:
    """Whether ``block`` starts right under ``above``, in its column."""
    last, first = above.lines[-1], block.first
    return (last.page, last.column) == (first.page, first.column) and \
        -0.5 * first.size < last.bottom - first.top < 1.2 * first.size


def _find_title(blocks: list[Block], body: float) -> None:
    first_page = [b for b in blocks if b.first.page == 0 and len(b.text()) > 8]
    if not first_page:
        return
    height = max(line.top for b in first_page for line in b.lines)
    upper = [b for b in first_page if b.first.top > 0.35 * height
             and not _CAPTION.match(b.text()) and not _FRONT_LABEL.match(b.text())]
    if not upper:
        return
    biggest = max(b.size for b in upper)
    if biggest < 1.15 * body:
        return
    title = next(b for b in upper if b.size == biggest)
    title.kind = "title"


def _kind_of(block: Block, body: float) -> None:
    text = block.text()
    line = block.first
    if line.size < 0.6 * body and len(text) < 4:
        block.kind = "drop"
    elif _CAPTION.match(text) and (len(text) > 20 or block.bold > 0.5):
        block.kind = "caption"
    elif _is_heading(block, text, body):
        block.kind = "heading"
        m = _NUMBER.match(text)
        if m and not _CAPTION.match(text):
            block.number = m.group(1)
            block.heading_text = text[m.end():].strip()
        else:
            block.heading_text = text
        block.heading_text = block.heading_text.rstrip(":").strip()
    elif sum(1 for ln in block.lines if ln.gaps >= 2) * 2 > len(block.lines) or \
            _mostly_numbers(text):
        block.kind = "drop"  # table rows
    elif block.size < body - 0.9:
        block.kind = "small"  # footnotes, tables, figure text; the abstract may be small
    elif _SMALL_PRINT.match(text):
        block.kind = "drop"


def _mostly_numbers(text: str) -> bool:
    letters = sum(c.isalpha() for c in text)
    return len(text) >= 6 and letters < 0.3 * len(text.replace(" ", ""))


def _is_heading(block: Block, text: str, body: float) -> bool:
    if len(block.lines) > 3 or len(text) > 160 or len(text.split()) > 20 or len(text) < 3:
        return False
    if not (text[0].isupper() or text[0].isdigit()) and not (
            block.bold >= 0.9 and len(text.split()) <= 8):  # "emm typing"
        return False
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 3:
        return False
    numbered = _NUMBER.match(text) is not None
    caps = sum(c.isupper() for c in letters) > 0.85 * len(letters) and len(letters) >= 4
    bigger = block.size >= body + 0.8
    styled = block.bold >= 0.75 or bigger or caps or (block.italic >= 0.9 and numbered)
    if not styled:
        return False
    if block.size < (0.86 * body if block.bold >= 0.75 else body - 0.6) or text.endswith(";") \
            or "=" in text:
        return False
    if len(letters) < 0.6 * len(text.replace(" ", "")) or not re.search(r"[A-Za-z\u00c0-\u024f]{4}",
                                                                          text):
        return False
    if text.endswith((".", ",", ";")) and not numbered and not text.endswith("..."):
        return len(text.split()) <= 6  # "Results." alone on a line
    return True


def _style(block: Block, body: float) -> tuple:
    """How a heading looks: (size, capitals, bold, upright, font); a larger tuple (the
    font aside) stands out more."""
    text = block.heading_text or block.text()
    letters = [c for c in text if c.isalpha()]
    caps = bool(letters) and sum(c.isupper() for c in letters) > 0.85 * len(letters)
    fonts = Counter()
    for line in block.lines:
        for n, _b, _i, *font in line.styles:
            fonts[font[0] if font else ""] += n
    font = fonts.most_common(1)[0][0] if fonts else ""
    return (round(block.size * 2) / 2, caps, block.bold >= 0.75, block.italic < 0.5, font)


_TOP = re.compile(r"^(?:introduc|background|related work|methods?|materials?|results?|"
                  r"discussion|conclusions?|introdu[çc][ãa]o|m[ée]todos?|resultados|"
                  r"discuss[ãa]o|discusi[óo]n|conclus|considera[çc][õo]es|experiments?|"
                  r"evaluation|references|acknowledg)", re.I)


def _levels(blocks: list[Block], body: float) -> None:
    """Each heading's level: from its number; else 1 for the style of the paper's main
    headings ("Introduction", "Results" ...) and any larger, and 2, 3 ... for the other
    styles in order of how much they stand out."""
    headings = [b for b in blocks if b.kind == "heading" and not b.number]
    tops = [_style(b, body) for b in headings if _TOP.match(b.heading_text)]
    counts = Counter(_style(b, body) for b in headings)
    # numbered main heads ("1 Introduction"): the paper numbers its sections
    numbered_tops = any(b.kind == "heading" and b.number and _TOP.match(b.heading_text)
                        for b in blocks)
    top = Counter(tops).most_common(1)[0][0] if tops else \
        (max(counts, key=lambda s: (s[:4], counts[s])) if counts else None)
    below = sorted((s for s in counts if top is not None and s != top and s[0] <= top[0] + 0.4),
                   key=lambda s: (s[:4], counts[s]), reverse=True)
    for block in blocks:
        if block.kind != "heading":
            continue
        style = _style(block, body)
        if block.number and tops and not numbered_tops and block.size < top[0] - 1.0:
            block.kind = "body"  # a numbered list item set in bold, below the main heads
        elif block.number:
            block.level = min(block.number.count(".") + 1, 4)
        elif top is None or style == top or style not in below:
            block.level = 1
        else:
            block.level = min(2 + below.index(style), 4)


def _parts(blocks: list[Block], body: float) -> list[Part]:
    parts: list[Part] = []
    state = _Walk(body)
    state.abstract_ahead = any(b.first.page <= 1 and _ABSTRACT.match(b.text()) and
                               (b.kind == "heading" or b.first.bold > 0.5) for b in blocks)
    for block in blocks:
        state.take(block, parts)
    return parts


class _Walk:
    """Walks the blocks in order, keeping where it is: before the abstract, in it, in
    the body, or under a back-matter heading (until a heading as high as that one)."""

    def __init__(self, body: float) -> None:
        self.body = body
        self.where = "front"
        self.skip_level: int | None = None  # under a back heading of this level
        self.ended = False  # after the references
        self.abstracts = 0
        self.last_para: Part | None = None
        self.pending: list[Part] = []  # captions met inside a paragraph
        self.level = 1
        self.abstract_ahead = False  # an abstract heading is still to come
        self.body_heads = 0  # main headings of the body met ("Introduction", "2 Methods")
        self.last_caption: Part | None = None

    def take(self, block: Block, parts: list[Part]) -> None:
        if self.ended or block.kind == "drop":
            return
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
        if self.where == "front":
            m = _ABSTRACT.match(text)
            if m and block.first.page <= 1 and (block.first.bold > 0.5 or block.first.text[:8]
                                                .isupper()):
                self.start_abstract(parts)
                text = text[m.end():].strip()
                m = _ABSTRACT.match(marked)
                marked = marked[m.end():].strip() if m else marked
                if not text:
                    return
            elif not self.abstract_ahead and block.first.page == 0 and \
                    _ABSTRACT_PART.match(text) and _run_in(block):
                self.start_abstract(parts)  # a structured abstract with no heading
            elif not self.abstract_ahead and _body_like(block, text, self.body):
                self.where = "body"  # a paper without an abstract: its text has begun
            else:
                return  # authors, affiliations, dates, notes on the first page
        if block.kind == "caption":
            self.caption(block, marked, parts)
            return
        if block.kind == "caption+":
            if self.last_caption is not None:
                self.last_caption.text = join_lines([self.last_caption.text, marked])
            return
        if _FRONT_LABEL.match(text) and block.first.page <= 1 and block.kind != "body" \
                or _KEYWORDS.match(text):
            return
        if block.kind == "small" and self.where != "abstract":
            return
        self.paragraph(block, marked, parts)

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
        if _ABSTRACT.match(text) and len(text) < 12 and (
                self.where in ("front", "abstract") or not self.body_heads):
            self.start_abstract(parts)  # a second one: its translation, left out
            return
        if _KEYWORDS.match(text):
            self.skip_level = level
            return
        if _ENDS.match(text):
            self.ended = True
            return
        if _BACK.match(text):
            self.skip_level = level
            return
        if self.where == "front" and block.first.page == 0 and not _TOP.match(text) \
                and not block.number:
            return  # a heading-like line among the authors
        if self.where == "abstract" and level > 1 and not _TOP.match(text):
            parts.append(Part("heading", text, level=2, zone="abstract"))
        else:
            self.where = "body"
            self.body_heads += bool(_TOP.match(text) or block.number)
            parts.append(Part("heading", text, level=level, number=block.number))
        self.level = level
        self.last_para = None

    def caption(self, block: Block, text: str, parts: list[Part]) -> None:
        """A caption; ``text`` keeps its superscript marks."""
        m = _CAPTION.match(text)
        label, rest = (m.group(1), text[m.end():]) if m else ("", text)
        rest = _DOI_TAIL.sub("", rest)
        part = Part("caption", rest.strip(), label=label.strip(), zone=self.zone)
        self.last_caption = part
        if self.last_para is not None:
            self.pending.append(part)  # after the paragraph it interrupts
        else:
            parts.append(part)

    @property
    def zone(self) -> str:
        return "abstract" if self.where == "abstract" else "body"

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
        last = self.last_para
        if last is not None and block.continues and _carries_on(last.text, text, block):
            last.text = join_lines([last.text, text])
            return
        self.flush(parts)
        self.last_para = Part("para", text, zone=self.zone)
        parts.append(self.last_para)

    def flush(self, parts: list[Part]) -> None:
        parts.extend(self.pending)
        self.pending = []
        self.last_para = None


def _body_like(block: Block, text: str, body: float) -> bool:
    """Running text of the body's size: several lines or long, with sentences, no e-mail."""
    return abs(block.size - body) <= 0.6 and (len(block.lines) >= 3 or len(text) > 250) \
        and text.count(". ") >= 1 and "@" not in text and not _FRONT_LABEL.match(text)


def _carries_on(before: str, text: str, block: Block) -> bool:
    line = block.first
    if line.x0 - line.col_left > 0.6 * line.size:
        return False  # indented: a new paragraph
    before = unmark(before)
    return text[:1].islower() or not _SENTENCE_END.search(before) or \
        before.endswith(("-", "\u00ad"))


def _run_in(block: Block) -> tuple[str, str] | None:
    """A bold phrase opening a paragraph, ending in a stop or colon or followed by a new
    sentence: (heading, rest)."""
    line = block.first
    prefix = line.bold_prefix().strip()
    if not prefix or len(prefix) >= len(line.text.strip()) - 1:
        return None
    if len(prefix.split()) > 10 or not prefix[:1].isupper():
        return None
    after = line.marked[len(line.bold_prefix()):].lstrip()
    stops = prefix.endswith((".", ":", "\u2014")) or after.startswith((".", ":", "\u2014"))
    # without a stop: a phrase of a few words, then a new sentence ("Patients The ...")
    if not stops and not (2 <= len(prefix.split()) <= 8 and after[:1].isupper()
                          and not _SENTENCE_END.search(prefix)):
        return None
    head = unmark(prefix).rstrip(".:\u2014 ")
    rest = block.marked()[len(line.bold_prefix()):].lstrip().lstrip(".:\u2014").strip()
    return head, rest

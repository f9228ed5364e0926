"""Whether a block is a heading, and each heading's level: how headings look (their
size, capitals or small capitals, bold or italic, centred or not), what a section is
named, and how it is numbered."""

from __future__ import annotations

import re
from collections import Counter

from .blocks import Block
from .patterns import APPENDIX, BACK, CAPTION, ENDS, LABELLED, NUMBER, TOP


def is_heading(block: Block, text: str, body: float) -> bool:
    """Whether ``block`` (its text ``text``) is a heading: short, set apart from the body
    (bold, larger, in capitals or small capitals, italic on a line of its own, or
    numbered), mostly letters, not ending like a sentence."""
    if len(block.lines) > 3 or len(text) > 160 or len(text.split()) > 20 or len(text) < 3:
        return False
    ideographs = _IDEOGRAPHS.search(text) is not None  # ("参考文献": no capitals, no spaces)
    number = NUMBER.match(text)
    numbered = number is not None
    if not (text[0].isupper() or text[0].isdigit() or ideographs or numbered) and not (
            block.bold >= 0.9 and len(text.split()) <= 8):  # "emm typing"
        return False
    letters = [c for c in text if c.isalpha()]
    if len(letters) < (2 if ideographs else 3):
        return False
    caps = (in_capitals(letters) or _small_caps(block) > 0.6) and len(letters) >= 4
    bigger = block.size >= body + 0.8
    # (a number set in the body's weight before a bold title: the Annals' "3. **Results**")
    bold = max(block.bold, _bold_after(block, number.end())) if numbered else block.bold
    # an italic line of its own: Tufte's and Elsevier's unnumbered subsection heads (two
    # lines where set larger than the body: Tufte's wrapped)
    lines = len(block.lines) == 1 and block.size >= body - 0.9 or \
        len(block.lines) == 2 and block.size >= body + 0.3
    italic = block.italic >= 0.9 and (numbered or lines and not text.endswith(":"))
    styled = bold >= 0.75 or bigger or caps or italic
    if not styled:
        return False
    # "I. INTRODUCTION", "REFERENCES", "APPENDIX" (IEEE's small capitals, faked in Times
    # by smaller capitals: measured at their size)
    small_caps = caps and (numbered or _NAMED.match(text)) and block.size >= 0.7 * body
    if block.size < (0.86 * body if bold >= 0.75 else body - 0.6) and not small_caps \
            or text.endswith(";") or "=" in text:
        return False
    core = text[number.end():] if number else text  # (its words' letters: "2.5 S-phase.")
    # (a word of four letters in any alphabet: "Список литературы"; two ideographs)
    if len(letters) < 0.6 * len(core.replace(" ", "")) or not (
            re.search(r"[^\W\d_]{4}", text) or ideographs):
        return False
    if text.endswith((".", ",", ";")) and not numbered and not text.endswith("..."):
        return len(text.split()) <= 6  # "Results." alone on a line
    return True


def _bold_after(block: Block, skip: int) -> float:
    """The bold share of a block's characters after the first ``skip`` of its first
    line (its number)."""
    total = bold = 0
    for k, line in enumerate(block.lines):
        at = 0
        for count, is_bold, *_ in line.styles:
            n = count if k else max(0, at + count - max(skip, at))
            at += count
            total += n
            bold += n if is_bold else 0
    return bold / total if total else 0.0


def name_heading(block: Block, text: str) -> None:
    """A heading's number and text."""
    m = NUMBER.match(text) or LABELLED.match(text)
    if m and not CAPTION.match(text):
        block.number = m.group(1)
        block.heading_text = text[m.end():].strip()
    else:
        block.heading_text = text
    block.heading_text = block.heading_text.rstrip(":\u00ad").strip()
    if block.heading_text.endswith(" \u2014"):  # a run-in head's dash ("2.7. Assay. —")
        block.heading_text = block.heading_text[:-1].rstrip().rstrip(".")


# What a section of its own is named: a main head, the references, an appendix, the
# back matter's names.
_NAMED = re.compile("|".join(p.pattern for p in (TOP, ENDS, APPENDIX, BACK)), re.I)

_IDEOGRAPHS = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]{2}")


def in_capitals(letters: list[str]) -> bool:
    """Whether ``letters`` are capitals, nearly all of them."""
    return sum(c.isupper() for c in letters) > 0.85 * len(letters)


# A small-capitals font's name: Latin Modern's "LMRomanCaps10", TeX's "cmcsc10",
# "Minion-SC", "Garamond SmallCaps" ...
_SMALL_CAPS_FONT = re.compile(r"caps|csc\d|small\s*cap|[-_]sc$|\bsc\b", re.I)


def _small_caps(block: Block) -> float:
    """The share of a block's characters set in a small-capitals font (its letters
    read as lower case: amsart's "1. Introduction")."""
    runs = [(style[0], style[3] if len(style) > 3 else "") for ln in block.lines
            for style in ln.styles]
    total = sum(n for n, _ in runs)
    return sum(n for n, font in runs if _SMALL_CAPS_FONT.search(font)) / total if total else 0.0


def _style(block: Block, body: float, measure: tuple[float, float] | None) -> tuple:
    """How a heading looks: (size, capitals, bold, upright, centred, font); a larger
    tuple (the font aside) stands out more (APA's main heads are centred, its next ones
    flush left in the same bold). ``measure``: the left and right edges of the column it
    heads (:func:`_columns_under`)."""
    text = block.heading_text or block.text()
    letters = [c for c in text if c.isalpha()]
    caps = bool(letters) and in_capitals(letters)
    fonts = Counter()
    for line in block.lines:
        for n, _b, _i, *font in line.styles:
            fonts[font[0] if font else ""] += n
    font = fonts.most_common(1)[0][0] if fonts else ""
    return (round(block.size * 2) / 2, caps, block.bold >= 0.75, block.italic < 0.5,
            _centred(block.first, body, measure), font)


def _centred(line, body: float, measure: tuple[float, float] | None = None) -> bool:
    """A line set in the middle of its column, well in from both edges (a ragged
    column's right edge may fall short of the page's measure); a line cut into a
    region of its own is judged against ``measure``, the edges of the column it heads."""
    lo, hi = line.col_left, line.col_right
    if measure and hi - lo < line.x1 - line.x0 + body:
        lo, hi = measure
    left, right = line.x0 - lo, hi - line.x1
    return min(left, right) > 3 * body and abs(left - right) < max(1.5 * body, 0.15 * (hi - lo))


def _columns_under(blocks: list[Block]) -> dict[int, tuple[float, float]]:
    """For each heading (by ``id``), the left and right edges of the column it heads:
    those of the body text's lines near it on its page (the three blocks either side),
    their regions taken together (a double-spaced page's lines may be a region each);
    of those in the column under it where there are any (not the next column's, which
    a short one's neighbours may reach: APA's journal style)."""
    out: dict[int, tuple[float, float]] = {}
    for k, block in enumerate(blocks):
        if block.kind != "heading":
            continue
        page, x0, x1 = block.first.page, block.first.x0, block.first.x1
        near = [ln for b in blocks[max(k - 3, 0):k + 4] if b.kind == "body"
                for ln in b.lines if ln.page == page]
        lines = [ln for ln in near if ln.col_left <= x0 + 1 and ln.col_right >= x1 - 1] or near
        if lines:
            out[id(block)] = (min(ln.col_left for ln in lines), max(ln.col_right for ln in lines))
    return out


def heading_levels(blocks: list[Block], body: float) -> None:
    """Each heading's level: from its number (a letter under a Roman numeral a level
    down, as IEEE numbers them); else 1 for the style of the paper's main
    headings ("Introduction", "Results" ...) and any larger, and 2, 3 ... for the other
    styles in order of how much they stand out."""
    columns = _columns_under(blocks)
    styles = {id(b): _style(b, body, columns.get(id(b))) for b in blocks if b.kind == "heading"}
    headings = [b for b in blocks if b.kind == "heading" and not b.number]
    tops = [styles[id(b)] for b in headings if TOP.match(b.heading_text)]
    if tops:  # a main head is one however its centring measured (a column's ragged edge)
        top = Counter(tops).most_common(1)[0][0]
        styles.update({id(b): top for b in headings if TOP.match(b.heading_text)
                       and styles[id(b)][:4] == top[:4]})
    counts = Counter(styles[id(b)] for b in headings)
    # numbered main heads ("1 Introduction"): the paper numbers its sections
    numbered_tops = any(b.kind == "heading" and b.number and TOP.match(b.heading_text)
                        for b in blocks)
    letters = _letters_in_turn(blocks)
    roman = any(b.kind == "heading" and re.fullmatch(r"[IVX]+", b.number) and id(b) not in
                letters for b in blocks)
    chapter = _chapter_number([b.number for b in blocks if b.kind == "heading" and b.number])
    top = Counter(tops).most_common(1)[0][0] if tops else \
        (max(counts, key=lambda s: (s[:5], counts[s])) if counts else None)
    below = sorted((s for s in counts if top is not None and s != top and s[0] <= top[0] + 0.4),
                   key=lambda s: (s[:5], counts[s]), reverse=True)
    for block in blocks:
        if block.kind != "heading":
            continue
        style = styles[id(block)]
        if block.number and tops and not numbered_tops and block.size < top[0] - 1.0:
            block.kind = "body"  # a numbered list item set in bold, below the main heads
        elif block.number:
            # IEEE: II, then A, B ... J
            lettered = roman and block.number[:1].isalpha() and (
                id(block) in letters or not re.fullmatch(r"[IVX]+", block.number))
            if chapter:  # (its number as within the chapter: TEI's depth is read from it)
                block.number = block.number.split(".", 1)[1]  # (".1": an appendix's, "1")
            block.level = min(block.number.count(".") + 1 + lettered, 4)
        elif top is None or style == top or style not in below:
            block.level = 1
        else:
            block.level = min(2 + below.index(style), 4)


def _letters_in_turn(blocks: list[Block]) -> set[int]:
    """``id``s of the headings numbered "I", "V" or "X" right after one numbered with the
    letter before it ("H", "I" ...): a sequence's letters, not Roman numerals (AIP's
    "H. System A.", "I. System B.")."""
    out: set[int] = set()
    prev = ""
    for block in blocks:
        if block.kind == "heading" and block.number:
            if block.number in ("I", "V", "X") and prev == chr(ord(block.number) - 1):
                out.add(id(block))
            prev = block.number
    return out


def _chapter_number(numbers: list[str]) -> bool:
    """Whether every numbered heading opens with one number no heading has alone (a
    chapter's: memoir's article style numbers its sections "0.1", "0.2"), so that each
    is read a level up."""
    numbers = [n for n in numbers if not n.startswith(".")]  # (an appendix's ".1")
    firsts = {n.split(".")[0] for n in numbers}
    return len(numbers) >= 2 and len(firsts) == 1 and all("." in n.strip(".") for n in numbers)

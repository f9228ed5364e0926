"""What each block is: the title, a heading (its level: ``heads.py``), a caption, body
text, small print, or what is dropped (table rows, debris)."""

from __future__ import annotations

import re
from collections import Counter
from itertools import groupby

from ..layout import Line, unmark
from .blocks import Block
from .cues import bold_lead, ends_sentence
from .heads import heading_levels, in_capitals, is_heading, name_heading
from .outline import mark_outline
from .patterns import CAPTION, CONTENTS_LINE, FRONT_LABEL, LOCATOR, NUMBER, SMALL_PRINT
from .walk import Part, walk_parts


def classify(blocks: list[Block], body: float, outline: list[list] | None = None) -> list[Part]:
    """The paper's parts from its blocks (see the module's docstring); ``outline``: the
    PDF's bookmarks (``[level, title, page]``), which name headings."""
    _find_title(blocks, body)
    for block in blocks:
        if block.kind == "title":
            continue
        _kind_of(block, body)
    mark_outline(blocks, outline or [])
    _wrapped_headings(blocks)
    for block, after in zip(blocks, blocks[1:], strict=False):
        _heading_tail(block, after)
    _cell_runs(blocks)
    _caption_runs(blocks, body)
    _box_text(blocks)
    for block, after in zip(blocks, blocks[1:], strict=False):
        if block.kind == "heading" and not block.outlined and _run_in_line(block):
            block.kind = "body"  # the walk parts its head from its text
            if after.kind == "body" and _right_under(block.first, after.first):
                after.lines[:0] = block.lines
                block.kind = "drop"
        elif block.kind == "heading" and not block.outlined and _runs_on(block, after):
            block.kind = "body"  # a full line that runs on into the next: no heading
            if len(block.lines) == 1 and bold_lead(after.first):
                after.lines[:0] = block.lines  # a run-in head wrapped onto the next line
                block.kind = "drop"
    _table_labels(blocks)
    heading_levels(blocks, body)
    return walk_parts(blocks, body)


def _runs_on(block: Block, after: Block) -> bool:
    """Whether a heading's last line fills its column and its text goes on in ``after``:
    in lower case, or in a bold head's end (amsart's "3.1. The PP ... and p38" / "**MAP
    kinase.** To establish ...")."""
    last = block.lines[-1]
    # (its column's right edge: a lone line's own region ends where the line does)
    right = max(last.col_right, after.first.col_right if after.first.page == last.page
                else 0.0)
    if last.x1 < right - 2 * last.size:
        return False
    return after.text()[:1].islower() or bold_lead(after.first) and \
        after.first.bold_prefix().rstrip().endswith((".", ":")) and \
        not ends_sentence(block.text()) and len(block.text().split()) >= 6


def _run_in_line(block: Block) -> bool:
    """A heading's one line that is a run-in head and its paragraph's first words (the
    French way, "1.3. Reaction of SO with guanosine. — N7-(2-hydroxy-"): bold words that
    end in a stop, colon or dash, then words in another style."""
    if len(block.lines) != 1:
        return False
    line = block.first
    prefix = line.bold_prefix()
    rest = unmark(line.marked[len(prefix):]).strip()
    pos = bold = 0
    for count, is_bold, *_ in line.styles:  # (how much of the rest is set bold)
        bold += max(0, min(pos + count, len(line.marked)) - max(pos, len(prefix))) * is_bold
        pos += count
    return bool(prefix.strip()) and len(rest.replace("\u2014", "").strip()) >= 2 and \
        bold < 0.5 * len(rest) and (prefix.rstrip().endswith((".", ":", "\u2014"))
                                    or rest.startswith(("\u2014", ":")))


def _right_under(line: Line, below: Line) -> bool:
    """Whether line ``below`` stands right under ``line``, in its column."""
    return below.page == line.page and below.column == line.column and \
        -0.3 * line.size <= line.y0 - below.y1 < 1.2 * line.size  # (boxes may touch)


def _table_labels(blocks: list[Block]) -> None:
    """A bold label between a table's cells ("Vive com companheiro" over its rows of
    numbers) is the table's, not a heading: a heading with short cells (small print or
    dropped lines) on its page right before it (or the table's caption) and after it."""
    for before, block, after in zip(blocks, blocks[1:], blocks[2:], strict=False):
        if block.kind == "heading" and not block.outlined and not block.number and \
                (_cell(before) or before.kind == "caption") and _cell(after) and \
                before.first.page == block.first.page == after.first.page:
            block.kind = "drop"


def _cell_runs(blocks: list[Block]) -> None:
    """The cells of a table whose rows are set apart (a word processor's: each cell a
    block of its own, "Group 1", "Group 2" ... then "0.15", "0.73" ...): three blocks or
    more in a row on one page, each :func:`_short_cell`, are the table's, not text; so
    is one between rows dropped (a column's head, "Dose")."""
    cells = [_short_cell(b) for b in blocks]
    for (cell, _page), group in groupby(zip(cells, blocks, strict=True),
                                       key=lambda cb: (cb[0], cb[1].first.page)):
        run = [b for _, b in group]
        if cell and len(run) >= 3:
            for block in run:
                block.kind = "drop"
    for k in range(1, len(blocks) - 1):
        before, block, after = blocks[k - 1:k + 2]
        if cells[k] and before.kind == after.kind == "drop" and \
                before.first.page == block.first.page == after.first.page:
            block.kind = "drop"


def _short_cell(block: Block) -> bool:
    """One short line of body text: three words at most, narrow, no sentence's or
    clause's end; or one row of a table, its cells mostly numbers ("Group 1 81 0.74
    2.1": a double-spaced page keeps its rows whole)."""
    line = block.first
    if block.kind != "body" or block.outlined or len(block.lines) != 1 or \
            line.text.rstrip()[-1:] in ".!?:;,":
        return False
    cells = line.text.split()
    if len(cells) <= 3 and line.x1 - line.x0 < 8 * line.size:
        return True
    return len(cells) <= 10 and sum(bool(_NUMERIC.match(c)) for c in cells) >= 0.5 * len(cells)


def _cell(block: Block) -> bool:
    return block.kind in ("small", "drop") and all(len(ln.text) <= 25 for ln in block.lines)


def _caption_runs(blocks: list[Block], body: float) -> None:
    """The blocks that carry on a caption set smaller than the body (its description
    after its bold title) are the caption's too (kind ``caption+``), as is the block right
    under a label on a line of its own ("Table 1" over "Characteristics of ...": CAS)."""
    caption: Block | None = None
    for k, block in enumerate(blocks):
        if block.kind == "caption" and _LABEL_ONLY.match(block.text()):
            # (the table's cells may come between in the reading order; APA sets the
            # caption's title in italic, double-spaced, a line a region: read as a heading)
            j = next((j for j in range(k + 1, min(k + 4, len(blocks)))
                      if blocks[j].kind in ("body", "heading") and not blocks[j].number
                      and _under_label(block, blocks[j])), None)
            while j is not None:
                text = blocks[j]
                text.kind = "caption+"
                after = blocks[j + 1] if j + 1 < len(blocks) else None
                j = j + 1 if after is not None and after.kind in ("body", "heading") \
                    and not ends_sentence(text.text()) and _under_label(text, after) \
                    and abs(after.italic - text.italic) < 0.5 else None
            caption = None
        elif block.kind == "caption":
            caption = block if block.size < body - 0.3 else None
        elif caption is not None and block.kind in ("body", "small") and \
                abs(block.size - caption.size) <= 0.3 and _right_below(caption, block):
            block.kind = "caption+"
            caption = block
        else:
            caption = None


_BOX = re.compile(r"^box\s*\d", re.I)


def _box_text(blocks: list[Block]) -> None:
    """The paragraphs of a box ("Box 1. ..."), set smaller than the body, are the paper's
    text (the XML has them as boxed text), not small print, marked ``boxed`` with their
    title; a box of cells (SciELO's "Box 1" is a table) stays out: its blocks are not
    running lines of text."""
    box: Block | None = None
    for block in blocks:
        if block.kind == "caption":
            box = block if _BOX.match(block.text()) else None
        elif box is not None and block.kind == "small" and _right_below(box, block) and \
                len(block.lines) >= 2 and len(block.text()) >= 45 * len(block.lines):
            block.kind = "body"
            block.boxed = box.boxed = True
            box = block
        else:
            box = None


def _under_label(label: Block, block: Block) -> bool:
    """Whether ``block`` starts right under a float's label set on a line of its own, at
    its left edge (the cuts may have put the two in regions of their own), a line's
    height or two below it (double spaced; APA's journal style sets the two apart)."""
    last, first = label.lines[-1], block.first
    return last.page == first.page and abs(first.x0 - last.x0) < 2 * first.size and \
        -0.5 * first.size < last.bottom - first.top < 2 * first.size


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
             and not CAPTION.match(b.text()) and not FRONT_LABEL.match(b.text())]
    if not upper:
        return
    biggest = max(b.size for b in upper)
    if biggest >= 1.15 * body:
        next(b for b in upper if b.size == biggest).kind = "title"
        return
    # none set larger: a title set in bold or capitals at the body's size (amsart),
    # the first page's first block, five words or more, no number, no stop
    first = upper[0]
    text = first.text()
    if (first.bold >= 0.9 or in_capitals([c for c in text if c.isalpha()])) and \
            len(text.split()) >= 5 and not NUMBER.match(text) and \
            not text.rstrip().endswith(".") and first.first.page == 0:
        first.kind = "title"


def _kind_of(block: Block, body: float) -> None:
    text = block.text()
    line = block.first
    if line.size < 0.6 * body and len(text) < 4 or _contents(block):
        block.kind = "drop"
        block.contents = len(text) >= 4
    elif CAPTION.match(text) and (len(text) > 20 or block.bold > 0.5 or _LABEL_ONLY.match(text)) \
            and _set_apart(block, text, body):
        block.kind = "caption"  # ("Table 1" on a line of its own over its caption: CAS)
    elif _debris(text) or LOCATOR.match(text) or text[:1] == "\u00a9" and len(text) < 200:
        block.kind = "drop"  # a display equation, pieces of a figure, a file's DOI, "©"
    elif is_heading(block, text, body):
        block.kind = "heading"
        name_heading(block, text)
    elif sum(1 for ln in block.lines if ln.gaps >= 2) * 2 > len(block.lines) or \
            _mostly_numbers(text) or _table_rows(block) or _word_column(block):
        block.kind = "drop"  # table rows
    elif block.size < body - 0.9:
        block.kind = "small"  # footnotes, tables, figure text; the abstract may be small
    elif SMALL_PRINT.match(text) and len(text) < 300:
        block.kind = "drop"  # a table's source or note (a paragraph may open "Note:")


def _wrapped_headings(blocks: list[Block]) -> None:
    """A heading wrapped over two lines set apart as widely as a double-spaced
    manuscript sets them ("The PP nafenopin weakly activates ERK MAP kinase and p38 MAP"
    / "kinase") is one heading: its first line fills its column, the next, in the same
    style and unnumbered, stands right under it."""
    for block, after in zip(blocks, blocks[1:], strict=False):
        # (its last word alone may be too short for a heading: "... in response to" /
        # "**PPs**", a line of bold body text)
        tail = after.kind == "body" and len(after.lines) == 1 and after.bold >= 0.9 and \
            block.bold >= 0.9 and len(after.text().split()) <= 3 or \
            block.kind == "title" and after.kind == "body"  # ("... by" / "repressing ...")
        if block.kind not in ("heading", "title") or (after.kind != "heading" and not tail) \
                or after.number or block.outlined or after.outlined:
            continue
        last, first = block.lines[-1], after.first
        width = last.col_right - last.col_left
        # (a cut between the lines may put them in regions of their own: their left edge,
        # or a numbered heading's hanging indent, "2.7 Assay ... oxida-" / "tion (CIPCO)";
        # or both centred, as APA's title is, a line's left edge in from the other's; a
        # title's next line on its axis however wide: smfart's capitals)
        hangs = bool(block.number) and block.first.x0 < first.x0 <= block.first.x0 + 4 * last.size
        axis = abs(last.x0 + last.x1 - first.x0 - first.x1)  # (twice the centres' distance)
        centred = first.x0 > last.x0 + last.size and first.x1 < last.x1 - last.size and \
            axis < 3 * last.size or block.kind == "title" and axis < last.size
        if last.page == first.page and (abs(first.x0 - block.first.x0) < 2 or hangs
                                        or centred) and \
                abs(last.size - first.size) <= 0.3 and abs(last.bold - first.bold) < 0.5 and \
                last.x1 >= last.col_right - 0.15 * width and \
                0 <= last.y0 - first.y1 < 1.6 * last.size:
            after.lines[:0] = block.lines
            after.kind = block.kind
            if block.kind == "heading":
                name_heading(after, after.text())
            block.kind = "drop"


def _look(line: Line) -> tuple[bool, bool]:
    """Whether a line is set in italic, and in bold."""
    return line.italic >= 0.75, line.bold >= 0.75


def _heading_tail(block: Block, after: Block) -> None:
    """A wrapped heading's last line read as the first of the paragraph under it
    ("3.1. Effects of DSS inflammation and nimesulide treatment on" / "*8-oxodGuo content
    in colonic DNA*" over the text): set as the heading is (in italic or bold, as the
    paragraph's next line is not), right under its full line: taken back."""
    if block.kind != "heading" or after.kind != "body" or len(after.lines) < 2 or \
            block.outlined:
        return
    last, first, second = block.lines[-1], after.lines[0], after.lines[1]
    # (the column's edges: a lone line's own region ends where the line does)
    left, right = min(last.col_left, first.col_left), max(last.col_right, first.col_right)
    if not any(_look(last)) or _look(first) != _look(last) or _look(second) == _look(last) \
            or first.page != last.page or abs(first.size - last.size) > 0.3 or \
            last.x1 < right - 0.15 * (right - left) or \
            not 0 <= last.y0 - first.y1 < 1.6 * last.size:
        return
    block.lines.append(after.lines.pop(0))
    name_heading(block, block.text())


_LABEL_ONLY = re.compile(r"^(?:fig(?:ure)?|table|tabela|tabla|tableau|tabelle|tabella)\.?\s*"
                         r"[A-Z]?\d{1,3}[a-z]?\.?$", re.I)


def _contents(block: Block) -> bool:
    """Entries of a table of contents (or of figures): most lines end in dot leaders and a
    page number, or (the entries' columns cut apart) a column of page numbers alone."""
    ends = sum(1 for ln in block.lines if CONTENTS_LINE.search(ln.text))
    numbers = block.text().split()
    return ends >= 1 and ends >= 0.5 * len(block.lines) or len(numbers) >= 4 and all(
        _ENTRY_PAGE.fullmatch(n) for n in numbers) and len(block.lines) >= 2


_ENTRY_PAGE = re.compile(r"\d{1,3}|[ivxlc]{1,6}")  # a contents entry's page


def _set_apart(block: Block, text: str, body: float) -> bool:
    """Whether a block that starts with a float's label is its caption, not a paragraph
    that begins "Figure 3 shows ...": the label ends in a stop or colon, is set bold, or
    the block is set smaller than the body, or its first word after the label is
    capitalised."""
    label = CAPTION.match(text).group(1)
    after = text[len(label):].lstrip()
    return label.rstrip()[-1:] in ".:|\u2014\u2013-" or block.first.bold >= 0.3 or \
        block.size < body - 0.3 or not after[:1].islower()


_EQUATION_NUMBER = re.compile(r"\(\s*\d{1,3}[a-z]?\s*\)$")


def _debris(text: str) -> bool:
    """A display equation ("R i = P n j=1 w ij x j (1)") or scattered figure labels: an
    equation number at the end of a line of symbols, or mostly one-letter tokens."""
    words = text.split()
    if not words:
        return False
    short = sum(1 for w in words if len(w.strip(".,;:()[]")) <= 1)
    if _EQUATION_NUMBER.search(text) and ("=" in text or short >= 0.4 * len(words)):
        return True
    drawn = sum(len(w) for w in words if _DRAWN.fullmatch(w))
    if drawn and drawn >= 0.5 * sum(len(w) for w in words):
        # a radical's bar drawn in ligature glyphs ("p ffiffiffiffi"); not a paragraph
        # that holds a repeat ("CACACACACA") among its words
        return True
    return len(words) >= 4 and short >= 0.6 * len(words)


_DRAWN = re.compile(r"(\w{1,3})\1{4,}")


_NUMERIC = re.compile(r"^[-+\u2212(]?[\d.,%]+[)%*]*$")


def _table_rows(block: Block) -> bool:
    """Rows of a table set with narrow gaps: lines with as many cells each, many of them
    numbers, none ending like a sentence."""
    if len(block.lines) < 3:
        return False
    cells = [ln.text.split() for ln in block.lines]
    numeric = sum(1 for row in cells for c in row if _NUMERIC.match(c))
    widths = Counter(len(row) for row in cells)
    same = widths.most_common(1)[0][1] >= 0.6 * len(cells)
    return same and numeric >= 0.35 * sum(len(row) for row in cells) and \
        not any(ln.text.endswith(".") for ln in block.lines)


def _word_column(block: Block) -> bool:
    """A table's column of words, one short cell a line ("title", "authors",
    "bibliography titles" ...): four lines or more, none over three words or eight
    times its size wide, none ending as a sentence or a clause does."""
    return len(block.lines) >= 4 and all(
        len(ln.text.split()) <= 3 and ln.x1 - ln.x0 < 8 * ln.size
        and ln.text.rstrip()[-1:] not in ".!?:;," for ln in block.lines)


def _mostly_numbers(text: str) -> bool:
    letters = sum(c.isalpha() for c in text)
    return len(text) >= 6 and letters < 0.3 * len(text.replace(" ", ""))

"""Lines grouped into blocks: consecutive lines of one style that the layout keeps
together, cut where the spacing, size, weight, column or page changes, or where an
indented line starts a new paragraph."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ..layout import Line
from .patterns import BULLETS, CAPTION, ENUMERATOR, SENTENCE_END


@dataclass
class Block:
    """Consecutive lines of one style that the layout keeps together."""

    lines: list[Line] = field(default_factory=list)
    kind: str = "body"  # body, heading, caption, title, drop
    level: int = 0
    number: str = ""
    continues: bool = False  # carries on the paragraph before it (across a column or page)
    heading_text: str = ""
    outlined: bool = False  # a heading that a bookmark of the PDF names
    boxed: bool = False  # a box's title or text, read after the body as the XML has it
    contents: bool = False  # entries of a table of contents (their leaders, page numbers)

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
        return join_lines([line.marked for line in self.lines], mark=True)


#: Where a hyphen at a line's end was taken out ("experi-" + "ments"): a compound that
#: keeps its hyphen ("parameter-efficient") is told apart over the whole paper
#: (:func:`resolve_hyphens`).
HYPHEN_JOIN = "\ue002"


def join_lines(texts: list[str], mark: bool = False) -> str:
    """Lines joined into running text, words broken at line ends joined again (with
    ``mark``, a hyphen taken out leaves :data:`HYPHEN_JOIN`)."""
    out = ""
    for text in texts:
        text = text.strip()
        if not text:
            continue
        if not out:
            out = text
        elif out.endswith("\u00ad"):  # PDFium's mark of a hyphen at a line's end
            # ("32P-" / "post-labelled": an acronym's own hyphen, however it is marked;
            # "Sigma-" / "Aldrich" and "anti-" / "BrdU" too; "Ac-" / "DEVD", "LC-" / "MS"
            # or "SciB-" / "ERT", "MED-" / "LINE": as the paper writes it elsewhere)
            keep = (text[:1].islower() or text[:1].isdigit()) and _compound_end(out[:-1] + "-") \
                or _TITLE_START.match(text) and _lower_end(out)
            out = out[:-1] + ("-" if keep else HYPHEN_JOIN if mark and text[:1].isalpha()
                              else "") + text
        elif out.endswith("-") and len(out) > 1 and out[-2].isalnum() and \
                text[:1].isalnum() and ((compound := _compound_end(out) or text[:1].isupper())
                                        or text[:1].islower()):
            # "TCA-" / "induced", "N-OH-3-" / "ABA": a hyphen of its own; "experi-" /
            # "ments": a cut word
            out = out[:-1] + ("-" if compound else HYPHEN_JOIN if mark else "") + text
        elif out.endswith(("\u2013", "\u2014")) and len(out) > 1 and out[-2].isalnum():
            out += text  # "transcription–" / "polymerase": a dash set close
        else:
            out = out + " " + text
    # (a soft hyphen ending the text stays: the block after it may carry the word on,
    # "testos-" / "terone" across a run-in head's line; walk_parts takes it out at last)
    return out[:-1].replace("\u00ad", "") + out[-1:]


#: A line ending in an acronym or a word with a digit and a hyphen ("TCA-", "p53-",
#: "2-"): a compound's ("TCA-induced", "2-fold"), not a word cut to fit.
_ACRONYM_END = re.compile(r"(?<![\w-])(?:\w*\d\w*|[A-Z]{2,}[A-Z0-9]*)-$")


_TITLE_START = re.compile(r"[A-Z][a-z]")  # "Aldrich", "BrdU"


def _lower_end(text: str) -> bool:
    """Whether ``text``, ending in a soft hyphen, ends in a word with a small letter
    ("Sigma-", "anti-"; not "MED-")."""
    k = j = len(text) - 1
    while j > max(k - 48, 0) and text[j - 1].isalpha():
        j -= 1
    return any("a" <= c <= "z" for c in text[j:k])


def _compound_end(text: str) -> bool:
    """Whether ``text`` ends as :data:`_ACRONYM_END` says, looking at its last word only
    (the paragraph so far grows with every line joined)."""
    return bool(_ACRONYM_END.search(text, max(len(text) - 48, 0)))
_COMPOUND = re.compile(r"(?<![\w-])([^\W\d_]+)-([^\W\d_]+)")
_MARKED = re.compile(f"([^\\W\\d_]*){HYPHEN_JOIN}([^\\W\\d_]*)")


def resolve_hyphens(texts: list[str]) -> list[str]:
    """``texts`` with each :data:`HYPHEN_JOIN` made a hyphen where the paper writes that
    compound with one elsewhere ("parameter-efficient" mid-line), else taken out."""
    seen = {f"{a}-{b}".lower() for t in texts for a, b in _COMPOUND.findall(t)}

    def one(m: re.Match) -> str:
        left, right = m.group(1), m.group(2)
        return f"{left}-{right}" if f"{left}-{right}".lower() in seen else left + right

    return [_MARKED.sub(one, t) if HYPHEN_JOIN in t else t for t in texts]


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
    spacing = line_spacing(lines, body)
    steps = _steps(lines)
    for i, line in enumerate(lines):
        if prev is None or _breaks(prev, line, body, spacing, _leading(steps, i)):
            blocks.append(Block())
            if prev is not None and (prev.page, prev.column) != (line.page, line.column):
                blocks[-1].continues = True  # a candidate, decided later
        blocks[-1].lines.append(line)
        prev = line
    return blocks


def line_spacing(lines: list[Line], body: float) -> float:
    """How far apart the baselines of consecutive lines of body text usually are: more
    than the body's size in double-spaced theses and manuscripts."""
    steps: Counter = Counter()
    for prev, line in zip(lines, lines[1:], strict=False):
        if (prev.page, prev.column) == (line.page, line.column) and \
                abs(prev.size - body) <= 0.6 and abs(line.size - body) <= 0.6:
            step = prev.base - line.base
            if 0.8 * body < step < 3.5 * body:
                steps[round(step * 2) / 2] += 1
    return steps.most_common(1)[0][0] if steps else 1.2 * body


def _steps(lines: list[Line]) -> list[float]:
    """For each line, how far its baseline lies under the line before it where both are
    of one size in one region, else 0."""
    out = [0.0]
    for a, b in zip(lines, lines[1:], strict=False):
        same = (a.page, a.column) == (b.page, b.column) and abs(a.size - b.size) <= 0.3
        out.append(a.base - b.base if same else 0.0)
    return out


def _leading(steps: list[float], i: int) -> float:
    """The step to line ``i`` where a neighbouring pair of lines steps as far (the text's
    own leading, loose in a box set small), else 0."""
    here = steps[i]
    near = steps[max(i - 1, 0):i] + steps[i + 1:i + 2]
    return here if here > 0 and any(abs(k - here) < 0.3 for k in near) else 0.0


def _breaks(prev: Line, line: Line, body: float, spacing: float = 0.0,
            leading: float = 0.0) -> bool:
    if (prev.page, prev.column) != (line.page, line.column):
        return True
    size = max(prev.size, line.size)
    # a gap wider than the lines' own spacing (wide in double-spaced text; in text set
    # apart from the body, its own leading where the lines keep it)
    if abs(size - body) > 0.6:
        spacing = leading if leading < 2.2 * size else 0.0
    extra = max(spacing - 1.25 * size, 0.0)
    if prev.bottom - line.top > 0.45 * size + extra or line.top > prev.top + 0.5 * size:
        return True
    if abs(prev.size - line.size) > 0.6:
        return True
    if prev.bold >= 0.6 and line.bold < 0.3 and \
            not (_run_in(prev) or _item_title(prev, line, body)) or \
            prev.bold < 0.3 and line.bold >= 0.6:
        return True
    indent = line.x0 - line.col_left
    prev_indent = prev.x0 - prev.col_left
    if 0.6 * body < indent < 5 * body and prev_indent < 0.3 * body and \
            not (prev.bold >= 0.6 and line.bold >= 0.6) and \
            not _hanging(prev, line, body):  # (a heading's or a list item's hanging indent)
        return True  # a first-line indent starts a paragraph
    if indent >= 5 * body and SENTENCE_END.search(prev.text):
        return True  # a centred block under a sentence: table rows under their caption
    if CAPTION.match(line.text) and SENTENCE_END.search(prev.text):
        return True
    head = line.bold_prefix().strip()
    if head[-1:] in (":", ".") and len(head) <= 60 and prev.bold < 0.3 and \
            SENTENCE_END.search(prev.text):
        return True  # a run-in head ("Methods: ...") opens a paragraph
    short = prev.x1 < line.col_right - 2.5 * body
    if short and prev_indent - indent > 0.6 * body and _looks_new(line) and \
            abs(line.size - body) <= 0.6:  # (not a title's centred lines)
        return True  # out of a list item's hanging indent: "... modeling)" / "R tutorials"
    # (a short line ending in a colon: a list follows)
    ends = bool(SENTENCE_END.search(prev.text)) or prev.text.rstrip().endswith(":")
    return short and ends and indent < 0.3 * body \
        and prev_indent < 0.3 * body and line.gaps == 0 and prev.gaps == 0 and \
        _looks_new(line)


def _run_in(line: Line) -> bool:
    """Whether ``line`` opens with a run-in head and goes on in the body's type ("**Preparing
    the input layer.** We split each"): bold for the most part, but not a heading."""
    head = line.bold_prefix().strip()
    return head[-1:] in (".", ":") and len(line.text.strip()) - len(head) >= 8


def _item_title(prev: Line, line: Line, body: float) -> bool:
    """Whether ``prev`` is a numbered item's bold title on a line of its own, and
    ``line`` the item's text under it, set in from the number ("1. **Select and
    simplify**" / "To reduce cognitive overload ..."): one paragraph, as in the XML. A
    list is set in from its column; a numbered heading ("1. Introduction") is not."""
    return bool(ENUMERATOR.match(prev.text)) and prev.x0 - prev.col_left > 0.3 * body \
        and 0.3 * body < line.x0 - prev.x0 < 3 * body


def _hanging(prev: Line, line: Line, body: float) -> bool:
    """Whether indented ``line`` carries on the full line before it, as a list item's
    second line does ("• What is the percentage of female subjects in" / "depression
    clinical trials?"): a paragraph does not open in lower case mid-sentence."""
    return line.text[:1].islower() and prev.x1 >= line.col_right - 2.5 * body and \
        not SENTENCE_END.search(prev.text)


def _looks_new(line: Line) -> bool:
    first = line.text[:1]
    return first.isupper() or first.isdigit() or first in BULLETS


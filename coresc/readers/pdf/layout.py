"""From a page's runs of glyphs to lines in reading order.

The page is cut into regions by recursive XY-cuts (:mod:`~coresc.readers.pdf.xycut`):
down its gutters, across the gaps under a title, around a figure or a box; each leaf
region is a column of text read top to bottom, and runs of one leaf on one baseline are
joined into a line. Besides: fonts that say nothing of their weight restyled, the line
numbers of a manuscript taken out, running heads and page numbers found.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from .extract import SUP_CLOSE, SUP_OPEN
from .fonts import is_mono
from .xycut import xy_leaves


@dataclass(slots=True)
class Line:
    """A line of text in one region of its page, in PDF points, y upwards."""

    page: int
    x0: float
    y0: float
    x1: float
    y1: float
    base: float
    size: float
    text: str
    bold: float
    italic: float
    styles: list[list] = field(default_factory=list)
    column: int = 0  # the leaf region of the page's XY-cuts it lies in
    gaps: int = 0  # wide gaps inside the line (table cells)
    col_left: float = 0.0
    col_right: float = 0.0
    marked: str = ""  # the text with its superscripts marked (``extract.SUP_OPEN`` ...)

    @property
    def top(self) -> float:
        return self.y1

    @property
    def bottom(self) -> float:
        return self.y0

    def bold_prefix(self) -> str:
        """The line's marked text up to where its bold start ends ("" unless it starts
        bold); or up to the stop after an italic head where a subsection's number opens
        the line (the Annals' "2.1. *Animals.* The ...")."""
        end, seen, upright = 0, False, False
        for k, (count, bold, *rest) in enumerate(self.styles):
            if not bold and k == 0 and _HEAD_NUMBER.match(self.marked[:count].strip()):
                end += count  # a head's number set upright (amsart's "2.1. **Reagents.**";
                upright = True  # a list item's "1. **Reusability** Writing" is none)
                continue
            if not bold and k == 1 and upright and rest and rest[0] and \
                    "." in self.marked[:end].strip().rstrip("."):
                return self._italic_head(end)
            if not bold and seen and count <= 2 and k + 1 < len(self.styles) and \
                    self.styles[k + 1][1]:
                end += count  # a symbol in a font of its own: "TNF-α production" in bold
                continue
            if not bold:
                break
            seen = True
            # bold runs in several fonts ("emm" in a font of its own) are one; a stop ends
            # the head ("Aims:" before a species' name in bold italic)
            end += count
            so_far = self.marked[:end].rstrip()
            if so_far.endswith((".", ":", "\u2014")) and not _HEAD_NUMBER.match(so_far):
                break  # (not at a section's number: "**2.1. Reagents.** MAP ...")
        stops = self.marked[:end].rstrip().endswith((".", ":", "\u2014"))
        return self.marked[:end] if seen and (stops or not upright) else ""

    def italic_lead(self) -> str:
        """The line's marked text up to the stop after its italic start (the end of an
        italic head wrapped onto it: "*gene.* DCA was ..."), or ""."""
        return self._italic_head(0, 0)

    def _italic_head(self, end: int, first: int = 1) -> str:
        """The marked text up to the stop after the italic runs from run ``first`` (at
        ``end``) on, a figure or symbol set upright among them ("*Reaction of styrene-*
        7,8 *-oxide*."); the whole line where they fill it (a head wrapped onto the next
        line); "" where no stop follows them."""
        start = end
        for k in range(first, len(self.styles)):
            count, _bold, *rest = self.styles[k]
            piece = self.marked[end:end + count]
            if rest and rest[0] or k > first and k + 1 < len(self.styles) and \
                    self.styles[k + 1][2:3] == [True] and (
                    count <= 2 or count <= 3 and not any(c.isalpha() for c in piece)):
                end += count
                continue
            break
        else:
            return self.marked if end > start else ""
        if end > start and self.marked[end:end + 1] in (")", "]"):
            end += 1  # an upright bracket closing it ("*... oxidation (CIPCO*).")
        return self.marked[:end + 1] if end > start and self.marked[end:end + 1] in (".", ":") \
            else ""


_HEAD_NUMBER = re.compile(r"^(?:\d{1,2}\.){1,4}$")


_NAMED_BOLD = re.compile(r"bold|black|heavy|semibd|demi|[,-]b$|[,-]bd|medium", re.I)
_NAMED_ITALIC = re.compile(r"ital|obli|[,.-]i$|[,.-]it$|slant", re.I)


def restyle(pages: list[dict]) -> None:
    """Where no font's name says it is bold (subset names such as ``AdvP40319B``), take
    letters in a font other than the body's, and not named italic, as set apart.

    Changes the runs' bold share and their styles in place.
    """
    letters: Counter = Counter()
    pieces: Counter = Counter()
    for page in pages:
        for r in page["runs"]:
            for n, _b, _i, font in r[10]:
                letters[font] += n
                pieces[font] += 1
    if not letters or any(_NAMED_BOLD.search(f) for f in letters):
        return
    body_font, most = letters.most_common(1)[0]
    # a font for headings and run-in phrases is used little, in short pieces (not, say,
    # the whole abstract's font; nor a typewriter font: URLs and code)
    emphasis = {f for f, n in letters.items()
                if n < 0.1 * most and n / pieces[f] < 50 and not is_mono(f)}
    for page in pages:
        for r in page["runs"]:
            total = marked = 0
            for style in r[10]:
                n, bold, italic, font = style
                if not bold and font in emphasis and not _NAMED_ITALIC.search(font) \
                        and not italic:
                    style[1] = True
                total += n
                marked += n if style[1] else 0
            r[7] = marked / total if total else 0.0


def run_body_size(pages: list[dict]) -> float:
    """The size most characters of the runs are set in."""
    sizes: Counter = Counter()
    for page in pages:
        for r in page["runs"]:
            sizes[round(r[5] * 2) / 2] += len(r[6])
    return sizes.most_common(1)[0][0] if sizes else 10.0


def page_lines(page: dict, index: int, body: float) -> list[Line]:
    """A page's lines in reading order: its runs in the leaf regions of the XY-cuts
    (:mod:`~coresc.readers.pdf.xycut`), each leaf a column of text read top to bottom;
    ``body``: the document's body size (in the runs' units)."""
    runs = _join_pieces(_patch_glyphs([r for r in page["runs"] if r[6].strip()]))
    lines: list[Line] = []
    for col, leaf in enumerate(xy_leaves(runs, body)):
        for r in sorted(leaf, key=lambda r: (-r[4], r[0])):  # top to bottom, left to right
            _add_run(lines, r, index, col)
    _column_bounds(lines)
    return lines


def _add_run(lines: list[Line], r: list, index: int, col: int) -> None:
    """A run onto the last line where it carries on its baseline, else as a new line."""
    x0, y0, x1, y1, base, size, text, bold, italic, _font, styles = r
    last = lines[-1] if lines else None
    if last is not None and last.column == col and \
            abs(last.base - base) < 0.35 * max(size, last.size) and x0 >= last.x1 - 1:
        _extend(last, r)
        return
    lines.append(Line(index, x0, y0, x1, y1, base, size, unmark(text).strip(), bold,
                      italic, _strip_styles(styles, text), col, marked=text.strip()))


def _patch_glyphs(runs: list[list]) -> list[list]:
    """A glyph drawn apart from its line, later, in a font of its own (a word processor's
    fallback for a character its font lacks: the prime of "2′-deoxy"), put back into the
    gap it fills: the space the line's text holds where it stands."""
    out: list[list] = []
    for r in runs:
        text = r[6].strip()
        host = next((h for h in reversed(out[-4:]) if _fills(h, r)), None) \
            if len(text) == 1 else None
        if host is None:
            out.append(r)
            continue
        at = round((r[0] - host[0]) / (host[2] - host[0]) * len(host[6]))
        spaces = [k for k in range(max(at - 3, 1), min(at + 4, len(host[6]) - 1))
                  if host[6][k] == " "]
        if not spaces:
            out.append(r)
            continue
        k = min(spaces, key=lambda k: abs(k - at))
        host[6] = host[6][:k] + text + host[6][k + 1:]
    return out


def _fills(host: list, r: list) -> bool:
    """Whether run ``r`` stands on ``host``'s baseline, inside its span."""
    return abs(host[4] - r[4]) < 0.2 * host[5] and host[0] < r[0] and r[2] < host[2] and \
        len(host[6]) > 8 and r[9] != host[9]


def _join_pieces(runs: list[list]) -> list[list]:
    """Runs that follow each other on one baseline with a word's gap or less between them
    (a change of font, an italic word) joined into one, before columns are assigned."""
    out: list[list] = []
    for r in runs:
        last = out[-1] if out else None
        if last is not None:
            size = max(r[5], last[5])
            gap = r[0] - last[2]
            if abs(r[4] - last[4]) < 0.2 * size and (-0.5 * size < gap < 0.9 * size or
                                                     _heading_number(last, r, gap)):
                out[-1] = _joined(last, r, gap > 0.18 * size)
                continue
        out.append(list(r))
    return out


def _joined(a: list, b: list, space: bool) -> list:
    na, nb = max(len(a[6].strip()), 1), max(len(b[6].strip()), 1)
    # (the shares of bold and italic are of letters: a number's weight is not known)
    wa, wb = na, nb
    if (a[7], a[8]) != (b[7], b[8]):
        la, lb = (sum(c.isalpha() for c in r[6]) for r in (a, b))
        wa, wb = (la, lb) if la + lb else (na, nb)
    text_a = a[6] + (" " if space and not a[6].endswith(" ") else "")
    styles = [list(x) for x in a[10]]
    if len(text_a) > len(a[6]) and styles:
        styles[-1][0] += 1
    styles += [list(x) for x in b[10]]
    size = a[5] if na >= nb else b[5]
    return [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]),
            a[4] if na >= nb else b[4], size, text_a + b[6],
            (a[7] * wa + b[7] * wb) / (wa + wb), (a[8] * wa + b[8] * wb) / (wa + wb),
            a[9] if na >= nb else b[9], styles]


def unmark(text: str) -> str:
    """``text`` without its superscript marks."""
    return text.replace(SUP_OPEN, "").replace(SUP_CLOSE, "") if SUP_OPEN in text else text


_SECTION_NUMBER = re.compile(r"(?:\d{1,2}|[A-H])(?:\.\d{1,2}){0,3}\.?")


def _heading_number(number: list, r: list, gap: float) -> bool:
    """A section number set a quad or two before its heading's bold words ("1.1 Subject
    selection"): one line, though the gap is wider than a word's. (A number's weight is
    not known: only letters count in a run's bold share.)"""
    return 0 < gap < 2.5 * r[5] and r[7] >= 0.5 and \
        abs(number[5] - r[5]) < 0.3 and bool(_SECTION_NUMBER.fullmatch(number[6].strip()))


def _strip_styles(styles: list[list], text: str) -> list[list]:
    lead = len(text) - len(text.lstrip())
    out = [list(s) for s in styles]
    while lead and out:
        take = min(lead, out[0][0])
        out[0][0] -= take
        lead -= take
        if out[0][0] == 0:
            out.pop(0)
    return out


def _extend(line: Line, r: list) -> None:
    x0, y0, x1, y1, _base, size, text, bold, italic, _font, styles = r
    gap = x0 - line.x1
    if gap > 1.5 * max(size, line.size):
        line.gaps += 1
    n_old = max(len(line.text), 1)
    n_new = max(len(text.strip()), 1)
    line.bold = (line.bold * n_old + bold * n_new) / (n_old + n_new)
    line.italic = (line.italic * n_old + italic * n_new) / (n_old + n_new)
    line.styles.append([1, line.styles[-1][1] if line.styles else False, False])
    line.styles.extend(_strip_styles(styles, text))
    line.text = line.text + " " + unmark(text).strip()
    line.marked = line.marked + " " + text.strip()
    line.x1 = max(line.x1, x1)
    line.y0, line.y1 = min(line.y0, y0), max(line.y1, y1)
    line.size = max(line.size, size) if size >= 0.8 * line.size else line.size


def _column_bounds(lines: list[Line]) -> None:
    """Each line's column edges: the leftmost of the three x positions most of its
    column's lines start at (each of them at least a fifth as common as the first), and
    the right margin (:func:`_right_edge`)."""
    starts: dict[int, Counter] = {}
    ends: dict[int, list[float]] = {}
    for line in lines:
        starts.setdefault(line.column, Counter())[round(line.x0)] += 1
        ends.setdefault(line.column, []).append(line.x1)
    right = {col: _right_edge(xs) for col, xs in ends.items()}
    # (a lone line further left, a footnote's or a float's, is not the column's edge)
    left = {col: min(x for x, n in c.most_common(3) if n >= 0.2 * c.most_common(1)[0][1])
            for col, c in starts.items()}
    for line in lines:
        line.col_left, line.col_right = left[line.column], right[line.column]


def _right_edge(ends: list[float]) -> float:
    """A column's right margin: the rightmost end that three lines reach (within a
    point), past one or two lines set over it (an overfull line: a long word the
    typesetter could not break); the rightmost end where no three lines end together
    (ragged text)."""
    ends = sorted(ends, reverse=True)
    for edge in ends[:3]:
        if sum(1 for x in ends if abs(x - edge) <= 1.0) >= 3:
            return edge
    return ends[0]

"""Pages whose text is set at a slant, turned upright before they are read (part of the
child process, :mod:`coresc.readers.pdf.extract`).

The reader takes glyphs more than 34 degrees off the horizontal for margin notes, stamps
and axis labels, and leaves them out; a smaller slant it read as if upright, which mixed
the lines into garbage. A page whose text is mostly set at one angle (a page printed at
45 degrees, a landscape table drawn sideways without ``/Rotate``) is its own main text:
its objects are turned by that angle in PDFium's copy of the page, so that the reading
sees it upright, and what stands at another angle on it is left out as before.
"""

from __future__ import annotations

import ctypes
import math
from collections import Counter

from .hidden import PageView, doubled_box

#: Share of a page's glyphs (of those sampled) that must share an angle for it to be the
#: page's; glyphs sampled at most.
_MAIN_SHARE = 0.6
_SAMPLES = 2_000
#: Text this close to upright (radians, either side) is upright.
_UPRIGHT = math.radians(2)


def main_slant(tp, raw, count: int, turn: float, view: PageView) -> float:
    """The angle (clockwise radians, as PDFium gives it) that most of the page's glyphs
    that can be seen share (``view``: the page's objects, which tell), when that is not
    upright as the page is shown (``turn``: its ``/Rotate`` in radians); 0 otherwise."""
    step = max(count // _SAMPLES, 1)
    angles: Counter = Counter()
    bx0, by0, bx1, by1 = doubled_box(view)
    rect = raw.FS_RECTF()
    for i in range(0, count, step):
        obj = ctypes.cast(raw.FPDFText_GetTextObject(tp, i), ctypes.c_void_p).value
        raw.FPDFText_GetLooseCharBox(tp, i, rect)
        if raw.FPDFText_GetUnicode(tp, i) in (0, 10, 13, 32) or not obj or view.hidden(obj) \
                or not (bx0 <= rect.left + rect.right <= bx1
                        and by0 <= rect.bottom + rect.top <= by1):
            continue  # (hidden text cannot turn the page: the visible text would be lost)
        angles[round(math.degrees(raw.FPDFText_GetCharAngle(tp, i))) % 360] += 1
    if not angles:
        return 0.0
    degrees, n = angles.most_common(1)[0]
    shown = math.radians(degrees) + turn
    off = min(shown % (2 * math.pi), -shown % (2 * math.pi))
    if n < _MAIN_SHARE * sum(angles.values()) or off <= _UPRIGHT:
        return 0.0
    return math.radians(degrees)


def turn_upright(page, raw, angle: float) -> None:
    """Turn every object of ``page`` (PDFium's copy, in memory) by ``angle`` (clockwise
    radians, the text's) counter-clockwise, so its text runs left to right, and make
    the page the box the turned page fills, not turned (``/Rotate`` 0)."""
    box = raw.FS_RECTF()
    if not raw.FPDF_GetPageBoundingBox(page, box):
        return
    c, s = math.cos(angle), math.sin(angle)
    corners = [(x * c - y * s, x * s + y * c) for x in (box.left, box.right)
               for y in (box.bottom, box.top)]
    left = min(x for x, _ in corners)
    bottom = min(y for _, y in corners)
    new_w = max(x for x, _ in corners) - left
    new_h = max(y for _, y in corners) - bottom
    for i in range(raw.FPDFPage_CountObjects(page)):
        raw.FPDFPageObj_Transform(raw.FPDFPage_GetObject(page, i), c, s, -s, c, -left,
                                  -bottom)
    raw.FPDFPage_SetMediaBox(page, 0.0, 0.0, new_w, new_h)
    raw.FPDFPage_SetCropBox(page, 0.0, 0.0, new_w, new_h)
    raw.FPDFPage_SetRotation(page, 0)


def upright_page(page, textpage, raw, turn: float, view: PageView):
    """A new text page (pypdfium2's) of ``page`` turned upright when its main text is set
    at a slant (see :func:`main_slant`; ``textpage``, closed then, is the old one); None
    when it is not."""
    tp = textpage.raw
    angle = main_slant(tp, raw, raw.FPDFText_CountChars(tp), turn, view)
    if not angle:
        return None
    textpage.close()
    turn_upright(page.raw, raw, angle)
    return page.get_textpage()


#: Characters left out as turned above which, and above this share of those read, a
#: reading says so: more than an arXiv stamp or a figure's axis labels.
_TURNED_SAID = 300
_TURNED_SHARE = 0.1


def turned_note(turned: int, read: int) -> str | None:
    """One line when much of a PDF's text was left out as turned (on its side, or upside
    down by a negative font size), else None: a loss that large is never silent."""
    if turned < _TURNED_SAID or turned < _TURNED_SHARE * read:
        return None
    return (f"{turned:,} characters set turned on their side or upside down (beside the "
            f"{read:,} read upright), not read")

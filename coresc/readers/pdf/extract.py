"""The glyphs of a PDF, grouped into runs on a line: the first part of reading a PDF, in
the child process of :mod:`coresc.readers.pdf.child`.

PDFium (through pypdfium2) parses the PDF and gives every character with its origin,
box and font. A crash, a hang or a decompression bomb inside a C library cannot be
stopped from Python in the same process, so this module runs in a child, its memory
and time bounded (:mod:`coresc.readers.pdf.child`).

The JSON: ``{"pages": [{"w": width, "h": height, "runs": [run, ...], "glyphs": [...],
"xs": "base64", "turn": [degrees, scale]}, ...], "n_pages":
n, "outline": [[level, title, page], ...], "left_out": ["one line", ...], "unmapped":
n}`` (the PDF's bookmarks; ``left_out``: what was not read, when something was;
``unmapped``: characters read from fonts with no Unicode map, when there are any) or
``{"error": "one line"}``. A run is a list ``[x0, y0, x1, y1, base, size, text, bold,
italic, font, styles]``: consecutive glyphs in content order on one baseline (PDF
coordinates, y upwards, in points); ``size`` the glyph height of the run's main font;
``bold`` and ``italic`` the share of its letters so set; ``styles`` the run's text
split where boldness, italics or the font change; superscript glyphs stand between
``SUP_OPEN`` and ``SUP_CLOSE`` in the text, as ``[[n_chars, bold, italic, font],
...]``. ``glyphs``: each run's ``[y0, y1, text]`` (``_Run.glyphs``), ``xs`` the left and right
edges of each of their characters in turn (32-bit floats, little-endian as the machine
is, base64: compact for a document of millions), from which sentences are found on the
page; ``turn``: the page's ``/Rotate`` and scale
(:class:`~coresc.readers.pdf.turn.Turn`).
"""

from __future__ import annotations

import base64
import ctypes
import math
import unicodedata
from array import array

from .codes import page_codes
from .fonts import boxed_size, is_mono, mono_size, object_style, own_boxes, page_ratio
from .hidden import PDFIUM_FORM_LEVELS, PageView, doubled_box
from .slant import turned_note, upright_page
from .turn import Turn as _Turn
from .type3 import em_size, guessed_note, tex_glyph
from .vertical import stacks_note, vertical_runs

#: Characters one page may hold, and the whole document: a page of millions of glyphs is
#: refused rather than laid out (what a page of real text holds is under 20,000).
MAX_PAGE_CHARS = 200_000
MAX_DOC_CHARS = 3_000_000
#: Pages read at most.
MAX_PAGES = 2_000

# Spacing accents that PDFs set as glyphs of their own beside the letter they sit on.
_ACCENTS = {"\u00b4": "\u0301", "`": "\u0300", "\u00a8": "\u0308", "\u02c6": "\u0302",
            "^": "\u0302", "\u02dc": "\u0303", "~": "\u0303", "\u00b8": "\u0327",
            "\u02c7": "\u030c", "\u02da": "\u030a", "\u00af": "\u0304", "\u02d9": "\u0307",
            "\u02dd": "\u030b", "\u02d8": "\u0306", "\u02db": "\u0328"}
# Characters that carry nothing: PDFium's markers, byte-order marks, controls.
_DROP = {"\ufffe", "\uffff", "\ufeff", "\u0000", "\u0002", "\u00ad", "\u200b"}
_SOFT_HYPHENS = {"\u00ad", "\ufffe", "\u0002"}


#: Around a run of superscript glyphs in a run's text (citation numbers, footnote marks).
SUP_OPEN, SUP_CLOSE = "\ue000", "\ue001"


class ExtractError(Exception):
    """A PDF that cannot be read; the message is one line."""


def compose(letter: str, mark: str) -> str:
    """A letter and the accent set over it as one character: TeX's dotless i and j
    take the accent as "i" and "j" do ("\\'{\\i}": "í", not "ı́")."""
    return unicodedata.normalize("NFC", _DOTTED.get(letter, letter) + mark)


_DOTTED = {"\u0131": "i", "\u0237": "j"}


class _Run:
    __slots__ = ("x0", "y0", "x1", "y1", "base", "sizes", "chars", "bold", "italic",
                 "font", "letters", "sup", "marks")

    def __init__(self) -> None:
        self.x0 = self.y0 = float("inf")
        self.x1 = self.y1 = float("-inf")
        self.base = 0.0
        self.sizes: dict[float, int] = {}
        self.chars: list[tuple] = []
        self.bold = self.italic = self.letters = 0
        self.font: dict[str, int] = {}
        self.sup = False  # inside a run of raised small glyphs
        self.marks: list[tuple[int, float, float]] = []  # (index in chars, x0, x1) a glyph

    def size(self) -> float:
        return max(self.sizes.items(), key=lambda kv: kv[1])[0] if self.sizes else 0.0

    def add(self, ch: str, box: tuple[float, float, float, float], base: float, size: float,
            bold: bool, italic: bool, font: str, main: bool) -> None:
        x0, y0, x1, y1 = box
        self.x0, self.y0 = min(self.x0, x0), min(self.y0, y0)
        self.x1, self.y1 = max(self.x1, x1), max(self.y1, y1)
        if main:
            self.base = base
        key = round(size * 2) / 2
        raised = not main and self.sizes and y0 > self.base + 0.1 * self.size()
        if ch.strip():
            # (a line of many raised citation numbers is set in its words' size)
            if not raised or ch.isalpha():
                self.sizes[key] = self.sizes.get(key, 0) + 1
            if ch.isalpha():
                self.letters += 1
                self.bold += bold
                self.italic += italic
                self.font[font] = self.font.get(font, 0) + 1
        if raised != self.sup and (ch.strip() or not raised):
            self.chars.append((SUP_OPEN if raised else SUP_CLOSE, bold, italic, font))
            self.sup = raised
        self.marks.append((len(self.chars), x0, x1))
        self.chars.append((ch, bold, italic, font))

    def glyphs(self, xs: array) -> list:
        """The run's glyphs for locating sentences on the page (:mod:`.boxes`): ``[y0, y1,
        text]``, with each character's left and right edge added to ``xs`` in turn (an
        accent composed onto its letter is one; a ligature's letters split its width)."""
        text = []
        for i, x0, x1 in self.marks:
            ch = self.chars[i][0]
            step = (x1 - x0) / len(ch)  # a ligature's letters share its box
            for k in range(len(ch)):
                xs.extend((x0 + k * step, x0 + (k + 1) * step))
            text.append(ch)
        # the line's height in its main font: a tall glyph (a math font's loose box)
        # would reach into the lines above and below
        size = self.size() or (self.y1 - self.y0)
        y0, y1 = max(self.y0, self.base - 0.3 * size), min(self.y1, self.base + 0.85 * size)
        return [round(y0, 1), round(y1, 1), "".join(text)]

    def dump(self) -> list:
        if self.sup:
            self.chars.append((SUP_CLOSE, False, False, ""))
            self.sup = False
        text = "".join(c[0] for c in self.chars)
        styles: list[list] = []
        for ch, bold, italic, *font in self.chars:
            if ch.isspace() and styles:
                styles[-1][0] += 1  # a space keeps the style it follows
            elif styles and styles[-1][1:] == [bold, italic, font[0] if font else ""]:
                styles[-1][0] += 1
            else:
                styles.append([1, bold, italic, font[0] if font else ""])
        n = max(self.letters, 1)
        font = max(self.font.items(), key=lambda kv: kv[1])[0] if self.font else ""
        return [round(self.x0, 2), round(self.y0, 2), round(self.x1, 2), round(self.y1, 2),
                round(self.base, 2), self.size(), text, round(self.bold / n, 3),
                round(self.italic / n, 3), font, styles]


def _page_runs(textpage, raw, budget: int, turn: _Turn | None = None,
               view: PageView | None = None, fonts: dict | None = None,
               glyphs: list | None = None, xs: array | None = None) -> list[list]:
    """The runs of one page, in content order, in the page's upright frame (``turn``: its
    ``/Rotate``), without the glyphs nobody sees (``view``: the page's objects,
    :mod:`coresc.readers.pdf.hidden`); ``fonts``: the names given to unnamed fonts;
    ``glyphs``: gets each run's :meth:`_Run.glyphs`, ``xs`` its characters' edges."""
    turn = turn or _Turn(0, 0.0, 0.0)
    tp = textpage.raw
    count = raw.FPDFText_CountChars(tp)
    if count > MAX_PAGE_CHARS:
        raise ExtractError(f"a page holds {count:,} characters, more than the "
                           f"{MAX_PAGE_CHARS:,} read on one page")
    if count > budget:
        raise ExtractError(f"holds more than {MAX_DOC_CHARS:,} characters, the most read "
                           f"of one document")
    ox, oy = ctypes.c_double(), ctypes.c_double()
    buffers = (ctypes.create_string_buffer(96), ctypes.c_int(), ctypes.c_float())
    rect = raw.FS_RECTF()
    runs: list[list] = []
    run: _Run | None = None
    prev_x0 = prev_x1 = prev_base = prev_size = 0.0
    accent, accent_at, accent_x0 = "", 0.0, 0.0  # a spacing accent waiting for its letter
    font_cache: dict[tuple[bytes, int, int], tuple[bool, bool, str]] = {}
    get_object = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)(
        ctypes.cast(raw.FPDFText_GetTextObject, ctypes.c_void_p).value)
    codes = page_codes(tp, raw, count)
    ratio = page_ratio(raw, tp, count, codes, rect)
    boxed = ratio < 0  # the glyphs' own boxes: sizes from the fonts' point sizes
    mono = own = False
    owned: dict[str, bool] = {}  # font -> its glyphs' boxes are their own (one font's)
    angle = raw.FPDFText_GetCharAngle
    last_obj = None
    style, flip = (False, False, ""), 0.0
    unseen = unmapped = False
    em = 0.0
    bx0, by0, bx1, by1 = doubled_box(view)
    dropped = view.dropped if view is not None else {}
    seen: dict[tuple, int] = {}  # (code, left, baseline) -> the text object drawing it
    spaced = False  # the text stream holds a space before the next glyph
    tied = False  # the last glyph is a ligature's (its letters share one box)
    for i in range(count):
        code = codes[i]
        ch = chr(code) if 0 < code < 0x110000 else ""
        if ch in (" ", "\r", "\n"):
            spaced = spaced or ch == " "
            continue
        if not ch or (ch in _DROP and ch not in _SOFT_HYPHENS):
            continue
        obj = get_object(tp, i)
        if obj != last_obj:  # a text object has one font: look it up once
            last_obj = obj
            unseen = view is not None and obj is not None and view.hidden(obj)
            style, flip = object_style(tp, raw, i, obj, font_cache, buffers,
                                        {} if fonts is None else fonts)
            unmapped = bool(raw.FPDFText_HasUnicodeMapError(tp, i))  # its font's, as a rule
            em = em_size(raw, tp, i, style[2])
            mono = ratio > 0 and is_mono(style[2])
            if ratio > 0 and not mono and style[2] not in owned:
                owned[style[2]] = own_boxes(raw, tp, i, codes, rect, style[2])
            own = owned.get(style[2], False)
        if unmapped and code < 0x20:  # TeX's ligatures, quotes, dashes (a Type3 font)
            ch = tex_glyph(codes, i)
        # the angle as the page is shown (clockwise), the glyphs half turned by a negative
        # font size
        a = (angle(tp, i) + flip + turn.radians) % (2 * math.pi)
        if 0.6 < a < 5.68:
            dropped["turned"] = dropped.get("turned", 0) + 1
            continue  # rotated text: margin notes, arXiv stamps, axis labels (a small
            # angle is a slanted font: PDFs fake italics and bold with a sheared matrix)
        raw.FPDFText_GetLooseCharBox(tp, i, rect)
        raw.FPDFText_GetCharOrigin(tp, i, ox, oy)
        x0, bottom, x1, top = turn.box(rect.left, rect.bottom, rect.right, rect.top)
        size = top - bottom
        base = turn.point(ox.value, oy.value)[1]
        if em and 0.5 * em <= size <= 1.5 * em:  # a Type3 font's box: its glyphs' box
            size, bottom, top = em, base - 0.25 * em, base + 0.75 * em
        if not (size > 0.5 and base == base):  # (NaN: a matrix of no size)
            continue
        if boxed and not em:  # the glyph's own box: the line's height from its font's size
            size = boxed_size(raw, tp, i, size)
            bottom, top = base - 0.25 * size, base + 0.75 * size
        elif mono:
            size = mono_size(raw, tp, i, size, ratio)
        elif own and not em:  # (one font's glyphs in their own boxes: sized as the page's)
            size = raw.FPDFText_GetFontSize(tp, i) * ratio or size
            bottom, top = base - 0.25 * size, base + 0.75 * size
        if unseen or (x1 - x0 < 0.05 * size and ch.isalnum()) or not (
                bx0 <= rect.left + rect.right <= bx1 and by0 <= rect.bottom + rect.top <= by1):
            dropped["hidden"] = dropped.get("hidden", 0) + 1
            continue  # unseen: squeezed to no width, or drawn off the page (by its middle)
        key = (code, x0, base)
        if seen.setdefault(key, obj) != obj:
            continue  # the same glyph again in the same place (a form drawing itself; the
            # letters of a ligature share a place in one object)
        bold, italic, font = style
        if ch in _SOFT_HYPHENS:
            ch = "\u00ad"
        if ch in _ACCENTS and size < 2 * prev_size + 1:
            last = run.chars[-1][0] if run is not None and run.chars else ""
            middle = (x0 + x1) / 2
            if last.isalpha() and prev_x0 - 1 <= middle <= prev_x1 + 1:
                run.chars[-1] = (compose(last, _ACCENTS[ch]), *run.chars[-1][1:])
            else:
                accent, accent_at, accent_x0 = ch, middle, x0
            continue
        if accent:
            if ch.isalpha() and x0 - 1 <= accent_at <= x1 + 1:  # (drawn over this letter)
                ch = compose(ch, _ACCENTS[accent])
            elif accent in "~^":  # over no letter: text's own ("~16%", "x^2"); another
                ch, x0 = accent + ch, min(x0, accent_x0)  # is debris, left out
            accent = ""
        if "\ufb00" <= ch <= "\ufb4f" or "\U0001d400" <= ch <= "\U0001d7ff":
            # ligatures, and maths' letters (a font set for maths gives "𝛽" for "β")
            ch = unicodedata.normalize("NFKC", ch)
        if run is not None:
            # (raised figures at 0.81 of the text: acmart's Libertine superscripts)
            small = size < 0.85 * prev_size or prev_size < 0.85 * size
            same_line = abs(base - prev_base) < 0.2 * max(size, prev_size) or (
                small and bottom < run.y1 and top > run.y0)
            gap = x0 - prev_x1
            back = x0 < prev_x0 - 0.5 * size  # a ligature's second letter starts where it did
            wide = gap > 0.9 * max(size, prev_size) or \
                gap > 0.5 * max(size, prev_size) and _number_so_far(run)  # a line number
            if not same_line or wide or back:
                runs.append(run.dump())
                if glyphs is not None:
                    glyphs.append(run.glyphs(xs))
                run = None
            elif (gap > 0.18 * max(size, prev_size) or spaced and not (tied and gap < 0.1 * size)) \
                    and run.chars and run.chars[-1][0] != " ":
                # a space in the stream with no gap on the page is not shown: ligatures
                # drawn with a space after them ("scientifi c")
                run.chars.append((" ", False, False))
        if run is None:
            run = _Run()
            prev_size = size
        main = not run.sizes or size >= 0.85 * run.size()
        tied = len(ch) > 1 or (x0, x1) == (prev_x0, prev_x1)
        run.add(ch, (x0, bottom, x1, top), base, size, bold, italic, font, main)
        spaced = False
        if unmapped:  # read, but its font has no Unicode map: what it gives may not be text
            dropped["unmapped"] = dropped.get("unmapped", 0) + 1
        prev_x0, prev_x1 = x0, x1
        if main:
            prev_base, prev_size = base, size
    if run is not None:
        runs.append(run.dump())
        if glyphs is not None:
            glyphs.append(run.glyphs(xs))
    return runs


def _number_so_far(run: _Run) -> bool:
    """Whether a run holds only digits so far (a line or list number before its text)."""
    chars = [c[0] for c in run.chars if c[0] != " "]
    return 0 < len(chars) <= 4 and all(c.isdigit() for c in chars)


def extract(data: bytes) -> dict:
    """The pages and runs of a PDF's bytes (see the module's docstring)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise ExtractError(_open_problem(str(exc))) from None
    n_pages = len(pdf)
    if n_pages == 0:
        raise ExtractError("has no pages")
    pages = []
    budget = MAX_DOC_CHARS
    dropped: dict[str, int] = {}
    fonts: dict[int, str] = {}
    columns: list[str] = []
    for index in range(min(n_pages, MAX_PAGES)):
        try:
            page = pdf[index]
            width, height = page.get_size()
            turn = _Turn(page.get_rotation(), width, height)
            width, height = turn.size()
            textpage = page.get_textpage()
        except pdfium.PdfiumError as exc:
            raise ExtractError(f"page {index + 1} cannot be read ({exc})") from None
        view = PageView(page.raw, raw, pdf.raw)
        upright = upright_page(page, textpage, raw, turn.radians, view)
        if upright is not None:  # the page's text is set at a slant: read upright
            textpage, turn = upright, _Turn(0, *page.get_size())
            width, height = turn.size()
            view = PageView(page.raw, raw, pdf.raw)
        glyphs: list[list] = []
        xs = array("f")
        runs, stacks = vertical_runs(_page_runs(textpage, raw, budget, turn, view, fonts,
                                                glyphs, xs))
        columns.extend(stacks)  # text set vertically in a margin: left out, said
        for why, n in view.dropped.items():
            dropped[why] = dropped.get(why, 0) + n
        budget -= sum(len(r[6]) for r in runs)
        pages.append({"w": round(width, 2), "h": round(height, 2), "runs": runs,
                      "glyphs": glyphs, "xs": base64.b64encode(xs.tobytes()).decode("ascii"),
                      "turn": [turn.degrees, turn.scale]})
        textpage.close()
        page.close()
    outline = _outline(pdf)
    pdf.close()
    if not any(page["runs"] for page in pages):
        raise ExtractError(_no_text(dropped, n_pages))
    out = {"pages": pages, "n_pages": n_pages, "outline": outline}
    if dropped.get("unmapped"):
        out["unmapped"] = dropped["unmapped"]
    guessed = guessed_note(dropped.get("unmapped", 0), pages)
    left_out = [guessed] if guessed else []
    if n_pages > MAX_PAGES:  # a reading bounded in time: said, never silent
        pages_left = (f"page {n_pages:,}" if n_pages == MAX_PAGES + 1
                      else f"pages {MAX_PAGES + 1:,} to {n_pages:,}")
        left_out.append(f"{pages_left} not read (the embedded PDF reader reads the first "
                        f"{MAX_PAGES:,})")
    if columns:
        left_out.append(stacks_note(columns))
    if dropped.get("deep"):
        left_out.append(f"{_DEEP}: not read")
    turned = turned_note(dropped.get("turned", 0), sum(len(r[6]) for p in pages for r in p["runs"]))
    left_out += [turned] if turned else []
    if left_out:
        out["left_out"] = left_out
    return out


_DEEP = (f"content in forms nested more than {PDFIUM_FORM_LEVELS} deep (the embedded PDF "
         f"reader, PDFium, reads {PDFIUM_FORM_LEVELS} levels)")


#: Bookmarks read at most, and the characters of a title kept.
MAX_OUTLINE = 1_000
_TITLE_CHARS = 300


def _outline(pdf) -> list[list]:
    """The PDF's bookmarks as ``[level, title, page index]`` (page -1 when a bookmark
    points nowhere); none when they cannot be read."""
    out: list[list] = []
    try:
        for item in pdf.get_toc(max_depth=8):
            dest = item.get_dest()
            page = dest.get_index() if dest is not None else None
            out.append([item.level, item.get_title()[:_TITLE_CHARS],
                        -1 if page is None else page])
            if len(out) >= MAX_OUTLINE:
                break
    except Exception:  # noqa: BLE001 (a damaged outline is no reason to lose the text)
        return []
    return out


def _no_text(dropped: dict[str, int], n_pages: int) -> str:
    """Why no text was read: no text layer at all (a scan), or one whose every character
    was left out, and why (a PDF with text is never sent to OCR)."""
    why = [f"{dropped[k]:,} {what}" for k, what in (
        ("turned", "characters turned on their side"),
        ("hidden", "characters nobody sees (hidden text)")) if dropped.get(k)]
    if why:
        return (f"has a text layer, but none of it is read: {', '.join(why)}, which the "
                f"embedded reader leaves out; read it with --grobid")
    if dropped.get("deep"):
        return (f"has no text the embedded reader can reach: its {_DEEP}; not a scan (do "
                f"not OCR it): read it with --grobid")
    if n_pages > MAX_PAGES:
        return (f"has no text on its first {MAX_PAGES:,} pages (of {n_pages:,}), the most "
                f"the embedded reader reads; read it with --grobid")
    return ("has no text layer (a scanned PDF?): run OCR on it first (e.g. ocrmypdf), or "
            "read it with --grobid")


def _open_problem(message: str) -> str:
    detail = message.split("(PDFium: ")[-1].rstrip(".) ") if "PDFium: " in message else message
    low = detail.lower()
    if "password" in low:
        return "is encrypted with a password: decrypt it first (e.g. qpdf --decrypt)"
    if low == "success":  # PDFium loaded no page tree
        return "is damaged or has no pages (no page tree could be read)"
    return f"is damaged or not a PDF (PDFium: {detail.lower() or 'unknown error'})"

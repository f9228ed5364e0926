"""Glyphs of fonts with no Unicode map and no name, as pdflatex's bitmap (Type3) fonts
give them (part of the child process, :mod:`coresc.readers.pdf.extract`).

pdflatex without Type1 versions of its fonts (``\\usepackage[T1]{fontenc}`` with no
``lmodern`` or cm-super) embeds each font as Type3 bitmaps: no Unicode map, glyph names
that name nothing (``/a28``), no font name. PDFium then gives a glyph's code, which is
the letter for most codes (TeX's encodings follow ASCII there) but a control character
for the ligatures (fi, ff, fl, ffi, ffl), the quotes and the dashes, which a reader
would drop: "nding" for "finding". And with no names, every font looks the same, so
bold headings cannot be told from the body.
"""

from __future__ import annotations

import ctypes
import math

#: What fonts with no name are called (one name per font of the document).
UNNAMED = "unnamed-"

#: What TeX's Cork (T1) encoding, the one that gives Type3 fonts today, holds at the
#: control codes 0x10-0x1f, and its older OT1's ligatures at 0x0b-0x0f (T1 has accents and
#: single guillemets there, which scientific text hardly uses). As Unicode's ligature
#: characters, which the reader spells out as it does any PDF's.
_TEX_CODES = {
    0x0B: "\ufb00", 0x0C: "\ufb01", 0x0D: "\ufb02", 0x0E: "\ufb03", 0x0F: "\ufb04",
    0x10: "\u201c", 0x11: "\u201d", 0x12: "\u201e", 0x13: "\u00ab", 0x14: "\u00bb",
    0x15: "\u2013", 0x16: "\u2014", 0x19: "\u0131", 0x1A: "\u0237",
    0x1B: "\ufb00", 0x1C: "\ufb01", 0x1D: "\ufb02", 0x1E: "\ufb03", 0x1F: "\ufb04",
}


def tex_glyph(codes: list[int], i: int) -> str:
    """The character code ``codes[i]`` of an unmapped font stands for in TeX's encodings:
    its ligature, quote or dash for a control code set against a letter or digit (inside
    or at the edge of a word; a symbol font's bullet at the same code stands alone), else
    the code as a character."""
    code = codes[i]
    own = chr(code) if 0 < code < 0x110000 else ""
    if code not in _TEX_CODES:
        return own
    near = [codes[k] for k in (i - 1, i + 1) if 0 <= k < len(codes)]
    return _TEX_CODES[code] if any(0 < c < 0x110000 and chr(c).isalnum() for c in near) \
        else own


def unnamed_font(raw, obj, names: dict[int, str]) -> str:
    """A name for the font of text object ``obj`` when the PDF gives it none: one per
    font of the document (``names``: the font's handle to its name, kept across pages),
    so that a heading's font can still be told from the body's."""
    font = raw.FPDFTextObj_GetFont(ctypes.cast(obj, raw.FPDF_PAGEOBJECT)) if obj else None
    key = ctypes.cast(font, ctypes.c_void_p).value or 0 if font else 0
    if key not in names:
        names[key] = f"{UNNAMED}{len(names) + 1}"
    return names[key]


def em_size(raw, tp, i: int, name: str) -> float:
    """The size in points of character ``i``'s font (its ``Tf`` size times its matrix's
    scale) when the font is one with no name (0 for others). A Type3 font's box in
    PDFium is the box of the glyphs it embeds, so a heading's font that holds no letter
    with a descender measured 8.5 points at 12."""
    if not name.startswith(UNNAMED):
        return 0.0
    matrix = raw.FS_MATRIX()
    if not raw.FPDFText_GetMatrix(tp, i, matrix):
        return 0.0
    scale = abs(matrix.a * matrix.d - matrix.b * matrix.c) ** 0.5
    em = raw.FPDFText_GetFontSize(tp, i) * scale
    return em if math.isfinite(em) else 0.0


#: From this share of the characters read on, those from fonts with no Unicode map are
#: said (a symbol font's bullets and the like stay below it).
GUESSED_SHARE = 0.1


def guessed_note(unmapped: int, pages: list[dict]) -> str | None:
    """One line saying that much of the text was read from fonts with no Unicode map
    (its letters taken from glyph codes, which may name others), when it was."""
    read = sum(len(r[6].replace(" ", "")) for page in pages for r in page["runs"])
    if not read or unmapped < GUESSED_SHARE * read:
        return None
    return (f"{min(unmapped, read):,} of the {read:,} characters read are in fonts with no "
            f"Unicode map (bitmap Type3 fonts, as pdflatex embeds without Type1 fonts): "
            f"their letters are read from the glyph codes and may be wrong")

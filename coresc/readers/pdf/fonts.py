"""What a glyph's font says (part of the child process,
:mod:`coresc.readers.pdf.extract`): whether it is bold or italic, by its weight, flags
and name; and the size of a typewriter font's glyphs.

The reader takes a glyph's size from its box, whose height comes from the font's own
ascent and descent. A typewriter font (a URL, code, a parameter list in ``\\texttt``)
declares a shorter box than the roman beside it at the same point size: LaTeX's
``t1xtt`` beside Nimbus Roman measures 11 where the body measures 13. Set apart by
size, such a line leaves its paragraph as small print and is lost with the footnotes.
So a typewriter glyph's size is its point size times the box-to-point ratio of the
page's other text.
"""

from __future__ import annotations

import ctypes
import math
import re
import statistics

from .type3 import unnamed_font

#: Names of typewriter (monospaced) fonts: TeX's (cmtt, t1xtt, txtt, sftt, lmmono,
#: inconsolata's zi4) and the systems' (Courier, Consolas, Menlo, DejaVu Sans Mono ...).
_MONO = re.compile(r"mono|nimbusmon|courier|consol|menlo|inconsolata|zi4|"
                   r"(?:cm|sf|ec|tx|t1x|pcr|lmv?)tt|^[a-z]*tt\d*$", re.I)
#: Glyphs sampled on a page for its ratio.
_SAMPLES = 80


def is_mono(font: str) -> bool:
    """Whether ``font`` (a name without its subset prefix) is a typewriter font."""
    return bool(_MONO.search(font))


def page_ratio(raw, tp, count: int, codes: list[int], rect) -> float:
    """The page's usual glyph-box height per point of font size, over letters sampled
    across it (0.0 where there are too few, or the ratio is not one of real text: a
    font set at one point and scaled by its matrix gives tens); -1.0 where the boxes of
    one font at one size are not of one height, the glyphs' own (PDFium gives those
    where a font's ascent and descent are not usable: LibreOffice's TrueType, at 10
    points "e" 4.9 high, "h" 6.9)."""
    step = max(count // _SAMPLES, 1)
    buf, flags = ctypes.create_string_buffer(96), ctypes.c_int()
    ratios, heights = [], {}
    for i in range(0, count, step):
        if not (0 < codes[i] < 0x110000 and chr(codes[i]).isalpha()):
            continue
        points = raw.FPDFText_GetFontSize(tp, i)
        if points <= 2:
            continue
        raw.FPDFText_GetLooseCharBox(tp, i, rect)
        ratios.append((rect.top - rect.bottom) / points)
        n = raw.FPDFText_GetFontInfo(tp, i, buf, 96, flags)
        heights.setdefault((buf.raw[:n], round(points, 1)), []).append(ratios[-1])
    if len(ratios) < 8:
        return 0.0
    font, most = max(heights.items(), key=lambda kv: len(kv[1]))
    if len(most) >= 6 and max(most) > 1.05 * min(most) and \
            _descenders_hang(raw, tp, codes, rect, font, min(most)):
        return -1.0
    ratio = statistics.median(ratios)
    return ratio if 0.8 <= ratio <= 1.6 else 0.0


_DESCENDERS = frozenset(map(ord, "gpqy"))


def _descenders_hang(raw, tp, codes: list[int], rect, font: tuple[bytes, float],
                     least: float) -> bool:
    """Whether the page's letters with descenders ("g", "p", "q", "y") in ``font`` (its
    name and points) come in boxes well taller than its shortest (``least``, per
    point): the glyphs' own boxes (LibreOffice's). A font whose ascenders rise over its
    declared ascent (TeX Gyre Bonum's "d", "f") has boxes of a few heights too, but its
    descenders' are as short as its other letters'. True where the page has none to
    judge by."""
    buf, flags = ctypes.create_string_buffer(96), ctypes.c_int()
    seen = []
    for i, code in enumerate(codes):
        if code not in _DESCENDERS:
            continue
        points = raw.FPDFText_GetFontSize(tp, i)
        n = raw.FPDFText_GetFontInfo(tp, i, buf, 96, flags)
        if (buf.raw[:n], round(points, 1)) != font:
            continue
        raw.FPDFText_GetLooseCharBox(tp, i, rect)
        seen.append((rect.top - rect.bottom) / points)
        if len(seen) >= 5:
            break
    return not seen or statistics.median(seen) > 1.15 * least


#: A font's box height per point where its boxes are its glyphs': the ascent and
#: descent of the common text faces (Times, Arial, Calibri) come to about this.
USUAL_RATIO = 1.2


def boxed_size(raw, tp, i: int, size: float) -> float:
    """The size of glyph ``i`` (box height ``size``) on a page whose boxes are the
    glyphs' own: its point size times :data:`USUAL_RATIO` (``size`` where the font
    is set at a point or less and scaled by its matrix)."""
    points = raw.FPDFText_GetFontSize(tp, i)
    return points * USUAL_RATIO if points > 2 else size


def own_boxes(raw, tp, i: int, codes: list[int], rect, font: str) -> bool:
    """Whether the glyphs of ``font`` (glyph ``i``'s) come in boxes of their own height
    ("I" 7.5, "n" 5.7 at 10.9 points), on a page whose other fonts' boxes are the
    font's ascent and descent: a font whose descriptor gives neither (Latin Modern's
    small capitals, amsart's section heads, measured as small print). Judged on the
    letters of that font among the next 200 glyphs."""
    buf, flags = ctypes.create_string_buffer(96), ctypes.c_int()
    heights: list[float] = []
    for j in range(i, min(i + 200, len(codes))):
        if not (0 < codes[j] < 0x110000 and chr(codes[j]).isalpha()):
            continue
        n = raw.FPDFText_GetFontInfo(tp, j, buf, 96, flags)
        if buf.raw[:max(n - 1, 0)].decode("latin-1").split("+")[-1] != font:
            continue
        points = raw.FPDFText_GetFontSize(tp, j)
        if points > 2:
            raw.FPDFText_GetLooseCharBox(tp, j, rect)
            heights.append((rect.top - rect.bottom) / points)
        if len(heights) >= 12:
            break
    return len(heights) >= 3 and max(heights) > 1.08 * min(heights)


def mono_size(raw, tp, i: int, size: float, ratio: float) -> float:
    """The size of typewriter glyph ``i`` (box height ``size``) as the page's other text
    of its point size measures; ``size`` itself where the two are far apart (a font
    scaled by its matrix, not its size)."""
    points = raw.FPDFText_GetFontSize(tp, i)
    fitted = points * ratio
    return fitted if ratio and 0.7 * fitted <= size <= 1.3 * fitted else size


# TeX's own fonts say their weight and shape in a few letters: Computer Modern's (CMBX10,
# CMSSBX10, CMTI10) and the EC fonts' as cm-super names them (SFBX1000: bold extended,
# SFSX: sans bold, SFXC: bold capitals; SFTI: italic, SFSL: slanted, SFSI: sans inclined)
_TEX_BOLD = r"(?:^|\+)(?:CMBX|CMB(?=\d)|CMSSBX|CMSSDC|(?:SF|EC)(?:BX|BI|BL|RB|XC|SX|SO))"
_TEX_ITALIC = (r"(?:^|\+)(?:CMTI|CMSL|CMBXTI|CMBXSL|CMSSI|CMITT|CMSLTT|"
               r"(?:SF|EC)(?:TI|SL|BI|BL|SI|SO|IT|ST|UI))")
_BOLD_NAME = re.compile(r"bold|black|heavy|demi|semibd|[-,_ ](?:b|bd|bl)$|" + _TEX_BOLD,
                        re.I)
_ITALIC_NAME = re.compile(r"ital|obli|slant|[-,_ ](?:i|it)$|" + _TEX_ITALIC, re.I)


def font_flags(name: str, weight: int, flags: int) -> tuple[bool, bool]:
    """Whether a font is bold and italic, by its weight, flags and name ("-Book" is not
    bold, "-BoldItalic" and ",Bold" are)."""
    # ForceBold counts where the weight (from the stems' width) is not known to be
    # regular: txfonts' typewriter sets it on a font of weight 420
    bold = weight >= 600 or bool(_BOLD_NAME.search(name)) or \
        bool(flags & (1 << 18)) and not 0 < weight < 500
    italic = bool(_ITALIC_NAME.search(name)) or bool(flags & (1 << 6))
    return bold, italic


def object_style(tp, raw, i: int, obj, cache: dict, buffers: tuple,
                  names: dict) -> tuple[tuple, float]:
    """For the text object of character ``i``: its style (bold, italic, font name; a font
    with no name named by ``names``), the half turn a negative font size gives its glyphs
    (PDFium's angle leaves it out). ``buffers``: reused for the answers (font name,
    flags, font size)."""
    buf, flags, size = buffers
    n = raw.FPDFText_GetFontInfo(tp, i, buf, 96, flags)
    weight = raw.FPDFText_GetFontWeight(tp, i)
    name = buf.raw[:max(n - 1, 0)].decode("latin-1") or unnamed_font(raw, obj, names)
    key = (name, weight, flags.value)
    style = cache.get(key)
    if style is None:
        style = cache[key] = (*font_flags(name, weight, flags.value), name.split("+")[-1])
    flip = 0.0
    if obj is not None and raw.FPDFTextObj_GetFontSize(ctypes.cast(obj, raw.FPDF_PAGEOBJECT),
                                                       size) and size.value < 0:
        flip = math.pi
    return style, flip

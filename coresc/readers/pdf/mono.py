"""Typewriter fonts measured as the text around them (part of the child process,
:mod:`coresc.readers.pdf.extract`).

The reader takes a glyph's size from its box, whose height comes from the font's own
ascent and descent. A typewriter font (a URL, code, a parameter list in ``\\texttt``)
declares a shorter box than the roman beside it at the same point size: LaTeX's
``t1xtt`` beside Nimbus Roman measures 11 where the body measures 13. Set apart by
size, such a line leaves its paragraph as small print and is lost with the footnotes.
So a typewriter glyph's size is its point size times the box-to-point ratio of the
page's other text.
"""

from __future__ import annotations

import re
import statistics

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
    font set at one point and scaled by its matrix gives tens)."""
    step = max(count // _SAMPLES, 1)
    ratios = []
    for i in range(0, count, step):
        if not (0 < codes[i] < 0x110000 and chr(codes[i]).isalpha()):
            continue
        points = raw.FPDFText_GetFontSize(tp, i)
        if points <= 2:
            continue
        raw.FPDFText_GetLooseCharBox(tp, i, rect)
        ratios.append((rect.top - rect.bottom) / points)
    if len(ratios) < 8:
        return 0.0
    ratio = statistics.median(ratios)
    return ratio if 0.8 <= ratio <= 1.6 else 0.0


def mono_size(raw, tp, i: int, size: float, ratio: float) -> float:
    """The size of typewriter glyph ``i`` (box height ``size``) as the page's other text
    of its point size measures; ``size`` itself where the two are far apart (a font
    scaled by its matrix, not its size)."""
    points = raw.FPDFText_GetFontSize(tp, i)
    fitted = points * ratio
    return fitted if ratio and 0.7 * fitted <= size <= 1.3 * fitted else size

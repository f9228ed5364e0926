"""The code points of a page's characters, as PDFium gives them (part of the child
process, :mod:`coresc.readers.pdf.extract`)."""

from __future__ import annotations

import ctypes


def page_codes(tp, raw, count: int) -> list[int]:
    """The code point of each character index: one call for the page's text, or one a
    character where the text holds characters beyond 16 bits (surrogate pairs)."""
    buf = (ctypes.c_uint16 * (count + 1))()
    written = raw.FPDFText_GetText(tp, 0, count, buf)
    units = list(buf[:max(written - 1, 0)])
    if len(units) == count and not any(0xD800 <= u <= 0xDFFF for u in units):
        return units
    codes = [raw.FPDFText_GetUnicode(tp, i) for i in range(count)]
    for i in range(count - 1):  # PDFium gives a pair's halves as characters of their own
        if 0xD800 <= codes[i] < 0xDC00 and 0xDC00 <= codes[i + 1] < 0xE000:
            codes[i] = 0x10000 + (codes[i] - 0xD800 << 10) + codes[i + 1] - 0xDC00
            codes[i + 1] = 0  # (read as nothing)
    return codes

"""Small PDFs that cost a reader much time or memory (issue 53), written by hand.

Each function returns a PDF's bytes (a few KB to 130 KB); what each once cost coresc is
in docs/robustness.md.
"""

from __future__ import annotations

import zlib

from pdf_fixtures import LOREM, raw_pdf


def _pdf(ops: list[bytes], pages: int = 1) -> bytes:
    return raw_pdf(zlib.compress(b"\n".join(ops)), "FlateDecode", pages)


def lone_runs(n: int = 60_000, huge: float = 20_000.0, pages: int = 1) -> bytes:
    """``n`` one-glyph runs in the left column of a two-column page (tiny text, each
    glyph its own run), two columns of words for the layout to find its gutter, and one
    glyph ``huge`` points tall: the layout's old binning by height put every run in one
    bin (quadratic). ``pages`` pages share the content (each as slow to read)."""
    ops = [b"BT /F1 1 Tf"]
    for i in range(n):
        ops.append(b"1 0 0 1 %d %.1f Tm (a) Tj" % (40 + (i % 130) * 2, 840 - (i // 130) * 0.9))
    line = b"(" + b"word " * 12 + b") Tj"
    for j in range(100):
        for x in (40, 320):
            ops.append(b"1 0 0 1 %d %.1f Tm " % (x, 400 - j * 1.5) + line)
    ops.append(b"/F1 %.0f Tf 1 0 0 1 100 10 Tm (W) Tj ET" % huge)
    return _pdf(ops, pages)


def superscript_every_word(lines: int = 64, pages: int = 20) -> bytes:
    """One paragraph in which every word carries a superscript number (8 a line), over
    ``pages`` pages: the TEI step once searched the whole text again before each."""
    words = LOREM.split()
    ops = [b"BT 1 0 0 1 60 800 Tm 12 TL"]
    w = 0
    for _ in range(lines):
        for _ in range(8):
            ops.append(b"/F1 10 Tf 0 Ts (%s ) Tj /F1 6 Tf 4 Ts (%d) Tj"
                       % (words[w % len(words)].encode(), w % 9 + 1))
            w += 1
        ops.append(b"0 Ts T*")
    ops.append(b"ET")
    return _pdf(ops, pages)


def huge_glyph(size: float = 1e9) -> bytes:
    """Two columns of text and one glyph ``size`` points tall at the end of a line (so
    in a run of ordinary height): the layout once made a list per 4 points of its
    height (3.5 GB and more)."""
    ops = [b"BT /F1 9 Tf"]
    for i in range(40):
        for x in (60, 320):
            ops.append(b"1 0 0 1 %d %d Tm (%s) Tj" % (x, 760 - 12 * i,
                                                       LOREM[i:i + 48].encode()))
    ops.append(b"/F1 %.0f Tf (W) Tj ET" % size)
    return _pdf(ops)

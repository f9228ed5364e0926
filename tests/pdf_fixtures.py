"""Small PDFs made for the PDF reader's tests (reportlab, from the test extra).

Each function returns a PDF's bytes: a one-column or two-column paper with a title, an
abstract, bold headings, paragraphs, a word broken at a line end, a running header, page
numbers, a caption and a reference list, set where the tests expect them.
"""

from __future__ import annotations

import io
import string

LOREM = ("The cells were grown in a rich medium at a constant temperature for two days. "
         "Growth was measured every hour by the optical density of the culture. ")


def _canvas(buf, **kw):
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    return canvas.Canvas(buf, pagesize=A4, **kw), A4


def _lines(c, x, y, lines, font="Times-Roman", size=10, leading=12.5):
    for line in lines:
        c.setFont(font, size)
        c.drawString(x, y, line)
        y -= leading
    return y


def _wrap(text: str, width: int) -> list[str]:
    words, lines, cur = text.split(), [], ""
    for w in words:
        if len(cur) + len(w) + 1 > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    return [*lines, cur] if cur else lines


def _header(c, page: int, size) -> None:
    width, height = size
    c.setFont("Times-Italic", 8)
    c.drawString(72, height - 40, "Journal of Small Tests 12 (2026) 1-3")
    c.drawCentredString(width / 2, 30, str(page))


def one_column(encrypt=None) -> bytes:
    """Two pages, one column: header, title, authors, abstract, Introduction, Methods with
    a hyphenated line end and a subsection, Figure 1's caption, References."""
    buf = io.BytesIO()
    c, size = _canvas(buf, encrypt=encrypt)
    width, height = size
    _header(c, 1, size)
    c.setFont("Helvetica-Bold", 18)
    c.drawString(72, height - 90, "Copper Stress Changes Biofilm Matrix Genes")
    _lines(c, 72, height - 115, ["Ann Author, Bob Writer"], "Times-Roman", 10)
    _lines(c, 72, height - 128, ["Department of Tests, University of Examples, Cambridge"],
           "Times-Italic", 8)
    y = _lines(c, 72, height - 160, ["Abstract"], "Helvetica-Bold", 11)
    y = _lines(c, 72, y - 4, _wrap("Biofilms protect bacteria from metals. We measured matrix "
                                   "gene expression under copper stress. Expression rose "
                                   "threefold in the first day.", 95), "Times-Roman", 9, 11)
    y = _lines(c, 72, y - 14, ["1 Introduction"], "Helvetica-Bold", 11)
    y = _lines(c, 72, y - 4, _wrap("Metal stress is common in soil. " + LOREM * 2, 95))
    y = _lines(c, 72, y - 14, ["2 Methods"], "Helvetica-Bold", 11)
    y = _lines(c, 72, y - 4, ["Strains were kept at four degrees before the experi-",
                              "ments began. " + LOREM[:60].strip()])
    y = _lines(c, 72, y - 14, ["2.1 Growth conditions"], "Helvetica-Bold", 10)
    y = _lines(c, 72, y - 4, _wrap(LOREM * 3, 95))
    y = _lines(c, 72, y - 14, _wrap("Figure 1. Growth curves of the three strains under "
                                    "copper stress, measured hourly.", 110), "Times-Roman", 8, 10)
    c.showPage()
    _header(c, 2, size)
    y = _lines(c, 72, height - 80, ["3 Results"], "Helvetica-Bold", 11)
    y = _lines(c, 72, y - 4, _wrap("Copper raised the expression of every matrix gene. " + LOREM,
                                   95))
    _superscript_cite(c, 72, y, "Earlier work found the same in soil bacteria", "3,4",
                      " and in water, the m", "2", " of a film.")
    y -= 12.5
    y = _lines(c, 72, y - 14, ["References"], "Helvetica-Bold", 11)
    _lines(c, 72, y - 4, ["1. Smith J, Jones K. Metals and biofilms. J Tests. 2001;3:1-9.",
                          "2. Lee A. Matrix genes in soil bacteria. Microbes. 2010;5:7-8."],
           "Times-Roman", 9, 11)
    c.showPage()
    c.save()
    return buf.getvalue()


def _superscript_cite(c, x, y, *pieces) -> None:
    """Text with every second piece set small and raised: a citation, then a unit's power."""
    for k, piece in enumerate(pieces):
        size, rise = (6, 4) if k % 2 else (10, 0)
        c.setFont("Times-Roman", size)
        c.drawString(x, y + rise, piece)
        x += c.stringWidth(piece, "Times-Roman", size)


def two_columns() -> bytes:
    """One page of two columns under a full-width title: the left column says 'left', the
    right 'right', so reading order can be checked."""
    buf = io.BytesIO()
    c, size = _canvas(buf)
    width, height = size
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, height - 80, "A Paper Set in Two Columns for Testing")
    col = (width - 144 - 20) / 2
    y = _lines(c, 72, height - 120, ["1 Introduction"], "Helvetica-Bold", 10)
    left = [f"Left column sentence number {i} is read first." for i in range(1, 31)]
    right = [f"Right column sentence number {i} is read second." for i in range(1, 31)]
    _lines(c, 72, y - 4, _wrap(" ".join(left), 48))
    _lines(c, 72 + col + 20, height - 120, _wrap(" ".join(right), 48))
    c.showPage()
    c.save()
    return buf.getvalue()


def image_only() -> bytes:
    """A page with drawings and no text: what a scan looks like to a text reader."""
    buf = io.BytesIO()
    c, _size = _canvas(buf)
    c.rect(100, 100, 300, 400, fill=1)
    c.showPage()
    c.save()
    return buf.getvalue()


def many_glyphs(n: int) -> bytes:
    """One page holding about ``n`` glyphs (tiny text, overprinted)."""
    buf = io.BytesIO()
    c, size = _canvas(buf)
    line = "x" * 2000
    c.setFont("Helvetica", 1)
    for i in range(n // len(line) + 1):
        c.drawString(10, 10 + (i % 700), line)
    c.showPage()
    c.save()
    return buf.getvalue()


def raw_pdf(content: bytes, filters: str = "", pages: int = 1) -> bytes:
    """A PDF written by hand: ``pages`` pages (0: none) sharing one content stream."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{4 + i} 0 R" for i in range(pages))
    objs.append(f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode())
    filt = f" /Filter /{filters}" if filters else ""
    objs.append(f"<< /Length {len(content)}{filt} >>\nstream\n".encode() + content
                + b"\nendstream")
    for _ in range(pages):
        objs.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 3 0 R "
                    b"/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 "
                    b"/BaseFont /Helvetica >> >> >> >>")
    return objects_pdf(objs)


def objects_pdf(objs: list[bytes], version: str = "1.4") -> bytes:
    """A PDF of the objects ``objs`` (numbered from 1, the first the catalog), with its
    cross-reference table."""
    out = io.BytesIO()
    out.write(f"%PDF-{version}\n".encode())
    offsets = []
    for i, obj in enumerate(objs, 1):
        offsets.append(out.tell())
        out.write(f"{i} 0 obj\n".encode() + obj + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode())
    for off in offsets:
        out.write(f"{off:010d} 00000 n \n".encode())
    out.write(f"trailer << /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
              .encode())
    return out.getvalue()


def mapped_fonts_pdf(content: bytes, fonts: list[tuple[str, dict[str, str] | None]]) -> bytes:
    """``content`` on one A4 page in standard Type1 fonts F1, F2 ... (``fonts``: each
    one's base font and what its ToUnicode map gives for some of its codes, ``{"b":
    "\U0001d6fd"}``, or None for no map), as a font subset for maths or another script
    is read: its glyphs are Latin letters, its text what the map says."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"", b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream"]
    names = []
    for k, (base, mapped) in enumerate(fonts, 1):
        names.append(b"/F%d %d 0 R" % (k, len(objs) + 1))
        if mapped is None:
            objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /%s >>" % base.encode())
            continue
        objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /%s /ToUnicode %d 0 R >>"
                    % (base.encode(), len(objs) + 2))
        entries = b"".join(b"<%02X> <%s>\n" % (ord(code), text.encode("utf-16-be").hex()
                                                 .upper().encode())
                           for code, text in sorted(mapped.items()))
        cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
                b"/CMapName /M def 1 begincodespacerange <00> <FF> endcodespacerange\n"
                + b"%d beginbfchar\n" % len(mapped) + entries + b"endbfchar\n"
                b"endcmap CMapName currentdict /CMap defineresource pop end end")
        objs.append(b"<< /Length %d >>\nstream\n" % len(cmap) + cmap + b"\nendstream")
    objs[2] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
               b"/Resources << /Font << " + b" ".join(names) + b" >> >> >>")
    return objects_pdf(objs)


def type3_pdf(content: bytes, extra_codes: tuple[int, ...] = ()) -> bytes:
    """``content`` on one page in two Type3 fonts (F1 and F2, F2's glyphs wider, as a bold
    one's) with no name and no Unicode map, as pdflatex's bitmap fonts are: the glyphs are
    named ``/g65`` ..., which name no letter (PDFium gives the codes); each font's box is
    that of the glyphs it holds, F2's (a heading's) without descenders. Codes: space,
    comma, full stop, digits, letters and ``extra_codes``."""
    codes = sorted({32, 44, 46, *range(48, 58), *map(ord, string.ascii_letters),
                    *extra_codes})
    first, last = min(codes), max(codes)
    glyph = b"500 0 0 0 500 700 d1 50 0 400 700 re f"

    def font(width: bytes, bottom: bytes) -> bytes:
        return (b"<< /Type /Font /Subtype /Type3 /FontBBox [0 " + bottom + b" 600 700] "
                b"/FontMatrix "
                b"[0.001 0 0 0.001 0 0] /CharProcs 7 0 R /Encoding << /Type /Encoding "
                b"/Differences [" + b" ".join(b"%d /g%d" % (k, k) for k in codes)
                + b"] >> /FirstChar %d /LastChar %d /Widths [" % (first, last)
                + b" ".join(width if k in codes else b"0" for k in range(first, last + 1))
                + b"] /Resources << >> >>")

    procs = b"<< " + b" ".join(b"/g%d 8 0 R" % k for k in codes) + b" >>"
    return objects_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        font(b"500", b"-200"), font(b"560", b"0"), procs,
        b"<< /Length %d >>\nstream\n" % len(glyph) + glyph + b"\nendstream"])

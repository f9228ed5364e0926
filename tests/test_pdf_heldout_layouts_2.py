"""The PDF reader on what the sixth step's held-out layouts showed (issue 50: APA's
double-spaced manuscript, Tufte's handout, IEEE's journal class, babel's Russian and
ctex's Chinese): main heads centred over flush-left ones in the same bold, a centred
title wrapped over lines, a float's label over a double-spaced italic caption, italic
subsection heads on a line of their own, headings in Cyrillic and in ideographs, IEEE's
small-capital REFERENCES and APPENDIX and its subsections lettered past H. Each PDF is
made here (reportlab, or by hand); each test fails on the reader before this step."""

from __future__ import annotations

from helpers import need

need("reportlab")

import io  # noqa: E402

import pdf_fixtures as fx  # noqa: E402
from test_pdf_layouts import SENTENCES, _finish, _page, _start  # noqa: E402

from coresc.readers import read_data  # noqa: E402

TITLE = ("Effect of long-term exposure to tamoxifen on genotoxic and epigenetic changes "
         "in the liver", "of female rats fed a diet for two years")


def _read(pdf: bytes):
    doc = read_data(pdf, "paper.pdf")[0]
    return doc, [s.text for s in doc.sentences()]


def _outline(doc) -> list[tuple[str, int]]:
    return [(s.heading, s.depth) for s in doc.sections if s.depth > 0 and s.heading]


def _double(c, y: float, lines: list[str], x: float = 72, font: str = "Times-Roman") -> float:
    return fx._lines(c, x, y, lines, font, 12, 24)


def apa_manuscript() -> bytes:
    """APA's manuscript: a centred bold title over two lines, main heads centred in bold,
    the next ones flush left in the same bold, everything double spaced; a figure's
    label in bold over its italic title, set in a paragraph's way down the page."""
    buf = io.BytesIO()
    c, (width, height) = fx._canvas(buf)
    c.setFont("Times-Bold", 12)
    c.drawCentredString(width / 2, height - 90, TITLE[0])
    c.drawCentredString(width / 2, height - 114, TITLE[1])
    c.setFont("Times-Roman", 12)
    c.drawCentredString(width / 2, height - 150, "Ana Ribeiro and Tomasz Nowak")
    y = height - 200
    for name, flush, first in (("Introduction", False, 0), ("Method", False, None),
                               ("Animals", True, 3), ("Diets", True, 6),
                               ("Results", False, 9)):
        c.setFont("Times-Bold", 12)
        if flush:
            c.drawString(72, y, name)
        else:
            c.drawCentredString(width / 2, y, name)
        y -= 24
        if first is not None:
            y = _double(c, y, fx._wrap(" ".join(SENTENCES[first:first + 3]), 80))
        if y < 150:
            c.showPage()
            y = height - 80
    return _finish(c, buf)


def test_apas_centred_main_heads_stand_over_its_flush_left_ones():
    """"Method" is a section of its own over "Animals" and "Diets" (it was lost: every
    head one level, the empty one dropped), and the title is whole (its centred second
    line had been a heading)."""
    doc, texts = _read(apa_manuscript())
    assert _outline(doc) == [("Introduction", 1), ("Method", 1), ("Animals", 2),
                             ("Diets", 2), ("Results", 1)]
    assert doc.title == " ".join(TITLE)
    assert SENTENCES[3] in texts and SENTENCES[9] in texts


def apa_figure() -> bytes:
    """A double-spaced paragraph cut by a figure's caption: "Figure 1" in bold, under it
    the title in italic over two lines, each line a region of its own."""
    buf = io.BytesIO()
    c, (width, height) = fx._canvas(buf)
    c.setFont("Times-Bold", 12)
    c.drawCentredString(width / 2, height - 90, "Adducts of styrene in the lungs of rats")
    fx._lines(c, 72, height - 130, ["Introduction"], "Times-Bold", 12)
    lines = fx._wrap(" ".join(SENTENCES[:5]), 80)
    y = _double(c, height - 160, lines[:3])
    # (set as loose, for its glyph boxes, as CM is in APA: 10.5 points of box under
    # 24 of leading)
    y = fx._lines(c, 72, y - 20, ["Figure 1"], "Times-Bold", 12, 30)
    y = fx._lines(c, 72, y, ["Distribution of the measured values across the study groups,",
                             "with their medians."], "Times-Italic", 12, 30)
    c.rect(72, y - 100, 300, 110)
    _double(c, y - 130, lines[3:])
    return _finish(c, buf)


def test_a_labels_double_spaced_italic_caption_is_the_caption():
    """The italic title under the label is the caption (it had been a heading and a
    sentence of the paragraph around it)."""
    doc, texts = _read(apa_figure())
    captions = [s.text for s in doc.sentences() if s.zone == "caption"]
    assert captions == ["Distribution of the measured values across the study groups, with "
                        "their medians."]
    assert [t for t in texts if "medians" in t] == captions
    assert not any(s.heading.startswith("Distribution") for s in doc.sections)


def italic_heads() -> bytes:
    """Subsection heads in italic on a line of their own at the body's size (Elsevier)
    and, wrapped over two lines, a little larger (Tufte's handout)."""
    c, buf, height, y = _start("Adducts of styrene in the lungs of rats", "1 Methods")
    y = fx._lines(c, 72, y - 6, ["Animals and animal care"], "Times-Italic", 10) - 8
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:3]), 90), y=y) - 10
    y = fx._lines(c, 72, y, ["Measurement of testosterone and of oestradiol in the serum of",
                             "the treated and the control animals"], "Times-Italic", 11,
                  13) - 8
    _page(c, height, fx._wrap(" ".join(SENTENCES[3:6]), 90), y=y)
    return _finish(c, buf)


def test_italic_subsection_heads_on_lines_of_their_own_are_headings():
    doc, texts = _read(italic_heads())
    assert [h for h, _ in _outline(doc)][1:] == [
        "Animals and animal care", "Measurement of testosterone and of oestradiol in the "
        "serum of the treated and the control animals"]
    assert SENTENCES[0] in texts and SENTENCES[3] in texts
    assert not any(t.startswith(("Animals and", "Measurement of")) for t in texts)


def _mapped_pdf(heading: str) -> bytes:
    """A page of Helvetica, the heading over a reference list in a bold font whose
    ToUnicode map gives its codes as ``heading``'s letters (Cyrillic, ideographs), as
    a font subset for those scripts does."""
    codes = {ch: chr(0x41 + k) for k, ch in enumerate(sorted(set(heading)))}
    body = [ln.encode() for ln in fx._wrap(" ".join(SENTENCES[:8]), 80)]
    refs = [f"[{k}] Ribeiro A, Nowak T. Effects of exposure in cohort {k}. J Risk Stud. "
            f"{1990 + k}; {k + 10}: 100-109.".encode() for k in range(1, 6)]
    head = "".join(codes[ch] for ch in heading).encode("latin-1")
    content = (b"BT /F1 16 Tf 72 790 Td (Adducts of styrene in the lungs of rats) Tj ET "
               b"BT /F1 10 Tf 72 760 Td 13 TL " + b" ".join(b"(" + ln + b") Tj T*" for ln in body)
               + b" ET BT /F2 12 Tf 72 600 Td (" + head + b") Tj ET BT /F1 10 Tf 72 580 Td "
               b"13 TL " + b" ".join(b"(" + ln + b") Tj T*" for ln in refs) + b" ET")
    return fx.mapped_fonts_pdf(content, [("Helvetica", None), (
        "Helvetica-Bold", {code: ch for ch, code in codes.items()})])


def test_a_reference_lists_heading_in_cyrillic_or_ideographs_ends_the_body():
    """"Список литературы" and "参考文献" are headings (a heading needed a word of four
    Latin letters, or a capital first), so the entries under them are not body text."""
    for heading in ("Список литературы", "参考文献"):
        doc, texts = _read(_mapped_pdf(heading))
        assert SENTENCES[0] in texts and SENTENCES[7] in texts, heading
        assert not any("Effects of exposure" in t or "J Risk Stud" in t for t in texts), \
            (heading, texts)


def ieee_journal() -> bytes:
    """IEEE's journal: main heads numbered in Roman capitals, subsections lettered A to J
    in italic, the references' and the appendix's heads in capitals set smaller than the
    text (Times has no small capitals), the appendix after the references."""
    buf = io.BytesIO()
    c, (width, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, ["Adducts of styrene in the lungs of rats"],
              "Times-Roman", 20)
    y = fx._lines(c, 72, height - 120, ["I. INTRODUCTION"], "Times-Roman", 10) - 12
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:3]), 90), y=y) - 14
    y = fx._lines(c, 72, y, ["II. METHODS"], "Times-Roman", 10) - 12
    for k, letter in enumerate("ABCDEFGHIJ"):  # (a paragraph's first line indented)
        name = "Statistical analysis" if letter == "J" else f"Assay number {k + 1}"
        y = fx._lines(c, 72, y - 6, [f"{letter}. {name}"], "Times-Italic", 10)
        first, rest = fx._wrap(" ".join(SENTENCES[10 + k:12 + k]), 60)
        y = _page(c, height, [first], y=y, x=82)
        y = _page(c, height, [rest], y=y)
    c.setFont("Times-Roman", 7.5)
    c.drawCentredString(width / 2, y - 8, "REFERENCES")
    y = fx._lines(c, 72, y - 24, [f"[{k}] A. Ribeiro, Effects of exposure in cohort {k}, J. "
                                  f"Risk Stud., vol. {k}, 1999." for k in range(1, 4)],
                  "Times-Roman", 8, 9.5) - 8
    c.setFont("Times-Roman", 7.5)
    c.drawCentredString(width / 2, y, "APPENDIX")
    _page(c, height, fx._wrap(" ".join(SENTENCES[30:33]), 90), y=y - 16)
    return _finish(c, buf)


def test_ieees_small_capital_heads_and_late_letters_are_read():
    """The appendix after "REFERENCES" is a back section (the small capitals were small
    print, the appendix read into the references or the last section), and "J.
    Statistical analysis" is a subsection (a letter past H was no number)."""
    doc, texts = _read(ieee_journal())
    outline = _outline(doc)
    assert ("Statistical analysis", 2) in outline and ("Assay number 8", 2) in outline
    back = [s for s in doc.sections if s.heading.lower() == "appendix"]
    assert back and SENTENCES[30] in [t.text for p in back[0].paragraphs
                                      for t in p.sentences]
    assert not any("Effects of exposure" in t for t in texts)


def float_atop_the_left_column() -> bytes:
    """Two columns under a title over two lines and the authors (too many lines across
    the gutter for it to part the page), the left column opening with a figure (no
    text), the right with a paragraph and a heading: between them a gap runs across
    the page, since the left column is empty there."""
    buf = io.BytesIO()
    c, (width, height) = fx._canvas(buf)
    c.setFont("Helvetica-Bold", 16)
    c.drawCentredString(width / 2, height - 70, "Adducts of styrene in the lungs of rats")
    c.drawCentredString(width / 2, height - 90, "and mice exposed for two years")
    c.setFont("Times-Roman", 11)
    c.drawCentredString(width / 2, height - 108, "Ana Ribeiro, Tomasz Nowak, Mei Lin")
    top = height - 130
    c.rect(72, top - 150, 210, 150)
    left = fx._wrap(" ".join(SENTENCES[:14]), 45)
    fx._lines(c, 72, top - 175, left, "Times-Roman", 10)
    right = fx._wrap(" ".join(SENTENCES[20:24]), 45)
    y = fx._lines(c, 310, top - 8, right, "Times-Roman", 10)
    y = fx._lines(c, 310, y - 24, ["2 Results"], "Helvetica-Bold", 11) - 6
    fx._lines(c, 310, y, fx._wrap(" ".join(SENTENCES[24:36]), 45), "Times-Roman", 10)
    return _finish(c, buf)


def test_a_columns_text_beside_a_float_atop_the_other_is_read_after_it():
    """The right column's opening paragraph is read after the left column, not before
    it (the gap under it ran across the page, and cut the page there first)."""
    _doc, texts = _read(float_atop_the_left_column())
    assert texts.index(SENTENCES[13]) < texts.index(SENTENCES[20]) < \
        texts.index(SENTENCES[24])

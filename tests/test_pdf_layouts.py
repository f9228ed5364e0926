"""The PDF reader on layouts the first fixtures lacked (issue 50): line numbers in the
margin, a paragraph that opens "Figure 2 shows", display equations, a sentence cut by a
float, reference headings in other languages, an appendix after the references, and the
reading-quality figures with their warning. Each PDF is made here with reportlab."""

from __future__ import annotations

import io
import json
import sys
import unicodedata
from pathlib import Path

import pytest
from helpers import need
from hypothesis import given, settings
from hypothesis import strategies as st

need("reportlab")

import pdf_fixtures as fx  # noqa: E402

from coresc.pipeline import language_warnings  # noqa: E402
from coresc.readers import read_data  # noqa: E402
from coresc.readers.pdf.quality import doubts  # noqa: E402

SENTENCES = [f"The sample number {i} was weighed twice before it was dried." for i in range(40)]


def _page(c, height, lines, y=None, numbers=None, x=72, size=10, font="Times-Roman"):
    """``lines`` down a page; ``numbers``: the first line number to set in the margin."""
    y = height - 90 if y is None else y
    for k, line in enumerate(lines):
        c.setFont(font, size)
        c.drawString(x, y, line)
        if numbers is not None:
            c.setFont("Times-Roman", 7)
            c.drawRightString(x - 12, y, str(numbers + k))
        y -= 12.5
    return y


def paper(refs_heading: str = "References", numbers: bool = False,
          appendix: bool = True) -> bytes:
    """Two pages: a title, an abstract, two sections whose text is cut by a figure, a
    paragraph that opens "Figure 2 shows", a display equation, the references under
    ``refs_heading`` and an appendix after them; line numbers in the margin if asked."""
    buf = io.BytesIO()
    c, size = fx._canvas(buf)
    _, height = size
    first = 1 if numbers else None
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, height - 80, "Weighing Samples Before and After Drying")
    y = fx._lines(c, 72, height - 110, ["Abstract"], "Helvetica-Bold", 11)
    y = _page(c, height, fx._wrap("We weighed samples. Drying took a day. The loss of "
                                  "weight was small.", 90), y - 4, first)
    y = fx._lines(c, 72, y - 14, ["1 Introduction"], "Helvetica-Bold", 11)
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:8]) + " The balance we used had been "
                                  "calibrated by the", 90), y - 4, first and 5)
    y = fx._lines(c, 72, y - 10, fx._wrap("Figure 1. The balance and the oven used for every "
                                          "sample.", 110), "Times-Roman", 8, 10)
    y = _page(c, height, fx._wrap("maker in the spring of that year. " + " ".join(
        SENTENCES[8:12]), 90), y - 10, first and 20)
    y = fx._lines(c, 72, y - 14, ["2 Results"], "Helvetica-Bold", 11)
    y = _page(c, height, fx._wrap("Figure 2 shows the weights before and after drying. "
                                  + " ".join(SENTENCES[12:16]), 90), y - 4, first and 30)
    y = fx._lines(c, 200, y - 10, ["w = m - d / n (1)"], "Times-Italic", 10)
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[16:22]), 90), y - 10, first and 40)
    c.showPage()
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[22:30]), 90), None, first and 50)
    y = fx._lines(c, 72, y - 14, [refs_heading], "Helvetica-Bold", 11)
    y = _page(c, height, ["Smith J, Jones K. Drying samples in ovens at a high temperature.",
                          "J Tests. 2001;3:1-9. Lee A. Weighing samples on a balance twice.",
                          "Balances. 2010;5:7-8. Cho M. Drying. Ovens. 2012;1:2-3."], y - 4)
    if appendix:
        y = fx._lines(c, 72, y - 14, ["Appendix A. The oven"], "Helvetica-Bold", 11)
        _page(c, height, fx._wrap("The oven was set to one hundred degrees for every run. "
                                  "Its door was kept shut.", 90), y - 4, first and 70)
    c.showPage()
    c.save()
    return buf.getvalue()


def _start(title: str, heading: str):
    """A page begun with a title and one numbered heading: (canvas, buffer, page height,
    where the text goes on)."""
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, [title], "Helvetica-Bold", 16)
    fx._lines(c, 72, height - 110, [heading], "Helvetica-Bold", 11)
    return c, buf, height, height - 130


def _finish(c, buf) -> bytes:
    c.showPage()
    c.save()
    return buf.getvalue()


def _texts(pdf: bytes, name: str = "paper.pdf"):
    doc = read_data(pdf, name)[0]
    return doc, [s.text for s in doc.sentences()]


def test_line_numbers_in_the_margin_are_not_text():
    plain, numbered = _texts(paper())[1], _texts(paper(numbers=True))[1]
    assert numbered == plain
    assert "The sample number 3 was weighed twice before it was dried." in numbered


def test_a_float_does_not_cut_the_sentence_it_interrupts():
    texts = _texts(paper())[1]
    assert ("The balance we used had been calibrated by the maker in the spring of that "
            "year.") in texts


def test_a_paragraph_opening_figure_2_shows_is_body_text():
    doc, texts = _texts(paper())
    assert "Figure 2 shows the weights before and after drying." in texts
    body = [s.text for s in doc.sentences() if s.zone == "body"]
    assert "Figure 2 shows the weights before and after drying." in body


def test_a_display_equation_is_not_a_sentence():
    assert not any("(1)" in t for t in _texts(paper())[1])


@pytest.mark.parametrize("heading", ["References", "Literatur", "Références",
                                     "Riferimenti bibliografici", "Referenties"])
def test_references_in_other_languages_are_left_out(heading):
    texts = _texts(paper(heading))[1]
    assert not any("Smith J" in t or "Balances" in t for t in texts)
    assert "The oven was set to one hundred degrees for every run." in texts


def test_an_appendix_after_the_references_is_read_as_a_back_section(tmp_path):
    doc, texts = _texts(paper())
    assert "The oven was set to one hundred degrees for every run." in texts
    assert doc.sections[-1].heading.endswith("The oven")
    from coresc.readers.pdf import pdf_tree

    tree = pdf_tree(paper(), "paper.pdf")
    annex = tree.getroot().findall(".//{*}back/{*}div[@type='annex']")
    assert len(annex) == 1 and "one hundred degrees" in "".join(annex[0].itertext())


def test_reading_quality_figures_in_the_paper_and_the_tei_header():
    doc = _texts(paper())[0]
    quality = doc.meta["pdf_quality"]
    assert quality["abstract"] and quality["headings"] >= 2
    assert quality["unended"] < 0.1 and 0 < quality["body_share"] <= 1
    assert doubts(quality) == [] and language_warnings([doc], "paper.pdf") == []
    note = doc.tree.getroot().find(".//{*}notesStmt/{*}note[@type='reading-quality']")
    assert json.loads(note.text) == quality


def every_line_a_sentence() -> bytes:
    """A page whose lines alternate between two sizes, far apart: the reading cuts every
    sentence at its line end."""
    buf = io.BytesIO()
    c, size = fx._canvas(buf)
    _, height = size
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, height - 80, "A Paper Whose Lines Stand Apart")
    fx._lines(c, 72, height - 110, ["1 Introduction"], "Helvetica-Bold", 11)
    # Title Case: no line starts in lower case, so nothing tells a cut line from a new one
    lines = fx._wrap(" ".join(SENTENCES[:24]).title(), 70)
    y = height - 130
    for k, line in enumerate(lines):
        fx._lines(c, 72, y, [line], size=(10, 13)[k % 2])
        y -= 20 + 9 * (k % 3)
    c.showPage()
    c.save()
    return buf.getvalue()


def test_a_doubtful_reading_says_so_in_one_line():
    doc = read_data(every_line_a_sentence(), "apart.pdf")[0]
    found = doubts(doc.meta["pdf_quality"])
    assert found and "end without punctuation" in found[0]
    [line] = language_warnings([doc], "apart.pdf")
    assert line.startswith("apart.pdf: the PDF may be read badly (") and "--grobid" in line
    assert "\n" not in line


def test_the_layout_renderer_writes_latex_with_every_element():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
    import render_layouts as rl

    assert rl.escape("5% of {x} & α ≤ 2") == r"5\% of \{x\} \& $\alpha$ $\leq$ 2"
    assert rl.escape("ħω") == r"$\hbar$$\omega$"  # (T1 has no h-bar)
    scixml = read_data(b'<mode2><s sid="1">Spectra were broad.<REF ID="cit3 cit4">3,4</REF>'
                       b'</s></mode2>', "cited.xml")[0]
    assert rl.cited_tex(scixml.sentences()[0]) == r"Spectra were broad.\textsuperscript{3,4}"
    doc = read_data(b"<article><front><article-meta><title-group><article-title>A title"
                    b"</article-title></title-group></article-meta></front><body><sec>"
                    b"<title>Methods</title><p>We dried it. We weighed it.</p></sec><sec>"
                    b"<title>Results</title><p>It was light.</p></sec><sec><title>Discussion"
                    b"</title><p>That was expected.</p></sec></body></article>",
                    "small.xml")[0]
    tex = rl.latex_of(doc, rl.LAYOUTS["article-german"])[0]
    assert r"\section*{Methods}" in tex and r"\renewcommand{\refname}{Literatur}" in tex
    # the body's first paragraph does not run on from article's two-column abstract
    assert "\\end{abstract}\n\n" in rl.latex_of(doc, rl.LAYOUTS["article-2col"])[0]
    tex, truth = rl.latex_of(doc, rl.LAYOUTS["article-italian"])
    assert tex.index(r"\end{thebibliography}") < tex.index(r"\section{Discussion}")
    roles = [e["role"] for e in truth["elements"]]
    assert roles[0] == "title" and roles.count("reference") == 12
    assert truth["elements"][-2]["back"] == "appendix"
    # a class that sets CJK text names its program on the first line, render() runs it
    chinese = rl.latex_of(doc, rl.LAYOUTS["ctexart"])[0]
    assert rl._PROGRAM.match(chinese).group(1) == "xelatex" and r"{参考文献}" in chinese
    assert not rl._PROGRAM.match(tex)
    # IEEE's journal class prints a lone appendix's head as "Appendix", not its title;
    # Oxford's takes the abstract as an argument that may hold no \par
    truth = rl.latex_of(doc, rl.LAYOUTS["ieeetran-journal"])[1]
    assert [e["text"] for e in truth["elements"] if e.get("back") == "appendix"] == \
        ["Appendix"]
    two = read_data(b"<article><front><article-meta><abstract><sec><title>Aims</title><p>To "
                    b"weigh.</p></sec><sec><title>Results</title><p>It was light.</p></sec>"
                    b"</abstract></article-meta></front><body><sec><title>Methods</title>"
                    b"<p>We dried it.</p></sec></body></article>", "two.xml")[0]
    oup = rl.latex_of(two, rl.LAYOUTS["oup-contemporary"])[0]
    abstract = oup[oup.index(r"\abstract{"):oup.index(r"\keywords")]
    assert "\\endgraf" in abstract and "\n\n" not in abstract
    # a table turned sideways on a page of its own (Elsevier's final layout)
    paras = "".join(f"<p>We dried sample {k}.</p>" for k in range(1, 11))
    long = read_data(f"<article><body><sec><title>Methods</title>{paras}</sec></body>"
                     "</article>".encode(), "long.xml")[0]
    wide = rl.latex_of(long, rl.LAYOUTS["elsarticle-5p"])[0]
    assert r"\begin{sidewaystable}\centering\caption{" in wide
    assert wide.count(r"\end{sidewaystable}") == 1 and r"\begin{table}" not in wide
    # a thesis's table on a landscape page of its own, a table float inside it
    turned = rl.latex_of(long, rl.HELD_OUT["thesis-scrreprt"])[0]
    assert r"\begin{landscape}\begin{table}[h]\centering\caption{" in turned
    assert turned.count(r"\end{table}\end{landscape}") == 1


def test_the_word_layout_renderer_writes_an_opendocument_with_every_element():
    """``render_word_layouts.py`` without LibreOffice: the flat OpenDocument it hands
    LibreOffice holds the headings (numbered by hand in the manuscript), the raised
    citations, the footnote and the floats that its truth lists."""
    from lxml import etree

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
    import render_word_layouts as rw

    paras = "".join(f"<p><s>We dried sample {k}.<xref ref-type='bibr'>{k}</xref></s></p>"
                    for k in range(1, 11))
    doc = read_data(b"<article><front><article-meta><title-group><article-title>Ovens"
                    b"</article-title></title-group></article-meta></front><body><sec>"
                    b"<title>Methods</title>" + paras.encode() + b"</sec></body></article>",
                    "ovens.xml")[0]
    odt, truth = rw.odt_of(doc, rw.WORD_LAYOUTS["word-manuscript"])
    root = etree.fromstring(odt.encode())
    text = "".join(root.itertext())
    assert "1. Methods" in text and "The data are available" in text
    assert 'text:style-name="Sup">1</text:span>' in odt
    roles = [e["role"] for e in truth["elements"]]
    assert roles[0] == "title" and roles.count("paragraph") == 10
    assert {"footnote", "caption", "table", "reference"} <= set(roles)
    assert truth["captions"] == [e["text"] for e in truth["elements"] if e["role"] == "caption"]
    odt = rw.odt_of(doc, rw.WORD_LAYOUTS["word-2col"])[0]
    assert 'fo:column-count="2"' in odt and "1. Methods" not in "".join(
        etree.fromstring(odt.encode()).itertext())
    # IEEE's Word template: roman numbers, the abstract run in after its name
    abstracted = read_data(b"<article><front><article-meta><abstract><p>It dries.</p>"
                           b"</abstract></article-meta></front><body><sec><title>Methods"
                           b"</title><p>We dried it.</p></sec></body></article>", "a.xml")[0]
    odt = rw.odt_of(abstracted, rw.WORD_LAYOUTS["word-ieee"])[0]
    text = "".join(etree.fromstring(odt.encode()).itertext())
    assert "I. Methods" in text and "Abstract\u2014It dries." in text
    assert 'fo:font-variant="small-caps"' in odt and ">Abstract</text:h>" not in odt
    assert [rw._ieee_number(1, n) for n in (1, 4, 9, 14)] == ["I.", "IV.", "IX.", "XIV."]
    assert rw._ieee_number(2, 3) == "C." and rw._ieee_number(3, 2) == "2)"
    # Word's default report (held out): one column, headings numbered, a running head
    odt = rw.odt_of(doc, rw.WORD_HELD_OUT["word-report"])[0]
    assert 'fo:column-count="1"' in odt and "1. Methods" in "".join(
        etree.fromstring(odt.encode()).itertext())


def thesis() -> bytes:
    """A table of contents with dot leaders (its last entry "References"), then the
    chapters it lists."""
    buf = io.BytesIO()
    c, size = fx._canvas(buf)
    _, height = size
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, height - 80, "A Thesis on Drying Samples")
    y = fx._lines(c, 72, height - 120, ["Contents"], "Helvetica-Bold", 13)
    fx._lines(c, 72, y - 6, ["1 Introduction . . . . . . . . . . . . . . . . . . 1",
                             "2 Methods . . . . . . . . . . . . . . . . . . . . 4",
                             "References . . . . . . . . . . . . . . . . . . . 9"])
    c.showPage()
    y = fx._lines(c, 72, height - 90, ["1 Introduction"], "Helvetica-Bold", 13)
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:10]), 90), y - 6)
    y = fx._lines(c, 72, y - 14, ["2 Methods"], "Helvetica-Bold", 13)
    _page(c, height, fx._wrap(" ".join(SENTENCES[10:20]), 90), y - 6)
    c.showPage()
    c.save()
    return buf.getvalue()


def test_a_table_of_contents_is_not_read_and_does_not_end_the_paper():
    doc, texts = _texts(thesis(), "thesis.pdf")
    assert not any(". . ." in t or "Contents" in t for t in texts)
    assert SENTENCES[0] in texts and SENTENCES[19] in texts
    assert [s.heading for s in doc.sections if s.depth >= 1] == ["Introduction", "Methods"]


def plain_headings_with_bookmarks(outline: bool = True) -> bytes:
    """Headings set in the body's own font and size, which only the PDF's bookmarks
    tell apart."""
    buf = io.BytesIO()
    c, size = fx._canvas(buf)
    _, height = size
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, height - 80, "A Paper Whose Headings Look Like Its Text")
    y = height - 120
    for k, head in enumerate(["Where the samples came from", "How they were weighed"]):
        c.bookmarkPage(f"s{k}", top=y + 12)
        if outline:
            c.addOutlineEntry(head, f"s{k}", level=0)
        y = _page(c, height, [head], y)
        y = _page(c, height, fx._wrap(" ".join(SENTENCES[10 * k:10 * k + 10]), 90), y - 4)
        y -= 14
    c.showPage()
    c.save()
    return buf.getvalue()


def test_the_pdfs_bookmarks_name_headings_its_layout_hides():
    doc = read_data(plain_headings_with_bookmarks(), "marked.pdf")[0]
    heads = [s.heading for s in doc.sections if s.depth >= 1]
    assert heads == ["Where the samples came from", "How they were weighed"]
    plain = read_data(plain_headings_with_bookmarks(outline=False), "plain.pdf")[0]
    assert [s.heading for s in plain.sections if s.depth >= 1] != heads


def _turned_text(c, width: float, height: float, rotate: int) -> None:
    """A title, a heading and a paragraph drawn so that they read upright once the page
    is shown turned by ``rotate`` degrees clockwise (its ``/Rotate``)."""
    c.setPageRotation(rotate)
    # reportlab turns the media box for 90 and 270: its height is then the A4 width (at
    # (0, height) a 270 page's text would lie off the page, which is not read)
    c.translate(*{0: (0, 0), 90: (width, 0), 180: (width, height), 270: (0, width)}[rotate])
    c.rotate({0: 0, 90: 90, 180: 180, 270: -90}[rotate])
    shown = height if rotate in (0, 180) else width
    fx._lines(c, 72, shown - 80, ["A Paper on a Turned Page"], "Helvetica-Bold", 16)
    fx._lines(c, 72, shown - 110, ["1 Introduction"], "Helvetica-Bold", 11)
    _page(c, shown, fx._wrap(" ".join(SENTENCES[:20]), 90), shown - 130)


def turned(rotate: int) -> bytes:
    buf = io.BytesIO()
    c, (width, height) = fx._canvas(buf)
    _turned_text(c, width, height, rotate)
    c.showPage()
    c.save()
    return buf.getvalue()


@pytest.mark.parametrize("rotate", [0, 90, 180, 270])
def test_pages_shown_turned_are_read_upright(rotate):
    doc, texts = _texts(turned(rotate), "turned.pdf")
    assert texts[0] == "A Paper on a Turned Page" and texts[1:] == SENTENCES[:20]
    assert [s.heading for s in doc.sections if s.depth >= 1] == ["Introduction"]


def tiny_page() -> bytes:
    """A page 6 x 8.4 points (a page set in other units): its fonts are a tenth of a
    point."""
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(5.95, 8.42))
    c.scale(0.01, 0.01)
    fx._lines(c, 72, 762, ["A Paper on a Tiny Page"], "Helvetica-Bold", 16)
    fx._lines(c, 72, 732, ["1 Introduction"], "Helvetica-Bold", 11)
    _page(c, 842, fx._wrap(" ".join(SENTENCES[:20]), 90), 712)
    c.showPage()
    c.save()
    return buf.getvalue()


def test_a_tiny_page_in_tiny_fonts_is_read():
    texts = _texts(tiny_page(), "tiny.pdf")[1]
    assert texts[0] == "A Paper on a Tiny Page" and texts[1:] == SENTENCES[:20]


def hyphens() -> bytes:
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, ["A Paper With Broken Words"], "Helvetica-Bold", 16)
    fx._lines(c, 72, height - 110, ["1 Introduction"], "Helvetica-Bold", 11)
    _page(c, height, ["We tuned the model in a parameter-efficient way on every sample we had.",
                      "The same kind of tuning was used again: parameter-",
                      "efficient tuning of the last layer only, in all the experi-",
                      "ments we ran that year, on each of the two machines we had."],
          height - 130)
    c.showPage()
    c.save()
    return buf.getvalue()


def test_a_hyphen_at_a_line_end_is_kept_where_the_paper_writes_the_compound():
    texts = _texts(hyphens(), "hyphens.pdf")[1]
    assert texts[-1] == ("The same kind of tuning was used again: parameter-efficient tuning "
                         "of the last layer only, in all the experiments we ran that year, on "
                         "each of the two machines we had.")


def ligatures() -> bytes:
    """A ligature drawn with a space after it in the text stream, the next letter set
    against it on the page (as in "scientifi c"), and a real space after an "f"."""
    import os

    import reportlab
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    vera = os.path.join(os.path.dirname(reportlab.__file__), "fonts", "Vera.ttf")
    pdfmetrics.registerFont(TTFont("Vera", vera))
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, ["A Paper With Ligatures"], "Helvetica-Bold", 16)
    fx._lines(c, 72, height - 110, ["1 Introduction"], "Helvetica-Bold", 11)
    y, x = height - 130, 72.0
    for piece in ("The genes were identi\ufb01 ", "ed by a scienti\ufb01 ", "c method of "):
        c.setFont("Vera", 10)
        c.drawString(x, y, piece)
        x += pdfmetrics.stringWidth(piece.rstrip(), "Vera", 10)
        if piece.endswith("of "):
            x += pdfmetrics.stringWidth(" ", "Vera", 10)
    c.drawString(x, y, "ours.")
    return _finish(c, buf)


def accents() -> bytes:
    """A double acute set as a glyph of its own over the "o" of "Erdos", which PDFium
    gives after its line: away from the letter that follows it in the text."""
    import os

    import reportlab
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    vera = os.path.join(os.path.dirname(reportlab.__file__), "fonts", "Vera.ttf")
    pdfmetrics.registerFont(TTFont("Vera", vera))
    c, buf, height, top = _start("A Paper With Accents", "1 Introduction")
    width = lambda t: pdfmetrics.stringWidth(t, "Vera", 10)  # noqa: E731
    c.setFont("Vera", 10)
    c.drawString(72, top, "Erd")
    c.drawString(72 + width("Erd") + 1, top, "\u02dd")
    c.drawString(72 + width("Erd"), top, "os was here.")
    c.drawString(72, top - 12.5, "The number of Erdos is small.")
    c.drawString(72 + width("The number of Erd") + 1, top - 12.5, "\u02dd")
    c.drawString(72, top - 25, "It can be found.")
    return _finish(c, buf)


def test_a_spacing_accent_goes_on_no_letter_it_is_not_drawn_over():
    texts = _texts(accents(), "accents.pdf")[1]
    # (before: a stray "\u02dd" glyph began a line, or the accent sat on "T" or "I")
    assert texts[1:] == ["Erdos was here.", "The number of Erdos is small.",
                         "It can be found."]


def test_a_space_after_a_ligature_that_the_page_does_not_show_is_dropped():
    texts = _texts(ligatures(), "ligatures.pdf")[1]
    assert texts[-1] == "The genes were identified by a scientific method of ours."


def double_spaced() -> bytes:
    """A thesis page: lines double-spaced, paragraphs opened by an indent."""
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, ["A Thesis Set Double-Spaced"], "Helvetica-Bold", 16)
    y = fx._lines(c, 72, height - 110, ["1 Introduction"], "Helvetica-Bold", 12)
    for k in range(2):
        lines = fx._wrap(" ".join(SENTENCES[10 * k:10 * k + 10]), 76)  # no line ends a sentence
        for i, line in enumerate(lines):
            fx._lines(c, 72 + (18 if i == 0 else 0), y - 10, [line], "Times-Roman", 11)
            y -= 27
    return _finish(c, buf)


def test_double_spaced_lines_are_read_as_paragraphs():
    doc = read_data(double_spaced(), "thesis.pdf")[0]
    assert [s.text for s in doc.sentences()][1:] == SENTENCES[:20]
    assert [len(p.sentences) for _s, p in doc.paragraphs() if _s.depth >= 1] == [10, 10]


def ieee_headings() -> bytes:
    """Headings as IEEEtran sets them: "I. INTRODUCTION" in small capitals (smaller than
    the text, not bold), "A. Subsection" in italics under "II. METHODS"."""
    buf = io.BytesIO()
    c, (width, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, ["A Paper Set as IEEE Sets It"], "Times-Roman", 22)
    y = height - 120
    for head, sub, k in (("I. INTRODUCTION", None, 0), ("II. METHODS", "A. Weighing", 1)):
        c.setFont("Times-Roman", 7.5)
        c.drawCentredString(width / 2, y, head)
        y -= 16
        if sub:
            y = fx._lines(c, 72, y, [sub], "Times-Italic", 10) - 4
        y = _page(c, height, fx._wrap(" ".join(SENTENCES[10 * k:10 * k + 10]), 90), y) - 12
    return _finish(c, buf)


def test_small_capital_roman_headings_and_lettered_subsections():
    doc = read_data(ieee_headings(), "ieee.pdf")[0]
    outline = [(s.heading, s.depth) for s in doc.sections if s.depth >= 1]
    assert outline == [("INTRODUCTION", 1), ("METHODS", 1), ("Weighing", 2)]


def two_abstracts() -> bytes:
    """A Portuguese paper: "Resumo", then the English abstract as a bold run-in
    paragraph, then the body."""
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, ["Amostras Pesadas Antes da Secagem"], "Helvetica-Bold", 16)
    y = fx._lines(c, 72, height - 110, ["Resumo"], "Helvetica-Bold", 11)
    y = _page(c, height, ["Pesamos as amostras duas vezes. A secagem levou um dia inteiro."],
              y - 4)
    c.setFont("Helvetica-Bold", 10)
    c.drawString(72, y - 6, "Abstract.")
    c.setFont("Times-Roman", 10)
    c.drawString(120, y - 6, "We weighed the samples twice. Drying took a whole day.")
    y = fx._lines(c, 72, y - 30, ["1 Introdução"], "Helvetica-Bold", 11)
    _page(c, height, fx._wrap("As amostras vieram do campo. " * 6, 90), y - 4)
    return _finish(c, buf)


def test_the_abstract_in_a_second_language_is_left_out_as_the_xml_readers_do():
    doc, texts = _texts(two_abstracts(), "dois.pdf")
    assert [s.text for s in doc.sentences() if s.zone == "abstract"] == [
        "Pesamos as amostras duas vezes.", "A secagem levou um dia inteiro."]
    assert not any("weighed" in t or "Drying" in t for t in texts)
    assert "As amostras vieram do campo." in texts


SAMPLE = Path(__file__).resolve().parents[1] / "data" / "layouts-sample" / "files"


@pytest.mark.parametrize("layout", ["article-2col", "ieeetran-conf", "elsarticle-lineno",
                                    "word-manuscript", "word-2col", "thesis-report",
                                    "amsart", "nature", "mnras", "apa7-man", "tufte-handout",
                                    "ctexart", "article-russian", "ieeetran-journal",
                                    "smfart", "memoir-ruled", "word-ieee", "elsarticle-5p",
                                    "aomart", "apa7-jou", "asmejour", "thesis-scrreprt"])
def test_the_committed_layout_sample_reads_back_to_its_xml(layout):
    """``data/layouts-sample``: the example paper rendered by render_layouts.py through
    three TeX templates, four of the fifth step's held-out ones (a thesis, amsart's small
    capitals and run-in heads, Nature's double spacing and bold abstract, MNRAS) and five
    of the sixth's (APA's double-spaced manuscript, Tufte's margins, ctex's Chinese by
    XeLaTeX, babel's Russian, IEEE's journal) and three of the seventh's (smfart's
    French capitals, memoir's chapter-numbered sections, Elsevier's final layout with its
    table turned sideways) and four of the eighth's (the Annals' italic run-in heads, APA's
    journal style, ASME's authors beside the abstract, a KOMA-Script thesis with a
    landscape page), and by render_word_layouts.py through LibreOffice in three (IEEE's
    Word template, held out in the seventh step); read back, every sentence of the XML is
    there, headings too."""
    from coresc.readers import read_file

    truth = json.loads((SAMPLE / layout / "example-paper.truth.json").read_text())
    xml = read_file(Path(__file__).resolve().parents[1] / "data" / "example-paper.xml")[0]
    doc = read_data((SAMPLE / layout / "example-paper.pdf").read_bytes(), "example-paper.pdf")[0]

    def key(text):
        return "".join(c for c in unicodedata.normalize("NFKC", text).lower() if c.isalnum())

    got = [key(s.text) for s in doc.sentences()]
    # (a sentence may carry a footnote's mark: "... stress.1")
    assert [s.text for s in xml.sentences() if not any(key(s.text) in g for g in got)] == []
    heads = {key(s.heading) for s in doc.sections}
    assert {key(e["text"]) for e in truth["elements"] if e["role"] == "heading"
            and "back" not in e} <= heads


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 600), st.floats(0, 800), st.floats(0.1, 300),
                          st.floats(0.1, 40)), min_size=0, max_size=60),
       st.floats(1, 20))
def test_xy_cuts_read_every_run_once(boxes, body):
    from coresc.readers.pdf.xycut import xy_leaves

    runs = [[x, y, x + w, y + h, y, h, f"r{i}", 0.0, 0.0, "F", []]
            for i, (x, y, w, h) in enumerate(boxes)]
    leaves = xy_leaves(runs, body)
    assert sorted(r[6] for leaf in leaves for r in leaf) == sorted(r[6] for r in runs)
    assert all(leaves)


def test_the_html_view_says_how_well_a_pdf_was_read():
    from coresc.writers.html.paper import render_paper

    good = render_paper(read_data(paper(), "good.pdf")[0])
    assert '<p class="note" id="reading">Read from a PDF: 0% of its sentences' in good
    bad = render_paper(read_data(every_line_a_sentence(), "bad.pdf")[0])
    assert 'id="reading" role="alert">Read from a PDF, perhaps badly:' in bad
    assert "--grobid" in bad
    xml = render_paper(read_data(b"<article><body><p>One. Two.</p></body></article>",
                                 "x.xml")[0])
    assert 'id="reading"' not in xml


def lower_case_run_in() -> bytes:
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, ["A Paper on Streptococci"], "Helvetica-Bold", 16)
    y = fx._lines(c, 72, height - 110, ["1 Methods"], "Helvetica-Bold", 11)
    c.setFont("Times-Bold", 10)
    c.drawString(72, y - 4, "emm typing")
    c.setFont("Times-Roman", 10)
    c.drawString(122, y - 4, "The isolates were typed by sequencing the end of the gene.")
    _page(c, height, fx._wrap(" ".join(SENTENCES[:6]), 90), y - 16.5)
    return _finish(c, buf)


def test_a_run_in_head_may_open_in_lower_case():
    doc = read_data(lower_case_run_in(), "emm.pdf")[0]
    assert [s.heading for s in doc.sections if s.depth >= 1] == ["Methods", "emm typing"]
    assert "The isolates were typed by sequencing the end of the gene." in [
        s.text for s in doc.sentences()]


def abstract_paper(heading: str | None) -> bytes:
    """An abstract under ``heading``, or with none, set smaller than the body."""
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, ["Weighing Samples Before and After Drying"],
              "Helvetica-Bold", 16)
    y = height - 110
    if heading:
        y = fx._lines(c, 72, y, [heading], "Helvetica-Bold", 10) - 4
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[30:36]), 100), y, size=8.5)
    y = fx._lines(c, 72, y - 14, ["1 Introduction"], "Helvetica-Bold", 11)
    _page(c, height, fx._wrap(" ".join(SENTENCES[:10]), 90), y - 4)
    return _finish(c, buf)


@pytest.mark.parametrize("heading", ["Zusammenfassung", "Samenvatting", None])
def test_abstracts_named_in_other_languages_or_set_apart_by_size_alone(heading):
    doc = read_data(abstract_paper(heading), "abs.pdf")[0]
    assert [s.text for s in doc.sentences() if s.zone == "abstract"] == SENTENCES[30:36]
    assert [s.text for s in doc.sentences() if s.zone == "body"] == SENTENCES[:10]


def _styled(c, x, y, pieces, size=10):
    """One line of (text, font) pieces."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    for text, font in pieces:
        c.setFont(font, size)
        c.drawString(x, y, text)
        x += stringWidth(text, font, size)


def boxed_and_structured() -> bytes:
    """A structured abstract whose parts are named inside its lines (PLOS), a run-in
    head opening a line of a small abstract, and a box of small text set loosely."""
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, ["Drying Samples in Ovens"], "Helvetica-Bold", 16)
    fx._lines(c, 72, height - 110, ["Abstract"], "Helvetica-Bold", 11)
    b, r = "Times-Bold", "Times-Roman"
    y = height - 126
    for pieces in ([("Background. ", b), ("Ovens dry samples. Few know how fast. ", r),
                    ("Methods and Findings. ", b), ("We dried forty", r)],
                   [("samples in two ovens and weighed them every hour of the day.", r)],
                   [("Conclusions: ", b), ("Drying took a day in both ovens we had.", r)]):
        _styled(c, 72, y, pieces)
        y -= 12.5
    y = fx._lines(c, 72, y - 14, ["1 Introduction"], "Helvetica-Bold", 11)
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:6]), 90), y - 4)
    y = fx._lines(c, 72, y - 14, ["Box 1. How an Oven Dries a Sample"], "Helvetica-Bold", 12)
    box = fx._wrap("Hot air takes the water out of the sample over many hours. The sample "
                   "is weighed when it has cooled. A sample that still loses weight is put "
                   "back into the oven for another hour.", 95)
    y = fx._lines(c, 72, y - 6, box, "Times-Roman", 7.5, leading=11)
    _page(c, height, fx._wrap(" ".join(SENTENCES[6:12]), 90), y - 16)
    return _finish(c, buf)


def test_a_structured_abstracts_inline_parts_and_a_box_are_read():
    doc, texts = _texts(boxed_and_structured(), "boxed.pdf")
    heads = [s.heading for s in doc.sections]
    assert heads[:5] == ["Title", "Abstract", "Background", "Methods and Findings",
                         "Conclusions"]
    assert "We dried forty samples in two ovens and weighed them every hour of the day." \
        in texts
    assert "Hot air takes the water out of the sample over many hours." in texts
    assert "A sample that still loses weight is put back into the oven for another hour." \
        in texts


def unheaded_introduction(abstract_size: float = 9, indent: float = 30,
                          first_indent: float = 0) -> bytes:
    """A LaTeX article with no introduction heading: the abstract set apart by its size
    or its narrower measure, or set as the body with the body's first paragraph indented
    after it; section numbers set a quad and more before
    their headings; a section named "Subject selection"; a citation line of the front
    matter."""
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, ["Weighing Dried Samples"], "Helvetica-Bold", 16)
    y = fx._lines(c, 250, height - 110, ["Abstract"], "Helvetica-Bold", 11)
    abstract = fx._wrap(" ".join(SENTENCES[:3]), 90 if indent == 0 else 80)
    y = fx._lines(c, 72 + indent + first_indent, y - 4, abstract[:1], "Times-Roman",
                  abstract_size, abstract_size + 2)  # (French sets its first line indented)
    y = fx._lines(c, 72 + indent, y, abstract[1:], "Times-Roman", abstract_size,
                  abstract_size + 2)
    intro = fx._wrap(" ".join(SENTENCES[3:9]), 90)
    y = _page(c, height, intro[:1], y - 12, x=72 + 15 * (indent == 0))  # (its indent)
    y = _page(c, height, intro[1:], y)
    y = _page(c, height, ["Citation: Lee A (2006) Weighing dried samples. J Tests 1: e10."],
              y - 12)
    for number, head, size, gap in (("1", "Materials and Methods", 12, 24),
                                    ("1.1", "Subject selection and specimen collection",
                                     10.5, 27)):
        y -= 14
        fx._lines(c, 72, y, [number], "Helvetica-Bold", size)
        fx._lines(c, 72 + gap, y, [head], "Helvetica-Bold", size)
        y = _page(c, height, fx._wrap(" ".join(SENTENCES[9:12]), 90), y - 16)
    return _finish(c, buf)


@pytest.mark.parametrize("abstract_size,indent,first", [(9, 0, 0), (10, 30, 0), (10, 0, 0),
                                                        (10, 0, 15)])
def test_an_introduction_with_no_heading_is_not_read_as_the_abstract(abstract_size, indent,
                                                                     first):
    doc, _ = _texts(unheaded_introduction(abstract_size, indent, first), "unheaded.pdf")
    by_head = {s.heading: [x.text for x in s.sentences()] for s in doc.sections}
    assert by_head["Abstract"] == SENTENCES[:3]
    assert [s.heading for s in doc.sections][2:] == [
        "", "Materials and Methods", "Subject selection and specimen collection"]
    assert by_head[""] == SENTENCES[3:9]  # (the citation line left out)
    assert by_head["Subject selection and specimen collection"] == SENTENCES[9:12]


def test_a_short_line_ending_in_a_colon_ends_its_paragraph():
    c, buf, height, top = _start("A Course for Students", "1 Audience")
    _page(c, height, fx._wrap(" ".join(SENTENCES[:4]), 90)
          + ["Examples of the students we are trying to help:",
             "Maya: an advanced student who wants to learn how the samples were dried."],
          top)
    texts = _texts(_finish(c, buf), "colon.pdf")[1]
    assert texts[-2:] == ["Examples of the students we are trying to help:",
                          "Maya: an advanced student who wants to learn how the samples were "
                          "dried."]


def test_a_paragraph_opening_note_is_read_and_a_tables_note_is_not():
    c, buf, height, top = _start("Isolating DNA From Tissue", "1 Methods")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:4]), 90), top)
    y = _page(c, height, fx._wrap("Note: centrifugation steps were performed at 4 degrees. "
                                  + " ".join(SENTENCES[4:10]), 90), y - 8)
    y = _page(c, height, ["Note: SD, standard deviation."], y - 8)
    _page(c, height, fx._wrap(" ".join(SENTENCES[10:14]), 90), y - 8)
    texts = _texts(_finish(c, buf), "note.pdf")[1]
    assert "Note: centrifugation steps were performed at 4 degrees." in texts
    assert SENTENCES[7] in texts and not any("standard deviation" in t for t in texts)


def test_a_font_named_italic_by_its_suffix_is_not_taken_for_bold():
    from coresc.readers.pdf.layout import restyle

    def run(text, font):
        return [72, 700, 300, 710, 702, 10, text, 0.0, 0.0, font, [[len(text), False, False,
                                                                     font]]]
    body = [run("x" * 60, "AdvTT99c4c969") for _ in range(40)]
    head, italic = run("Experimental setup", "AdvTT5a1b2c3d"), run("Neuromuscular", "AdvTT83.I")
    restyle([{"runs": [*body, head, italic]}])
    assert head[7] == 1.0 and italic[7] == 0.0


def test_a_radical_drawn_in_ligature_glyphs_is_not_a_heading():
    from coresc.readers.pdf.structure.kinds import _debris

    assert _debris("p " + "ffi" * 20) and not _debris("Data analysis")


def test_a_paragraph_holding_a_repeat_is_kept():
    """A repeat among a paragraph's words ("CACACACACA", "xxxxxxxx") is no radical's
    bar: the paragraph was dropped whole as debris, a one-page PDF "no body text found"."""
    c, buf, height, top = _start("Microsatellites in rat lungs", "1 Results")
    para = " ".join(SENTENCES[:6]) + " The repeat CACACACACACACA was typed in all rats."
    _page(c, height, fx._wrap(para, 90), top)
    texts = [s.text for s in read_data(_finish(c, buf), "paper.pdf")[0].sentences()]
    assert SENTENCES[0] in texts and "The repeat CACACACACACACA was typed in all rats." \
        in texts


def test_a_captions_doi_is_left_out_where_the_caption_runs_on():
    c, buf, height, top = _start("Drying Samples", "1 Results")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:4]), 90), top)
    y = fx._lines(c, 72, y - 10, ["Figure 1. The balance and the oven."], "Times-Bold", 8, 9.5)
    y = fx._lines(c, 72, y, ["Both were used for every sample we dried.",
                             "doi:10.1371/journal.pone.0000010.g001"], "Times-Roman", 8, 9.5)
    _page(c, height, fx._wrap(" ".join(SENTENCES[4:8]), 90), y - 10)
    texts = _texts(_finish(c, buf), "doi.pdf")[1]
    assert "Both were used for every sample we dried." in texts
    assert not any("doi" in t for t in texts)


def test_a_figure_in_a_paper_with_no_headings_does_not_split_its_body():
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, ["A Communication With No Headings"], "Helvetica-Bold", 16)
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:6]), 90), height - 120)
    y = fx._lines(c, 72, y - 10, ["Figure 1. The balance and the oven used."], "Times-Bold", 8)
    _page(c, height, fx._wrap(" ".join(SENTENCES[6:12]), 90), y - 10)
    doc = read_data(_finish(c, buf), "communication.pdf")[0]
    assert [s.heading for s in doc.sections] == ["Title", ""]
    assert [s.text for s in doc.sections[1].sentences() if s.zone != "caption"] == \
        SENTENCES[:12]

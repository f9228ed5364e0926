"""The PDF reader on what issue 50's eighth step showed, on the layouts held out then
(ASME, APA's journal style, the Annals of Mathematics, AIP's revtex, a KOMA-Script
thesis) and on the fitted ones read again. Each PDF is made here (reportlab), or the
page's font boxes are faked; each test fails on the reader before this step."""

from __future__ import annotations

from helpers import need

need("reportlab")

import io  # noqa: E402

import pdf_fixtures as fx  # noqa: E402
from test_pdf_heldout_layouts_3 import _outline, _read  # noqa: E402
from test_pdf_layouts import SENTENCES, _finish, _page, _start  # noqa: E402


def _section(doc, heading: str) -> list[str]:
    return [s.text for sec in doc.sections if sec.heading == heading
            for p in sec.paragraphs for s in p.sentences]


def _abstract(doc) -> list[str]:
    return [s.text for sec in doc.sections if sec.type == "abstract"
            for p in sec.paragraphs for s in p.sentences]


def _columns(c, height: float, top: float, left: list[str], right: list[str]) -> None:
    """Two columns of 9-point lines from ``top`` down."""
    for x, lines in ((50, left), (305, right)):
        fx._lines(c, x, top, lines, "Times-Roman", 9, 11)


def abstract_over_columns() -> bytes:
    """AIP's front: a title, the authors, then the abstract across the page with no
    heading, set in the body's size, over two columns that open with "I. INTRODUCTION"."""
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 50, height - 70, ["Adducts of styrene in rats and mice"], "Times-Bold", 13)
    fx._lines(c, 100, height - 90, ["Kwame Mensah, Ana Ribeiro, and Sofia Rossi"],
              "Times-Roman", 9)
    abstract = fx._wrap(" ".join(SENTENCES[30:36]), 100)
    y = fx._lines(c, 90, height - 115, abstract, "Times-Roman", 9, 11)
    fx._lines(c, 50, y - 20, ["I. INTRODUCTION"], "Times-Roman", 8)
    _columns(c, height, y - 40, fx._wrap(" ".join(SENTENCES[:12]), 50),
             fx._wrap(" ".join(SENTENCES[12:24]), 50))
    return _finish(c, buf)


def test_running_text_across_the_page_over_the_columns_is_an_unheaded_abstract():
    """(It had been read as the body's first paragraph, the paper with no abstract.)"""
    doc, texts = _read(abstract_over_columns())
    assert _abstract(doc) == SENTENCES[30:36]
    assert _section(doc, "INTRODUCTION")[:2] == SENTENCES[:2]


def asme_feet() -> bytes:
    """Four pages whose feet carry the page number after a rule ("PREPRINT FOR REVIEW /
    3"), before it ("2 / PREPRINT FOR REVIEW", beside "Transactions of the ASME"), and on
    the first page after words with figures of their own; a section's number, 2, at the
    top of page 2."""
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    feet = {1: ("Journal of Small Tests Copyright 2026 by ASME PREPRINT FOR REVIEW / 1", ""),
            2: ("2 / PREPRINT FOR REVIEW", "Transactions of the ASME"),
            3: ("Journal of Small Tests", "PREPRINT FOR REVIEW / 3"),
            4: ("4 / PREPRINT FOR REVIEW", "Transactions of the ASME")}
    for page in range(1, 5):
        y = height - 80
        if page == 1:
            y = fx._lines(c, 72, y, ["Adducts of styrene in rats and mice"], "Helvetica-Bold",
                          16) - 20
            y = fx._lines(c, 72, y, ["1 Introduction"], "Helvetica-Bold", 11) - 6
        if page == 2:
            y = fx._lines(c, 72, y, ["2 Materials and methods"], "Helvetica-Bold", 11) - 6
        first = 10 * (page - 1)
        _page(c, height, fx._wrap(" ".join(SENTENCES[first:first + 10]), 90), y)
        left, right = feet[page]
        fx._lines(c, 72, 50, [left], "Helvetica", 8)
        if right:
            c.setFont("Helvetica", 8)
            c.drawRightString(523, 50, right)
        c.showPage()
    c.save()
    return buf.getvalue()


def test_running_feet_with_a_rule_by_the_page_number_are_not_text():
    """The feet are left out, and "2 Materials and methods" at the top of page 2 is a
    heading, not a running head (the feet had been read as headings, "/ PREPRINT FOR
    REVIEW", and the section, its number the page's, dropped as a head)."""
    doc, texts = _read(asme_feet())
    assert [h for h, _ in _outline(doc)] == ["Introduction", "Materials and methods"]
    assert not any("PREPRINT" in t or "ASME" in t for t in texts)
    assert _section(doc, "Materials and methods")[:1] == SENTENCES[10:11]


def _mixed(c, x: float, y: float, pieces: list[tuple[str, str]], size: float = 10) -> float:
    """One line of ``(text, font)`` pieces from ``x``; returns where it ends."""
    for text, font in pieces:
        c.setFont(font, size)
        c.drawString(x, y, text)
        x += c.stringWidth(text, font, size)
    return x


def annals() -> bytes:
    """The Annals of Mathematics: main heads centred, their number upright before the
    bold title ("3. **Results**"); subsections run in, their title italic after an
    upright number, a figure or bracket set upright inside it ("2.2. *Reaction of
    styrene-*7,8*-oxide with guanosine.*", "... (*CIPCO*)."), one wrapped onto the next
    line."""
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 150, height - 80, ["Adducts of styrene in rats and mice"], "Times-Bold", 14)
    y = height - 120
    for k, (number, head, subs) in enumerate((
            ("1. ", "Introduction", []),
            ("2. ", "Methods", [("2.1. ", [("Animals and animal care", "Times-Italic")]),
                                ("2.2. ", [("Reaction of styrene-", "Times-Italic"),
                                           ("7,8", "Times-Roman"),
                                           ("-oxide with guanosine", "Times-Italic")]),
                                ("2.3. ", [("Assay for CoA oxidation ", "Times-Italic"),
                                           ("(", "Times-Roman"), ("CIPCO", "Times-Italic"),
                                           (")", "Times-Roman")])]),
            ("3. ", "Results", [])), ):
        width = c.stringWidth(number, "Times-Roman", 10) + c.stringWidth(head, "Times-Bold", 10)
        _mixed(c, 297.5 - width / 2, y, [(number, "Times-Roman"), (head, "Times-Bold")])
        y = _page(c, height, fx._wrap(" ".join(SENTENCES[8 * k:8 * k + 4]), 90), y - 16)
        for j, (sub, title) in enumerate(subs):
            at = _mixed(c, 86, y, [(sub, "Times-Roman"), *title, (". ", "Times-Roman")])
            c.setFont("Times-Roman", 10)
            c.drawString(at, y, "The rats came from the breeder.")
            first = 8 * k + 4 + 2 * j
            y = _page(c, height, fx._wrap(" ".join(SENTENCES[first:first + 2]), 90), y - 12.5)
    at = _mixed(c, 86, y, [("3.1. ", "Times-Roman"),
                           ("Experiment 1: methylation and expression of the c-myc "
                            "protoonco-", "Times-Italic")])
    y = _page(c, height, [], y - 12.5)
    at = _mixed(c, 72, y, [("gene", "Times-Italic"), (". ", "Times-Roman")])
    c.drawString(at, y, "The livers were weighed first.")
    _page(c, height, fx._wrap(" ".join(SENTENCES[30:33]), 90), y - 12.5)
    return _finish(c, buf)


def test_a_heads_number_set_upright_and_an_italic_run_in_head_are_read():
    """(The main heads' bold had been weighed with their number, short of a heading's;
    the italic run-in heads were no heads at all.)"""
    doc, texts = _read(annals())
    assert _outline(doc) == [
        ("Introduction", 1), ("Methods", 1), ("Animals and animal care", 2),
        ("Reaction of styrene-7,8-oxide with guanosine", 2),
        ("Assay for CoA oxidation (CIPCO)", 2), ("Results", 1),
        ("Experiment 1: methylation and expression of the c-myc protooncogene", 2)]
    assert _section(doc, "Animals and animal care")[0] == "The rats came from the breeder."
    assert "The livers were weighed first." in texts


def apa_journal() -> bytes:
    """APA's journal style in two columns: level-1 heads centred in their column, bold,
    level-2 heads flush left in the same bold; a figure's label in bold, its title in
    italic a line and a half under it, cutting a sentence at a column's foot."""
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 150, height - 70, ["Adducts of styrene in rats and mice"], "Times-Roman", 14)
    fx._lines(c, 275, height - 95, ["Abstract"], "Times-Bold", 9)
    top = fx._lines(c, 90, height - 110, fx._wrap(" ".join(SENTENCES[36:39]), 100),
                    "Times-Roman", 9, 11) - 20
    y, x = top, 50
    for k, (head, centred) in enumerate((("Method", True), ("Participants", False),
                                         ("Results", True), ("Weighing", False),
                                         ("Discussion", True))):
        if k == 2:  # the next column
            x, y = 305, top
        lines = fx._wrap(" ".join(SENTENCES[3 * k:3 * k + 3]), 50)
        measure = max(c.stringWidth(line, "Times-Roman", 9) for line in lines)
        width = c.stringWidth(head, "Times-Bold", 9)
        fx._lines(c, x + ((measure - width) / 2 if centred else 0), y, [head], "Times-Bold",
                  9)
        y = fx._lines(c, x, y - 14, lines, "Times-Roman", 9, 11) - 6
    last = "The balance we used had been calibrated by the maker"
    fx._lines(c, 305, y, [last], "Times-Roman", 9)
    c.showPage()
    fx._lines(c, 50, height - 70, ["Figure 1"], "Times-Bold", 9)
    fx._lines(c, 50, height - 94, ["Distribution of the weights across the groups."],
              "Times-Italic", 8.5)
    c.rect(50, height - 250, 200, 150)
    fx._lines(c, 50, height - 280, ["in the spring of that year. " + SENTENCES[30]],
              "Times-Roman", 9)
    fx._lines(c, 50, height - 291, fx._wrap(" ".join(SENTENCES[31:35]), 50), "Times-Roman", 9,
              11)
    return _finish(c, buf)


def test_apa_heads_levels_by_their_own_column_and_a_caption_under_its_label():
    """(The centred heads had been measured against both columns, so not centred, every
    head read at one level; the caption's title, set further under its label than CAS
    sets it, had cut into the sentence the figure interrupts.)"""
    doc, texts = _read(apa_journal())
    assert _outline(doc) == [("Method", 1), ("Participants", 2), ("Results", 1),
                             ("Weighing", 2), ("Discussion", 1)]
    # the heads each cut into a region of their own, in reading order between the two
    # columns' paragraphs (as the cuts leave APA's double-spaced heads)
    assert _levels([("para", 50), ("para", 50), ("Method", 128), ("para", 50),
                    ("para", 305), ("Results", 385), ("para", 305), ("Participants", 50),
                    ("para", 50), ("Weighing", 305), ("para", 305)]) == \
        {"Method": 1, "Results": 1, "Participants": 2, "Weighing": 2}
    assert ("The balance we used had been calibrated by the maker in the spring of that "
            "year.") in texts
    caption = [t for t in texts if "Distribution of the weights" in t]
    assert caption == ["Distribution of the weights across the groups."]


def _levels(order: list[tuple[str, float]]) -> dict[str, int]:
    """The levels :func:`heading_levels` gives headings set in bold at ``x`` each in a
    region of its own, among paragraphs ("para") of two columns 205 points wide."""
    from coresc.readers.pdf.layout import Line
    from coresc.readers.pdf.structure.blocks import Block
    from coresc.readers.pdf.structure.heads import heading_levels

    blocks, y = [], 700.0
    for text, x in order:
        if text == "para":
            lines = [Line(0, x, y - 11 * k - 9, x + 205, y - 11 * k, y - 11 * k - 7, 9.0,
                          SENTENCES[k], 0.0, 0.0, col_left=x, col_right=x + 205)
                     for k in range(3)]
            blocks.append(Block(lines))
        else:
            width = 6 * len(text)
            head = Line(0, x, y - 9, x + width, y, y - 7, 9.0, text, 1.0, 0.0,
                        [[len(text), True, False]], col_left=x, col_right=x + width)
            blocks.append(Block([head], kind="heading", heading_text=text))
        y -= 40
    heading_levels(blocks, 9.0)
    return {b.heading_text: b.level for b in blocks if b.kind == "heading"}


def thesis_front() -> bytes:
    """A thesis's front: a title page, an abstract on a page of its own with no heading,
    and a table of contents whose page numbers stand in a column of their own, its
    entries' leaders reaching it; then its first chapter."""
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 120, height - 200, ["Adducts of styrene in rats and mice"], "Times-Bold", 18)
    fx._lines(c, 200, height - 260, ["Kwame Mensah"], "Times-Roman", 13)
    c.showPage()
    _page(c, height, fx._wrap(" ".join(SENTENCES[30:36]), 90), height - 90)
    c.showPage()
    fx._lines(c, 72, height - 90, ["Contents"], "Times-Bold", 18)
    y = height - 130
    for entry in ("1. Introduction", "1.1. The samples", "2. Methods", "2.1. Weighing",
                  "2.2. Drying", "3. Results"):
        leaders = " ".join("." * 40)
        c.setFont("Times-Roman", 10)
        c.drawString(72, y, entry)
        c.drawRightString(470, y, leaders)
        y -= 20
    c.showPage()
    fx._lines(c, 72, height - 90, ["1. Introduction"], "Times-Bold", 18)
    _page(c, height, fx._wrap(" ".join(SENTENCES[:8]), 90), height - 130)
    return _finish(c, buf)


def test_a_theses_unheaded_abstract_before_its_contents_is_the_abstract():
    """(The abstract had been read as the body's first paragraph, and the contents'
    entries, their page numbers apart, as headings and text.)"""
    doc, texts = _read(thesis_front())
    assert _abstract(doc) == SENTENCES[30:36]
    assert [h for h, _ in _outline(doc)] == ["Introduction"]
    assert not any("Weighing" in t or "Drying" in t for t in texts)


def lettered_to_i() -> bytes:
    """AIP's sections: Roman-numbered heads, and under one, subsections lettered A to I
    ("H. System A.", "I. System B."): "I" is a letter there, not a Roman one."""
    c, buf, height, y = _start("Adducts of styrene in rats and mice", "I. INTRODUCTION")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:3]), 90), y)
    y = fx._lines(c, 72, y - 8, ["II. METHODS"], "Helvetica-Bold", 11) - 4
    for k, letter in enumerate("ABCDEFGHIJ"):
        y = fx._lines(c, 72, y - 4, [f"{letter}. System {k + 1}"], "Times-Bold", 10)
        y = _page(c, height, [SENTENCES[3 + k]], y)
    fx._lines(c, 72, y - 8, ["III. RESULTS"], "Helvetica-Bold", 11)
    _page(c, height, [SENTENCES[20]], y - 24)
    return _finish(c, buf)


def test_a_letter_i_after_h_is_a_subsections_letter_not_a_roman_one():
    """(It had been read as section I, a level up: the subsections after it under it.)"""
    doc, _ = _read(lettered_to_i())
    outline = _outline(doc)
    assert ("System 9", 2) in outline and ("System 10", 2) in outline
    assert outline[-1] == ("RESULTS", 1)


def asme_lists() -> bytes:
    """ASME's review copy: after the references, a list of the figures' captions and a
    list of the tables'."""
    c, buf, height, y = _start("Adducts of styrene in rats and mice", "1 Introduction")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:6]), 90), y)
    y = fx._lines(c, 72, y - 8, ["References"], "Helvetica-Bold", 11)
    y = _page(c, height, ["[1] Cohen D. Styrene in rats. J Tox. 2001; 12: 1-9."], y - 4)
    for head, entry in (("List of Figures", "1 Distribution of the weights across the "
                         "groups, with the median of each group."),
                        ("List of Tables", "1 Characteristics of the rats included in "
                         "the analysis, by group.")):
        y = fx._lines(c, 72, y - 8, [head], "Helvetica-Bold", 11)
        y = _page(c, height, [entry], y - 4)
    return _finish(c, buf)


def test_lists_of_figures_and_tables_are_not_the_papers_text():
    doc, texts = _read(asme_lists())
    assert [h for h, _ in _outline(doc)] == ["Introduction"]
    assert not any("Distribution of the weights" in t or "Characteristics" in t for t in texts)


class _Boxes:
    """Just enough of PDFium's text API for :func:`page_ratio`: glyphs of one font at
    one size, each with its loose box's height."""

    def __init__(self, glyphs: list[tuple[str, float]], points: float = 10.9) -> None:
        self.glyphs, self.points = glyphs, points

    def FPDFText_GetFontSize(self, _tp, i):  # noqa: N802 (PDFium's names)
        return self.points

    def FPDFText_GetLooseCharBox(self, _tp, i, rect):  # noqa: N802
        rect.top, rect.bottom = self.glyphs[i][1] * self.points, 0.0

    def FPDFText_GetFontInfo(self, _tp, i, buf, size, flags):  # noqa: N802
        name = b"TeXGyreBonum-Regular\0"
        buf.raw = name + b"\0" * (size - len(name))
        return len(name)


def _ratio(glyphs: list[tuple[str, float]]) -> float:
    import ctypes

    from coresc.readers.pdf.fonts import page_ratio

    class Rect(ctypes.Structure):
        _fields_ = [("left", ctypes.c_float), ("top", ctypes.c_float),
                    ("right", ctypes.c_float), ("bottom", ctypes.c_float)]

    codes = [ord(ch) for ch, _ in glyphs]
    return page_ratio(_Boxes(glyphs), None, len(codes), codes, Rect())


def test_a_font_whose_ascenders_rise_over_its_ascent_keeps_the_pages_ratio():
    """TeX Gyre Bonum's "d", "h", "f" rise over its declared ascent, so its boxes come
    in a few heights (0.921 to 0.974 a point), its "g" and "p" as short as its "e": the
    page's ratio stands, as on its other pages (it had been taken for glyphs' own boxes
    on pages where an "f" was sampled, and their text measured a fifth larger than the
    same text on the next page: the body read as small print there). LibreOffice's
    boxes are their glyphs' own: its "g" and "p" hang below the rest."""
    text = "the samples were dried for a day and weighed up to five times by hand" * 2
    bonum = {"d": 0.957, "h": 0.957, "l": 0.957, "b": 0.957, "f": 0.974, "k": 0.957}
    assert abs(_ratio([(ch, bonum.get(ch, 0.921)) for ch in text if ch != " "]) - 0.921) \
        < 0.01
    hangs = {"g": 0.874, "p": 0.871, "y": 0.874, "d": 0.703, "f": 0.704, "h": 0.703}
    assert _ratio([(ch, hangs.get(ch, 0.659)) for ch in text if ch != " "]) == -1.0


def long_wrapped_head() -> bytes:
    """ASME's run-in subsection heads in bold, one of fourteen words, wrapped with five
    of them on the next line before the paragraph runs on."""
    c, buf, height, y = _start("Adducts of styrene in rats and mice", "3 Results")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:3]), 90), y)
    y = fx._lines(c, 72, y - 4, ["3.1 Inhibition of MAP kinases prevents the suppression of"],
                  "Times-Bold", 10)
    at = _mixed(c, 72, y, [("apoptosis by the PP nafenopin.", "Times-Bold"),
                           (" As described previously, the cells were seeded", "Times-Roman")])
    assert at < 523
    _page(c, height, fx._wrap(" ".join(SENTENCES[3:8]), 90), y - 12.5)
    return _finish(c, buf)


def test_a_long_numbered_run_in_head_wrapped_onto_its_paragraph_is_its_heading():
    """(Its five words on the second line had been too many for a head's end: the head
    was read as the paragraph's first sentence.)"""
    doc, texts = _read(long_wrapped_head())
    assert _outline(doc)[-1] == ("Inhibition of MAP kinases prevents the suppression of "
                                 "apoptosis by the PP nafenopin", 2)
    assert texts[texts.index(SENTENCES[2]) + 1].startswith("As described previously")


def labelled_appendix_bookmarked() -> bytes:
    """Bold heads the PDF's bookmarks name, the last after the references with its
    appendix label in the line and the bookmark ("Appendix A. Discussion", the Annals)."""
    c, buf, height, y = _start("Adducts of styrene in rats and mice", "1. Introduction")
    c.bookmarkPage("s0", top=height - 98)
    c.addOutlineEntry("1. Introduction", "s0", level=0)
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:4]), 90), y)
    y = fx._lines(c, 72, y - 8, ["References"], "Helvetica-Bold", 11)
    y = _page(c, height, ["[1] Cohen D. Styrene in rats. J Tox. 2001; 12: 1-9."], y - 4)
    c.bookmarkPage("s1", top=y)
    c.addOutlineEntry("Appendix A. Discussion", "s1", level=0)
    y = fx._lines(c, 72, y - 8, ["Appendix A. Discussion"], "Helvetica-Bold", 11)
    _page(c, height, fx._wrap(" ".join(SENTENCES[10:14]), 90), y - 4)
    return _finish(c, buf)


def test_a_bookmarked_appendix_is_named_without_its_label():
    """(A heading the bookmarks named kept its label in its text: "Appendix A.
    Discussion".)"""
    doc, texts = _read(labelled_appendix_bookmarked())
    assert [h for h, _ in _outline(doc)] == ["Introduction", "Discussion"]
    assert _section(doc, "Discussion")[:1] == SENTENCES[10:11]

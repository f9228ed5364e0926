"""The PDF reader on what issue 50's seventh step showed, on the layouts held out then
and on the fitted ones read again. Each PDF is made here (reportlab); each test fails on
the reader before this step."""

from __future__ import annotations

from helpers import need

need("reportlab")

import io  # noqa: E402

import pdf_fixtures as fx  # noqa: E402
from test_pdf_layouts import SENTENCES, _finish, _page, _start  # noqa: E402

from coresc.readers import read_data  # noqa: E402


def _read(pdf: bytes):
    doc = read_data(pdf, "paper.pdf")[0]
    return doc, [s.text for s in doc.sentences()]


def _outline(doc) -> list[tuple[str, int]]:
    return [(s.heading, s.depth) for s in doc.sections if s.depth > 0 and s.heading]


def wrapped_hyphenated_heading() -> bytes:
    """A bold heading wrapped after "non-", the paper writing "non-target" in its
    paragraphs."""
    c, buf, height, y = _start("Tamoxifen and DNA methylation in rats", "1 Introduction")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:4]) + " Effects in non-target "
                                  "tissues were small. " + " ".join(SENTENCES[4:8]), 90), y)
    y = fx._lines(c, 72, y - 14, ["2 Effect of tamoxifen on DNA methylation in liver and non-",
                                  "target tissues"], "Times-Bold", 10, 12.5)
    _page(c, height, fx._wrap(" ".join(SENTENCES[8:14]), 90), y - 6)
    return _finish(c, buf)


def test_a_hyphen_at_a_wrapped_headings_line_end_is_the_papers_spelling():
    """"non-" / "target" is "non-target", as the paper writes it (the hyphen had been
    taken out of headings: "nontarget")."""
    doc, _ = _read(wrapped_hyphenated_heading())
    assert _outline(doc)[-1] == ("Effect of tamoxifen on DNA methylation in liver and "
                                 "non-target tissues", 1)


def _justified(c, x: float, y: float, lines: list[str], width: float, font="Times-Roman",
               size: float = 10, leading: float = 12.5) -> float:
    """``lines`` set flush on both sides over ``width`` (the last one too: a line that
    fills its column), each word drawn apart, as a justified PDF draws them."""
    for line in lines:
        words = line.split()
        ink = sum(c.stringWidth(w, font, size) for w in words)
        space = (width - ink) / max(len(words) - 1, 1)
        at = x
        c.setFont(font, size)
        for w in words:
            c.drawString(at, y, w)
            at += c.stringWidth(w, font, size) + space
        y -= leading
    return y


def running_head_over_column_heads() -> bytes:
    """Two columns, a running head across their top in small print, and a heading atop
    each column on one baseline, set a little smaller than the text (IEEE's journal)."""
    c, buf, height, _ = _start("Adducts of styrene in rats and mice", "1 Introduction")
    c.showPage()
    c.setFont("Times-Roman", 7)
    c.drawString(50, height - 40, "JOURNAL OF SMALL TESTS, VOL. 12, NO. 3, 2026")
    c.drawRightString(545, height - 40, "6")
    for x, head, first in ((50, "Q. Necropsy of the rats", 0), (305, "S. DNA isolation", 20)):
        fx._lines(c, x, height - 70, [head], "Times-Italic", 8.5)
        fx._lines(c, x, height - 86, fx._wrap(" ".join(SENTENCES[first:first + 8]), 48),
                  "Times-Roman", 9, 11)
    return _finish(c, buf)


def test_a_running_head_over_heads_atop_both_columns_does_not_join_them():
    """Each column's heading heads its own column's text (the running head and the two
    headings had been taken for a band of text over the columns, one line across the
    gutter: "Necropsy of the rats S. DNA isolation")."""
    doc, texts = _read(running_head_over_column_heads())
    heads = [h for h, _ in _outline(doc)]
    assert "Necropsy of the rats" in heads and "DNA isolation" in heads
    dna = next(s for s in doc.sections if s.heading == "DNA isolation")
    assert SENTENCES[20] in [s.text for p in dna.paragraphs for s in p.sentences]


def nature_run_in() -> bytes:
    """A paragraph opening with one bold word and no stop (Nature's "**Safety** Styrene
    was ..."), after a main heading."""
    c, buf, height, y = _start("Adducts of styrene in rats and mice", "Methods")
    c.setFont("Times-Bold", 10)
    c.drawString(72, y, "Safety")
    c.setFont("Times-Roman", 10)
    c.drawString(72 + c.stringWidth("Safety ", "Times-Bold", 10), y,
                 "Styrene was handled in a fume hood at all times by trained staff.")
    _page(c, height, fx._wrap(" ".join(SENTENCES[:8]), 90), y - 12.5)
    return _finish(c, buf)


def test_one_bold_word_opening_a_paragraph_before_a_new_sentence_is_a_run_in_head():
    doc, texts = _read(nature_run_in())
    assert ("Safety", 2) in _outline(doc)
    assert texts[texts.index("Styrene was handled in a fume hood at all times by trained "
                             "staff.") + 1] == SENTENCES[0]


def test_texs_own_font_names_say_bold_and_italic():
    """cm-super's and Computer Modern's names carry no "Bold": SFSX1200 is sans bold
    (memoir's heads), SFTI1000 italic; their roman is neither."""
    from coresc.readers.pdf.fonts import font_flags

    assert font_flags("XFLOKL+SFSX1200", 400, 0) == (True, False)
    assert font_flags("CMBX12", 400, 0) == (True, False)
    assert font_flags("SFTI1000", 400, 0) == (False, True)
    assert font_flags("ABCDEF+SFRM1000", 400, 0) == (False, False)
    assert font_flags("CMSY10", 400, 0) == (False, False)


def chapter_numbered() -> bytes:
    """Sections numbered under an empty chapter, "0.1", "0.2" (memoir's article style),
    each number set a quad before its bold title."""
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, ["Adducts of styrene in rats and mice"], "Helvetica-Bold", 16)
    y = height - 120
    for k, (number, head) in enumerate((("0.1", "Introduction"), ("0.2", "Methods"),
                                        ("0.2.1", "Animals"), ("0.3", "Results"))):
        c.setFont("Helvetica-Bold", 11)
        c.drawString(72, y, number)
        c.drawString(72 + c.stringWidth(number, "Helvetica-Bold", 11) + 11, y, head)
        y = _page(c, height, fx._wrap(" ".join(SENTENCES[4 * k:4 * k + 3]), 90), y - 18)
        y -= 14
    return _finish(c, buf)


def test_sections_numbered_under_one_chapter_number_are_read_a_level_up():
    """"0.2" is a main section and "0.2.1" under it (they had been read a level down,
    and "0.3 Results", its number weighed as not bold, as a line of text)."""
    doc, _ = _read(chapter_numbered())
    assert _outline(doc) == [("Introduction", 1), ("Methods", 1), ("Animals", 2),
                             ("Results", 1)]


def test_a_hyphen_before_a_capital_at_a_lines_end_is_kept_or_weighed():
    """"Sigma-" / "Aldrich", "anti-" / "BrdU": the compound's hyphen; "MED-" / "LINE":
    a word cut; "Ac-" / "DEVD", "LC-" / "MS": as the paper writes it elsewhere (these had
    all been joined: "SigmaAldrich", "LCMS")."""
    from coresc.readers.pdf.structure.blocks import join_lines, resolve_hyphens

    assert join_lines(["from Sigma\u00ad", "Aldrich"]) == "from Sigma-Aldrich"
    assert join_lines(["the anti\u00ad", "BrdU antibody"]) == "the anti-BrdU antibody"
    assert join_lines(["the MED\u00ad", "LINE database"]) == "the MEDLINE database"
    cut = join_lines(["with Ac\u00ad", "DEVD-AMC"], mark=True)
    assert resolve_hyphens([cut, "Ac-DEVD-AMC was bought."])[0] == "with Ac-DEVD-AMC"
    cut = join_lines(["unlike SciB\u00ad", "ERT"], mark=True)
    assert resolve_hyphens([cut, "SciBERT is pretrained."])[0] == "unlike SciBERT"
    cut = join_lines(["by LC\u00ad", "MS", "and MED\u00ad", "LINE"], mark=True)
    assert resolve_hyphens([cut, "The LC-MS data."])[0] == "by LC-MS and MEDLINE"


def french_run_in() -> bytes:
    """smfart's subsections, run in the French way: "1.3. Title. — " in bold, the
    paragraph's first words after it on the line; one title filling its line, the dash
    at its end; and one with a Greek letter in a font of its own."""
    c, buf, height, y = _start("Adducts of styrene in rats and mice", "1. Methods")
    width = 451
    for k, (head, rest) in enumerate((
            ("1.1. Reaction of styrene oxide with guanosine. \u2014 ", "N7-(2-hydroxy-"),
            ("1.2. Assay for cyanide-insensitive palmitoyl CoA oxidation (CIPCO). \u2014",
             ""),
            ("1.3. Measurement of TNF-", "\u03b1 levels. \u2014 The")), ):
        c.setFont("Times-Bold", 10)
        if head.endswith("TNF-"):
            c.drawString(72, y, head)
            at = 72 + c.stringWidth(head, "Times-Bold", 10)
            c.setFont("Symbol", 10)
            c.drawString(at, y, "a")
            c.setFont("Times-Bold", 10)
            at += c.stringWidth("a", "Symbol", 10)
            c.drawString(at, y, " levels. \u2014 ")
            at += c.stringWidth(" levels. \u2014 ", "Times-Bold", 10)
            c.setFont("Times-Roman", 10)
            c.drawString(at, y, "The cells were seeded in plates of")
        else:
            c.drawString(72, y, head)
            c.setFont("Times-Roman", 10)
            c.drawString(72 + c.stringWidth(head, "Times-Bold", 10), y, rest)
        lines = fx._wrap(" ".join(SENTENCES[6 * k:6 * k + 5]), 90)
        y = _justified(c, 72, y - 12.5, lines[:-1], width) if len(lines) > 1 else y - 12.5
        y = fx._lines(c, 72, y, lines[-1:]) - 10
    return _finish(c, buf)


def test_a_run_in_head_the_french_way_is_its_sections_heading():
    """(The head's line had been a heading with the paragraph's first word in it,
    "... guanosine. — N7-(2-hydroxy-", or its dash: "... (CIPCO). —".)"""
    doc, texts = _read(french_run_in())
    heads = [h for h, _ in _outline(doc)]
    assert heads[1:3] == ["Reaction of styrene oxide with guanosine",
                          "Assay for cyanide-insensitive palmitoyl CoA oxidation (CIPCO)"]
    # (the Symbol font's alpha, which the text layer may not name)
    assert heads[3].startswith("Measurement of TNF-") and heads[3].endswith(" levels")
    assert any(t.startswith("N7-(2-hydroxy-") for t in texts)
    assert any(t.startswith("The cells were seeded in plates of") for t in texts)


def memoir_appendix() -> bytes:
    """The references, then an appendix's section numbered ".1" (memoir's article style
    under an empty chapter number), in a bold sans serif."""
    c, buf, height, y = _start("Adducts of styrene in rats and mice", "1 Introduction")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:6]), 90), y)
    y = fx._lines(c, 72, y - 14, ["References"], "Helvetica-Bold", 11)
    y = _page(c, height, ["[1] Cohen D, Berg J. Effects of exposure in cohort 1. J Risk "
                          "Stud. 1991; 11: 107-116."], y - 4)
    y = fx._lines(c, 72, y - 20, [".1 Discussion"], "Helvetica-Bold", 11)
    _page(c, height, fx._wrap(" ".join(SENTENCES[20:26]), 90), y - 6)
    return _finish(c, buf)


def test_an_appendix_numbered_under_an_empty_chapter_is_read_after_the_references():
    doc, texts = _read(memoir_appendix())
    assert ("Discussion", 1) in _outline(doc)
    assert SENTENCES[20] in texts and SENTENCES[25] in texts


def word_abstract_over_columns() -> bytes:
    """A word processor's page: a paragraph across the page right over two columns,
    single spaced (no gap between them wider than the lines' own), and the page
    number centred on the gutter."""
    buf = io.BytesIO()
    c, (width, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, ["Adducts of styrene in rats and mice"], "Times-Bold", 16)
    y = fx._lines(c, 72, height - 110, fx._wrap(" ".join(SENTENCES[30:36]), 100),
                  "Times-Roman", 10, 11)
    for x, first in ((72, 0), (310, 12)):
        fx._lines(c, x, y, fx._wrap(" ".join(SENTENCES[first:first + 10]), 44),
                  "Times-Roman", 10, 11)
    c.setFont("Times-Roman", 10)
    c.drawCentredString(width / 2, 40, "1")
    return _finish(c, buf)


def test_a_paragraph_across_the_page_right_over_two_columns_leaves_them_apart():
    """Each column is read whole (their lines had been read across, in turn)."""
    _, texts = _read(word_abstract_over_columns())
    assert {SENTENCES[0], SENTENCES[9], SENTENCES[12], SENTENCES[21]} <= set(texts)


def overfull_line() -> bytes:
    """Justified text with one line set past the margin (a long word the typesetter could
    not break), and a sentence carried over a full line that ends in "Figure", the
    next opening "4, using ..."."""
    c, buf, height, y = _start("Adducts of styrene in rats and mice", "1 Introduction")
    lines = fx._wrap(" ".join(SENTENCES[:6]), 90)
    y = _justified(c, 72, y, lines[:3], 400)
    y = _justified(c, 72, y, ["of N-[2-hydroxyethyl]piperazine-N'-[2-ethanesulfonic-acid]-"
                              "dimethylformamide and more of it."], 450)  # (50 points past)
    y = _justified(c, 72, y, lines[3:-1], 400)
    y = _justified(c, 87, y, ["The relative toxicity of the three other trihalomethanes is "
                              "presented in Figure"], 385)  # (a paragraph's first line)
    fx._lines(c, 72, y, ["4, using the grading system of the study."])
    return _finish(c, buf)


def test_one_overfull_line_is_not_its_columns_right_margin():
    """(With the margin at the overfull line's end, the full line before "4, using"
    had looked short, a paragraph's last: the sentence was cut in two.)"""
    _, texts = _read(overfull_line())
    assert any("presented in Figure 4, using the grading system of the study." in t
               for t in texts)


def loose_paragraph() -> bytes:
    """Two loose justified lines whose word gaps (near an em) happen to line up, set
    apart under a heading: each word drawn apart where Elsevier's final layout set it
    (its 9 points scaled to 10)."""
    c, buf, height, y = _start("Adducts of styrene in rats and mice", "1 Methods")
    lines = [[(316.6, "p38"), (340.7, "MAP"), (371.5, "kinase"), (406.1, "activity"),
              (444.9, "assays"), (479.6, "were"), (508.1, "carried"), (544.9, "out")],
             [(306.6, "using"), (338.0, "an"), (357.3, "Upstate"), (397.5, "Biotechnology"),
              (466.1, "MAPKAP"), (517.4, "kinase"), (552.7, "2")]]
    c.setFont("Times-Roman", 10)
    y -= 6
    for line in lines:
        for x, word in line:
            c.drawString(72 + (x - 306.6) * 10 / 9, y, word)
        y -= 12.5
    _page(c, height, fx._wrap(" ".join(SENTENCES[:6]), 90), y - 14)
    return _finish(c, buf)


def test_a_few_loose_justified_lines_are_not_cut_into_columns_of_words():
    _, texts = _read(loose_paragraph())
    assert any(t.startswith("p38 MAP kinase activity assays were carried out using an "
                            "Upstate Biotechnology MAPKAP kinase 2") for t in texts)


def wrapped_italic_heading() -> bytes:
    """Elsevier's italic subsection heading wrapped under its number's hanging indent,
    the paragraph right under it, its first line indented as far."""
    c, buf, height, y = _start("Adducts of styrene in rats and mice", "3. Results")
    y = _justified(c, 72, y - 6, ["3.1. Effects of DSS inflammation and nimesulide treatment "
                                  "on the"], 400, "Times-Italic")
    y = fx._lines(c, 92, y, ["8-oxodGuo content in colonic DNA"], "Times-Italic")
    lines = fx._wrap(" ".join(SENTENCES[:8]), 90)
    y = _justified(c, 92, y, lines[:1], 380)  # (indented as far as the heading hangs)
    y = _justified(c, 72, y, lines[1:-1], 400)
    fx._lines(c, 72, y, lines[-1:])
    return _finish(c, buf)


def test_a_wrapped_headings_last_line_is_not_its_paragraphs_first():
    """(The italic second line had been read into the paragraph: "8-oxodGuo content in
    colonic DNA The sample number 0 ...".)"""
    doc, texts = _read(wrapped_italic_heading())
    assert _outline(doc)[-1][0] == ("Effects of DSS inflammation and nimesulide treatment on "
                                    "the 8-oxodGuo content in colonic DNA")
    assert SENTENCES[0] in texts


def smf_front() -> bytes:
    """smfart's front: a title in bold capitals centred over three lines, the second the
    widest, and the abstract run in after "Résumé. —"."""
    buf = io.BytesIO()
    c, (width, height) = fx._canvas(buf)
    c.setFont("Times-Bold", 11)
    for k, line in enumerate(("COPPER STRESS SLOWS BIOFILM MATURATION IN",
                              "PSEUDOMONAS PUTIDA BY REPRESSING ALGINATE SYNTHESIS",
                              "IN VINEYARD SOILS")):
        c.drawCentredString(width / 2, height - 100 - 15 * k, line)
    c.setFont("Times-Roman", 10)
    c.drawCentredString(width / 2, height - 170, "David Cohen & Ana Ribeiro")
    abstract = ("R\u00e9sum\u00e9. \u2014 Biofilms protect soil bacteria against metals in "
                "the field. " + " ".join(f"Copper at vineyard level {k} slowed their growth "
                                         "and their maturation." for k in range(6)))
    y = fx._lines(c, 130, height - 210, fx._wrap(abstract, 80), "Times-Roman", 8, 10)
    y = fx._lines(c, 72, y - 30, ["1. Introduction"], "Times-Bold", 10)
    _page(c, height, fx._wrap(" ".join(SENTENCES[:8]), 90), y - 4)
    return _finish(c, buf)


def test_a_title_centred_over_lines_of_any_width_and_a_french_abstract_are_whole():
    """(The title had been its first line, the next two headings; the abstract opened
    with the dash after "Résumé.".)"""
    doc, texts = _read(smf_front())
    assert doc.title == ("COPPER STRESS SLOWS BIOFILM MATURATION IN PSEUDOMONAS PUTIDA BY "
                         "REPRESSING ALGINATE SYNTHESIS IN VINEYARD SOILS")
    abstract = [s.text for s in doc.sentences() if s.zone == "abstract"]
    assert abstract[0] == "Biofilms protect soil bacteria against metals in the field."

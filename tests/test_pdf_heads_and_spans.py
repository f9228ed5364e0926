"""The PDF reader on what the real pairs still showed (issue 50): a run-in head set in
several bold fonts (a gene's name in a font of its own), a head that a bold species'
name follows, a head before a number, a bold phrase that ends on "of", and a caption set
across both columns at a page's foot whose last lines fall in one column. Each PDF is
made here with reportlab."""

from __future__ import annotations

import io

from helpers import need

need("reportlab")

import pdf_fixtures as fx  # noqa: E402
from test_pdf_layouts import SENTENCES, _finish, _page, _start, _styled  # noqa: E402

from coresc.readers import read_data  # noqa: E402
from coresc.readers.pdf.xycut import xy_leaves  # noqa: E402


def run_in_heads() -> bytes:
    """One section whose paragraphs open with run-in heads in bold pieces of two fonts."""
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    fx._lines(c, 72, height - 80, ["Typing Streptococci in Two Cities"], "Helvetica-Bold", 16)
    y = fx._lines(c, 72, height - 110, ["1 Results"], "Helvetica-Bold", 11) - 4
    openings = [
        [("emm", "Times-BoldItalic"), ("-types and patterns distribution", "Times-Bold"),
         (" The emm-type was determined for all of the isolates.", "Times-Roman")],
        [("Aims:", "Times-Bold"), (" Platycladus orientalis", "Times-BoldItalic"),
         (" is a tree that lives for a long time.", "Times-Roman")],
        [("New sub-types", "Times-Bold"), (" 8 new sub-types were identified here.",
                                           "Times-Roman")],
        [("effects of", "Times-Bold"), (" Streptomyces on the soil were measured twice.",
                                        "Times-Roman")],
    ]
    for k, pieces in enumerate(openings):
        _styled(c, 72, y, pieces)
        y = _page(c, height, fx._wrap(" ".join(SENTENCES[3 * k:3 * k + 3]), 90), y - 12.5)
        y -= 8
    return _finish(c, buf)


def test_run_in_heads_in_several_bold_fonts_end_at_their_stop():
    doc = read_data(run_in_heads(), "heads.pdf")[0]
    heads = [s.heading for s in doc.sections if s.depth >= 1]
    assert heads == ["Results", "emm-types and patterns distribution", "Aims", "New sub-types"]
    texts = [s.text for s in doc.sentences()]
    assert "The emm-type was determined for all of the isolates." in texts
    assert "Platycladus orientalis is a tree that lives for a long time." in texts
    assert "8 new sub-types were identified here." in texts
    assert "effects of Streptomyces on the soil were measured twice." in texts


def caption_across_columns() -> bytes:
    """Two columns whose paragraph runs from the left into the right, a caption set
    across both at the page's foot, its last lines in the left column only."""
    buf = io.BytesIO()
    c, (width, height) = fx._canvas(buf)
    # (no title over the columns: with the caption it would be a second run across them)
    left = fx._wrap(" ".join(SENTENCES[:14]), 44)
    right = fx._wrap(" ".join(SENTENCES[14:26]), 44)
    y = fx._lines(c, 60, height - 100, ["1 Methods"], "Helvetica-Bold", 11)
    fx._lines(c, 60, y - 4, left, "Times-Roman", 10)
    fx._lines(c, 310, height - 100, right, "Times-Roman", 10)
    foot = 180
    fx._lines(c, 60, foot, ["Figure 1. The balance and the oven that every sample of this "
                            "study was weighed and dried in, set",
                            "across the page."], "Times-Roman", 9, 11)
    c.drawString(60, foot - 22, "doi:10.1371/journal.x.g001")
    return _finish(c, buf)


def test_a_caption_across_the_columns_is_read_whole_after_them():
    doc, = read_data(caption_across_columns(), "spans.pdf")
    texts = [s.text for s in doc.sentences()]
    assert "The balance and the oven that every sample of this study was weighed and dried " \
           "in, set across the page." in texts
    body = [t for t in texts if t.startswith("The sample number")]
    assert body == SENTENCES[:26]


def test_xy_cuts_read_a_caption_across_the_columns_after_them():
    """Runs as the extractor gives them (x0, y0, x1, y1, baseline, size, text): two
    columns, then a caption across both whose last lines stand in the left one only (a
    page number on the gutter does not count as a line across)."""
    def run(x0, x1, y, text):
        return [x0, y - 2, x1, y + 8, y, 10.0, text]

    left = [run(60, 290, y, f"left {y}") for y in range(700, 300, -12)]
    right = [run(310, 540, y, f"right {y}") for y in range(700, 300, -12)]
    caption = [run(60, 540, 178, "Figure 1. across"), run(60, 150, 167, "the page."),
               run(60, 200, 156, "doi:10.1371/x.g001")]
    number = run(296, 304, 40, "3")
    leaves = xy_leaves(left + right + caption[::-1] + [number], 10.0)
    where = {r[6]: k for k, leaf in enumerate(leaves) for r in leaf}  # each run's leaf
    assert max(where[r[6]] for r in left) < min(where[r[6]] for r in right)
    assert max(where[r[6]] for r in right) < min(where[r[6]] for r in caption)


def test_xy_cuts_read_balanced_columns_before_a_reference_list_in_two_columns():
    """Text in two columns ending together, then the reference list in two columns of
    small print under its heading in the left one (PLOS's last page): the text's right
    column is read before the list's first."""
    def run(x0, x1, y, size, text):
        return [x0, y - 2, x1, y + size - 2, y, size, text]

    text_left = [run(60, 290, y, 10.0, f"text left {y}") for y in range(700, 400, -12)]
    text_right = [run(310, 540, y, 10.0, f"text right {y}") for y in range(700, 400, -12)]
    refs_left = [run(60, 160, 380, 11.0, "References")] + [
        run(60, 290, y, 6.5, f"ref left {y}") for y in range(364, 200, -8)]
    refs_right = [run(310, 540, y, 6.5, f"ref right {y}") for y in range(380, 200, -8)]
    leaves = xy_leaves(text_left + refs_left + text_right + refs_right, 10.0)
    where = {r[6]: k for k, leaf in enumerate(leaves) for r in leaf}
    groups = [text_left, text_right, refs_left, refs_right]
    for before, after in zip(groups, groups[1:], strict=False):
        assert max(where[r[6]] for r in before) < min(where[r[6]] for r in after)


def test_a_supplementary_files_locator_is_not_a_sentence():
    c, buf, height, top = _start("Drying Samples", "1 Results")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:4]), 90), top)
    y = fx._lines(c, 72, y - 14, ["Supporting Information"], "Helvetica-Bold", 11)
    y = fx._lines(c, 72, y - 4, ["Table S1. The weights of every sample we dried."],
                  "Times-Bold", 10)
    fx._lines(c, 72, y - 4, ["Found at: doi:10.1371/journal.pgen.1000100.s004 (0.63 MB XLS)"])
    texts = [s.text for s in read_data(_finish(c, buf), "found.pdf")[0].sentences()]
    assert "The weights of every sample we dried." in texts
    assert not any("Found at" in t or "doi" in t for t in texts)


def _wrap_to(text: str, width: float, font: str = "Times-Roman", size: float = 10) -> list[str]:
    """``text`` in lines no wider than ``width`` points."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    lines, cur = [], ""
    for word in text.split():
        if cur and stringWidth(f"{cur} {word}", font, size) > width:
            lines.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}".strip()
    return [*lines, cur]


def test_a_run_in_head_wrapped_onto_a_second_line_is_one_heading():
    from reportlab.pdfbase.pdfmetrics import stringWidth

    c, buf, height, top = _start("Typing Streptococci", "1 Results")
    head = "emm-types, emm-pattern, clinical presentation and site"
    width = stringWidth(head, "Times-Bold", 10)  # the column's: the head fills its line
    y = _page(c, height, _wrap_to(" ".join(SENTENCES[:6]), width), top)
    lines = _wrap_to("Each sample was weighed twice before it was dried. "
                     + " ".join(SENTENCES[6:12]), width)
    fx._lines(c, 72, y - 8, [head], "Times-Bold", 10)
    _styled(c, 72, y - 20.5, [("preference", "Times-Bold"), (" emm pattern A strains are "
                                                               "found in the throat.",
                                                               "Times-Roman")])
    _page(c, height, lines, y - 33)
    doc = read_data(_finish(c, buf), "wrapped.pdf")[0]
    heads = [s.heading for s in doc.sections if s.depth >= 1]
    assert heads == ["Results", head + " preference"]
    assert "emm pattern A strains are found in the throat." in [s.text for s in doc.sentences()]


def test_a_paragraph_after_a_list_item_with_a_hanging_indent_is_its_own():
    c, buf, height, top = _start("A Course in Forecasting", "1 Tutorials")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:3]) + " The tutorials go:", 90), top)
    y = fx._lines(c, 84, y, ["1. Loading time series data and transforming them",
                             "2. Exploring further applications of the models in ecology "
                             "(including species-"])
    y = fx._lines(c, 96, y, ["distribution modeling and state space modeling)"])
    _page(c, height, fx._wrap("R tutorials follow the principles of explicit teaching. "
                              + " ".join(SENTENCES[3:6]), 90), y)
    texts = [s.text for s in read_data(_finish(c, buf), "list.pdf")[0].sentences()]
    assert "R tutorials follow the principles of explicit teaching." in texts


def test_a_box_set_smaller_does_not_take_the_sentence_it_interrupts():
    c, buf, height, top = _start("A Call for Community Action", "1 Key Steps")
    _page(c, height, fx._wrap(" ".join(SENTENCES[:30]) + " The list could be examined and "
                              "modified by", 90), top)
    c.showPage()
    y = fx._lines(c, 72, height - 80, ["Box 1. A Very Highly Conserved Protein"],
                  "Helvetica-Bold", 12)
    y = fx._lines(c, 72, y - 4, fx._wrap("During studies of the genetics of heme "
                                         "biosynthesis one gene was found to encode a "
                                         "protein of unknown function. There are "
                                         "additional paralogs of it in several genomes, "
                                         "but their substrates remain to be identified.",
                                         100), "Times-Roman", 8, 9.5)
    _page(c, height, fx._wrap("alternative or additional predictions from other groups. "
                              + " ".join(SENTENCES[30:34]), 90), y - 14)
    texts = [s.text for s in read_data(_finish(c, buf), "box.pdf")[0].sentences()]
    assert "The list could be examined and modified by alternative or additional " \
           "predictions from other groups." in texts
    assert "There are additional paralogs of it in several genomes, but their substrates " \
           "remain to be identified." in texts


def test_descriptors_after_the_abstract_are_keywords_not_a_part_of_it():
    c, buf, height, top = _start("Poverty and Mortality in Brazil", "Abstract")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:4]), 90), top)
    _styled(c, 72, y - 6, [("DESCRIPTORS:", "Times-Bold"),
                           (" Geographic Locations, epidemiology.", "Times-Roman")])
    y = fx._lines(c, 72, y - 30, ["INTRODUCTION"], "Helvetica-Bold", 11)
    _page(c, height, fx._wrap(" ".join(SENTENCES[4:10]), 90), y - 4)
    doc = read_data(_finish(c, buf), "descriptors.pdf")[0]
    assert [s.heading for s in doc.sections if s.depth >= 1] == ["INTRODUCTION"]
    assert not any("Geographic" in s.text for s in doc.sentences())


def test_a_bold_label_among_a_tables_cells_is_not_a_heading():
    c, buf, height, top = _start("Prenatal Care in Brazil", "1 Results")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:4]), 90), top)
    y = fx._lines(c, 72, y - 10, ["Table 1. Women by region, in percent."], "Times-Bold", 10)
    for label in ("Idade", "Vive com companheiro", "Profissional responsavel"):
        y = fx._lines(c, 72, y - 4, [label], "Times-Bold", 10)
        for value in ("12,0", "4,5"):
            y = fx._lines(c, 90, y, [value], "Times-Roman", 7, 9)
    _page(c, height, fx._wrap(" ".join(SENTENCES[4:8]), 90), y - 14)
    doc = read_data(_finish(c, buf), "table.pdf")[0]
    assert [s.heading for s in doc.sections if s.depth >= 1] == ["Results"]


def test_an_item_led_in_bold_after_a_colon_across_columns_is_its_own_paragraph():
    buf = io.BytesIO()
    c, (_, height) = fx._canvas(buf)
    y = fx._lines(c, 60, height - 80, ["1 Tasks"], "Helvetica-Bold", 11)
    left = fx._wrap(" ".join(SENTENCES[:10]) + " We define the two tasks we test on:", 44)
    fx._lines(c, 60, y - 4, left, "Times-Roman", 10)
    _styled(c, 310, height - 80, [("Co-Views", "Times-Bold"),
                                  (" Our dataset consists of thirty papers.", "Times-Roman")])
    fx._lines(c, 310, height - 92.5, fx._wrap(" ".join(SENTENCES[10:20]), 44))
    texts = [s.text for s in read_data(_finish(c, buf), "colon.pdf")[0].sentences()]
    assert "We define the two tasks we test on:" in texts

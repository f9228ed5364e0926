"""The PDF reader on what the real ACL and JOSE pairs showed (issue 50): a URL in a
typewriter font, a bullet item's second line, a run-in head that fills most of its line,
a numbered item's bold title on a line of its own, and a table's column of words. Each
PDF is made here with reportlab."""

from __future__ import annotations

from helpers import need

need("reportlab")

import pdf_fixtures as fx  # noqa: E402
from test_pdf_layouts import SENTENCES, _finish, _page, _start, _styled  # noqa: E402

from coresc.readers import read_data  # noqa: E402

#: A full line of Times-Roman at 10 points from x=72, and where a paragraph's text wraps.
WIDTH = 88


def _texts(pdf: bytes) -> tuple[object, list[str]]:
    doc = read_data(pdf, "paper.pdf")[0]
    return doc, [s.text for s in doc.sentences()]


def typewriter() -> bytes:
    """A paragraph whose last line is a URL in Courier, and one whose line holds a URL
    between words of the body's type."""
    c, buf, height, y = _start("Reading Papers in Two Fonts", "1 Introduction")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:3]), WIDTH), y)
    c.setFont("Times-Roman", 10)
    c.drawString(72, y, "The methods described in this paper are used to enable the "
                        "semantic features in")
    c.setFont("Courier", 10)
    c.drawString(72, y - 12.5, "www.semanticscholar.org.")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[3:6]), WIDTH), y - 25)
    _styled(c, 72, y, [("The paper is an overview of the approach we adopt at ", "Times-Roman"),
                       ("www.semanticscholar.org", "Courier"),
                       (" in a step towards", "Times-Roman")])
    y = _page(c, height, ["more intelligent academic search engines for every reader."],
              y - 12.5)
    _page(c, height, fx._wrap(" ".join(SENTENCES[6:9]), WIDTH), y)
    return _finish(c, buf)


def test_a_url_in_a_typewriter_font_stays_in_its_sentence():
    _, texts = _texts(typewriter())
    assert "The methods described in this paper are used to enable the semantic features " \
           "in www.semanticscholar.org." in texts
    assert "The paper is an overview of the approach we adopt at www.semanticscholar.org " \
           "in a step towards more intelligent academic search engines for every reader." \
           in texts


def items() -> bytes:
    """Questions in a bulleted list whose items wrap under a hanging indent, a run-in
    head that fills most of its line, and numbered items whose bold titles stand on
    lines of their own."""
    c, buf, height, y = _start("Questions a Reader Asks", "1 Introduction")
    y = _page(c, height, ["Researchers remain unable to answer simple questions such as:"], y)
    for first, second in [("What is the percentage of female subjects in all of the clinical "
                           "trials that were run on",
                           "depression in the last decade?"),
                          ("Which of my co-authors published one or more papers on the "
                           "problem that is known as",
                           "coreference resolution in the last ten years?")]:
        c.setFont("Times-Roman", 10)
        c.drawString(72, y, "\u2022")
        c.drawString(82, y, first)
        c.drawString(82, y - 12.5, second)
        y -= 30
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:3]), WIDTH), y) - 8
    _styled(c, 72, y, [("Preparing the input layer of the network.", "Times-Bold"),
                       (" We split each", "Times-Roman")])
    y = _page(c, height, ["page into tokens, and each token has its features."], y - 12.5)
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[3:6]), WIDTH), y) - 8
    for k, (title, text) in enumerate([
            ("Select and simplify", "To reduce the load on students, we keep tools simple."),
            ("Learn in groups", "Students who learn together remember more of a course.")]):
        _styled(c, 84, y, [(f"{k + 1}. ", "Times-Roman"), (title, "Times-Bold")])
        y = _page(c, height, [text], y - 12.5, x=96) - 6
    _page(c, height, fx._wrap(" ".join(SENTENCES[6:9]), WIDTH), y)
    return _finish(c, buf)


def test_a_bullet_items_second_line_carries_on_its_sentence():
    _, texts = _texts(items())
    assert "What is the percentage of female subjects in all of the clinical trials that " \
           "were run on " \
           "depression in the last decade?" in texts
    assert "Which of my co-authors published one or more papers on the problem that is " \
           "known as coreference resolution in the last ten years?" in texts


def test_a_run_in_head_that_fills_its_line_is_no_heading_of_the_line():
    doc, texts = _texts(items())
    heads = [s.heading for s in doc.sections]
    assert "Preparing the input layer of the network" in heads
    assert "We split each page into tokens, and each token has its features." in texts


def test_a_numbered_items_bold_title_opens_its_sentence_without_the_number():
    _, texts = _texts(items())
    assert "Select and simplify To reduce the load on students, we keep tools simple." \
        in texts
    assert "Learn in groups Students who learn together remember more of a course." in texts
    assert not any(t in ("1.", "2.") for t in texts)


def word_column() -> bytes:
    """A paragraph cut at a column's foot by a table whose first column holds words, one
    short cell a line, and carried on under it."""
    c, buf, height, y = _start("A Table of Fields", "1 Methods")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:3]), WIDTH), y)
    c.setFont("Times-Roman", 10)
    c.drawString(72, y, "The input token representations are passed through one layer "
                        "and then")
    y -= 30
    for k, cell in enumerate(["title", "authors", "bibliography titles",
                              "bibliography authors", "bibliography venues"]):
        c.drawRightString(200, y - 12.5 * k, cell)
        c.drawString(240, y - 12.5 * k, f"{85 + k}.5")
    y -= 12.5 * 5 + 12
    c.drawString(150, y, "Table 1: Results of the parsing system.")
    _page(c, height, ["fed into a two-layer network, which reads the tokens in order."],
          y - 30)
    return _finish(c, buf)


def test_a_tables_column_of_words_is_not_body_text():
    _, texts = _texts(word_column())
    assert "The input token representations are passed through one layer and then fed " \
           "into a two-layer network, which reads the tokens in order." in texts
    assert not any("bibliography" in t for t in texts)


def test_a_box_is_read_after_the_body_and_does_not_cut_its_section():
    """A box set among a section's paragraphs is read after the body, under a heading
    with no text, as JATS has a floating ``boxed-text``: the section's paragraphs stay
    together."""
    from test_pdf_layouts import boxed_and_structured

    doc, texts = _texts(boxed_and_structured())
    last = "The sample number 11 was weighed twice before it was dried."
    box = "Hot air takes the water out of the sample over many hours."
    assert texts.index(box) > texts.index(last)
    holder = next(s for s in doc.sections if box in [x.text for x in s.sentences()])
    assert holder.heading == "" and holder.depth == 1
    intro = next(s for s in doc.sections if s.heading == "Introduction")
    assert [x.text for x in intro.sentences()] == SENTENCES[:12]


def test_a_typewriter_font_is_not_taken_for_bold():
    """Where no font is named bold, a font used little is taken as bold (a heading's),
    but not a typewriter font: txfonts' ``t1xtt`` even carries the ForceBold flag."""
    from coresc.readers.pdf.fonts import font_flags
    from coresc.readers.pdf.layout import restyle

    def run(text: str, font: str) -> list:
        return [0, 0, 10, 10, 0, 10, text, 0.0, 0.0, font, [[len(text), False, False, font]]]

    body = "The sample was weighed twice before it was dried. " * 20
    runs = [run(body, "NimbusRomNo9L-Regu"), run("Methods", "NimbusRomNo9L-Medi"),
            run("www.example.org", "t1xtt")]
    restyle([{"runs": runs}])
    assert runs[1][7] == 1.0 and runs[2][7] == 0.0
    assert font_flags("t1xtt", 420, 1 << 18) == (False, False)
    assert font_flags("F12", 0, 1 << 18)[0]  # no weight known: the flag says bold


def test_an_accent_over_a_dotless_i_is_the_accented_i():
    """TeX sets "í" as a dotless i under an accent ("Bras\\'{\\i}lia"): one letter, as
    the XML has it, not "ı" and a combining mark."""
    from coresc.readers.pdf.extract import compose

    assert compose("\u0131", "\u0301") == "\u00ed"
    assert compose("e", "\u0300") == "\u00e8"


def citations_and_lone_figure() -> bytes:
    """A paragraph one of whose lines holds more raised citation numbers than letters,
    and a figure's caption with no number ("Figure. Flow ...", set smaller)."""
    c, buf, height, y = _start("Counting Citations", "1 Results")
    y = _page(c, height, ["The papers reviewed used a wide variety of variables, most "
                          "commonly the household income"], y)
    fx._superscript_cite(c, 72, y - 12.5, "(n = 17)", "21\u201327,29,30,32\u201334,36,40\u201343",
                         ", status (n = 12)", "22,24,25,28,29,32,34\u201336,42,43", ", work",
                         "21,23,27,35,44")
    y = _page(c, height, ["and the crowding of the household (n = 5) of the families we "
                          "asked."], y - 25)
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:3]), WIDTH), y) - 60
    c.setFont("Times-Bold", 8)
    c.drawString(72, y, "Figure. Flow diagram for the scoping review process.")
    _page(c, height, fx._wrap(" ".join(SENTENCES[3:6]), WIDTH), y - 30)
    return _finish(c, buf)


def test_a_line_of_many_raised_citations_stays_in_its_paragraph():
    _, texts = _texts(citations_and_lone_figure())
    whole = [t for t in texts if t.startswith("The papers reviewed")]
    assert len(whole) == 1 and whole[0].endswith("of the families we asked.")
    assert "status (n = 12)" in whole[0]


def test_a_caption_with_no_number_is_read_as_a_caption():
    doc, _ = _texts(citations_and_lone_figure())
    captions = [s.text for s in doc.sentences() if s.zone == "caption"]
    assert captions == ["Flow diagram for the scoping review process."]


def author_summary() -> bytes:
    """PLOS's Author Summary set in a box among the introduction's paragraphs: the box's
    text is left out (as the XML leaves its summary abstract out), the introduction's
    paragraph after the box is read."""
    c, buf, height, y = _start("Sex Differences in the Primate Brain", "1 Introduction")
    y = _page(c, height, fx._wrap(" ".join(SENTENCES[:3]), WIDTH), y) - 24
    y = fx._lines(c, 84, y, ["Author Summary"], "Helvetica-Bold", 10) - 4
    box = fx._wrap("The contribution of genetics to behaviour is a question in the study of "
                   "the brain. We measured gene expression in the brains of three species.",
                   80)
    y = fx._lines(c, 84, y, box, "Times-Roman", 9, 11) - 30
    y = _page(c, height, fx._wrap("In order to determine whether genes are expressed "
                                  "differently, we compared four males and four females.",
                                  WIDTH), y, x=72)
    y = fx._lines(c, 72, y - 14, ["2 Results"], "Helvetica-Bold", 11)
    _page(c, height, fx._wrap(" ".join(SENTENCES[3:6]), WIDTH), y - 4)
    return _finish(c, buf)


def test_the_text_after_an_author_summary_box_is_read():
    _, texts = _texts(author_summary())
    assert "In order to determine whether genes are expressed differently, we compared " \
           "four males and four females." in texts
    assert not any("contribution of genetics" in t for t in texts)



def test_a_tilde_over_no_letter_is_kept():
    """A spacing accent is put on the letter under it ("a" and "~" drawn apart: "ã");
    over no letter it is a character of the text ("~16% of deaths")."""
    c, buf, height, y = _start("Approximate Counts", "1 Results")
    _page(c, height, ["There were ~16% of all deaths in the group that we followed.",
                      *fx._wrap(" ".join(SENTENCES[:3]), WIDTH)], y)
    _, texts = _texts(_finish(c, buf))
    assert "There were ~16% of all deaths in the group that we followed." in texts


def test_a_line_broken_after_an_acronyms_hyphen_keeps_it():
    """A line that ends "TCA-" or "p53-" and goes on in lower case breaks a compound
    ("TCA-induced", "p53-dependent", "2-fold"); a word cut to fit loses its hyphen."""
    from coresc.readers.pdf.structure.blocks import join_lines

    assert join_lines(["Effect of DCA- and TCA-", "induced loss"]) == \
        "Effect of DCA- and TCA-induced loss"
    assert join_lines(["a p53-", "dependent and 2-", "fold rise"]) == \
        "a p53-dependent and 2-fold rise"
    assert join_lines(["the experi-", "ments ran"]) == "the experiments ran"
    # PDFium marks a hyphen at a line's end as a soft one: an acronym's stays all the same
    assert join_lines(["32P\u00ad", "post-labelled"]) == "32P-post-labelled"
    assert join_lines(["experi\u00ad", "ments"]) == "experiments"
    assert join_lines(["catalogs (DBLP, MED\u00ad", "LINE)"]) == "catalogs (DBLP, MEDLINE)"
    assert join_lines(["its marker (8-", "OHdG) and IL-", "6 rose"]) == \
        "its marker (8-OHdG) and IL-6 rose"
    assert join_lines(["in vitro -", "The cells"]) == "in vitro - The cells"


def test_a_glyph_drawn_apart_from_its_line_is_put_back_in_its_gap():
    """A word processor draws a character its font lacks later, in a fallback font, over
    the gap left for it ("2′-deoxy" as "2 -deoxy" and a lone "′"): it goes back there."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    c, buf, height, y = _start("Weights of Dried Samples", "1 Results")
    left = "The weights were 12"
    c.setFont("Times-Roman", 10)
    c.drawString(72, y, left)
    gap = 72 + stringWidth(left, "Times-Roman", 10)
    c.drawString(gap + 6, y, "3 g in every group that we dried in the oven.")
    _page(c, height, fx._wrap(" ".join(SENTENCES[:3]), WIDTH), y - 12.5)
    c.setFont("Helvetica", 10)
    c.drawString(gap + 0.3, y, "\u00b1")  # drawn last, in a font of its own
    _, texts = _texts(_finish(c, buf))
    assert "The weights were 12\u00b13 g in every group that we dried in the oven." in texts


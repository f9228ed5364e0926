"""The embedded PDF reader (coresc/readers/pdf): structure from small PDFs made here,
bad PDFs refused in one line, and the real pairs read (integration)."""

from __future__ import annotations

import zlib

import pytest
from helpers import need
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

need("reportlab", "the PDF tests make their PDFs with reportlab (the test extra)")

import pdf_fixtures as fx  # noqa: E402

from coresc.errors import InputError  # noqa: E402
from coresc.readers import read_data  # noqa: E402
from coresc.readers.pdf.structure import join_lines  # noqa: E402


@pytest.fixture(scope="module")
def one_column():
    return read_data(fx.one_column(), "one.pdf")[0]


def _texts(paper, zone=None):
    return [s.text for s in paper.sentences() if zone is None or s.zone == zone]


def test_title_abstract_and_nested_headings(one_column):
    secs = [(s.heading, s.type, s.depth) for s in one_column.sections]
    assert secs == [("Title", "title", 0), ("Abstract", "abstract", 0),
                    ("Introduction", "introduction", 1), ("Methods", "methods", 1),
                    ("Growth conditions", "methods", 2), ("Results", "results", 1)]
    assert one_column.title == "Copper Stress Changes Biofilm Matrix Genes"
    assert _texts(one_column, "abstract")[0] == "Biofilms protect bacteria from metals."


def test_heading_numbers_kept_apart(one_column):
    heads = one_column.tree.getroot().iter("{*}head")
    numbered = {h.text: h.get("n") for h in heads if h.get("n")}
    assert numbered == {"Introduction": "1", "Methods": "2", "Growth conditions": "2.1",
                        "Results": "3"}


def test_no_running_heads_page_numbers_authors_or_references(one_column):
    text = " ".join(_texts(one_column))
    for stray in ("Journal of Small Tests", "Ann Author", "University of Examples",
                  "Smith J", "Metals and biofilms", "References"):
        assert stray not in text
    assert not any(t.strip().isdigit() for t in _texts(one_column))


def test_word_broken_at_line_end_is_joined(one_column):
    assert "Strains were kept at four degrees before the experiments began." in \
        _texts(one_column)


def test_caption_is_a_caption_without_its_label(one_column):
    captions = _texts(one_column, "caption")
    assert captions == ["Growth curves of the three strains under copper stress, measured "
                        "hourly."]


def test_superscript_citations_are_marked_and_counted(one_column):
    [sent] = [s for s in one_column.sentences() if s.text.startswith("Earlier work")]
    assert sent.text == "Earlier work found the same in soil bacteria3,4 and in water, the m2 " \
                        "of a film."
    assert sent.n_citations == 2  # 3 and 4; the square metre's 2 is no citation
    refs = [r.text for r in sent.element.iter("{*}ref")]
    assert refs == ["3", "4"]


def test_two_columns_read_left_then_right():
    paper = read_data(fx.two_columns(), "two.pdf")[0]
    body = _texts(paper, "body")
    assert body[0] == "Left column sentence number 1 is read first."
    assert body.index("Left column sentence number 30 is read first.") < \
        body.index("Right column sentence number 1 is read second.")
    assert len(body) == 60


def test_paper_says_which_reader(one_column):
    assert one_column.meta["pdf_reader"].startswith("coresc-pdf")
    assert one_column.source_format == "tei"


@pytest.mark.parametrize("lines, joined", [
    (["experi-", "ments began"], "experiments began"),
    (["soft\u00ad", "hyphen"], "softhyphen"),
    (["well-", "Known"], "well-Known"),  # a compound, not a cut: its hyphen stays
    (["N-OH-3-", "ABA adducts"], "N-OH-3-ABA adducts"),
    (["transcription\u2013", "polymerase"], "transcription\u2013polymerase"),
    (["as shown \u2013", "which"], "as shown \u2013 which"),
    (["a line", "another"], "a line another"),
])
def test_join_lines(lines, joined):
    assert join_lines(lines) == joined


# -- bad PDFs: one line each, never a traceback -------------------------------------------

def _bomb() -> bytes:
    co = zlib.compressobj(1)
    data = b"".join(co.compress(b"0 0 m " * (1 << 20)) for _ in range(250)) + co.flush()
    return fx.raw_pdf(data, "FlateDecode")


@pytest.mark.parametrize("make, problem", [
    (lambda: fx.one_column(_encrypt("secret", "owner")), "is encrypted with a password"),
    (fx.image_only, "has no text layer (a scanned PDF?): run OCR on it first"),
    (lambda: fx.one_column()[:3000], "is damaged or not a PDF"),
    (lambda: fx.raw_pdf(b"", pages=0), "is damaged or has no pages"),
    (lambda: b"%PDF-1.4\n" + bytes(range(256)) * 50, "is damaged or not a PDF"),
    (lambda: fx.many_glyphs(300_000), "a page holds 302,300 characters, more than"),
], ids=["password", "scanned", "truncated", "no-pages", "garbage", "millions-of-glyphs"])
def test_bad_pdfs_one_line(make, problem):
    with pytest.raises(InputError) as err:
        read_data(make(), "bad.pdf")
    message = str(err.value)
    assert message.startswith("bad.pdf: ") and problem in message and "\n" not in message


@pytest.mark.slow
def test_decompression_bomb_is_stopped():
    with pytest.raises(InputError, match="needs more than 768 MB to read"):
        read_data(_bomb(), "bomb.pdf")


def test_owner_password_only_is_read():
    paper = read_data(fx.one_column(_encrypt("", "owner")), "owner.pdf")[0]
    assert paper.title == "Copper Stress Changes Biofilm Matrix Genes"


def _encrypt(user: str, owner: str):
    from reportlab.lib.pdfencrypt import StandardEncryption

    return StandardEncryption(user, owner)


@pytest.mark.fuzz
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_damaged_pdfs_give_papers_or_one_line(data):
    """Bytes of a good PDF overwritten, cut or repeated: a paper or an InputError."""
    pdf = bytearray(fx.two_columns())
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(pdf) - 1))
        what = data.draw(st.sampled_from(["byte", "cut", "dup"]))
        if what == "byte":
            pdf[at] = data.draw(st.integers(0, 255))
        elif what == "cut":
            del pdf[at:at + data.draw(st.integers(1, 400))]
        else:
            pdf[at:at] = pdf[at:at + data.draw(st.integers(1, 400))]
    try:
        papers = read_data(bytes(pdf), "fuzzed.pdf")
    except InputError as exc:
        assert str(exc).startswith("fuzzed.pdf: ") and "\n" not in str(exc)
    else:
        assert len(papers) == 1


# -- everywhere a paper goes ---------------------------------------------------------------

def test_annotate_a_pdf_says_once_which_reader(tmp_path, coresc_cli, monkeypatch):
    from coresc.readers.pdf import NOTICE_ENV

    monkeypatch.delenv(NOTICE_ENV, raising=False)
    monkeypatch.delenv("CORESC_GROBID_URL", raising=False)
    for name in ("a.pdf", "b.pdf"):
        (tmp_path / name).write_bytes(fx.one_column())
    rc, err = coresc_cli(["annotate", str(tmp_path), "--model", "fast", "--to", "jsonl",
                          "--jobs", "2", "-o", str(tmp_path / "out.jsonl")])
    assert rc == 0
    assert err.count("PDFs are read by the embedded reader") == 1
    assert "--grobid URL reads them with GROBID's structure" in err
    assert (tmp_path / "out.jsonl").read_text().count('"Copper Stress') >= 2


def test_convert_pdf_to_tei_keeps_sections(tmp_path, coresc_cli, monkeypatch):
    monkeypatch.delenv("CORESC_GROBID_URL", raising=False)
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(fx.one_column())
    rc, _ = coresc_cli(["convert", str(pdf), "--to", "xml", "-o", str(tmp_path / "out.xml")])
    assert rc == 0
    written = (tmp_path / "out.xml").read_bytes()
    assert b"http://www.tei-c.org/ns/1.0" in written
    out = read_data(written, "paper.xml")[0]
    assert [s.heading for s in out.sections][2:] == ["Introduction", "Methods",
                                                     "Growth conditions", "Results"]


def test_api_reads_a_pdf_path(tmp_path, monkeypatch):
    import coresc

    monkeypatch.delenv("CORESC_GROBID_URL", raising=False)
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(fx.two_columns())
    paper = coresc.load("fast")(str(pdf))
    assert all(s.pred for s in paper.sentences())


@pytest.mark.slow
def test_real_pairs_are_read_with_their_structure(shared_data):
    """Each of the 15 PDFs with its publisher's XML: read, titled, headed, and about as many
    sentences as the XML (fidelity is measured in benchmarks/pdf_fidelity.py)."""
    from coresc.readers import read_file

    pairs = sorted(p for p in (shared_data / "pdf-pairs").iterdir() if p.is_dir())
    assert len(pairs) == 15
    for folder in pairs:
        pdf = read_file(folder / "paper.pdf")[0]
        ref_path = next(p for p in folder.iterdir() if p.suffix in (".xml", ".jats"))
        ref = read_file(ref_path)[0]
        assert pdf.title, folder.name
        assert sum(1 for s in pdf.sections if s.depth >= 1) >= 2, folder.name
        assert 0.7 < len(pdf) / len(ref) < 1.4, (folder.name, len(pdf), len(ref))


@pytest.mark.parametrize("xml, n", [
    ('<s xmlns="http://www.tei-c.org/ns/1.0">as shown<ref type="bibr" target="#b1 #b4">'
     '[1,4]</ref> before</s>', 2),
    ('<s xmlns="http://www.tei-c.org/ns/1.0">a gene<ref type="bibr">12</ref></s>', 1),
    ('<s xmlns="http://www.tei-c.org/ns/1.0">see <ref type="figure">Fig. 2</ref></s>', None),
])
def test_tei_citation_markup_counts(xml, n):
    """TEI ``ref type="bibr"`` (GROBID's, and the PDF reader's superscripts) counts, as the
    docstring of count_citations_markup always said; it was never looked for."""
    from lxml import etree

    from coresc.citations import count_citations_markup

    assert count_citations_markup(etree.fromstring(xml)) == n


def test_the_paper_time_limit_bounds_the_pdf_reader(monkeypatch):
    from coresc.limits import TIMEOUT_ENV

    monkeypatch.setenv(TIMEOUT_ENV, "0.001")
    with pytest.raises(InputError, match=r"slow.pdf: took longer than 0.001 s to read as a "
                                         r"PDF \(the limit: --paper-timeout"):
        read_data(fx.two_columns(), "slow.pdf")


# -- the layout on hand-built runs -----------------------------------------------------

def _run(x0, y, x1, text, size=10.0, bold=0.0):
    """A run as extract.py gives it: [x0, y0, x1, y1, base, size, text, bold, italic,
    font, styles]."""
    return [x0, y, x1, y + size, y + 2, size, text, bold, 0.0, "F",
            [[len(text), bold > 0.5, False, "F"]]]


def _two_column_page(width=600.0):
    runs = [_run(50, 760, 550, "A Title Across Both Columns", 16, 1.0)]
    for i in range(40):
        y = 700 - 14 * i
        runs.append(_run(50, y, 290, f"left {i} " + "words " * 6))
        runs.append(_run(310, y, 550, f"right {i} " + "words " * 6))
    return {"w": width, "h": 800.0, "runs": runs}


def test_reading_order_on_hand_built_runs():
    from coresc.readers.pdf.layout import page_lines

    page = _two_column_page()
    lines = page_lines(page, 0, 10.0)
    texts = [ln.text.split()[0] + ln.text.split()[1] for ln in lines]
    assert texts[0] == "ATitle"
    assert texts[1:41] == [f"left{i}" for i in range(40)]
    assert texts[41:] == [f"right{i}" for i in range(40)]


def test_one_ragged_column_is_one_region():
    from coresc.readers.pdf.xycut import xy_leaves

    runs = [_run(50, 700 - 14 * i, 550 - (i % 3) * 40, "a line of running text " * 3)
            for i in range(40)]
    assert len(xy_leaves(runs, 10.0)) == 1


def test_a_box_over_two_of_three_columns_is_read_before_them_and_the_third_after():
    """As PLOS Biology sets a box: the box across the first two columns at the top, the
    third column running the page's whole height beside it."""
    from coresc.readers.pdf.layout import page_lines

    runs = [_run(40, 760 - 14 * i, 380, f"box {i} " + "words " * 8) for i in range(10)]
    for col, x in enumerate((40, 215)):
        runs += [_run(x, 590 - 14 * i, x + 160, f"col{col} {i} words") for i in range(30)]
    runs += [_run(395, 760 - 14 * i, 555, f"col2 {i} words") for i in range(42)]
    texts = [" ".join(ln.text.split()[:2]) for ln in page_lines(
        {"w": 600.0, "h": 800.0, "runs": runs}, 0, 10.0)]
    assert texts == ([f"box {i}" for i in range(10)] + [f"col0 {i}" for i in range(30)]
                     + [f"col1 {i}" for i in range(30)] + [f"col2 {i}" for i in range(42)])


def test_running_heads_and_page_numbers_are_found():
    from coresc.readers.pdf.layout import Line
    from coresc.readers.pdf.margins import repeated_margins

    def line(page, y, text):
        return Line(page, 50, y, 300, y + 8, y + 2, 8.0, text, 0.0, 0.0)

    pages = [[line(p, 780, f"J Tests 12 (2026) {p + 1}-9"), line(p, 400, f"body {p}"),
              line(p, 20, str(p + 1))] for p in range(3)]
    found = repeated_margins(pages, [800.0] * 3)
    assert {ln.text for page in pages for ln in page if id(ln) in found} == \
        {"J Tests 12 (2026) 1-9", "J Tests 12 (2026) 2-9", "J Tests 12 (2026) 3-9",
         "1", "2", "3"}


def test_a_running_head_that_stands_once_is_found_by_its_page_number():
    """A short paper's odd pages' head ("Rendered layouts 3") stands once; its page
    number, set where the even pages' heads set theirs, makes it a head. A heading at a
    page's top with another number is no head."""
    from coresc.readers.pdf.layout import Line
    from coresc.readers.pdf.margins import repeated_margins

    def line(page, y, text):
        return Line(page, 50, y, 300, y + 8, y + 2, 8.0, text, 0.0, 0.0)

    heads = ["", "2 Ribeiro et al.", "Rendered layouts 3", "4 Ribeiro et al."]
    body = ["Mice were fed.", "Rats were weighed.", "Cells grew.", "Tumours were seen."]
    pages = [[line(p, 780, heads[p]), line(p, 400, body[p])] for p in range(4)]
    pages[0][0] = line(0, 780, "Methods 7")
    pages[0].append(line(0, 770, "Figure 1"))  # a float's label at the top: offset 1 too
    found = repeated_margins(pages, [800.0] * 4)
    assert {ln.text for page in pages for ln in page if id(ln) in found} == \
        {"2 Ribeiro et al.", "Rendered layouts 3", "4 Ribeiro et al."}


def test_a_running_head_set_low_is_found_as_its_pages_first_line():
    """amsart sets its heads 13% down the page, below the margins' zone: a page's first
    line, repeated (digits aside), is a head all the same."""
    from coresc.readers.pdf.layout import Line
    from coresc.readers.pdf.margins import repeated_margins

    def line(page, y, text):
        return Line(page, 50, y, 300, y + 8, y + 2, 8.0, text, 0.0, 0.0)

    heads = ["", "2 RIBEIRO AND NOWAK", "SIGNALLING IN RAT LIVER 3", "4 RIBEIRO AND NOWAK",
             "SIGNALLING IN RAT LIVER 5"]
    body = ["Mice were fed.", "Rats were weighed.", "Cells grew.", "Tumours were seen.",
            "Livers were weighed."]
    pages = [[line(p, 690, heads[p]), line(p, 400, body[p]), line(p, 300, body[p - 1])]
             for p in range(1, 5)]
    pages.insert(0, [line(0, 690, "Signalling in rat liver"), line(0, 400, body[0]),
                     line(0, 300, body[4])])
    found = repeated_margins(pages, [800.0] * 5)
    assert {ln.text for page in pages for ln in page if id(ln) in found} == set(heads[1:])

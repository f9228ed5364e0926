"""PDFs the embedded reader once read wrongly without a word, or diagnosed wrongly (issue
53, items 5 and 6): what was left out is said in one line; pages turned upright, forms
that draw themselves and text above the page are read right; a PDF with a text layer is
never sent to OCR; the child's failures are named for what they are."""

from __future__ import annotations

import signal

import hidden_pdfs as hp
import pdf_fixtures as fx
import pytest

from coresc.errors import InputError
from coresc.readers import read_data
from coresc.readers.pdf import _child_failure, extract, no_body_text

BODY_SENTENCE = "Expression rose threefold in the first day and stayed high."


def _page_pdf(content: bytes, page_extra: bytes = b"", objs: tuple = (),
              resources: bytes = b"") -> bytes:
    return fx.objects_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] " + page_extra
        + b" /Contents 4 0 R /Resources << " + hp.FONTS + resources + b" >> >>",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream", *objs])


def _sentences(data: bytes, name: str = "odd.pdf") -> list[str]:
    return [s.text for s in read_data(data, name)[0].sentences()]


# -- item 5: silent losses -----------------------------------------------------------

def test_pages_past_the_limit_are_named(monkeypatch):
    monkeypatch.setattr(extract, "MAX_PAGES", 2)
    out = extract.extract(fx.raw_pdf(hp.visible_page(), pages=3))
    assert len(out["pages"]) == 2
    assert out["left_out"] == ["page 3 not read (the embedded PDF reader reads the first 2)"]


def test_what_was_left_out_reaches_stderr_and_the_api(tmp_path, coresc_cli, monkeypatch):
    """The child's ``left_out`` lines travel through the TEI header to the paper's meta
    and are said once on standard error (and as a warning by the API)."""
    import coresc.readers.pdf as pdf_reader

    real = pdf_reader.run_child
    note = "pages 2,001 to 7,505 not read (the embedded PDF reader reads the first 2,000)"
    monkeypatch.setattr(pdf_reader, "run_child",
                        lambda *a, **kw: {**real(*a, **kw), "left_out": [note]})
    (tmp_path / "long.pdf").write_bytes(hp.build_pdf(hp.visible_page()))
    rc, err = coresc_cli(["annotate", str(tmp_path / "long.pdf"), "--model", "fast",
                          "--to", "tsv", "-o", str(tmp_path / "out.tsv")])
    assert rc == 0 and err.count(note) == 1
    assert f"long.pdf: {note}" in err
    paper = read_data(hp.build_pdf(hp.visible_page()), "long.pdf")[0]
    assert paper.meta["left_out"] == [note]
    import coresc
    from coresc.api import LeftOut

    with pytest.warns(LeftOut, match="pages 2,001 to 7,505 not read"):
        coresc.load("fast")(paper)


@pytest.mark.slow
def test_a_pdf_of_more_than_2000_pages_says_what_it_left_out():
    paper = read_data(fx.raw_pdf(hp.visible_page(), pages=2003), "long.pdf")[0]
    assert paper.meta["left_out"] == ["pages 2,001 to 2,003 not read (the embedded PDF "
                                      "reader reads the first 2,000)"]


def test_a_form_that_draws_itself_is_read_once():
    body = hp.visible_page() + b" /Fm1 Do"
    form = (b"<< /Type /XObject /Subtype /Form /BBox [0 0 595 842] /Resources << " + hp.FONTS
            + b" /XObject << /Fm1 5 0 R >> >> /Length %d >>\nstream\n" % len(body) + body
            + b"\nendstream")
    data = _page_pdf(b"/Fm1 Do", objs=(form,), resources=b" /XObject << /Fm1 5 0 R >>")
    paper = read_data(data, "form.pdf")[0]
    assert paper.title == hp.TITLE
    assert [s.text for s in paper.sentences()].count(BODY_SENTENCE) == 1
    assert len(paper) == 6


def test_text_above_the_page_does_not_replace_the_title():
    paper = read_data(_page_pdf(hp.visible_page() + hp.line("A Planted Title", 72, 900, 30,
                                                            "F2")), "above.pdf")[0]
    assert paper.title == hp.TITLE


def test_a_negative_font_size_undone_by_its_matrix_is_read():
    """-10 Tf under a half-turned matrix reads upright; -10 Tf alone sets the text upside
    down, which is left out as text turned on its side is (never read backwards)."""
    upright = b"BT /F1 -10 Tf -1 0 0 -1 72 500 Tm (Planted words read upright here.) Tj ET"
    upside = b"BT /F1 -10 Tf 500 400 Td (Planted words set upside down.) Tj ET"
    texts = _sentences(_page_pdf(hp.visible_page() + upright + upside))
    assert "Planted words read upright here." in texts
    assert not any("upside" in t or "nwod" in t for t in texts)


def test_much_text_left_out_upside_down_is_said():
    """Text set upside down by a negative font size alone is left out, as text turned on
    its side is; past a stamp's worth it is said in one line, never silently."""
    upside = b"".join(f"BT /F1 -10 Tf 500 {400 - 14 * k} Td (Planted words number {k} set "
                      f"upside down on this page.) Tj ET ".encode() for k in range(8))
    paper = read_data(_page_pdf(hp.visible_page() + upside), "upside.pdf")[0]
    [note] = [n for n in paper.meta["left_out"] if "turned" in n]
    assert note.startswith("3") and "characters set turned on their side or upside down" \
        in note
    one = read_data(_page_pdf(hp.visible_page() + upside[:upside.index(b"ET") + 2]),
                    "stamp.pdf")[0]
    assert not any("turned" in n for n in one.meta.get("left_out", []))


# -- item 6: diagnoses -------------------------------------------------------------

@pytest.mark.parametrize("turn, matrix", [(90, "0 1 -1 0 595 0"), (180, "-1 0 0 -1 595 842"),
                                          (270, "0 -1 1 0 0 842")])
def test_a_landscape_page_turned_upright_is_read(turn, matrix):
    """pdflscape draws a landscape page sideways and turns the page upright (/Rotate)."""
    top = 520 if turn != 180 else 760
    content = f"q {matrix} cm ".encode() + hp.visible_page(top) + b" Q"
    paper = read_data(_page_pdf(content, f"/Rotate {turn}".encode()), "wide.pdf")[0]
    assert paper.title == hp.TITLE
    assert BODY_SENTENCE in [s.text for s in paper.sentences()]


@pytest.mark.parametrize("content, why", [
    # half the text at 45 degrees, half at -45: no angle is the page's (one would be read
    # upright, tests/test_readers_pdf_reach.py)
    (b"q 0.7071 0.7071 -0.7071 0.7071 300 100 cm " + hp.visible_page(300) + b"Q q 0.7071 "
     b"-0.7071 0.7071 0.7071 50 600 cm " + hp.visible_page(300) + b"Q",
     "characters turned on their side"),
    (b"BT 3 Tr ET " + hp.visible_page(), "characters nobody sees (hidden text)"),
], ids=["slanted-45-and-minus-45", "invisible"])
def test_a_text_layer_left_out_is_not_called_a_scan(content, why):
    with pytest.raises(InputError) as err:
        read_data(_page_pdf(content), "text.pdf")
    message = str(err.value)
    assert "has a text layer, but none of it is read" in message and why in message
    assert "OCR" not in message


def test_no_text_on_the_pages_read_names_the_page_limit(monkeypatch):
    monkeypatch.setattr(extract, "MAX_PAGES", 1)
    data = fx.objects_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 5 0 R "
        b"/Resources << " + hp.FONTS + b" >> >>",
        b"<< /Length %d >>\nstream\n" % len(hp.visible_page()) + hp.visible_page()
        + b"\nendstream"])
    with pytest.raises(extract.ExtractError, match=r"has no text on its first 1 pages \(of "
                                                   r"2\), the most the embedded reader reads"):
        extract.extract(data)


def test_the_document_limit_is_named_as_such(monkeypatch):
    monkeypatch.setattr(extract, "MAX_DOC_CHARS", 300)
    with pytest.raises(extract.ExtractError, match="holds more than 300 characters, the "
                                                   "most read of one document"):
        extract.extract(fx.raw_pdf(hp.visible_page(), pages=2))


def _unmapped_type3_pdf(content: bytes) -> bytes:
    """``content`` in Type3 fonts with no Unicode map (see ``pdf_fixtures.type3_pdf``)."""
    return fx.type3_pdf(content)


def test_fonts_with_no_unicode_map_are_counted_and_named():
    out = extract.extract(_unmapped_type3_pdf(hp.line(hp.TITLE, 72, 760, 16)))
    assert out["unmapped"] == len(hp.TITLE.replace(" ", ""))  # its letters, not spaces
    with pytest.raises(InputError, match=r"no body text found in the PDF's text layer: \d+ "
                                         r"of its \d+ characters are in fonts with no "
                                         r"Unicode map"):
        read_data(_unmapped_type3_pdf(hp.line(hp.TITLE, 72, 760, 16)), "codes.pdf")


def test_no_body_text_names_unmapped_fonts_only_when_most_text_is():
    assert no_body_text({"counts": [100, 60.0], "unmapped": 10}) == \
        "no body text found in the PDF's text layer"
    assert "100 of its 100 characters" in no_body_text({"counts": [100, 60.0],
                                                         "unmapped": 100})


@pytest.mark.parametrize("code, stderr, says", [
    (-signal.SIGKILL, b"", "was killed (SIGKILL) from outside coresc"),
    (-signal.SIGSEGV, b"", "stopped on it (SIGSEGV): the PDF is damaged"),
    (1, b"Traceback (most recent call last):\n  ...\nValueError: cannot convert float NaN "
        b"to integer", "coresc's PDF reader failed on it (ValueError: cannot convert float "
                       "NaN to integer): a bug in coresc, please report it"),
], ids=["sigkill", "sigsegv", "traceback"])
def test_the_childs_end_is_named_for_what_it_is(code, stderr, says):
    assert says in _child_failure(code, stderr)


@pytest.mark.parametrize("prefix, name", [(b"\xef\xbb\xbf", "bom.data"),
                                          (b"\r\n", "crlf.data"),
                                          (b"HTTP/1.1 200 OK junk\r\n\r\n", "junk.pdf")])
def test_bytes_before_the_pdf_header_that_pdfium_reads(prefix, name):
    paper = read_data(prefix + hp.build_pdf(hp.visible_page()), name)[0]
    assert paper.title == hp.TITLE

"""Text the embedded PDF reader could not reach or left out as it lay (issue 53, items 5
and 6): forms nested deeper than PDFium reads are said, never called a scan; a page set
at a slant is read upright; Latin letters stacked one under another are read as words
where they are the page's text, and said where they stand in a margin."""

from __future__ import annotations

import math

import hidden_pdfs as hp
import pdf_fixtures as fx
import pytest

from coresc.errors import InputError
from coresc.readers import read_data
from coresc.readers.pdf import extract
from coresc.readers.pdf.hidden import PDFIUM_FORM_LEVELS


def _nested_forms(depth: int, inner: bytes, outer: bytes = b"") -> bytes:
    """A page drawing ``outer``, then form X0, which draws X1 ..., ``depth`` forms nested,
    the innermost drawing ``inner``."""
    forms = []
    for k in range(depth):
        last = k == depth - 1
        body = inner if last else b"/X%d Do" % (k + 1)
        inside = b"" if last else b" /XObject << /X%d %d 0 R >>" % (k + 1, 8 + k)
        forms.append(b"<< /Type /XObject /Subtype /Form /BBox [0 0 595 842] /Resources << "
                     + hp.FONTS + inside + b" >> /Length %d >>\nstream\n" % len(body) + body
                     + b"\nendstream")
    return hp.build_pdf(outer + b"/X0 Do", xobjects=b"/XObject << /X0 7 0 R >>",
                        extra=tuple(forms))


def _sentences(data: bytes) -> list[str]:
    return [s.text for s in read_data(data, "forms.pdf")[0].sentences()]


def test_text_in_forms_as_deep_as_pdfium_reads_is_read():
    assert hp.BODY.split(". ")[0] + "." in _sentences(
        _nested_forms(PDFIUM_FORM_LEVELS, hp.visible_page()))


@pytest.mark.parametrize("depth", [PDFIUM_FORM_LEVELS + 1, 50])
def test_forms_nested_deeper_than_pdfium_reads_are_not_called_a_scan(depth):
    with pytest.raises(InputError, match=f"has no text the embedded reader can reach: its "
                                         f"content in forms nested more than "
                                         f"{PDFIUM_FORM_LEVELS} deep .*not a scan"):
        read_data(_nested_forms(depth, hp.visible_page()), "forms.pdf")


def test_text_in_forms_too_deep_beside_text_read_is_said():
    out = extract.extract(_nested_forms(50, hp.line(hp.HIDDEN, 72, 300),
                                        hp.visible_page()))
    assert out["left_out"] == [f"content in forms nested more than {PDFIUM_FORM_LEVELS} "
                               f"deep (the embedded PDF reader, PDFium, reads "
                               f"{PDFIUM_FORM_LEVELS} levels): not read"]


def _slanted(degrees: float, content: bytes) -> bytes:
    """``content`` turned ``degrees`` counter-clockwise about the page's middle, at 0.7 of
    its size (so that it stays on the page)."""
    t, k, cx, cy = math.radians(degrees), 0.7, 297.5, 421.0
    a, b, c, d = k * math.cos(t), k * math.sin(t), -k * math.sin(t), k * math.cos(t)
    e, f = cx - (a * cx + c * cy), cy - (b * cx + d * cy)
    return hp.build_pdf(f"q {a:.4f} {b:.4f} {c:.4f} {d:.4f} {e:.2f} {f:.2f} cm\n".encode()
                        + content + b"Q\n")


@pytest.mark.parametrize("degrees", [20, 45, -45, 135, 90])
def test_a_page_set_at_a_slant_is_read_upright(degrees):
    """Past 34 degrees it was left out as turned text ("none of it is read"); at 20 its
    lines were read as if upright, mixed into garbage."""
    sentences = _sentences(_slanted(degrees, hp.visible_page()))
    assert sentences[0] == hp.TITLE
    assert " ".join(sentences[1:]) == hp.BODY


def test_a_slanted_stamp_on_an_upright_page_is_still_left_out():
    stamp = b"q 0.7071 0.7071 -0.7071 0.7071 300 300 cm " + hp.line(hp.HIDDEN, 0, 0) + b"Q\n"
    sentences = _sentences(hp.build_pdf(hp.visible_page() + stamp))
    assert sentences[0] == hp.TITLE and not any("Ignore" in s for s in sentences)



def test_hidden_slanted_text_does_not_turn_the_page():
    """Invisible text at 45 degrees, more of it than the visible upright text: the page
    is not turned for it (which would leave out the text that is seen)."""
    hidden = b"".join(hp.line(f"{hp.HIDDEN} {hp.HIDDEN}", 0, 400 - 12 * k)
                      for k in range(12)).replace(b"BT ", b"BT 3 Tr ")
    data = hp.build_pdf(hp.visible_page() + b"q 0.7071 0.7071 -0.7071 0.7071 300 100 cm "
                        + hidden + b"Q\n")
    assert _sentences(data)[0] == hp.TITLE

def _stacked(text: str, x: float, y: float, size: float = 10) -> bytes:
    """``text`` set vertically: each letter under the one before, a space a letter's
    step left empty."""
    out = f"BT /F1 {size:g} Tf {x:g} {y:g} Td ".encode()
    for ch in text:
        out += (f"({ch}) Tj " if ch != " " else "").encode() + f"0 {-1.1 * size:g} Td ".encode()
    return out + b"ET\n"


def test_a_page_written_vertically_is_read_as_words():
    """Each column of letters, left to right, is a line; the reading made no sentence of
    it ("no body text found")."""
    columns = _stacked(hp.TITLE[:20], 40, 800, 14) + b"".join(
        _stacked(words, 80 + 14 * k, 800) for k, words in enumerate(hp._wrap(hp.BODY, 30)))
    paper = read_data(hp.build_pdf(columns), "vertical.pdf")[0]
    assert paper.title == hp.TITLE[:20]
    assert " ".join(s.text for s in paper.sentences()) == f"{hp.TITLE[:20]} {hp.BODY}"


def test_letters_stacked_in_a_margin_are_said():
    data = hp.build_pdf(hp.visible_page() + _stacked("Vertical words stand here", 40, 700))
    out = extract.extract(data)
    assert out["left_out"] == ['22 letters set vertically, one under another (1 column(s), '
                               'the first "Vertical words stand here"), not read']
    assert all(len(r[6].strip()) > 1 for r in out["pages"][0]["runs"])  # no lone letter
    assert _sentences(data)[:2] == [hp.TITLE, "Biofilms protect bacteria from metals in the "
                                              "soil."]


def _vertical_mode_pdf(columns: list[str], size: float = 10) -> bytes:
    """Each of ``columns`` set in a font in vertical writing mode (``Identity-V``: each
    glyph under the one before), columns 14 points apart, left to right; its Unicode map
    names the codes, which are the characters'."""
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /U def "
            b"1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfrange <0020> "
            b"<007E> <0020> endbfrange endcmap CMapName currentdict /CMap defineresource pop "
            b"end end")
    content = b"".join(
        f"BT /V1 {size:g} Tf {80 + 14 * k} 800 Td <{''.join(f'{ord(c):04X}' for c in text)}>"
        f" Tj ET\n".encode() for k, text in enumerate(columns))
    return fx.objects_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /Font << /V1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type0 /BaseFont /Helvetica /Encoding /Identity-V "
        b"/DescendantFonts [6 0 R] /ToUnicode 7 0 R >>",
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Helvetica /CIDSystemInfo << "
        b"/Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 8 0 R "
        b"/DW 600 /DW2 [880 -1000] >>",
        b"<< /Length %d >>\nstream\n" % len(cmap) + cmap + b"\nendstream",
        b"<< /Type /FontDescriptor /FontName /Helvetica /Flags 32 /FontBBox [0 -200 1000 "
        b"900] /ItalicAngle 0 /Ascent 900 /Descent -200 /CapHeight 700 /StemV 80 >>"])


def test_a_page_in_vertical_writing_mode_is_read_as_words():
    """The same with a font in vertical writing mode (was: "no body text found")."""
    data = _vertical_mode_pdf(hp._wrap(hp.BODY, 30))
    assert " ".join(_sentences(data)) == hp.BODY


def _column_runs(columns: list[str], size: float = 10) -> list[list]:
    """Runs of one glyph each (extract's shape), each column's under one another, the
    columns 14 points apart left to right."""
    return [[x, base, x + size, base + size, base, size, ch, 0.0, 0.0, "F", [[1, False,
                                                                            False, "F"]]]
            for k, text in enumerate(columns) for j, ch in enumerate(text)
            for x, base in [(80 + 14 * k, 800 - 11 * j)]]


def test_vertical_columns_are_read_left_to_right_or_right_to_left_in_cjk():
    from coresc.readers.pdf.vertical import vertical_runs

    latin = vertical_runs(_column_runs(["First", "second"]))[0]
    assert [r[6] for r in latin] == ["First", "second"]
    # Japanese: the first column is the rightmost
    cjk = vertical_runs(_column_runs(["二行目です", "これは縦書き"]))[0]
    assert [r[6] for r in cjk] == ["これは縦書き", "二行目です"]

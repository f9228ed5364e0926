"""pdflatex's bitmap (Type3) fonts (issue 53, item 5): no Unicode map, no glyph names that
name letters, no font names. Their ligatures, quotes and dashes come as control codes
(TeX's encodings), which were dropped ("nding" for "finding"), and with no names every
font looked alike, so headings set bold were read as body text."""

from __future__ import annotations

import hidden_pdfs as hp
import pdf_fixtures as fx

from coresc.readers import read_data
from coresc.readers.pdf import extract
from coresc.readers.pdf.type3 import guessed_note, tex_glyph

#: TeX's Cork (T1) codes, longest first, as PDF string escapes.
_T1 = (("ffi", "\\036"), ("ffl", "\\037"), ("ff", "\\033"), ("fi", "\\034"),
       ("fl", "\\035"))
_CODES = (0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0x15)
BODY = ("We report the finding that official fluffy effects differ across the samples. "
        "The efficient office staff affirmed the flow of the offers, which suffices for "
        "the fine figures. Further work will examine the different fields and find a "
        "flexible offline workflow for them.")


def _tex(text: str) -> str:
    for letters, code in _T1:
        text = text.replace(letters, code)
    return text


def _paper() -> bytes:
    """A title and three sections, each a heading in F2 (the wider, "bold" font, at the
    body's size, as elsarticle sets them) and two paragraphs."""
    out, y = hp.line(hp.TITLE, 72, 790, 16, "F2"), 750.0
    for heading in ("1 Effects of the first finding", "2 Methods", "3 Conclusion"):
        out += hp.line(_tex(heading), 72, y, 10, "F2")
        y -= 20
        for _ in range(2):
            for words in hp._wrap(BODY, 70):
                out += hp.line(_tex(words), 72, y, 10)
                y -= 12.5
            y -= 8
        y -= 10
    return fx.type3_pdf(out, _CODES)


def test_tex_codes_of_an_unmapped_font_are_their_characters():
    codes = [*map(ord, "o\x1ece \x1cnd 1\x152 sta\x1b")]
    assert [tex_glyph(codes, i) for i in (1, 5, 10, 16)] == \
        ["\ufb03", "\ufb01", "\u2013", "\ufb00"]
    assert tex_glyph(codes, 0) == "o"
    # a symbol font's bullet at a ligature's code, standing alone, is not a ligature
    assert tex_glyph([0x0A, 0x1F, 0x20, ord("W")], 1) == "\x1f"


def test_ligatures_of_a_type3_font_are_read_as_letters():
    runs = [r[6] for p in extract.extract(_paper())["pages"] for r in p["runs"]]
    text = " ".join(runs)
    assert "finding that official fluffy effects differ" in text
    assert "efficient office staff affirmed the flow" in text
    assert not any(ord(c) < 0x20 for c in text)


def test_a_type3_fonts_size_is_its_size_not_its_glyphs_box():
    """A heading at the body's size, in a font whose box (of the glyphs it holds) has no
    descenders, is measured at the body's size."""
    runs = extract.extract(_paper())["pages"][0]["runs"]
    sizes = {r[9]: r[5] for r in runs if r[9]}
    assert sizes == {"unnamed-1": 10.0, "unnamed-2": 10.0}


def test_unnamed_fonts_are_told_apart_so_headings_are_found():
    out = extract.extract(_paper())
    fonts = {s[3] for p in out["pages"] for r in p["runs"] for s in r[10]}
    assert fonts == {"unnamed-1", "unnamed-2"}
    paper = read_data(_paper(), "type3.pdf")[0]
    assert paper.title == hp.TITLE
    assert [s.heading for s in paper.sections][1:] == \
        ["Effects of the first finding", "Methods", "Conclusion"]
    sentences = [s.text for s in paper.sentences()]
    # no sentence cut at a line break (the glyphs' box made lines look far apart)
    assert sentences[1:5] == [
        "We report the finding that official fluffy effects differ across the samples.",
        "The efficient office staff affirmed the flow of the offers, which suffices for "
        "the fine figures.",
        "Further work will examine the different fields and find a flexible offline "
        "workflow for them.", "We report the finding that official fluffy effects "
                              "differ across the samples."]


def test_text_read_from_glyph_codes_is_said():
    out = extract.extract(_paper())
    assert len(out["left_out"]) == 1
    assert out["left_out"][0].endswith("characters read are in fonts with no Unicode map "
                                       "(bitmap Type3 fonts, as pdflatex embeds without "
                                       "Type1 fonts): their letters are read from the "
                                       "glyph codes and may be wrong")
    # a few such glyphs among many (a symbol font's bullets) are not worth a line
    pages = [{"runs": [[0, 0, 0, 0, 0, 10, "x" * 100]]}]
    assert guessed_note(9, pages) is None and guessed_note(10, pages)

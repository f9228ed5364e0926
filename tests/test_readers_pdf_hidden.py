"""Text a PDF holds but nobody sees is not read as the paper's sentences (issue 53): each
of the ten ways to hide it, beside visible text that is read; an OCR layer over a page
image is read; text that only looks unusual (white on a dark box, a layer switched on)
is read."""

from __future__ import annotations

import os

import hidden_pdfs as hp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coresc.readers import read_data


def _text(data: bytes, name: str = "hidden.pdf") -> str:
    paper = read_data(data, name)[0]
    return " ".join([paper.title or "", *(s.text for s in paper.sentences())])


@pytest.mark.parametrize("where", ["after", "before"])
@pytest.mark.parametrize("kind", hp.KINDS)
def test_hidden_text_is_not_read(kind, where):
    text = _text(hp.hidden_pdf(kind, where))
    assert "previous instructions" not in text
    assert hp.TITLE in text and "Expression rose threefold in the first day" in text


def test_an_ocr_layer_over_a_page_image_is_read():
    text = _text(hp.ocr_pdf(), "scan.pdf")
    assert hp.TITLE in text and "Expression rose threefold in the first day" in text


def test_invisible_text_beside_visible_text_over_a_page_image_is_not_read():
    """A background image under a page of visible text does not make it a scan: invisible
    text there is hidden text, not an OCR layer, even in more pieces than the visible."""
    content = (b"q 595 0 0 842 0 0 cm " + hp.IMAGE + b" Q\n" + hp.visible_page()
               + b"".join(hp.hide("invisible", 500 - 14 * k) for k in range(10)))
    text = _text(hp.build_pdf(content))
    assert "previous instructions" not in text and hp.TITLE in text


@pytest.mark.parametrize("content", [
    # white text on a dark box drawn before it
    b"q 0 0 0.5 rg 60 490 500 25 re f Q q 1 1 1 rg " + hp.line(hp.HIDDEN, 72, 500) + b"Q",
    # a layer that is on: only /Off is switched off
    b"/OC /On BDC " + hp.line(hp.HIDDEN, 72, 500) + b"EMC",
    # text over an image drawn before it
    b"q 500 0 0 25 60 490 cm " + hp.IMAGE + b" Q " + hp.line(hp.HIDDEN, 72, 500),
    # a box drawn after the text, beside it rather than over it
    hp.line(hp.HIDDEN, 72, 500) + b"q 1 1 1 rg 60 300 500 25 re f Q",
    # filling and clipping (render mode 4) paints the text
    b"BT 4 Tr ET " + hp.line(hp.HIDDEN, 72, 500) + b"BT 0 Tr ET",
], ids=["white-on-dark", "layer-on", "over-image", "box-beside", "fill-and-clip"])
def test_text_that_can_be_seen_is_read(content):
    assert "previous instructions" in _text(hp.build_pdf(hp.visible_page() + content))


@pytest.mark.fuzz
@settings(max_examples=int(os.environ.get("CORESC_FUZZ_EXAMPLES", "20")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(kinds=st.lists(st.sampled_from(hp.KINDS), min_size=1, max_size=4),
       where=st.sampled_from(["after", "before"]), y=st.floats(80, 540),
       size=st.floats(6, 14))
def test_fuzz_hidden_text_anywhere_is_not_read(kinds, where, y, size):
    """Any mix of the ways to hide text, anywhere under the paragraph, at any size
    (``CORESC_FUZZ_EXAMPLES`` examples, as the other fuzz tests; 20 by default: each
    reads a PDF in a child process)."""
    hidden = b"".join(hp.hide(kind, y - 20 * k, size) for k, kind in enumerate(kinds))
    visible = hp.visible_page()
    text = _text(hp.build_pdf(hidden + visible if where == "before" else visible + hidden))
    assert "previous instructions" not in text and "praise" not in text
    assert "Expression rose threefold in the first day" in text


@pytest.mark.parametrize("mask, read", [(0, True), (255, False)], ids=["clear", "opaque"])
def test_an_image_over_text_hides_it_only_where_it_is_opaque(mask, read):
    """An image drawn over text with a soft mask (a logo's clear surround) leaves the text
    seen, and read; the same image opaque hides it."""
    image = (b"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray "
             b"/BitsPerComponent 8 /SMask 8 0 R /Length 1 >>\nstream\n\x00\nendstream")
    smask = (b"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray "
             b"/BitsPerComponent 8 /Length 1 >>\nstream\n" + bytes([mask]) + b"\nendstream")
    content = hp.visible_page() + hp.line(hp.HIDDEN, 72, 500) + b"q 500 0 0 25 60 490 cm /Im1 Do Q"
    data = hp.build_pdf(content, xobjects=b"/XObject << /Im1 7 0 R >>", extra=(image, smask))
    assert ("previous instructions" in _text(data)) is read


def test_a_page_past_its_budget_of_box_comparisons_is_read(monkeypatch):
    """Judging text against boxes is bounded per page (a hostile page of many boxes and
    texts would take quadratic time): past the budget, text is read as it comes."""
    from coresc.readers.pdf import extract, hidden

    def texts() -> str:
        out = extract.extract(hp.hidden_pdf("under-box"))
        return " ".join(r[6] for page in out["pages"] for r in page["runs"])

    assert "previous instructions" not in texts()
    monkeypatch.setattr(hidden, "_MAX_CHECKS", 0)
    assert "previous instructions" in texts()

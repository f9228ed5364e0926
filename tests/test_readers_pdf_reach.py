"""Text the embedded PDF reader could not reach or left out as it lay (issue 53, items 5
and 6): forms nested deeper than PDFium reads are said, never called a scan."""

from __future__ import annotations

import hidden_pdfs as hp
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

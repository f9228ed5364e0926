"""``--to pdf``: the paper's own PDF back, each labelled sentence highlighted in its
primary label's colour (the HTML view's, :mod:`coresc.writers.html.styles`).

The PDF is not rewritten: the highlights are an incremental update appended to its
bytes (pypdf, the ``pdf`` extra), so its content, its existing annotations and its
signatures' byte ranges stay as they were. Each sentence gets one standard highlight
annotation per page it stands on (``/QuadPoints``: one quadrilateral per line
fragment, from the reader's ``Sentence.boxes``) with its appearance stream (``/AP``:
the quadrilaterals filled in the colour through a multiply blend, so the paper takes the
colour and the ink stays black), its note (``/Contents``, shown on hover
by Acrobat, Preview, pdf.js, Okular and Zotero) the label, its score and the secondary
labels. The first page gains a note listing the colours; the document information
dictionary gains the label summary (``/CoreSCLabels``). A sentence left without a label
(``--min-score``) or whose label ``Paper.meta["highlight_labels"]`` leaves out
(``--labels``) is not highlighted.
"""

from __future__ import annotations

import io
from collections import Counter

from ..document import PDF_PAGES, PDF_SOURCE, Paper, Sentence
from ..errors import OutputError
from ..extras import require
from ..labels import LABEL_NAMES
from .html.styles import label_styles

#: The ``Paper.meta`` key of the labels to highlight (``annotate --labels``); all when absent.
HIGHLIGHT_LABELS = "highlight_labels"
#: The annotations' author (``/T``), so that a viewer's list groups them.
AUTHOR = "coresc"
#: Permission bit 6 (PDF 32000-1, table 22): add or modify annotations.
_ANNOTATE = 1 << 5

__all__ = ["AUTHOR", "HIGHLIGHT_LABELS", "render_pdf"]


def render_pdf(paper: Paper) -> bytes:
    """The paper's PDF with its sentences highlighted (see the module's docstring).
    Raises :class:`~coresc.errors.OutputError` for a paper not read from a PDF, or a
    PDF whose permissions forbid annotations."""
    require("pdf")
    from pypdf import PdfReader, PdfWriter
    from pypdf.errors import PdfReadError

    data = paper.meta.get(PDF_SOURCE)
    if not isinstance(data, bytes):
        raise OutputError(f"{paper.id}: --to pdf needs a paper read from a PDF by the "
                          f"embedded reader (this one is {paper.source_format or 'not a PDF'})")
    try:
        reader = PdfReader(io.BytesIO(data))
        _check_permissions(paper, reader)
        writer = PdfWriter(reader, incremental=True)
    except PdfReadError as exc:
        raise OutputError(f"{paper.id}: pypdf cannot update this PDF ({exc})") from None
    shown = _shown(paper)
    pages = paper.meta.get(PDF_PAGES) or []
    styles = label_styles(s.pred[0].label for s in shown)
    resources = _blend_resources(writer)
    for sent in shown:
        colour = styles[sent.pred[0].label][0]
        for page, boxes in _by_page(sent.boxes).items():
            if page < len(writer.pages):
                quads = _quads(boxes, _page(pages, page))
                look = _appearance(writer, quads, colour, resources)
                writer.add_annotation(page, _highlight(sent, quads, colour, look))
    if writer.pages:
        writer.add_annotation(0, _legend(writer.pages[0], styles))
    writer.add_metadata({"/CoreSCLabels": _summary(shown)})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _check_permissions(paper: Paper, reader) -> None:
    """An encrypted PDF is updated only when it opens without a password and its
    permissions allow annotations."""
    if not reader.is_encrypted:
        return
    if not reader.decrypt(""):
        raise OutputError(f"{paper.id}: the PDF is encrypted with a password: cannot add "
                          f"highlights (decrypt it first, e.g. qpdf --decrypt)")
    if not int(reader.trailer["/Encrypt"].get("/P", -1)) & _ANNOTATE:
        raise OutputError(f"{paper.id}: the PDF's permissions forbid adding annotations: "
                          f"cannot add highlights (its owner's password lifts that)")


def _shown(paper: Paper) -> list[Sentence]:
    """The sentences to highlight: labelled, on the page, of the labels asked for."""
    wanted = paper.meta.get(HIGHLIGHT_LABELS)
    return [s for s in paper.sentences() if s.pred and s.boxes
            and (not wanted or s.pred[0].label in wanted)]


def _by_page(boxes) -> dict[int, list[tuple]]:
    pages: dict[int, list[tuple]] = {}
    for page, *box in boxes:
        pages.setdefault(page, []).append(tuple(box))
    return pages


def _page(pages: list, index: int) -> tuple[float, float, int, float]:
    """A page's shown width and height, ``/Rotate`` and scale (see ``PDF_PAGES``)."""
    if index < len(pages):
        w, h, degrees, scale = pages[index]
        return w, h, int(degrees), float(scale)
    return 0.0, 0.0, 0, 1.0


def _unturn(page: tuple, x: float, y: float) -> tuple[float, float]:
    """A point on the page as shown back in PDF space (undoing ``/Rotate`` and the scale
    of a tiny page, as the reader applied them)."""
    w, h, degrees, scale = page
    x, y = x / scale, y / scale
    if degrees == 90:  # shown = (y, width - x) of the unturned page, whose width is h
        return h / scale - y, x
    if degrees == 180:
        return w / scale - x, h / scale - y
    if degrees == 270:  # shown = (height - y, x), the unturned page's height being w
        return y, w / scale - x
    return x, y


def _quads(boxes: list[tuple], page: tuple) -> list[float]:
    """Each box's corners in PDF space, in the order viewers read ``/QuadPoints``: top
    left, top right, bottom left, bottom right (as the page is shown); to 0.01 pt."""
    out: list[float] = []
    for x0, y0, x1, y1 in boxes:
        for x, y in ((x0, y1), (x1, y1), (x0, y0), (x1, y0)):
            out += (round(v, 2) for v in _unturn(page, x, y))
    return out


def _rect(quads: list[float]) -> tuple[float, float, float, float]:
    xs, ys = quads[0::2], quads[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def _blend_resources(writer):
    """The resources every highlight's appearance shares: a graphics state that
    multiplies, so the paper takes the colour and the ink stays black."""
    from pypdf.generic import DictionaryObject, NameObject

    state = DictionaryObject({NameObject("/Type"): NameObject("/ExtGState"),
                              NameObject("/BM"): NameObject("/Multiply")})
    states = DictionaryObject({NameObject("/GS0"): writer._add_object(state)})
    return writer._add_object(DictionaryObject({NameObject("/ExtGState"): states}))


def _appearance(writer, quads: list[float], colour: str, resources):
    """The highlight drawn (``/AP``): its quadrilaterals filled in ``colour`` through
    the multiplying state, as Acrobat writes them. Viewers that make their own when it
    is missing (pdf.js, Poppler, PDFium) would not need it; one that only draws ``/AP``
    would show nothing, and PDF 2.0 asks for it. pdf.js uses it only because its
    resources hold the ``/ExtGState``."""
    from pypdf.generic import (
        ArrayObject,
        DecodedStreamObject,
        DictionaryObject,
        FloatObject,
        NameObject,
    )

    rgb = " ".join(f"{int(colour[k:k + 2], 16) / 255:.4f}" for k in (1, 3, 5))
    ops = [f"/GS0 gs {rgb} rg"]
    for k in range(0, len(quads), 8):
        q = [f"{v:.2f}" for v in quads[k:k + 8]]  # corners 1 2 4 3: round the quad
        ops.append(f"{q[0]} {q[1]} m {q[2]} {q[3]} l {q[6]} {q[7]} l {q[4]} {q[5]} l f")
    form = DecodedStreamObject()
    form.set_data("\n".join(ops).encode("ascii"))
    form.update({NameObject("/Type"): NameObject("/XObject"),
                 NameObject("/Subtype"): NameObject("/Form"),
                 NameObject("/BBox"): ArrayObject(FloatObject(v) for v in _rect(quads)),
                 NameObject("/Resources"): resources})
    # a stream is always an indirect object (pypdf would write it inline otherwise)
    return DictionaryObject({NameObject("/N"): writer._add_object(form)})


def _highlight(sent: Sentence, quads: list[float], colour: str, look):
    from pypdf.annotations import Highlight
    from pypdf.generic import ArrayObject, FloatObject, NameObject, TextStringObject

    annot = Highlight(rect=_rect(quads), quad_points=ArrayObject(FloatObject(v) for v in quads),
                      highlight_color=colour.lstrip("#"), printing=True)
    annot[NameObject("/AP")] = look
    annot[NameObject("/Contents")] = TextStringObject(_note(sent))
    annot[NameObject("/T")] = TextStringObject(AUTHOR)
    annot[NameObject("/NM")] = TextStringObject(f"coresc-{sent.sid}")
    return annot


def _note(sent: Sentence) -> str:
    """``Res (Result) 0.91; also Obs 0.06``: what a viewer shows on hover."""
    first, *rest = sent.pred
    note = f"{first.label} ({LABEL_NAMES.get(first.label, first.label)}) {first.score:.2f}"
    if rest:
        note += "; also " + ", ".join(f"{p.label} {p.score:.2f}" for p in rest)
    return note


def _legend(first_page, styles: dict[str, tuple[str, str]]):
    """A note in the first page's top left corner listing each label's colour."""
    from pypdf.annotations import Text
    from pypdf.generic import NameObject, TextStringObject

    box = first_page.mediabox
    left, top = float(box.left), float(box.top)
    lines = [f"{label} ({LABEL_NAMES.get(label, label)}): {colour}"
             for label, (colour, _) in styles.items()]
    text = "CoreSC labels highlighted by coresc, by colour:\n" + "\n".join(lines)
    note = Text(rect=(left + 4, top - 24, left + 24, top - 4), text=text)
    note[NameObject("/T")] = TextStringObject(AUTHOR)
    return note


def _summary(shown: list[Sentence]) -> str:
    """``Bac 120, Met 45, ...``: the highlighted sentences per label, most first."""
    counts = Counter(s.pred[0].label for s in shown)
    return ", ".join(f"{label} {n}" for label, n in counts.most_common())

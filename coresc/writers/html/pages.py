"""A PDF paper's own pages beside its text: each page as an image with a box over every
line fragment of every sentence (``Sentence.boxes``), in the sentence's label colour.

Boxes are placed in percent of the page as shown (``Paper.meta[PDF_PAGES]``), so they
stay on their words at any size the browser draws the image. The images are PNGs
rendered by PDFium (pypdfium2, a core dependency), one page at a time, so a long paper
never holds more than one page's bitmap: in a static page (``coresc view``, ``annotate
--to html``) as ``data:`` images, at most :data:`MAX_EMBEDDED_PAGES` of them (the pages
past it show their boxes on a blank page, with a note); in ``coresc review`` fetched from
the server as the browser scrolls to them (``loading="lazy"``).
"""

from __future__ import annotations

import base64
import struct
import threading
import zlib
from collections.abc import Callable

from ...document import PDF_PAGES, PDF_SOURCE, Paper, Sentence
from .styles import UNLABELLED, esc, primary

#: How much larger than its size in points a page is rendered (1 point = 1.5 pixels).
PAGE_SCALE = 1.5
#: The most pages a static page embeds as images (each is 100-300 kB of PNG).
MAX_EMBEDDED_PAGES = 30

#: PDFium is not thread-safe: one page is rendered at a time (the review server renders
#: pages in a thread pool).
_PDFIUM = threading.Lock()

__all__ = ["MAX_EMBEDDED_PAGES", "PAGE_SCALE", "box_percent", "has_pages", "page_count",
           "page_png", "pages_pane"]


def box_percent(box: tuple, size: tuple[float, float]) -> tuple[float, float, float, float]:
    """A box ``(x0, y0, x1, y1)`` in points, y upwards, on a page ``size`` (width,
    height) as CSS wants it: left, top, width and height in percent of the page (y
    downwards)."""
    x0, y0, x1, y1 = box
    w, h = size
    return (100 * x0 / w, 100 * (h - y1) / h, 100 * (x1 - x0) / w, 100 * (y1 - y0) / h)


def _css(box: tuple, size: tuple[float, float]) -> str:
    left, top, width, height = box_percent(box, size)
    return f"left:{left:.3f}%;top:{top:.3f}%;width:{width:.3f}%;height:{height:.3f}%"


def has_pages(paper: Paper) -> bool:
    """Whether the paper was read from a PDF's pages (its sentences carry boxes)."""
    return bool(paper.meta.get(PDF_PAGES)) and any(s.boxes for s in paper.sentences())


def page_count(paper: Paper) -> int:
    return len(paper.meta.get(PDF_PAGES) or [])


def page_png(pdf: bytes, index: int, scale: float = PAGE_SCALE) -> bytes:
    """Page ``index`` of the PDF ``pdf`` rendered as a PNG (as shown: ``/Rotate``
    applied). Raises IndexError for a page the PDF does not have."""
    import pypdfium2 as pdfium

    with _PDFIUM:
        doc = pdfium.PdfDocument(pdf)
        try:
            if not 0 <= index < len(doc):
                raise IndexError(f"page {index}: the PDF has {len(doc)} pages")
            page = doc[index]
            bitmap = page.render(scale=scale, rev_byteorder=True)
            rgb = bitmap.to_numpy()[:, :, :3].copy()
            bitmap.close()
            page.close()
        finally:
            doc.close()
    return png_bytes(rgb)


def png_bytes(rgb) -> bytes:
    """An RGB array (height, width, 3 bytes) as PNG (no Pillow needed: one IDAT chunk,
    every row unfiltered)."""
    import numpy as np

    h, w, _ = rgb.shape
    rows = np.concatenate([np.zeros((h, 1), np.uint8), rgb.reshape(h, 3 * w)], axis=1)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data)))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + chunk(b"IEND", b""))


def embedded_src(paper: Paper) -> Callable[[int], str]:
    """A page's image as a ``data:`` URL, rendered when asked for ('' past
    :data:`MAX_EMBEDDED_PAGES` or without the PDF's bytes)."""
    pdf = paper.meta.get(PDF_SOURCE)

    def src(index: int) -> str:
        if not isinstance(pdf, bytes) or index >= MAX_EMBEDDED_PAGES:
            return ""
        return "data:image/png;base64," + base64.b64encode(page_png(pdf, index)).decode()

    return src


def _boxes_by_page(sentences: list[Sentence], styles: dict[str, tuple[str, str]],
                   sizes: list) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for s in sentences:
        label = primary(s)
        colour = styles.get(label, UNLABELLED)[0]
        title = esc(f"{label or 'no label'} · sentence {s.sid}")
        for page, *box in s.boxes:
            if page < len(sizes):
                out.setdefault(page, []).append(
                    f'<span class="bx" data-sid="{esc(s.sid)}" data-label="{esc(label)}" '
                    f'title="{title}" style="{_css(tuple(box), sizes[page][:2])};'
                    f'--c:{colour}"></span>')
    return out


def pages_pane(paper: Paper, styles: dict[str, tuple[str, str]],
               src: Callable[[int], str]) -> str:
    """The pages as HTML: one ``div.pg`` per page holding its image (``src(i)``, lazily
    loaded; none when '') and its sentences' boxes (``span.bx`` with ``data-sid``)."""
    sizes = paper.meta.get(PDF_PAGES) or []
    boxes = _boxes_by_page(paper.sentences(), styles, sizes)
    out = ['<aside class="pdf-pages ui" id="pdf-pages" aria-label="the pages of the PDF">']
    for i, (w, h, *_) in enumerate(sizes):
        url = src(i)
        image = (f'<img src="{esc(url)}" loading="lazy" alt="page {i + 1}" '
                 f'width="{round(w * PAGE_SCALE)}" height="{round(h * PAGE_SCALE)}">'
                 if url else f'<p class="pg-none">page {i + 1}: not embedded (a static '
                             f'page shows the first {MAX_EMBEDDED_PAGES})</p>')
        out.append(f'<div class="pg" id="pg-{i}" data-page="{i}" '
                   f'style="aspect-ratio:{w:.2f}/{h:.2f}">{image}'
                   + "".join(boxes.get(i, ())) + "</div>")
    out.append("</aside>")
    return "\n".join(out)

"""A PDF's pages as pdf.js draws them, in headless Chromium, and whether its highlights
show: the helpers of ``pdf_highlights.py --pdfjs`` and of
``tests/test_pdf_highlights_pdfjs.py``.

pdf.js is never part of the repository: it is found at ``$CORESC_PDFJS`` or where
Debian's ``libjs-pdf`` puts it (a folder holding ``build/pdf.js`` and
``build/pdf.worker.js``). A small threaded HTTP server on the loopback address serves
pdf.js under ``/pdfjs/`` and one folder's files (the PDFs) under ``/``; a page of our
own renders one page of a PDF into a canvas twice, with its annotations drawn and
without them, and hands both back as PNG. A highlight shows when what lies under it
turns into what a multiply blend of its colour makes of it (white paper takes the
colour, a tinted box a darker tint, the ink stays black) and nothing else on the page
changes.
"""

from __future__ import annotations

import base64
import functools
import io
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

#: Where pdf.js is looked for when ``$CORESC_PDFJS`` is not set (Debian's libjs-pdf).
PDFJS_DIRS = (Path("/usr/share/javascript/pdf"), Path("/usr/share/nodejs/pdfjs-dist"))
#: How far (0-255, per channel) a pixel may be from the colour expected of it:
#: antialiasing and the canvas's colour rounding stay well inside.
TOLERANCE = 12
#: A highlight shows when at least this share of the pixels in its boxes that its
#: colour would change (not the ink: black stays black) took the blend.
SHOWN = 0.95

PAGE = """<!doctype html><meta charset="utf-8"><title>pdf.js</title><link rel="icon" href="data:,">
<script src="/pdfjs/build/pdf.js"></script>
<script>
pdfjsLib.GlobalWorkerOptions.workerSrc = "/pdfjs/build/pdf.worker.js";
const docs = {};
function open(url) {
  docs[url] = docs[url] || pdfjsLib.getDocument({url, cMapUrl: "/pdfjs/web/cmaps/",
    cMapPacked: true, standardFontDataUrl: "/pdfjs/web/standard_fonts/"}).promise;
  return docs[url];
}
async function draw(page, viewport, mode) {
  const canvas = document.createElement("canvas");
  canvas.width = Math.ceil(viewport.width);
  canvas.height = Math.ceil(viewport.height);
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";  // the paper: a canvas starts transparent
  context.fillRect(0, 0, canvas.width, canvas.height);
  await page.render({canvasContext: context, viewport, annotationMode: mode}).promise;
  return canvas.toDataURL("image/png");
}
async function drawPage(url, index, scale) {
  const doc = await open(url);
  const page = await doc.getPage(index + 1);
  const viewport = page.getViewport({scale});
  const mode = pdfjsLib.AnnotationMode;
  return {pages: doc.numPages, transform: viewport.transform,
          with: await draw(page, viewport, mode.ENABLE),
          without: await draw(page, viewport, mode.DISABLE)};
}
</script>"""

DRAW = """const done = arguments[arguments.length - 1];
drawPage(arguments[0], arguments[1], arguments[2]).then(done,
  (e) => done({error: String(e && e.message || e)}));"""


def pdfjs_root() -> Path | None:
    """The folder of pdf.js's ``build/``, or None when it is not installed."""
    named = os.environ.get("CORESC_PDFJS")
    for root in [Path(named)] if named else PDFJS_DIRS:
        if all((root / "build" / f).is_file() for f in ("pdf.js", "pdf.worker.js")):
            return root
    return None


class _Files(SimpleHTTPRequestHandler):
    """``/pdfjs/...`` from pdf.js's folder, the rest from the served folder; quiet."""

    def __init__(self, *args, pdfjs: Path, **kwargs) -> None:
        self.pdfjs = pdfjs
        super().__init__(*args, **kwargs)

    def translate_path(self, path: str) -> str:
        if path.startswith("/pdfjs/"):
            rest = super().translate_path(path[len("/pdfjs"):])
            return str(self.pdfjs / os.path.relpath(rest, self.directory))
        return super().translate_path(path)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base's name
        pass


@contextmanager
def serving(folder: Path, pdfjs: Path) -> Iterator[str]:
    """Serve ``folder`` and pdf.js on 127.0.0.1 (an ephemeral port) with our page as
    ``/pdfjs.html``; yields the base URL."""
    (folder / "pdfjs.html").write_text(PAGE, encoding="utf-8")
    handler = functools.partial(_Files, directory=str(folder), pdfjs=pdfjs)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def draw_page(browser, base: str, name: str, index: int, scale: float = 2.0) -> dict:
    """Page ``index`` of the served PDF ``name`` drawn by pdf.js: ``with`` and
    ``without`` its annotations (RGB arrays), ``transform`` (PDF points to pixels),
    ``pages``; or ``error``, pdf.js's message."""
    import numpy as np
    from PIL import Image

    if not browser.current_url.startswith(base):
        browser.get(f"{base}/pdfjs.html")
    browser.set_script_timeout(120)
    got = browser.execute_async_script(DRAW, f"{base}/{name}", index, scale)
    for key in ("with", "without"):
        if key in got:
            png = base64.b64decode(got[key].split(",", 1)[1])
            got[key] = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)
    return got


def pixel_box(transform: list[float], rect: tuple[float, ...], shape: tuple) -> tuple[int, ...]:
    """A rectangle in PDF points as (top, left, bottom, right) pixels of the canvas,
    clipped to it (the viewport's transform takes care of rotation and crop boxes)."""
    a, b, c, d, e, f = transform
    x0, y0, x1, y1 = rect
    xs, ys = [], []
    for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
        xs.append(a * x + c * y + e)
        ys.append(b * x + d * y + f)
    top, bottom = max(0, round(min(ys))), min(shape[0], round(max(ys)))
    left, right = max(0, round(min(xs))), min(shape[1], round(max(xs)))
    return top, left, bottom, right


def core(box: tuple[int, ...]) -> tuple[int, ...]:
    """The middle half of a box's height, one pixel in from its sides: away from the
    edges, where antialiasing blends and the next line's highlight may overlap."""
    top, left, bottom, right = box
    quarter = (bottom - top) // 4
    return top + quarter, left + 1, bottom - quarter, right - 1


def tint(drawn: dict, rect: tuple[float, ...], colour: tuple[float, ...]) -> tuple[int, int]:
    """Of the pixels in ``rect``'s core that ``colour`` (RGB in 0-1) changes when
    multiplied in, how many took the blend when the annotations were drawn; and how
    many it changes."""
    import numpy as np

    top, left, bottom, right = core(pixel_box(drawn["transform"], rect, drawn["with"].shape))
    if bottom <= top or right <= left:
        return 0, 0
    before = drawn["without"][top:bottom, left:right]
    after = drawn["with"][top:bottom, left:right]
    want = np.asarray(colour) * before  # a multiply blend over what was there
    visible = (np.abs(want - before) > TOLERANCE).any(axis=2)
    took = (np.abs(after - want) <= TOLERANCE).all(axis=2) & visible
    return int(took.sum()), int(visible.sum())


def changed_outside(drawn: dict, rects: list[tuple[float, ...]], margin: int = 3) -> int:
    """How many pixels the annotations changed outside ``rects`` (each widened by
    ``margin`` pixels, for antialiased edges)."""
    import numpy as np

    changed = (np.abs(drawn["with"] - drawn["without"]) > TOLERANCE).any(axis=2)
    for rect in rects:
        top, left, bottom, right = pixel_box(drawn["transform"], rect, changed.shape)
        changed[max(0, top - margin):bottom + margin, max(0, left - margin):right + margin] = False
    return int(changed.sum())


def shares(pages: list[dict], rects: dict, colours: dict) -> dict[str, float | None]:
    """Per highlight (``/NM``): the share of the pixels in its boxes that took the blend
    of ``colours[nm]`` (:func:`tint`), over the pages drawn (``pages[i]`` page ``i``, or
    None when not drawn); None for one whose boxes hold no pixel to tell by."""
    out: dict[str, float | None] = {}
    for nm, boxes in rects.items():
        took = seen = 0
        for page, rect in boxes:
            if page < len(pages) and pages[page] is not None:
                a, b = tint(pages[page], rect, colours[nm])
                took, seen = took + a, seen + b
        out[nm] = took / seen if seen else None
    return out


def overlapping(rects: dict) -> set[str]:
    """The highlights (``/NM``) one of whose boxes crosses another highlight's on its
    page, each box taken a quarter of its smaller side in from every edge (a line's
    height on an upright page, its width on a turned one: boxes that only touch do not
    cross): there the colours multiply into a third, and neither shows its own (two
    sentences that claim the same words)."""
    by_page: dict[int, list] = {}
    for nm, boxes in rects.items():
        for page, (x0, y0, x1, y1) in boxes:
            q = min(x1 - x0, y1 - y0) / 4
            by_page.setdefault(page, []).append((nm, x0 + q, y0 + q, x1 - q, y1 - q))
    out = set()
    for boxes in by_page.values():
        for i, (a, ax0, ay0, ax1, ay1) in enumerate(boxes):
            for b, bx0, by0, bx1, by1 in boxes[i + 1:]:
                if a != b and min(ax1, bx1) > max(ax0, bx0) and min(ay1, by1) > max(ay0, by0):
                    out |= {a, b}
    return out

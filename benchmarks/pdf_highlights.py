"""Highlights you can trust: of the sentences ``annotate --to pdf`` highlights, the share
whose highlight covers exactly their words, on the PDFs of ``pdf-pairs``; and the time
``--to pdf`` takes to write (the model and the reading excluded).

Each PDF is read by the embedded reader, labelled by the bundled model and written as a
highlighted PDF; its highlights are read back with pypdf (``/QuadPoints``, ``/NM``), and
the text under each sentence's quads (PDFium's characters of the written PDF whose
centre lies in one of them, in the quads' order) is compared with the sentence's text,
both normalised to letters and digits, casefolded (:func:`norm`). A labelled sentence
with no highlight counts as a miss.

With ``--pdfjs``, each highlighted PDF is then opened in pdf.js in headless Chromium
(``pdfjs_pages.py``; pdf.js from ``$CORESC_PDFJS`` or Debian's libjs-pdf) and its pages
(the first ``--pages N``, all by default) drawn with and without their annotations: per
PDF, the pages pdf.js drew without an error, the highlighted sentences whose boxes
show their colour (at least ``SHOWN`` of the pixels in them that the colour changes
took its multiply blend; one whose boxes hold no such pixel cannot tell and is counted
apart), how many of those not shown overlap another highlight (two sentences that claim
the same words: their colours multiply into a third), and the pixels the annotations
changed outside every box.

    python benchmarks/pdf_highlights.py [--data DIR] [--repeat 5] [-v] [--pdfjs [--pages N]]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from coresc.config import data_dir
from coresc.document import FORMULA_TEXT, Paper
from coresc.pipeline import annotate_paper, open_model
from coresc.readers import read_pdf
from coresc.readers.pdf.boxes import norm
from coresc.writers.pdf import render_pdf

#: The paper the write is timed on: 13 pages, two columns.
TIMED = "acl_2020.acl-main.207"


def _highlights(pdf: bytes) -> Iterator[tuple[int, dict]]:
    """Each coresc highlight (one with an ``/NM``) and its page's index, read with pypdf."""
    from pypdf import PdfReader

    for index, page in enumerate(PdfReader(io.BytesIO(pdf)).pages):
        for ref in page.get("/Annots") or ():
            annot = ref.get_object()
            if annot.get("/Subtype") == "/Highlight" and "/NM" in annot:
                yield index, annot


def highlight_rects(pdf: bytes) -> dict[str, list[tuple[int, tuple[float, ...]]]]:
    """Each coresc highlight's rectangles, by its ``/NM`` (``coresc-SID``): ``(page
    index, (x0, y0, x1, y1))`` per quadrilateral, read with pypdf."""
    found: dict[str, list] = {}
    for index, annot in _highlights(pdf):
        quads = [float(v) for v in annot["/QuadPoints"]]
        for k in range(0, len(quads), 8):
            xs, ys = quads[k:k + 8:2], quads[k + 1:k + 8:2]
            found.setdefault(str(annot["/NM"]), []).append(
                (index, (min(xs), min(ys), max(xs), max(ys))))
    return found


def highlight_colours(pdf: bytes) -> dict[str, tuple[float, ...]]:
    """Each coresc highlight's colour (``/C``, RGB in 0-1), by its ``/NM``."""
    return {str(annot["/NM"]): tuple(float(v) for v in annot["/C"])
            for _, annot in _highlights(pdf)}


def text_under(pdf: bytes, rects: list[tuple[int, tuple[float, ...]]]) -> str:
    """The characters of ``pdf`` whose centre lies in one of ``rects``, rectangle by
    rectangle, in the page's order (PDFium)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    out = []
    for index, (x0, y0, x1, y1) in rects:
        page = doc[index].get_textpage()
        for i in range(page.count_chars()):
            left, bottom, right, top = page.get_charbox(i)
            if x0 <= (left + right) / 2 <= x1 and y0 <= (bottom + top) / 2 <= y1:
                out.append(page.get_text_range(i, 1))
    doc.close()
    return "".join(out)


def matches(paper: Paper, pdf: bytes) -> tuple[int, int, list[str]]:
    """How many of the paper's labelled sentences the highlighted ``pdf`` covers exactly,
    of how many; the texts of those it does not."""
    rects = highlight_rects(pdf)
    labelled = [s for s in paper.sentences() if s.pred]
    missed = []
    for sent in labelled:
        under = norm(text_under(pdf, rects.get(f"coresc-{sent.sid}", [])))
        if under != norm(sent.text.replace(FORMULA_TEXT, " ")):
            missed.append(sent.text)
    return len(labelled) - len(missed), len(labelled), missed


def pdfjs_check(written: dict[str, bytes], pages: int = 0) -> None:
    """Print, per highlighted PDF, how pdf.js draws it (see the module's docstring)."""
    import shutil
    import tempfile

    from pdfjs_pages import pdfjs_root, serving
    from review_paint import driver

    folder = Path(tempfile.mkdtemp(prefix="coresc-pdfjs-"))
    browser = driver(str(folder / "profile"))
    print(f"{'pdf.js':40s} {'pages':>7s}  {'shown':>11s}  {'':6s}  overlap  unclear  "
          f"outside  s")
    try:
        with serving(folder, pdfjs_root()) as base:
            for name, pdf in written.items():
                (folder / f"{name}.pdf").write_bytes(pdf)
                t0 = time.perf_counter()
                row = _pdfjs_row(_draw_all(browser, base, f"{name}.pdf", pages), pdf)
                print(f"{name:40s} {row}  {time.perf_counter() - t0:.1f}")
    finally:
        browser.quit()
        shutil.rmtree(folder, ignore_errors=True)


def _pdfjs_row(drawn: list[dict | None], pdf: bytes) -> str:
    """Pages drawn, highlighted sentences shown of those that can tell, how many of those
    not shown overlap another highlight, those that cannot tell, pixels changed outside
    every box: of the pages pdf.js drew."""
    from pdfjs_pages import SHOWN, changed_outside, overlapping, shares

    rects = {nm: [b for b in boxes if b[0] < len(drawn)]
             for nm, boxes in highlight_rects(pdf).items()}
    rects = {nm: boxes for nm, boxes in rects.items() if boxes}
    got = shares(drawn, rects, highlight_colours(pdf))
    known = [v for v in got.values() if v is not None]
    shown = sum(v >= SHOWN for v in known)
    crossed = overlapping(rects)
    overlap = sum(nm in crossed for nm, v in got.items() if v is not None and v < SHOWN)
    outside = sum(changed_outside(page, [r for boxes in rects.values()
                                         for i, r in boxes if i == k])
                  for k, page in enumerate(drawn) if page is not None)
    ok = sum(page is not None for page in drawn)
    return (f"{ok:3d} / {len(drawn):<3d} {shown:4d} / {len(known):<4d} "
            f"{shown / max(len(known), 1):6.1%}  {overlap:7d}  {len(got) - len(known):7d}  "
            f"{outside:7d}")


def _draw_all(browser, base: str, name: str, pages: int) -> list[dict | None]:
    """The PDF's pages as pdf.js draws them (the first ``pages``, all when 0); None for
    a page it failed to draw (its message printed)."""
    from pdfjs_pages import draw_page

    first = draw_page(browser, base, name, 0)
    count = min(first.get("pages", 1), pages or 10**6)
    drawn = [first] + [draw_page(browser, base, name, k) for k in range(1, count)]
    for k, page in enumerate(drawn):
        if "error" in page:
            print(f"    {name} page {k + 1}: pdf.js: {page['error']}")
    return [None if "error" in page else page for page in drawn]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("-v", "--verbose", action="store_true", help="print the misses")
    ap.add_argument("--pdfjs", action="store_true", help="check the PDFs in pdf.js too")
    ap.add_argument("--pages", type=int, default=0, help="with --pdfjs: the first N pages")
    args = ap.parse_args(argv)
    folder = (args.data or data_dir()) / "pdf-pairs"
    model = open_model(None)
    total = good = 0
    written = {}
    for pair in sorted(p for p in folder.iterdir() if (p / "paper.pdf").is_file()):
        data = (pair / "paper.pdf").read_bytes()
        paper = annotate_paper(model, read_pdf(data, "paper.pdf"))
        out = written[pair.name] = render_pdf(paper)
        ok, n, missed = matches(paper, out)
        good, total = good + ok, total + n
        print(f"{pair.name:40s} {ok:4d} / {n:4d}  {ok / max(n, 1):6.1%}")
        for text in missed if args.verbose else ():
            print(f"    miss: {text[:110]}")
        if pair.name == TIMED:
            times = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                render_pdf(paper)
                times.append(time.perf_counter() - t0)
            timed = (pair.name, statistics.median(times), min(times))
    print(f"{'all':40s} {good:4d} / {total:4d}  {good / max(total, 1):6.1%}")
    if total:
        name, median, best = timed
        print(f"--to pdf write, {name}: median {median:.3f} s, best {best:.3f} s "
              f"(of {args.repeat})")
    if args.pdfjs:
        pdfjs_check(written, args.pages)
    return 0


if __name__ == "__main__":
    sys.exit(main())

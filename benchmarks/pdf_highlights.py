"""Highlights you can trust: of the sentences ``annotate --to pdf`` highlights, the share
whose highlight covers exactly their words, on the PDFs of ``pdf-pairs``; and the time
``--to pdf`` takes to write (the model and the reading excluded).

Each PDF is read by the embedded reader, labelled by the bundled model and written as a
highlighted PDF; its highlights are read back with pypdf (``/QuadPoints``, ``/NM``), and
the text under each sentence's quads (PDFium's characters of the written PDF whose
centre lies in one of them, in the quads' order) is compared with the sentence's text,
both normalised to letters and digits, casefolded (:func:`norm`). A labelled sentence
with no highlight counts as a miss.

    python benchmarks/pdf_highlights.py [--data DIR] [--repeat 5] [-v]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

from coresc.config import data_dir
from coresc.document import FORMULA_TEXT, Paper
from coresc.pipeline import annotate_paper, open_model
from coresc.readers import read_pdf
from coresc.readers.pdf.boxes import norm
from coresc.writers.pdf import render_pdf

#: The paper the write is timed on: 13 pages, two columns.
TIMED = "acl_2020.acl-main.207"


def highlight_rects(pdf: bytes) -> dict[str, list[tuple[int, tuple[float, ...]]]]:
    """Each coresc highlight's rectangles, by its ``/NM`` (``coresc-SID``): ``(page
    index, (x0, y0, x1, y1))`` per quadrilateral, read with pypdf."""
    from pypdf import PdfReader

    found: dict[str, list] = {}
    for index, page in enumerate(PdfReader(io.BytesIO(pdf)).pages):
        for ref in page.get("/Annots") or ():
            annot = ref.get_object()
            if annot.get("/Subtype") != "/Highlight" or "/NM" not in annot:
                continue
            quads = [float(v) for v in annot["/QuadPoints"]]
            for k in range(0, len(quads), 8):
                xs, ys = quads[k:k + 8:2], quads[k + 1:k + 8:2]
                found.setdefault(str(annot["/NM"]), []).append(
                    (index, (min(xs), min(ys), max(xs), max(ys))))
    return found


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("-v", "--verbose", action="store_true", help="print the misses")
    args = ap.parse_args(argv)
    folder = (args.data or data_dir()) / "pdf-pairs"
    model = open_model(None)
    total = good = 0
    for pair in sorted(p for p in folder.iterdir() if (p / "paper.pdf").is_file()):
        data = (pair / "paper.pdf").read_bytes()
        paper = annotate_paper(model, read_pdf(data, "paper.pdf"))
        out = render_pdf(paper)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())

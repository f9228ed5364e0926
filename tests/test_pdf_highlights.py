"""Sentences found on a PDF's pages (``Sentence.boxes``), GROBID's ``coords`` in TEI, and
``annotate --to pdf``: the PDF back with each sentence highlighted, read back with pypdf."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from helpers import need, run_cli

from coresc.document import PDF_PAGES, Prediction
from coresc.labels import LABELS
from coresc.readers import read_data
from coresc.readers.pdf.boxes import norm
from coresc.writers.html.styles import CORESC_STYLES

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from pdf_highlights import highlight_rects, matches, text_under  # noqa: E402

need("reportlab")

TOPICS = ("biofilm", "copper", "matrix", "stress", "culture", "membrane", "protein",
          "enzyme", "plasmid", "ribosome", "chromatin", "vesicle")


def _sentences(n: int, start: int) -> list[str]:
    """Distinct sentences of several lines each, with long words to break at line ends."""
    out = []
    for i in range(start, start + n):
        a, b = TOPICS[i % len(TOPICS)], TOPICS[(3 * i + 1) % len(TOPICS)]
        out.append(f"Experiment number {i} measured how the {a} responds to {b} "
                   f"concentrations under controlled laboratory circumstances over "
                   f"{i + 2} consecutive days.")
    return out


def _wrap(text: str, width: int) -> list[str]:
    lines, cur = [], ""
    for word in text.split():
        if len(cur) + len(word) + 1 > width and cur:
            lines.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}".strip()
    return [*lines, cur] if cur else lines


def _hyphenate(lines: list[str]) -> list[str]:
    """Break the first long word of every fourth line at its line end, with a hyphen."""
    for k in range(0, len(lines) - 1, 4):
        first, *rest = lines[k + 1].split(" ")
        if len(first) >= 8:
            lines[k] += f" {first[:4]}-"
            lines[k + 1] = " ".join([first[4:], *rest])
    return lines


def two_column_paper(link: bool = False, encrypt=None) -> bytes:
    """Two A4 pages of two columns under a title: a paragraph that runs from the left
    column into the right one and on to the next page mid-sentence, words hyphenated
    at line ends; ``link``: page 1 carries a link annotation of its own."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4, encrypt=encrypt)
    width, height = A4
    col = (width - 144 - 20) / 2
    lines = _hyphenate(_wrap(" ".join(_sentences(24, 1)), 46))
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, height - 80, "Sentences Found on the Pages of a Two Column Paper")
    c.setFont("Helvetica-Bold", 10)
    c.drawString(72, height - 120, "1 Introduction")
    per_column = 40
    slots = [(72, height - 140), (72 + col + 20, height - 140)] * 2
    for k, (x, y) in enumerate(slots):
        if k == 2:
            c.showPage()
        c.setFont("Times-Roman", 10)
        for line in lines[k * per_column:(k + 1) * per_column]:
            c.drawString(x, y, line)
            y -= 12.5
    if link:
        c.linkURL("https://example.org", (72, 40, 200, 60), relative=0)
    c.showPage()
    c.save()
    return buf.getvalue()


def labelled_pdf_paper(data: bytes | None = None):
    """The generated two-column, two-page paper (or the PDF ``data``) read, each sentence
    given a label in turn."""
    paper = read_data(data or two_column_paper(), "two.pdf")[0]
    for k, s in enumerate(paper.sentences()):
        s.pred = [Prediction(LABELS[k % len(LABELS)], 0.9)]
    return paper


def test_each_sentence_is_found_where_its_words_are():
    data = two_column_paper()
    paper = read_data(data, "two.pdf")[0]
    body = [s for s in paper.sentences() if s.text.startswith("Experiment number")]
    assert len(body) == 24
    assert all(s.boxes for s in paper.sentences())
    pages = {box[0] for s in body for box in s.boxes}
    columns = {box[1] < 250 for s in body for box in s.boxes}
    assert pages == {0, 1} and columns == {True, False}  # two pages, two columns
    spanning = [s for s in body if len({(b[0], b[1] < 250) for b in s.boxes}) > 1]
    assert spanning  # a sentence across the column break or the page break
    for sent in paper.sentences():
        rects = [(b[0], tuple(b[1:])) for b in sent.boxes]
        assert norm(text_under(data, rects)) == norm(sent.text), sent.text
    assert paper.meta[PDF_PAGES][0][:2] == pytest.approx([595.28, 841.89], abs=0.01)


def test_tei_output_gives_grobid_coords(tmp_path, capsys):
    src = tmp_path / "two.pdf"
    src.write_bytes(two_column_paper())
    rc, out, err = run_cli(["annotate", str(src), "--to", "xml", "-q"], capsys)
    assert rc == 0, err
    from lxml import etree

    root = etree.fromstring(out.encode())
    coords = [s.get("coords") for s in root.iter("{http://www.tei-c.org/ns/1.0}s")]
    assert coords and all(coords)
    title = coords[0].split(";")
    page, x, y, w, h = (float(v) for v in title[0].split(","))
    # the title is drawn on page 1 at x 72, its baseline 80 pt below the top
    assert page == 1 and x == pytest.approx(72, abs=2) and 62 < y < 80 and y + h > 78
    assert any(c.split(";")[-1].startswith("2,") for c in coords)  # on to page 2


def _annotate_pdf(src: Path, out: Path, capsys, *extra: str) -> tuple[int, str]:
    rc, _, err = run_cli(["annotate", str(src), "--to", "pdf", "-o", str(out), "-q", *extra],
                         capsys)
    return rc, err


def test_highlighted_pdf_reads_back_with_each_sentence_covered(tmp_path, capsys):
    need("pypdf")
    from pypdf import PdfReader

    data = two_column_paper(link=True)
    src, out = tmp_path / "two.pdf", tmp_path / "two.coresc.pdf"
    src.write_bytes(data)
    rc, err = _annotate_pdf(src, out, capsys)
    assert rc == 0, err
    written = out.read_bytes()
    assert written.startswith(data)  # an incremental update: the content as it was
    paper = read_data(data, "two.pdf")[0]
    rects = highlight_rects(written)
    assert len(rects) == len(paper)
    reader = PdfReader(io.BytesIO(written))
    annots = [a.get_object() for page in reader.pages for a in page.get("/Annots") or ()]
    assert any(a["/Subtype"] == "/Link" for a in annots)  # the PDF's own annotation kept
    for annot in (a for a in annots if a["/Subtype"] == "/Highlight"):
        label = str(annot["/Contents"]).split(" ")[0]
        colour = CORESC_STYLES[label][0]
        want = [int(colour[k:k + 2], 16) / 255 for k in (1, 3, 5)]
        assert [float(v) for v in annot["/C"]] == pytest.approx(want, abs=0.01)
    notes = [a for a in annots if a["/Subtype"] == "/Text"]
    assert len(notes) == 1 and "CoreSC labels" in notes[0]["/Contents"]  # the legend
    assert "/CoreSCLabels" in reader.metadata
    # the text under each sentence's quads is the sentence (its own reading labels it)
    from coresc.pipeline import annotate_paper, open_model

    labelled = annotate_paper(open_model(None), paper)
    good, total, missed = matches(labelled, written)
    assert good == total == len(paper), missed


def test_min_score_and_labels_choose_what_is_highlighted(tmp_path, capsys):
    need("pypdf")
    src = tmp_path / "two.pdf"
    src.write_bytes(two_column_paper())
    rc, err = _annotate_pdf(src, tmp_path / "all.pdf", capsys)
    assert rc == 0, err
    every = highlight_rects((tmp_path / "all.pdf").read_bytes())
    rc, err = _annotate_pdf(src, tmp_path / "sure.pdf", capsys, "--min-score", "0.99")
    assert rc == 0, err
    assert len(highlight_rects((tmp_path / "sure.pdf").read_bytes())) < len(every)
    rc, err = _annotate_pdf(src, tmp_path / "some.pdf", capsys, "--labels", "Hyp,Goa,Res")
    assert rc == 0, err
    from pypdf import PdfReader

    notes = [str(a.get_object()["/Contents"]).split(" ")[0]
             for page in PdfReader(tmp_path / "some.pdf").pages
             for a in page.get("/Annots") or () if a.get_object()["/Subtype"] == "/Highlight"]
    assert set(notes) <= {"Hyp", "Goa", "Res"} and len(notes) < len(every)


@pytest.mark.parametrize("args, problem", [
    (["--labels", "Hyp,Nope"], "give CoreSC labels, comma-separated"),
    (["--labels", "Hyp", "--to", "jsonl"], "--labels chooses the sentences --to pdf"),
], ids=["unknown-label", "not-pdf"])
def test_bad_labels_are_refused_in_one_line(tmp_path, capsys, args, problem):
    src = tmp_path / "two.pdf"
    src.write_bytes(two_column_paper())
    to = [] if "--to" in args else ["--to", "pdf"]
    rc, _, err = run_cli(["annotate", str(src), *to, "-o", str(tmp_path / "out"), *args],
                         capsys)
    assert rc == 2 and problem in err and len(err.strip().splitlines()) == 1, err


def test_pdf_that_forbids_annotations_is_refused_in_one_line(tmp_path, capsys):
    need("pypdf")
    from reportlab.lib.pdfencrypt import StandardEncryption

    locked = StandardEncryption("", "owner", canAnnotate=0)
    src, out = tmp_path / "locked.pdf", tmp_path / "locked.coresc.pdf"
    src.write_bytes(two_column_paper(encrypt=locked))
    rc, err = _annotate_pdf(src, out, capsys)
    assert rc != 0
    lines = [ln for ln in err.splitlines() if "error" in ln]
    assert len(lines) == 1 and "forbid adding annotations" in lines[0], err
    assert not out.exists()


def test_pdf_output_of_a_paper_not_read_from_a_pdf_is_refused(tmp_path, capsys):
    need("pypdf")
    src = tmp_path / "paper.txt"
    src.write_text("Introduction\n\nWe measured the growth of the cells over two days.\n")
    rc, err = _annotate_pdf(src, tmp_path / "paper.pdf", capsys)
    assert rc != 0 and "needs a paper read from a PDF" in err
    assert not (tmp_path / "paper.pdf").exists()


def test_without_pypdf_one_line_names_the_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pypdf", None)
    monkeypatch.setattr("coresc.extras._importable", lambda module: module != "pypdf")
    src, out = tmp_path / "two.pdf", tmp_path / "two.coresc.pdf"
    src.write_bytes(two_column_paper())
    rc, err = _annotate_pdf(src, out, capsys)
    lines = err.strip().splitlines()
    assert rc != 0 and len(lines) == 1 and "pip install 'coresc[pdf]'" in lines[0], err
    assert not out.exists()


def recoloured(pdf: bytes, drop_appearance: bool = False) -> bytes:
    """``pdf`` with every highlight's ``/C`` turned blue (and its ``/AP`` dropped): a
    viewer that still shows the label colours draws the appearance stream."""
    from pypdf import PdfWriter
    from pypdf.generic import ArrayObject, FloatObject, NameObject

    writer = PdfWriter(io.BytesIO(pdf))
    for page in writer.pages:
        for ref in page.get("/Annots") or ():
            annot = ref.get_object()
            if annot["/Subtype"] == "/Highlight":
                annot[NameObject("/C")] = ArrayObject(FloatObject(v) for v in (0, 0, 1))
                if drop_appearance:
                    annot.pop("/AP", None)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_each_highlight_carries_its_appearance():
    need("pypdf")
    from pypdf import PdfReader

    from coresc.writers.pdf import render_pdf

    written = render_pdf(labelled_pdf_paper())
    annots = [a.get_object() for page in PdfReader(io.BytesIO(written)).pages
              for a in page.get("/Annots") or ()]
    highlights = [a for a in annots if a["/Subtype"] == "/Highlight"]
    assert highlights
    for annot in highlights:
        form = annot["/AP"]["/N"].get_object()
        assert form["/Subtype"] == "/Form"
        assert [float(v) for v in form["/BBox"]] == [float(v) for v in annot["/Rect"]]
        state = form["/Resources"]["/ExtGState"]["/GS0"].get_object()
        assert state["/BM"] == "/Multiply"  # the ink stays black under the colour
        ops = form.get_data().decode()
        colour = " ".join(f"{float(v):.4f}" for v in annot["/C"])
        assert ops.startswith(f"/GS0 gs {colour} rg")
        assert ops.count(" f") == len(annot["/QuadPoints"]) // 8  # one fill per quad


def _pixels_of(image, colour: str) -> int:
    import numpy as np

    rgb = [int(colour[k:k + 2], 16) for k in (1, 3, 5)]
    return int((np.abs(np.asarray(image, dtype=int) - rgb) <= 12).all(axis=2).sum())


def test_pdfium_draws_the_appearance_not_its_own():
    pdfium = need("pypdfium2")
    need("PIL")  # the rendered page as an image (Pillow comes with matplotlib)
    from coresc.writers.pdf import render_pdf

    title = CORESC_STYLES[LABELS[0]][0]  # the first sentence, the title, has the first label
    written = render_pdf(labelled_pdf_paper())
    shown = {}
    for name, pdf in (("ours", recoloured(written)), ("none", recoloured(written, True))):
        page = pdfium.PdfDocument(pdf)[0]
        image = page.render(scale=2, draw_annots=True).to_pil().convert("RGB")
        shown[name] = (_pixels_of(image, title), _pixels_of(image, "#0000FF"))
    assert shown["ours"][0] > 5000 and shown["ours"][1] == 0
    assert shown["none"][0] == 0 and shown["none"][1] > 5000  # /C, had /AP been missing


def test_pdfjs_measure_counts_the_blend_on_any_paper_and_finds_overlaps():
    np = need("numpy")
    from pdfjs_pages import overlapping, tint

    # a 40 x 40 page: white paper left, a pink box right, a black line of ink across
    without = np.full((40, 40, 3), 255, dtype=np.int16)
    without[:, 20:] = (243, 207, 193)
    without[18:22, :] = 0
    colour = (0.5, 1.0, 0.5)
    lit = without.copy()
    lit[8:32, 4:36] = (np.asarray(colour) * without[8:32, 4:36]).round()
    drawn = {"with": lit, "without": without, "transform": [1, 0, 0, 1, 0, 0]}
    took, seen = tint(drawn, (4, 8, 36, 32), colour)
    assert took == seen and seen == (36 - 4 - 2) * 12 - 30 * 4  # the ink cannot tell
    assert tint(drawn, (4, 8, 36, 32), (1.0, 0.5, 0.5))[0] == 0  # another colour
    assert tint({**drawn, "with": without}, (4, 8, 36, 32), colour)[0] == 0  # not drawn
    rects = {"a": [(0, (0, 0, 10, 10))], "b": [(0, (4, 2, 20, 12))],
             "c": [(0, (0, 9, 10, 19))], "d": [(1, (0, 0, 10, 10))]}
    assert overlapping(rects) == {"a", "b"}  # c only touches a's edge; d is on page 2

"""``annotate --to pdf``'s highlights as pdf.js draws them in headless Chromium: each
sentence's box takes its label's colour on the rendered page, nothing else changes, and
pdf.js draws the appearance stream the writer gives it (the ``browser`` fixture of
conftest.py skips without Chromium; these tests skip without pdf.js, found at
``$CORESC_PDFJS`` or where Debian's libjs-pdf installs it)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from helpers import console_errors, need, run_cli
from test_pdf_highlights import labelled_pdf_paper, recoloured, two_column_paper

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from pdf_highlights import highlight_colours, highlight_rects, matches  # noqa: E402
from pdfjs_pages import (  # noqa: E402
    SHOWN,
    changed_outside,
    draw_page,
    pdfjs_root,
    serving,
    shares,
)

need("reportlab")
need("pypdf")
need("PIL")
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def pdfjs():
    root = pdfjs_root()
    if root is None:
        message = "needs pdf.js: apt-get install libjs-pdf, or CORESC_PDFJS=its folder"
        if os.environ.get("CI"):
            pytest.fail(f"{message} (CI installs it: see .ci/run)", pytrace=False)
        pytest.skip(message)
    return root


@pytest.fixture(scope="module")
def highlighted() -> bytes:
    """The generated two-column paper highlighted, each sentence given a label in turn
    (so every label's colour is on the pages)."""
    from coresc.writers.pdf import render_pdf

    return render_pdf(labelled_pdf_paper())


def drawn_pages(browser, pdfjs: Path, folder: Path, pdfs: dict[str, bytes]) -> dict:
    """Each PDF's pages as pdf.js draws them, by name and page index."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in pdfs.items():
        (folder / name).write_bytes(data)
    browser.get_log("browser")
    out: dict = {}
    with serving(folder, pdfjs) as base:
        for name in pdfs:
            first = draw_page(browser, base, name, 0)
            assert "error" not in first, first
            out[name] = [first] + [draw_page(browser, base, name, k)
                                   for k in range(1, first["pages"])]
    assert console_errors(browser.get_log("browser")) == []
    return out


def tinted(pages: list[dict], rects: dict, colours: dict) -> dict[str, float]:
    """Per highlight: the share of its boxes' pixels that took ``colours[nm]``'s blend."""
    return {nm: share or 0.0 for nm, share in shares(pages, rects, colours).items()}


def test_pdfjs_draws_each_sentence_in_its_label_colour(browser, pdfjs, highlighted, tmp_path):
    plain = two_column_paper()
    pages = drawn_pages(browser, pdfjs, tmp_path, {"lit.pdf": highlighted, "plain.pdf": plain})
    rects, colours = highlight_rects(highlighted), highlight_colours(highlighted)
    assert len(rects) == len(labelled_pdf_paper())
    assert len(set(colours.values())) == 11  # every label's colour is on the pages
    got = tinted(pages["lit.pdf"], rects, colours)
    assert min(got.values()) > SHOWN, sorted(got.items(), key=lambda kv: kv[1])[:3]
    for page in pages["lit.pdf"]:  # and nothing but the sentences' boxes changed
        assert changed_outside(page, [r for boxes in rects.values() for _, r in boxes]) == 0
    # the same measure on the PDF without its highlights finds no colour
    assert max(tinted(pages["plain.pdf"], rects, colours).values()) == 0


def test_pdfjs_draws_the_writers_appearance(browser, pdfjs, highlighted, tmp_path):
    # /C turned blue: pdf.js would fill the quads in blue had it made its own /AP
    pdfs = {"ours.pdf": recoloured(highlighted), "own.pdf": recoloured(highlighted, True)}
    pages = drawn_pages(browser, pdfjs, tmp_path, pdfs)
    rects, colours = highlight_rects(highlighted), highlight_colours(highlighted)
    assert min(tinted(pages["ours.pdf"], rects, colours).values()) > SHOWN
    assert max(tinted(pages["own.pdf"], rects, colours).values()) == 0
    blue = dict.fromkeys(colours, (0.0, 0.0, 1.0))
    assert min(tinted(pages["own.pdf"], rects, blue).values()) > SHOWN


def test_annotate_to_pdf_opens_in_pdfjs(browser, pdfjs, tmp_path, capsys):
    src, out = tmp_path / "two.pdf", tmp_path / "two.coresc.pdf"
    src.write_bytes(two_column_paper())
    rc, _, err = run_cli(["annotate", str(src), "--to", "pdf", "-o", str(out), "-q"], capsys)
    assert rc == 0, err
    written = out.read_bytes()
    pages = drawn_pages(browser, pdfjs, tmp_path / "served", {"two.pdf": written})["two.pdf"]
    assert len(pages) == 2
    rects, colours = highlight_rects(written), highlight_colours(written)
    assert min(tinted(pages, rects, colours).values()) > SHOWN


@pytest.mark.parametrize("rotate", [90, 270])
def test_pdfjs_draws_highlights_on_turned_pages(browser, pdfjs, tmp_path, rotate):
    from test_pdf_layouts import turned

    from coresc.writers.pdf import render_pdf

    paper = labelled_pdf_paper(turned(rotate))
    written = render_pdf(paper)
    good, total, missed = matches(paper, written)  # the quads are where the words are
    assert good == total, missed
    pages = drawn_pages(browser, pdfjs, tmp_path, {"turned.pdf": written})["turned.pdf"]
    assert pages[0]["transform"][0] == 0  # pdf.js shows the page turned
    rects, colours = highlight_rects(written), highlight_colours(written)
    assert len(rects) > 10 and min(tinted(pages, rects, colours).values()) > SHOWN
    assert changed_outside(pages[0], [r for boxes in rects.values() for _, r in boxes]) == 0

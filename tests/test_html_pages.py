"""A PDF paper's own pages in the HTML view and in coresc review: the page images, the
sentence boxes over them in their label colours (placed in percent of the page), and the
pages served by the review server one at a time."""

from __future__ import annotations

import struct
import zlib

import pytest
from helpers import need, run_cli
from test_pdf_highlights import labelled_pdf_paper, two_column_paper

from coresc.document import PDF_PAGES, PDF_SOURCE
from coresc.writers.html import pages as pages_module
from coresc.writers.html import render_paper
from coresc.writers.html.pages import PAGE_SCALE, box_percent, page_png
from coresc.writers.html.styles import CORESC_STYLES

need("reportlab")


def test_box_percent_turns_pdf_points_into_css_percent():
    # y upwards in the PDF, downwards in CSS: the box's top is its y1
    assert box_percent((100, 600, 300, 700), (400, 800)) == pytest.approx(
        (25.0, 12.5, 50.0, 12.5))
    assert box_percent((0, 0, 400, 800), (400, 800)) == pytest.approx((0, 0, 100, 100))
    left, top, width, height = box_percent((72, 760, 200, 772), (595.28, 841.89))
    assert top == pytest.approx(100 * (841.89 - 772) / 841.89)
    assert left + width <= 100 and top + height <= 100


def png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and png[12:16] == b"IHDR"
    return struct.unpack(">II", png[16:24])


def test_page_png_is_a_valid_png_of_the_page_at_the_view_scale():
    png = page_png(two_column_paper(), 1)
    w, h = png_size(png)
    assert (w, h) == (round(595.28 * PAGE_SCALE), round(841.89 * PAGE_SCALE))
    # the IDAT inflates to one filter byte and w RGB pixels per row, with dark ink in it
    start = png.index(b"IDAT") + 4
    raw = zlib.decompress(png[start:start + struct.unpack(">I", png[start - 8:start - 4])[0]])
    assert len(raw) == h * (1 + 3 * w) and min(raw[1:]) < 80
    with pytest.raises(IndexError):
        page_png(two_column_paper(), 2)


def test_view_of_a_pdf_paper_has_its_pages_and_a_box_per_line_fragment():
    paper = labelled_pdf_paper()
    html = render_paper(paper)
    assert 'class="with-pages"' in html and html.count('class="pg"') == 2
    assert html.count('<img src="data:image/png;base64,') == 2
    assert html.count('class="bx"') == sum(len(s.boxes) for s in paper.sentences())
    first = paper.sentences()[3]
    colour = CORESC_STYLES[first.pred[0].label][0]
    assert f'class="bx" data-sid="{first.sid}" data-label="{first.pred[0].label}"' in html
    assert f"--c:{colour}" in html


def test_pages_past_the_cap_are_not_embedded(monkeypatch):
    monkeypatch.setattr(pages_module, "MAX_EMBEDDED_PAGES", 1)
    html = render_paper(labelled_pdf_paper())
    assert html.count("<img ") == 1 and html.count('class="pg-none"') == 1
    assert html.count('class="pg"') == 2  # page 2's boxes are still drawn


def test_a_paper_not_read_from_a_pdf_has_no_pages_pane(fixtures):
    from coresc.readers import read_file

    html = render_paper(read_file(fixtures / "jats_small.xml")[0])
    assert 'id="pdf-pages"' not in html and 'class="with-pages"' not in html


def test_coresc_view_of_a_pdf_shows_its_pages(tmp_path, capsys):
    pdf, out = tmp_path / "two.pdf", tmp_path / "two.html"
    pdf.write_bytes(two_column_paper())
    rc, _, err = run_cli(["view", str(pdf), "-o", str(out)], capsys)
    assert rc == 0, err
    html = out.read_text(encoding="utf-8")
    assert html.count('class="pg"') == 2 and html.count("data:image/png;base64,") == 2
    assert html.count('class="bx"') >= 25  # every sentence boxed (unlabelled: uncoloured)


def test_review_serves_pages_one_at_a_time(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient
    from helpers import never, store_for

    from coresc.review.adapt import Adapter
    from coresc.review.app import Settings, create_app

    paper = labelled_pdf_paper()
    store = store_for(tmp_path, papers=[paper])
    app = create_app(store, Adapter(store, "fast", tmp_path / "m", never), Settings())
    c = TestClient(app, base_url="http://127.0.0.1:8000")
    page = c.get("/paper/0").text
    assert 'src="0/page/1.png" loading="lazy"' in page and "data:image/png" not in page
    assert "img-src data: 'self'" in page
    assert page.count('class="bx"') == sum(len(s.boxes) for s in paper.sentences())
    r = c.get("/paper/0/page/1.png")
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    assert png_size(r.content)[0] == round(595.28 * PAGE_SCALE)
    assert c.get("/paper/0/page/2.png").status_code == 404
    assert c.get("/paper/0/page/x.png").status_code == 404
    del paper.meta[PDF_SOURCE]
    assert c.get("/paper/0/page/0.png").status_code == 404
    assert PDF_PAGES in paper.meta

"""A PDF paper's pages in headless Chromium: the boxes are drawn where PDFium finds the
words on the rendered page, and sentence and box select each other, in the static view
and in coresc review (the ``browser`` fixture of conftest.py skips without Chromium)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import console_errors, need, wait_for
from test_html_pages import labelled_pdf_paper
from test_pdf_highlights import two_column_paper

from coresc.writers.html import render_paper

need("reportlab")
pytestmark = pytest.mark.browser

RECT = "return arguments[0].getBoundingClientRect().toJSON();"


def words_rect(text: str) -> tuple[int, tuple[float, float, float, float]]:
    """Where PDFium's own text search finds ``text`` on the generated paper: its page and
    its first character's box (left, bottom, right, top) in points."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(two_column_paper())
    for index in range(len(doc)):
        textpage = doc[index].get_textpage()
        found = textpage.search(text).get_next()
        if found:
            return index, textpage.get_charbox(found[0])
    raise AssertionError(f"{text!r} not on the pages")


def on_screen(browser, page: int, rect: tuple, size: tuple) -> tuple[float, ...]:
    """A rectangle in PDF points on ``page`` as (left, top, right, bottom) on screen,
    from where the browser drew that page's image."""
    img = browser.find_element("css selector", f"#pg-{page} img")
    r = browser.execute_script(RECT, img)
    (x0, b, x1, t), (w, h) = rect, size
    sx, sy = r["width"] / w, r["height"] / h
    return (r["left"] + x0 * sx, r["top"] + (h - t) * sy, r["left"] + x1 * sx,
            r["top"] + (h - b) * sy)


def overlaps(a: dict, b: tuple) -> bool:
    return (min(a["right"], b[2]) - max(a["left"], b[0]) > 0
            and min(a["bottom"], b[3]) - max(a["top"], b[1]) > 0)


def sentence_starting(paper, words: str):
    return next(s for s in paper.sentences() if s.text.startswith(words))


@pytest.fixture(scope="module")
def view(tmp_path_factory):
    paper = labelled_pdf_paper()
    path = tmp_path_factory.mktemp("pages") / "two.html"
    path.write_text(render_paper(paper), encoding="utf-8")
    return paper, path


def test_boxes_are_drawn_where_the_words_are(browser, view):
    paper, path = view
    browser.set_window_size(1400, 900)
    browser.get_log("browser")
    browser.get(path.resolve().as_uri())
    assert console_errors(browser.get_log("browser")) == []
    for words in ("Experiment number 10 ", "Experiment number 20 "):
        sent = sentence_starting(paper, words.strip())
        page, char = words_rect(words)
        box = browser.find_element("css selector", f'.bx[data-sid="{sent.sid}"]')
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", box)
        script = f"return document.querySelector('#pg-{page} img').complete;"
        wait_for(lambda: browser.execute_script(script))  # noqa: B023
        assert box.find_element("xpath", "..").get_attribute("data-page") == str(page)
        size = paper.meta["pdf_pages"][page][:2]
        assert overlaps(browser.execute_script(RECT, box), on_screen(browser, page, char, size))
        label = sent.pred[0].label
        assert box.get_attribute("data-label") == label


def test_sentence_and_box_select_each_other(browser, view):
    paper, path = view
    browser.set_window_size(1400, 600)
    browser.get(path.resolve().as_uri())
    pane = browser.find_element("id", "pdf-pages")
    sent = sentence_starting(paper, "Experiment number 24")  # last: out of the pane's view
    el = browser.find_element("css selector", f'.s[data-sid="{sent.sid}"]')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", el)
    assert pane.get_property("scrollTop") == 0
    el.click()
    lit = browser.find_elements("css selector", ".bx.on")
    assert lit and {b.get_attribute("data-sid") for b in lit} == {sent.sid}
    assert pane.get_property("scrollTop") > 0  # scrolled down to it
    shown, seen = browser.execute_script(RECT, pane), browser.execute_script(RECT, lit[0])
    assert shown["top"] <= seen["top"] and seen["bottom"] <= shown["bottom"]
    # the reverse: a box clicked selects and shows its sentence
    other = sentence_starting(paper, "Experiment number 2 ")
    box = browser.find_element("css selector", f'.bx[data-sid="{other.sid}"]')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", box)
    box.click()
    chosen = browser.find_element("css selector", ".s.sel")
    assert chosen.get_attribute("data-sid") == other.sid
    r = browser.execute_script(RECT, chosen)
    assert 0 <= r["top"] and r["bottom"] <= browser.execute_script("return innerHeight;")


@pytest.mark.serve
@pytest.mark.slow
def test_review_shows_the_current_sentence_on_its_served_page(browser, tmp_path):
    pytest.importorskip("fastapi")
    from coresc.serve.launch import Server

    pdf = tmp_path / "two.pdf"
    pdf.write_bytes(two_column_paper())
    with Server([str(pdf), "--annotator", "alice", "-o", str(tmp_path / "out")],
                verb="review") as server:
        browser.set_window_size(1600, 900)
        browser.get_log("browser")
        browser.get(server.url + "paper/0")
        body = browser.find_element("tag name", "body")
        wait_for(lambda: body.get_attribute("data-ready") == "1")
        img = browser.find_element("css selector", "#pg-0 img")
        assert wait_for(lambda: browser.execute_script(
            "return arguments[0].complete && arguments[0].naturalWidth;", img)) > 800
        body.send_keys("j")  # the next sentence is current: outlined on its page
        cur = wait_for(lambda: browser.find_elements("css selector", ".s.rv-cur"))[0]
        lit = wait_for(lambda: browser.find_elements("css selector", ".bx.on"))
        assert {b.get_attribute("data-sid") for b in lit} == {cur.get_attribute("data-sid")}
        body.send_keys("h")  # a label set: its boxes take its colour at once
        wait_for(lambda: {b.get_attribute("data-label") for b in lit} == {"Hyp"})
        colour = browser.execute_script(
            "return getComputedStyle(arguments[0]).backgroundColor;", lit[0])
        assert colour == "rgb(255, 170, 187)"  # Hyp's #FFAABB
        # a box clicked makes its sentence the current one
        box = browser.find_elements("css selector", "#pg-1 .bx")[-1]
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", box)
        box.click()
        wait_for(lambda: browser.find_element("css selector", ".s.rv-cur")
                 .get_attribute("data-sid") == box.get_attribute("data-sid"))
        assert console_errors(browser.get_log("browser")) == []
    assert Path(tmp_path / "out").exists()

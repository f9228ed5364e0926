"""HTML view in headless Chromium (Debian packages chromium + chromium-driver, selenium).

The ``browser`` fixture (conftest.py) skips when Chromium or its driver is missing, except
in CI (``CI`` set), where a missing browser fails the tests: CI installs it (``.ci/run``).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from helpers import EVIL, console_errors, html_paper

from coresc.labels import LABELS
from coresc.readers import read_file
from coresc.writers.html import render_corpus, render_paper

pytestmark = pytest.mark.browser


def load(browser, path: Path) -> list[dict]:
    """Open a local page; return the console messages logged while loading (errors etc.)."""
    browser.get_log("browser")  # drop earlier pages' messages
    browser.get(path.resolve().as_uri())
    return browser.get_log("browser")


def displayed_labels(browser) -> list[str]:
    return browser.execute_script(
        "return Array.from(document.querySelectorAll('.s'))"
        ".filter(e => e.offsetParent !== null).map(e => e.dataset.label);")


def distinct_colours(png: bytes) -> int:
    from PIL import Image  # Pillow comes with matplotlib (test extra)

    img = Image.open(io.BytesIO(png)).convert("RGB")
    colours = img.getcolors(maxcolors=1 << 20)
    return len(colours) if colours is not None else 1 << 20


@pytest.fixture(scope="module")
def fixture_page(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("html") / "paper.html"
    path.write_text(render_paper(html_paper()), encoding="utf-8")
    return path


def test_page_loads_without_console_errors(browser, fixture_page):
    log = load(browser, fixture_page)
    assert console_errors(log) == []
    assert browser.title == "Cats & <dogs> in catalysis"


def test_sentence_count_and_legend(browser, fixture_page):
    load(browser, fixture_page)
    sentences = browser.find_elements("css selector", ".s")
    assert len(sentences) == len(html_paper()) == 8
    legend = browser.find_elements("css selector", "#legend button[data-label]")
    assert [b.get_attribute("data-label") for b in legend] == list(LABELS)
    assert all(b.is_displayed() for b in legend)
    status = browser.find_element("id", "filter-status").text
    assert status == "showing all 8 sentences"


def test_filter_click_hides_other_labels(browser, fixture_page):
    load(browser, fixture_page)
    assert len(displayed_labels(browser)) == 8
    browser.find_element("css selector", '#legend button[data-label="Met"]').click()
    assert displayed_labels(browser) == ["Met", "Met"]
    browser.find_element("css selector", '#legend button[data-label="Exp"]').click()
    assert displayed_labels(browser) == ["Met", "Exp", "Met"]
    assert browser.find_element("id", "filter-status").text == "showing 3 of 8 sentences"
    browser.find_element("id", "only-mismatches").click()
    assert displayed_labels(browser) == ["Met"]  # sentence 3: Met predicted, Goa gold
    browser.find_element("id", "show-all").click()
    assert len(displayed_labels(browser)) == 8


def test_paper_text_runs_nothing(browser, fixture_page):
    log = load(browser, fixture_page)
    assert console_errors(log) == []
    assert browser.execute_script("return window.__pwned === undefined")
    evil = browser.find_element("css selector", '.s[data-sid="5"]')
    assert EVIL in evil.text
    assert browser.find_elements("css selector", "main img") == []


def test_screenshot_is_not_blank(browser, fixture_page):
    load(browser, fixture_page)
    png = browser.get_screenshot_as_png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    # white page with a few colours would be ~10; text, 11 label colours, antialiasing: more
    assert distinct_colours(png) > 50


def test_corpus_view_loads(browser, tmp_path):
    path = tmp_path / "summary.html"
    path.write_text(render_corpus([html_paper("p1"), html_paper("p2")]), encoding="utf-8")
    assert console_errors(load(browser, path)) == []
    cells = browser.find_elements("css selector", "#confusion g")
    assert len(cells) > 0 and cells[0].is_displayed()
    assert len(browser.find_elements("css selector", "tr[data-paper]")) == 2


@pytest.mark.slow
@pytest.mark.parametrize("relpath", [
    "art-corpus/ann1/b303919f_mode2.xml",  # ART: gold, one label per sentence
    "cra-corpus/10357790_mode2_annotated.xml",  # CRA: gold, some sentences with two labels
])
def test_real_papers(browser, shared_data, tmp_path, relpath):
    paper = read_file(shared_data / relpath)[0]
    path = tmp_path / f"{paper.id}.html"
    path.write_text(render_paper(paper), encoding="utf-8")
    assert console_errors(load(browser, path)) == []
    els = browser.find_elements("css selector", ".s")
    assert len(els) == len(paper) > 50
    labels = browser.execute_script(
        "return Array.from(document.querySelectorAll('.s')).map(e => e.dataset.label);")
    assert labels == [s.gold_codes[0] if s.gold else "" for s in paper.sentences()]
    commonest = max(set(labels), key=labels.count)
    browser.find_element("css selector", f'#legend button[data-label="{commonest}"]').click()
    assert displayed_labels(browser) == [commonest] * labels.count(commonest)
    browser.find_element("id", "show-all").click()
    assert distinct_colours(browser.get_screenshot_as_png()) > 50

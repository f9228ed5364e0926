"""HTML view in headless Chromium (Debian packages chromium + chromium-driver, selenium).

Skipped when Chromium or its driver is missing, except in CI (``CI`` set), where a
missing browser fails the tests: CI installs it (``.ci/run``).
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from test_html import EVIL, make_paper

from coresc.labels import LABELS
from coresc.readers import read_file
from coresc.writers.html import render_corpus, render_paper

pytestmark = pytest.mark.browser

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--window-size=1200,1400",
)


def _find(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists()
                                        else None)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser():
    chromium, driver_path = _find("chromium", "chromium-browser"), _find("chromedriver")
    webdriver = None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pass
    missing = [n for n, ok in (("chromium", chromium), ("chromedriver", driver_path),
                               ("selenium", webdriver)) if not ok]
    if missing:
        message = f"headless browser tests need {', '.join(missing)}"
        if os.environ.get("CI"):
            pytest.fail(message + " (CI must install them: see .ci/run)")
        pytest.skip(message)
    profile = tempfile.mkdtemp(prefix="coresc-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # an explicit driver path: selenium must not try to download one (no network)
    drv = webdriver.Chrome(service=Service(driver_path), options=options)
    drv.set_page_load_timeout(60)
    try:
        yield drv
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)


def load(browser, path: Path) -> list[dict]:
    """Open a local page; return the console messages logged while loading (errors etc.)."""
    browser.get_log("browser")  # drop earlier pages' messages
    browser.get(path.resolve().as_uri())
    return browser.get_log("browser")


def errors(log: list[dict]) -> list[dict]:
    return [m for m in log if m.get("level") in ("SEVERE", "ERROR")]


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
    path.write_text(render_paper(make_paper()), encoding="utf-8")
    return path


def test_page_loads_without_console_errors(browser, fixture_page):
    log = load(browser, fixture_page)
    assert errors(log) == []
    assert browser.title == "Cats & <dogs> in catalysis"


def test_sentence_count_and_legend(browser, fixture_page):
    load(browser, fixture_page)
    sentences = browser.find_elements("css selector", ".s")
    assert len(sentences) == len(make_paper()) == 8
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
    assert errors(log) == []
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
    path.write_text(render_corpus([make_paper("p1"), make_paper("p2")]), encoding="utf-8")
    assert errors(load(browser, path)) == []
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
    assert errors(load(browser, path)) == []
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

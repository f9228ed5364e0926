"""The upload page of coresc serve in headless Chromium: upload the example paper, see the
labelled view, download the annotated file (the same bytes as ``coresc annotate``)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_html_browser import browser, errors  # noqa: F401 (a fixture)

from coresc.cli import main

pytest.importorskip("fastapi")
from coresc.serve.launch import Server  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.serve]

EXAMPLE = Path(__file__).parent.parent / "data" / "example-paper.xml"


def _wait(condition, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("timed out waiting in the page")


def test_upload_view_and_download(browser, tmp_path, capsysbinary):  # noqa: F811
    from selenium.webdriver.common.by import By

    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.execute_cdp_cmd("Browser.setDownloadBehavior",
                            {"behavior": "allow", "downloadPath": str(downloads)})
    with Server(["--model", "fast", "--workers", "1"]) as server:
        browser.get_log("browser")
        browser.get(server.url)
        browser.find_element(By.ID, "file").send_keys(str(EXAMPLE.resolve()))
        browser.find_element(By.ID, "go").click()
        _wait(lambda: browser.find_element(By.ID, "status").text == "Done.")
        link = browser.find_element(By.ID, "download")
        assert link.get_attribute("download") == "example-paper_coresc.xml"
        # the labelled view, in its frame
        browser.switch_to.frame(browser.find_element(By.ID, "view"))
        labelled = _wait(lambda: browser.find_elements(By.CSS_SELECTOR, "span.s[data-label]"))
        assert len(labelled) > 10
        browser.switch_to.default_content()
        link.click()
        saved = downloads / "example-paper_coresc.xml"
        _wait(lambda: saved.is_file() and saved.stat().st_size > 0)
        log = browser.get_log("browser")
    assert main(["annotate", str(EXAMPLE), "--to", "xml", "-q"]) == 0
    assert saved.read_bytes() == capsysbinary.readouterr().out
    assert not errors(log), log


def test_a_bad_paper_is_one_line_in_the_page(browser):  # noqa: F811
    from selenium.webdriver.common.by import By

    with Server(["--model", "fast", "--workers", "1"]) as server:
        browser.get(server.url)
        browser.find_element(By.ID, "text").send_keys("<unknown><x/></unknown>")
        browser.find_element(By.ID, "go").click()
        status = _wait(lambda: (browser.find_element(By.ID, "status").text
                                if "unknown XML" in browser.find_element(By.ID, "status").text
                                else None))
    assert status.startswith("stdin: unknown XML format")

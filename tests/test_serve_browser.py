"""The upload page of coresc serve in headless Chromium: upload the example paper, see the
labelled view, download the annotated file (the same bytes as ``coresc annotate``)."""

from __future__ import annotations

import pytest
from helpers import EXAMPLE, console_errors, wait_for

from coresc.cli import main

pytest.importorskip("fastapi")
from coresc.serve.launch import Server  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.serve]

def test_upload_view_and_download(browser, tmp_path, capsysbinary):
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
        wait_for(lambda: browser.find_element(By.ID, "status").text == "Done.")
        link = browser.find_element(By.ID, "download")
        assert link.get_attribute("download") == "example-paper_coresc.xml"
        # the labelled view, in its frame
        browser.switch_to.frame(browser.find_element(By.ID, "view"))
        labelled = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "span.s[data-label]"))
        assert len(labelled) > 10
        browser.switch_to.default_content()
        link.click()
        saved = downloads / "example-paper_coresc.xml"
        wait_for(lambda: saved.is_file() and saved.stat().st_size > 0)
        log = browser.get_log("browser")
    assert main(["annotate", str(EXAMPLE), "--to", "xml", "-q"]) == 0
    assert saved.read_bytes() == capsysbinary.readouterr().out
    assert not console_errors(log), log


def test_a_bad_paper_is_one_line_in_the_page(browser):
    from selenium.webdriver.common.by import By

    with Server(["--model", "fast", "--workers", "1"]) as server:
        browser.get(server.url)
        browser.find_element(By.ID, "text").send_keys("<unknown><x/></unknown>")
        browser.find_element(By.ID, "go").click()
        status = wait_for(lambda: (browser.find_element(By.ID, "status").text
                                   if "unknown XML" in browser.find_element(By.ID, "status").text
                                   else None))
    assert status.startswith("stdin: unknown XML format")


TOKEN = "page-token"
GERMAN = ("Die Zellen wurden bei Raumtemperatur mit einer Lösung gewaschen und danach unter "
          "dem Mikroskop gezählt. Wir beobachteten eine deutliche Zunahme der Zellzahl. ") * 6


@pytest.fixture(scope="module")
def token_server():
    with Server(["--model", "fast", "--workers", "1", "--token", TOKEN]) as server:
        yield server


def _status_after_submit(page, until: str) -> str:
    from selenium.webdriver.common.by import By

    page.find_element(By.ID, "go").click()
    return wait_for(lambda: (page.find_element(By.ID, "status").text
                             if until in page.find_element(By.ID, "status").text else None))


def test_the_page_asks_for_its_token_box_not_a_header(browser, token_server):
    from selenium.webdriver.common.by import By

    browser.get(token_server.url)
    wait_for(lambda: browser.find_element(By.ID, "token").is_displayed())
    browser.find_element(By.ID, "text").send_keys("A short text. It has two sentences.")
    missing = _status_after_submit(browser, "Token box")
    assert "enter it in the Token box" in missing and "header" not in missing
    browser.find_element(By.ID, "token").send_keys("wrong")
    wrong = _status_after_submit(browser, "wrong")
    assert "The token is wrong: check the Token box" in wrong and "header" not in wrong
    browser.find_element(By.ID, "token").clear()
    browser.find_element(By.ID, "token").send_keys(TOKEN)
    assert _status_after_submit(browser, "Done.") == "Done."


def test_the_page_shows_the_warnings_of_the_cli(browser, token_server):
    from selenium.webdriver.common.by import By

    browser.get(token_server.url)
    wait_for(lambda: browser.find_element(By.ID, "token").is_displayed())
    browser.find_element(By.ID, "token").send_keys(TOKEN)
    browser.find_element(By.ID, "text").send_keys(GERMAN)
    _status_after_submit(browser, "Done.")
    box = browser.find_element(By.ID, "warnings")
    assert box.is_displayed()
    assert box.text.startswith("Warning: stdin: text does not look like English")
    assert "the labels may be meaningless" in box.text
    # an English paper next: the warning goes
    browser.find_element(By.ID, "text").clear()
    browser.find_element(By.ID, "text").send_keys("We measured the cells. The results show "
                                                  "a clear effect of the treatment. " * 8)
    before = browser.find_element(By.ID, "download").get_attribute("href")
    browser.find_element(By.ID, "go").click()
    wait_for(lambda: browser.find_element(By.ID, "download").get_attribute("href") != before
          and browser.find_element(By.ID, "status").text == "Done.")
    assert not browser.find_element(By.ID, "warnings").is_displayed()

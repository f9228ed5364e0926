"""coresc review in headless Chromium against the real server: a review by keyboard, read
back by `coresc evaluate` and `coresc agreement`; the server killed and restarted; two
annotators at once."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from test_html_browser import browser, errors  # noqa: F401 (a fixture)
from test_serve_browser import _wait

from coresc.cli import main
from coresc.metrics import agreement
from coresc.readers import read_file

pytest.importorskip("fastapi")
from coresc.serve.launch import Server  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.serve, pytest.mark.slow]

FIXTURES = Path(__file__).parent / "fixtures"
PAPER = FIXTURES / "jats_small.xml"


def review_server(out: Path, annotator: str, *papers: Path) -> Server:
    return Server([*map(str, papers or (PAPER,)), "--annotator", annotator, "-o", str(out)],
                  verb="review")


def suggestions(server: Server) -> list[list[str]]:
    with urllib.request.urlopen(server.url + "api/papers/0") as r:
        return [[lab for lab, _ in s["m"]] for s in json.load(r)["sentences"]]


def open_paper(browser, server: Server) -> None:  # noqa: F811
    browser.get(server.url + "paper/0")
    body = browser.find_element("tag name", "body")
    _wait(lambda: body.get_attribute("data-ready") == "1")


def press(browser, *keys: str) -> None:  # noqa: F811
    """Keys as a person types them; "S-x" is Shift+x. Then wait until all are saved."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    actions = ActionChains(browser)
    for key in keys:
        if key.startswith("S-"):
            actions.key_down(Keys.SHIFT).send_keys(key[2:].upper()).key_up(Keys.SHIFT)
        else:
            actions.send_keys({"ENTER": Keys.ENTER, "BACK": Keys.BACKSPACE}.get(key, key))
    actions.perform()
    body = browser.find_element("tag name", "body")
    _wait(lambda: body.get_attribute("data-pending") in ("0", None))
    assert body.get_attribute("data-error") is None, body.get_attribute("data-error")


def saved_gold(path: Path) -> list[list[str]]:
    return [s.gold_codes for s in read_file(path)[0].sentences()]


def test_keyboard_review_survives_a_crash_and_reads_back(browser, tmp_path, capsys):  # noqa: F811
    out = tmp_path / "reviews"
    bad = tmp_path / "broken.xml"
    bad.write_text("<article><body><p>never closed</body>")
    saved = out / "alice" / "jats_small.xml"
    with review_server(out, "alice", PAPER, bad) as server:
        skipped = [line for line in server.lines if "broken.xml" in line]
        assert len(skipped) == 1 and "skipped" in skipped[0]  # one line; the rest reviewable
        model = suggestions(server)
        browser.get_log("browser")
        open_paper(browser, server)
        press(browser, "ENTER",                            # 0: the model is right: one key
              "BACK", "BACK", "m", "ENTER",                # 1: Met
              "BACK", "BACK", "h", "S-g", "ENTER",         # 2: Hyp, then Goa second
              "e", "ENTER",                                # 3: the model's, novelty New
              "x", "z", "ENTER")                           # 4: Exp, undone: the model's
        expected = [model[0], ["Met"], ["Hyp", "Goa"], model[3], model[4]]
        assert saved_gold(saved)[:5] == expected
        assert all(not g for g in saved_gold(saved)[5:])
        assert read_file(saved)[0].sentences()[3].gold[0].novelty == "New"
        server.kill()  # a crash: nothing may be lost
    with review_server(out, "alice", PAPER) as server:
        open_paper(browser, server)
        done = browser.find_elements("css selector", ".s.rv-done")
        assert sorted(int(el.get_attribute("data-sid")) for el in done) == [0, 1, 2, 3, 4]
        cur = int(browser.find_element("css selector", ".s.rv-cur").get_attribute("data-sid"))
        assert cur == 5  # resumes at the first sentence not reviewed
        press(browser, "b", "ENTER")
        expected.append(["Bac"] + [x for x in model[5][1:] if x != "Bac"])
        # the mouse: select sentence 7, click the Obj button, then Enter as usual
        browser.find_element("css selector", '.s[data-sid="7"]').click()
        next(b for b in browser.find_elements("css selector", "#rv-buttons button")
             if b.text == "Obj").click()
        press(browser, "ENTER")
        log = browser.get_log("browser")
    assert not errors(log), log
    assert saved_gold(saved)[:6] == expected
    assert saved_gold(saved)[6] == [] and saved_gold(saved)[7] == \
        ["Obj"] + [x for x in model[7][1:] if x != "Obj"]
    # coresc evaluate scores exactly the reviewed sentences
    scores = tmp_path / "scores.json"
    assert main(["evaluate", str(out / "alice"), "--json", str(scores)]) == 0
    assert json.loads(scores.read_text())["n_sentences"] == 7
    capsys.readouterr()


def test_two_annotators_at_once(browser, tmp_path, capsys):  # noqa: F811
    out = tmp_path / "reviews"
    with review_server(out, "alice") as alice, review_server(out, "bob") as bob:
        model = suggestions(alice)
        for keys in (["BACK", "BACK", "c", "ENTER"], ["BACK", "BACK", "r", "ENTER"],
                     ["BACK", "BACK", "m", "ENTER"]):
            for server, mine in ((alice, keys), (bob, ["ENTER"])):
                open_paper(browser, server)
                press(browser, *mine)
    a_gold, b_gold = saved_gold(out / "alice" / "jats_small.xml"), \
        saved_gold(out / "bob" / "jats_small.xml")
    assert a_gold[:3] == [["Con"], ["Res"], ["Met"]]
    assert b_gold[:3] == model[:3] and not any(a_gold[3:]) and not any(b_gold[3:])
    capsys.readouterr()
    assert main(["agreement", str(out / "alice"), str(out / "bob"), "--to", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)["pairs"][0]
    want = agreement({"p": a_gold[:3]}, {"p": b_gold[:3]})
    assert answer["n_sentences"] == 3 and answer["micro"] == pytest.approx(want["micro"],
                                                                           nan_ok=True)

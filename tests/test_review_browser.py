"""coresc review in headless Chromium against the real server: a review by keyboard, read
back by `coresc evaluate` and `coresc agreement`; the server killed and restarted; two
annotators at once."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import pytest
from helpers import console_errors as errors
from helpers import wait_for as _wait

from coresc.cli import main
from coresc.metrics import agreement
from coresc.readers import read_file

pytest.importorskip("fastapi")
from coresc.serve.launch import Server  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.serve, pytest.mark.slow]

FIXTURES = Path(__file__).parent / "fixtures"
PAPER = FIXTURES / "jats_small.xml"


def review_server(out: Path, annotator: str, *papers: Path, extra: tuple[str, ...] = ()
                  ) -> Server:
    return Server([*map(str, papers or (PAPER,)), "--annotator", annotator, "-o", str(out),
                   *extra], verb="review")


def suggestions(server: Server) -> list[list[str]]:
    with urllib.request.urlopen(server.url + "api/papers/0") as r:
        return [[lab for lab, _ in s["m"]] for s in json.load(r)["sentences"]]


def open_paper(browser, server: Server) -> None:  # noqa: F811
    browser.get(server.url + "paper/0")
    body = browser.find_element("tag name", "body")
    _wait(lambda: body.get_attribute("data-ready") == "1")


def type_keys(browser, *keys: str) -> None:  # noqa: F811
    """Keys as a person types them; "S-x" is Shift+x."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    actions = ActionChains(browser)
    for key in keys:
        if key.startswith("S-"):
            actions.key_down(Keys.SHIFT).send_keys(key[2:].upper()).key_up(Keys.SHIFT)
        else:
            actions.send_keys({"ENTER": Keys.ENTER, "BACK": Keys.BACKSPACE}.get(key, key))
    actions.perform()


def press(browser, *keys: str) -> None:  # noqa: F811
    """Keys as a person types them, then wait until all are saved."""
    type_keys(browser, *keys)
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
        press(browser, "ENTER",                            # 0: the model's primary: one key
              "BACK", "BACK", "m", "ENTER",                # 1: Met
              "BACK", "BACK", "h", "S-g", "ENTER",         # 2: Hyp, then Goa second
              "e", "ENTER",                                # 3: the model's, novelty New
              "x", "z", "ENTER")                           # 4: Exp, undone: the model's
        # Enter confirms the primary only: a secondary is gold only when taken
        expected = [model[0][:1], ["Met"], ["Hyp", "Goa"], model[3][:1], model[4][:1]]
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
        expected.append(["Bac"])
        # the mouse: select sentence 7, click the Obj button, then Enter as usual
        browser.find_element("css selector", '.s[data-sid="7"]').click()
        next(b for b in browser.find_elements("css selector", "#rv-buttons button")
             if b.text == "Obj").click()
        press(browser, "ENTER")
        log = browser.get_log("browser")
    assert not errors(log), log
    assert saved_gold(saved)[:6] == expected
    assert saved_gold(saved)[6] == [] and saved_gold(saved)[7] == ["Obj"]
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


def shown_state(browser) -> dict[str, list[int]]:  # noqa: F811
    """The sentences the page shows as reviewed (saved) and as not saved."""
    def sids(css: str) -> list[int]:
        return sorted(int(el.get_attribute("data-sid"))
                      for el in browser.find_elements("css selector", css))
    return {"done": sids(".s.rv-done"), "unsaved": sids(".s.rv-unsaved")}


def test_a_decision_the_server_did_not_save_is_never_shown_saved(browser, tmp_path):  # noqa: F811
    out = tmp_path / "reviews"
    saved = out / "alice" / "jats_small.xml"
    with review_server(out, "alice") as server:
        port = server.url.rstrip("/").rsplit(":", 1)[1]
        model = suggestions(server)
        open_paper(browser, server)
        press(browser, "ENTER")
        server.kill()  # the server dies mid-review
        type_keys(browser, "ENTER", "m", "ENTER")  # sentence 1 accepted, 2 set to Met
        body = browser.find_element("tag name", "body")
        _wait(lambda: body.get_attribute("data-unsaved") == "3")
        # nothing shown saved that is not: only sentence 0 is on disk, and on the page
        assert [j for j, g in enumerate(saved_gold(saved)) if g] == [0]
        assert shown_state(browser) == {"done": [0], "unsaved": [1, 2]}
        alert = browser.find_element("id", "rv-alert")
        assert alert.is_displayed() and "NOT SAVED: 3 decision(s) wait" in alert.text
        assert "start coresc review again" in alert.text
        # a retry fails too, and changes nothing: count the page's failed requests from now
        browser.execute_script(
            "window.failedFetches = 0; const f = window.fetch;"
            "window.fetch = (...a) => f(...a).catch((e) => { window.failedFetches++; throw e; });")
        _wait(lambda: browser.execute_script("return window.failedFetches;") >= 1)
        assert shown_state(browser) == {"done": [0], "unsaved": [1, 2]}
    # the server again, on the same address: the page sends what waits, in order
    with review_server(out, "alice", extra=("--port", port)):
        _wait(lambda: body.get_attribute("data-pending") == "0", timeout=60)
        assert shown_state(browser) == {"done": [0, 1, 2], "unsaved": []}
        assert body.get_attribute("data-error") is None
        assert not browser.find_element("id", "rv-alert").is_displayed()
        assert "saved" in browser.find_element("id", "rv-saved").text
    assert saved_gold(saved)[:3] == [model[0][:1], model[1][:1], ["Met"]]
    assert not any(saved_gold(saved)[3:])


def test_reviewed_sentences_show_at_a_glance_and_a_finished_paper(browser, tmp_path):  # noqa: F811
    out = tmp_path / "reviews"
    with review_server(out, "alice") as server:
        n = len(suggestions(server))
        with urllib.request.urlopen(server.url + "api/papers") as r:
            model = json.load(r)["papers"][0]["model"]
        open_paper(browser, server)
        assert f"labels by {model}" in browser.find_element("id", "rv-bar").text
        press(browser, "ENTER", "ENTER")
        look = browser.execute_script(
            "const s = (j) => getComputedStyle(document.querySelector("
            "'.s[data-sid=\"' + j + '\"]'));"
            "return [0, 5].map((j) => [s(j).color, s(j).outlineStyle, s(j).boxShadow]);")
        done, todo = look
        assert done[0] != todo[0] and todo[1] == "dotted" and done[2] != todo[2]
        # an uncertain sentence is marked in another colour than a decision not saved
        unc, unsaved = browser.execute_script(
            "const g = (q) => getComputedStyle(document.querySelector(q));"
            "return [g('.s.rv-unc:not(.rv-done)').boxShadow, g('.rv-key-unsaved').outlineColor];")
        red, green, _ = map(int, re.search(r"rgb\((\d+), (\d+), (\d+)\)", unc).groups())
        assert unsaved == "rgb(160, 0, 0)" and green > red / 3  # amber, not a red
        assert "uncertain" in browser.find_element("class name", "rv-legend").text
        assert not browser.find_element("id", "rv-finished").is_displayed()
        press(browser, *["ENTER"] * (n - 2))
        assert browser.find_element("id", "rv-finished").is_displayed()
        browser.get(server.url)
        assert "finished" in browser.find_element("id", "rv-papers").text


def test_the_top_bar_keeps_one_line_and_the_adapted_model_shows(browser, tmp_path):  # noqa: F811
    out = tmp_path / "reviews"
    with review_server(out, "alice", extra=("--model", "fast")) as server:
        open_paper(browser, server)
        bar, panel = browser.find_element("id", "rv-bar"), browser.find_element("id", "rv-panel")
        height = bar.size["height"]
        type_keys(browser, "U")  # nothing reviewed: a long refusal in the bar
        status = browser.find_element("id", "rv-adapt-status")
        _wait(lambda: "nothing reviewed" in status.get_attribute("title"))
        assert bar.size["height"] == height
        assert bar.rect["y"] + bar.rect["height"] <= panel.rect["y"] + 1
        press(browser, "ENTER", "c", "ENTER", "ENTER")
        browser.execute_script("window.notReloaded = true;")
        type_keys(browser, "U")
        _wait(lambda: status.get_attribute("title").startswith("done"), timeout=300)
        # the page stays: the adapted model's labels come in place, with no reload
        _wait(lambda: browser.find_element("id", "rv-model").text == "alice-adapted-model")
        assert browser.execute_script("return window.notReloaded === true;")
        message = browser.find_element("id", "rv-adapt-message").text
        assert "changed their primary label" in message
        assert bar.size["height"] == height
        model = browser.find_element("id", "rv-model").text
        assert model == "alice-adapted-model"  # the folder's name; its path on hover
        where = browser.find_element("id", "rv-where").get_attribute("title")
        assert where.startswith("labels by ") and where.endswith("/alice-adapted-model")
        # with the long adapted model's name in the bar, the save status still reads whole
        press(browser, "ENTER")
        for part in ("rv-saved", "rv-where"):
            text, scroll, client = browser.execute_script(
                "const e = document.getElementById(arguments[0]);"
                "return [e.textContent, e.scrollWidth, e.clientWidth];", part)
            assert 0 < scroll <= client, (text, scroll, client)
            assert part == "rv-where" or text.startswith("saved ")


def test_two_servers_with_tokens_keep_their_own_cookie(browser, tmp_path):  # noqa: F811
    out = tmp_path / "reviews"
    with review_server(out, "alice", extra=("--token", "tok-a")) as alice, \
            review_server(out, "bob", extra=("--token", "tok-b")) as bob:
        browser.get(bob.url + "paper/0")  # no token yet: a page that says what to do
        assert "needs its token" in browser.find_element("id", "rv-message").text
        for server, token in ((alice, "tok-a"), (bob, "tok-b")):
            browser.get(server.url + "?token=" + token)
            assert "Papers to review" in browser.page_source
        for server in (alice, bob, alice):  # opening one does not log the other out
            open_paper(browser, server)


def test_adjudication_shows_the_disagreements_and_takes_either_by_one_key(browser, tmp_path):  # noqa: F811
    from helpers import two_reviews

    two_reviews(tmp_path)
    sets = (str(tmp_path / "alice"), str(tmp_path / "bob"))
    with Server(["--adjudicate", *sets, "--annotator", "carol", "-o", str(tmp_path)],
                verb="review") as server:
        open_paper(browser, server)
        shown = [int(el.get_attribute("data-sid"))
                 for el in browser.find_elements("css selector", ".s") if el.is_displayed()]
        assert shown == [2, 4]  # only the disagreements
        panel = browser.find_element("id", "rv-current").text
        assert "alice: Res" in panel and "bob: Hyp" in panel
        press(browser, "2", "1")  # bob's label on 2, alice's on 4
        assert shown_state(browser)["done"] == [0, 1, 2, 3, 4]  # 0, 1, 3 were agreed
        assert browser.find_element("id", "rv-finished").is_displayed()
    saved = tmp_path / "carol" / "paper-1.xml"
    assert saved_gold(saved)[:5] == [["Bac"], ["Met"], ["Hyp"], ["Con"], ["Obs", "Res"]]
    text = saved.read_text(encoding="utf-8")
    assert 'annotator="alice"' not in text and text.count('review="adjudicated"') == 2

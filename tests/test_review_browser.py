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


# the contrast of an element's text on what shows behind it (its first ancestor with a
# background), from the computed colours
CONTRAST_JS = """
const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
const lum = (c) => { const [r, g, b] = rgb(c).map((v) => v / 255).map((v) =>
  v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
const behind = (e) => { for (; e; e = e.parentElement) { const c = rgb(
  getComputedStyle(e).backgroundColor); if (c.length === 3 || c[3] > 0) {
  return getComputedStyle(e).backgroundColor; } } return "rgb(255, 255, 255)"; };
return arguments[0].map((sel) => { const e = document.querySelector(sel);
  const a = lum(getComputedStyle(e).color), b = lum(behind(e));
  return [sel, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)]; });
"""


def assert_readable(browser, shot: Path, parts: tuple[str, ...]) -> None:  # noqa: F811
    """The page reads as before: each of ``parts`` (CSS selectors) is dark text on a
    light ground (WCAG contrast >= 4.5 from the computed colours, and the same seen in a
    screenshot saved to ``shot``), and the page as a whole is mostly light."""
    from PIL import Image

    for sel, ratio in browser.execute_script(CONTRAST_JS, list(parts)):
        assert ratio >= 4.5, (sel, ratio)
    browser.find_element("id", "rv-keymap").location_once_scrolled_into_view  # noqa: B018
    shot.write_bytes(browser.get_screenshot_as_png())
    img = Image.open(shot).convert("L")
    scale = img.width / browser.execute_script("return window.innerWidth;")

    def shares(part) -> tuple[float, float, float]:
        """The shares of dark (< 110), darker than mid-grey and light (> 190) pixels."""
        counts = part.histogram()
        n = sum(counts)
        return sum(counts[:110]) / n, sum(counts[:128]) / n, sum(counts[191:]) / n

    assert shares(img)[1] < 0.25  # text on a light page
    for sel in parts:
        r = browser.execute_script("return document.querySelector(arguments[0])"
                                   ".getBoundingClientRect().toJSON();", sel)
        box = [round(v * scale) for v in (r["left"], r["top"], r["right"], r["bottom"])]
        assert box[2] > box[0] and box[3] > box[1], (sel, box)
        dark, _, light = shares(img.crop(box))
        assert light > 0.4 and dark > 0.005, (sel, light, dark)  # dark text, light ground


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


def test_one_correction_is_undone_by_one_key(browser, tmp_path):  # noqa: F811
    """A label typed, then Enter, then z: the sentence is as it was before the label."""
    from coresc.review.page import LABEL_KEYS

    out = tmp_path / "reviews"
    saved = out / "alice" / "jats_small.xml"
    with review_server(out, "alice") as server:
        model = suggestions(server)
        other = [next(lab for lab in ("Res", "Con") if lab != m[0]) for m in model[:2]]
        open_paper(browser, server)

        def looks(j: int) -> tuple[str, bool, bool]:
            el = browser.find_element("css selector", f'.s[data-sid="{j}"]')
            classes = el.get_attribute("class").split()
            return (el.find_element("class name", "c").text.split()[0], "rv-done" in classes,
                    "rv-changed" in classes)

        press(browser, "ENTER")  # 0: the model's label, confirmed
        press(browser, LABEL_KEYS[other[1]], "ENTER", "z")  # 1: corrected, then undone
        assert saved_gold(saved)[:2] == [model[0][:1], []]
        assert looks(1) == (model[1][0], False, False)  # not reviewed, the model's label
        cur = browser.find_element("css selector", ".s.rv-cur").get_attribute("data-sid")
        assert cur == "1"
        press(browser, "k", LABEL_KEYS[other[0]], "ENTER", "z")  # 0: back to confirmed
        assert saved_gold(saved)[:2] == [model[0][:1], []]
        assert looks(0) == (model[0][0], True, False)
        press(browser, "z")  # one more: the first Enter
        assert saved_gold(saved)[:2] == [[], []] and looks(0) == (model[0][0], False, False)


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


def reads_whole(browser, element_id: str) -> str:  # noqa: F811
    """The text of a part of the bar, which must show whole (nothing cut)."""
    text, scroll, client = browser.execute_script(
        "const e = document.getElementById(arguments[0]);"
        "return [e.textContent, e.scrollWidth, e.clientWidth];", element_id)
    assert 0 < scroll <= client, (element_id, text, scroll, client)
    return text


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
        with urllib.request.urlopen(server.url + "api/papers") as r:
            server_model = json.load(r)["papers"][0]["model"]
        open_paper(browser, server)
        press(browser, "ENTER")
        server.kill()  # the server dies mid-review
        # sentence 1 accepted, 2 set to Met, Goa added, accepted: two decisions in four
        # requests (the server saves the last accept as nothing new)
        type_keys(browser, "ENTER", "m", "S-g", "ENTER")
        body = browser.find_element("tag name", "body")
        _wait(lambda: body.get_attribute("data-unsaved") == "2")
        assert body.get_attribute("data-pending") == "4"
        # nothing shown saved that is not: only sentence 0 is on disk, and on the page
        assert [j for j, g in enumerate(saved_gold(saved)) if g] == [0]
        assert shown_state(browser) == {"done": [0], "unsaved": [1, 2]}
        alert = browser.find_element("id", "rv-alert")
        assert alert.is_displayed() and "NOT SAVED: 2 decision(s) wait" in alert.text
        assert "start coresc review again" in alert.text
        # the bar still names the model, and its save status reads whole
        assert reads_whole(browser, "rv-saved") == "NOT SAVED: 2 decision(s)"
        assert reads_whole(browser, "rv-where").endswith(f"labels by {server_model}")
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
    assert saved_gold(saved)[:3] == [model[0][:1], model[1][:1], ["Met", "Goa"]]
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
        # sentence 2 has no CoreSC label (funding, say): one key, and the paper finishes
        press(browser, "-", "ENTER", *["ENTER"] * (n - 3))
        assert browser.find_element("id", "rv-finished").is_displayed()
        none = browser.find_element("css selector", '.s[data-sid="2"]')
        assert "rv-done" in none.get_attribute("class").split()
        assert none.find_element("class name", "c").text.startswith("no label")
        saved = read_file(out / "alice" / "jats_small.xml")[0].sentences()
        assert [j for j, s in enumerate(saved) if s.no_label] == [2] and not saved[2].gold
        assert sum(bool(s.gold) for s in saved) == n - 1
        # finished, the page still reads: the bar, the current labels, the key map
        assert_readable(browser, tmp_path / "finished.png",
                        ("#rv-where", "#rv-model", "#rv-progress", "#rv-labels-now",
                         "#rv-keymap td"))
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
        assert reads_whole(browser, "rv-saved").startswith("saved ")
        reads_whole(browser, "rv-where")


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
        # what the browser would send to each server's pages: its own cookie only
        for server, token in ((alice, "tok-a"), (bob, "tok-b")):
            port = server.url.rstrip("/").rsplit(":", 1)[1]
            for path in (f"review-{port}/paper/0", ""):
                sent = browser.execute_cdp_cmd("Network.getCookies",
                                               {"urls": [server.url + path]})["cookies"]
                assert [c["value"] for c in sent] == ([token] if path else []), (path, sent)


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
        assert "labels by alice / bob" in browser.find_element("id", "rv-bar").text
        press(browser, "2", "1")  # bob's label on 2, alice's on 4
        assert shown_state(browser)["done"] == [0, 1, 2, 3, 4]  # 0, 1, 3 were agreed
        assert browser.find_element("id", "rv-finished").is_displayed()
        assert_readable(browser, tmp_path / "finished.png",
                        ("#rv-where", "#rv-model", "#rv-progress", "#rv-keymap td"))
    saved = tmp_path / "carol" / "paper-1.xml"
    assert saved_gold(saved)[:5] == [["Bac"], ["Met"], ["Hyp"], ["Con"], ["Obs", "Res"]]
    text = saved.read_text(encoding="utf-8")
    assert 'annotator="alice"' not in text and text.count('review="adjudicated"') == 2

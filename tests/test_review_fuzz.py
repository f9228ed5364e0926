"""The review API under hostile paths and bodies: every call answered, none with a 5xx.

A fixed fuzz set (indexes, strings, bodies, raw bytes) through FastAPI's TestClient with
server exceptions turned into answers, as a real server gives them: a 500 here is a
traceback in the server's log. What is refused is refused with one line (400/404/413);
what is fit to store is stored and reads back from the saved mode2 file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402
from helpers import never, store_for  # noqa: E402

from coresc.readers import read_file  # noqa: E402
from coresc.review.adapt import Adapter  # noqa: E402
from coresc.review.app import Settings, create_app  # noqa: E402
from coresc.review.validate import MAX_DEPTH, json_depth, text_problem  # noqa: E402

POST = {"Content-Type": "application/json", "X-Coresc-Review": "1"}
DECIDE = "/api/papers/0/sentences/1"

# Strings no saved file can hold: refused, naming the character.
UNFIT = ["\x00", "a\x00b", "\ufffe", "\uffff", "\ud800", "x\udfffy", "\x1b[31m", "\x7f",
         "\x85", "\x0b", "end\x1f"]
# Strings that are fine, however odd: stored as they are.
FIT = ["", " ", "tab\tand\nnew line\r", "<![CDATA[ ]]> & <b>", "\u202e reversed",
       "\U0001f600 \u00b2 \u0661", "a" * 2000, "\ufffd", "\U0010fffd"]
# Path segments: a few indexes and many that are none (percent-encoded as sent).
INDEXES = ["0", "1", "%C2%B2", "%EF%BC%91", "%D9%A1", "00", "0" * 20, "-0", "+1", "1e3",
           "%00", "%2e", "9" * 9, "9" * 10, "%201", "1%20", "%F0%9F%98%80", "%ED%A0%80",
           "%FF", "%E2%85%A0"]
RAW = [b"[" * 3000 + b"]" * 3000, b'{"a":' * 3000 + b"1" + b"}" * 3000,
       b'{"labels":' + b"[" * 3000 + b"]" * 3000 + b"}", b'{"x":"' + b"[" * 3000 + b'"}',
       b"\xff\xfe", b'{"labels":["Bac"],"comment":"\xed\xa0\x80"}', b"NaN",
       b'{"accept": NaN}', b'{"accept": 1e999}', b'{"accept": ' + b"1" * 5000 + b"}",
       b"{}" * 10, b" ", b"", b"\x00", b'{"a":1,"a":2}', b'{"labels":["Bac"]}' + b" " * 99_990,
       b'{"labels":["Bac"]}' + b" " * 100_000, b'"\\ud800"', b"[]", b"null"]


def client(tmp_path: Path) -> TestClient:
    store = store_for(tmp_path)
    app = create_app(store, Adapter(store, "fast", tmp_path / "m", never), Settings())
    return TestClient(app, base_url="http://127.0.0.1:8000", raise_server_exceptions=False)


def bodies() -> list[dict]:
    out: list[dict] = []
    for s in UNFIT + FIT:
        out += [{"labels": ["Bac"], key: s} for key in ("comment", "novelty", "advantage")]
        out += [{"labels": [s]}, {"labels": ["Bac", s]}, {s: 1, "accept": True}]
    for v in (None, 1, 1.5, [], {}, True, "yes", [[["Bac"]]]):
        out += [{"accept": v}, {"labels": v}, {"labels": ["Bac"], "comment": v}]
    return out + [{"labels": ["Bac"] * 2000}]


def test_no_call_of_the_fuzz_set_is_answered_5xx(tmp_path: Path) -> None:
    c = client(tmp_path)
    answers: list[tuple[int, str]] = []
    for i in INDEXES:
        for j in INDEXES:
            r = c.post(f"/api/papers/{i}/sentences/{j}", json={"accept": True}, headers=POST)
            answers.append((r.status_code, f"decide {i} {j}"))
        for r in (c.get(f"/api/papers/{i}"), c.get(f"/paper/{i}"),
                  c.post(f"/api/papers/{i}/undo", json={}, headers=POST)):
            answers.append((r.status_code, f"index {i}"))
    for body in bodies():
        for data in (json.dumps(body).encode(),
                     json.dumps(body, ensure_ascii=False).encode("utf-8", "surrogatepass")):
            answers.append((c.post(DECIDE, content=data, headers=POST).status_code, repr(body)))
    for raw in RAW:
        for path in (DECIDE, "/api/papers/0/undo", "/api/adapt"):
            r = c.post(path, content=raw, headers=POST)
            answers.append((r.status_code, f"{path} {raw[:30]!r}"))
    assert len(answers) > 800
    failed = [what for status, what in answers if status >= 500]
    assert not failed, f"{len(failed)} answered 5xx: {failed[:10]}"
    assert c.get("/api/papers").status_code == 200


@pytest.mark.parametrize("comment", UNFIT)
def test_unfit_comments_are_refused_naming_the_character(tmp_path: Path, comment: str) -> None:
    c = client(tmp_path)
    r = c.post(DECIDE, content=json.dumps({"labels": ["Bac"], "comment": comment}).encode(),
               headers=POST)
    assert r.status_code == 400, r.text
    message = r.json()["error"]
    assert message.startswith("comment: holds ") and "U+" in message and "\n" not in message
    assert c.get("/api/papers").json()["all"]["reviewed"] == 0  # nothing decided


@pytest.mark.parametrize("comment", FIT)
def test_fit_comments_are_stored_and_read_back(tmp_path: Path, comment: str) -> None:
    c = client(tmp_path)
    r = c.post(DECIDE, json={"labels": ["Bac"], "comment": comment}, headers=POST)
    assert r.status_code == 200, r.text
    assert r.json()["decision"]["comment"] == comment
    assert read_file(tmp_path / "alice" / "paper-1.xml")[0].sentences()[1].gold_codes == ["Bac"]


@pytest.mark.parametrize("index", ["%C2%B2", "%D9%A1", "%EF%BC%91", "%E2%85%A0"])
def test_digits_that_are_not_ascii_are_no_index(tmp_path: Path, index: str) -> None:
    c = client(tmp_path)
    r = c.post(f"/api/papers/0/sentences/{index}", json={"accept": True}, headers=POST)
    assert r.status_code == 404 and "not a sentence number" in r.json()["error"]
    assert c.get(f"/api/papers/{index}").status_code == 404


def test_deep_bodies_are_refused_before_parsing(tmp_path: Path) -> None:
    c = client(tmp_path)
    deep = b'{"labels":' + b"[" * 3000 + b"]" * 3000 + b"}"
    assert len(deep) < 7000
    r = c.post(DECIDE, content=deep, headers=POST)
    assert r.status_code == 400 and f"more than {MAX_DEPTH} deep" in r.json()["error"]
    ok = {"labels": ["Bac"], "comment": "[[[[[[[[[[[[[[[[[[[[[[[[ in a string"}
    assert c.post(DECIDE, json=ok, headers=POST).status_code == 200


def test_json_depth_counts_brackets_outside_strings() -> None:
    assert json_depth(b'{"labels": ["Bac"]}') == 2
    assert json_depth(b'{"a": "[[[{{{\\"[[["}') == 1
    assert json_depth(b"[" * 100) == MAX_DEPTH + 1  # stops counting past the limit
    assert json_depth(b"") == 0


def test_text_problem_names_the_character_and_place() -> None:
    assert text_problem("ok\ttab") is None
    assert text_problem("ab\x00") == "holds a control character (U+0000) at character 3"
    assert "unpaired surrogate (U+D800)" in text_problem("\ud800")
    assert "non-character (U+FFFF)" in text_problem("x\uffff")

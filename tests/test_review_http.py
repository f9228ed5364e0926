"""coresc review's HTTP side (FastAPI TestClient): bad ids, unknown papers, the token, the
guards on POST, and nothing addressed by path."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402
from helpers import never, store_for  # noqa: E402

from coresc.readers import read_file  # noqa: E402
from coresc.review.adapt import Adapter  # noqa: E402
from coresc.review.app import COOKIE, Settings, create_app  # noqa: E402

POST = {"Content-Type": "application/json", "X-Coresc-Review": "1"}


def client(tmp_path: Path, token: str | None = None, loopback: bool = True) -> TestClient:
    store = store_for(tmp_path)
    app = create_app(store, Adapter(store, "fast", tmp_path / "m", never),
                     Settings(token, loopback))
    return TestClient(app, base_url="http://127.0.0.1:8000")


def test_pages_and_a_decision(tmp_path: Path) -> None:
    c = client(tmp_path)
    assert "paper-1" in c.get("/").text
    page = c.get("/paper/0")
    assert page.status_code == 200 and 'id="rv-data"' in page.text
    assert "connect-src 'self'" in page.text and page.text.count('class="s') >= 8
    r = c.post("/api/papers/0/sentences/2", json={"labels": ["Obs", "Res"],
                                                 "novelty": "New"}, headers=POST)
    assert r.status_code == 200, r.text
    assert r.json()["decision"]["action"] == "changed"
    assert r.json()["progress"]["all"]["reviewed"] == 1
    r = c.post("/api/papers/0/sentences/0", json={"accept": True}, headers=POST)
    assert r.json()["decision"]["labels"] == ["Bac"]
    gold = [s.gold_codes for s in read_file(tmp_path / "alice" / "paper-1.xml")[0].sentences()]
    assert gold[:3] == [["Bac"], [], ["Obs", "Res"]]
    r = c.post("/api/papers/0/undo", json={}, headers=POST)
    assert r.json()["sentence"] == 0 and r.json()["decision"] is None
    data = c.get("/api/papers/0").json()
    assert [s["d"] is not None for s in data["sentences"]][:3] == [False, False, True]


def test_a_request_sent_again_is_carried_out_once(tmp_path: Path) -> None:
    c = client(tmp_path)
    for j, labels in ((0, ["Met"]), (1, ["Res"])):
        body = {"labels": labels, "request": f"pg-{j}"}
        first = c.post(f"/api/papers/0/sentences/{j}", json=body, headers=POST).json()
        again = c.post(f"/api/papers/0/sentences/{j}", json=body, headers=POST).json()
        assert again["decision"] == first["decision"]
    for _ in range(2):  # the page did not hear the answer: the same undo, once
        r = c.post("/api/papers/0/undo", json={"request": "pg-2"}, headers=POST)
        assert r.json()["sentence"] == 1 and r.json()["decision"] is None
    data = c.get("/api/papers/0").json()
    assert [s["d"]["labels"] if s["d"] else None for s in data["sentences"]][:2] == \
        [["Met"], None]
    for bad in ("", "a b", "x" * 65, 5, ["pg"]):
        r = c.post("/api/papers/0/undo", json={"request": bad}, headers=POST)
        assert r.status_code == 400, bad
    assert c.post("/api/papers/0/undo", json={}, headers=POST).json()["sentence"] == 0


def test_a_request_id_used_for_another_request_is_409(tmp_path: Path) -> None:
    c = client(tmp_path)
    first = c.post("/api/papers/0/sentences/1", json={"labels": ["Exp"], "request": "pg-1"},
                   headers=POST)
    assert first.status_code == 200
    undone = c.post("/api/papers/0/undo", json={"request": "pg-u"}, headers=POST)
    assert undone.status_code == 200 and undone.json()["sentence"] == 1
    for path, body in (("sentences/2", {"labels": ["Exp"], "request": "pg-1"}),
                       ("undo", {"request": "pg-1"}),
                       ("sentences/2", {"accept": True, "request": "pg-u"})):
        r = c.post(f"/api/papers/0/{path}", json=body, headers=POST)
        assert r.status_code == 409, (path, body, r.text)
        assert "was used before for" in r.json()["error"]
    data = c.get("/api/papers/0").json()
    assert all(s["d"] is None for s in data["sentences"])  # sentence 2 left undecided


@pytest.mark.parametrize("path", [
    "/paper/1", "/paper/-1", "/paper/abc", "/paper/0x1", "/paper/99999999999",
    "/api/papers/1", "/api/papers/%2e%2e", "/paper/..%2f..%2fetc%2fpasswd",
    "/paper/0/../../etc/passwd", "/api/papers/0/sentences/8",
])
def test_unknown_papers_and_bad_ids_are_404(tmp_path: Path, path: str) -> None:
    c = client(tmp_path)
    if "sentences" in path:
        r = c.post(path, json={"accept": True}, headers=POST)
    else:
        r = c.get(path)
    assert r.status_code == 404, (path, r.text)
    assert "root:" not in r.text


def test_bad_decisions_are_400(tmp_path: Path) -> None:
    c = client(tmp_path)
    for body in ({"labels": ["Nope"]}, {"labels": "Bac"}, {"labels": [1]},
                 {"labels": ["Bac"], "novelty": "Sideways"}, {"labels": ["Bac"], "comment": 5},
                 {"labels": [], "novelty": "New"}):
        r = c.post("/api/papers/0/sentences/1", json=body, headers=POST)
        assert r.status_code == 400, (body, r.text)
        assert set(r.json()) == {"error", "status"}
    r = c.post("/api/papers/0/sentences/1", content=b"[1, 2]", headers=POST)
    assert r.status_code == 400
    r = c.post("/api/papers/0/sentences/1", content=b"{oops", headers=POST)
    assert r.status_code == 400
    assert c.get("/api/papers").json()["all"]["reviewed"] == 0


def test_posts_only_from_the_page_itself(tmp_path: Path) -> None:
    c = client(tmp_path)
    body = {"labels": ["Bac"]}
    assert c.post("/api/papers/0/sentences/1", json=body).status_code == 403  # no header
    r = c.post("/api/papers/0/sentences/1", content=b'{"labels": ["Bac"]}',
               headers={"X-Coresc-Review": "1", "Content-Type": "text/plain"})
    assert r.status_code == 415  # a form another site could send
    r = c.get("/api/papers", headers={"Host": "evil.example:8000"})
    assert r.status_code == 403  # DNS rebinding
    assert c.post("/api/adapt", json={}, headers=POST).status_code == 409  # nothing reviewed


def test_the_token(tmp_path: Path) -> None:
    c = client(tmp_path, token="s3cret", loopback=False)
    assert c.get("/api/papers").status_code == 401
    page = c.get("/paper/0")  # a person gets a page saying what to do, not JSON
    assert page.status_code == 401 and page.headers["content-type"].startswith("text/html")
    assert "?token=" in page.text
    assert c.get("/paper/999").status_code == 401  # the token before anything else
    assert c.get("/api/papers", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert c.get("/api/papers",
                 headers={"Authorization": "Bearer s3cret"}).status_code == 200
    assert c.get("/paper/0?token=wrong", follow_redirects=True).status_code == 401
    alive = c.get("/health").json()  # alive, and nothing about the review without the token
    assert alive == {"status": "ok", "token_required": True}
    assert c.get("/health", headers={"Authorization": "Bearer s3cret"}).json()["papers"] == 1
    # a page is below /review-PORT/, where the cookie goes: the token is taken there
    r = c.get("/paper/0?token=s3cret", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/review-8000/paper/0?token=s3cret"
    r = c.get(r.headers["location"], follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/review-8000/paper/0"
    assert f"{COOKIE}_8000" in r.cookies  # one cookie per port: servers do not share it
    assert "Path=/review-8000/;" in r.headers["set-cookie"]  # sent to this server only
    page = c.get("/paper/0")  # the cookie now
    assert page.status_code == 200 and "s3cret" not in page.text
    assert page.url.path == "/review-8000/paper/0"
    missing = c.get("/paper/999")
    assert missing.status_code == 404 and "papers 0 to 0" in missing.text
    # another server of the host (port 8001) is not sent this server's cookie
    other = c.get("http://127.0.0.1:8001/", follow_redirects=True)
    assert other.status_code == 401
    assert all("s3cret" not in (h.request.headers.get("cookie") or "")
               for h in (*other.history, other))
    assert "s3cret" in c.get("/").request.headers["cookie"]  # while this one is
    # the page's script calls the API relative to the page: below /review-PORT/ too
    r = c.post("/review-8000/api/papers/0/sentences/1", json={"labels": ["Bac"]},
               headers=POST)
    assert r.status_code == 200
    r = c.post("/api/papers/0/sentences/1", json={"labels": ["Bac"]}, headers=POST)
    assert r.status_code == 401  # not there: a script sends the token itself


@pytest.mark.serve
def test_a_client_gone_mid_upload_is_one_line_in_the_log(tmp_path: Path) -> None:
    import socket

    from helpers import review_paper, wait_for

    from coresc.serve.launch import Server
    from coresc.writers.mode2 import render_mode2

    paper = tmp_path / "paper-1.xml"  # labelled already: no model to load
    paper.write_bytes(render_mode2(review_paper()))
    with Server([str(paper), "--annotator", "alice", "-o", str(tmp_path / "reviews")],
                verb="review") as server:
        host, port = server.url.split("//")[1].rstrip("/").rsplit(":", 1)
        with socket.create_connection((host, int(port))) as sock:
            sock.sendall(b"POST /api/papers/0/sentences/0 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Type: application/json\r\nX-Coresc-Review: 1\r\n"
                         b"Content-Length: 1000\r\n\r\n{\"labels\": [")
        said = wait_for(lambda: [line for line in server.lines if "went away" in line])
        assert len(said) == 1 and "/api/papers/0/sentences/0" in said[0]
        assert not [line for line in server.lines if "Traceback" in line]
        with urllib.request.urlopen(server.url + "api/papers") as r:  # still serving
            assert json.load(r)["all"]["reviewed"] == 0


def test_long_titles_are_cut_at_a_word() -> None:
    from coresc.review.page import short_title

    title = "Soap films template the growth of Escherichia coli colonies " * 3
    cut = short_title(title)
    assert cut.endswith("…") and len(cut) <= 91
    assert title.startswith(cut[:-1]) and title[len(cut) - 1] == " "  # a whole word
    assert short_title("Short title") == "Short title"
    assert short_title("x" * 200) == "x" * 90 + "…"  # one long word: cut where it must

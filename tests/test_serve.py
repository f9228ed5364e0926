"""coresc serve against a real server on 127.0.0.1: every endpoint, the bad-request battery,
the CLI's bytes, a worker killed mid-request, GROBID slow, busy and down.

One server (fast model, 2 workers, a queue of 2, a 60 s limit, a token) serves the module;
a fake GROBID (tests/fake_grobid.py) stands behind it for PDFs (tiny ones, with the TEI
of tests/fixtures: no test here needs the shared data).
"""

from __future__ import annotations

import json
import os
import signal
import threading
import uuid
from pathlib import Path

import pytest
from fake_grobid import FakeGrobid
from helpers import (
    EXAMPLE,
    TOKEN,
    call,
    cli_bytes,
    error_of,
    form,
    health,
    pdf_pairs,
    wait_for,
)

from coresc.cli import main

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("python_multipart")
from coresc.model.storage import BUNDLED_DIR  # noqa: E402
from coresc.serve.launch import Server  # noqa: E402

pytestmark = [pytest.mark.serve]

@pytest.fixture(scope="module")
def grobid(tmp_path_factory):
    with FakeGrobid(pdf_pairs(tmp_path_factory.mktemp("grobid"))) as fake:
        yield fake


@pytest.fixture(scope="module")
def tmpdir_env(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("server-tmp")


@pytest.fixture(scope="module")
def server(grobid, tmpdir_env):
    args = ["--model", "fast", "--workers", "2", "--queue", "2", "--timeout", "60",
            "--max-size", "0.5", "--token", TOKEN, "--grobid", grobid.url]
    with Server(args, env={"TMPDIR": str(tmpdir_env)}) as srv:
        yield srv


def cli_error(capsys, *args: str) -> str:
    assert main(["annotate", *args, "-q"]) != 0
    return capsys.readouterr().err.strip().removeprefix("coresc annotate: error: ")


# ------------------------------------------------------------------ endpoints


def test_health_says_loaded_and_idle(server):
    status, headers, body = call(server, "health", auth=False)
    health = json.loads(body)
    assert status == 200 and headers["content-type"] == "application/json"
    assert health["model_loaded"] is True and health["model"] == "fast"
    assert health["workers"] == 2 and health["ready"] == 2 and health["busy"] == 0
    assert health["token_required"] is True


def test_model_is_the_card_as_json(server):
    status, _, body = call(server, "model")
    card = json.loads(body)
    assert status == 200 and card["name"] == "fast"
    assert card["config"] == json.loads((BUNDLED_DIR / "fast" / "config.json").read_text())
    assert card["card_markdown"].startswith("#")
    assert card["meta"] and "training" in json.dumps(card["meta"])


def test_openapi_describes_the_api(server):
    status, _, body = call(server, "openapi.json", auth=False)
    spec = json.loads(body)
    assert status == 200 and {"/annotate", "/model", "/health"} <= set(spec["paths"])
    post = spec["paths"]["/annotate"]["post"]
    assert {"multipart/form-data", "application/xml", "application/pdf"} <= \
        set(post["requestBody"]["content"])
    assert {"413", "415", "422", "503"} <= set(post["responses"])


def test_page_needs_nothing_from_the_internet(server):
    status, headers, body = call(server, "", auth=False)
    page = body.decode()
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in page and 'type="file"' in page and "<textarea" in page
    assert "http://" not in page and "https://" not in page and "//cdn" not in page


# ------------------------------------------------------------------ the CLI's bytes


@pytest.mark.parametrize("to,cli_to", [("json", "jsonl"), ("xml", "xml"), ("mode2", "mode2"),
                                       ("tsv", "tsv"), ("html", "html")])
def test_upload_answers_the_cli_bytes(server, capsysbinary, to, cli_to):
    body, headers = form(EXAMPLE.read_bytes(), EXAMPLE.name)
    status, answer_headers, answer = call(server, f"annotate?to={to}", body, headers)
    assert status == 200, answer
    assert answer == cli_bytes(capsysbinary, str(EXAMPLE), "--to", cli_to)
    assert 'filename="example-paper_coresc.' in answer_headers["content-disposition"]


def test_raw_body_is_standard_input_and_min_score_applies(server, capsysbinary, monkeypatch):
    import io
    import sys

    status, headers, answer = call(server, "annotate?min_score=0.6", EXAMPLE.read_bytes(),
                                   {"Content-Type": "application/xml"})
    stdin = io.TextIOWrapper(io.BytesIO(EXAMPLE.read_bytes()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    expected = cli_bytes(capsysbinary, "-", "--to", "jsonl", "--min-score", "0.6")
    assert status == 200 and headers["content-type"].startswith("application/x-ndjson")
    assert answer == expected and b'"paper": "stdin"' in answer
    # saved as coresc.jsonl, not stdin_coresc.jsonl
    assert headers["content-disposition"] == 'inline; filename="coresc.jsonl"'


def test_accept_header_chooses_the_format(server, capsysbinary):
    status, headers, answer = call(server, "annotate?filename=example-paper.xml",
                                   EXAMPLE.read_bytes(),
                                   {"Content-Type": "text/xml",
                                    "Accept": "text/tab-separated-values, */*;q=0.1"})
    assert status == 200 and headers["content-type"].startswith("text/tab-separated-values")
    assert answer == cli_bytes(capsysbinary, str(EXAMPLE), "--to", "tsv")


def test_pdf_through_grobid_gives_tei_as_the_cli(server, grobid, capsysbinary):
    pdf = grobid.tei_dir / "small.pdf"
    body, headers = form(pdf.read_bytes(), pdf.name, ctype="application/pdf")
    status, _, answer = call(server, "annotate?to=xml", body, headers)
    assert status == 200, answer
    assert answer == cli_bytes(capsysbinary, str(pdf), "--to", "xml",
                               "--grobid", grobid.url)
    assert b"<TEI" in answer[:2000]


# ------------------------------------------------------------------ bad requests


def test_bad_request_battery(server, capsys, tmp_path):
    binary = tmp_path / "binary.xml"
    binary.write_bytes(b"\x00\x01\x02 not a paper")
    cases = [  # (answer, status, words in the message)
        (call(server, "annotate", b"<p/>", auth=False), 401, "token"),
        (call(server, "annotate", b"<p/>", {"Authorization": "Bearer wrong"}, auth=False),
         401, "token"),
        (call(server, "model", auth=False), 401, "token"),
        (call(server, "annotate", b"x" * 600_000, {"Content-Type": "text/plain"}), 413,
         "limit of 0.5 MB"),
        (call(server, "annotate", b"GIF89a", {"Content-Type": "image/gif"}), 415,
         "'image/gif' is not a paper"),
        (call(server, "annotate", *form(b"PK\x03\x04", "paper.docx", ctype="application/"
              "vnd.openxmlformats-officedocument.wordprocessingml.document")), 415,
         "paper.docx: media type"),
        (call(server, "annotate?to=pdf", b"<p/>"), 400, "unknown output format"),
        (call(server, "annotate?min_score=high", b"some text"), 400, "not a number"),
        (call(server, "annotate", b"<p/>", {"Accept": "image/png"}), 406, "Accept"),
        (call(server, "annotate", *form(b"", "empty.xml")), 422, "empty.xml: file is empty"),
        (call(server, "annotate", b"", {"Content-Type": "text/plain"}), 422,
         "stdin: nothing on standard input"),
        (call(server, "annotate?domain=nosuch", b"some text."), 400, "--domain nosuch"),
        (call(server, "annotate", *form(b"x", "a.txt", field="other")), 422,
         "the form has no paper"),
    ]
    for answer, status, words in cases:
        assert answer[0] == status, (status, answer)
        assert words in error_of(answer), (words, answer)
    # unreadable papers: the CLI's own line
    for data, name in ((binary.read_bytes(), "binary.xml"),
                       (b"<unknown><x/></unknown>", "odd.xml"),
                       (b"<article><body>", "broken.xml")):
        answer = call(server, "annotate", *form(data, name))
        (tmp_path / name).write_bytes(data)
        assert answer[0] == 422
        assert error_of(answer) == cli_error(capsys, str(tmp_path / name)).replace(
            str(tmp_path) + "/", "")
    assert json.loads(call(server, "health", auth=False)[2])["ready"] == 2


def test_nothing_sent_stays_on_disk(server, tmpdir_env):
    marker = f"MARKER-{uuid.uuid4().hex}"
    text = f"We measured {marker} in the samples. The results show a clear effect.\n" * 2000
    assert call(server, "annotate", *form(text.encode(), "big.txt"))[0] == 200
    assert call(server, "annotate", text.encode(), {"Content-Type": "text/plain"})[0] == 200
    for path in tmpdir_env.rglob("*"):
        if path.is_file():
            assert marker.encode() not in path.read_bytes(), path


# ------------------------------------------------------------------ load and failures


def _pdf_request(server, grobid):
    pdf = grobid.tei_dir / "small.pdf"
    return lambda: call(server, "annotate", *form(pdf.read_bytes(), pdf.name))


def _in_thread(func) -> tuple[threading.Thread, dict]:
    """``func()`` started in a thread; its answer lands in the dict (key ``answer``)."""
    result: dict = {}
    thread = threading.Thread(target=lambda: result.update(answer=func()))
    thread.start()
    return thread, result


def _accepted(server) -> int:
    """Requests the server holds: annotating, or waiting in its queue."""
    stats = health(server)
    return stats["busy"] + stats["queued"]


@pytest.mark.slow
def test_full_queue_is_503_with_retry_after(server, grobid):
    """Workers busy and the queue full: the next request is refused at once. The requests
    go in one by one, each seen held by the server before the next, and GROBID answers none
    until the refusals are in: no timing decides which request gets what."""
    size = (health(server)["workers"], health(server)["queue_limit"])
    assert size == (2, 2)
    held = []
    with grobid.hold():
        for n in range(1, sum(size) + 1):
            held.append(_in_thread(_pdf_request(server, grobid)))
            wait_for(lambda n=n: _accepted(server) == n, what=f"{n} requests held")
        refused = [_pdf_request(server, grobid)() for _ in range(2)]
        assert _accepted(server) == sum(size)
    for thread, _ in held:
        thread.join()
    assert [result["answer"][0] for _, result in held] == [200] * sum(size)
    for answer in refused:
        assert answer[0] == 503 and "busy" in error_of(answer), answer
        assert int(answer[1]["retry-after"]) > 0


@pytest.mark.slow
def test_time_limit_is_504_and_the_server_goes_on(grobid):
    with Server(["--model", "fast", "--workers", "1", "--timeout", "1", "--token", TOKEN,
                 "--grobid", grobid.url]) as server:
        with grobid.hold():  # GROBID answers only once the server has given up
            answer = _pdf_request(server, grobid)()
        assert answer[0] == 504 and "limit of 1s" in error_of(answer)
        _healthy_again(server)


@pytest.mark.slow
def test_worker_killed_mid_request_fails_that_request_only(server, grobid):
    with grobid.hold():  # the request waits in its worker until the worker is killed
        slow, results = _in_thread(_pdf_request(server, grobid))
        busy = wait_for(lambda: health(server)["busy_pids"], what="a busy worker")[0]
        other = call(server, "annotate", EXAMPLE.read_bytes(), {"Content-Type": "text/xml"})
        os.kill(busy, signal.SIGKILL)
        slow.join()
    assert other[0] == 200  # the other worker went on
    answer = results["answer"]
    assert answer[0] == 500 and "worker process" in error_of(answer)
    stats = _healthy_again(server)
    assert busy not in stats["worker_pids"] and stats["workers_lost"] >= 1


@pytest.mark.slow
def test_grobid_busy_is_503_and_down_is_502_naming_grobid(server, grobid):
    grobid.mode = "busy"
    try:
        busy = _pdf_request(server, grobid)()
    finally:
        grobid.mode = "ok"
    assert busy[0] == 503 and "GROBID" in error_of(busy) and "retry-after" in busy[1]
    with grobid.down():
        down = _pdf_request(server, grobid)()
    assert down[0] == 502 and "GROBID" in error_of(down) and "cannot reach" in error_of(down)
    assert _pdf_request(server, grobid)()[0] == 200


@pytest.mark.slow
def test_pdf_without_grobid_is_read_by_the_embedded_reader(tmp_path):
    from pdf_fixtures import image_only, two_columns

    with Server(["--model", "fast", "--workers", "1"], env={"CORESC_GROBID_URL": ""}) as srv:
        answer = call(srv, "annotate?to=jsonl", two_columns(),
                      {"Content-Type": "application/pdf"}, auth=False)
        scanned = call(srv, "annotate", image_only(), {"Content-Type": "application/pdf"},
                       auth=False)
    assert answer[0] == 200 and b"Left column sentence number 1 is read first." in answer[2]
    assert scanned[0] == 422 and "has no text layer" in error_of(scanned)


def _healthy_again(server) -> dict:
    def recovered():
        stats = health(server)
        return stats if stats["ready"] == stats["workers"] and stats["busy"] == 0 else None

    stats = wait_for(recovered, what="the server to recover")
    assert call(server, "annotate", b"A short text. It has two sentences.",
                {"Content-Type": "text/plain"})[0] == 200
    return stats


@pytest.mark.slow
def test_default_model_answers_the_cli_bytes(default_model, capsysbinary):
    """Without --model: the bundled default (the accurate tier, with its sentence encoder
    on one thread per worker) gives what the CLI gives."""
    with Server(["--workers", "1"]) as srv:
        status, _, answer = call(srv, "annotate?filename=example-paper.xml",
                                 EXAMPLE.read_bytes(), {"Content-Type": "application/xml"},
                                 auth=False)
        health = json.loads(call(srv, "health", auth=False)[2])
    assert status == 200 and health["model"] == "accurate"
    assert answer == cli_bytes(capsysbinary, str(EXAMPLE), "--to", "jsonl")

"""coresc serve's contract with a client, against a live server on 127.0.0.1: options
checked as the CLI checks them, nothing a client sends ignored, the CLI's warnings in a
header, every refusal in the documented shape, and an OpenAPI description a
schema-driven tester (Schemathesis) finds true.

One server (fast model, one worker, a token, a fake GROBID for PDFs) serves the module.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from fake_grobid import FakeGrobid
from helpers import AUTH, EXAMPLE, TOKEN, call, cli_bytes, error_of, form, pdf_pairs

from coresc.cli import main

pytest.importorskip("fastapi")
pytest.importorskip("python_multipart")
from coresc.serve.launch import Server  # noqa: E402

pytestmark = [pytest.mark.serve]

GERMAN = ("Die Zellen wurden bei Raumtemperatur mit einer Lösung gewaschen und danach unter "
          "dem Mikroskop gezählt. Wir beobachteten eine deutliche Zunahme der Zellzahl nach "
          "drei Tagen. ") * 6


@pytest.fixture(scope="module")
def grobid(tmp_path_factory):
    with FakeGrobid(pdf_pairs(tmp_path_factory.mktemp("grobid"))) as fake:
        yield fake


@pytest.fixture(scope="module")
def server(grobid):
    with Server(["--model", "fast", "--workers", "1", "--token", TOKEN,
                 "--grobid", grobid.url]) as srv:
        yield srv


@pytest.fixture(scope="module")
def plain_server():
    """No token, no GROBID: the other description (no security, no PDF)."""
    with Server(["--model", "fast", "--workers", "1"], env={"CORESC_GROBID_URL": ""}) as srv:
        yield srv


def text_call(server, query: str, text: str = "A short text. It has two sentences.",
              headers: dict | None = None, **kw) -> tuple[int, dict, bytes]:
    return call(server, f"annotate{query}", text.encode(),
                {"Content-Type": "text/plain", **(headers or {})}, **kw)


def multipart(*fields: tuple[str, str | None, bytes]) -> tuple[bytes, dict]:
    """A multipart/form-data body with these (field, filename or None, data) parts."""
    boundary = uuid.uuid4().hex
    body = b""
    for name, filename, data in fields:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"'
                                                      if filename is not None else "")
        body += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + \
            data + b"\r\n"
    return body + f"--{boundary}--\r\n".encode(), \
        {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def strict_json_lines(data: bytes) -> list[dict]:
    """Each line as JSON, refusing the non-JSON constants Python would accept."""
    def refuse(name: str):
        raise ValueError(f"not JSON: {name}")
    return [json.loads(line, parse_constant=refuse) for line in data.splitlines()]


# ------------------------------------------------------------------ item 9: min_score


@pytest.mark.parametrize("value", ["2", "-1", "1.0001", "nan", "inf", "-inf", "Infinity",
                                   "NaN", "1e309"])
def test_min_score_out_of_range_is_400_as_the_cli_refuses_it(server, capsys, value):
    answer = text_call(server, f"?min_score={value}")
    assert answer[0] == 400, answer
    assert error_of(answer).startswith(f"min_score={value}: ")
    assert "a probability between 0 and 1" in error_of(answer)
    assert main(["annotate", str(EXAMPLE), f"--min-score={value}", "-q"]) == 2
    assert "--min-score must be a probability between 0 and 1" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["", "high", "0x1", "1_0", "%200.5", "0.5.1"])
def test_min_score_that_is_no_number_is_400(server, value):
    answer = text_call(server, f"?min_score={value}")
    shown = value.replace("%20", " ")
    assert answer[0] == 400 and error_of(answer).startswith(f"min_score={shown}: not a number")


@pytest.mark.parametrize("value", ["0", "1", "0.6", "1e-3", ".5"])
def test_min_score_in_range_answers_json(server, value):
    status, _, body = text_call(server, f"?min_score={value}")
    assert status == 200 and strict_json_lines(body)


# ------------------------------------------------------------------ item 10: warnings


def test_warnings_of_the_cli_come_in_a_header(server, capsys, tmp_path):
    paper = tmp_path / "deutsch.txt"
    paper.write_text(GERMAN, encoding="utf-8")
    assert main(["annotate", str(paper), "--to", "tsv", "-q"]) == 0
    cli_line = capsys.readouterr().err.strip()
    assert cli_line.startswith("coresc annotate: warning: ")
    expected = cli_line.removeprefix("coresc annotate: warning: ").replace(f"{tmp_path}/", "")
    status, headers, _ = call(server, "annotate?to=tsv",
                              *form(GERMAN.encode(), "deutsch.txt", ctype="text/plain"))
    assert status == 200
    assert json.loads(headers["x-coresc-warning"]) == expected
    # a raw body is standard input: named stdin, as in the server's errors
    status, headers, _ = text_call(server, "", GERMAN)
    assert json.loads(headers["x-coresc-warning"]) == expected.replace("deutsch.txt:",
                                                                       "stdin:")


def test_no_warning_for_english_and_a_header_stays_ascii(server):
    status, headers, _ = call(server, "annotate", *form(EXAMPLE.read_bytes(), EXAMPLE.name))
    assert status == 200 and "x-coresc-warning" not in {k.lower() for k in headers}
    status, headers, _ = call(server, "annotate", *form(GERMAN.encode(), "Zelltüten.txt"))
    value = headers["x-coresc-warning"]
    assert value.isascii() and json.loads(value).startswith("Zelltüten.txt: text does not")


def test_a_name_beyond_ascii_is_an_ascii_header(plain_server):
    """Found by Schemathesis: a file name outside Latin-1 was a 500 (the header could not
    be encoded); now the header is ASCII, with the whole name in filename*."""
    from urllib.parse import quote, unquote

    name = "Zelltüten𫡩.txt"
    status, headers, _ = call(plain_server, f"annotate?filename={quote(name)}",
                              b"A short text. It has two sentences.",
                              {"Content-Type": "text/plain"})
    value = headers["content-disposition"]
    assert status == 200 and value.isascii()
    assert value.startswith('inline; filename="Zellt_ten__coresc.jsonl"')
    assert unquote(value.split("filename*=UTF-8''")[1]) == "Zelltüten𫡩_coresc.jsonl"


# ------------------------------------------------------------------ item 11: to=tei


def test_tei_output_needs_tei_input(server, fixtures, capsysbinary):
    answer = call(server, "annotate?to=tei", *form(EXAMPLE.read_bytes(), EXAMPLE.name))
    assert answer[0] == 400
    assert error_of(answer).startswith("example-paper.xml: TEI output needs TEI input")
    tei = fixtures / "tei_grobid_small.xml"
    status, headers, body = call(server, "annotate?to=tei", *form(tei.read_bytes(), tei.name))
    assert status == 200 and headers["content-type"].startswith("application/xml")
    assert body == cli_bytes(capsysbinary, str(tei), "--to", "xml") and b"<TEI" in body[:2000]


def test_tei_by_accept_on_other_input_is_406(server):
    body, headers = form(EXAMPLE.read_bytes(), EXAMPLE.name)
    answer = call(server, "annotate", body, {**headers, "Accept": "application/tei+xml"})
    assert answer[0] == 406 and "TEI output needs TEI input" in error_of(answer)


# ------------------------------------------------------------------ item 12: ignored input


@pytest.mark.parametrize("query,words", [
    ("?model=fast", "model=fast: this server answers with the model it was started with"),
    ("?foo=bar", "unknown parameter foo (known: to, format, min_score, domain, filename)"),
    ("?foo=1&Bar=2", "unknown parameters Bar, foo"),
    ("?to=xml&to=tsv", "to: given more than once"),
    ("?format=docx", "format=docx: unknown input format"),
    ("?domain=", "domain=: empty"),
])
def test_unknown_and_repeated_parameters_are_400_naming_them(server, query, words):
    answer = text_call(server, query)
    assert answer[0] == 400 and words in error_of(answer), answer


@pytest.mark.parametrize("fields,words", [
    ([("file", "a.txt", b"One text."), ("file", "b.txt", b"Another.")],
     "the form has 2 paper fields ('file', 'file')"),
    ([("file", "a.txt", b"One text."), ("text", None, b"Pasted.")],
     "the form has 2 paper fields ('file', 'text')"),
    ([("file", "a.txt", b"One text."), ("to", None, b"tsv")],
     "unknown form field 'to': the form holds one paper, as 'file' (or 'text' for pasted "
     "text); options go in the query string"),
])
def test_ambiguous_forms_are_400_naming_the_fields(server, fields, words):
    answer = call(server, "annotate", *multipart(*fields))
    assert answer[0] == 400 and words in error_of(answer), answer


# ------------------------------------------------------------------ item 13: the shape


@pytest.mark.parametrize("method,path,status,words", [
    ("GET", "nosuch", 404, "/nosuch: no such endpoint"),
    ("GET", "annotate", 405, "GET /annotate: method not allowed (allowed: POST)"),
    ("DELETE", "model", 405, "DELETE /model: method not allowed (allowed: GET)"),
])
def test_unknown_routes_and_methods_answer_the_documented_shape(server, method, path,
                                                                status, words):
    answer = call(server, path, method=method)
    assert answer[0] == status and set(json.loads(answer[2])) == {"error", "status"}
    assert words in error_of(answer) and answer[1]["content-type"] == "application/json"
    if status == 405:
        assert answer[1]["allow"]


def test_401_says_bearer_and_the_scheme_is_any_case(server):
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic eDp5"},
                    {"Authorization": f"Token {TOKEN}"}):
        answer = text_call(server, "", headers=headers, auth=False)
        assert answer[0] == 401 and answer[1]["www-authenticate"].startswith("Bearer")
        assert "token" in error_of(answer)
    for scheme in ("bearer", "BEARER", "Bearer", "bEaReR"):
        answer = text_call(server, "", headers={"Authorization": f"{scheme} {TOKEN}"},
                           auth=False)
        assert answer[0] == 200, (scheme, answer)
    assert call(server, "model", headers={"Authorization": f"bearer {TOKEN}"},
                auth=False)[0] == 200


# ------------------------------------------------------------------ item 13b: OpenAPI


def test_openapi_says_the_media_types_values_and_bodies(server):
    spec = json.loads(call(server, "openapi.json", auth=False)[2])
    post = spec["paths"]["/annotate"]["post"]
    ok = post["responses"]["200"]
    assert set(ok["content"]) == {"application/x-ndjson", "application/xml",
                                  "text/tab-separated-values", "text/html",
                                  "application/json", "application/vnd.apache.parquet"}
    assert ok["content"]["application/vnd.apache.parquet"]["schema"]["format"] == "binary"
    assert "X-Coresc-Warning" in ok["headers"]
    params = {p["name"]: p["schema"] for p in post["parameters"]}
    assert set(params) == {"to", "format", "min_score", "domain", "filename"}
    assert set(params["to"]["enum"]) == {"json", "jsonl", "xml", "tei", "mode2", "tsv", "html",
                                         "bioc", "bioc-json", "w3c", "pubannotation",
                                         "parquet"}
    assert "auto" in params["format"]["enum"] and "jats" in params["format"]["enum"]
    assert (params["min_score"]["type"], params["min_score"]["minimum"],
            params["min_score"]["maximum"]) == ("number", 0, 1)
    assert params["domain"]["enum"] == ["art-corpus", "cra-corpus"]
    body = post["requestBody"]["content"]
    assert {"multipart/form-data", "text/plain", "application/xml", "application/pdf"} <= \
        set(body)
    assert body["multipart/form-data"]["schema"]["maxProperties"] == 1
    for path in spec["paths"].values():
        for operation in path.values():
            for status, answer in operation["responses"].items():
                assert answer.get("content"), (status, answer)
                if status != "200":
                    assert set(answer["content"]) == {"application/json"}
    assert spec["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert "HTTPValidationError" not in json.dumps(spec)


def test_an_empty_to_is_refused(server):
    answer = text_call(server, "?to=")
    assert answer[0] == 400 and "to=: unknown output format" in error_of(answer)


RAW = ("application/xml", "text/xml", "text/plain", "application/octet-stream",
       "application/pdf")


def test_a_raw_body_is_described_as_it_is_sent(plain_server):
    """Issue 53 (Schemathesis ST201): an XML body described as a plain string is a value
    a client wraps in XML, so Schemathesis sent an empty one as ``<data></data>`` and took
    the 200 for a body shorter than ``minLength`` accepted. Every raw body but plain text
    is bytes sent as they are (``format: binary``); an empty one is refused as the schema
    says, and ``<data></data>`` is the 13-byte paper it is."""
    spec = json.loads(call(plain_server, "openapi.json")[2])
    content = spec["paths"]["/annotate"]["post"]["requestBody"]["content"]
    for media in RAW:
        schema = content[media]["schema"]
        assert schema["minLength"] == 1 and schema["type"] == "string"
        assert schema.get("format") == (None if media == "text/plain" else "binary"), media
        empty = call(plain_server, "annotate?to=tsv&format=text", b"",
                     {"Content-Type": media})
        assert empty[0] == 422 and "nothing on standard input" in error_of(empty), media
    answer = call(plain_server, "annotate?to=tsv&format=text", b"<data></data>",
                  {"Content-Type": "application/xml"})
    assert answer[0] == 200 and b"<data></data>" in answer[2]


def test_schemathesis_sends_an_xml_body_as_it_is():
    """What Schemathesis makes of the description's XML body: the bytes themselves, so an
    empty body is empty (where it was ``<data></data>``)."""
    serialization = pytest.importorskip("schemathesis.transport.serialization")
    from coresc.serve.openapi import annotate_body

    for media in ("application/xml", "text/xml"):
        schema = annotate_body(grobid=False)["content"][media]["schema"]
        for value in ("", "<p>A paper.</p>"):
            sent = serialization.serialize_xml_with_schema(value, schema, None)["data"]
            assert (sent.encode() if isinstance(sent, str) else sent) == value.encode()


def test_a_file_name_no_output_can_hold_is_escaped_in_the_id(plain_server):
    """Schemathesis (issue 53): a control character in ``filename`` made the mode2 XML
    unwritable, a 500; the paper id holds it escaped, as a file name that is not UTF-8."""
    answer = call(plain_server, "annotate?filename=a%0Bb.txt&format=text&to=mode2",
                  b"A short text. It has two sentences.", {"Content-Type": "text/plain"})
    assert answer[0] == 200, answer
    assert b'name="a\\x0bb"' in answer[2]


CONFIG = """\
# A schema-valid body may still be no paper (binary data, XML of an unknown kind): its
# content, not its form, is what the server cannot read, and 422 says so (docs/serve.md).
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "422"]
"""


def test_without_grobid_the_upload_reads_a_pdf(plain_server):
    from pdf_fixtures import two_columns

    pdf = two_columns()
    declared = call(plain_server, "annotate", *form(pdf, "a.pdf", ctype="application/pdf"))
    assert declared[0] == 200 and b"Left column sentence number 1" in declared[2]
    disguised = call(plain_server, "annotate", *form(pdf, "a.xml", ctype="application/xml"))
    assert disguised[0] == 200 and b"Right column sentence number 30" in disguised[2]
    spec = json.loads(call(plain_server, "openapi.json")[2])
    assert "application/pdf" in spec["paths"]["/annotate"]["post"]["requestBody"]["content"]
    assert "security" not in spec["paths"]["/annotate"]["post"]


@pytest.mark.slow
@pytest.mark.parametrize("which", ["server", "plain_server"])
def test_schemathesis_finds_the_description_true(which, request, tmp_path):
    """Schemathesis (every check, its coverage and fuzzing phases, at most 25 cases per
    operation, deterministic) against the live server, with a token and GROBID and with
    neither: no failure."""
    server = request.getfixturevalue(which)
    tool = shutil.which("schemathesis") or str(Path(sys.executable).with_name("schemathesis"))
    if not Path(tool).exists():
        pytest.skip("schemathesis is not installed (pip install '.[test]')")
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG, encoding="utf-8")
    run = subprocess.run(
        [tool, "--config-file", str(config), "--no-color", "run",
         server.url + "openapi.json", "--checks", "all", "--max-examples", "25",
         "--generation-deterministic", "--workers", "1", "--request-timeout", "20",
         "--header", f"Authorization: {AUTH['Authorization']}"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr[-2000:]
    assert "3 selected / 3 total" in run.stdout and "failure" not in run.stdout.lower()

"""The HTTP helpers of coresc serve, without a server: content negotiation, the media types
it reads, and the in-memory multipart parser (Hypothesis: any file name, any bytes)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("python_multipart")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from coresc.serve.http import (  # noqa: E402
    check_readable,
    choose_output,
    form_paper,
    parse_min_score,
    query_options,
    warning_value,
)
from coresc.serve.work import Failure  # noqa: E402


def encode(fields: list[tuple[str, str | None, bytes]], boundary: str = "b0und4ry") -> bytes:
    body = b""
    for name, filename, data in fields:
        disposition = f'form-data; name="{name}"'
        if filename is not None:
            disposition += f'; filename="{filename}"'
        body += (f"--{boundary}\r\nContent-Disposition: {disposition}\r\n"
                 f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n"
    return body + f"--{boundary}--\r\n".encode()


CTYPE = "multipart/form-data; boundary=b0und4ry"


@pytest.mark.parametrize("to,accept,expected", [
    (None, None, "json"), ("TSV", "text/html", "tsv"), (None, "*/*", "json"),
    (None, "text/html,application/xml;q=0.9", "html"),
    (None, "application/xml;q=0.5, text/tab-separated-values", "tsv"),
    (None, "image/png, */*;q=0.1", "json"), (None, "application/tei+xml", "tei"),
])
def test_choose_output(to, accept, expected):
    assert choose_output(to, accept) == expected


def test_choose_output_refuses_what_it_cannot_answer():
    with pytest.raises(Failure, match="unknown output format") as bad_to:
        choose_output("docx", None)
    with pytest.raises(Failure, match="none of these") as bad_accept:
        choose_output(None, "image/png, text/html;q=0")
    assert (bad_to.value.status, bad_accept.value.status) == (400, 406)


@given(st.text(max_size=80))
def test_any_accept_header_is_a_format_or_406(accept):
    try:
        assert choose_output(None, accept) in ("json", "xml", "tei", "tsv", "html")
    except Failure as exc:
        assert exc.status == 406


@pytest.mark.parametrize("ctype", [None, "application/xml", "text/plain; charset=utf-8",
                                   "application/jats+xml", "application/pdf",
                                   "application/x-www-form-urlencoded"])
def test_readable_media_types(ctype):
    check_readable(ctype, "body")


@pytest.mark.parametrize("ctype", ["image/png", "application/zip", "audio/mpeg",
                                   "application/vnd.ms-excel"])
def test_unreadable_media_types_are_415(ctype):
    with pytest.raises(Failure, match="is not a paper") as exc:
        check_readable(ctype, "body")
    assert exc.value.status == 415


@settings(max_examples=60)
@given(data=st.binary(max_size=2000),
       filename=st.text(st.characters(blacklist_characters='"\r\n\\/',
                                      blacklist_categories=("Cs", "Cc")), min_size=1,
                        max_size=40).filter(str.strip))
def test_multipart_gives_back_the_file_byte_for_byte(data, filename):
    body = encode([("file", filename, data)])
    name, got, _ = form_paper(body, CTYPE)
    assert got == data and name == filename.strip()


def test_multipart_names_without_folders_and_pasted_text():
    name, got, _ = form_paper(encode([("file", "C:\\papers\\a.nxml", b"<article/>")]), CTYPE)
    assert (name, got) == ("a.nxml", b"<article/>")
    name, got, _ = form_paper(encode([("text", None, b"Pasted text.")]), CTYPE)
    assert (name, got) == (None, b"Pasted text.")


@pytest.mark.parametrize("fields,words", [
    ([("options", None, b"x"), ("file", "a.txt", b"A.")], "unknown form field 'options'"),
    ([("file", "a.txt", b"A."), ("file", "b.txt", b"B.")], "2 paper fields ('file', 'file')"),
    ([("file", "a.txt", b"A."), ("text", None, b"")], "2 paper fields ('file', 'text')"),
])
def test_a_form_holds_one_paper_and_nothing_else(fields, words):
    with pytest.raises(Failure, match=words.replace("(", r"\(").replace(")", r"\)")) as exc:
        form_paper(encode(fields), CTYPE)
    assert exc.value.status == 400


def test_query_parameters_are_known_and_given_once():
    assert query_options([("to", "xml"), ("min_score", "0.5")]) == {"to": "xml",
                                                                     "min_score": "0.5"}
    for pairs, words in (([("foo", "1")], "unknown parameter foo"),
                         ([("to", "xml"), ("to", "tsv")], "to: given more than once"),
                         ([("model", "fast")], "model=fast: this server answers")):
        with pytest.raises(Failure, match=words) as exc:
            query_options(pairs, model="accurate")
        assert exc.value.status == 400


@given(st.text(max_size=12))
def test_min_score_is_a_probability_or_400(value):
    try:
        number = parse_min_score(value)
    except Failure as exc:
        assert exc.status == 400 and exc.message.startswith(f"min_score={value}: ")
    else:
        assert number is not None and 0.0 <= number <= 1.0


def test_an_empty_to_is_no_format():
    with pytest.raises(Failure, match="to=: unknown output format"):
        choose_output("", "text/html")


def test_warning_header_values_are_ascii_json_strings():
    lines = ["a.txt: text does not look like English", 'Zelltüten "1".txt: x, y']
    joined = ", ".join(warning_value(line) for line in lines)  # as fetch() joins them
    assert joined.isascii() and json.loads(f"[{joined}]") == lines


def test_multipart_without_a_paper_or_boundary():
    with pytest.raises(Failure, match="no paper") as exc:
        form_paper(encode([("other", "a.txt", b"x")]), CTYPE)
    assert exc.value.status == 422
    with pytest.raises(Failure, match="boundary"):
        form_paper(b"", "multipart/form-data")

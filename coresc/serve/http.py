"""The HTTP side of ``POST /annotate``: the body (size-limited, kept in memory), the
multipart form, the media types read and written, and content negotiation.

Nothing a client sends is written to disk: the body is read into memory up to the size
limit, and a multipart form is parsed there too.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from .work import Failure

#: Output formats: the name in ``?to=`` -> (the CLI's --to, the answer's media type).
OUTPUTS: dict[str, tuple[str, str]] = {
    "json": ("jsonl", "application/x-ndjson; charset=utf-8"),
    "jsonl": ("jsonl", "application/x-ndjson; charset=utf-8"),
    "xml": ("xml", "application/xml; charset=utf-8"),
    "tei": ("xml", "application/xml; charset=utf-8"),
    "mode2": ("mode2", "application/xml; charset=utf-8"),
    "tsv": ("tsv", "text/tab-separated-values; charset=utf-8"),
    "html": ("html", "text/html; charset=utf-8"),
    "bioc": ("bioc", "application/xml; charset=utf-8"),
    "bioc-json": ("bioc-json", "application/json; charset=utf-8"),
    "w3c": ("w3c", "application/x-ndjson; charset=utf-8"),
    "pubannotation": ("pubannotation", "application/json; charset=utf-8"),
    "parquet": ("parquet", "application/vnd.apache.parquet"),
}
DEFAULT_OUTPUT = "json"
#: Accept header media type -> the ``?to=`` name it asks for.
ACCEPT = {
    "application/json": "json", "application/x-ndjson": "json", "application/jsonl": "json",
    "application/xml": "xml", "text/xml": "xml", "application/tei+xml": "tei",
    "text/tab-separated-values": "tsv", "text/html": "html",
}
#: Media types of papers (besides text/*, */*+xml and */*+json): what the CLI reads.
#: x-www-form-urlencoded is what ``curl --data-binary @paper.xml`` declares: the raw paper.
READABLE = {"application/x-www-form-urlencoded",
    "", "application/octet-stream", "application/xml", "application/json",
    "application/x-ndjson", "application/jsonl", "application/x-jsonlines", "application/pdf",
    "application/x-pdf", "multipart/form-data",
}
#: The form fields that may hold the paper (a file upload, or pasted text); a form holds
#: one of them, and nothing else.
PAPER_FIELDS = ("file", "paper", "text")
#: The query parameters of ``POST /annotate``.
QUERY = ("to", "format", "min_score", "domain", "filename")
#: The header that carries each warning the CLI prints beside its output (a JSON string).
WARNING_HEADER = "X-Coresc-Warning"
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def media_type(value: str | None) -> str:
    return (value or "").split(";")[0].strip().lower()


def check_readable(content_type: str | None, what: str) -> None:
    """:class:`Failure` 415 unless ``content_type`` may be a paper the CLI reads."""
    mt = media_type(content_type)
    if mt in READABLE or mt.startswith("text/") or mt.endswith(("+xml", "+json")):
        return
    raise Failure(415, f"{what}: media type {mt!r} is not a paper coresc reads (send XML: "
                       "JATS, Elsevier, TEI, SciXML, mode2; plain text; JSONL; or a PDF "
                       "when the server has GROBID)")


def choose_output(to: str | None, accept: str | None) -> str:
    """The ``?to=`` name: the parameter (given, it must be one: empty is not), else the
    first known type in Accept (by q)."""
    if to is not None:
        key = to.strip().lower()
        if key not in OUTPUTS:
            raise Failure(400, f"to={to}: unknown output format (known: {', '.join(OUTPUTS)})")
        return key
    ranked = []
    for i, item in enumerate((accept or "").split(",")):
        parts = [p.strip() for p in item.split(";")]
        q = next((_q(p[2:]) for p in parts[1:] if p.startswith("q=")), 1.0)
        if q > 0 and parts[0]:
            ranked.append((-q, i, parts[0].lower()))
    for _, _, mt in sorted(ranked):
        if mt in ACCEPT:
            return ACCEPT[mt]
        if mt in ("*/*", "application/*"):
            return DEFAULT_OUTPUT
    if not ranked:
        return DEFAULT_OUTPUT
    raise Failure(406, f"Accept: {accept}: none of these can be answered (known: "
                       f"{', '.join(sorted(ACCEPT))}; or give ?to=)")


def query_options(pairs: list[tuple[str, str]], known: tuple[str, ...] = QUERY,
                  model: str = "") -> dict[str, str]:
    """The query parameters as a dict; :class:`Failure` 400 naming any unknown or repeated
    one (a parameter the server would ignore is a request it would answer wrongly)."""
    names = [name for name, _ in pairs]
    if "model" in names:
        raise Failure(400, f"model={dict(pairs)['model']}: this server answers with the model "
                           f"it was started with ({model}); start another `coresc serve "
                           f"--model ...` for another model")
    unknown = sorted({n for n in names if n not in known})
    if unknown:
        raise Failure(400, f"unknown parameter{'s' * (len(unknown) > 1)} "
                           f"{', '.join(unknown)} (known: {', '.join(known)})")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise Failure(400, f"{', '.join(repeated)}: given more than once; give each once")
    return dict(pairs)


def parse_min_score(value: str | None) -> float | None:
    """``?min_score=`` as ``--min-score``: a probability, 0 to 1; :class:`Failure` 400."""
    if value is None:
        return None
    if not _NUMBER.fullmatch(value):
        raise Failure(400, f"min_score={value}: not a number (a probability between 0 and 1, "
                           f"as --min-score)")
    number = float(value)
    if not (math.isfinite(number) and 0.0 <= number <= 1.0):
        raise Failure(400, f"min_score={value}: must be a probability between 0 and 1 "
                           f"(as --min-score)")
    return number


def warning_value(line: str) -> str:
    """A warning as a header value: a JSON string, non-ASCII as ``\\u`` escapes (a header
    holds ASCII; several values joined by commas read as a JSON array's items)."""
    return json.dumps(line, ensure_ascii=True)


def _q(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        return 1.0


#: Bytes past the limit read (and dropped) before a 413, so that a client still sending
#: its body hears the answer instead of a broken connection; beyond that, it is cut off.
DRAIN = 16_000_000


async def read_body(request: Any, limit: int) -> bytes:
    """The whole body, in memory; :class:`Failure` 413 past ``limit`` bytes."""
    declared = request.headers.get("content-length", "")
    too_large = declared.isdigit() and int(declared) > limit
    if too_large and int(declared) > limit + DRAIN:
        raise _too_large(limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            too_large = True
            if size > limit + DRAIN:
                break
            continue
        chunks.append(chunk)
    if too_large:
        raise _too_large(limit)
    return b"".join(chunks)


def _too_large(limit: int) -> Failure:
    return Failure(413, f"the paper is larger than this server's limit of "
                        f"{limit / 1e6:g} MB (coresc serve --max-size)")


def form_paper(body: bytes, content_type: str) -> tuple[str | None, bytes, str]:
    """The paper in a multipart form: (file name or None, bytes, its media type).

    The form holds one field, ``file`` (or ``text`` for pasted text): :class:`Failure`
    400 naming the fields of a form with others, or with more than one."""
    parts = parse_multipart(body, content_type)
    papers = [part for part in parts if part[0] in PAPER_FIELDS]
    unknown = sorted({part[0] for part in parts} - set(PAPER_FIELDS))
    if papers and unknown:
        hint = "; options go in the query string (?to=...)" if set(unknown) & set(QUERY) else ""
        raise Failure(400, f"unknown form field{'s' * (len(unknown) > 1)} "
                           f"{', '.join(map(repr, unknown))}: the form holds one paper, as "
                           f"'file' (or 'text' for pasted text){hint}")
    if len(papers) > 1:
        raise Failure(400, f"the form has {len(papers)} paper fields "
                           f"({', '.join(repr(p[0]) for p in papers)}): send one paper, as "
                           f"'file' or as 'text'")
    if papers and (papers[0][1] or papers[0][3].strip()):
        _, filename, ctype, data = papers[0]
        return filename or None, data, ctype
    raise Failure(422, f"the form has no paper: send it as a file field named 'file' "
                       f"(or paste text into a field named 'text'); fields seen: "
                       f"{', '.join(p[0] for p in parts) or 'none'}")


def parse_multipart(body: bytes, content_type: str) -> list[tuple[str, str, str, bytes]]:
    """``(field, filename, content type, data)`` of each part of a multipart/form-data body."""
    from python_multipart.multipart import MultipartParser, parse_options_header

    _, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    if not boundary:
        raise Failure(400, "multipart/form-data without a boundary")
    parts: list[dict[str, Any]] = []
    header: dict[str, bytes] = {}

    def on_part_begin() -> None:
        parts.append({"headers": {}, "data": []})

    def on_header_field(data: bytes, start: int, end: int) -> None:
        header["field"] = header.get("field", b"") + data[start:end]

    def on_header_value(data: bytes, start: int, end: int) -> None:
        header["value"] = header.get("value", b"") + data[start:end]

    def on_header_end() -> None:
        key = header.pop("field", b"").decode("latin-1").lower()
        parts[-1]["headers"][key] = header.pop("value", b"")

    def on_part_data(data: bytes, start: int, end: int) -> None:
        parts[-1]["data"].append(data[start:end])

    parser = MultipartParser(boundary, {
        "on_part_begin": on_part_begin, "on_header_field": on_header_field,
        "on_header_value": on_header_value, "on_header_end": on_header_end,
        "on_part_data": on_part_data})
    try:
        parser.write(body)
        parser.finalize()
    except Exception as exc:  # python-multipart's errors have no common base
        raise Failure(400, f"malformed multipart/form-data body ({exc})") from None
    out = []
    for part in parts:
        _, disp = parse_options_header(part["headers"].get("content-disposition", b""))
        filename = disp.get(b"filename")
        out.append((disp.get(b"name", b"").decode("utf-8", "replace"),
                    _safe_name(filename.decode("utf-8", "replace")) if filename else "",
                    part["headers"].get("content-type", b"").decode("latin-1"),
                    b"".join(part["data"])))
    return out


def _safe_name(filename: str) -> str:
    """The file name without any folder (a browser may send a path); it names the paper."""
    return filename.replace("\\", "/").rsplit("/", 1)[-1].strip() or "upload"

"""The OpenAPI description of ``coresc serve``: what each answer's media type is, which
values each parameter takes, which bodies are read, and the JSON of every refusal.

FastAPI's own description knows none of this (it would call every answer
``application/json`` and every parameter a free string), so ``POST /annotate`` is
described here in full, from the same tables the server checks requests against
(:mod:`coresc.serve.http`), and for this server: PDFs and 502 only with GROBID, the
token only with ``--token``, the ``domain`` values of its model.
"""

from __future__ import annotations

from typing import Any

from ..readers import FORMATS
from .http import OUTPUTS, WARNING_HEADER

_ERROR_REF = {"$ref": "#/components/schemas/Error"}
_TEXT = {"type": "string"}
_BINARY = {"type": "string", "format": "binary"}
#: Answers that are files, not text (Parquet).
BINARY_MEDIA = ("application/vnd.apache.parquet",)

#: The refusals of ``POST /annotate``: status -> when.
ANNOTATE_ERRORS = {
    400: "a bad option: an unknown or repeated parameter, a value out of range, `to=tei` "
         "for a paper that is not TEI, a form with other fields than one paper",
    401: "token missing or wrong",
    406: "nothing in Accept can be answered (or Accept asks for TEI and the paper is not)",
    413: "the body is larger than the server's --max-size",
    415: "a media type that is no paper",
    422: "the paper cannot be read (the CLI's one-line message): its bytes are no paper in "
         "the format given or detected; no schema can say which bytes are",
    500: "the worker died while annotating this paper (it is replaced)",
    502: "GROBID cannot be reached",
    503: "busy: every worker busy and the queue full, or GROBID busy; see Retry-After",
    504: "over the per-request time limit",
}

#: The media types of raw bodies described (besides multipart/form-data): a paper's bytes as
#: they are. The server also reads JSON lines (application/json, application/x-ndjson: not
#: described, as a JSON schema would describe one JSON value, not a file of them), any
#: text/*, */*+xml and */*+json, and what `curl --data-binary` declares.
RAW_BODIES = ("application/xml", "text/xml", "text/plain", "application/octet-stream")


def describe(spec: dict[str, Any], *, token: bool, grobid: bool,
             domains: list[str]) -> dict[str, Any]:
    """``spec`` (FastAPI's description) with ``POST /annotate`` described in full, the
    refusals of the other endpoints, the error schema and the token's scheme."""
    paths = spec["paths"]
    post = paths["/annotate"]["post"]
    post["parameters"] = annotate_parameters(domains)
    post["requestBody"] = annotate_body(grobid)
    post["responses"] = annotate_responses(token, grobid)
    security = [{"bearer": []}] if token else []
    if token:
        post["security"] = security
        paths["/model"]["get"]["security"] = security
        paths["/model"]["get"]["responses"]["401"] = _error(ANNOTATE_ERRORS[401], 401)
    paths["/health"]["get"]["responses"]["503"] = {
        "description": "no worker is ready yet (the same JSON, status starting)",
        "content": {"application/json": {"schema": {"type": "object"}}}}
    components = spec.setdefault("components", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        components.get("schemas", {}).pop(unused, None)
    components.setdefault("schemas", {})["Error"] = {
        "type": "object", "required": ["error", "status"],
        "properties": {"error": {"type": "string", "description": "one line"},
                       "status": {"type": "integer", "description": "the HTTP status"}}}
    if token:
        components["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
    return spec


def annotate_parameters(domains: list[str]) -> list[dict[str, Any]]:
    """The query parameters: each with its values (any other parameter is a 400)."""
    params = [
        _query("to", {"type": "string", "enum": list(OUTPUTS)},
               "output format: json (JSON lines, the CLI's jsonl), xml (TEI for TEI and PDF "
               "input, else mode2), tei (TEI input only), mode2, tsv, html, bioc (BioC XML), "
               "bioc-json, w3c (Web Annotation JSON-LD, one per line), pubannotation, "
               "parquet (the file -o FILE.parquet holds); without it, Accept chooses "
               "(default json)"),
        _query("format", {"type": "string", "enum": ["auto", *FORMATS], "default": "auto"},
               "input format, as --format (default: detected)"),
        _query("min_score", {"type": "number", "minimum": 0, "maximum": 1},
               "as --min-score: leave sentences whose primary label scores below it "
               "unlabelled"),
        _query("filename", {"type": "string"},
               "names a raw body (its paper id and, by its extension, how it is read); "
               "without it a raw body is standard input, paper id stdin"),
    ]
    if domains:  # a model trained on one corpus has none to choose from
        params.insert(3, _query("domain", {"type": "string", "enum": domains},
                                "treat the paper as one of this training corpus, as "
                                "--domain"))
    return params


def annotate_body(grobid: bool) -> dict[str, Any]:
    """The bodies read: a form with one paper (a file, or pasted text), or the paper raw."""
    readable = [*RAW_BODIES, "application/pdf"]
    paper = {"type": "string", "format": "binary",
             "description": "the paper: JATS, Elsevier, TEI, SciXML, mode2, plain text, "
                            "JSONL, PDF (GROBID's reading where the server has one)" if grobid
                            else "JSONL, PDF"}
    form = {"type": "object", "additionalProperties": False, "minProperties": 1,
            "maxProperties": 1, "description": "one paper: `file` (or `paper`), or `text`",
            "properties": {"file": paper, "paper": {**paper, "description": "as file"},
                           "text": {"type": "string", "minLength": 1,
                                    "description": "the paper's text, pasted"}}}
    content: dict[str, Any] = {"multipart/form-data": {
        "schema": form, "encoding": {"file": {"contentType": ", ".join(readable)},
                                     "paper": {"contentType": ", ".join(readable)}}}}
    for media in readable:
        # an XML body is the document's bytes as sent, not a value a client is to wrap in
        # XML: Schemathesis wrapped an empty string as <data></data> and took that for a
        # body shorter than minLength (issue 53); only plain text is a string as it is
        binary = media != "text/plain"
        content[media] = {"schema": {"type": "string", "minLength": 1,
                                     **({"format": "binary"} if binary else {})}}
    return {"required": True, "content": content}


def annotate_responses(token: bool, grobid: bool) -> dict[str, Any]:
    """The answer in each output format's media type, and each refusal's JSON."""
    media: dict[str, list[str]] = {}
    for name, (_, mt) in OUTPUTS.items():
        media.setdefault(mt.split(";")[0], []).append(name)
    ok = {"description": "the annotated paper: what `coresc annotate PAPER --to FORMAT` "
                         "writes to standard output, byte for byte",
          "headers": {
              "Content-Disposition": {"schema": _TEXT,
                                      "description": "inline; filename=<id>_coresc.<ext>"},
              WARNING_HEADER: {"schema": _TEXT, "description":
                               "one per warning the CLI prints (a paper that does not "
                               "look like English), each a JSON string"}},
          "content": {mt: {"schema": _BINARY if mt in BINARY_MEDIA else _TEXT,
                           "x-coresc-to": names} for mt, names in media.items()}}
    responses: dict[str, Any] = {"200": ok}
    for status, when in ANNOTATE_ERRORS.items():
        if (status == 401 and not token) or (status == 502 and not grobid):
            continue
        responses[str(status)] = _error(when, status)
    return responses


def _error(description: str, status: int) -> dict[str, Any]:
    answer: dict[str, Any] = {"description": description,
                              "content": {"application/json": {"schema": _ERROR_REF}}}
    if status == 401:
        answer["headers"] = {"WWW-Authenticate": {"schema": _TEXT,
                                                  "description": "Bearer"}}
    if status == 503:
        answer["headers"] = {"Retry-After": {"schema": {"type": "integer"},
                                             "description": "seconds to wait"}}
    return answer


def _query(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema,
            "description": description}

"""The web application: ``POST /annotate``, ``GET /model``, ``GET /health``, ``GET /``
(the upload page) and ``GET /openapi.json``.

Built on FastAPI (for the OpenAPI description); the annotation itself runs in the
:class:`~coresc.serve.pool.WorkerPool`. Every refusal is JSON ``{"error": message,
"status": code}``; for a paper the CLI cannot read, the message is the CLI's own line.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from .. import __version__
from .http import OUTPUTS, check_readable, choose_output, form_paper, media_type, read_body
from .pool import WorkerPool
from .work import STDIN, Failure
from .work import Request as Job


@dataclass(frozen=True)
class Settings:
    """What ``coresc serve`` was started with (besides the pool's own settings)."""

    model_dir: Path
    max_bytes: int = 50_000_000
    token: str | None = None
    grobid_url: str | None = None


_BODY_DOC = {"requestBody": {"required": True, "content": {
    "multipart/form-data": {"schema": {"type": "object", "properties": {
        "file": {"type": "string", "format": "binary", "description": "the paper"},
        "text": {"type": "string", "description": "or its text, pasted"}}}},
    "application/xml": {"schema": {"type": "string"}},
    "text/plain": {"schema": {"type": "string"}},
    "application/x-ndjson": {"schema": {"type": "string"}},
    "application/pdf": {"schema": {"type": "string", "format": "binary"}},
}}}
_ERRORS = {code: {"description": what} for code, what in (
    (400, "bad option"), (401, "token missing or wrong"), (406, "Accept cannot be met"),
    (413, "paper too large"), (415, "not a type of paper coresc reads (or a PDF without "
                                      "GROBID)"),
    (422, "the paper cannot be read: the CLI's one-line message"),
    (502, "GROBID cannot be reached"), (503, "busy (server queue full, or GROBID busy); "
                                              "see Retry-After"),
    (504, "over the per-request time limit"), (500, "the worker died"))}


def create_app(settings: Settings, pool: WorkerPool) -> FastAPI:
    app = FastAPI(title="coresc", version=__version__, docs_url=None, redoc_url=None,
                  description="Label every sentence of a scientific paper with its CoreSC "
                              "discourse role. The answers are `coresc annotate`'s, byte "
                              "for byte.")
    page = upload_page()
    facts = model_facts(settings.model_dir)

    @app.exception_handler(Failure)
    async def refused(request: Request, exc: Failure) -> JSONResponse:
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
        return JSONResponse({"error": exc.message, "status": exc.status}, exc.status,
                            headers=headers)

    def authorise(request: Request) -> None:
        if settings.token is None:
            return
        given = request.headers.get("authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {settings.token}".encode()):
            raise Failure(401, "this server needs a token: send the header "
                               "'Authorization: Bearer TOKEN'")

    @app.post("/annotate", openapi_extra=_BODY_DOC, responses=_ERRORS,
              summary="Annotate one paper (upload or raw body)")
    async def annotate(request: Request, to: str | None = None, format: str = "auto",
                       min_score: str | None = None, domain: str | None = None,
                       filename: str | None = None) -> Response:
        """Answers as `coresc annotate` on standard output: `to` = json (default), xml
        (TEI for TEI/PDF input, else mode2), tei, mode2, tsv or html (or ask by
        Accept); `min_score` as `--min-score`; `format`, `domain` as the CLI's.
        A raw body is standard input (paper id `stdin`) unless `filename` names it."""
        authorise(request)
        out = choose_output(to, request.headers.get("accept"))
        job = await read_job(request, settings.max_bytes, out, format, min_score, domain,
                             filename)
        data = await pool.submit(job)
        return Response(data, media_type=OUTPUTS[out][1],
                        headers={"Content-Disposition": disposition(job, out)})

    @app.get("/model", summary="The model's card, as JSON")
    async def model(request: Request) -> JSONResponse:
        authorise(request)
        return JSONResponse(facts)

    @app.get("/health", summary="Whether the model is loaded, and how busy the server is")
    async def health() -> JSONResponse:
        stats = pool.stats()
        ok = stats["ready"] > 0
        return JSONResponse({"status": "ok" if ok else "starting", "model_loaded": ok,
                             "model": facts["name"], "token_required": bool(settings.token),
                             "grobid": settings.grobid_url, "max_bytes": settings.max_bytes,
                             **stats}, 200 if ok else 503)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index() -> HTMLResponse:
        return HTMLResponse(page)

    return app


async def read_job(request: Request, limit: int, out: str, fmt: str, min_score: str | None,
                   domain: str | None, filename: str | None) -> Job:
    """The paper and options of one request; :class:`Failure` for a bad one."""
    ctype = request.headers.get("content-type")
    check_readable(ctype, "request body")
    body = await read_body(request, limit)
    name = Path(filename).name if filename else STDIN
    if media_type(ctype) == "multipart/form-data":
        upload, body, part_type = form_paper(body, ctype or "")
        check_readable(part_type, upload or "pasted text")
        name = upload or name
    try:
        threshold = float(min_score) if min_score not in (None, "") else None
    except ValueError:
        raise Failure(400, f"min_score={min_score}: not a number") from None
    return Job(data=body, name=name, to=OUTPUTS[out][0], fmt=fmt, min_score=threshold,
               domain=domain or None)


def disposition(job: Job, out: str) -> str:
    """``inline; filename=...``: the name the page (or ``curl -OJ``) saves it under."""
    from ..readers import paper_id_from_path
    from ..writers import get_writer

    suffix = get_writer(OUTPUTS[out][0]).suffix
    if job.name == STDIN:  # pasted text has no name of its own: not "stdin_coresc.tsv"
        return f'inline; filename="coresc{suffix}"'
    stem = paper_id_from_path(job.name)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in stem) or "paper"
    return f'inline; filename="{safe}_coresc{suffix}"'


def model_facts(directory: Path) -> dict[str, Any]:
    """The model card's facts: meta.json, config.json, evaluation.json and the card text."""
    from ..model.card import card_markdown

    def load(name: str) -> Any:
        path = directory / name
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None

    return {"name": directory.name, "config": load("config.json"), "meta": load("meta.json"),
            "evaluation": load("evaluation.json"), "card_markdown": card_markdown(directory)}


def upload_page() -> str:
    """The upload page: its script inlined and allowed by hash, nothing from elsewhere.

    The HTML view it shows (a blob: frame) inherits the page's policy, so the view's own
    script is allowed by its hash too.
    """
    static = resources.files("coresc") / "static"
    html = (static / "serve.html").read_text(encoding="utf-8")
    js = (static / "serve.js").read_text(encoding="utf-8")
    hashes = " ".join(f"'sha256-{_digest(s)}'"
                      for s in (js, (static / "view.js").read_text(encoding="utf-8")))
    csp = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
           f"script-src {hashes}; connect-src 'self'; frame-src blob:; "
           "form-action 'none'; base-uri 'none'")
    return html.replace("{{CSP}}", csp).replace("{{SCRIPT}}", js)


def _digest(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")

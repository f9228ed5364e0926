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
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException

from .._version import __version__
from .http import (
    OUTPUTS,
    WARNING_HEADER,
    check_readable,
    choose_output,
    form_paper,
    media_type,
    parse_min_score,
    query_options,
    read_body,
    warning_value,
)
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


def create_app(settings: Settings, pool: WorkerPool) -> FastAPI:
    app = FastAPI(title="coresc", version=__version__, docs_url=None, redoc_url=None,
                  description="Label every sentence of a scientific paper with its CoreSC "
                              "discourse role. The answers are `coresc annotate`'s, byte "
                              "for byte.")
    page = upload_page()
    facts = model_facts(settings.model_dir)
    add_error_handlers(app)
    describe_api(app, settings, pool)

    def authorise(request: Request) -> None:
        if settings.token is None:
            return
        given = bearer_token(request.headers.get("authorization", ""))
        if given is None:
            raise Failure(401, "this server needs a token: send the header "
                               "'Authorization: Bearer TOKEN'")
        if not hmac.compare_digest(given.encode(), settings.token.encode()):
            raise Failure(401, "the token is wrong (Authorization: Bearer TOKEN)")

    @app.post("/annotate", response_class=Response,
              summary="Annotate one paper (upload or raw body)")
    async def annotate(request: Request) -> Response:
        """Answers as `coresc annotate` on standard output: `to` = json (default), xml
        (TEI for TEI/PDF input, else mode2), tei, mode2, tsv, html, bioc, bioc-json,
        w3c, pubannotation or parquet (the file `-o FILE.parquet` holds) (or ask by
        Accept); `min_score` as `--min-score`; `format`, `domain` as the CLI's.
        A raw body is standard input (paper id `stdin`) unless `filename` names it.
        Each warning the CLI would print comes in an `X-Coresc-Warning` header."""
        authorise(request)
        query = query_options(list(request.query_params.multi_items()),
                              model=settings.model_dir.name)
        out = choose_output(query.get("to"), request.headers.get("accept"))
        # TEI asked for by name is a bad option for other papers; by Accept, unmet Accept
        tei_only = None if out != "tei" else 400 if "to" in query else 406
        job = await read_job(request, settings.max_bytes, out, query.get("format", "auto"),
                             query.get("min_score"), query.get("domain"),
                             query.get("filename"), tei_only=tei_only)
        answer = await pool.answer(job)
        response = Response(answer.data, media_type=OUTPUTS[out][1],
                            headers={"Content-Disposition": disposition(job, out)})
        for line in answer.warnings:
            response.headers.append(WARNING_HEADER, warning_value(line))
        return response

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


def add_error_handlers(app: FastAPI) -> None:
    """Every refusal as ``{"error": message, "status": code}``: the server's own, a route
    or method that does not exist, and a failure of the server itself."""

    @app.exception_handler(Failure)
    async def refused(request: Request, exc: Failure) -> JSONResponse:
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else {}
        if exc.status == 401:
            headers["WWW-Authenticate"] = 'Bearer realm="coresc"'
        return error_response(exc.status, exc.message, headers)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        where = f"{request.method} {request.url.path}"
        message = {404: f"{request.url.path}: no such endpoint (see /openapi.json)",
                   405: f"{where}: method not allowed (allowed: "
                        f"{(exc.headers or {}).get('Allow', 'none')})"}
        return error_response(exc.status_code, message.get(exc.status_code, str(exc.detail)),
                              exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return error_response(400, f"{where}: {first.get('msg', 'invalid request')}")

    @app.exception_handler(Exception)
    async def crashed(request: Request, exc: Exception) -> JSONResponse:
        return error_response(500, f"internal error ({type(exc).__name__}); please report "
                                   f"this")


def error_response(status: int, message: str,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    """A refusal in the documented shape."""
    return JSONResponse({"error": message, "status": status}, status, headers=headers)


def bearer_token(header: str) -> str | None:
    """The token of ``Authorization: Bearer TOKEN`` (the scheme in any case, as RFC 6750
    allows), or None for another scheme or none."""
    scheme, _, token = header.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def bearer_matches(token: str, header: str) -> bool:
    """Whether an Authorization header carries ``Bearer TOKEN`` (in constant time)."""
    given = bearer_token(header)
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def describe_api(app: FastAPI, settings: Settings, pool: WorkerPool) -> None:
    """``/openapi.json``: FastAPI's description, completed for this server (see
    :mod:`coresc.serve.openapi`); built once, on first request."""
    from .openapi import describe

    plain = app.openapi
    cache: dict[str, Any] = {}

    def openapi() -> dict[str, Any]:
        if not cache:
            cache.update(describe(plain(), token=settings.token is not None,
                                  grobid=settings.grobid_url is not None,
                                  domains=getattr(pool, "domains", [])))
        return cache

    app.openapi = openapi  # type: ignore[method-assign]


async def read_job(request: Request, limit: int, out: str, fmt: str, min_score: str | None,
                   domain: str | None, filename: str | None,
                   tei_only: int | None = None) -> Job:
    """The paper and options of one request; :class:`Failure` for a bad one.

    ``tei_only``: the status for a paper that is not TEI (see :class:`~.work.Request`).
    A PDF is read by GROBID where the server was given one, else by the embedded reader."""
    from ..readers import FORMATS

    if fmt not in ("auto", *FORMATS):
        raise Failure(400, f"format={fmt}: unknown input format (known: auto, "
                           f"{', '.join(FORMATS)})")
    threshold = parse_min_score(min_score)
    if domain == "":
        raise Failure(400, "domain=: empty (leave it out for the pooled model)")
    ctype = request.headers.get("content-type")
    check_readable(ctype, "request body")
    name = Path(filename).name if filename else STDIN
    body = await read_body(request, limit)
    if media_type(ctype) == "multipart/form-data":
        upload, body, part_type = form_paper(body, ctype or "")
        check_readable(part_type, upload or "pasted text")
        name = upload or name
    return Job(data=body, name=name, to=OUTPUTS[out][0], fmt=fmt, min_score=threshold,
               domain=domain, tei_only=tei_only)


def disposition(job: Job, out: str) -> str:
    """``inline; filename=...``: the name the page (or ``curl -OJ``) saves it under.

    A header holds ASCII: ``filename`` is the name in ASCII (other characters as ``_``),
    and a name that is not ASCII comes whole in ``filename*`` too (RFC 6266)."""
    from urllib.parse import quote

    from ..readers import paper_id_from_path
    from ..writers import get_writer

    suffix = get_writer(OUTPUTS[out][0]).suffix
    if job.name == STDIN:  # pasted text has no name of its own: not "stdin_coresc.tsv"
        return f'inline; filename="coresc{suffix}"'
    stem = paper_id_from_path(job.name)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in stem) or "paper"
    ascii_safe = "".join(c if c.isascii() else "_" for c in safe)
    value = f'inline; filename="{ascii_safe}_coresc{suffix}"'
    if ascii_safe != safe:
        value += f"; filename*=UTF-8''{quote(safe + '_coresc' + suffix, safe='')}"
    return value


def model_facts(directory: Path) -> dict[str, Any]:
    """The model card's facts: meta.json, config.json, evaluation.json and the card text,
    each read only as a regular file inside the model directory and checked as the
    loader checks it (issue 42: a linked or broken evaluation.json was served, or
    ended the server)."""
    from ..model.card import card_markdown
    from ..model.storage import read_evaluation, read_json, read_meta

    return {"name": directory.name, "config": read_json(directory / "config.json"),
            "meta": read_meta(directory), "evaluation": read_evaluation(directory),
            "card_markdown": card_markdown(directory)}


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

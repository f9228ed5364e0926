"""The review's web application (FastAPI, as ``coresc serve``; its refusals are serve's).

Pages: ``GET /`` (the papers and their progress), ``GET /paper/{i}`` (one paper to
review), ``GET /paper/{i}/page/{n}.png`` (page ``n`` of a paper read from a PDF,
rendered when asked for, one at a time). API: ``GET /api/papers`` (progress), ``GET
/api/papers/{i}`` (a paper's sentences, suggestions and decisions), ``POST
/api/papers/{i}/sentences/{j}`` (a decision: ``{"accept": true}`` or ``{"labels": [...],
"novelty", "advantage", "comment"}``), ``POST /api/papers/{i}/undo``, ``GET``/``POST
/api/adapt`` (switch to an adapted model), ``GET /health``. A decision or undo may carry
``"request": ID``: the same ID sent again with the same request is answered again, not
carried out twice (the page sends one again when the server saved it but died before
answering); the ID sent with another request (another sentence, labels, paper, or an
undo) is refused (409).

Papers and sentences are addressed by their index among the papers given on the
command line: nothing a request sends names a file. A server with a token wants it as
``Authorization: Bearer TOKEN``, or once in the address (``?token=``), which sets a
same-site cookie for the pages. Browsers share a host's cookies between its ports, so
the cookie is named after the server's port (two servers on one machine do not log
each other out) and set for the path ``/review-PORT/`` only, where such a server sends a
browser's page requests: another server of the host is not sent it. ``/health``
answers only that the server is alive unless the token comes with it.
A POST must be JSON and carry ``X-Coresc-Review: 1``, which a page of another site
cannot send without the server's consent (it never gives it), and on the loopback
address the ``Host`` must be a loopback name (no DNS rebinding).
"""

from __future__ import annotations

import hmac
import logging
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send

from .._version import __version__
from ..document import PDF_SOURCE
from ..errors import CorescError
from ..readers.grobid import _is_loopback as is_loopback
from ..serve.app import add_error_handlers, bearer_matches
from ..serve.work import Failure
from ..writers.html.pages import page_png
from .adapt import Adapter
from .decisions import ReusedRequest
from .page import index_page, message_page, page_data, review_page, token_page
from .store import ReviewStore
from .validate import MAX_BODY, json_object, path_index, text_field

COOKIE = "coresc_review_token"
#: The form of the page's request ids (see :func:`_request_id`).
REQUEST_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _port(scope: Scope) -> int:
    server = scope.get("server")
    return int(server[1]) if server and len(server) > 1 and server[1] else 0


def cookie_name(request: Request) -> str:
    """The token cookie of the server that got ``request``: one per port."""
    return f"{COOKIE}_{_port(request.scope)}"


def pages_path(scope: Scope) -> str:
    """Where this server's pages are for a browser with its token, ``/review-PORT``: the
    cookie is sent only below it, so never to another server of the same host."""
    return f"/review-{_port(scope)}"


class _PagesPath:
    """Every path is also served below :func:`pages_path` (as its ``root_path``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope.get("root_path") and \
                scope["path"].startswith(pages_path(scope) + "/"):
            scope = {**scope, "root_path": pages_path(scope)}
        await self.app(scope, receive, send)


@dataclass(frozen=True)
class Settings:
    token: str | None = None
    loopback: bool = True


def create_app(store: ReviewStore, adapter: Adapter, settings: Settings) -> FastAPI:
    app = FastAPI(title="coresc review", version=__version__, docs_url=None, redoc_url=None)
    add_error_handlers(app)
    app.add_middleware(_PagesPath)

    def is_token(given: str) -> bool:
        return settings.token is not None and \
            hmac.compare_digest(given.encode(), settings.token.encode())

    def authorised(request: Request) -> bool:
        """Whether the request may see the papers (the Host checked first: 403)."""
        host = _host_name(request.headers.get("host", ""))
        if settings.loopback and not is_loopback(host):
            raise Failure(403, f"Host {host!r}: this server answers only on its loopback "
                               "address")
        return settings.token is None or \
            bearer_matches(settings.token, request.headers.get("authorization", "")) or \
            is_token(request.cookies.get(cookie_name(request), ""))

    def authorise(request: Request) -> None:
        if not authorised(request):
            raise Failure(401, "this server needs a token: open the address it printed "
                               "(with ?token=), or send 'Authorization: Bearer TOKEN'")

    def page(request: Request, render: Callable[[], str]) -> Response:
        """A page, after the token (a person gets a page saying what to do, not JSON)."""
        below = pages_path(request.scope)
        if settings.token is not None and request.scope.get("root_path") != below:
            # where the token cookie is sent (browsers share a host's cookies between its
            # ports, but not between paths)
            query = f"?{request.url.query}" if request.url.query else ""
            return RedirectResponse(below + request.url.path + query, 303)
        if is_token(request.query_params.get("token", "")):
            answer = RedirectResponse(request.url.remove_query_params("token").path, 303)
            answer.set_cookie(cookie_name(request), settings.token, path=below + "/",
                              httponly=True, samesite="strict")
            return answer
        if not authorised(request):
            return HTMLResponse(token_page(), 401, headers={"Cache-Control": "no-store"})
        try:
            return HTMLResponse(render(), headers={"Cache-Control": "no-store"})
        except Failure as exc:
            return HTMLResponse(message_page(exc.status, exc.message), exc.status)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def index(request: Request) -> Response:
        return page(request, lambda: index_page(store))

    @app.get("/paper/{i}", response_class=HTMLResponse, include_in_schema=False)
    def paper(request: Request, i: str) -> Response:
        return page(request, lambda: review_page(store, _paper_index(store, i)))

    @app.get("/paper/{i}/page/{n}.png", include_in_schema=False)
    async def page_image(request: Request, i: str, n: str) -> Response:
        authorise(request)
        pdf = store.paper(_paper_index(store, i)).paper.meta.get(PDF_SOURCE)
        if not isinstance(pdf, bytes):
            raise Failure(404, f"paper {i} was not read from a PDF: it has no pages")
        try:
            png = await run_in_threadpool(page_png, pdf, path_index(n, "page"))
        except IndexError as exc:
            raise Failure(404, str(exc)) from None
        return Response(png, media_type="image/png",
                        headers={"Cache-Control": "private, max-age=3600"})

    @app.get("/api/papers")
    def papers(request: Request) -> JSONResponse:
        authorise(request)
        return JSONResponse(store.progress())

    @app.get("/api/papers/{i}")
    def one_paper(request: Request, i: str) -> JSONResponse:
        authorise(request)
        return JSONResponse(page_data(store, _paper_index(store, i)))

    @app.post("/api/papers/{i}/sentences/{j}")
    async def decide(request: Request, i: str, j: str) -> JSONResponse:
        authorise(request)
        body = await _json_body(request)
        index, sentence = _paper_index(store, i), path_index(j, "sentence")
        labels = None if body.get("accept") else body.get("labels")
        if labels is not None and not (isinstance(labels, list)
                                       and all(isinstance(x, str) for x in labels)):
            raise Failure(400, "labels: a list of label codes, primary first")
        try:
            decision = await run_in_threadpool(
                store.decide, index, sentence, labels, text_field(body, "novelty"),
                text_field(body, "advantage"), text_field(body, "comment") or "",
                _request_id(body))
        except LookupError as exc:
            raise Failure(404, str(exc)) from None
        except ReusedRequest as exc:
            raise Failure(409, str(exc)) from None
        except CorescError as exc:
            raise Failure(400, str(exc)) from None
        return JSONResponse({"sentence": sentence, "decision": asdict(decision),
                             "progress": store.progress()})

    @app.post("/api/papers/{i}/undo")
    async def undo(request: Request, i: str) -> JSONResponse:
        authorise(request)
        body = await _json_body(request)
        index = _paper_index(store, i)
        try:
            sentence = await run_in_threadpool(store.undo, index, _request_id(body))
        except ReusedRequest as exc:
            raise Failure(409, str(exc)) from None
        decision = store.paper(index).decisions.get(sentence) if sentence is not None else None
        return JSONResponse({"sentence": sentence,
                             "decision": asdict(decision) if decision else None,
                             "progress": store.progress()})

    @app.get("/api/adapt")
    def adapt_status(request: Request) -> JSONResponse:
        authorise(request)
        return JSONResponse(adapter.status())

    @app.post("/api/adapt")
    async def adapt(request: Request) -> JSONResponse:
        authorise(request)
        await _json_body(request)
        try:
            return JSONResponse(adapter.start(), 202)
        except CorescError as exc:
            raise Failure(409, str(exc)) from None

    @app.get("/health")
    def health(request: Request) -> JSONResponse:
        """Alive; who reviews and how many papers only for whoever may see them."""
        answer: dict[str, Any] = {"status": "ok", "token_required": settings.token is not None}
        try:
            allowed = authorised(request)
        except Failure:  # a foreign Host: alive, and nothing more
            allowed = False
        if allowed:
            answer.update({"papers": len(store.papers), "annotator": store.annotator})
        return JSONResponse(answer)

    return app


def _paper_index(store: ReviewStore, value: str) -> int:
    i = path_index(value, "paper")
    if i >= len(store.papers):
        raise Failure(404, f"paper {i}: there are papers 0 to {len(store.papers) - 1}")
    return i


async def _json_body(request: Request) -> dict[str, Any]:
    """A POST's JSON object; only from the review's own script (see the module)."""
    if request.headers.get("x-coresc-review") != "1":
        raise Failure(403, "POST needs the header 'X-Coresc-Review: 1'")
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise Failure(415, "send the body as application/json")
    raw = b""
    try:
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise Failure(413, f"the body is larger than {MAX_BODY} bytes")
    except ClientDisconnect:  # nobody to answer: one line in the log, not a traceback
        message = (f"{request.method} {request.url.path}: the client went away before its "
                   "body was whole; nothing done")
        logging.getLogger("uvicorn.error").warning(message)
        raise Failure(400, message) from None
    return json_object(raw)


def _request_id(body: dict[str, Any]) -> str | None:
    """The page's id for a decision or undo (``request``), so that one sent again after
    the server died before answering is not carried out twice; None without one."""
    value = body.get("request")
    if value is None:
        return None
    if not (isinstance(value, str) and REQUEST_ID.fullmatch(value)):
        raise Failure(400, "request: an id of 1-64 letters, digits, '-' or '_'")
    return value


def _host_name(header: str) -> str:
    """The name in a Host header, without its port: ``[::1]:8000`` -> ``::1``."""
    if header.startswith("["):  # an IPv6 literal, whose colons are not the port's
        return header[1:].partition("]")[0]
    return header.rsplit(":", 1)[0]

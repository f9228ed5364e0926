"""What a worker process does with one request: the paper in, the CLI's bytes out.

A request is answered exactly as ``coresc annotate`` answers the same input on standard
output: a raw body is standard input (``-``, paper id ``stdin``), an uploaded file is
the file named on the command line (its name gives the paper id). The functions of
:mod:`coresc.pipeline` do the reading, annotating and rendering, as they do for
``coresc annotate``, so both write the same bytes.
"""

from __future__ import annotations

import io
import os
import signal
from dataclasses import dataclass
from typing import Any

from ..errors import CorescError, InputError, UsageError
from ..pipeline import (
    Source,
    annotate_paper,
    check_domain,
    known_domains,
    language_warnings,
    open_model,
    read_source,
    render,
    stream_header,
)

#: What the server calls a body sent without a file name (the CLI's standard input).
STDIN = "-"


@dataclass(frozen=True)
class Request:
    """One paper to annotate, with the options of ``coresc annotate`` that apply."""

    data: bytes
    name: str = STDIN
    to: str = "jsonl"
    fmt: str = "auto"
    min_score: float | None = None
    domain: str | None = None
    #: The status for a paper that is not TEI when TEI was asked for (400 from ?to=tei,
    #: 406 from Accept: application/tei+xml); None: ``xml`` is each paper's own dialect.
    tei_only: int | None = None


@dataclass(frozen=True)
class Answer:
    """A worker's answer: the CLI's bytes and the warnings the CLI prints beside them."""

    data: bytes
    warnings: tuple[str, ...] = ()


class Failure(Exception):
    """A request that cannot be answered: the HTTP status and the one-line message."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


class NotTei(UsageError):
    """TEI was asked for, and the paper is not TEI (the CLI has no ``--to tei``: its
    ``xml`` is TEI only for TEI input)."""


def answer_request(model, request: Request, grobid: Any = None) -> Answer:
    """The bytes ``coresc annotate`` writes to stdout for this input, with the warnings
    the CLI prints on stderr (a paper that does not look like English); raises
    :class:`~coresc.errors.CorescError` as the CLI would report it."""
    from ..readers import STDIN_NAME
    from ..writers import get_writer

    if request.name != STDIN and not request.data.strip():
        raise InputError(request.name, "file is empty")  # read_file's words for it
    check_domain(model, request.domain)
    papers = read_source(Source(name=request.name, data=request.data), request.fmt, grobid)
    where = STDIN_NAME if request.name == STDIN else request.name
    if request.tei_only and any(p.source_format != "tei" for p in papers):
        found = next(p.source_format for p in papers if p.source_format != "tei")
        raise NotTei(f"{where}: TEI output needs TEI input (a GROBID TEI file, or a PDF "
                     f"when the server has GROBID); this paper is {found}: ask for xml "
                     f"(mode2 for it) or mode2")
    warnings = tuple(language_warnings(papers, where))
    writer = get_writer(request.to)
    if writer.per_paper and len(papers) > 1:
        raise UsageError(f"{request.name}: {len(papers)} papers cannot be answered as "
                         f"{request.to}: ask for json or tsv (one record per sentence)")
    for paper in papers:
        if request.name != STDIN:  # as read_file sets it: the html view names the file
            paper.source_path = request.name
        annotate_paper(model, paper, request.domain, request.min_score)
    withheld = request.min_score is not None
    parts = render(papers, writer, withheld)
    if writer.per_paper:
        return Answer(parts[0][1], warnings)
    from ..writers.streams import open_sink

    body = io.BytesIO()  # the stream put together as the CLI's would be
    sink = open_sink(writer, body, stream_header(writer, withheld))
    for _, data in parts:
        sink.add(data)
    sink.close()
    return Answer(body.getvalue(), warnings)


def failure_of(exc: CorescError) -> Failure:
    """The HTTP answer to a request the CLI would refuse with ``exc``'s message."""
    message = str(exc)
    if isinstance(exc, UsageError):
        return Failure(400, message)
    if "GROBID" in message:
        if "stayed busy" in message:
            return Failure(503, message, retry_after=30)
        if any(k in message for k in ("cannot reach", "connection failed", "did not answer")):
            return Failure(502, message)
    return Failure(422, message)


def worker_main(conn, model_dir: str | None, grobid: Any) -> None:
    """A worker process: load the model, say ready, then answer requests until the
    server closes the pipe. Ctrl-C goes to the server, which stops its workers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        model = open_model(model_dir, shared=True)
    except CorescError as exc:
        conn.send(("failed", str(exc)))
        return
    conn.send(("ready", os.getpid(), known_domains(model)))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return  # the server is gone
        conn.send(_answer(model, request, grobid))


def _answer(model, request: Request, grobid: Any) -> tuple:
    try:
        answer = answer_request(model, request, grobid)
        return ("ok", answer.data, answer.warnings)
    except NotTei as exc:
        return ("failed", request.tei_only, str(exc), None)
    except CorescError as exc:
        fail = failure_of(exc)
        return ("failed", fail.status, fail.message, fail.retry_after)
    except Exception as exc:  # a bug: this request fails, the worker goes on
        return ("failed", 500, f"{request.name}: internal error ({type(exc).__name__}: "
                               f"{exc}); please report this", None)

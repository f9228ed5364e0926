"""Serve annotation over HTTP: a REST API and an upload page (needs coresc[serve]).

Loads the model, starts --workers worker processes and listens on 127.0.0.1:8000
(--host/--port; listening beyond this machine is an explicit choice, best behind a
reverse proxy and with --token). POST /annotate takes one paper (a multipart upload or
the raw body, any format `coresc annotate` reads; PDFs through --grobid) and answers what
`coresc annotate` writes for it, byte for byte: ?to=json (default), xml, tei, mode2, tsv,
html, or the Accept header; ?min_score=X as --min-score; the CLI's warnings come in
X-Coresc-Warning headers. GET /model is the model card as
JSON, GET /health says how busy the server is, GET /openapi.json describes the API, and
GET / is a page to upload a paper, see it labelled and download it. See docs/serve.md.

examples:
  coresc serve                                    # http://127.0.0.1:8000/
  coresc serve --workers 4 --grobid http://localhost:8070
  CORESC_TOKEN=secret coresc serve --host 0.0.0.0 --port 8080
  curl -F file=@paper.nxml 'http://127.0.0.1:8000/annotate?to=xml' -o annotated.xml
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace

from ..errors import UsageError
from .options import (
    FLOAT,
    MODEL_HELP_SHORT,
    TOKEN_ENV,
    add_grobid_arguments,
    add_listen_arguments,
    add_model_argument,
    grobid_of,
    listen,
    url_host,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser, MODEL_HELP_SHORT)
    add_listen_arguments(parser, "")
    parser.add_argument("--workers", type=int, default=2, metavar="N",
                        help="worker processes annotating at once (default 2)")
    parser.add_argument("--queue", type=int, default=8, metavar="N",
                        help="requests that may wait for a worker; beyond that the answer "
                             "is 503 with Retry-After (default 8)")
    parser.add_argument("--max-size", type=FLOAT, default=50, metavar="MB",
                        help="largest paper accepted, in MB (default 50; larger: 413)")
    parser.add_argument("--timeout", type=FLOAT, default=300, metavar="SECONDS",
                        help="time limit per request, waiting and GROBID included "
                             "(default 300; over it: 504)")
    parser.add_argument("--token", metavar="TOKEN",
                        help=f"require 'Authorization: Bearer TOKEN' on /annotate and "
                             f"/model (default: ${TOKEN_ENV}, else none)")
    add_grobid_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from ..extras import require

    require("serve")
    _check(args)
    import uvicorn

    from ..model.storage import resolve_model
    from ..readers.grobid import _is_loopback as is_loopback
    from ..serve.app import Settings, create_app
    from ..serve.pool import WorkerPool

    directory = resolve_model(args.model)
    grobid = grobid_of(args)
    if grobid is not None:  # a busy GROBID is the client's 503 at once, not a worker waiting
        grobid = replace(grobid, retries=0)
    pool = WorkerPool(args.workers, args.queue, args.timeout, str(directory), grobid)
    pool.start()  # loads the model in each worker: a broken model fails here, in one line
    try:
        sock = listen(args.host, args.port)
    except UsageError:
        pool.close()
        raise
    try:
        token = args.token or os.environ.get(TOKEN_ENV) or None
        settings = Settings(directory, int(args.max_size * 1e6), token,
                            grobid.url if grobid else None)
        app = create_app(settings, pool)
        host, port = sock.getsockname()[:2]
        print(f"[coresc] serving model {directory.name} with {args.workers} worker(s) on "
              f"http://{url_host(host)}:{port}/ (Ctrl-C stops)", file=sys.stderr, flush=True)
        if token is None and not is_loopback(args.host):
            print(f"[coresc] warning: listening on {args.host} without a token: anyone who "
                  f"can reach it may use it (--token or ${TOKEN_ENV})", file=sys.stderr)
        config = uvicorn.Config(app, log_level="info", timeout_graceful_shutdown=5)
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        pool.close()
        sock.close()
    return 0


def _check(args: argparse.Namespace) -> None:
    for name, value, low in (("--workers", args.workers, 1), ("--queue", args.queue, 0),
                             ("--port", args.port, 0)):
        if value < low:
            raise UsageError(f"{name} must be {low} or more (got {value})")
    if args.port > 65535:
        raise UsageError(f"--port must be at most 65535 (got {args.port})")
    if args.max_size <= 0 or args.timeout <= 0:
        raise UsageError("--max-size and --timeout must be positive")

"""A stand-in for a GROBID server, for tests and for trying coresc without Java.

It answers ``POST /api/processFulltextDocument`` the way GROBID does (the PDF in the
multipart form field ``input``), but instead of parsing the PDF it serves the TEI that
GROBID made of it earlier: for ``X.pdf`` in its folder, ``X.tei.xml`` (matched by the
PDF's content, else by its file name). ``../shared/data/tei/`` holds two such pairs.
``GET /api/isalive`` answers ``true``.

Modes, to rehearse what a real server does when things go wrong:

=============  ============================================================
``ok``         the matching TEI (HTTP 500 with GROBID's message when none)
``busy:N``     HTTP 503 ("all threads in use") for the first N requests, then ok
``busy``       HTTP 503 forever
``slow:S``     waits S seconds before answering (a client with a shorter
               timeout gives up)
``not-tei``    HTTP 200 with an HTML page
``no-content`` HTTP 204 (GROBID: "no content could be extracted")
``error``      HTTP 500 with GROBID's message for an unreadable PDF
``reset``      reads the request, then resets the connection (TCP RST)
=============  ============================================================

``hold()`` keeps every answer back until its block ends (requests wait in the server,
as on a slow PDF, for as long as a test needs and no longer); ``down()`` stops the
server for its block while keeping its port, which refuses connections meanwhile.

Run it::

    python tests/fake_grobid.py ../shared/data/tei --port 8070 [--mode busy:2]

or in a test::

    with FakeGrobid(tei_dir, mode="busy:1") as server:
        read_file(pdf, grobid=server.url)
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import re
import socket
import struct
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ENDPOINT = "/api/processFulltextDocument"
_DISPOSITION = re.compile(rb'name="(?P<name>[^"]*)"(?:; filename="(?P<filename>[^"]*)")?')


def parse_form(body: bytes, content_type: str) -> dict[str, tuple[str | None, bytes]]:
    """A multipart/form-data body as ``{field: (filename, value)}``."""
    m = re.search(r"boundary=([^;]+)", content_type)
    if not m:
        return {}
    delimiter = b"--" + m.group(1).strip('"').encode()
    fields = {}
    for part in body.split(delimiter)[1:]:
        if part.startswith(b"--"):
            break
        head, _, value = part.partition(b"\r\n\r\n")
        d = _DISPOSITION.search(head)
        if d:
            filename = d.group("filename")
            fields[d.group("name").decode()] = (filename.decode() if filename else None,
                                                value[:-2] if value.endswith(b"\r\n") else value)
    return fields


class FakeGrobid:
    """The stand-in server on 127.0.0.1 (``port=0``: any free port), in a thread.

    ``requests`` records each request's form fields (without the PDF bytes) in order.
    """

    def __init__(self, tei_dir: str | Path, mode: str = "ok", port: int = 0) -> None:
        self.tei_dir = Path(tei_dir)
        self.mode, _, arg = mode.partition(":")
        if self.mode not in ("ok", "busy", "slow", "not-tei", "no-content", "error", "reset"):
            raise ValueError(f"unknown mode {mode!r}")
        self.arg = float(arg) if arg else None
        self.requests: list[dict[str, str]] = []
        self._stop = threading.Event()
        self._open = threading.Event()  # cleared: answers wait (hold())
        self._open.set()
        self._lock = threading.Lock()
        self._by_hash = {hashlib.sha256(p.read_bytes()).hexdigest(): p
                         for p in self.tei_dir.glob("*.pdf")}
        self._serve(port)

    def _serve(self, port: int) -> None:
        self.httpd = _Server(("127.0.0.1", port), self._handler())
        self.httpd.daemon_threads = True
        self.httpd.block_on_close = False
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,),
                                        daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeGrobid:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._open.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Requests get no answer until the block ends."""
        self._open.clear()
        try:
            yield
        finally:
            self._open.set()

    @contextlib.contextmanager
    def down(self) -> Iterator[None]:
        """No server for the block: connections to its port are refused. The port stays
        this server's (a socket bound to it, not listening), so no other process takes it
        before the server comes back on it."""
        port = self.httpd.server_address[1]
        with socket.socket() as keep:
            keep.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            keep.bind(("127.0.0.1", port))
            self.httpd.shutdown()
            self.httpd.server_close()
            try:
                yield
            finally:
                self._serve(port)
                self._thread.start()

    def tei_for(self, filename: str | None, pdf: bytes) -> Path | None:
        """The TEI file for a PDF: by content, else by name (``X.pdf`` -> ``X.tei.xml``)."""
        found = self._by_hash.get(hashlib.sha256(pdf).hexdigest())
        if found is None and filename:
            found = self.tei_dir / Path(filename).name
        if found is None:
            return None
        stem = found.name[: -len(found.suffix)] if found.suffix else found.name
        tei = found.with_name(stem + ".tei.xml")
        return tei if tei.is_file() else None

    def answer(self, fields: dict) -> tuple[int, str, bytes] | None:
        """``(status, content type, body)`` for one request, by mode; ``None``: reset the
        connection."""
        with self._lock:
            self.requests.append({k: v[1].decode("latin-1") for k, v in fields.items()
                                  if k != "input"})
            n = len(self.requests)
        self._open.wait()
        if self.mode == "reset":
            return None
        if self.mode == "busy" and (self.arg is None or n <= self.arg):
            return 503, "text/plain", b""
        if self.mode == "slow":
            self._stop.wait(self.arg or 10.0)
        if self.mode == "not-tei":
            return 200, "text/html", b"<!DOCTYPE html><html><body>Login required</body></html>"
        if self.mode == "no-content":
            return 204, "text/plain", b""
        filename, pdf = fields.get("input", (None, b""))
        tei = None if self.mode == "error" else self.tei_for(filename, pdf)
        if tei is None:
            return 500, "text/plain", b"[BAD_INPUT_DATA] PDF to XML conversion failed"
        return 200, "application/xml", tei.read_bytes()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                alive = self.path.rstrip("/") == "/api/isalive"
                self._send(200 if alive else 404, "text/plain", b"true" if alive else b"")

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                if self.path.rstrip("/") != ENDPOINT:
                    self._send(404, "text/plain", b"")
                    return
                fields = parse_form(body, self.headers.get("Content-Type", ""))
                answer = server.answer(fields)
                if answer is None:  # an RST, not a polite close: SO_LINGER with 0 s
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                               struct.pack("ii", 1, 0))
                    self.connection.close()
                    self.close_connection = True
                    return
                self._send(*answer)

            def _send(self, status: int, ctype: str, body: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    if body and status != 204:
                        self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def log_message(self, *args) -> None:
                pass

        return Handler


class _Server(ThreadingHTTPServer):
    # down() keeps the port with a second socket while no server listens on it
    allow_reuse_port = True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tei_dir", help="folder with X.pdf and X.tei.xml pairs")
    parser.add_argument("--port", type=int, default=8070)
    parser.add_argument("--mode", default="ok", help="ok, busy:N, busy, slow:S, not-tei, "
                                                     "no-content, error or reset")
    args = parser.parse_args(argv)
    with FakeGrobid(args.tei_dir, args.mode, args.port) as server:
        print(f"fake GROBID serving {args.tei_dir} at {server.url} (mode {args.mode}); "
              f"Ctrl-C stops it", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()

"""PDFs through a GROBID server: send the PDF, get TEI back (standard library only).

GROBID (https://github.com/kermitt2/grobid) turns a PDF into TEI XML; its web service
answers ``POST /api/processFulltextDocument`` with the PDF as the multipart form field
``input``. A :class:`GrobidClient` sends one PDF and returns the TEI, retrying while the
server says it is busy (HTTP 503, GROBID's way of asking the client to come back
later: all its threads are in use), with a wait that doubles up to a cap and a bounded
number of attempts. Every failure is an :class:`~coresc.errors.InputError` naming the
PDF and the server, so a batch reports it in one line and goes on with the next paper.

Consolidation against external services (CrossRef) is switched off: coresc reads only
the text, and the lookups would make every PDF slower and depend on the network.
"""

from __future__ import annotations

import http.client
import ipaddress
import os
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from ..document import name_text
from ..errors import InputError, UsageError
from ..xmlsafe import localname, parse_xml

#: Environment variable giving the GROBID server when no URL is passed.
ENV_VAR = "CORESC_GROBID_URL"
ENDPOINT = "api/processFulltextDocument"
#: The largest answer accepted (a long paper's TEI is a few MB).
MAX_ANSWER_BYTES = 200 * 1024 * 1024
_CHUNK = 1 << 16
_sleep = time.sleep  # the wait between tries (tests replace it)


def _normalise_url(url: str, origin: str) -> str:
    """``localhost:8070`` -> ``http://localhost:8070``; refuse what is not http(s)."""
    url = url.strip()
    if "://" not in url:
        url = "http://" + url
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{origin}: {url!r} is not a GROBID server URL "
                         f"(expected e.g. http://localhost:8070)")
    return url.rstrip("/")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class GrobidClient:
    """One GROBID server and how patiently to talk to it.

    ``url``: the server (``http://localhost:8070``; the full endpoint URL is accepted
    too). ``timeout``: seconds one request may take, from sending the PDF to the last
    byte of the answer. ``retries``: further attempts after a 503, waiting ``wait``
    seconds before the first and doubling up to ``max_wait`` (a ``Retry-After`` header
    counts when it asks for longer, up to ``max_wait``). ``segment_sentences``: ask
    GROBID for its own sentence elements (off: coresc's splitter is measured on
    scientific text, see docs/benchmarks.md). Requests to a loopback address bypass any
    HTTP proxy set in the environment.
    """

    url: str
    timeout: float = 120.0
    retries: int = 5
    wait: float = 5.0
    max_wait: float = 30.0
    segment_sentences: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "url", _normalise_url(self.url, "--grobid"))
        for name in ("timeout", "wait", "max_wait"):
            if not getattr(self, name) > 0:
                raise UsageError(f"GROBID {name} must be a positive number of seconds")
        if self.retries < 0:
            raise UsageError("GROBID retries must be 0 or more")

    @property
    def endpoint(self) -> str:
        return self.url if self.url.endswith(ENDPOINT) else f"{self.url}/{ENDPOINT}"

    # -- the request ---------------------------------------------------------------
    def _form(self, pdf: bytes, filename: str) -> tuple[bytes, str]:
        boundary = uuid.uuid4().hex
        fields = {"consolidateHeader": "0", "consolidateCitations": "0",
                  "segmentSentences": "1" if self.segment_sentences else "0"}
        parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
                 .encode() for k, v in fields.items()]
        # a name that is not UTF-8 cannot be encoded as it is: GROBID sees it escaped
        safe = name_text(filename).replace('"', "_").replace("\r", "_").replace("\n", "_")
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="input"; '
                     f'filename="{safe}"\r\nContent-Type: application/pdf\r\n\r\n'.encode())
        body = b"".join(parts) + pdf + f"\r\n--{boundary}--\r\n".encode()
        return body, f"multipart/form-data; boundary={boundary}"

    def _opener(self) -> urllib.request.OpenerDirector:
        host = urllib.parse.urlsplit(self.url).hostname or ""
        if _is_loopback(host):
            return urllib.request.build_opener(urllib.request.ProxyHandler({}))
        return urllib.request.build_opener()

    def _post(self, body: bytes, content_type: str) -> tuple[int, dict, bytes]:
        """One request: ``(status, headers, body)``; HTTP errors are returned, not raised."""
        request = urllib.request.Request(self.endpoint, data=body, method="POST", headers={
            "Content-Type": content_type, "Accept": "application/xml"})
        deadline = time.monotonic() + self.timeout
        try:
            with self._opener().open(request, timeout=self.timeout) as resp:
                return resp.status, dict(resp.headers), _read_until(resp, deadline)
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, dict(exc.headers or {}), _read_until(exc, deadline)

    # -- the conversation ----------------------------------------------------------
    def process(self, pdf: bytes, name: str | Path) -> bytes:
        """The TEI GROBID makes of ``pdf`` (bytes); :class:`InputError` naming ``name``."""
        body, content_type = self._form(pdf, Path(str(name)).name or "paper.pdf")
        start = time.monotonic()
        wait = self.wait
        for attempt in range(self.retries + 1):
            status, headers, answer = self._request(body, content_type, name)
            if status != 503:
                return self._check(status, answer, name)
            if attempt < self.retries:
                _sleep(min(self.max_wait, max(wait, _retry_after(headers))))
                wait = min(self.max_wait, wait * 2)
        secs = time.monotonic() - start
        raise InputError(name, f"GROBID at {self.url} stayed busy (HTTP 503) through "
                               f"{self.retries + 1} attempts over {secs:.1f}s; try again "
                               f"later or send fewer PDFs at once")

    def _request(self, body: bytes, content_type: str, name: str | Path
                 ) -> tuple[int, dict, bytes]:
        where = f"GROBID at {self.url}"
        too_slow = InputError(name, f"{where} did not answer within {self.timeout:g}s "
                                    f"(raise --grobid-timeout for long PDFs)")
        try:
            return self._post(body, content_type)
        except TimeoutError:
            raise too_slow from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, TimeoutError):
                raise too_slow from None
            if isinstance(reason, ConnectionRefusedError):
                raise InputError(name, f"cannot reach {where} (connection refused: "
                                       f"is the server running?)") from None
            raise InputError(name, f"cannot reach {where} ({reason})") from None
        except (OSError, http.client.HTTPException) as exc:
            raise InputError(name, f"{where}: connection failed "
                                   f"({type(exc).__name__}: {exc})") from None

    def _check(self, status: int, answer: bytes, name: str | Path) -> bytes:
        """The answer of a finished request as TEI, or the one-line reason it is not."""
        where = f"GROBID at {self.url}"
        if status == 204 or (200 <= status < 300 and not answer.strip()):
            raise InputError(name, f"{where} extracted no content from the PDF "
                                   f"(HTTP {status}: no text layer? scanned pages need OCR)")
        if not 200 <= status < 300:
            detail = _first_line(answer)
            raise InputError(name, f"{where} failed on this PDF (HTTP {status}"
                                   f"{': ' + detail if detail else ''})")
        return answer

    def parse(self, answer: bytes, name: str | Path) -> etree._ElementTree:
        """Parse GROBID's answer safely; anything but a TEI document is an error."""
        problem = f"GROBID at {self.url} answered with something other than TEI"
        what = _describe(answer)
        if what is not None:
            raise InputError(name, f"{problem} ({what})")
        try:
            tree = parse_xml(name, answer)
        except InputError as exc:
            raise InputError(name, f"{problem} ({exc.problem})") from None
        root = localname(tree.getroot())
        if root != "TEI":
            raise InputError(name, f"{problem} (XML with root element <{root}>)")
        return tree


def _read_until(resp, deadline: float) -> bytes:
    """Read a response body, giving up at ``deadline`` (a server that trickles bytes)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError
        chunk = resp.read(_CHUNK)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise OSError(f"answer larger than {MAX_ANSWER_BYTES >> 20} MB")
        chunks.append(chunk)


def _retry_after(headers: dict) -> float:
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return 0.0


def _first_line(answer: bytes, limit: int = 120) -> str:
    text = answer.decode("utf-8", "replace").strip()
    line = text.splitlines()[0].strip() if text else ""
    return line if len(line) <= limit else line[:limit] + "..."


def _describe(answer: bytes) -> str | None:
    """What an answer that is plainly not XML is (``None``: it may be XML)."""
    head = answer.lstrip()[:200].lower()
    if head.startswith((b"<!doctype html", b"<html")):
        return "an HTML page"
    if head.startswith((b"{", b"[")):
        return "JSON"
    if not head.startswith(b"<"):
        return f"text starting {_first_line(answer, 40)!r}"
    return None


def grobid_client(grobid: GrobidClient | str | None = None,
                  timeout: float | None = None) -> GrobidClient | None:
    """The client to read PDFs with: ``grobid`` itself, a client for that URL, or one for
    ``$CORESC_GROBID_URL`` when ``grobid`` is ``None`` (``None`` when that is unset too).

    ``timeout`` (seconds) overrides the default for a client made here.
    """
    if isinstance(grobid, GrobidClient):
        return grobid
    extra = {} if timeout is None else {"timeout": timeout}
    if grobid:
        return GrobidClient(grobid, **extra)
    env = os.environ.get(ENV_VAR, "").strip()
    if not env:
        return None
    _normalise_url(env, ENV_VAR)  # name the variable, not the option, when it is wrong
    return GrobidClient(env, **extra)

"""A stream output (jsonl, tsv, bioc, bioc-json, w3c, parquet) put together from its
parts: the format's header, each paper's part (with the format's separator between
two), its footer.

Every way of writing a stream goes through :func:`open_sink`: a batch run joining its
workers' part files, its standard output, and ``coresc serve``'s answer. A format may
name its own sink (Parquet turns the parts' rows into row groups).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any, Protocol, TextIO


class Sink(Protocol):
    def add(self, part: bytes) -> None: ...

    def close(self) -> None: ...


class StreamSink:
    """Writes ``header``, then each part (the writer's ``separator`` between two), then
    the writer's ``footer`` on :meth:`close`."""

    def __init__(self, writer: Any, fh: IO[bytes], header: bytes = b"") -> None:
        self._fh = fh
        self._separator = writer.separator.encode("utf-8")
        self._footer = writer.footer.encode("utf-8")
        self._first = True
        fh.write(header)

    def add(self, part: bytes) -> None:
        if not self._first:
            self._fh.write(self._separator)
        self._fh.write(part)
        self._first = False

    def close(self) -> None:
        self._fh.write(self._footer)


def open_sink(writer: Any, fh: IO[bytes], header: bytes = b"") -> Sink:
    """The sink that puts ``writer``'s stream together on the binary ``fh``."""
    if writer.sink is not None:
        return writer.load("sink")(writer, fh, header)
    return StreamSink(writer, fh, header)


def join_parts(writer: Any, parts: list[bytes]) -> bytes:
    """Several papers' parts as one (one input's papers): joined by the separator."""
    return writer.separator.encode("utf-8").join(parts)


def write_text_stream(writer: Any, papers: Sequence[Any], fh: TextIO) -> None:
    """A text stream's whole file: header, the papers' parts (separated), footer."""
    part = writer.load("part")
    fh.write(writer.load("header")(True, False))
    fh.write(writer.separator.join(part(paper) for paper in papers))
    fh.write(writer.footer)

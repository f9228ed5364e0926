"""A tar archive's bytes decompressed as they stream, and its members read again by
where they lie in that stream.

A ``.tar.gz`` has no index: listing it means decompressing all of it, and reading the
members a plan could not keep means decompressing it again. Decompression is most of
that cost, so gzip goes through ISA-L when the ``isal`` package is installed (the
``archives`` extra; about three times zlib's speed, the same bytes), and the second pass
parses no tar headers: it reads each wanted member at the offset the listing recorded
(:func:`members_at`), checking the header block before it.
"""

from __future__ import annotations

import tarfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from .inputs import open_input as open_binary

_GZIP, _BZIP2, _XZ = b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00"


def damage() -> tuple[type[BaseException], ...]:
    """What reading a damaged archive can raise (ISA-L's own error too, when it is used)."""
    import zipfile

    errors: tuple[type[BaseException], ...] = (
        tarfile.TarError, zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError)
    if _isal_gzip() is None:
        return errors
    from isal.isal_zlib import error  # what ends a damaged stream, beside gzip's own

    return (*errors, error)


def _isal_gzip():
    """ISA-L's gzip module, or None where the ``isal`` package is not installed."""
    try:
        from isal import igzip
    except ImportError:
        return None
    return igzip


@contextmanager
def unpacked(path: str) -> Iterator[IO[bytes]]:
    """``path``'s bytes decompressed as read: gzip (ISA-L when installed), bzip2, xz, or
    a plain tar as it is; the file is closed with it."""
    import bz2
    import gzip
    import lzma

    with open_binary(path) as raw:
        head = raw.read(6)
        raw.seek(0)
        if head.startswith(_GZIP):
            opener = (_isal_gzip() or gzip).open
        elif head.startswith(_BZIP2):
            opener = bz2.open
        elif head.startswith(_XZ):
            opener = lzma.open
        else:
            yield raw
            return
        with opener(raw, "rb") as fh:
            yield fh


@contextmanager
def tar_stream(path: str) -> Iterator[tarfile.TarFile]:
    """The archive as a tar read in one forward pass. Without ISA-L, tarfile's own
    stream reader is used: it is faster than tarfile over :mod:`gzip`."""
    if _isal_gzip() is None:
        with open_binary(path) as raw, tarfile.open(fileobj=raw, mode="r|*") as tf:
            yield tf
        return
    with unpacked(path) as fh, tarfile.open(fileobj=fh, mode="r|") as tf:
        yield tf


class Moved(Exception):
    """The header before a member's recorded offset is not that member's: the archive
    changed since it was listed."""


def members_at(path: str, wanted: list[tuple[str, int, int]],
               ) -> Iterator[tuple[str, bytes | Moved]]:
    """``(name, bytes)`` for each ``(name, offset, size)`` in ``wanted``, in offset order,
    read from the decompressed stream at the offsets a listing recorded; a member whose
    header there is not a file of its size is :class:`Moved`. Damage raises (see
    :func:`damage`) for the caller to fail the members not reached."""
    block = tarfile.BLOCKSIZE
    with unpacked(path) as fh:
        for name, offset, size in sorted(wanted, key=lambda w: w[1]):
            fh.seek(offset - block)
            data = fh.read(block + size)
            if len(data) < block + size:
                raise EOFError("the archive ends before this member does")
            yield name, data[block:] if _header_fits(data[:block], size) else Moved(name)


def _header_fits(header: bytes, size: int) -> bool:
    try:
        info = tarfile.TarInfo.frombuf(header, "utf-8", "surrogateescape")
    except tarfile.HeaderError:
        return False
    return info.isfile() and info.size == size

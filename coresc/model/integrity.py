"""Sizes and SHA-256 of a model directory's files: recorded in ``meta.json`` at save time
and checked before a native library (crfsuite, onnxruntime, numpy's zip reader) is given
the bytes, so a damaged or truncated file is one line naming it, never a crash.

A model saved before the records existed still loads: its crfsuite files are checked
against their own header (the magic, and the file size the header holds in bytes 4-8),
which catches truncation; numpy and onnxruntime raise ordinary errors on bad data.
"""

from __future__ import annotations

import hashlib
import re
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import CorescError


class ModelError(CorescError):
    """A model directory that is missing, incomplete or corrupt."""

    def __init__(self, path: str | Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


#: File name -> ``{"size": int, "sha256": hex}``.
Records = Mapping[str, Mapping[str, Any]]
#: The key of ``meta.json`` holding ``{file name: {"size": int, "sha256": hex}}``.
FILES_KEY = "files"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
#: crfsuite's header: magic, total size, type, version, then counts and section offsets
#: (all little-endian uint32), 48 bytes in all.
_CRF_HEADER = struct.Struct("<4sI4s9I")


def record(data: bytes) -> dict[str, Any]:
    """What ``meta.json`` keeps about one file."""
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def records_of(meta: Mapping[str, Any], d: Path) -> Records | None:
    """The file records of a loaded ``meta.json`` (None: a model saved without them)."""
    files = meta.get(FILES_KEY)
    if files is None:
        return None
    if not isinstance(files, dict) or not all(
            isinstance(name, str) and isinstance(rec, dict)
            and isinstance(rec.get("size"), int) and rec["size"] >= 0
            and isinstance(rec.get("sha256"), str) and _SHA256.match(rec["sha256"])
            for name, rec in files.items()):
        raise ModelError(d / "meta.json", f"bad {FILES_KEY!r} record (each file needs a "
                                          "size and a SHA-256)")
    return files


def read_checked(d: Path, name: str, records: Records | None) -> bytes:
    """A model file's bytes, checked against its record (or, unrecorded, its own
    header); :class:`ModelError` naming the file when it is missing, unreadable or
    damaged."""
    path = d / name
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ModelError(path, "missing") from None
    except OSError as exc:
        raise ModelError(path, f"cannot read ({exc.strerror or exc})") from None
    if records is None:
        if name.endswith(".crfsuite"):
            check_crf_header(path, data)
        return data
    rec = records.get(name)
    if rec is None:
        raise ModelError(path, "not recorded in meta.json (a file added after the model "
                               "was saved?)")
    if len(data) != rec["size"]:
        raise ModelError(path, f"damaged or truncated: {len(data)} bytes where meta.json "
                               f"records {rec['size']}")
    if hashlib.sha256(data).hexdigest() != rec["sha256"]:
        raise ModelError(path, "damaged: its SHA-256 is not the one meta.json records")
    return data


def check_crf_header(path: Path, data: bytes) -> None:
    """A crfsuite model's header against the file: the magic, the size it records, and
    section offsets inside the file (crfsuite reads them unchecked)."""
    if len(data) < _CRF_HEADER.size:
        raise ModelError(path, f"damaged or truncated: {len(data)} bytes, too short for a "
                               "CRF model")
    magic, size, kind, _version, *rest = _CRF_HEADER.unpack_from(data)
    offsets = rest[3:]
    if magic != b"lCRF" or kind != b"FOMC":
        raise ModelError(path, "not a crfsuite CRF model (wrong header)")
    if size != len(data):
        raise ModelError(path, f"damaged or truncated: {len(data)} bytes where its header "
                               f"records {size}")
    if any(off > size for off in offsets):
        raise ModelError(path, "damaged: its header points outside the file")

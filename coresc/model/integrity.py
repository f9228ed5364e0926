"""Sizes and SHA-256 of a model directory's files: recorded in ``meta.json`` at save time
and checked before a native library (crfsuite, onnxruntime, numpy's zip reader) is given
the bytes, so a damaged or truncated file is one line naming it, never a crash.

A model saved before the records existed still loads: its crfsuite files are checked
against their own header (the magic, and the file size the header holds in bytes 4-8),
which catches truncation; numpy and onnxruntime raise ordinary errors on bad data.

Hashing the bundled ``accurate`` model's 31.8 MB took 25-60 ms of every load, so the
SHA-256 of a large file is cached per file version (:func:`file_sha256`): a load that
finds the same path, device, inode, size, mtime and ctime as a hash computed before
checks the size and takes that hash instead of hashing again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import struct
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..config import cache_root
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
        data, version = _read_versioned(path)
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
    if file_sha256(path, data, version) != rec["sha256"]:
        raise ModelError(path, "damaged: its SHA-256 is not the one meta.json records")
    return data


# ---------------------------------------------------------------- hashes cached per version

#: Files smaller than this are hashed on every load (a millisecond or less): only the big
#: ones (the encoder, the CRF, the one-vs-rest weights) are worth an entry.
CACHED_MIN_BYTES = 1 << 20
#: A file changed less than this many seconds before it is hashed is not cached: the
#: clock that stamps mtime and ctime ticks coarsely (milliseconds), so a file written
#: twice within one tick keeps both stamps and its size (git's "racily clean" rule).
RACY_SECONDS = 2.0
#: Entries kept in the cache file (the oldest go first).
CACHE_ENTRIES = 256
_HASHES: dict[str, str] = {}  # this process's view of the cache file
_HASHES_READ = False


def hash_cache_path() -> Path:
    """The cache file of model files' hashes (under :func:`coresc.config.cache_root`)."""
    return cache_root() / "model-hashes.json"


def _read_versioned(path: Path) -> tuple[bytes, os.stat_result | None]:
    """A file's bytes and the version they are (None when it changed while being read):
    both stats come from the open file, so a file replaced meanwhile cannot lend its
    version to the bytes of another."""
    with open(path, "rb") as fh:
        before = os.fstat(fh.fileno())
        data = fh.read()
        after = os.fstat(fh.fileno())
    same = _version(before) == _version(after) and len(data) == after.st_size
    return data, after if same else None


def _version(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def file_sha256(path: Path, data: bytes, version: os.stat_result | None) -> str:
    """The SHA-256 of ``data``, read from ``path`` as ``version`` (None: unknown, never
    cached): taken from the cache when that version of the file was hashed before,
    else computed (and cached for a large file that is not racily new)."""
    if version is None or len(data) < CACHED_MIN_BYTES:
        return hashlib.sha256(data).hexdigest()
    key = "|".join(map(str, (os.path.realpath(path), *_version(version))))
    hashes = _hash_cache()
    digest = hashes.get(key)
    if digest is None:
        digest = hashlib.sha256(data).hexdigest()
        changed = max(version.st_mtime_ns, version.st_ctime_ns)
        if time.time_ns() - changed > RACY_SECONDS * 1e9:
            hashes[key] = digest
            _write_hash_cache(hashes)
    return digest


def _hash_cache() -> dict[str, str]:
    """The cache file's entries, read once per process; an unreadable or malformed file
    is an empty cache (it only saves time)."""
    global _HASHES_READ
    if not _HASHES_READ:
        _HASHES_READ = True
        try:
            doc = json.loads(hash_cache_path().read_bytes())
            entries = doc["hashes"]
            if isinstance(entries, dict):
                _HASHES.update({k: v for k, v in entries.items()
                                if isinstance(k, str) and isinstance(v, str)
                                and _SHA256.match(v)})
        except (OSError, ValueError, KeyError, TypeError):
            pass
    return _HASHES


def _write_hash_cache(hashes: dict[str, str]) -> None:
    """Write the cache file atomically; a failure (a read-only home) is ignored."""
    for key in list(hashes)[:max(0, len(hashes) - CACHE_ENTRIES)]:
        del hashes[key]
    path = hash_cache_path()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps({"format": 1, "hashes": hashes}, indent=0))
        tmp.replace(path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


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

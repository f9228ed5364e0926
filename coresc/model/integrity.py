"""Sizes and SHA-256 of a model directory's files: recorded in ``meta.json`` at save time
and checked before a native library (crfsuite, onnxruntime, numpy's zip reader) is given
the bytes, so a damaged, truncated or missing file is one line naming it, never a crash
or a model that quietly lacks a part (issue 42: without ``ovr.npz`` no secondary
labels, without ``calibration.json`` other scores).

:func:`read_recorded` is *the* integrity check: every file ``meta.json`` records is
read, as a regular file inside the directory (a link or a device is refused), and
matched to its record. The records are required: a ``meta.json`` without them (a model
saved before coresc recorded them, or edited) is refused, since nothing else could
tell 200 changed bytes of a CRF from the model that was trained. A file the records name
is also checked for what its reader trusts (:mod:`~coresc.model.crffile` for crfsuite).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import stat
import time
from collections.abc import Iterable, Mapping
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


def record(data: bytes) -> dict[str, Any]:
    """What ``meta.json`` keeps about one file."""
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def records_of(meta: Mapping[str, Any], d: Path, known: Iterable[str]) -> Records:
    """The file records of a loaded (and schema-checked) ``meta.json``; each must name
    one of the ``known`` model files, so a record cannot send the loader outside the
    directory (``../x``)."""
    files = meta.get(FILES_KEY)
    if not files:
        raise ModelError(d / "meta.json", f"records no file sizes and hashes ({FILES_KEY!r}: "
                                          "a model saved before coresc recorded them, or "
                                          "edited), so its files cannot be checked: retrain it")
    names = set(known)
    for name in files:
        if name not in names:
            raise ModelError(d / "meta.json", f"{FILES_KEY!r} records {name!r}, which is no "
                                              "file of a coresc model")
    return files


def read_recorded(d: Path, records: Records) -> dict[str, bytes]:
    """Every file ``records`` names, read and matched to its size and SHA-256: the
    model's files as they were saved, or :class:`ModelError` naming the first that is
    missing, not a regular file inside ``d``, or changed."""
    return {name: _checked(d, name, rec) for name, rec in records.items()}


def refuse_unrecorded(d: Path, records: Records, names: Iterable[str]) -> None:
    """A model file (one of ``names``) in ``d`` that ``records`` does not name: added
    after the model was saved, so the loader would either ignore or trust it."""
    for name in names:
        if name not in records and os.path.lexists(d / name):
            raise ModelError(d / name, "not recorded in meta.json (a file added after the "
                                       "model was saved?)")


def _checked(d: Path, name: str, rec: Mapping[str, Any]) -> bytes:
    path = d / name
    # one more byte tells a longer file
    data, version = _read_versioned(d, name, rec["size"] + 1)
    if len(data) != rec["size"]:
        raise ModelError(path, f"damaged or truncated: {len(data)}"
                               f"{'+' if len(data) > rec['size'] else ''} bytes where "
                               f"meta.json records {rec['size']}")
    if file_sha256(path, data, version) != rec["sha256"]:
        raise ModelError(path, "damaged: its SHA-256 is not the one meta.json records")
    return data


def read_model_file(d: Path, name: str, limit: int | None = None) -> bytes:
    """The bytes of file ``name`` of model directory ``d`` (at most ``limit``), only if
    it is a regular file inside it: a symbolic link (to another file of any kind), a
    FIFO or a device is refused (issue 42: ``coresc serve`` returned whatever JSON file
    ``evaluation.json`` linked to). :class:`ModelError` naming the file otherwise."""
    return _read_versioned(d, name, limit)[0]


def _read_versioned(d: Path, name: str, limit: int | None = None,
                    ) -> tuple[bytes, os.stat_result | None]:
    """:func:`read_model_file`, and the version of the file the bytes are (None when
    it changed while being read, or more than ``limit`` bytes were wanted): both stats
    come from the open descriptor, so a file replaced meanwhile cannot lend its version
    to the bytes of another."""
    path = d / name
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except FileNotFoundError:
        raise ModelError(path, "missing") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(path):
            raise ModelError(path, "is a symbolic link: a model directory's files must be "
                                   "regular files inside it") from None
        raise ModelError(path, f"cannot read ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as fh:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):
            raise ModelError(path, "not a regular file")
        # never more than the file holds (a record may claim any size), plus one byte to
        # tell a file that grew
        want = before.st_size + 1 if limit is None else min(limit, before.st_size + 1)
        try:
            data = fh.read(want)
        except OSError as exc:
            raise ModelError(path, f"cannot read ({exc.strerror or exc})") from None
        after = os.fstat(fd)
    same = _version(before) == _version(after) and len(data) == after.st_size
    return data, after if same else None


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
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_HASHES: dict[str, str] = {}  # this process's view of the cache file
_HASHES_READ = False


def hash_cache_path() -> Path:
    """The cache file of model files' hashes (under :func:`coresc.config.cache_root`)."""
    return cache_root() / "model-hashes.json"


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
            entries = json.loads(hash_cache_path().read_bytes())["hashes"]
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

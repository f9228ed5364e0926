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

import errno
import hashlib
import os
import stat
from collections.abc import Iterable, Mapping
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
    data = read_model_file(d, name, rec["size"] + 1)  # one more byte tells a longer file
    if len(data) != rec["size"]:
        raise ModelError(path, f"damaged or truncated: {len(data)}"
                               f"{'+' if len(data) > rec['size'] else ''} bytes where "
                               f"meta.json records {rec['size']}")
    if hashlib.sha256(data).hexdigest() != rec["sha256"]:
        raise ModelError(path, "damaged: its SHA-256 is not the one meta.json records")
    return data


def read_model_file(d: Path, name: str, limit: int | None = None) -> bytes:
    """The bytes of file ``name`` of model directory ``d`` (at most ``limit``), only if
    it is a regular file inside it: a symbolic link (to another file of any kind), a
    FIFO or a device is refused (issue 42: ``coresc serve`` returned whatever JSON file
    ``evaluation.json`` linked to). :class:`ModelError` naming the file otherwise."""
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
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ModelError(path, "not a regular file")
        # never more than the file holds (a record may claim any size), plus one byte to
        # tell a file that grew
        want = st.st_size + 1 if limit is None else min(limit, st.st_size + 1)
        try:
            return fh.read(want)
        except OSError as exc:
            raise ModelError(path, f"cannot read ({exc.strerror or exc})") from None

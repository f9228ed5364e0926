"""Inputs named by fsspec URLs (``s3://pmc-oa-opendata/...``, ``gs://...``, ``file://``):
a folder walked as a local one is (PMC's article-version folders included), a file's
bytes, size and time, and the metadata JSON beside an article, read through fsspec and
the backend its protocol needs (``s3fs`` for S3: the ``remote`` extra).

A backend's settings come from fsspec's configuration, e.g. ``FSSPEC_S3_ANON=true`` for
PMC's public bucket or ``FSSPEC_S3_ENDPOINT_URL`` for another S3-compatible server.
"""

from __future__ import annotations

import posixpath
from pathlib import PurePosixPath
from typing import IO, Any

from ..errors import CorescError, InputError
from ..limits import max_input_bytes, too_large
from .pmc import article_file, article_version, is_metadata_file


def is_url(path: Any) -> bool:
    """Named by a URL (``scheme://...``), not a local path."""
    return isinstance(path, str) and "://" in path


def _fs(url: str):
    """``(filesystem, path in it)``; a one-line error when fsspec or the backend is missing."""
    try:
        import fsspec
    except ImportError:
        raise CorescError(f"{url}: reading a URL needs fsspec (and s3fs for s3://): "
                          f"pip install 'coresc[remote]'") from None
    try:
        return fsspec.core.url_to_fs(url)
    except ImportError as exc:  # the protocol's backend (s3fs, gcsfs ...)
        raise CorescError(f"{url}: {exc}".splitlines()[0]) from None
    except ValueError as exc:  # a protocol fsspec does not know
        raise InputError(url, f"cannot read this URL ({exc})") from None


def _url(fs, path: str) -> str:
    return fs.unstrip_protocol(path)


def open_url(url: str) -> IO[bytes]:
    """The file at ``url``, open for reading (seekable: archives are read through it)."""
    fs, path = _fs(url)
    try:
        return fs.open(path, "rb")
    except (OSError, ValueError) as exc:
        raise InputError(url, f"cannot read: {exc}") from None


def url_stat(url: str) -> tuple[int, int]:
    """``(size, mtime_ns)`` of the file at ``url`` (time 0 where the store gives none);
    :class:`InputError` when there is no such file."""
    fs, path = _fs(url)
    try:
        info = fs.info(path)
    except (OSError, ValueError) as exc:
        raise InputError(url, f"cannot read: {exc}") from None
    if info.get("type") == "directory":
        raise InputError(url, "is a directory (expected a file)")
    return int(info.get("size") or 0), _mtime_ns(info)


def _mtime_ns(info: dict[str, Any]) -> int:
    stamp = info.get("LastModified") or info.get("mtime") or info.get("updated")
    if hasattr(stamp, "timestamp"):
        return int(stamp.timestamp() * 10**9)
    return int(float(stamp) * 10**9) if isinstance(stamp, int | float) else 0


def read_url_bytes(url: str) -> bytes:
    """The bytes at ``url``, bounded by the input size limit."""
    size, _ = url_stat(url)
    if size > max_input_bytes():
        raise too_large(url, size)
    with open_url(url) as fh:
        data = fh.read(max_input_bytes() + 1)
    if len(data) > max_input_bytes():
        raise too_large(url, len(data))
    return data


def names_folder(path: str | Any) -> bool:
    """A local folder, or a URL naming a folder (a prefix holding files)."""
    if not is_url(path):
        from pathlib import Path

        return Path(path).is_dir()
    fs, inner = _fs(path)
    return fs.isdir(inner)


def url_inputs(url: str, suffixes: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """``(inputs, skipped)`` under ``url``: itself when it is a file, else every file
    under it, names sorted, one per PMC article-version folder, metadata JSON neither."""
    fs, path = _fs(url)
    if not fs.isdir(path):
        return [url], []
    files = sorted(fs.find(path))
    folders: dict[str, set[str]] = {}
    for f in files:
        folder, name = posixpath.split(f)
        folders.setdefault(folder, set()).add(name)
    inputs, skipped = [], []
    for f in files:
        folder, name = posixpath.split(f)
        if any(part.startswith(".") for part in f[len(path):].split("/")):
            continue
        if _is_article_folder(folder):
            if article_file(PurePosixPath(folder), folders[folder]) == name:
                inputs.append(_url(fs, f))
        elif not is_metadata_file(name):
            (inputs if name.lower().endswith(suffixes) else skipped).append(_url(fs, f))
    return inputs, skipped


def _is_article_folder(folder: str) -> bool:
    found = article_version(posixpath.basename(folder))
    return found is not None and found[1] is not None


def metadata_url(url: str) -> str | None:
    """PMC's metadata JSON of the article version at ``url``, where the store has one
    (as :func:`~coresc.readers.pmc.metadata_path` on disk)."""
    fs, path = _fs(url)
    folder, name = posixpath.split(path)
    found = article_version(name)
    if found is None or found[1] is None:
        return None
    json_name = f"{found[0]}.{found[1]}.json"
    for candidate in (posixpath.join(folder, json_name),
                      posixpath.join(posixpath.dirname(folder), "metadata", json_name)):
        if fs.isfile(candidate):
            return _url(fs, candidate)
    return None

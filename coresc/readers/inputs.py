"""Finding and reading inputs: the files a list of paths (files, folders, ``-``) expands
to, and an input's bytes, read once and bounded by the input size limit."""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..document import STDIN_ID
from ..errors import InputError
from ..limits import max_input_bytes, too_large
from .pmc import article_file, is_article_folder, is_metadata_file

#: File endings a directory walk picks up.
INPUT_SUFFIXES = (".xml", ".nxml", ".txt", ".jsonl", ".pdf")
#: Archive endings a walk picks up when asked (see :func:`find_inputs`).
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")
#: The input name that means standard input.
STDIN = "-"
#: The name standard input goes by in messages and paper ids.
STDIN_NAME = STDIN_ID


def stat_problem(path: str | Path, exc: OSError) -> str:
    """Why a path could not be followed to a file, in words (``os.stat`` failed)."""
    if exc.errno == errno.ELOOP:  # a link loop, or a chain of links too long to follow
        return "symbolic link loop (or a chain of more than 40 links)"
    if exc.errno == errno.ENOENT and os.path.islink(path):
        return "dangling symbolic link"
    return exc.strerror or str(exc)


_SPECIAL = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
            (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def read_input_bytes(path: str | Path) -> bytes:
    """The bytes of an input file, read once and bounded by the input size limit.

    FIFOs, devices and sockets are refused before they are opened (a FIFO would block,
    ``/dev/zero`` never ends); so are files over :func:`~coresc.limits.max_input_bytes`,
    and the read stops one byte past the limit should the file grow meanwhile. Raises
    :class:`InputError`.
    """
    from .remote import is_url, read_url_bytes

    if is_url(path):
        return read_url_bytes(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise InputError(path, f"cannot read: {stat_problem(path, exc)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(path, "is a directory (expected a file)")
    for test, kind in _SPECIAL:
        if test(st.st_mode):
            raise InputError(path, f"is {kind}, not a file: coresc reads regular files "
                                   f"and - (standard input)")
    limit = max_input_bytes()
    if st.st_size > limit:
        raise too_large(path, st.st_size)
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror}") from None
    if len(data) > limit:
        raise too_large(path)  # it grew while read
    if not data.strip():
        raise InputError(path, "file is empty")
    return data


def read_stdin_bytes() -> bytes:
    """Standard input, read once and bounded like a file (see :func:`read_input_bytes`)."""
    stream = sys.stdin
    limit = max_input_bytes()
    if hasattr(stream, "buffer"):
        data = stream.buffer.read(limit + 1)
    else:
        data = stream.read(limit + 1).encode("utf-8", "surrogatepass")
    if len(data) > limit:
        raise too_large(STDIN_NAME)
    return data


@dataclass
class InputFiles:
    """What a list of input paths expands to.

    ``files``: the inputs to read, in order (files named directly, whatever their type,
    ``-``, and the readable files inside named directories, sorted). ``skipped``: the
    files inside those directories of other types (not :data:`INPUT_SUFFIXES`).
    ``problems``: what a directory walk found but cannot read, each an :class:`InputError`
    naming it (dangling links, links looping back to a folder above them, FIFOs and
    other special files, folders it may not list). Hidden files and folders (names
    starting with ".") are none of these. Symbolic links to folders are followed.
    """

    files: list[Path | str] = field(default_factory=list)  # a URL stays a str
    skipped: list[Path | str] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)


def find_inputs(paths: Iterable[str | Path], archives: bool = False) -> InputFiles:
    """Expand ``paths`` (files, directories, ``-``) into the files to read and those skipped.

    A PMC article-version folder (``PMC123.2/``) gives one file: its XML, else its PDF,
    else its text (:mod:`coresc.readers.pmc`); PMC's metadata JSON files are part of
    that layout, neither inputs nor skipped. ``archives``: a walk also picks up
    ``.tar.gz``, ``.tgz``, ``.tar`` and ``.zip`` files (read member by member by the
    caller, :mod:`coresc.readers.archives`).
    """
    from .remote import is_url, url_inputs

    found = InputFiles()
    suffixes = INPUT_SUFFIXES + (ARCHIVE_SUFFIXES if archives else ())
    for p in paths:
        if is_url(p):  # kept a str: a Path would fold its "//"
            files, skipped = url_inputs(p, suffixes)
            found.files += files
            found.skipped += skipped
            continue
        p = Path(p)
        if str(p) != STDIN and p.is_dir():
            st = p.stat()
            _walk(p, found, frozenset({(st.st_dev, st.st_ino)}), suffixes)
        else:
            found.files.append(p)
    return found


def _walk(folder: Path, found: InputFiles, above: frozenset,
          suffixes: tuple[str, ...] = INPUT_SUFFIXES) -> None:
    """Depth first, names sorted (the order of ``sorted(folder.rglob("*"))``)."""
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        found.problems.append(InputError(folder, f"cannot list this folder: {exc.strerror}"))
        return
    if is_article_folder(folder):  # PMC's layout: one file of the folder is the article
        chosen = article_file(folder, {e.name for e in entries})
        if chosen is not None:
            found.files.append(folder / chosen)
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        try:
            st = os.stat(entry.path)  # through links
        except OSError as exc:
            found.problems.append(InputError(path, f"cannot read: {stat_problem(path, exc)}"))
            continue
        if stat.S_ISDIR(st.st_mode):
            key = (st.st_dev, st.st_ino)
            if key in above:
                found.problems.append(InputError(path, "symbolic link loops back to a "
                                                       "folder above it (not followed)"))
            else:
                _walk(path, found, above | {key}, suffixes)
        elif stat.S_ISREG(st.st_mode):
            if is_metadata_file(path):
                continue
            is_input = path.name.lower().endswith(suffixes)
            (found.files if is_input else found.skipped).append(path)
        else:
            kind = next((k for test, k in _SPECIAL if test(st.st_mode)), "a special file")
            found.problems.append(InputError(path, f"is {kind}, not a file (not read)"))


def input_stat(path: str | Path) -> tuple[int, int]:
    """``(size, mtime_ns)`` of an input file or URL (what ``--resume`` compares); raises
    :class:`OSError` or :class:`InputError` when it cannot be read."""
    from .remote import is_url, url_stat

    if is_url(path):
        return url_stat(path)
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def open_input(path: str | Path):
    """An input file or URL open for reading bytes."""
    from .remote import is_url, open_url

    return open_url(path) if is_url(path) else open(path, "rb")


def iter_input_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    """The files to read (see :func:`find_inputs`)."""
    yield from find_inputs(paths).files

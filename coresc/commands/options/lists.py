"""Paper lists: ``--from-list FILE`` and the files ``coresc select -o`` writes, one paper
a line (:func:`read_list`), and the papers of a list kept after reading (:func:`keep_listed`)."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from pathlib import Path

from .checks import path_exists

#: The largest paper list read (a list of a million papers is 100 MB at most).
MAX_LIST_BYTES = 100 * 2**20


def add_list_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """``--from-list FILE`` (repeatable): the papers a list names, as ``select -o``
    writes it (see :func:`read_list`)."""
    parser.add_argument("--from-list", action="append", default=[], metavar="FILE",
                        help=f"{what} named in FILE, one a line: a path (or path#id for one "
                             "paper of a file of several), then anything after a tab; '#' "
                             "lines are comments: the list `coresc select -o` saves")


def read_list(path: str | Path) -> list[tuple[str, str | None]]:
    """The papers a list file names: per line, ``(path, None)`` for a whole file or
    folder, ``(path, id)`` for ``path#id`` (one paper of a file that holds several).

    A line's path is what comes before its first tab (``select --scores`` puts its
    numbers after); blank lines and lines starting with ``#`` are skipped; paths are as
    ``coresc select`` printed them, relative to the current folder. A path that names
    nothing, or a list that names no paper, is an :class:`~coresc.errors.InputError`
    naming the list and the line.
    """
    from ...errors import InputError

    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_LIST_BYTES + 1)
    except OSError as exc:
        raise InputError(path, exc.strerror or str(exc)) from None
    if len(data) > MAX_LIST_BYTES:
        raise InputError(path, f"a paper list of over {MAX_LIST_BYTES // 2**20} MB")
    # a path is its bytes: one that is not UTF-8 (as select writes it) names that file
    text = data.decode("utf-8-sig", "surrogateescape")
    entries: list[tuple[str, str | None]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        name = line.split("\t", 1)[0].rstrip()
        if not name.strip() or name.lstrip().startswith("#"):
            continue
        if "\0" in name:
            raise InputError(path, f"line {n}: holds a NUL character, not a path")
        head, _, paper_id = name.rpartition("#")
        if path_exists(name):
            entries.append((name, None))
        elif head and paper_id and path_exists(head):
            entries.append((head, paper_id))
        else:
            raise InputError(path, f"line {n}: {name}: no such file or folder")
    if not entries:
        raise InputError(path, "names no paper (one path a line; '#' lines are comments)")
    return entries


def listed_paths(entries: Sequence[tuple[str, str | None]]) -> list[str]:
    """The files and folders ``entries`` name, each once, in order."""
    return list(dict.fromkeys(p for p, _ in entries))


def keep_listed(papers: Sequence, entries: Sequence[tuple[str, str | None]],
                whole: Iterable[str | Path] = ()) -> list:
    """``papers`` (read from :func:`listed_paths` and ``whole``) less those of a file
    listed by paper id whose id is not listed; a listed id the file lacks is an
    :class:`~coresc.errors.InputError`."""
    from ...errors import InputError

    def key(p: str | Path) -> str:
        try:
            return str(Path(p).resolve())
        except (OSError, RuntimeError):
            return str(p)

    everything = {key(p) for p, i in entries if i is None} | {key(p) for p in whole}
    wanted: dict[str, set[str]] = {}
    for p, i in entries:
        if i is not None and key(p) not in everything:
            wanted.setdefault(key(p), set()).add(i)
    kept, found = [], set()
    for paper in papers:
        where = key(paper.source_path) if paper.source_path else None
        ids = wanted.get(where) if where is not None else None
        if ids is None or paper.id in ids:
            kept.append(paper)
        if ids is not None:
            found.add((where, paper.id))
    read = {where for where, _ in found}  # a file that could not be read is reported apart
    for p, i in entries:
        if i is not None and key(p) in read and (key(p), i) not in found:
            raise InputError(p, f"no paper {i!r} in it (listed as {p}#{i})")
    return kept

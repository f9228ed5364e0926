"""A batch's inputs as PMC and the preprint servers distribute them.

The paths a user names expand to :class:`~coresc.pipeline.Source` objects: files,
standard input, every input member of an archive (``.tar.gz`` / ``.tgz`` / ``.tar`` /
``.zip``, MECA packages included), the article versions an inventory CSV lists, and,
where an archive or inventory cannot be read, an input that fails with the reason.
Members of a ``.tar.gz`` are read once to list them; the plan keeps their bytes up to
:data:`KEEP_LISTED_BYTES` in all (so a small archive is decompressed once), and the
others carry no bytes until :func:`with_data` streams them, in archive order, as the run
reaches them: a plan of a million members holds their names, not their bytes. Of two
versions of one PMC article among the inputs, only the newer is annotated.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from ..errors import InputError
from ..pipeline import Source

#: Bytes of tar members a plan keeps from listing them, in all: an archive within it is
#: decompressed once; members beyond it are streamed from a second pass as the run
#: reaches them (a ``.tar.gz`` has no index to seek with).
KEEP_LISTED_BYTES = 128_000_000


def expand(files: Iterable[Path]) -> list[Source]:
    """Each found file as the inputs it stands for, in order."""
    from ..readers import STDIN
    from ..readers.archives import is_archive
    from ..readers.inventory import is_inventory

    out: list[Source] = []
    keep = KEEP_LISTED_BYTES
    for p in files:
        name = str(p)
        if name == STDIN:
            out.append(stdin_source())
        elif is_inventory(name):
            out += inventory_sources(p)
        elif is_archive(name):
            members = archive_sources(name, keep)
            keep -= sum(len(s.data) for s in members if s.data is not None)
            out += members
        else:
            out.append(Source.file(p))
    return out


def stdin_source() -> Source:
    """Standard input as an in-memory input (worker processes cannot read the parent's)."""
    from ..readers import read_stdin_bytes

    try:
        return Source(name="-", data=read_stdin_bytes())
    except InputError as exc:  # over the size limit: fails as this input
        return Source(name="-", data=b"", problem=exc.problem)


def inventory_sources(path: Path) -> list[Source]:
    """The article versions an inventory lists; a row the mirror lacks fails on its own."""
    from ..readers.inventory import inventory_inputs

    try:
        files, problems = inventory_inputs(path)
    except InputError as exc:
        return [Source(name=str(path), path=str(path), problem=exc.problem)]
    return [Source.file(f) for f in files] + [
        Source(name=e.path, problem=e.problem) for e in problems]


def archive_sources(path: str, keep: int = 0) -> list[Source]:
    """An archive's input members (their names, and the bytes of those the listing kept,
    up to ``keep`` in all); an archive that cannot be read, or damage that stops the
    listing, is one failed input named by the archive."""
    from ..readers.archives import list_members, member_name

    try:
        listing = list_members(path, keep)
    except InputError as exc:
        return [Source(name=path, path=path, problem=exc.problem)]
    out = [Source(name=member_name(path, m.name), archive=path, member=m.name,
                  stamp=(m.size, m.mtime_ns), meta=tuple(m.meta.items()), data=m.data,
                  offset=m.offset)
           for m in listing.members]
    if listing.problem is not None:  # (an archive of no papers at all gives no input)
        out.append(Source(name=path, path=path, problem=listing.problem))
    return out


def newest_versions(sources: list[Source]) -> tuple[list[Source], list[Source]]:
    """``(kept, older)``: of several versions of one PMC article, the newest is kept."""
    newest: dict[str, int] = {}
    for s in sources:
        found = s.article
        if found is not None and found[1] is not None:
            newest[found[0]] = max(found[1], newest.get(found[0], 0))
    kept, older = [], []
    for s in sources:
        found = s.article
        is_older = found is not None and found[1] is not None and found[1] < newest[found[0]]
        (older if is_older else kept).append(s)
    return kept, older


def with_data(sources: Iterable[Source]) -> Iterator[Source]:
    """The sources in order, each archive member with its bytes (or the reason it has
    none), streamed from its archive one run of members at a time."""
    run: list[Source] = []
    for s in sources:
        if run and s.archive != run[0].archive:
            yield from _attach(run)
            run = []
        if s.member is not None and s.data is None and s.problem is None:
            run.append(s)
        else:
            yield from _attach(run)
            run = []
            yield s
    yield from _attach(run)


def _attach(run: list[Source]) -> Iterator[Source]:
    from ..readers.archives import stream_members

    if not run:
        return
    by_member = {s.member: s for s in run}
    where = {s.member: (s.offset, s.stamp[0]) for s in run
             if s.offset is not None and s.stamp is not None}
    for member, data in stream_members(run[0].archive, [s.member for s in run], where):
        source = by_member[member]
        if isinstance(data, InputError):
            yield replace(source, problem=data.problem)
        else:
            yield replace(source, data=data)

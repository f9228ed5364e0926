"""Archives read member by member, never unpacked: ``.tar.gz`` / ``.tgz`` / ``.tar``
(PMC's bulk packages, or a mirror in PMC's per-article-version shape) and ``.zip``
(MECA packages from bioRxiv and medRxiv, or any zip of papers).

:func:`list_members` names the inputs an archive holds (one pass over a tar; a zip's
directory); :func:`stream_members` then hands over their bytes in archive order, in a
second streamed pass (a ``.tar.gz`` has no index: reading its members one by one out of
order would decompress it again for each). Inside an archive the same rules hold as on
disk: files with an input ending, one file per PMC article-version folder (the XML,
else the PDF, else the text), the metadata JSON of each such folder read as its
provenance. A MECA zip holds one article: the JATS its ``manifest.xml`` names (the PDF
when it names no XML).
"""

from __future__ import annotations

import posixpath
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from ..errors import InputError
from ..limits import max_input_bytes, too_large
from ..xmlsafe import localname, parse_xml
from .inputs import ARCHIVE_SUFFIXES, INPUT_SUFFIXES
from .pmc import article_file, article_version, from_metadata, is_metadata_file
from .tarstream import Moved, damage, members_at, tar_stream

#: What joins an archive's path and a member's name in input names (``a.tgz::PMC1.xml``).
SEPARATOR = "::"


def is_archive(path: str) -> bool:
    """Named as an archive coresc reads member by member."""
    return str(path).lower().endswith(ARCHIVE_SUFFIXES)


def member_name(archive: str, member: str) -> str:
    """How messages and the manifest name a member: ``archive::member``."""
    return f"{archive}{SEPARATOR}{member}"


@dataclass
class Member:
    """One input inside an archive: its name there, size, modification time (what
    ``--resume`` compares) and the provenance its PMC metadata JSON gives."""

    name: str
    size: int
    mtime_ns: int
    meta: dict[str, Any] = field(default_factory=dict)
    data: bytes | None = None  # its bytes, where the listing kept them (see list_members)
    offset: int | None = None  # where a tar member's bytes start in the unpacked stream


@dataclass
class Listing:
    """An archive's inputs; ``problem``: why the listing stopped early (damage)."""

    members: list[Member] = field(default_factory=list)
    problem: str | None = None


def list_members(path: str, keep: int = 0) -> Listing:
    """The inputs an archive holds, in archive order. Raises :class:`InputError` when it
    cannot be opened at all; damage further in ends the listing with ``problem`` set.

    ``keep``: a tar's members are read anyway to list it (it has no index), so the
    bytes of its first members, up to ``keep`` bytes in all, are kept in
    ``Member.data``: an archive that fits is decompressed once, not twice.
    """
    try:
        if str(path).lower().endswith(".zip"):
            return _list_zip(path)  # a zip has an index: its members are read when due
        return _list_tar(path, keep)
    except InputError:
        raise
    except damage() as exc:
        raise InputError(path, f"cannot read as an archive ({_why(exc)})") from None


def _why(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _list_tar(path: str, keep: int) -> Listing:
    listing, found, metadata = Listing(), [], {}
    limit = min(keep, max_input_bytes())
    with tar_stream(path) as tf:
        try:
            for info in tf:
                if not info.isfile() or not _usable(info.name):
                    continue
                if is_metadata_file(info.name):
                    metadata[_stem(info.name)] = _json_meta(tf, info)
                elif info.name.lower().endswith(INPUT_SUFFIXES):
                    member = Member(info.name, info.size, int(info.mtime) * 10**9,
                                    offset=info.offset_data)
                    if info.size <= limit:
                        member.data = tf.extractfile(info).read()
                        limit -= info.size
                    found.append(member)
        except damage() as exc:
            listing.problem = f"archive damaged after {len(found)} input(s) ({_why(exc)})"
    listing.members = _one_per_article(found, metadata)
    return listing


def _open_zip(path: str) -> zipfile.ZipFile:
    """The zip at a path or URL (a URL's file is closed with the zip)."""
    from .remote import is_url, open_url

    if not is_url(path):
        return zipfile.ZipFile(path)
    fh = open_url(path)
    try:
        zf = zipfile.ZipFile(fh)
    except BaseException:
        fh.close()
        raise
    zf._filePassed = 0  # the zip owns the file: closing it closes the file
    return zf


def _list_zip(path: str) -> Listing:
    with _open_zip(path) as zf:
        infos = {i.filename: i for i in zf.infolist() if not i.is_dir()}
        if "manifest.xml" in infos:
            article = _meca_article(path, zf.read(infos["manifest.xml"]))
            if article is not None:
                if article not in infos:
                    raise InputError(path, f"MECA manifest names {article}, which the zip "
                                           f"does not hold")
                return Listing([_zip_member(infos[article])])
        found, metadata = [], {}
        for name, info in infos.items():
            if not _usable(name):
                continue
            if is_metadata_file(name):
                metadata[_stem(name)] = _parse_meta(zf.read(info))
            elif name.lower().endswith(INPUT_SUFFIXES):
                found.append(_zip_member(info))
    return Listing(_one_per_article(found, metadata))


def _zip_member(info: zipfile.ZipInfo) -> Member:
    import datetime as dt

    stamp = int(dt.datetime(*info.date_time).timestamp()) * 10**9
    return Member(info.filename, info.file_size, stamp)


def _usable(name: str) -> bool:
    """Not hidden (``.``, macOS's ``__MACOSX``), not absolute, no ``..`` part."""
    return bool(name) and not name.startswith("/") and not any(
        p.startswith((".", "__MACOSX")) for p in name.split("/"))


def _stem(name: str) -> str:
    return posixpath.splitext(posixpath.basename(name))[0]


def _json_meta(tf: tarfile.TarFile, info: tarfile.TarInfo) -> dict[str, Any]:
    fh = tf.extractfile(info)
    return _parse_meta(fh.read(1_000_001)) if fh is not None else {}


def _parse_meta(data: bytes) -> dict[str, Any]:
    """A member metadata JSON's provenance; one that is not PMC's gives none."""
    import json

    try:
        record = json.loads(data)
    except ValueError:
        return {}
    return from_metadata(record) if isinstance(record, dict) else {}


def _one_per_article(found: list[Member], metadata: dict[str, dict]) -> list[Member]:
    """One member per PMC article-version folder (XML over PDF over text), each given
    its metadata's provenance; members outside such folders are all kept."""
    names: dict[str, set[str]] = {}
    for m in found:
        folder, base = posixpath.split(m.name)
        names.setdefault(folder, set()).add(base)
    kept = []
    for m in found:
        folder, base = posixpath.split(m.name)
        folder_name = posixpath.basename(folder)
        version = article_version(folder_name) if folder_name.startswith("PMC") else None
        if version is not None and version[1] is not None:
            if article_file(PurePath(folder_name), names[folder]) != base:
                continue  # the folder's XML is read, not its PDF or text as well
            m.meta = metadata.get(folder_name, {})
        kept.append(m)
    return kept


def _meca_article(path: str, manifest: bytes) -> str | None:
    """The member a MECA ``manifest.xml`` names as the article: its XML instance, else
    its PDF; None when the manifest is not MECA's (the zip is then read as any zip)."""
    root = parse_xml(member_name(path, "manifest.xml"), manifest).getroot()
    if localname(root) != "manifest":
        return None
    for item in root.iter("{*}item", "item"):
        if (item.get("type") or item.get("item-type") or "").lower() != "article":
            continue
        instances = [(i.get("media-type") or "", i.get("href") or "")
                     for i in item.iter("{*}instance", "instance")]
        for wanted in ("xml", "pdf"):
            for media, href in instances:
                if wanted in media and href:
                    return href
    return None


# ---------------------------------------------------------------- reading members


def stream_members(path: str, wanted: list[str],
                   where: dict[str, tuple[int, int]] | None = None,
                   ) -> Iterator[tuple[str, bytes | InputError]]:
    """``(member, bytes)`` for each ``wanted`` member in archive order (the order
    :func:`list_members` gave), or ``(member, InputError)`` for one that cannot be read.
    Damage that ends a tar stream fails the wanted members it cuts off, each on its own.

    ``where``: each wanted tar member's ``(offset, size)`` as listed
    (``Member.offset``): the members are then read at their offsets, no tar header
    parsed but the one before each."""
    if str(path).lower().endswith(".zip"):
        yield from _stream_zip(path, wanted)
    elif where is not None and all(name in where for name in wanted):
        yield from _tar_at(path, wanted, where)
    else:
        yield from _stream_tar(path, wanted)


def _stream_zip(path: str, wanted: list[str]) -> Iterator[tuple[str, bytes | InputError]]:
    try:
        zf = _open_zip(path)
    except damage() as exc:
        for name in wanted:
            yield name, InputError(member_name(path, name),
                                   f"cannot read the archive ({_why(exc)})")
        return
    with zf:
        for name in wanted:
            yield name, _zip_bytes(zf, path, name)


def _zip_bytes(zf: zipfile.ZipFile, path: str, name: str) -> bytes | InputError:
    where = member_name(path, name)
    try:
        info = zf.getinfo(name)
        if info.file_size > max_input_bytes():
            return too_large(where, info.file_size)
        return zf.read(info)
    except KeyError:
        return InputError(where, "no longer in the archive")
    except damage() as exc:
        return InputError(where, f"damaged member ({_why(exc)})")


def _stream_tar(path: str, wanted: list[str]) -> Iterator[tuple[str, bytes | InputError]]:
    todo = set(wanted)
    try:
        with tar_stream(path) as tf:
            for info in tf:
                if info.name in todo:
                    data = _tar_bytes(tf, info, path)  # damage here fails this member too
                    todo.discard(info.name)
                    yield info.name, data
                    if not todo:
                        return
    except damage() as exc:
        why = f"archive damaged in or before this member ({_why(exc)})"
    else:
        why = "no longer in the archive"
    for name in wanted:  # in order: those the stream did not reach
        if name in todo:
            yield name, InputError(member_name(path, name), why)


def _tar_at(path: str, wanted: list[str], where: dict[str, tuple[int, int]],
            ) -> Iterator[tuple[str, bytes | InputError]]:
    todo, limit = set(wanted), max_input_bytes()
    for name in wanted:  # too large to read: failed before the pass
        if where[name][1] > limit:
            todo.discard(name)
            yield name, too_large(member_name(path, name), where[name][1])
    try:
        for name, data in members_at(path, [(n, *where[n]) for n in wanted if n in todo]):
            todo.discard(name)
            yield name, InputError(member_name(path, name), "the archive changed since it "
                                   "was listed") if isinstance(data, Moved) else data
    except damage() as exc:
        why = f"archive damaged in or before this member ({_why(exc)})"
        for name in wanted:
            if name in todo:
                yield name, InputError(member_name(path, name), why)


def _tar_bytes(tf: tarfile.TarFile, info: tarfile.TarInfo, path: str) -> bytes | InputError:
    where = member_name(path, info.name)
    if info.size > max_input_bytes():
        return too_large(where, info.size)
    fh = tf.extractfile(info)
    return fh.read() if fh is not None else InputError(where, "not a regular file")


def read_member(path: str, name: str) -> bytes:
    """One member's bytes (a zip seeks to it; a tar is read up to it). Raises
    :class:`InputError`."""
    for _, data in stream_members(path, [name]):
        if isinstance(data, InputError):
            raise data
        return data
    raise InputError(member_name(path, name), "no longer in the archive")

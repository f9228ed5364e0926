"""A tar's members read a second time at the offsets its listing recorded
(:mod:`coresc.readers.tarstream`), through ISA-L or zlib, as the tar holds them."""

from __future__ import annotations

import io
import os
import tarfile

import pytest

from coresc.readers import tarstream
from coresc.readers.archives import list_members, stream_members


def _tar(path, members: dict[str, bytes], mode: str = "w:gz") -> None:
    with tarfile.open(path, mode) as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 1_700_000_000
            tf.addfile(info, io.BytesIO(data))


MEMBERS = {"a/PMC1.nxml": b"<article>one</article>" * 50,
           "b/" + "x" * 120 + ".xml": os.urandom(3000),  # a long name: a GNU header first
           "c/PMC3.txt": b"three " * 2000}


def _where(path) -> dict[str, tuple[int, int]]:
    return {m.name: (m.offset, m.size) for m in list_members(str(path)).members}


@pytest.fixture(params=["ISA-L", "zlib"])
def inflate(request, monkeypatch):
    """gzip through ISA-L (when installed) or the standard library's zlib."""
    if request.param == "zlib":
        monkeypatch.setattr(tarstream, "_isal_gzip", lambda: None)
    elif tarstream._isal_gzip() is None:
        pytest.skip("isal is not installed (the 'archives' extra)")


@pytest.mark.parametrize(("name", "mode"), [("p.tar.gz", "w:gz"), ("p.tar", "w"),
                                            ("p.tgz", "w:bz2"), ("p.tgz", "w:xz")])
def test_members_read_at_their_offsets_are_the_tars_bytes(tmp_path, inflate, name, mode):
    path = tmp_path / name
    _tar(path, MEMBERS, mode)
    where = _where(path)
    assert set(where) == set(MEMBERS) and all(o is not None for o, _ in where.values())
    assert dict(stream_members(str(path), list(MEMBERS), where)) == MEMBERS


def test_an_archive_changed_since_its_listing_fails_the_moved_members(tmp_path, inflate):
    path = tmp_path / "p.tar.gz"
    _tar(path, MEMBERS)
    where = _where(path)
    _tar(path, {"a/PMC1.nxml": b"<article>longer now</article>" * 60,
                **{k: v for k, v in MEMBERS.items() if k != "a/PMC1.nxml"}})
    got = dict(stream_members(str(path), list(MEMBERS), where))
    assert all("changed since it was listed" in str(got[n]) for n in list(MEMBERS)[1:])


def test_a_truncated_archive_fails_the_members_it_cuts_off(tmp_path, inflate):
    path = tmp_path / "p.tar.gz"
    members = {**MEMBERS, "b/" + "x" * 120 + ".xml": os.urandom(400_000)}  # cut in here
    _tar(path, members)
    where = _where(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    got = dict(stream_members(str(path), list(members), where))
    assert got["a/PMC1.nxml"] == members["a/PMC1.nxml"]
    assert "archive damaged" in str(got["c/PMC3.txt"])

"""What crfsuite will read of a model file, checked before it reads it.

crfsuite trusts its model files: it follows the offsets of the header, of the feature
reference lists and of its two string databases (CQDB: labels and attributes) without
checking them against the file, so a damaged file whose integrity records were updated
with it reads outside the buffer and crashes the process (issue 42). :func:`check_crf`
walks every offset and count the tagger will follow (the layout of crfsuite 0.12's
``crf1d_model.c`` and ``cqdb.c``, little-endian) and refuses a file where one points
outside the file, a feature names a label or attribute that does not exist, a weight is
not a finite number, or a hash table has no empty slot (its lookup would never end).
The checks are vectorised with numpy: a 6 MB model takes a few tens of milliseconds.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .integrity import ModelError

#: magic, total size, type, version, then counts and section offsets (uint32 each).
HEADER = struct.Struct("<4sI4s9I")
_CHUNK = struct.Struct("<4sII")  # id, size, number of items
_FEATURE = np.dtype([("type", "<u4"), ("src", "<u4"), ("dst", "<u4"), ("weight", "<f8")])
_VERSION = 100
#: A CQDB: id, size, flag, byte-order mark, backward-link count and offset, then 256
#: (offset, size) hash tables.
_CQDB = struct.Struct("<4sIIIII")
_CQDB_TABLES = 256
_CQDB_DATA = _CQDB.size + 8 * _CQDB_TABLES
_BYTEORDER = 0x62445371


class _Bad(Exception):
    """One problem found, said in words; :func:`check_crf` names the file."""


def check_crf(path: Path, data: bytes, labels: Sequence[str] | None = None) -> None:
    """Refuse (:class:`ModelError` naming ``path``) a crfsuite model that crfsuite could
    not read safely; ``labels``: the model's label set, which the file's labels must be
    part of (a file claiming more labels than that would make the tagger allocate for
    them)."""
    try:
        _check(data, labels)
    except _Bad as exc:
        raise ModelError(path, f"damaged CRF model: {exc}") from None


def _check(data: bytes, labels: Sequence[str] | None) -> None:
    size = len(data)
    if size < HEADER.size:
        raise _Bad(f"{size} bytes, too short for the header")
    (magic, recorded, kind, version, _, n_labels, n_attrs, off_features, off_labels,
     off_attrs, off_labelrefs, off_attrrefs) = HEADER.unpack_from(data)
    if magic != b"lCRF" or kind != b"FOMC" or version != _VERSION:
        raise _Bad("not a crfsuite CRF model (wrong header)")
    if recorded != size:
        raise _Bad(f"{size} bytes where its header records {recorded}")
    raw = np.frombuffer(data, dtype=np.uint8)
    names = _cqdb(raw, data, off_labels, n_labels, "label")
    if labels is not None and not set(names) <= set(labels):
        raise _Bad(f"labels {sorted(set(names) - set(labels))} are not the model's")
    _cqdb(raw, data, off_attrs, n_attrs, "attribute")
    n_features = _features(data, off_features, n_labels, n_attrs)
    _refs(raw, data, off_labelrefs, b"LFRF", n_labels, n_features, "label")
    _refs(raw, data, off_attrrefs, b"AFRF", n_attrs, n_features, "attribute")


def _chunk(data: bytes, offset: int, chunk_id: bytes, what: str) -> tuple[int, int]:
    """A section's (size, number of items), the section inside the file."""
    if offset + _CHUNK.size > len(data):
        raise _Bad(f"the {what} section starts outside the file")
    found, size, num = _CHUNK.unpack_from(data, offset)
    if found != chunk_id or size < _CHUNK.size or offset + size > len(data):
        raise _Bad(f"the {what} section is not where the header says or runs past the "
                   "end of the file")
    return size, num


def _features(data: bytes, offset: int, n_labels: int, n_attrs: int) -> int:
    size, num = _chunk(data, offset, b"FEAT", "feature")
    if _CHUNK.size + _FEATURE.itemsize * num > size:
        raise _Bad(f"{num} features do not fit in their section")
    f = np.frombuffer(data, dtype=_FEATURE, count=num, offset=offset + _CHUNK.size)
    state = f["type"] == 0
    if not np.all(state | (f["type"] == 1)):
        raise _Bad("a feature of unknown type")
    if np.any(f["dst"] >= n_labels) or np.any(
            f["src"] >= np.where(state, n_attrs, n_labels)):
        raise _Bad("a feature names a label or attribute the model does not have")
    if not np.all(np.isfinite(f["weight"])):
        raise _Bad("a feature weight is not a finite number")
    return num


def _refs(raw: np.ndarray, data: bytes, offset: int, chunk_id: bytes, n_items: int,
          n_features: int, what: str) -> None:
    """A section of per-label (or per-attribute) lists of feature ids."""
    size, num = _chunk(data, offset, chunk_id, f"{what} reference")
    start, end = offset + _CHUNK.size + 4 * num, offset + size
    if num < n_items or start > end:
        raise _Bad(f"the {what} reference section is too small for {n_items} {what}s")
    lists = np.frombuffer(data, dtype="<u4", count=n_items,
                          offset=offset + _CHUNK.size).astype(np.int64)
    if np.any(lists < start) or np.any(lists + 4 > end):
        raise _Bad(f"a {what}'s feature list lies outside its section")
    counts = _u32(raw, lists)
    ends = lists + 4 + 4 * counts
    # the lists of a saved model never overlap: more than the section holds is garbage,
    # and bounds the gather below by the file's size
    if np.any(ends > end) or int((ends - lists).sum()) > end - start:
        raise _Bad(f"a {what}'s feature list runs past its section")
    firsts = np.repeat(lists + 4, counts)
    steps = np.arange(len(firsts)) - np.repeat(np.cumsum(counts) - counts, counts)
    if len(firsts) and np.any(_u32(raw, firsts + 4 * steps) >= n_features):
        raise _Bad(f"a {what} refers to a feature the model does not have")


def _cqdb(raw: np.ndarray, data: bytes, offset: int, n_items: int, what: str) -> list[str]:
    """A string database (id <-> string); returns the strings of ids 0..n_items-1."""
    if offset + _CQDB_DATA > len(data):
        raise _Bad(f"the {what} table starts outside the file")
    chunk_id, size, _, byteorder, n_back, back = _CQDB.unpack_from(data, offset)
    if chunk_id != b"CQDB" or byteorder != _BYTEORDER or size < _CQDB_DATA \
            or offset + size > len(data):
        raise _Bad(f"the {what} table is not where the header says or runs past the end "
                   "of the file")
    end = offset + size
    tables = np.frombuffer(data, dtype="<u4", count=2 * _CQDB_TABLES,
                           offset=offset + _CQDB.size).reshape(-1, 2).astype(np.int64)
    live = tables[(tables[:, 0] != 0) & (tables[:, 1] != 0)]
    firsts, slots = offset + live[:, 0], live[:, 1]
    # tables of a saved file never overlap: more slots than the table holds is garbage,
    # and bounds the gather below by the file's size
    if np.any(firsts + 8 * slots > end) or 8 * int(slots.sum()) > size:
        raise _Bad(f"a hash table of the {what} table runs past its end")
    starts = np.cumsum(slots) - slots
    steps = np.arange(int(slots.sum())) - np.repeat(starts, slots)
    keys = _u32(raw, np.repeat(firsts, slots) + 8 * steps + 4)  # each slot: hash, offset
    if len(slots) and np.any(np.add.reduceat((keys != 0).astype(np.int64), starts) == slots):
        # crfsuite's lookup stops at an empty slot only: it would never end
        raise _Bad(f"a hash table of the {what} table has no empty slot")
    _records(raw, offset + keys[keys != 0], end, n_items, what)
    if not n_items:  # a model whose features all fell under min_freq: nothing to list
        return []
    if not back or n_back < n_items or offset + back + 4 * n_back > end:
        raise _Bad(f"the {what} table does not list its {n_items} {what}s")
    by_id = np.frombuffer(data, dtype="<u4", count=n_items,
                          offset=offset + back).astype(np.int64)
    if np.any(by_id == 0):
        raise _Bad(f"the {what} table lacks a {what}")
    starts = _records(raw, offset + by_id, end, n_items, what)
    if what != "label":
        return []
    return [data[s:data.index(b"\0", s)].decode("utf-8", "replace") for s in starts]


def _records(raw: np.ndarray, at: np.ndarray, end: int, n_items: int,
             what: str) -> np.ndarray:
    """Records (id, key size, key with its NUL) at ``at``: each inside the table, its
    id below ``n_items`` and its key ending in NUL (crfsuite compares keys with
    strcmp); returns where the keys start."""
    if np.any(at + 8 > end):
        raise _Bad(f"an entry of the {what} table lies outside it")
    ids, sizes = _u32(raw, at), _u32(raw, at + 4)
    if np.any(ids >= n_items):
        raise _Bad(f"an entry of the {what} table has an id past the last {what}")
    stops = at + 8 + sizes
    if np.any(sizes < 1) or np.any(stops > end) or np.any(raw[stops - 1] != 0):
        raise _Bad(f"an entry of the {what} table has a key that runs past it")
    return at + 8


def _u32(raw: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Little-endian uint32 values at byte positions ``at`` (any alignment), as int64."""
    at = np.asarray(at, dtype=np.int64)
    if not np.any(at & 3):  # the usual case: one gather of whole words
        return raw[: len(raw) // 4 * 4].view("<u4")[at >> 2].astype(np.int64)
    b = [raw[at + i].astype(np.int64) for i in range(4)]
    return b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)

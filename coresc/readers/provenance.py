"""Each paper's provenance in ``Paper.meta``, set as it is read for annotating: what
its JATS says (:func:`~coresc.readers.pmc.jats_provenance`, kept by the JATS reader),
what its PMC article-version name says, and PMC's metadata JSON beside the file, which
wins (see :mod:`coresc.readers.pmc` for the keys and the JSON's fields)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..document import Paper
from ..errors import InputError
from .inputs import read_input_bytes
from .pmc import article_version, from_metadata, metadata_path
from .remote import is_url, metadata_url

_FORMATS = {"text": "text", "jsonl": "text"}  # any other reader reads XML


def read_metadata(path: str | Path) -> dict[str, Any]:
    """A metadata JSON as a dict; :class:`InputError` naming it when it is not one."""
    data = read_input_bytes(path)
    try:
        record = json.loads(data)
    except ValueError as exc:
        raise InputError(path, f"metadata is not JSON ({exc})") from None
    if not isinstance(record, dict):
        raise InputError(path, "metadata JSON is not an object")
    return record


def add_provenance(paper: Paper, path: str | None, name: str) -> None:
    """Set the provenance keys on a paper just read: from its JATS (kept in its tree),
    the article-version name of ``path``/``name``, and PMC's metadata JSON beside the
    file. Raises :class:`InputError` for a metadata JSON that cannot be read."""
    meta = paper.meta
    pdf = "pdf_reader" in meta or "grobid" in meta
    meta["source_format"] = "pdf" if pdf else _FORMATS.get(paper.source_format, "xml")
    found = article_version(path or name.rpartition("::")[2])
    if found is not None:
        meta.setdefault("pmcid", found[0])
        if found[1] is not None:
            meta["version"] = found[1]
    json_path = (metadata_url(path) if is_url(path) else metadata_path(path)) if path else None
    if json_path is not None:
        meta.update(from_metadata(read_metadata(json_path)))

"""PMC's inventory CSV as a list of inputs.

PMC publishes a daily Amazon S3 inventory of its dataset's metadata objects
(``inventory-reports/pmc-oa-opendata/metadata/data/<uuid>.csv.gz``): no header, one row
per article version, ``"pmc-oa-opendata","metadata/PMC10000002.1.json",
"2026-01-08T11:47:59.000Z","f25d9c5f..."`` (bucket, key, last modified, ETag). Each
key names an article version, read from its folder (``PMC10000002.1/``) in the local
mirror: the folder above ``inventory-reports/`` when the CSV lies inside it, else the
CSV's own folder. A CSV of one's own works too: a header row with a ``key``, ``path``
or ``pmcid`` column, whose values are keys, article versions (``PMC123.2``), articles
(``PMC123``: its newest version in the mirror) or paths of files to read.
"""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path

from ..errors import InputError
from ..limits import max_input_bytes, too_large
from .pmc import article_file, article_version

INVENTORY_SUFFIXES = (".csv", ".csv.gz")
_COLUMNS = ("key", "path", "pmcid")


def is_inventory(path: str | Path) -> bool:
    return str(path).lower().endswith(INVENTORY_SUFFIXES)


def mirror_root(csv_path: Path) -> Path:
    """Where an inventory's keys are found: above ``inventory-reports/``, else beside it."""
    folder = csv_path.resolve().parent
    for parent in (folder, *folder.parents):
        if parent.name == "inventory-reports":
            return parent.parent
    return folder


def inventory_inputs(csv_path: str | Path) -> tuple[list[Path], list[InputError]]:
    """The files an inventory lists (one per article version) and, one per row, what
    it lists that the mirror does not hold. Raises :class:`InputError` when the CSV
    itself cannot be read."""
    path = Path(csv_path)
    rows = _rows(path)
    root = mirror_root(path)
    files, problems = [], []
    for line, value in rows:
        try:
            files.append(_resolve(root, value))
        except LookupError as exc:
            problems.append(InputError(f"{path}:{line}", f"{value}: {exc.args[0]}"))
    return files, problems


def _rows(path: Path) -> list[tuple[int, str]]:
    """``(line number, key)`` of each row."""
    try:
        raw = path.read_bytes()
        if len(raw) > max_input_bytes():
            raise too_large(path, len(raw))
        text = (gzip.decompress(raw) if path.name.lower().endswith(".gz") else raw
                ).decode("utf-8-sig")
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read the inventory ({exc})") from None
    table = [r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r)]
    if not table:
        raise InputError(path, "inventory is empty")
    header = [c.strip().lower() for c in table[0]]
    column = next((header.index(c) for c in _COLUMNS if c in header), None)
    start = 1 if column is not None else 0
    if column is None:  # S3's inventory: bucket, key, ...
        if len(header) < 2:
            raise InputError(path, "not an inventory: no header naming a key, path or "
                                   "pmcid column, and not S3's bucket,key,... rows")
        column = 1
    return [(n + 1 + start, row[column].strip()) for n, row in enumerate(table[start:])
            if len(row) > column and row[column].strip()]


def _resolve(root: Path, value: str) -> Path:
    """The file to read for one row; LookupError saying what is missing."""
    found = article_version(value.rstrip("/").rpartition("/")[2])
    if found is None:
        target = root / value
        if not target.is_file():
            raise LookupError(f"no such file under {root}")
        return target
    pmcid, version = found
    if version is None:
        version = _newest(root, pmcid)
    folder = root / f"{pmcid}.{version}"
    if not folder.is_dir():
        raise LookupError(f"no article folder {folder.name}/ under {root}")
    chosen = article_file(folder, {p.name for p in folder.iterdir()})
    if chosen is None:
        raise LookupError(f"{folder.name}/ holds no XML, PDF or text to read")
    return folder / chosen


def _newest(root: Path, pmcid: str) -> int:
    versions = [v[1] for p in root.glob(f"{pmcid}.*")
                if (v := article_version(p.name)) and v[0] == pmcid and v[1] and p.is_dir()]
    if not versions:
        raise LookupError(f"no version of {pmcid} under {root}")
    return max(versions)

"""Readers: turn a file into :class:`~coresc.document.Paper` objects.

``read_file(path)`` detects the format (or takes ``fmt``) and returns a list of papers
(one for every format except JSONL, which holds one document per line).
``read_inputs(paths)`` expands directories and reads everything, collecting the files
it could not read instead of stopping at the first.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..document import Paper
from ..errors import InputError
from ..xmlsafe import localname, parse_xml

#: Format name -> "module:function"; imported on first use so start-up stays fast.
READERS: dict[str, str] = {
    "art": "coresc.readers.presplit:read_presplit",
    "mode2": "coresc.readers.presplit:read_presplit",
    "jats": "coresc.readers.jats:read_jats",
    "elsevier": "coresc.readers.elsevier:read_elsevier",
    "text": "coresc.readers.text:read_text",
    "jsonl": "coresc.readers.jsonl:read_jsonl",
}
FORMATS: tuple[str, ...] = tuple(READERS)
XML_FORMATS = {"art", "mode2", "jats", "elsevier"}

#: File endings a directory walk picks up.
INPUT_SUFFIXES = (".xml", ".nxml", ".txt", ".jsonl")

# File-name endings that are not part of the paper id (corpus conventions).
_ID_SUFFIXES = ("_mode2_annotated", "_annotated", "_mode2", "_CoreSC", "_split")


def paper_id_from_path(path: str | Path) -> str:
    """File name to paper id: ``ann1/b303919f_mode2.xml`` -> ``b303919f``.

    ``10357790_mode2_annotated.xml`` -> ``10357790``, ``S0001870812002101_CoreSC.xml`` ->
    ``S0001870812002101``: corpus suffixes are dropped so ids agree across corpora.
    """
    stem = Path(path).name
    for ext in (".xml", ".nxml", ".txt", ".jsonl"):
        if stem.endswith(ext):
            stem = stem[: -len(ext)]
            break
    for suffix in _ID_SUFFIXES:
        if stem.endswith(suffix) and len(stem) > len(suffix):
            return stem[: -len(suffix)]
    return stem


def _decode(path: Path, data: bytes) -> str:
    if b"\x00" in data[:8192]:
        raise InputError(path, "binary file, not a paper (NUL bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text (invalid byte at offset {exc.start})") from None


def detect_xml_format(tree) -> str | None:
    """Name the XML format of a parsed tree, or ``None`` when it is none we read."""
    root = tree.getroot()
    name = localname(root)
    ns = root.tag.split("}")[0][1:] if root.tag.startswith("{") else ""
    # Sentence markup first: an Elsevier or JATS file written back with its sentences
    # wrapped (in the document's default namespace) is read as pre-split.
    has_sentences = next(root.iter("s", "{*}s"), None) is not None
    if has_sentences:
        return "art" if next(root.iter("annotationART"), None) is not None else "mode2"
    if "elsevier.com" in ns:
        return "elsevier"
    if name == "article":
        return "jats"
    if name in ("PAPER", "paper"):
        return "mode2"
    return None


def read_file(path: str | Path, fmt: str = "auto") -> list[Paper]:
    """Read one file as ``fmt`` (``auto`` detects it). Raises :class:`InputError`."""
    path = Path(path)
    if fmt != "auto" and fmt not in READERS:
        raise InputError(path, f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise InputError(path, "is a directory (expected a file)") from None
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror}") from None
    if not data.strip():
        raise InputError(path, "file is empty")
    text = _decode(path, data)
    head = text.lstrip()[:1]
    if fmt == "auto" or fmt in XML_FORMATS:
        if head == "<":
            tree = parse_xml(path, data)
            found = detect_xml_format(tree)
            if fmt == "auto":
                if found is None:
                    raise InputError(path, f"unknown XML format (root element "
                                           f"<{localname(tree.getroot())}>)")
                fmt = found
            return [_reader(fmt)(path, tree)]
        if fmt in XML_FORMATS:
            raise InputError(path, f"not XML, cannot read as {fmt}")
        fmt = "jsonl" if head in ("{", "[") or path.suffix == ".jsonl" else "text"
    return list(_reader(fmt)(path, text)) if fmt == "jsonl" else [_reader(fmt)(path, text)]


def _reader(fmt: str) -> Callable:
    module, func = READERS[fmt].split(":")
    return getattr(importlib.import_module(module), func)


def iter_input_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Files named directly, and the readable files inside named directories (sorted)."""
    for p in map(Path, paths):
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                if f.is_file() and f.suffix in INPUT_SUFFIXES:
                    yield f
        else:
            yield p


@dataclass
class ReadResult:
    papers: list[Paper] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


def read_inputs(paths: Iterable[str | Path], fmt: str = "auto") -> ReadResult:
    """Read every input; files that fail are collected in ``errors``, not raised."""
    result = ReadResult()
    for f in iter_input_files(paths):
        result.files.append(f)
        try:
            result.papers.extend(read_file(f, fmt))
        except InputError as exc:
            result.errors.append(exc)
    return result


def read_corpus(paths: Iterable[str | Path], fmt: str = "auto") -> list[Paper]:
    """Read every input and raise the first error: for training and evaluation data."""
    paths = list(paths)
    result = read_inputs(paths, fmt)
    if result.errors:
        raise result.errors[0]
    if not result.files:
        raise InputError(", ".join(map(str, paths)), "no readable files found")
    return result.papers

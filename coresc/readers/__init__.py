"""Readers: turn an input into :class:`~coresc.document.Paper` objects.

One call reads one input: ``read_file(path)`` reads a file, ``-`` (standard input) or a
PDF (with the embedded reader, :mod:`coresc.readers.pdf`, or through a GROBID server),
detecting the format unless ``fmt`` is given, and returns
a list of papers (one for every format except JSONL, which holds one document per line);
``read_data(data, name)`` does the same for bytes already in memory. Both raise
:class:`~coresc.errors.InputError` naming the input and the problem.
``find_inputs(paths)`` expands directories into the files to read and those skipped;
``read_inputs(paths)`` reads everything, collecting the inputs it could not read instead
of stopping at the first.

Every input's bytes are decoded in one place (:func:`decode_input` in ``decode.py``:
encodings, byte-order marks, text XML cannot hold); finding and reading input files is
``inputs.py``; this module holds the registry of formats and the dispatch to the readers.
Every reader's papers pass through one filter here: supporting-information stubs such as
"(DOC)" or "(TIF)" standing alone are not sentences (:func:`~coresc.document.is_file_stub`).
Empty sentences are kept here (a gold corpus may label one); annotating drops them
(:func:`coresc.batch.work.read_source`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..document import PDF_SOURCE, Paper, is_file_stub, name_text
from ..errors import InputError
from ..tei import TEI_NS
from ..xmlsafe import localname, parse_xml
from .decode import decode_input, is_pdf, xml_bytes
from .inputs import (
    INPUT_SUFFIXES,
    STDIN,
    STDIN_NAME,
    InputFiles,
    find_inputs,
    iter_input_files,
    read_input_bytes,
    read_stdin_bytes,
    stat_problem,
)

__all__ = [
    "FORMATS", "INPUT_SUFFIXES", "READERS", "STDIN", "STDIN_NAME", "XML_FORMATS", "InputFiles",
    "ReadResult", "decode_input", "detect_xml_format", "find_inputs", "is_pdf",
    "iter_input_files", "paper_id_from_path", "read_corpus", "read_data", "read_file",
    "read_input_bytes", "read_inputs", "read_pdf", "read_stdin", "read_stdin_bytes", "stat_problem",
    "xml_bytes",
]

if TYPE_CHECKING:
    from .grobid import GrobidClient

#: Format name -> "module:function"; imported on first use so start-up stays fast.
READERS: dict[str, str] = {
    "art": "coresc.readers.presplit:read_presplit",
    "mode2": "coresc.readers.presplit:read_presplit",
    "jats": "coresc.readers.jats:read_jats",
    "elsevier": "coresc.readers.elsevier:read_elsevier",
    "tei": "coresc.readers.tei:read_tei",
    "text": "coresc.readers.text:read_text",
    "jsonl": "coresc.readers.jsonl:read_jsonl",
}
FORMATS: tuple[str, ...] = tuple(READERS)
XML_FORMATS = {"art", "mode2", "jats", "elsevier", "tei"}

_EMPTY_STDIN = "nothing on standard input"

# File-name endings that promise XML: such a file that is not XML is refused, not read as text.
_XML_SUFFIXES = (".xml", ".nxml")
# File-name endings that are not part of the paper id (corpus conventions).
_ID_SUFFIXES = ("_mode2_annotated", "_annotated", "_mode2", "_CoreSC", "_split", ".tei")


def paper_id_from_path(path: str | Path) -> str:
    """File name to paper id: ``ann1/b303919f_mode2.xml`` -> ``b303919f``.

    ``10357790_mode2_annotated.xml`` -> ``10357790``, ``S0001870812002101_CoreSC.xml`` ->
    ``S0001870812002101``, ``N18-3011.tei.xml`` and ``N18-3011.pdf`` -> ``N18-3011``:
    corpus suffixes are dropped so ids agree across corpora. A name that is not UTF-8
    gives an id every output can hold (:func:`~coresc.document.name_text`).
    """
    stem = name_text(Path(path).name)
    for ext in INPUT_SUFFIXES:
        if stem.lower().endswith(ext):
            stem = stem[: -len(ext)]
            break
    for suffix in _ID_SUFFIXES:
        if stem.endswith(suffix) and len(stem) > len(suffix):
            return stem[: -len(suffix)]
    return stem


def detect_xml_format(tree) -> str | None:
    """Name the XML format of a parsed tree, or ``None`` when it is none we read."""
    root = tree.getroot()
    name = localname(root)
    ns = root.tag.split("}")[0][1:] if root.tag.startswith("{") else ""
    if ns == TEI_NS or name in ("TEI", "teiCorpus"):
        return "tei"  # GROBID's, or TEI coresc wrote back with its sentences marked
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


def read_file(path: str | Path, fmt: str = "auto",
              grobid: GrobidClient | str | None = None) -> list[Paper]:
    """Read one input: a file, or ``-`` for standard input. Raises :class:`InputError`.

    ``fmt`` names the format (``auto`` detects it). A PDF (known by its ``%PDF-``
    header, whatever its name) is read by the embedded reader (:mod:`coresc.readers.pdf`)
    unless a GROBID server is given: ``grobid`` (a URL or a
    :class:`~coresc.readers.grobid.GrobidClient`; ``None`` uses ``$CORESC_GROBID_URL``
    where it is set), which gets the PDF, and its TEI is read. Papers from standard
    input are named ``stdin`` and have no ``source_path``.
    """
    if str(path) == STDIN:
        return read_stdin(fmt, grobid)
    data = read_input_bytes(path)
    papers = read_data(data, path, fmt, grobid)
    for paper in papers:
        paper.source_path = str(path)
    return papers


def read_stdin(fmt: str = "auto", grobid: GrobidClient | str | None = None) -> list[Paper]:
    """Read one input from standard input (see :func:`read_file`)."""
    data = read_stdin_bytes()
    if not data.strip():
        raise InputError(STDIN_NAME, _EMPTY_STDIN)
    return read_data(data, STDIN_NAME, fmt, grobid)


def read_data(data: bytes, name: str | Path = "data", fmt: str = "auto",
              grobid: GrobidClient | str | None = None) -> list[Paper]:
    """Read one input held in memory: the bytes of a file in any format :func:`read_file` reads.

    ``name`` stands for the input in error messages and gives the paper id
    (``"paper.nxml"`` -> ``paper``); it need not be a file. The papers have no
    ``source_path``. Raises :class:`InputError`.
    """
    if fmt != "auto" and fmt not in READERS:
        raise InputError(name, f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    if is_pdf(data, name):
        papers = _read_pdf(data, name, fmt, grobid)
    elif str(name).lower().endswith(".pdf"):
        raise InputError(name, "named .pdf but is not a PDF (no %PDF- header)")
    else:
        papers = _read_bytes(data, name, fmt)
    for paper in papers:
        paper.source_path = None
        paper.drop_sentences(lambda s: is_file_stub(s.text))
    return papers


def _read_bytes(data: bytes, name: str | Path, fmt: str) -> list[Paper]:
    if not data.strip():
        raise InputError(name, _EMPTY_STDIN if str(name) == STDIN_NAME else "no data (empty)")
    text = decode_input(name, data)
    head = text.lstrip()[:1]
    if fmt == "auto" or fmt in XML_FORMATS:
        if head == "<":
            xml, text = xml_bytes(text), ""  # the text need not live while the tree does
            tree = parse_xml(name, xml)
            del xml
            found = detect_xml_format(tree)
            if fmt == "auto":
                if found is None:
                    raise InputError(name, f"unknown XML format (root element "
                                           f"<{localname(tree.getroot())}>)")
                fmt = found
            return [_reader(fmt)(name, tree)]
        if fmt in XML_FORMATS:
            raise InputError(name, f"not XML, cannot read as {fmt}")
        suffix = Path(str(name)).suffix.lower()
        if suffix in _XML_SUFFIXES:  # a damaged XML file is not to be read as prose
            raise InputError(name, f"named {suffix} but is not XML (it does not begin with "
                                   "'<'); --format text reads it as plain text")
        fmt = "jsonl" if head in ("{", "[") or str(name).endswith(".jsonl") else "text"
    return list(_reader(fmt)(name, text)) if fmt == "jsonl" else [_reader(fmt)(name, text)]


def _read_pdf(data: bytes, name: str | Path, fmt: str,
              grobid: GrobidClient | str | None) -> list[Paper]:
    from .grobid import grobid_client

    if fmt not in ("auto", "tei"):
        raise InputError(name, f"is a PDF, cannot read as {fmt}")
    client = grobid_client(grobid)
    if client is None:  # no server: the embedded reader
        from .pdf import pdf_notice

        pdf_notice()
        return [read_pdf(data, name)]
    tree = client.parse(client.process(data, name), name)
    paper = _reader("tei")(name, tree)
    paper.meta["grobid"] = client.url
    return [paper]


def read_pdf(data: bytes, name: str | Path = "data.pdf") -> Paper:
    """Read a PDF's bytes with the embedded reader (:mod:`coresc.readers.pdf`), no server;
    the paper's ``meta["pdf_reader"]`` names the reader, ``meta["pdf_quality"]`` holds
    how well it read (:mod:`coresc.readers.pdf.quality`, also in the TEI header),
    ``meta["left_out"]`` lines saying what it did not read (when it left something out);
    each sentence's ``boxes`` on the pages (:mod:`coresc.readers.pdf.boxes`), and the
    PDF's bytes (``meta[PDF_SOURCE]``, for ``--to pdf``). Raises :class:`InputError`."""
    from ..tei import TEI_NS
    from .pdf import READER, pdf_reading
    from .pdf.boxes import locate_sentences
    from .pdf.quality import reading_quality
    from .pdf.tei import LEFT_OUT, note_quality

    tree, text_chars, line_chars, glyphs = pdf_reading(data, name)
    notes = [n.text for n in tree.iter(f"{{{TEI_NS}}}note") if n.get("type") == LEFT_OUT]
    paper = _reader("tei")(name, tree)
    locate_sentences(paper, glyphs)
    paper.meta[PDF_SOURCE] = data
    paper.meta["pdf_reader"] = READER
    paper.meta["pdf_quality"] = reading_quality(paper, text_chars, line_chars)
    note_quality(tree, paper.meta["pdf_quality"])
    if notes:
        paper.meta["left_out"] = notes
    return paper


def _reader(fmt: str) -> Callable:
    module, func = READERS[fmt].split(":")
    return getattr(importlib.import_module(module), func)


@dataclass
class ReadResult:
    papers: list[Paper] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


def read_inputs(paths: Iterable[str | Path], fmt: str = "auto",
                grobid: GrobidClient | str | None = None) -> ReadResult:
    """Read every input; files that fail are collected in ``errors``, not raised."""
    result = ReadResult()
    found = find_inputs(paths)
    result.errors.extend(found.problems)
    for f in found.files:
        result.files.append(f)
        try:
            result.papers.extend(read_file(f, fmt, grobid))
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

"""Readers: turn an input into :class:`~coresc.document.Paper` objects.

One call reads one input: ``read_file(path)`` reads a file, ``-`` (standard input) or a
PDF (through a GROBID server), detecting the format unless ``fmt`` is given, and returns
a list of papers (one for every format except JSONL, which holds one document per line);
``read_data(data, name)`` does the same for bytes already in memory. Both raise
:class:`~coresc.errors.InputError` naming the input and the problem.
``find_inputs(paths)`` expands directories into the files to read and those skipped;
``read_inputs(paths)`` reads everything, collecting the inputs it could not read instead
of stopping at the first.

Every input's bytes are decoded in one place (:func:`decode_input`: encodings,
byte-order marks, text XML cannot hold), and every reader's papers pass through one
filter here: supporting-information stubs such as "(DOC)" or "(TIF)" standing alone are
not sentences (:func:`~coresc.document.is_file_stub`). Empty sentences are kept here (a
gold corpus may label one); annotating drops them (:func:`coresc.batch.work.read_source`).
"""

from __future__ import annotations

import codecs
import errno
import importlib
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..document import STDIN_ID, Paper, is_file_stub
from ..errors import InputError
from ..limits import max_input_bytes, too_large
from ..tei import TEI_NS
from ..xmlsafe import localname, parse_xml, sanitize_text

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

#: File endings a directory walk picks up (PDFs are read through GROBID).
INPUT_SUFFIXES = (".xml", ".nxml", ".txt", ".jsonl", ".pdf")
#: The input name that means standard input.
STDIN = "-"
#: The name standard input goes by in messages and paper ids.
STDIN_NAME = STDIN_ID

_EMPTY_STDIN = "nothing on standard input"

# File-name endings that are not part of the paper id (corpus conventions).
_ID_SUFFIXES = ("_mode2_annotated", "_annotated", "_mode2", "_CoreSC", "_split", ".tei")


def paper_id_from_path(path: str | Path) -> str:
    """File name to paper id: ``ann1/b303919f_mode2.xml`` -> ``b303919f``.

    ``10357790_mode2_annotated.xml`` -> ``10357790``, ``S0001870812002101_CoreSC.xml`` ->
    ``S0001870812002101``, ``N18-3011.tei.xml`` and ``N18-3011.pdf`` -> ``N18-3011``:
    corpus suffixes are dropped so ids agree across corpora.
    """
    stem = Path(path).name
    for ext in INPUT_SUFFIXES:
        if stem.lower().endswith(ext):
            stem = stem[: -len(ext)]
            break
    for suffix in _ID_SUFFIXES:
        if stem.endswith(suffix) and len(stem) > len(suffix):
            return stem[: -len(suffix)]
    return stem


def is_pdf(data: bytes) -> bool:
    """Whether ``data`` is a PDF: it starts with the ``%PDF-`` header (after whitespace)."""
    return data[:1024].lstrip().startswith(b"%PDF-")


# UTF-32 first: its little-endian mark FF FE 00 00 starts like UTF-16's FF FE.
_UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
_UTF32_XML = (b"<\x00\x00\x00?\x00\x00\x00", b"\x00\x00\x00<\x00\x00\x00?")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_UTF16_XML = (b"<\x00?\x00", b"\x00<\x00?")  # "<?" of an XML declaration, no BOM
_DECLARED = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._:-]+)[\"']")
_UTF8_NAMES = {"utf-8", "utf8", "us-ascii", "ascii"}


def decode_input(path: str | Path, data: bytes) -> str:
    """The text of an input's bytes, fit for every reader and writer.

    UTF-8 unless a UTF-32 or UTF-16 byte-order mark (or a UTF-32 or UTF-16 ``<?xml``)
    or an XML declaration says otherwise; an XML declaration naming an encoding the
    bytes are not in is refused (``encoding="ISO-8859-1"`` on UTF-8 bytes would give
    mojibake). Leading byte-order marks are dropped (however many) and the text goes
    through :func:`~coresc.xmlsafe.sanitize_text`. Raises :class:`InputError`.
    """
    if data.startswith(_UTF32_BOMS) or data[:8] in _UTF32_XML:
        text = _decode_wide(path, data, "utf-32")
    elif data.startswith(_UTF16_BOMS) or data[:4] in _UTF16_XML:
        text = _decode_wide(path, data, "utf-16")
    else:
        if b"\x00" in data[:8192]:
            raise InputError(path, "binary file, not a paper (NUL bytes)")
        text = _decode_8bit(path, data)
    return sanitize_text(text.lstrip("\ufeff") if text.startswith("\ufeff") else text)


def _decode_wide(path: str | Path, data: bytes, codec: str) -> str:
    """UTF-32 or UTF-16 (byte order from the mark, else from where the NULs are)."""
    if not data.startswith(_UTF32_BOMS if codec == "utf-32" else _UTF16_BOMS):
        codec += "-le" if data[:1] == b"<" else "-be"
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        name = codec[:6].upper()
        raise InputError(path, f"not {name} text though it starts like it (invalid "
                               f"bytes at offset {exc.start})") from None


def _decode_8bit(path: str | Path, data: bytes) -> str:
    declared = _DECLARED.match(data[:1024].lstrip(b"\xef\xbb\xbf"))
    name = declared.group(1).decode("ascii").lower() if declared else "utf-8"
    if name not in _UTF8_NAMES:
        try:
            codec = codecs.lookup(name)
        except LookupError:
            raise InputError(path, f"XML declares an unknown encoding {name!r}") from None
        if codec.name.startswith("utf-16") or codec.name.startswith("utf-32"):
            raise InputError(path, f"XML declares {name} but the bytes are not {name} "
                                   f"(no byte-order mark, no NUL bytes)")
        if not data.isascii() and _is_utf8(data):
            raise InputError(path, f"XML declares encoding {name!r} but the bytes are "
                                   f"UTF-8: fix the declaration (encoding=\"UTF-8\")")
        try:
            return data.decode(codec.name)
        except UnicodeDecodeError as exc:
            raise InputError(path, f"not {name} text as its XML declaration says "
                                   f"(invalid byte at offset {exc.start})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text (invalid byte at offset {exc.start})") from None


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


_DECLARATION = re.compile(r"^(\s*<\?xml[^>]*?encoding\s*=\s*)([\"'])[A-Za-z0-9._:-]+\2")


def xml_bytes(text: str) -> bytes:
    """Decoded XML text as UTF-8 bytes for the parser (the declaration says so too)."""
    return _DECLARATION.sub(r"\1\2UTF-8\2", text, count=1).encode("utf-8")


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
    header, whatever its name) is sent to the GROBID server ``grobid`` (a URL or a
    :class:`~coresc.readers.grobid.GrobidClient`; ``None`` uses ``$CORESC_GROBID_URL``)
    and its TEI read. Papers from standard input are named ``stdin`` and have no
    ``source_path``.
    """
    if str(path) == STDIN:
        return read_stdin(fmt, grobid)
    data = read_input_bytes(path)
    papers = read_data(data, path, fmt, grobid)
    for paper in papers:
        paper.source_path = str(path)
    return papers


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
    if is_pdf(data):
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
        fmt = "jsonl" if head in ("{", "[") or str(name).endswith(".jsonl") else "text"
    return list(_reader(fmt)(name, text)) if fmt == "jsonl" else [_reader(fmt)(name, text)]


def _read_pdf(data: bytes, name: str | Path, fmt: str,
              grobid: GrobidClient | str | None) -> list[Paper]:
    from .grobid import ENV_VAR, grobid_client

    if fmt not in ("auto", "tei"):
        raise InputError(name, f"is a PDF, cannot read as {fmt}")
    client = grobid_client(grobid)
    if client is None:
        raise InputError(name, f"is a PDF: PDFs are read through a GROBID server; give "
                               f"--grobid URL (or set {ENV_VAR})")
    tree = client.parse(client.process(data, name), name)
    paper = _reader("tei")(name, tree)
    paper.meta["grobid"] = client.url
    return [paper]


def _reader(fmt: str) -> Callable:
    module, func = READERS[fmt].split(":")
    return getattr(importlib.import_module(module), func)


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

    files: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)


def find_inputs(paths: Iterable[str | Path]) -> InputFiles:
    """Expand ``paths`` (files, directories, ``-``) into the files to read and those skipped."""
    found = InputFiles()
    for p in map(Path, paths):
        if str(p) != STDIN and p.is_dir():
            st = p.stat()
            _walk(p, found, frozenset({(st.st_dev, st.st_ino)}))
        else:
            found.files.append(p)
    return found


def _walk(folder: Path, found: InputFiles, above: frozenset) -> None:
    """Depth first, names sorted (the order of ``sorted(folder.rglob("*"))``)."""
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        found.problems.append(InputError(folder, f"cannot list this folder: {exc.strerror}"))
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
                _walk(path, found, above | {key})
        elif stat.S_ISREG(st.st_mode):
            is_input = path.suffix.lower() in INPUT_SUFFIXES
            (found.files if is_input else found.skipped).append(path)
        else:
            kind = next((k for test, k in _SPECIAL if test(st.st_mode)), "a special file")
            found.problems.append(InputError(path, f"is {kind}, not a file (not read)"))


def iter_input_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    """The files to read (see :func:`find_inputs`)."""
    yield from find_inputs(paths).files


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

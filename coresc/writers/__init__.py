"""Writers: turn annotated :class:`~coresc.document.Paper` objects into files.

``write_papers(papers, fmt, out, inputs=...)`` dispatches through :data:`WRITERS`, a
registry like the readers'. A writer is either

* per paper (``xml``, ``mode2``, ``html``): ``render(paper) -> bytes``, one file
  ``<id><suffix>`` per paper (a single paper may also go to a named file or to stdout), or
* a stream (``jsonl``, ``tsv``, ``bioc``, ``bioc-json``, ``w3c``, ``parquet``):
  ``write(papers, fh)`` puts every paper into one file; ``header(with_pred) -> str`` and
  ``part(paper, with_pred) -> str`` give the same a paper at a time (what a streaming run
  appends), put together with the format's ``separator`` and ``footer`` by
  :func:`~coresc.writers.streams.open_sink` (``parquet`` names a sink of its own, and is
  a binary file: never standard output).

``xml`` is each paper's own dialect: TEI for a paper read from TEI, mode2 for the rest;
``mode2`` is mode2 whatever the input. Adding a format is one line in :data:`WRITERS`;
it is offered by ``coresc convert --to`` as soon as its module exists.

Every file the tool writes goes through :func:`atomic_output`: the data is written to
a temporary file beside the target and renamed over it only when complete, so an
interrupted or failed run never leaves a half-written file, and an input file is
never overwritten.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import importlib
import importlib.util
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..document import Paper
from ..errors import OutputError, UsageError


@dataclass(frozen=True)
class Writer:
    """How to write one output format.

    ``target`` is ``"module:function"`` (imported on first use). With ``per_paper`` the
    function is ``render(paper: Paper) -> bytes``; otherwise it is
    ``write(papers: Sequence[Paper], fh: TextIO) -> None``, and a stream format also
    names its ``header(with_pred: bool) -> str`` and ``part(paper, with_pred) -> str``.
    ``in_source``: the labels go back into the paper's source XML tree, and ``render``
    takes ``in_place`` (label that tree itself, not a copy); the other formats need no tree.
    A stream's ``separator`` goes between two papers' parts and its ``footer`` after the
    last; ``sink`` names a class that puts the parts together itself
    (:mod:`~coresc.writers.streams`); ``binary``: ``write`` takes a binary file and the
    output cannot go to standard output; ``extra``: the pip extra the format needs.
    """

    target: str
    per_paper: bool
    suffix: str
    header: str | None = None
    part: str | None = None
    in_source: bool = False
    separator: str = ""
    footer: str = ""
    sink: str | None = None
    binary: bool = False
    extra: str | None = None

    @property
    def module(self) -> str:
        return self.target.split(":")[0]

    def load(self, what: str = "target") -> Callable:
        """The function named by ``target`` (or by ``header`` / ``part``)."""
        module, func = getattr(self, what).split(":")
        return getattr(importlib.import_module(module), func)


#: Output format name -> :class:`Writer`.
WRITERS: dict[str, Writer] = {
    "xml": Writer("coresc.writers.xml:render_xml", per_paper=True, suffix=".xml",
                  in_source=True),
    "mode2": Writer("coresc.writers.mode2:render_mode2", per_paper=True, suffix=".xml",
                    in_source=True),
    "jsonl": Writer("coresc.writers.jsonl:write_jsonl", per_paper=False, suffix=".jsonl",
                    header="coresc.writers.jsonl:jsonl_header",
                    part="coresc.writers.jsonl:jsonl_part"),
    "tsv": Writer("coresc.writers.tsv:write_tsv", per_paper=False, suffix=".tsv",
                  header="coresc.writers.tsv:tsv_header", part="coresc.writers.tsv:tsv_part"),
    "html": Writer("coresc.writers.html:render_html", per_paper=True, suffix=".html"),
    "bioc": Writer("coresc.writers.bioc:write_bioc_xml", per_paper=False, suffix=".bioc.xml",
                   header="coresc.writers.bioc:bioc_xml_header",
                   part="coresc.writers.bioc:bioc_xml_part", footer="</collection>\n"),
    "bioc-json": Writer("coresc.writers.bioc:write_bioc_json", per_paper=False,
                        suffix=".bioc.json", header="coresc.writers.bioc:bioc_json_header",
                        part="coresc.writers.bioc:bioc_json_part", separator=",\n",
                        footer="\n]}\n"),
    "w3c": Writer("coresc.writers.w3c:write_w3c", per_paper=False, suffix=".w3c.jsonl",
                  header="coresc.writers.w3c:w3c_header", part="coresc.writers.w3c:w3c_part"),
    "pubannotation": Writer("coresc.writers.pubannotation:render_pubannotation",
                            per_paper=True, suffix=".json"),
    "parquet": Writer("coresc.writers.parquet:write_parquet", per_paper=False,
                      suffix=".parquet", header="coresc.writers.parquet:parquet_header",
                      part="coresc.writers.parquet:parquet_part",
                      sink="coresc.writers.parquet:ParquetSink", binary=True, extra="parquet"),
    "pdf": Writer("coresc.writers.pdf:render_pdf", per_paper=True, suffix=".pdf",
                  binary=True, extra="pdf"),
}


def available_formats() -> tuple[str, ...]:
    """The registered output formats whose module is installed (for ``--to`` choices)."""
    found = []
    for name, writer in WRITERS.items():
        try:
            if importlib.util.find_spec(writer.module) is not None:
                found.append(name)
        except ModuleNotFoundError:
            continue
    return tuple(found)


def _file_keys(paths: Iterable[str | Path]) -> set:
    """Resolved paths and (device, inode) pairs, so links to an input count as the input."""
    keys: set = set()
    for p in map(Path, paths):
        try:
            keys.add(p.resolve())
        except (OSError, RuntimeError):  # a link that loops: it is no input's name
            keys.add(p.absolute())
        with contextlib.suppress(OSError):
            st = p.stat()
            keys.add((st.st_dev, st.st_ino))
    return keys


def refuse_overwriting_inputs(out: str | Path | Iterable[str | Path],
                              inputs: Iterable[str | Path]) -> None:
    """Raise :class:`UsageError` when ``out`` (one path or several) is one of the inputs.

    Symbolic and hard links to an input count as the input, and so does an existing file
    inside an input folder or linked from one (a verb reads all a folder holds).
    """
    targets = [out] if isinstance(out, (str, Path)) else list(out)
    inputs = [Path(p) for p in inputs]
    keys = _file_keys(inputs)
    folders = [p for p in inputs if p.is_dir()]
    for target in targets:
        if _file_keys([target]) & keys:
            raise UsageError(f"{target}: output would overwrite an input file")
        folder = _in_folders(Path(target), folders)
        if folder is not None:
            raise UsageError(f"{target}: output would overwrite a file of the input folder "
                             f"{folder}")


def _in_folders(target: Path, folders: Sequence[Path]) -> Path | None:
    """The folder of ``folders`` that the existing file ``target`` lies in or is linked
    from (only a file that exists can be overwritten: no folder is walked otherwise)."""
    try:
        if not folders or not target.is_file():
            return None
        st, real = target.stat(), target.resolve()
    except (OSError, RuntimeError):
        return None
    for folder in folders:
        root = folder.resolve()
        if root in real.parents:
            return folder
        for dirpath, _, names in os.walk(root):
            for name in names:
                with contextlib.suppress(OSError):
                    other = os.stat(os.path.join(dirpath, name))
                    if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
                        return folder
    return None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: Output names that mean standard output.
STDOUT_NAMES = ("-", "/dev/stdout")


def is_stdout(out: str | Path | None) -> bool:
    """Whether an output name means standard output (``None``, ``-`` or ``/dev/stdout``)."""
    return out is None or str(out) in STDOUT_NAMES


@contextlib.contextmanager
def atomic_output(path: str | Path, mode: str = "w",
                  encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open an output file: every file coresc writes is opened here.

    The data goes to a temporary file beside ``path``, renamed to it on success only,
    so a failed run leaves no half-written file. A symbolic link is written through (the
    file it points to is replaced, the link stays); a device or FIFO that exists
    (``/dev/null``) is written to directly. Any failure to create, write or rename is an
    :class:`~coresc.errors.OutputError` naming ``path`` and the reason.
    """
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    if _is_special(path):
        with _output_errors(path), open(path, mode, encoding=None if "b" in mode
                                        else encoding) as fh:
            yield fh
        return
    tmp = None
    try:  # from before the temporary file exists: an interrupt at any point removes it
        with _output_errors(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:200]}.", suffix=".part",
                                       dir=path.parent)
        binary = "b" in mode
        fh = os.fdopen(fd, mode, encoding=None if binary else encoding,
                       newline=None if binary else "")
        with _output_errors(path):  # a full disk shows in the writes or the close
            try:
                yield fh
            finally:
                fh.close()
            # mkstemp makes the file private (0600); give it the usual mode of a new file
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        raise


def check_output_path(out: str | Path) -> None:
    """Refuse, before any work, an output path no file can have: a name longer than the
    file system allows, a file where a folder should be (``paper.txt/out.xml``), or an
    empty path (``Path("")`` is the current folder). Raises
    :class:`~coresc.errors.OutputError`."""
    if not str(out).strip():
        raise OutputError(f"{str(out)!r}: cannot write (an empty path names no file or "
                          f"folder)")
    path = Path(out)
    for part in path.parts:
        if len(os.fsencode(part)) > 255:
            raise OutputError(f"{_short(out)}: cannot write (a name in the path is longer "
                              f"than 255 bytes)")
    for parent in reversed(path.parents):
        try:
            st = parent.stat()
        except OSError:
            return  # missing from here on: it will be created
        if not stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{_short(out)}: cannot write ({parent} is a file, not a folder)")


def _short(path: str | Path, keep: int = 120) -> str:
    text = str(path)
    return text if len(text) <= keep else f"{text[:keep]}... ({len(text)} characters)"


def _is_special(path: Path) -> bool:
    try:
        st = path.stat()
    except OSError:
        return False
    return not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode)


@contextlib.contextmanager
def _output_errors(path: Path) -> Iterator[None]:
    """OSError -> one line naming the output (a file in the way, a name too long ...)."""
    try:
        yield
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if exc.errno == errno.ENOTDIR or (exc.errno == errno.EEXIST and path.parent.exists()
                                          and not path.parent.is_dir()):
            reason = "a part of the path is a file, not a folder"
        raise OutputError(f"{_short(path)}: cannot write ({reason})") from None


def get_writer(fmt: str) -> Writer:
    """The registered writer for ``fmt``; :class:`UsageError` when unknown or not installed."""
    if fmt not in WRITERS or fmt not in available_formats():
        raise UsageError(f"unknown output format {fmt!r} "
                         f"(known: {', '.join(available_formats())})")
    writer = WRITERS[fmt]
    if writer.extra is not None:  # before any work: one line naming the extra
        from ..extras import require

        require(writer.extra)
    return writer


def refuse_stdout(writer: Writer, fmt: str) -> None:
    """:class:`UsageError` for a binary format (parquet) sent to standard output."""
    if writer.binary:
        raise UsageError(f"{fmt} is a binary file: give -o FILE{writer.suffix}")


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._+-]")


#: Longest file stem made from a paper id (file systems allow 255 bytes per name).
MAX_STEM = 200


def file_stem(paper_id: str) -> str:
    """A file name for a paper id: ``train:12`` -> ``train_12`` (portable characters only).

    An id too long for a file name keeps its first characters and gains a hash of the
    whole id, so two long ids still give two names.
    """
    stem = _UNSAFE_NAME.sub("_", paper_id).lstrip(".") or "paper"
    if len(stem) > MAX_STEM:
        digest = hashlib.sha1(paper_id.encode("utf-8", "replace")).hexdigest()[:16]
        stem = f"{stem[:MAX_STEM - 17]}-{digest}"
    return stem


def output_paths(papers: Sequence[Paper], fmt: str, out: str | Path | None,
                 as_directory: bool = False) -> list[Path]:
    """Where a per-paper writer puts each paper (empty list: stdout).

    One paper goes to ``out`` itself, or into ``out`` when that is an existing
    directory. Several papers (or any number with ``as_directory``, e.g. when the
    input was a directory) need ``out`` to be a directory (created when missing), one
    ``<id><suffix>`` each; two papers with the same id are refused.
    """
    writer = get_writer(fmt)
    if out is None:
        if len(papers) > 1:
            raise UsageError(f"{len(papers)} papers cannot go to stdout as {fmt}: "
                             f"give -o DIRECTORY (one {writer.suffix} file per paper)")
        return []
    as_directory = as_directory or str(out).endswith(("/", os.sep))  # "-o out/"
    out = Path(out)
    if len(papers) == 1 and not as_directory and not out.is_dir():
        return [out]
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: {len(papers)} papers as {fmt} need -o to be a directory "
                         f"(one {writer.suffix} file per paper), not a file")
    if not out.exists() and out.suffix == writer.suffix:
        raise UsageError(f"{out}: {len(papers)} papers as {fmt} need -o to be a directory "
                         f"(one {writer.suffix} file per paper), not a {writer.suffix} file")
    paths = [out / f"{file_stem(paper.id)}{writer.suffix}" for paper in papers]
    seen: dict[Path, str] = {}
    for paper, path in zip(papers, paths, strict=True):
        if path in seen:
            raise UsageError(f"{path}: two papers would be written here "
                             f"({seen[path]} and {paper.source_path or paper.id})")
        seen[path] = paper.source_path or paper.id
    return paths


def write_papers(papers: Iterable[Paper], fmt: str, out: str | Path | None = None,
                 inputs: Iterable[str | Path] = (), as_directory: bool = False,
                 consume: bool = False) -> list[Path]:
    """Write ``papers`` as ``fmt`` to ``out`` (a file, a directory, or stdout when ``None``).

    ``as_directory`` makes a per-paper format (xml) write ``out/<id>.xml`` even for one
    paper (see :func:`output_paths`); stream formats (jsonl, tsv) ignore it.
    ``consume``: the papers are not used afterwards, so mode2 output may label their own
    source trees instead of copies (a copy doubled the memory of a big XML input).

    Every target is checked before anything is written: none may be an input file.
    Returns the files written (empty for stdout).
    """
    papers = list(papers)
    inputs = [Path(p) for p in inputs] + [Path(p.source_path) for p in papers if p.source_path]
    writer = get_writer(fmt)
    if is_stdout(out):
        out = None
        refuse_stdout(writer, fmt)
    else:
        check_output_path(out)
    func = writer.load()
    if consume and writer.in_source:
        func = functools.partial(func, in_place=True)
    if writer.per_paper:
        paths = output_paths(papers, fmt, out, as_directory)
        refuse_overwriting_inputs(paths, inputs)
        if not paths:
            for paper in papers:
                write_stdout_bytes(func(paper))
            return []
        for paper, path in zip(papers, paths, strict=True):
            data = func(paper)
            with atomic_output(path, "wb") as fh:
                fh.write(data)
        return paths
    if out is None:
        func(papers, sys.stdout)
        return []
    out = Path(out)
    if out.is_dir():
        raise UsageError(f"{out}: is a directory; {fmt} output goes into one file")
    refuse_overwriting_inputs(out, inputs)
    with atomic_output(out, "wb" if writer.binary else "w") as fh:
        func(papers, fh)
    return [out]


def write_stdout_bytes(data: bytes) -> None:
    """Write bytes to standard output (its binary buffer when it has one)."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(data.decode("utf-8"))
    else:
        buffer.write(data)
        buffer.flush()
